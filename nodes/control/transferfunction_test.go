package control_test

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/cosimgo/cosim/node"
)

// The transfer-function block realizes exactly H(s) = num(s)/den(s): its
// state-space form, read back through the node's own Jacobians (A =
// ∂f/∂x, B = ∂f/∂u, D = ∂y/∂u) and outputs (C from y at the unit states
// with u = 0), gives C (sI − A)⁻¹ B + D equal to num(s)/den(s) evaluated
// directly (Horner) at real points s that are not poles. This holds for
// any realization, so it checks the normalization by the leading
// coefficient (den[0] ≠ 1 here), the companion structure at order 3 and
// the stripping of the numerator's leading zeros, not the particular
// form. Tolerance 1e-12 relative: a dense solve of at most 3 × 3 with
// condition numbers below 1e3 at these points.
func TestTransferFunctionRealizesH(t *testing.T) {
	reg := registry(t)
	poly := func(c []float64, s float64) float64 {
		v := 0.0
		for _, a := range c {
			v = v*s + a
		}
		return v
	}
	for _, c := range []struct {
		name     string
		num, den []float64
	}{
		{"third order strictly proper", []float64{1, 2, 5}, []float64{2, 3, 2, 1}},
		{"second order biproper", []float64{1, 2, 5}, []float64{2, 3, 2}},
		{"leading zeros of the numerator", []float64{0, 0, 3}, []float64{-0.5, 0.5, 1}},
		{"leading zero, biproper after it", []float64{0, 4, 1}, []float64{3, 1}},
		{"zero numerator", []float64{0, 0}, []float64{1, 1}},
		{"first order with an integrator", []float64{3}, []float64{-2, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			n, err := reg.New("transferfunction", map[string]any{"numerator": c.num, "denominator": c.den})
			if err != nil {
				t.Fatal(err)
			}
			nx := n.Spec().StateLayout.Size()
			if nx != len(c.den)-1 {
				t.Fatalf("%d states for a denominator of degree %d", nx, len(c.den)-1)
			}
			in := node.Inputs{Values: []float64{0}, Present: []bool{true}}
			dj := n.(node.DerivativesJacobian)
			oj := n.(node.OutputsJacobian)
			out := n.(node.Outputter)
			av, bv, dv := make([]float64, nx*nx), make([]float64, nx), make([]float64, 1)
			x := make([]float64, nx)
			if err := dj.DerivativesJacobian(0, x, in, av, bv); err != nil {
				t.Fatal(err)
			}
			if err := oj.OutputsJacobian(0, x, in, dv); err != nil {
				t.Fatal(err)
			}
			cv := make([]float64, nx)
			for k := range nx {
				clear(x)
				x[k] = 1
				y := make([]float64, 1)
				if err := out.Outputs(0, x, in, y); err != nil {
					t.Fatal(err)
				}
				cv[k] = y[0]
			}
			for _, s := range []float64{0.3, 1.7, -3.1, 5} {
				if poly(c.den, s) == 0 {
					continue
				}
				want := poly(c.num, s) / poly(c.den, s)
				m := mat.NewDense(nx, nx, nil)
				for i := range nx {
					for j := range nx {
						v := -av[i*nx+j]
						if i == j {
							v += s
						}
						m.Set(i, j, v)
					}
				}
				var z mat.VecDense
				if err := z.SolveVec(m, mat.NewVecDense(nx, bv)); err != nil {
					t.Fatalf("s = %v: %v", s, err)
				}
				got := mat.Dot(mat.NewVecDense(nx, cv), &z) + dv[0]
				if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
					t.Errorf("H(%v) = %v from the realization, want num/den = %v", s, got, want)
				}
			}
		})
	}
}

// An improper transfer function is refused with the degrees and the
// number of coefficients allowed, counted after the numerator's leading
// zeros (num = 0·s³ + s² + 2s + 3 is degree 2 over a degree-1
// denominator: at most 2 coefficients).
func TestTransferFunctionImproperMessage(t *testing.T) {
	_, err := registry(t).New("transferfunction", map[string]any{"numerator": []float64{0, 1, 2, 3}, "denominator": []float64{1, 1}})
	if err == nil {
		t.Fatal("improper transfer function accepted")
	}
	for _, want := range []string{"degree 2 above the denominator's 1", "at most 2 coefficients after leading zeros"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// Retuning cannot change the order (the state was laid out for it): the
// error says how many denominator coefficients the block takes, its
// order + 1 (3 for a second-order block).
func TestTransferFunctionRetuneKeepsOrder(t *testing.T) {
	n, err := registry(t).New("transferfunction", map[string]any{"numerator": []float64{1}, "denominator": []float64{1, 2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	err = n.(node.Tunable).SetParams(map[string]any{"denominator": []float64{1, 2, 3, 4}})
	if err == nil || !strings.Contains(err.Error(), "3 coefficients with a nonzero first") {
		t.Errorf("retune to third order: error %v, want one asking for 3 coefficients", err)
	}
}
