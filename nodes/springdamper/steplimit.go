package springdamper

import (
	"fmt"
	"math"

	"github.com/cosimgo/cosim/node"
)

var _ node.StepLimiter = (*Node)(nil)

// axisNames name the world axes in messages.
var axisNames = [3]string{"x", "y", "z"}

// StableStepAt returns the largest step for which explicit co-simulation
// of this connector with its bodies stays bounded: the bodies step by
// semi-implicit Euler with the connector's force of the step's start.
// Along world axis i the connector and its two markers form one damped
// oscillator with ω² = k_i·w_i and c = d_i·w_i, where w_i is the sum of
// the markers' inverse effective masses along i (the bodies'
// node.MarkerMass at the state carried by in; 0 for a ground marker or a
// body that is not pushed), and node.SpringStableStep gives the bound;
// the result is the smallest over the axes. It returns node.NoStepLimit
// when the connector is inactive, has a user force function (its
// stiffness is unknown), joins a body without node.MarkerMass (its
// inertia is unknown), or no axis has a positive spring or damper. It is
// a per-connector estimate: a body held by several springs oscillates
// faster than with any one of them, so a network can be unstable up to
// about half this step (see the metadata's StableStep).
func (n *Node) StableStepAt(t float64, x []float64, in node.Inputs) node.StepLimit {
	m := &n.m
	if !m.active || m.uf != nil {
		return node.NoStepLimit
	}
	var w [3]float64
	for k := range n.mk {
		mk := &n.mk[k]
		if mk.body == nil || mk.y0 == mk.y1 {
			continue // ground or prescribed motion: infinite mass
		}
		mm, ok := mk.body.(node.MarkerMass)
		if !ok {
			return node.NoStepLimit
		}
		var inv [3]float64
		mm.MarkerInverseMass(in.Values[mk.in0:mk.in1], mk.local, &inv)
		for i := range w {
			w[i] += inv[i]
		}
	}
	best := node.NoStepLimit
	for i := range w {
		if w[i] <= 0 || math.IsNaN(w[i]) {
			continue
		}
		dt := node.SpringStableStep(m.k[i]*w[i], m.d[i]*w[i])
		if dt < best.Dt {
			best = node.StepLimit{Dt: dt, Why: fmt.Sprintf(
				"axis %s: (√(c² + 4ω²) − c)/ω² with ω² = k/μ, c = d/μ; k = %s N/m, d = %s N s/m, effective mass μ = %s kg",
				axisNames[i], node.FormatValue(m.k[i]), node.FormatValue(m.d[i]), node.FormatValue(1/w[i]))}
		}
	}
	return best
}
