package benchmarks

import "math"

// The hand-written baselines: the chain of W1 coded directly over one flat
// []float64 with the state layout of the graph (position(3) then
// velocity(3) per mass), the connector's force law
// f = k·(Δp − off) + c·Δv per axis and the mass's update, in one fused
// pass with no interfaces, no inputs buffer and no checks. They do the
// same floating-point operations in the same order as the nodes, so a
// baseline and the graph agree to round-off (the tests check 1e-13).

// chainForce is connector j's force law for marker 0 at (p0, v0) and
// marker 1 at (p1, v1), per axis: f = k·(Δp − 0) + c·Δv.
func chainForce(p0, v0, p1, v1 []float64, f *[3]float64) {
	for d := range 3 {
		dp := p1[d] - p0[d]
		dv := v1[d] - v0[d]
		f[d] = ChainStiffness*(dp-0) + ChainDamping*dv
	}
}

var zero3 = make([]float64, 3)

// HandSIE takes steps of semi-implicit Euler of the chain of n masses on
// y in place: per mass, F = −f_{i−1} + f_i, v⁺ = v + Δt·(F/m + 0),
// x⁺ = x + Δt·v⁺, with connector forces from the state at t_n. One pass
// per step: connector i is evaluated just before mass i is updated, from
// masses i and i+1, neither of which has moved yet.
func HandSIE(y []float64, n, steps int, dt float64) {
	_ = y[6*n-1]
	for range steps {
		var fp, f [3]float64
		chainForce(zero3, zero3, y[0:3], y[3:6], &fp)
		for i := 0; i < n; i++ {
			x := y[6*i : 6*i+6 : 6*i+6]
			if i+1 < n {
				nx := y[6*i+6 : 6*i+12 : 6*i+12]
				chainForce(x[0:3], x[3:6], nx[0:3], nx[3:6], &f)
			} else {
				chainForce(x[0:3], x[3:6], zero3, zero3, &f)
			}
			for d := range 3 {
				F := -fp[d] + f[d]
				v := x[3+d] + dt*(F/ChainMass+0)
				x[3+d] = v
				x[d] = x[d] + dt*v
			}
			fp = f
		}
	}
}

// HandSIEFused is HandSIE with every value in a register: each mass's
// position and velocity are loaded once per step (as the "next" mass of
// the connector before it), the connector force is carried to the next
// mass in registers, and there is no function call, slice or array
// temporary per mass. It does the same floating-point operations in the
// same order as HandSIE (and so as the graph), so the three agree bit for
// bit (TestHandSIEFused). It is the fastest single-pass loop of this
// arithmetic we could write in Go, the floor a framework could approach.
func HandSIEFused(y []float64, n, steps int, dt float64) {
	const k, c, m = ChainStiffness, ChainDamping, ChainMass
	_ = y[6*n-1]
	for range steps {
		// Connector 0 joins the wall (at rest at the origin) to mass 0.
		x0, x1, x2, v0, v1, v2 := y[0], y[1], y[2], y[3], y[4], y[5]
		fp0 := k*((x0-0)-0) + c*(v0-0)
		fp1 := k*((x1-0)-0) + c*(v1-0)
		fp2 := k*((x2-0)-0) + c*(v2-0)
		for i := 0; i < n; i++ {
			var n0, n1, n2, w0, w1, w2 float64 // the next mass, or the wall
			if i+1 < n {
				q := (*[6]float64)(y[6*i+6:])
				n0, n1, n2, w0, w1, w2 = q[0], q[1], q[2], q[3], q[4], q[5]
			}
			f0 := k*((n0-x0)-0) + c*(w0-v0)
			f1 := k*((n1-x1)-0) + c*(w1-v1)
			f2 := k*((n2-x2)-0) + c*(w2-v2)
			u0 := v0 + dt*((-fp0+f0)/m+0)
			u1 := v1 + dt*((-fp1+f1)/m+0)
			u2 := v2 + dt*((-fp2+f2)/m+0)
			q := (*[6]float64)(y[6*i:])
			q[0], q[1], q[2] = x0+dt*u0, x1+dt*u1, x2+dt*u2
			q[3], q[4], q[5] = u0, u1, u2
			fp0, fp1, fp2 = f0, f1, f2
			x0, x1, x2, v0, v1, v2 = n0, n1, n2, w0, w1, w2
		}
	}
}

// HandRHS writes the chain's right-hand side f(t, y) into dst: ẋ = v,
// v̇ = F/m + 0, the masspoint's Derivatives with the connectors' loads.
func HandRHS(y, dst []float64, n int) {
	_, _ = y[6*n-1], dst[6*n-1]
	var fp, f [3]float64
	chainForce(zero3, zero3, y[0:3], y[3:6], &fp)
	for i := 0; i < n; i++ {
		x := y[6*i : 6*i+6 : 6*i+6]
		if i+1 < n {
			nx := y[6*i+6 : 6*i+12 : 6*i+12]
			chainForce(x[0:3], x[3:6], nx[0:3], nx[3:6], &f)
		} else {
			chainForce(x[0:3], x[3:6], zero3, zero3, &f)
		}
		d := dst[6*i : 6*i+6 : 6*i+6]
		for k := range 3 {
			F := -fp[k] + f[k]
			d[k] = x[3+k]
			d[3+k] = F/ChainMass + 0
		}
		fp = f
	}
}

