package graph_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/ball"
)

// A driver option naming the state index n (one past the last of the n
// state values) is outside the state, and the error gives the valid
// range, indices 0 to n−1: two masses have n = 4 values (x, v each).
func TestDriverOptionIndexPastTheEnd(t *testing.T) {
	g := graph.New()
	g.Add("a", newMass(1, 0))
	g.Add("b", newMass(1, 0))
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	opts := &integrators.DriverOptions{Positions: []int{0}, Velocities: []int{4}}
	_, err = s.Run(context.Background(), graph.Settings{Mode: graph.Monolithic{Method: integrators.RK4{}, Options: opts}, Dt: 0.1, Steps: 1})
	want := "Settings.Options.Velocities[0] = 4 is outside the state, which has 4 values (indices 0 to 3;"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to contain %q", err, want)
	}
}

// A path with an empty node part (".value") or an empty field part
// ("src.") is not of the form node.field: Build reports it as such
// (ErrUnknownField), rather than looking for a node named "" or a field
// named "".
func TestMalformedPaths(t *testing.T) {
	for _, c := range []struct{ from, to, want string }{
		{".value", "m.force", `".value" is not of the form node.field`},
		{"src.", "m.force", `"src." is not of the form node.field`},
		{"src.value", ".force", `".force" is not of the form node.input`},
		{"src.value", "m.", `"m." is not of the form node.input`},
	} {
		g := graph.New()
		g.Add("src", newSource("N", 1))
		g.Add("m", newMass(1, 0))
		g.Connect(c.from, c.to)
		_, err := g.Build()
		if !errors.Is(err, graph.ErrUnknownField) || errors.Is(err, graph.ErrUnknownNode) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s -> %s: %v\nwant ErrUnknownField only, containing %q", c.from, c.to, err, c.want)
		}
	}
}

// A ball with no table connected (its table input is Absent) sees no
// floor: it falls freely through 0. The ball steps with semi-implicit
// Euler (v += g·dt, then x += v·dt), so after N steps from rest at 1 m it
// is at 1 + g·dt²·N(N+1)/2 = 1 − 9.81·1e-4·5050 m (N = 100, dt = 0.01;
// to rounding, 1e-9); were the unconnected input present with its zero
// value, the ball would bounce on a table at 0 and stay above it.
func TestUnconnectedAbsentInputIsNotPresent(t *testing.T) {
	p := ball.DefaultParams()
	p.InitialPosition = 1
	b, err := ball.New(p)
	if err != nil {
		t.Fatal(err)
	}
	g := graph.New()
	g.Add("ball", b)
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 100}); err != nil {
		t.Fatal(err)
	}
	x := s.State(nil)[0]
	if want := 1 - 9.81*1e-4*5050; x > want+1e-9 || x < want-1e-9 {
		t.Errorf("height %v after 1 s of free fall, want %v", x, want)
	}
}

// twin has a state field and an output of the same name, "x", each its
// layout's first field.
type twin struct{ spec *node.Spec }

func newTwin() *twin {
	return &twin{spec: node.NewSpec(node.Spec{
		Type:    "twin",
		State:   []node.Field{{Name: "x", Units: "m", Description: "state"}},
		Outputs: []node.Field{{Name: "x", Units: "m", Description: "output"}},
	})}
}

func (n *twin) Spec() *node.Spec           { return n.spec }
func (n *twin) InitialState(dst []float64) { dst[0] = 0 }
func (n *twin) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = x[0]
	return nil
}
func (n *twin) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = x[0]
	return nil
}

// A source path naming both a node's state field and its output is
// ambiguous (ErrAmbiguousField), whichever place each holds in its
// layout (here both first).
func TestAmbiguousFirstFields(t *testing.T) {
	g := graph.New()
	g.Add("tw", newTwin())
	g.Add("s", newSpring(1))
	g.Connect("tw.x", "s.a")
	_, err := g.Build()
	if !errors.Is(err, graph.ErrAmbiguousField) {
		t.Errorf("Build: %v, want ErrAmbiguousField", err)
	}
}

// An edge into a node's state field or output (not an input) says so,
// whichever place the field holds in its layout (here first: the mass's
// x, the source's value).
func TestEdgeIntoFirstStateOrOutput(t *testing.T) {
	for _, to := range []string{"m.x", "src.value"} {
		g := graph.New()
		g.Add("src", newSource("m", 1))
		g.Add("m", newMass(1, 0))
		g.Add("m2", newMass(1, 0))
		g.Connect("m2.x", to)
		_, err := g.Build()
		if want := "is a state field or output, not an input"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("edge into %s: %v, want it to contain %q", to, err, want)
		}
	}
}

// Edges may be connected before their nodes are added (the graph keeps
// the names and Build resolves them): on an empty graph too.
func TestConnectBeforeAdd(t *testing.T) {
	g := graph.New()
	g.Connect("src.value", "m.force")
	g.Add("src", newSource("N", 2))
	g.Add("m", newMass(1, 0))
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	// One semi-implicit Euler step of dt = 1 under force 2 on mass 1:
	// v = 2, x = 2.
	if err := s.Step(1); err != nil {
		t.Fatal(err)
	}
	if got := s.State(nil); got[0] != 2 || got[1] != 2 {
		t.Errorf("state %v, want [2 2]", got)
	}
}
