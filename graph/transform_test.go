package graph_test

import (
	"context"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// The built-in transforms, applied directly: the values are exact, so the
// comparison is exact.
func TestTransformsApply(t *testing.T) {
	tests := []struct {
		name  string
		tr    graph.Transform
		in    node.Shape
		src   []float64
		want  []float64
		shape node.Shape
	}{
		{"scale", graph.Scale{Factor: -2}, node.Vec(3), []float64{1, 2, 3}, []float64{-2, -4, -6}, node.Vec(3)},
		{"component", graph.Component{Index: 2}, node.Vec(3), []float64{1, 2, 3}, []float64{3}, node.Scalar},
		{"embed", graph.Embed{Axis: 1, Len: 3}, node.Scalar, []float64{7}, []float64{0, 7, 0}, node.Vec(3)},
		{"func", graph.TransformFunc{Label: "sq", In: node.Scalar, Out: node.Scalar, F: func(d, s []float64) { d[0] = s[0] * s[0] }},
			node.Scalar, []float64{3}, []float64{9}, node.Scalar},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sh, err := tc.tr.OutShape(tc.in)
			if err != nil || sh != tc.shape {
				t.Fatalf("OutShape(%s) = %s, %v; want %s", tc.in, sh, err, tc.shape)
			}
			dst := make([]float64, sh.Len())
			for i := range dst {
				dst[i] = math.NaN() // Apply must overwrite every component
			}
			tc.tr.Apply(dst, tc.src)
			if diff := cmp.Diff(tc.want, dst); diff != "" {
				t.Errorf("Apply (-want +got):\n%s", diff)
			}
			if tc.tr.Name() == "" {
				t.Error("empty Name")
			}
		})
	}
	for _, bad := range []struct {
		tr graph.Transform
		in node.Shape
	}{
		{graph.Component{Index: 3}, node.Vec(3)},
		{graph.Component{Index: 0}, node.Scalar},
		{graph.Embed{Axis: 0, Len: 3}, node.Vec(2)},
		{graph.Embed{Axis: 3, Len: 3}, node.Scalar},
		{graph.TransformFunc{Label: "f", In: node.Vec(2), Out: node.Scalar}, node.Scalar},
	} {
		if _, err := bad.tr.OutShape(bad.in); err == nil {
			t.Errorf("%#v.OutShape(%s): no error", bad.tr, bad.in)
		}
	}
}

// Component and Embed wired in a graph: a 3-vector source's z component
// drives a scalar mass, and a scalar source embedded on axis 1 is read back
// through Component. Semi-implicit Euler with a constant force F/m = a has
// the closed form x_n = a·dt²·n(n+1)/2 (TestConstantForceClosedForm).
func TestComponentAndEmbedInGraph(t *testing.T) {
	g := graph.New()
	g.Add("f3", newSource("N", 10, 20, 4))
	g.Add("f1", newSource("N", 6))
	g.Add("m", newMass(2, 0))
	g.Connect("f3.value", "m.force", graph.Via(graph.Component{Index: 2}))
	// Scalar → vector → scalar: 6 placed on axis 1, then picked again.
	g.Add("pass", newVecPass(3))
	g.Connect("f1.value", "pass.in", graph.Via(graph.Embed{Axis: 1, Len: 3}))
	g.Connect("pass.out", "m.force", graph.Via(graph.Component{Index: 1}))
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	const dt, n = 0.01, 100
	if _, err := s.Run(context.Background(), graph.Settings{Dt: dt, Steps: n}); err != nil {
		t.Fatal(err)
	}
	a := (4 + 6) / 2.0
	x, _ := s.Value("m.x")
	if want := a * dt * dt * n * (n + 1) / 2; !numtest.Within(x[0], want, 1e-12*want) {
		t.Errorf("x = %.17g, want %.17g (closed form of the scheme)", x[0], want)
	}
	out, _ := s.Value("pass.out")
	if diff := cmp.Diff([]float64{0, 6, 0}, out); diff != "" {
		t.Errorf("embedded vector (-want +got):\n%s", diff)
	}
}

// A graph whose phases are smaller than the grain runs on the calling
// goroutine whatever the worker count asked for, and says so.
func TestSmallGraphRunsSequentially(t *testing.T) {
	s, err := chain(10).Build()
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: 4}, Dt: 1e-3, Steps: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Workers != 1 {
		t.Errorf("Workers = %d for 11-node phases below the default grain %d, want 1", res.Workers, graph.DefaultGrain)
	}
	s2, _ := chain(10).Build()
	res, err = s2.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: 4, Grain: 1}, Dt: 1e-3, Steps: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Workers != 4 {
		t.Errorf("Workers = %d with Grain 1, want 4", res.Workers)
	}
}

// vecPass copies a vector input to its output (feedthrough).
type vecPass struct {
	node.Stateless
	spec *node.Spec
}

func newVecPass(n int) *vecPass {
	return &vecPass{spec: node.NewSpec(node.Spec{
		Type:        "pass",
		Inputs:      []node.Input{{Name: "in", Shape: node.Vec(n), Units: "N", Description: "value in", Combine: node.Replacing}},
		Outputs:     []node.Field{{Name: "out", Shape: node.Vec(n), Units: "N", Description: "value out"}},
		Feedthrough: true,
	})}
}

func (p *vecPass) Spec() *node.Spec { return p.spec }
func (p *vecPass) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	copy(dst, in.Values)
	return nil
}
