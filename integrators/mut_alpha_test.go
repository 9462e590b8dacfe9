package integrators

import (
	"math"
	"testing"
)

// Without an analytic Jacobian generalized-alpha forms its Newton matrix
// by forward differences (package doc: "forward differences … otherwise"),
// so the model is evaluated only at unknowns perturbed upwards. That
// matters for a model defined on one side of a state: a Hertz contact
// a = −k·δ^{3/2} (math.Pow, NaN for δ < 0) holding a body at rest at
// zero penetration, δ = 0, v = 0, with an extra quantity of constant
// rate ż = 1 (the matrix is then always formed by differences).
// The rest state solves every step exactly (a = 0 at δ = 0), the upward
// perturbation of the acceleration moves δ = β·dt²·h > 0, and the body
// stays at rest: 10 steps of 0.1 give δ = v = 0 exactly and z = 1.
// A backward difference would evaluate δ < 0, a NaN Newton matrix.
func TestAlphaForwardDifferenceSideI(t *testing.T) {
	sys := partFunc{n: 3, pos: []int{0}, vel: []int{1}, f: func(_ float64, y, d []float64) error {
		d[0], d[1], d[2] = y[1], -1e4*math.Pow(y[0], 1.5), 1
		return nil
	}}
	st := newAlphaC(t, sys, []float64{0, 0, 0}, NewtonOptions{})
	for range 10 {
		if err := st.Step(0.1); err != nil {
			t.Fatal(err)
		}
	}
	if _, y := st.State(); y[0] != 0 || y[1] != 0 || math.Abs(y[2]-1) > 1e-13 {
		t.Errorf("state %v, want the body at rest (0, 0) and z = 1", y)
	}
}
