package integrators

import "math"

// Stiff test problems of the adaptive implicit methods' tests, with
// analytic Jacobians. Their definitions and reference solutions are
// those of the Test Set for IVP Solvers (Mazzia & Magherini, University
// of Bari); verification/stiff_test.go holds the published comparisons.

// robertson is Robertson's chemical kinetics (ROBER).
type robertson struct{}

func (robertson) Dim() int { return 3 }
func (robertson) Func(_ float64, y, d []float64) error {
	d[0] = -0.04*y[0] + 1e4*y[1]*y[2]
	d[2] = 3e7 * y[1] * y[1]
	d[1] = -d[0] - d[2]
	return nil
}
func (robertson) Jacobian(_ float64, y, d []float64) error {
	d[0], d[1], d[2] = -0.04, 1e4*y[2], 1e4*y[1]
	d[6], d[7], d[8] = 0, 6e7*y[1], 0
	d[3], d[4], d[5] = 0.04, -1e4*y[2]-6e7*y[1], -1e4*y[1]
	return nil
}

// vanDerPol is y1' = y2, y2' = μ·((1 − y1²)·y2 − y1), Hairer & Wanner's
// scaling of the oscillator (μ = 1/ε).
type vanDerPol struct{ mu float64 }

func (vanDerPol) Dim() int { return 2 }
func (v vanDerPol) Func(_ float64, y, d []float64) error {
	d[0] = y[1]
	d[1] = v.mu * ((1-y[0]*y[0])*y[1] - y[0])
	return nil
}
func (v vanDerPol) Jacobian(_ float64, y, d []float64) error {
	d[0], d[1] = 0, 1
	d[2] = v.mu * (-2*y[0]*y[1] - 1)
	d[3] = v.mu * (1 - y[0]*y[0])
	return nil
}

// linearDecay is y_i' = −λ_i·(y_i − cos t) − sin t, exact
// y_i = cos t + e^{−λ_i t}·(y_i(0) − 1): stiff for large λ_i, smooth after
// the transient, with an exact solution to measure errors against.
type linearDecay struct{ lambda []float64 }

func (l linearDecay) Dim() int { return len(l.lambda) }
func (l linearDecay) Func(t float64, y, d []float64) error {
	c, s := math.Cos(t), math.Sin(t)
	for i, lam := range l.lambda {
		d[i] = -lam*(y[i]-c) - s
	}
	return nil
}
func (l linearDecay) Jacobian(_ float64, _, d []float64) error {
	clear(d)
	n := len(l.lambda)
	for i, lam := range l.lambda {
		d[i*n+i] = -lam
	}
	return nil
}
func (l linearDecay) exact(t float64, y0, dst []float64) {
	for i, lam := range l.lambda {
		dst[i] = math.Cos(t) + math.Exp(-lam*t)*(y0[i]-1)
	}
}

// chainSystem is a stiff linear chain of n unit masses between walls
// (spring k, damper c), state [x_i, v_i] per mass, with a sparse
// Jacobian and blocks (one per mass), for the sparse and Krylov solvers.
type chainSystem struct {
	n    int
	k, c float64
}

func (s chainSystem) Dim() int { return 2 * s.n }
func (s chainSystem) Func(_ float64, y, d []float64) error {
	for i := 0; i < s.n; i++ {
		x, v := y[2*i], y[2*i+1]
		var xl, vl, xr, vr float64
		if i > 0 {
			xl, vl = y[2*i-2], y[2*i-1]
		}
		if i < s.n-1 {
			xr, vr = y[2*i+2], y[2*i+3]
		}
		d[2*i] = v
		d[2*i+1] = -s.k*(2*x-xl-xr) - s.c*(2*v-vl-vr)
	}
	return nil
}
func (s chainSystem) JacobianPattern() (rowPtr, col []int) {
	rowPtr = []int{0}
	for i := 0; i < s.n; i++ {
		col = append(col, 2*i+1) // x' = v
		rowPtr = append(rowPtr, len(col))
		for j := max(0, i-1); j <= min(s.n-1, i+1); j++ {
			col = append(col, 2*j, 2*j+1)
		}
		rowPtr = append(rowPtr, len(col))
	}
	return rowPtr, col
}
func (s chainSystem) SparseJacobian(_ float64, _, val []float64) error {
	k := 0
	for i := 0; i < s.n; i++ {
		val[k] = 1
		k++
		for j := max(0, i-1); j <= min(s.n-1, i+1); j++ {
			if j == i {
				val[k], val[k+1] = -2*s.k, -2*s.c
			} else {
				val[k], val[k+1] = s.k, s.c
			}
			k += 2
		}
	}
	return nil
}
func (s chainSystem) Jacobian(t float64, y, d []float64) error {
	clear(d)
	rp, col := s.JacobianPattern()
	val := make([]float64, len(col))
	s.SparseJacobian(t, y, val)
	n := s.Dim()
	for i := 0; i < n; i++ {
		for q := rp[i]; q < rp[i+1]; q++ {
			d[i*n+col[q]] = val[q]
		}
	}
	return nil
}
func (s chainSystem) Blocks() []int {
	b := make([]int, s.n+1)
	for i := range b {
		b[i] = 2 * i
	}
	return b
}
