package integrators

import (
	"fmt"
	"math"
)

// krylovError is a GMRES solve that did not reach its tolerance: it
// stagnated (a restart cycle reduced the residual by less than 0.1 %),
// broke down (a non-finite value, or A·P⁻¹ singular on the Krylov
// space), or ran out of iterations.
type krylovError struct {
	Reason   string  // "stagnated", "breakdown", "iteration limit"
	Iter     int     // iterations done
	Residual float64 // last residual norm ‖b − A·x‖₂ (GMRES estimate)
	Rel      float64 // Residual / ‖b‖₂
	Tol      float64 // the relative tolerance asked for
}

func (e *krylovError) Error() string {
	return fmt.Sprintf("GMRES %s after %d iterations: relative residual %.3g (tolerance %.3g)", e.Reason, e.Iter, e.Rel, e.Tol)
}

// gmres is restarted GMRES(m) with right preconditioning, A·P⁻¹·u = b,
// x = P⁻¹·u (Saad, Iterative Methods for Sparse Linear Systems, 2nd ed.,
// SIAM 2003, §9.3.2): Arnoldi with modified Gram–Schmidt, the least
// squares problem by Givens rotations, so the residual norm of the
// unpreconditioned system is known at every iteration without extra
// products.
//
// Work storage is two vectors of length n and the Krylov basis, which
// grows to the longest restart cycle run so far (at most m+1 vectors, as
// PETSc's GMRES allocates its directions as needed): each basis vector is
// allocated the first time a cycle reaches it, and kept, so a solve
// allocates only when it needs more iterations than every earlier one.
// A well-preconditioned Newton solve that converges in one iteration
// holds one basis vector, not m+1.
type gmres struct {
	n, m            int
	v               [][]float64 // Krylov basis, up to m+1 vectors, allocated as needed
	h               []float64   // Hessenberg, (m+1)×m, column j at h[j*(m+1):]
	cs              []float64
	sn              []float64
	g               []float64
	y               []float64
	w, z            []float64
	stagnationRatio float64
	lazyDone        bool // the last solve left x = xScale·z unwritten
	xScale          float64
	x               []float64 // the solution when the caller gives none, allocated on first use
}

func newGMRES(n, m int) *gmres {
	m = max(1, min(m, n))
	g := &gmres{n: n, m: m, v: make([][]float64, m+1), h: make([]float64, (m+1)*m),
		cs: make([]float64, m), sn: make([]float64, m), g: make([]float64, m+1), y: make([]float64, m),
		w: make([]float64, n), z: make([]float64, n), stagnationRatio: 0.999}
	return g
}

// basis returns basis vector j, allocating it on first use.
func (k *gmres) basis(j int) []float64 {
	if k.v[j] == nil {
		k.v[j] = make([]float64, k.n)
	}
	return k.v[j]
}