// HandRK4 is classical RK4 of the chain over flat arrays, with the
// stage combinations of integrators' rk4.
type HandRK4 struct {
	n              int
	y, yn, tmp     []float64
	k0, k1, k2, k3 []float64
}

// NewHandRK4 allocates the stage vectors for n masses and copies y0.
func NewHandRK4(n int, y0 []float64) *HandRK4 {
	mk := func() []float64 { return make([]float64, 6*n) }
	h := &HandRK4{n: n, y: mk(), yn: mk(), tmp: mk(), k0: mk(), k1: mk(), k2: mk(), k3: mk()}
	copy(h.y, y0)
	return h
}

// State returns the current state (owned by h).
func (h *HandRK4) State() []float64 { return h.y }

// Step takes one RK4 step of dt.
func (h *HandRK4) Step(dt float64) {
	y, yn, tmp, n := h.y, h.yn, h.tmp, h.n
	k0, k1, k2, k3 := h.k0, h.k1, h.k2, h.k3
	HandRHS(y, k0, n)
	for i := range tmp {
		tmp[i] = y[i] + 0.5*dt*k0[i]
	}
	HandRHS(tmp, k1, n)
	for i := range tmp {
		tmp[i] = y[i] + 0.5*dt*k1[i]
	}
	HandRHS(tmp, k2, n)
	for i := range tmp {
		tmp[i] = y[i] + dt*k2[i]
	}
	HandRHS(tmp, k3, n)
	for i := range yn {
		yn[i] = y[i] + dt/6*(k0[i]+2*k1[i]+2*k2[i]+k3[i])
	}
	h.y, h.yn = yn, y
}

// Dormand–Prince 5(4) tableau (Hairer, Nørsett & Wanner, Table II.5.2),
// as in package integrators.
const (
	dpC2, dpC3, dpC4, dpC5 = 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9

	dpA21                              = 1.0 / 5
	dpA31, dpA32                       = 3.0 / 40, 9.0 / 40
	dpA41, dpA42, dpA43                = 44.0 / 45, -56.0 / 15, 32.0 / 9
	dpA51, dpA52, dpA53, dpA54         = 19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729
	dpA61, dpA62, dpA63, dpA64, dpA65  = 9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656
	dpA71, dpA73, dpA74, dpA75, dpA76  = 35.0 / 384, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84
	dpE1, dpE3, dpE4, dpE5, dpE6, dpE7 = 71.0 / 57600, -71.0 / 16695, 71.0 / 1920, -17253.0 / 339200, 22.0 / 525, -1.0 / 40
	dpSafe, dpFacMin, dpFacMax, dpBeta = 0.9, 0.2, 10.0, 0.04 // 10.0: 1/dpFacMax must not be integer division
	dpExpo1                            = 0.2 - dpBeta*0.75
	dpRTol, dpATol                     = 1e-6, 1e-9
)

// HandDP is Dormand–Prince 5(4) of the chain over flat arrays: the fixed
// step (Step) and the adaptive driver (Integrate) with the error norm,
// PI controller and initial step of integrators.Integrate (without dense
// output and events), so both take the same steps.
type HandDP struct {
	n, dim int
	t      float64
	y, yn  []float64
	tmp    []float64
	k      [7][]float64
	fOK    bool

	RTol, ATol float64
	h, errOld  float64
	rejected   bool
	Steps      int // accepted steps
	Rejected   int // rejected trials
	Evals      int // right-hand sides
}

// NewHandDP allocates the work vectors for n masses and copies y0.
func NewHandDP(n int, y0 []float64) *HandDP {
	dim := 6 * n
	h := &HandDP{n: n, dim: dim, y: make([]float64, dim), yn: make([]float64, dim), tmp: make([]float64, dim),
		RTol: dpRTol, ATol: dpATol, errOld: 1e-4}
	for i := range h.k {
		h.k[i] = make([]float64, dim)
	}
	copy(h.y, y0)
	return h
}

// State returns the current time and state (owned by h).
func (h *HandDP) State() (float64, []float64) { return h.t, h.y }

func (h *HandDP) rhs(y, dst []float64) {
	h.Evals++
	HandRHS(y, dst, h.n)
}

