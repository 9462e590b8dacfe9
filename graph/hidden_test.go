package graph_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// counter is a node whose model keeps hidden state, as an imported FMU
// does: its Update adds to x the number of steps it has taken, a count
// the graph's state vector does not hold. Without its snapshot a resumed
// run would compute other numbers.
type counter struct {
	k        uint64 // the hidden state
	cannot   error  // what AllowRestep and SaveHidden return
	closed   int
	restored int
}

var counterSpec = node.NewSpec(node.Spec{Type: "counter",
	State: []node.Field{{Name: "x", Units: "1", Description: "the sum of the counts"}}})

func (c *counter) Spec() *node.Spec           { return counterSpec }
func (c *counter) InitialState(dst []float64) { dst[0] = 0 }
func (c *counter) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	c.k++
	dst[0] = x[0] + float64(c.k)*dt
	return nil
}
func (c *counter) SaveHidden() ([]byte, error) {
	if c.cannot != nil {
		return nil, c.cannot
	}
	return binary.LittleEndian.AppendUint64(nil, c.k), nil
}
func (c *counter) RestoreHidden(data []byte) error {
	if len(data) != 8 {
		return errors.New("bad snapshot")
	}
	c.k = binary.LittleEndian.Uint64(data)
	c.restored++
	return nil
}
func (c *counter) AllowRestep() error { return c.cannot }
func (c *counter) Close() error {
	c.closed++
	if c.closed > 1 {
		return errors.New("closed twice")
	}
	return nil
}

func counterSim(t *testing.T, c *counter) *graph.Sim {
	t.Helper()
	g := graph.New()
	g.Add("c", c)
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestHiddenStateCheckpoint: a checkpoint carries a node.HiddenState
// node's snapshot through the file, and a restored graph continues bit
// for bit; a checkpoint without the snapshot is refused; a node that
// cannot save it makes the checkpoint fail, naming it.
func TestHiddenStateCheckpoint(t *testing.T) {
	ref := counterSim(t, &counter{})
	if _, err := ref.Run(context.Background(), graph.Settings{Dt: 0.5, Steps: 10}); err != nil {
		t.Fatal(err)
	}
	want, _ := ref.Value("c.x")

	half := counterSim(t, &counter{})
	if _, err := half.Run(context.Background(), graph.Settings{Dt: 0.5, Steps: 5}); err != nil {
		t.Fatal(err)
	}
	c := half.Checkpoint()
	if c.Err != nil || len(c.Nodes[0].Hidden) != 8 {
		t.Fatalf("checkpoint: %v, hidden %v", c.Err, c.Nodes[0].Hidden)
	}
	var buf bytes.Buffer
	if err := c.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	read, err := graph.DecodeCheckpoint(&buf)
	if err != nil {
		t.Fatal(err)
	}
	fresh := &counter{}
	s := counterSim(t, fresh)
	if err := s.Restore(read); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background(), graph.Settings{Dt: 0.5, Steps: 5}); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Value("c.x")
	if got[0] != want[0] || fresh.restored != 1 {
		t.Errorf("resumed x = %v, uninterrupted %v (restored %d times)", got[0], want[0], fresh.restored)
	}

	read.Nodes[0].Hidden = nil
	err = counterSim(t, &counter{}).Restore(read)
	var me *graph.MismatchError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "node c keeps hidden state (node.HiddenState), and the checkpoint has no snapshot of it") {
		t.Errorf("restore without the snapshot: %v", err)
	}

	cannot := fmt.Errorf("the model cannot serialize its state")
	s = counterSim(t, &counter{cannot: cannot})
	c = s.Checkpoint()
	if !errors.Is(c.Err, cannot) || !strings.Contains(c.Err.Error(), "graph: checkpoint: node c: the model cannot serialize its state") {
		t.Errorf("Checkpoint.Err = %v", c.Err)
	}
	if err := c.Encode(&buf); !errors.Is(err, cannot) {
		t.Errorf("Encode of an incomplete checkpoint: %v", err)
	}
	if err := s.Restore(c); !errors.Is(err, cannot) {
		t.Errorf("Restore of an incomplete checkpoint: %v", err)
	}
}

// TestRestepAsked: an iterated group asks its members that keep hidden
// state whether they can be stepped again; a refusal stops the run before
// its first step, naming the strategy, the group and the node. Strategies
// that step every node once need nothing of them.
func TestRestepAsked(t *testing.T) {
	cannot := errors.New("no saved states")
	c := &counter{cannot: cannot}
	s := counterSim(t, c)
	st := &coupling.Strategy{Scheme: coupling.Iterative, Groups: []coupling.Group{{Name: "g", Nodes: []string{"c"}}}}
	_, err := s.Run(context.Background(), graph.Settings{Dt: 0.1, Steps: 3, Mode: graph.CoSimulation{Coupling: st}})
	if !errors.Is(err, cannot) || !strings.Contains(err.Error(), `graph: coupling iterative:relaxation steps the nodes of group "g" again from the start of each step until they converge, and node c (counter) cannot be`) {
		t.Errorf("iterated group: %v", err)
	}
	if s.StepCount() != 0 || c.k != 0 {
		t.Errorf("the refused run took %d steps", s.StepCount())
	}
	if _, err := s.Run(context.Background(), graph.Settings{Dt: 0.1, Steps: 3, Mode: graph.CoSimulation{Coupling: &coupling.Strategy{Scheme: coupling.GaussSeidel, Order: [][]string{{"c"}}}}}); err != nil {
		t.Errorf("Gauss–Seidel: %v", err)
	}
	c.cannot = nil
	if _, err := s.Run(context.Background(), graph.Settings{Dt: 0.1, Steps: 3, Mode: graph.CoSimulation{Coupling: st}}); err != nil {
		t.Errorf("iterated group, node that can: %v", err)
	}
}

// TestSimClose closes every io.Closer node once per Close call and names
// the node of a failing Close.
func TestSimClose(t *testing.T) {
	c := &counter{}
	s := counterSim(t, c)
	if err := s.Close(); err != nil || c.closed != 1 {
		t.Errorf("Close: %v, closed %d times", err, c.closed)
	}
	if err := s.Close(); err == nil || !strings.Contains(err.Error(), "graph: close node c: closed twice") {
		t.Errorf("second Close: %v", err)
	}
}
