package spring

import (
	"fmt"
	"math"

	"github.com/cosimgo/cosim/node"
)

var _ node.StepLimiter = (*Node)(nil)

// StableStepAt returns the largest step for which explicit co-simulation
// of this spring with its bodies stays bounded (bodies stepped by
// semi-implicit Euler with the spring's force of the step's start): along
// the spring's direction u at the state carried by in, the spring and its
// markers form one damped oscillator with ω² = k·w and c = c·w, where
// w = Σ_markers Σᵢ uᵢ² wᵢ from the bodies' node.MarkerMass (0 for a ground
// marker or a body that is not pushed), bounded by
// node.SpringStableStep. The geometric (transverse) stiffness f/ℓ is not
// counted. It returns node.NoStepLimit() when a body lacks
// node.MarkerMass, the markers are closer than min_length (no direction)
// or the spring has neither a positive stiffness nor a positive damping.
// It is a per-connector estimate: a body held by several springs
// oscillates faster than with any one of them.
func (n *Node) StableStepAt(t float64, x []float64, in node.Inputs) node.StepLimit {
	var scratch [6]float64
	g, err := n.geometry(t, in.Values, scratch[:])
	if err != nil {
		return node.NoStepLimit()
	}
	var w float64
	for k := range n.mk {
		mk := &n.mk[k]
		if mk.body == nil || mk.y0 == mk.y1 {
			continue
		}
		mm, ok := mk.body.(node.MarkerMass)
		if !ok {
			return node.NoStepLimit()
		}
		var inv [3]float64
		mm.MarkerInverseMass(in.Values[mk.in0:mk.in1], mk.local, &inv)
		for i := range inv {
			w += g.u[i] * g.u[i] * inv[i]
		}
	}
	if !(w > 0) {
		return node.NoStepLimit()
	}
	dt := node.SpringStableStep(n.law.Get().k*w, n.law.Get().c*w)
	if math.IsInf(dt, 1) {
		return node.NoStepLimit()
	}
	return node.StepLimit{Dt: dt, Why: fmt.Sprintf(
		"along the spring: (√(c² + 4ω²) − c)/ω² with ω² = k/μ, c = damping/μ; k = %s N/m, damping = %s N s/m, effective mass μ = %s kg",
		node.FormatValue(n.law.Get().k), node.FormatValue(n.law.Get().c), node.FormatValue(1/w))}
}
