package graph_test

import (
	"errors"
	"fmt"
	"math"

	"github.com/cosimgo/cosim/graph"

	"github.com/cosimgo/cosim/node"
)

// mass is a 1D point mass driven by an additive force, stepped with
// semi-implicit Euler: the smallest stateful node for graph tests.
type mass struct {
	spec   *node.Spec
	m, x0  float64
	failAt float64 // Update returns NaN once t >= failAt (if > 0)
	errAt  float64 // Update returns an error once t >= errAt (if > 0)
	panics bool
}

func newMass(m, x0 float64) *mass {
	return &mass{m: m, x0: x0, spec: node.NewSpec(node.Spec{
		Type: "mass",
		State: []node.Field{
			{Name: "x", Units: "m", Description: "position", Role: node.Position, Rate: "v"},
			{Name: "v", Units: "m/s", Description: "velocity", Role: node.Velocity},
		},
		Inputs: []node.Input{{Name: "force", Units: "N", Description: "force", Combine: node.Additive, Default: []float64{0}}},
	})}
}

func (n *mass) Spec() *node.Spec           { return n.spec }
func (n *mass) InitialState(dst []float64) { dst[0], dst[1] = n.x0, 0 }
func (n *mass) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	if n.panics {
		panic("mass exploded")
	}
	if n.errAt > 0 && t >= n.errAt {
		return errors.New("mass refuses")
	}
	v := x[1] + dt*in.Values[0]/n.m
	dst[0], dst[1] = x[0]+dt*v, v
	if n.failAt > 0 && t >= n.failAt {
		dst[1] = math.NaN()
	}
	return nil
}

// spring is a feedthrough connector between two positions: force on a is
// k·(b − a), on b its negative.
type spring struct {
	node.Stateless
	spec *node.Spec
	k    float64
}

func newSpring(k float64) *spring {
	return &spring{k: k, spec: node.NewSpec(node.Spec{
		Type: "spring",
		Inputs: []node.Input{
			{Name: "a", Units: "m", Description: "position of end a", Combine: node.Replacing},
			{Name: "b", Units: "m", Description: "position of end b", Combine: node.Replacing},
		},
		Outputs: []node.Field{
			{Name: "fa", Units: "N", Description: "force on a"},
			{Name: "fb", Units: "N", Description: "force on b"},
		},
		Feedthrough: true,
	})}
}

func (n *spring) Spec() *node.Spec { return n.spec }
func (n *spring) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	f := n.k * (in.Values[1] - in.Values[0])
	dst[0], dst[1] = f, -f
	return nil
}

// source is a constant output without feedthrough.
type source struct {
	node.Stateless
	spec *node.Spec
	v    []float64
}

func newSource(units string, v ...float64) *source {
	sh := node.Scalar
	if len(v) > 1 {
		sh = node.Vec(len(v))
	}
	return &source{v: v, spec: node.NewSpec(node.Spec{
		Type:    "source",
		Outputs: []node.Field{{Name: "value", Shape: sh, Units: units, Description: "constant"}},
	})}
}

func (n *source) Spec() *node.Spec { return n.spec }
func (n *source) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	copy(dst, n.v)
	return nil
}

// chain builds n masses joined by n+1 springs, with walls (sources at 0
// and n+1) at both ends: the graph shape of the W1 workload.
func chain(n int) *graph.Graph { return chainVia(n, nil) }

// chainVia is chain(n) whose force s1.fb → m2.force passes through tr
// when tr is not nil.
func chainVia(n int, tr graph.Transform) *graph.Graph {
	g := graph.New()
	g.Add("wall0", newSource("m", 0))
	g.Add("wall1", newSource("m", float64(n+1)))
	for i := 1; i <= n; i++ {
		g.Add(fmt.Sprintf("m%d", i), newMass(1, float64(i)+0.01*math.Sin(math.Pi*float64(i)/float64(n+1))))
	}
	for i := 0; i <= n; i++ {
		sp := fmt.Sprintf("s%d", i)
		g.Add(sp, newSpring(1000))
		a, b := fmt.Sprintf("m%d.x", i), fmt.Sprintf("m%d.x", i+1)
		if i == 0 {
			a = "wall0.value"
		}
		if i == n {
			b = "wall1.value"
		}
		g.Connect(a, sp+".a")
		g.Connect(b, sp+".b")
		if i > 0 {
			g.Connect(sp+".fa", fmt.Sprintf("m%d.force", i))
		}
		if i < n {
			var opts []graph.Option
			if i == 1 && tr != nil {
				opts = append(opts, graph.Via(tr))
			}
			g.Connect(sp+".fb", fmt.Sprintf("m%d.force", i+1), opts...)
		}
	}
	return g
}

func (n *mass) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0], dst[1] = x[1], in.Values[0]/n.m
	return nil
}

// opaque is a stateful node without Derivatives.
type opaque struct{ m *mass }

func (o opaque) Spec() *node.Spec           { return o.m.Spec() }
func (o opaque) InitialState(dst []float64) { o.m.InitialState(dst) }
func (o opaque) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	return o.m.Update(t, dt, x, in, dst)
}
