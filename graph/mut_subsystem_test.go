package graph_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/nodes/masspoint"
)

// knee: a subsystem of one mass "body", exposing its velocity as the
// output port "speed" (or a misspelt field, for a port error).
func knee(t *testing.T, field string) *graph.Subsystem {
	t.Helper()
	mp, _ := masspoint.New(masspoint.Params{Mass: 1})
	inner := graph.New()
	inner.Add("body", mp)
	k := graph.NewSubsystem(inner)
	k.ExposeOutput("speed", "body."+field)
	return k
}

// Subsystem.Ports checks the ports of every nested subsystem too: a
// misspelt field behind the inner knee's port is reported through the
// outer leg.
func TestMutNestedPortsChecked(t *testing.T) {
	mid := graph.New()
	mid.AddSubsystem("knee", knee(t, "velocty"))
	leg := graph.NewSubsystem(mid)
	_, err := leg.Ports()
	if !errors.Is(err, graph.ErrUnknownField) || !strings.Contains(err.Error(), `subsystem "knee" output port "speed"`) {
		t.Errorf("Ports: %v, want the knee's port speed unknown", err)
	}
	mid = graph.New()
	mid.AddSubsystem("knee", knee(t, "velocity"))
	if _, err := graph.NewSubsystem(mid).Ports(); err != nil {
		t.Errorf("Ports of a correct nesting: %v", err)
	}
}

// A subsystem's metadata counts every node through every nesting,
// including a subsystem added after the graph's last node.
func TestMutSubsystemMetaCountsTrailingSubsystem(t *testing.T) {
	mp, _ := masspoint.New(masspoint.Params{Mass: 1})
	mid := graph.New()
	mid.Add("hip", mp)
	mid.AddSubsystem("knee", knee(t, "velocity"))
	if n := graph.NewSubsystem(mid).Meta().Nodes; n != 2 {
		t.Errorf("Meta().Nodes = %d, want 2 (hip and knee.body)", n)
	}
}

// A node inside a subsystem whose name has a space is refused by Build
// with ErrBadName, naming its full path.
func TestMutNestedBadName(t *testing.T) {
	mp, _ := masspoint.New(masspoint.Params{Mass: 1})
	inner := graph.New()
	inner.Add("bad name", mp)
	g := graph.New()
	g.AddSubsystem("leg", graph.NewSubsystem(inner))
	_, err := g.Build()
	if !errors.Is(err, graph.ErrBadName) || !strings.Contains(err.Error(), `"leg.bad name"`) {
		t.Errorf("Build: %v, want ErrBadName for leg.bad name", err)
	}
}
