package springdamper

import (
	"fmt"
	"math"

	"github.com/cosimgo/cosim/node"
)

var (
	_ node.StepLimiter = (*Node)(nil)
	_ node.StepBounder = (*Node)(nil)
)

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
// the result is the smallest over the axes. It returns node.NoStepLimit()
// when the connector is inactive, has a user force function (its
// stiffness is unknown), joins a body without node.MarkerMass (its
// inertia is unknown), or no axis has a positive spring or damper. It is
// a per-connector estimate: a body held by several springs oscillates
// faster than with any one of them, so a network can be unstable up to
// about half this step (see the metadata's StableStep).
func (n *Node) StableStepAt(t float64, x []float64, in node.Inputs) node.StepLimit {
	dt, axis, w := n.stableDt(in)
	if axis < 0 {
		return node.NoStepLimit()
	}
	m := n.m.Get()
	return node.StepLimit{Dt: dt, Why: fmt.Sprintf(
		"axis %s: (√(c² + 4ω²) − c)/ω² with ω² = k/μ, c = d/μ; k = %s N/m, d = %s N s/m, effective mass μ = %s kg",
		axisNames[axis], node.FormatValue(m.k[axis]), node.FormatValue(m.d[axis]), node.FormatValue(1/w))}
}

// StableDtAt is StableStepAt's Dt without its message (node.StepBounder).
func (n *Node) StableDtAt(t float64, x []float64, in node.Inputs) float64 {
	dt, _, _ := n.stableDt(in)
	return dt
}

// stableDt computes StableStepAt's bound: the step, the axis that sets
// it (−1 for no bound, with dt = +Inf) and that axis's summed inverse
// mass.
func (n *Node) stableDt(in node.Inputs) (dt float64, axis int, wAxis float64) {
	dt, axis = math.Inf(1), -1
	if !n.m.Get().active || n.m.Get().uf != nil {
		return
	}
	var inv [3]float64
	w, ok := n.inverseMass(in.Values, &inv)
	if !ok {
		return
	}
	dt, axis = n.m.Get().boundOf(w)
	if axis >= 0 {
		wAxis = w[axis]
	}
	return
}

// inverseMass sums the markers' inverse effective masses along the world
// axes from the inputs u (the node's input layout), or reports false when
// a pushed body has no node.MarkerMass (its inertia is unknown). inv is
// the bodies' scratch: a local array passed through the interface call
// would be allocated at every call.
func (n *Node) inverseMass(u []float64, inv *[3]float64) (w [3]float64, ok bool) {
	for k := range n.mk {
		mk := &n.mk[k]
		mm, pushed, ok := mk.massOf()
		if !pushed {
			continue
		}
		if !ok {
			return w, false
		}
		markerInverse(mm, u[mk.in0:mk.in1], mk.local, inv)
		addInverse(&w, inv)
	}
	return w, true
}

// massOf returns the node.MarkerMass of the body of mk when the
// connector pushes it (pushed; a ground marker or prescribed motion has
// an infinite mass), and ok false when a pushed body has none.
func (mk *marker) massOf() (mm node.MarkerMass, pushed, ok bool) {
	if mk.body == nil || mk.y0 == mk.y1 {
		return nil, false, true
	}
	mm, ok = mk.body.(node.MarkerMass)
	return mm, true, ok
}

// markerInverse writes into inv the inverse effective mass of body mm at
// marker local, x being the body's marker fields.
func markerInverse(mm node.MarkerMass, x []float64, local [3]float64, inv *[3]float64) {
	*inv = [3]float64{}
	mm.MarkerInverseMass(x, local, inv)
}

// addInverse adds a marker's inverse mass to the sum w: the one place the
// per-node bound and the batch kernel form the sum, marker by marker.
func addInverse(w, inv *[3]float64) {
	for i := range w {
		w[i] += inv[i]
	}
}

// boundOf is the bound of an active linear law for the summed inverse
// masses w: the smallest node.SpringStableStep over the axes with a
// positive w, and that axis (−1 and +Inf: none).
func (m *model) boundOf(w [3]float64) (dt float64, axis int) {
	dt, axis = math.Inf(1), -1
	for i := range w {
		if w[i] <= 0 || math.IsNaN(w[i]) {
			continue
		}
		if d := node.SpringStableStep(m.k[i]*w[i], m.d[i]*w[i]); d < dt {
			dt, axis = d, i
		}
	}
	return
}