func (h *HandDP) stages(dt float64) {
	y, yn, tmp, k := h.y, h.yn, h.tmp, h.k
	k0, k1, k2, k3, k4, k5, k6 := k[0], k[1], k[2], k[3], k[4], k[5], k[6]
	for i := range tmp {
		tmp[i] = y[i] + dt*dpA21*k0[i]
	}
	h.rhs(tmp, k1)
	for i := range tmp {
		tmp[i] = y[i] + dt*(dpA31*k0[i]+dpA32*k1[i])
	}
	h.rhs(tmp, k2)
	for i := range tmp {
		tmp[i] = y[i] + dt*(dpA41*k0[i]+dpA42*k1[i]+dpA43*k2[i])
	}
	h.rhs(tmp, k3)
	for i := range tmp {
		tmp[i] = y[i] + dt*(dpA51*k0[i]+dpA52*k1[i]+dpA53*k2[i]+dpA54*k3[i])
	}
	h.rhs(tmp, k4)
	for i := range tmp {
		tmp[i] = y[i] + dt*(dpA61*k0[i]+dpA62*k1[i]+dpA63*k2[i]+dpA64*k3[i]+dpA65*k4[i])
	}
	h.rhs(tmp, k5)
	for i := range yn {
		yn[i] = y[i] + dt*(dpA71*k0[i]+dpA73*k2[i]+dpA74*k3[i]+dpA75*k4[i]+dpA76*k5[i])
	}
	h.rhs(yn, k6)
}

func (h *HandDP) accept(t1 float64) {
	h.t = t1
	h.y, h.yn = h.yn, h.y
	h.k[0], h.k[6] = h.k[6], h.k[0]
	h.Steps++
}

// Step takes one fixed Dormand–Prince step of dt (the 5th-order
// solution, FSAL), as integrators' fixed-step dormand-prince.
func (h *HandDP) Step(dt float64) {
	if !h.fOK {
		h.rhs(h.y, h.k[0])
		h.fOK = true
	}
	h.stages(dt)
	h.accept(h.t + dt)
}

func (h *HandDP) errorNorm(dt float64) float64 {
	k := h.k
	var s float64
	for i := range h.y {
		e := dt * (dpE1*k[0][i] + dpE3*k[2][i] + dpE4*k[3][i] + dpE5*k[4][i] + dpE6*k[5][i] + dpE7*k[6][i])
		sc := h.ATol + h.RTol*math.Max(math.Abs(h.y[i]), math.Abs(h.yn[i]))
		s += (e / sc) * (e / sc)
	}
	return math.Sqrt(s / float64(h.dim))
}

func (h *HandDP) initialStep(tEnd float64) float64 {
	y, f0 := h.y, h.k[0]
	var d0, d1 float64
	for i := range y {
		sc := h.ATol + h.RTol*math.Abs(y[i])
		d0 += (y[i] / sc) * (y[i] / sc)
		d1 += (f0[i] / sc) * (f0[i] / sc)
	}
	d0, d1 = math.Sqrt(d0/float64(h.dim)), math.Sqrt(d1/float64(h.dim))
	h0 := 1e-6
	if d0 >= 1e-5 && d1 >= 1e-5 {
		h0 = 0.01 * d0 / d1
	}
	h0 = math.Min(h0, tEnd-h.t)
	for i := range y {
		h.tmp[i] = y[i] + h0*f0[i]
	}
	h.rhs(h.tmp, h.k[1])
	var d2 float64
	for i := range y {
		sc := h.ATol + h.RTol*math.Abs(y[i])
		d := (h.k[1][i] - f0[i]) / sc
		d2 += d * d
	}
	d2 = math.Sqrt(d2/float64(h.dim)) / h0
	var h1 float64
	if m := math.Max(d1, d2); m <= 1e-15 {
		h1 = math.Max(1e-6, h0*1e-3)
	} else {
		h1 = math.Pow(0.01/m, 1.0/5)
	}
	return math.Min(100*h0, h1)
}

// Integrate runs the adaptive driver from the current time to tEnd.
func (h *HandDP) Integrate(tEnd float64) {
	if !h.fOK {
		h.rhs(h.y, h.k[0])
		h.fOK = true
	}
	if h.h == 0 {
		h.h = h.initialStep(tEnd)
	}
	for h.t < tEnd {
		t := h.t
		dt := h.h
		last := false
		t1 := t + dt
		if t+dt*(1+1e-10) >= tEnd {
			last = true
			dt, t1 = tEnd-t, tEnd
		}
		h.stages(dt)
		e := h.errorNorm(dt)
		if e > 1 || math.IsNaN(e) {
			h.Rejected++
			h.rejected = true
			if math.IsNaN(e) {
				h.h = dt * dpFacMin
			} else {
				h.h = dt / math.Min(1/dpFacMin, math.Pow(e, dpExpo1)/dpSafe)
			}
			continue
		}
		fac := math.Pow(e, dpExpo1) / math.Pow(h.errOld, dpBeta) / dpSafe
		fac = math.Max(1/dpFacMax, math.Min(1/dpFacMin, fac))
		hnew := dt / fac
		if h.rejected {
			hnew = math.Min(hnew, dt)
		}
		if !last || hnew > h.h {
			h.h = hnew
		}
		h.errOld = math.Max(e, 1e-4)
		h.rejected = false
		h.accept(t1)
	}
}
