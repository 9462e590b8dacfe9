package graph_test

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// auxMass is the test mass with a second input, aux, that it ignores.
type auxMass struct {
	*mass
	spec *node.Spec
}

func newAuxMass(m, x0 float64) *auxMass {
	base := newMass(m, x0)
	return &auxMass{mass: base, spec: node.NewSpec(node.Spec{
		Type:  "aux-mass",
		State: base.spec.State,
		Inputs: []node.Input{
			{Name: "force", Units: "N", Description: "force", Combine: node.Additive, Default: []float64{0}},
			{Name: "aux", Units: "N", Description: "ignored", Combine: node.Replacing, Default: []float64{0}},
		},
	})}
}

func (n *auxMass) Spec() *node.Spec { return n.spec }

// auxSpring is the test spring with a third output, aux, constant.
type auxSpring struct {
	*spring
	spec *node.Spec
	aux  float64
}

func newAuxSpring(k, aux float64) *auxSpring {
	base := newSpring(k)
	out := append(append([]node.Field(nil), base.spec.Outputs...), node.Field{Name: "aux", Units: "N", Description: "constant"})
	return &auxSpring{spring: base, aux: aux, spec: node.NewSpec(node.Spec{
		Type: "aux-spring", Inputs: base.spec.Inputs, Outputs: out, Feedthrough: true,
	})}
}

func (n *auxSpring) Spec() *node.Spec { return n.spec }
func (n *auxSpring) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	if err := n.spring.Outputs(t, x, in, dst[:2]); err != nil {
		return err
	}
	dst[2] = n.aux
	return nil
}

// TestIteratedAnalysisIgnoresLargeInterfaceValue: the analysis finds an
// iterated group's fixed point in each trial step by Newton's method
// (newtonAccel), stopping at a tolerance set from the rounding floor of
// the fixed point, at most analysisResidual relative to the largest
// interface value. A value of 10¹² N in the interface that nothing reads
// (the spring's constant aux output into a mass's ignored aux input)
// makes that cap 10³ N, far above the spring forces' change within a
// step: the tolerance must still come from the floor (the forces'
// rounding), or the trial steps would stop at their first iterate, the
// interface at t_n, and analyse Jacobi instead of the iterated scheme.
// The two 1 kg masses joined by k = 100 N/m (ω = √200 s⁻¹) at dt = 0.15 s
// (ω·dt = 2.1): Jacobi's radius is 2, the iterated scheme's 1; with the
// large value the iterated scheme's radius must be the same as without
// it (the same dynamics), within 1e-9 relative (fixed points to about
// 1e-14 relative, divided by the perturbation 1e-5).
func TestIteratedAnalysisIgnoresLargeInterfaceValue(t *testing.T) {
	const dt = 0.15
	it := &coupling.Strategy{Scheme: coupling.Iterative}
	var radius [2]float64
	for k, aux := range []float64{0, 1e12} {
		g := graph.New()
		g.Add("a", newAuxMass(1, 0))
		g.Add("b", newAuxMass(1, 1))
		g.Add("s", newAuxSpring(100, aux))
		g.Connect("a.x", "s.a")
		g.Connect("b.x", "s.b")
		g.Connect("s.fa", "a.force")
		g.Connect("s.fb", "b.force")
		g.Connect("s.aux", "a.aux")
		sim, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		r, err := sim.Stability(it, dt)
		if err != nil || r.Skipped != "" {
			t.Fatalf("aux %g: %v (skipped %q)", aux, err, r.Skipped)
		}
		c, _ := r.Chosen()
		radius[k] = c.Radius
		jac, _, _, err := sim.RadiusTrials(nil, dt)
		if err != nil || !(math.Abs(jac.Radius-c.Radius) > 0.5) {
			t.Fatalf("aux %g: Jacobi radius %v, iterated %v (%v): the premise (they differ) does not hold", aux, jac.Radius, c.Radius, err)
		}
	}
	if math.Abs(radius[1]-radius[0]) > 1e-9*radius[0] {
		t.Errorf("iterated scheme's radius %v with an interface value of 1e12, %v without: want the same", radius[1], radius[0])
	}
}
