package integrators

import "math"

// The Nordsieck-array arithmetic of the variable-order, variable-step
// BDF in fixed-leading-coefficient form (Jackson & Sacks-Davis, ACM TOMS
// 6, 295–318, 1980; Byrne & Hindmarsh's EPISODE, ACM TOMS 1, 71–96,
// 1975; the form of CVODE, Hindmarsh et al., ACM TOMS 31, 363–396,
// 2005, §2.1). The history is the Nordsieck array
//
//	z_j = h^j·π^(j)(t_n)/j!,  j = 0..q,
//
// of the polynomial π of degree q that interpolates the solution at
// t_n, t_{n−1}, …, t_{n−q+1} and whose derivative at t_n is f(t_n, y_n).
// With ξ_i = (t_n − t_{n−i})/h the step n is
//
//	predict  z⁽⁰⁾ = z·P (P the Pascal matrix: π's Taylor shift by h)
//	correct  z = z⁽⁰⁾ + Δ·l,  Δ = y_n − y_n⁽⁰⁾,
//
// where l holds the coefficients of Λ(x) = (1 + x/ξ*)·Π_{i<q}(1 + x/ξ_i):
// Λ vanishes at the q − 1 older points, so π keeps interpolating them,
// and ξ* is chosen so that l_1 = Σ_{j≤q} 1/j, its constant-step value
// (the fixed leading coefficient). The derivative condition then gives
// the corrector equation y_n − ψ − (h/l_1)·f(t_n, y_n) = 0 with
// ψ = y_n⁽⁰⁾ − z⁽⁰⁾_1/l_1: the equation stageSolver solves.

// bdfCoefficients computes l (the correction vector) and the
// error-estimation constants for order q, step h and past steps tau
// (tau[1] the last step taken, tau[2] the one before, …):
//
//	tq[2]: the local error of order q is ≈ tq[2]·Δ
//	tq[1]: the local error of order q − 1 is ≈ tq[1]·z_q   (if wait)
//	tq[3]: the local error of order q + 1 is ≈ tq[3]·(Δ − Δ_prev·(…)) (if wait)
//	tq[5]: the scale relating successive Δ for tq[3]
//
// For constant steps tq[2] = 1/((q+1)·l_1), the error constant of BDF-q
// (1/2, 2/9, 3/22, 12/125, 10/137 relative to h^{q+1}·y^{(q+1)}; the
// correction Δ is then ≈ h^{q+1}·y^{(q+1)}), and l is the coefficient
// vector of Π_{i≤q}(1 + x/i).
// wait computes tq[1] and tq[3], needed only at a step after which an
// order change is considered.
func bdfCoefficients(q int, h float64, tau *[bdfMaxOrder + 2]float64, wait bool, l *[bdfMaxOrder + 1]float64, tq *[6]float64) {
	*l = [bdfMaxOrder + 1]float64{1, 1}
	alpha0, alpha0hat := -1.0, -1.0
	xiInv, xistarInv := 1.0, 1.0
	hsum := h
	if q > 1 {
		for j := 2; j < q; j++ {
			hsum += tau[j-1]
			xiInv = h / hsum
			alpha0 -= 1 / float64(j)
			for i := j; i >= 1; i-- {
				l[i] += l[i-1] * xiInv // multiply Λ by (1 + x/ξ_j)
			}
		}
		alpha0 -= 1 / float64(q)
		xistarInv = -l[1] - alpha0 // makes l_1 = −α₀ = Σ 1/j
		hsum += tau[q-1]
		xiInv = h / hsum // 1/ξ_q
		alpha0hat = -l[1] - xiInv
		for i := q; i >= 1; i-- {
			l[i] += l[i-1] * xistarInv
		}
	}
	a1 := 1 - alpha0hat + alpha0
	a2 := 1 + float64(q)*a1
	tq[2] = math.Abs(a1 / (alpha0 * a2))
	tq[5] = math.Abs(a2 * xistarInv / (l[q] * xiInv))
	if wait {
		if q > 1 {
			cc := xistarInv / l[q]
			a3 := alpha0 + 1/float64(q)
			a4 := alpha0hat + xiInv
			tq[1] = math.Abs(cc * (1 - a4 + a3) / a3)
		} else {
			tq[1] = 1
		}
		hsum += tau[q]
		xiInv = h / hsum
		a5 := alpha0 - 1/float64(q+1)
		a6 := alpha0hat - xiInv
		tq[3] = math.Abs((1 - a6 + a5) / a2 / (xiInv * float64(q+2) * a5))
	}
}