func dot(a, b []float64) float64 {
	b = b[:len(a)]
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// norm2 is ‖a‖₂: Σ a_i² when no square can underflow or overflow to
// matter, else scaled by the largest magnitude (resNorm).
func norm2(a []float64) float64 {
	if s := dot(a, a); s > 0x1p-900 && s < 0x1p900 {
		return math.Sqrt(s)
	}
	return resNorm(a)
}

// solve writes x ≈ A⁻¹·b with ‖b − A·x‖₂ ≤ tol·‖b‖₂, starting from x = 0.
// op writes A·v into dst; pc (nil: none) is applied on the right. bnorm
// is ‖b‖₂ when the caller knows it (the Newton residual's norm), or
// negative. It returns the iterations done and the final residual norm,
// and a *krylovError (or op's error) when the tolerance was not reached.
//
// The first basis vector v_0 = b/‖b‖ is only formed when a second
// iteration needs it: the first is run on b itself, its scale carried in
// the scalars. With lazy set, a solve that converges in that one
// iteration does not write x either: it returns x = xScale·z, leaving z
// in k.z (solution returns it), for the caller to read once. A nil x is
// the solver's own buffer, allocated the first time a solve writes it
// (solution returns it too).
//
// opDot, when not nil, is op fused with a dot product: it writes A·v into
// dst and returns dst·b; the first iteration uses it.
func (k *gmres) solve(op func(v, dst []float64) error, opDot func(v, dst, b []float64) float64, pc precond, b, x []float64, bnorm, tol float64, maxIter int, lazy bool) (int, float64, error) {
	k.lazyDone = false
	own := x == nil // x is k.x, allocated when first written
	if own {
		x = k.x
	}
	beta0 := bnorm
	if beta0 < 0 {
		beta0 = norm2(b)
	}
	if beta0 == 0 {
		if own && x == nil {
			k.x = make([]float64, k.n)
			x = k.x
		}
		clear(x)
		return 0, 0, nil
	}
	if math.IsNaN(beta0) || math.IsInf(beta0, 0) {
		return 0, beta0, &krylovError{Reason: "breakdown", Rel: math.NaN(), Tol: tol}
	}
	target := tol * beta0
	sc := 1 / beta0 // v_0 = sc·b, not formed yet
	// The first iteration runs on b itself only where b's scale cannot
	// make its products (‖b‖², (A·P⁻¹·b, b)) underflow or overflow;
	// otherwise v_0 is formed first.
	pend := beta0 > 0x1p-300 && beta0 < 0x1p300
	if !pend {
		scaleTo(k.basis(0), b, sc)
	}
	beta := beta0
	its := 0
	m1 := k.m + 1
	first := true // x is still zero: the first cycle writes it
	for {
		cycleStart := beta
		clear(k.g)
		k.g[0] = beta
		j := 0
		res := beta
		broke := false
		for ; j < k.m; j++ {
			vj := k.v[j]
			if j == 0 && pend {
				vj = b // v_0 = sc·b: z and w are 1/sc times v_0's
			}
			if pc != nil {
				pc.apply(vj, k.z)
			} else {
				copy(k.z, vj)
			}
			wb := 0.0 // (w, b) when opDot forms it
			if j == 0 && pend && opDot != nil {
				wb = opDot(k.z, k.w, b)
			} else if err := op(k.z, k.w); err != nil {
				return its, res, err
			}
			its++
			hj := k.h[j*m1 : (j+1)*m1]
			// Modified Gram–Schmidt, each update fused with the next
			// dot product (the same operations in the same order, with
			// one pass over w fewer per basis vector); the last update
			// also sums the squares of the result.
			var hn float64
			if j == 0 && pend {
				// w_true − h·v_0 = sc·(w − h·b) with h = sc²·(w, b): k.w
				// becomes w − h·b, and v_1 is its direction.
				if opDot == nil {
					wb = dot(k.w, b)
				}
				hj[0] = wb * sc * sc
				hn = math.Sqrt(axpyNorm2(-hj[0], b, k.w))
				hj[1] = hn * sc
			} else {
				hj[0] = dot(k.w, k.v[0])
				for i := 0; i < j; i++ {
					hj[i+1] = axpyDot(-hj[i], k.v[i], k.w, k.v[i+1])
				}
				hn = math.Sqrt(axpyNorm2(-hj[j], vj, k.w))
				hj[j+1] = hn
			}
			if math.IsNaN(hn) || math.IsInf(hn, 0) {
				return its, res, &krylovError{Reason: "breakdown", Iter: its, Residual: res, Rel: res / beta0, Tol: tol}
			}
			for i := 0; i < j; i++ {
				a, c := hj[i], hj[i+1]
				hj[i] = k.cs[i]*a + k.sn[i]*c
				hj[i+1] = -k.sn[i]*a + k.cs[i]*c
			}
			a, c := hj[j], hj[j+1]
			d := math.Hypot(a, c)
			if d == 0 {
				// A·P⁻¹ is singular on the Krylov space.
				return its, res, &krylovError{Reason: "breakdown", Iter: its, Residual: res, Rel: res / beta0, Tol: tol}
			}
			k.cs[j], k.sn[j] = a/d, c/d
			hj[j], hj[j+1] = d, 0
			k.g[j+1] = -k.sn[j] * k.g[j]
			k.g[j] = k.cs[j] * k.g[j]
			res = math.Abs(k.g[j+1])
			if c <= 1e-14*d {
				// Happy breakdown: the Krylov space is invariant and the
				// least-squares solution exact.
				broke = true
				j++
				break
			}
			if res <= target || its >= maxIter {
				j++
				break
			}
			if j == 0 && pend {
				scaleTo(k.basis(0), b, sc)
				pend = false
			}
			scaleTo(k.basis(j+1), k.w, 1/hn)
		}
		// y = H⁻¹·g (upper triangular j×j), u = V·y, x += P⁻¹·u.
		for i := j - 1; i >= 0; i-- {
			s := k.g[i]
			for q := i + 1; q < j; q++ {
				s -= k.h[q*m1+i] * k.y[q]
			}
			k.y[i] = s / k.h[i*m1+i]
		}
		var finite bool
		if j == 1 {
			// One iteration: z still holds P⁻¹·v_0 (over its scale), so
			// x += y_0·z without applying the preconditioner again (the
			// common case of a good preconditioner; it saves a third of
			// the solve's work).
			a := k.y[0]
			if pend {
				a *= sc
			}
			if first && lazy && (res <= target || broke) {
				if a-a != 0 {
					return its, res, &krylovError{Reason: "breakdown", Iter: its, Residual: res, Rel: res / beta0, Tol: tol}
				}
				k.lazyDone, k.xScale = true, a
				return its, res, nil
			}
			if own && x == nil {
				k.x = make([]float64, k.n)
				x = k.x
			}
			finite = addScaled(x, k.z, a, first)
		} else {
			if own && x == nil {
				k.x = make([]float64, k.n)
				x = k.x
			}
			scaleTo(k.w, k.v[0], k.y[0])
			for i := 1; i < j; i++ {
				axpy(k.y[i], k.v[i], k.w)
			}
			if pc != nil {
				pc.apply(k.w, k.z)
			} else {
				copy(k.z, k.w)
			}
			finite = addScaled(x, k.z, 1, first)
		}
		first = false
		if !finite {
			return its, res, &krylovError{Reason: "breakdown", Iter: its, Residual: res, Rel: res / beta0, Tol: tol}
		}
		if res <= target || broke {
			return its, res, nil
		}
		if its >= maxIter {
			return its, res, &krylovError{Reason: "iteration limit", Iter: its, Residual: res, Rel: res / beta0, Tol: tol}
		}
		if pend {
			// A restart after one iteration: v_0 was never formed, and
			// it is not needed any more.
			pend = false
		}
		// Restart from the true residual b − A·x.
		if err := op(x, k.w); err != nil {
			return its, res, err
		}
		for i, v := range b {
			k.w[i] = v - k.w[i]
		}
		beta = norm2(k.w)
		if beta <= target {
			return its, beta, nil
		}
		if !(beta < k.stagnationRatio*cycleStart) {
			return its, beta, &krylovError{Reason: "stagnated", Iter: its, Residual: beta, Rel: beta / beta0, Tol: tol}
		}
		scaleTo(k.basis(0), k.w, 1/beta)
	}
}

// solution returns the result of the last solve into the solver's own
// buffer (x nil) as x = scale·vec.
func (k *gmres) solution() (scale float64, vec []float64) {
	if k.lazyDone {
		return k.xScale, k.z
	}
	return 1, k.x
}

func axpy(a float64, x, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += a * v
	}
}

// axpyDot is axpy returning y·z of the result.
func axpyDot(a float64, x, y, z []float64) float64 {
	y, z = y[:len(x)], z[:len(x)]
	s := 0.0
	for i, v := range x {
		w := y[i] + a*v
		y[i] = w
		s += w * z[i]
	}
	return s
}

// axpyNorm2 is axpy returning Σ y_i² of the result.
func axpyNorm2(a float64, x, y []float64) float64 {
	y = y[:len(x)]
	s := 0.0
	for i, v := range x {
		w := y[i] + a*v
		y[i] = w
		s += w * w
	}
	return s
}

// scaleTo writes a·x into dst.
func scaleTo(dst, x []float64, a float64) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = a * v
	}
}

// addScaled writes x = a·z (first) or x += a·z, and reports whether every
// value of x is finite.
func addScaled(x, z []float64, a float64, first bool) bool {
	z = z[:len(x)]
	var bad float64 // stays 0 unless a value is infinite or NaN
	if first {
		for i, v := range z {
			w := a * v
			x[i] = w
			bad += w * 0
		}
	} else {
		for i, v := range z {
			w := x[i] + a*v
			x[i] = w
			bad += w * 0
		}
	}
	return bad == 0
}
