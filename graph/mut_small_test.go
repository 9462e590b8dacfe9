package graph_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// A Status past the last named one (Failed) prints as Status(n), not a
// panic.
func TestMutStatusStringPastLast(t *testing.T) {
	s := graph.Failed + 1
	if got, want := s.String(), fmt.Sprintf("Status(%d)", int(s)); got != want {
		t.Errorf("%d: %q, want %q", int(s), got, want)
	}
	if got := graph.Failed.String(); got != "Failed" {
		t.Errorf("Failed: %q", got)
	}
}

// View.Fraction counts steps when the number of steps is known and time
// otherwise (its doc comment): step 1 of 4 is 0.25 whatever the time;
// with Steps unknown (0), time 1 of [0, 2] is 0.5.
func TestMutViewFraction(t *testing.T) {
	if f := (&graph.View{Step: 1, Steps: 4, Start: 0, End: 10, Time: 5}).Fraction(); f != 0.25 {
		t.Errorf("step 1 of 4: %v, want 0.25", f)
	}
	if f := (&graph.View{Step: 3, Steps: 0, Start: 0, End: 2, Time: 1}).Fraction(); f != 0.5 {
		t.Errorf("time 1 of [0, 2], steps unknown: %v, want 0.5", f)
	}
}

// planar is a point in the plane: a scalar energy-like field e first, then
// the position x (2 components, rate v) and the velocity v; x” = −x.
type planar struct {
	spec *node.Spec
}

func newPlanar() *planar {
	return &planar{spec: node.NewSpec(node.Spec{
		Type: "planar",
		State: []node.Field{
			{Name: "e", Units: "1", Description: "a field without a role"},
			{Name: "x", Shape: node.Vec(2), Units: "m", Description: "position", Role: node.Position, Rate: "v"},
			{Name: "v", Shape: node.Vec(2), Units: "m/s", Description: "velocity", Role: node.Velocity},
		},
	})}
}

func (p *planar) Spec() *node.Spec           { return p.spec }
func (p *planar) InitialState(dst []float64) { copy(dst, []float64{0, 1, 0, 0, 1}) }
func (p *planar) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	copy(dst, x)
	return nil
}
func (p *planar) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = 0
	dst[1], dst[2] = x[3], x[4]
	dst[3], dst[4] = -x[1], -x[2]
	return nil
}

// NodeSystem.Pairs pairs every component of a vector position with its
// velocity component, from the state roles: x = state[1:3] with rate
// v = state[3:5] gives positions 1, 2 and velocities 3, 4.
func TestMutNodeSystemVectorPairs(t *testing.T) {
	ns, err := graph.NewNodeSystem(newPlanar())
	if err != nil {
		t.Fatal(err)
	}
	pos, vel := ns.Pairs()
	if !slices.Equal(pos, []int{1, 2}) || !slices.Equal(vel, []int{3, 4}) {
		t.Errorf("Pairs = %v, %v; want [1 2], [3 4]", pos, vel)
	}
}

// vsum is a user transform: the sum of a vector's components.
type vsum struct{}

func (vsum) Name() string { return "vsum" }
func (vsum) OutShape(in node.Shape) (node.Shape, error) {
	return node.Scalar, nil
}
func (vsum) Apply(dst, src []float64) {
	dst[0] = 0
	for _, v := range src {
		dst[0] += v
	}
}

// Two edges from one vector field into one additive input, one through a
// user transform (which takes the whole field) and one through
// Component{Index: 1} (which takes its second element), take different
// values: Build accepts them without Repeat.
func TestMutUserTransformAndComponentNotRepeats(t *testing.T) {
	g := graph.New()
	g.Add("f", lconst(t, []float64{1, 2}, "N"))
	g.Add("m", newMass(1, 0))
	g.Connect("f.value", "m.force", graph.Via(vsum{}))
	g.Connect("f.value", "m.force", graph.Via(graph.Component{Index: 1}))
	if _, err := g.Build(); err != nil {
		t.Errorf("Build: %v, want no repeated edge", err)
	}
}

// jump is a discrete node whose update writes NaN into its first state
// component from t = 0.02 on.
type jump struct {
	spec *node.Spec
}

func newJump() *jump {
	return &jump{spec: node.NewSpec(node.Spec{
		Type: "jump",
		State: []node.Field{
			{Name: "x", Units: "1", Description: "the value"},
			{Name: "y", Units: "1", Description: "another"},
		},
	})}
}

func (j *jump) Spec() *node.Spec           { return j.spec }
func (j *jump) InitialState(dst []float64) { dst[0], dst[1] = 1, 1 }
func (j *jump) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0], dst[1] = x[0]+dt, x[1]
	if t >= 0.02 {
		dst[0] = math.NaN()
	}
	return nil
}

// A node update that writes a non-finite first state component fails the
// run with node.ErrNonFinite naming the node and that field (jump.x), in
// the per-node path (one worker) as in the default one.
func TestMutUpdateNonFiniteFirstComponent(t *testing.T) {
	for _, workers := range []int{1, 0} {
		g := graph.New()
		g.Add("jump", newJump())
		s := mustBuild(t, g)
		_, err := s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 5, Mode: graph.CoSimulation{Workers: workers}})
		var se *node.StateError
		if !errors.Is(err, node.ErrNonFinite) || !errors.As(err, &se) || se.Node != "jump" || se.Field != "x" || !strings.Contains(err.Error(), "jump") {
			t.Errorf("workers %d: %v, want a non-finite jump.x", workers, err)
		}
	}
}