// nordsieckPredict applies the Pascal matrix to z[0..q] in place: the
// Taylor shift of π by one step.
func nordsieckPredict(z *[bdfMaxOrder + 1][]float64, q int) {
	for k := 1; k <= q; k++ {
		for j := q; j >= k; j-- {
			zj, zm := z[j], z[j-1]
			for i := range zm {
				zm[i] += zj[i]
			}
		}
	}
}

// nordsieckRetract undoes nordsieckPredict: the same passes inverted
// and in reverse order (each pass a cumulative sum from the top, whose
// inverse is the differences taken from the bottom).
func nordsieckRetract(z *[bdfMaxOrder + 1][]float64, q int) {
	for k := q; k >= 1; k-- {
		for j := k; j <= q; j++ {
			zj, zm := z[j], z[j-1]
			for i := range zm {
				zm[i] -= zj[i]
			}
		}
	}
}

// nordsieckRescale multiplies z_j by eta^j: the same polynomial for the
// step h·eta.
func nordsieckRescale(z *[bdfMaxOrder + 1][]float64, q int, eta float64) {
	f := eta
	for j := 1; j <= q; j++ {
		for i := range z[j] {
			z[j][i] *= f
		}
		f *= eta
	}
}

// nordsieckDecrease lowers the order from q to q − 1: the polynomial of
// degree q − 1 that keeps the values at t_n … t_{n−q+2} and the slope at
// t_n differs from π by z_q·x²·Π_{j=1}^{q−2}(x + ξ_j) (it vanishes doubly
// at t_n and at the kept points), so z_j −= z_q·p_j for its
// coefficients p_j, j = 2..q−1. tau are the past steps, h the current
// scale.
func nordsieckDecrease(z *[bdfMaxOrder + 1][]float64, q int, h float64, tau *[bdfMaxOrder + 2]float64) {
	var p [bdfMaxOrder + 1]float64
	p[2] = 1
	hsum := 0.0
	for j := 1; j <= q-2; j++ {
		hsum += tau[j]
		xi := hsum / h
		for i := j + 2; i >= 2; i-- {
			p[i] = p[i]*xi + p[i-1]
		}
	}
	zq := z[q]
	for j := 2; j < q; j++ {
		pj, zj := p[j], z[j]
		for i := range zj {
			zj[i] -= pj * zq[i]
		}
	}
}

// nordsieckIncrease raises the order from q to q + 1 after a step whose
// correction was delta: the new polynomial must also interpolate
// y_{n−q}, where π misses by Δ·Λ(−ξ_q) (π_{n−1} interpolated it). It
// differs from π by C·x²·Π_{j=1}^{q−1}(x + ξ_j) with
// C = Δ·(1/ξ* − 1/ξ_q)/Π_{j≤q} ξ_j, so z_{q+1} = C and z_j += C·p_j.
// The ξ are relative to the step just completed (tau[1] = h).
func nordsieckIncrease(z *[bdfMaxOrder + 1][]float64, q int, h float64, tau *[bdfMaxOrder + 2]float64, delta []float64) {
	var p [bdfMaxOrder + 2]float64
	p[2] = 1
	alpha0, alpha1, prod, xiOld := -1.0, 1.0, 1.0, 1.0
	hsum := h
	for j := 1; j < q; j++ {
		hsum += tau[j+1]
		xi := hsum / h
		prod *= xi
		alpha0 -= 1 / float64(j+1)
		alpha1 += 1 / xi
		for i := j + 2; i >= 2; i-- {
			p[i] = p[i]*xiOld + p[i-1]
		}
		xiOld = xi
	}
	c := (-alpha0 - alpha1) / prod // (1/ξ* − 1/ξ_q)/Π ξ_j
	zn := z[q+1]
	for i, d := range delta {
		zn[i] = c * d
	}
	for j := 2; j <= q; j++ {
		pj, zj := p[j], z[j]
		for i := range zj {
			zj[i] += pj * zn[i]
		}
	}
}

// nordsieckEval writes π(t_n + s·h) = Σ_j z_j·s^j into dst (Horner).
func nordsieckEval(z *[bdfMaxOrder + 1][]float64, q int, s float64, dst []float64) {
	copy(dst, z[q])
	for j := q - 1; j >= 0; j-- {
		zj := z[j]
		for i := range dst {
			dst[i] = dst[i]*s + zj[i]
		}
	}
}
