package control

import (
	"math"
)

// Small dense matrices, row-major in a []float64, for the exact
// discretization of linear blocks. The node packages import only the
// standard library and package node, so the matrix exponential is
// written here; verification holds it to gonum's (mat.Exp).

// expm returns e^M of the k × k matrix m (not modified) by the diagonal
// Padé approximant of degree 6 with scaling and squaring (Golub and Van
// Loan, section 9.3): M is scaled by 2^−j so that its infinity norm is
// at most 1/2, where the approximant's relative truncation error is
// below 3.4e-16, and the result squared j times. It allocates; callers
// cache what it computes.
func expm(m []float64, k int) []float64 {
	norm := 0.0
	for i := range k {
		row := 0.0
		for j := range k {
			row += math.Abs(m[i*k+j])
		}
		norm = math.Max(norm, row)
	}
	j := 0
	if norm > 0 {
		_, e := math.Frexp(norm) // norm = f·2^e, f in [1/2, 1)
		j = max(0, e+1)
	}
	a := make([]float64, k*k)
	s := math.Ldexp(1, -j)
	for i := range a {
		a[i] = m[i] * s
	}
	const q = 6
	x := append([]float64(nil), a...)
	num, den := identity(k), identity(k)
	c := 0.5
	for i := range a {
		num[i] += c * a[i]
		den[i] -= c * a[i]
	}
	tmp := make([]float64, k*k)
	sign := 1.0
	for p := 2; p <= q; p++ {
		c *= float64(q-p+1) / float64(p*(2*q-p+1))
		matmul(tmp, a, x, k)
		x, tmp = tmp, x
		for i := range x {
			num[i] += c * x[i]
			den[i] += sign * c * x[i]
		}
		sign = -sign
	}
	f := solve(den, num, k, k)
	for range j {
		matmul(tmp, f, f, k)
		f, tmp = tmp, f
	}
	return f
}

// identity returns the k × k identity.
func identity(k int) []float64 {
	m := make([]float64, k*k)
	for i := range k {
		m[i*k+i] = 1
	}
	return m
}

// matmul writes a·b into dst (all k × k; dst aliases neither).
func matmul(dst, a, b []float64, k int) {
	for i := range k {
		for j := range k {
			s := 0.0
			for l := range k {
				s += a[i*k+l] * b[l*k+j]
			}
			dst[i*k+j] = s
		}
	}
}

// solve returns X with A·X = B for the k × k matrix a and the k × r
// matrix b, by Gaussian elimination with partial pivoting; a and b are
// overwritten. The Padé denominator it is used for is well conditioned
// (its condition number is below 3 when the scaled norm is at most 1/2),
// so a zero pivot is a programmer error.
func solve(a, b []float64, k, r int) []float64 {
	for col := range k {
		p := col
		for i := col + 1; i < k; i++ {
			if math.Abs(a[i*k+col]) > math.Abs(a[p*k+col]) {
				p = i
			}
		}
		if a[p*k+col] == 0 {
			panic("control: singular Padé denominator")
		}
		if p != col {
			for j := range k {
				a[p*k+j], a[col*k+j] = a[col*k+j], a[p*k+j]
			}
			for j := range r {
				b[p*r+j], b[col*r+j] = b[col*r+j], b[p*r+j]
			}
		}
		for i := col + 1; i < k; i++ {
			f := a[i*k+col] / a[col*k+col]
			if f == 0 {
				continue
			}
			for j := col; j < k; j++ {
				a[i*k+j] -= f * a[col*k+j]
			}
			for j := range r {
				b[i*r+j] -= f * b[col*r+j]
			}
		}
	}
	for i := k - 1; i >= 0; i-- {
		for j := range r {
			s := b[i*r+j]
			for l := i + 1; l < k; l++ {
				s -= a[i*k+l] * b[l*r+j]
			}
			b[i*r+j] = s / a[i*k+i]
		}
	}
	return b
}

// zohDiscretize returns Φ = e^{AΔt} (n × n) and Γ = ∫₀^Δt e^{As} ds B
// (n × m) of the system ẋ = Ax + Bu, as blocks of the exponential of
// the augmented matrix [[A, B], [0, 0]]·Δt (Van Loan 1978): the exact
// map x(t+Δt) = Φ x(t) + Γ u for an input u held over the step.
func zohDiscretize(a, b []float64, n, m int, dt float64) (phi, gam []float64) {
	k := n + m
	aug := make([]float64, k*k)
	for i := range n {
		for j := range n {
			aug[i*k+j] = a[i*n+j] * dt
		}
		for j := range m {
			aug[i*k+n+j] = b[i*m+j] * dt
		}
	}
	e := expm(aug, k)
	phi, gam = make([]float64, n*n), make([]float64, n*m)
	for i := range n {
		copy(phi[i*n:(i+1)*n], e[i*k:i*k+n])
		copy(gam[i*m:(i+1)*m], e[i*k+n:i*k+n+m])
	}
	return phi, gam
}
