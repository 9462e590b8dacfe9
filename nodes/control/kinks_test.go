package control_test

import (
	"slices"
	"testing"

	"github.com/cosimgo/cosim/node"
)

// At the ends a and b of its band a saturation's ∂y/∂u is 1 and a dead
// zone's 0: the one-sided derivative from inside the band, as
// Limiter.OutputsJacobian documents (a Newton iteration started on a
// limit then moves back into the band instead of stalling). Two
// components, each at one end of its own band.
func TestLimiterJacobianAtTheBandEnds(t *testing.T) {
	reg := registry(t)
	lower, upper := []float64{-1, -0.5}, []float64{1, 0.5}
	for _, c := range []struct {
		typ  string
		want float64
	}{{"saturation", 1}, {"deadzone", 0}} {
		n, err := reg.New(c.typ, map[string]any{"size": 2, "lower": lower, "upper": upper})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range [][]float64{{lower[0], upper[1]}, {upper[0], lower[1]}} {
			d := []float64{7, 7, 7, 7}
			if err := n.(node.OutputsJacobian).OutputsJacobian(0, nil, node.Inputs{Values: u, Present: []bool{true}}, d); err != nil {
				t.Fatal(err)
			}
			if want := []float64{c.want, 0, 0, c.want}; !slices.Equal(d, want) {
				t.Errorf("%s at u = %v: ∂y/∂u = %v, want %v", c.typ, u, d, want)
			}
		}
	}
}

// A rate limiter whose input is exactly R·T above (or F·T below) its
// output is at the edge of its linear regime: Update follows linearly
// there (the ramp starts beyond it), and the Jacobian is the linear
// one, ∂f/∂y = −1/T and ∂f/∂u = 1/T, the one-sided derivative from
// inside, as for a saturation at its band's ends. R = 2, F = 4, T = 0.5,
// so R·T = 1 and F·T = 2 are exact.
func TestRateLimiterJacobianAtTheRegimeEdge(t *testing.T) {
	n, err := registry(t).New("ratelimiter", map[string]any{"rising": 2.0, "falling": 4.0, "time_constant": 0.5})
	if err != nil {
		t.Fatal(err)
	}
	dj := n.(node.DerivativesJacobian)
	for _, u := range []float64{1, -2} {
		dx, du := []float64{7}, []float64{7}
		if err := dj.DerivativesJacobian(0, []float64{0}, node.Inputs{Values: []float64{u}, Present: []bool{true}}, dx, du); err != nil {
			t.Fatal(err)
		}
		if dx[0] != -2 || du[0] != 2 {
			t.Errorf("u − y = %v: ∂f/∂y = %v, ∂f/∂u = %v, want −1/T = −2 and 1/T = 2", u, dx[0], du[0])
		}
	}
}

// Every units parameter refuses an empty string, whatever other check
// comes first in the block's validation.
func TestEmptyUnitsRefused(t *testing.T) {
	reg := registry(t)
	checked := 0
	for _, typ := range reg.Names() {
		spec, err := reg.Spec(typ)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range spec.Params {
			if p.Kind != node.Text || (p.Name != "units" && !slices.Contains([]string{"input_units", "output_units", "state_units", "control_units"}, p.Name)) {
				continue
			}
			checked++
			_, err := reg.New(typ, map[string]any{p.Name: " "})
			pe, ok := err.(*node.ParamError)
			if !ok || pe.Param != p.Name {
				t.Errorf("%s with %s = \" \": error %v, want a ParamError on %s", typ, p.Name, err, p.Name)
			}
		}
	}
	if checked < len(reg.Names()) {
		t.Errorf("%d units parameters checked, fewer than the %d block types (each has at least one)", checked, len(reg.Names()))
	}
}
