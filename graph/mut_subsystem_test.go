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

// A node inside a subsystem whose name has a '.' (which a flattened
// path would read as one more level) or a space is refused by Build with
// ErrBadName, naming its full path.
func TestMutNestedBadName(t *testing.T) {
	for _, name := range []string{"bad.name", "bad name"} {
		mp, _ := masspoint.New(masspoint.Params{Mass: 1})
		inner := graph.New()
		inner.Add(name, mp)
		g := graph.New()
		g.AddSubsystem("leg", graph.NewSubsystem(inner))
		_, err := g.Build()
		if !errors.Is(err, graph.ErrBadName) || !strings.Contains(err.Error(), `"leg.`+name+`"`) {
			t.Errorf("Build: %v, want ErrBadName for leg.%s", err, name)
		}
	}
}

// A top-level node whose name has a '.' is refused in a graph with
// subsystems too (their flattening allows the dots of paths), exactly
// once, as in a graph without them.
func TestMutTopLevelDotWithSubsystem(t *testing.T) {
	for _, withSub := range []bool{false, true} {
		mp, _ := masspoint.New(masspoint.Params{Mass: 1})
		g := graph.New()
		g.Add("a.b", mp)
		if withSub {
			g.AddSubsystem("leg", knee(t, "velocity"))
		}
		_, err := g.Build()
		var be *graph.BuildError
		if !errors.As(err, &be) || !errors.Is(err, graph.ErrBadName) || strings.Count(err.Error(), `"a.b"`) != 1 {
			t.Errorf("with a subsystem %v: Build: %v, want one ErrBadName for a.b", withSub, err)
		}
	}
}
