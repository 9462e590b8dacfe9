package integrators

import (
	"errors"
	"fmt"
	"slices"
)

// alphaCore is one step of the Newmark family, shared by the
// second-order stepper and the first-order adapter. Its unknowns are
// x = [a_{n+1}, z_{n+1}] and its residual is
//
//	R_a = (1−αm)·a_{n+1} + αm·a_n − a(t_w, q_w, v_w, z_w)
//	R_z = z_{n+1} − z_n − dt/2·(g_n + g(t_{n+1}, q_{n+1}, v_{n+1}, z_{n+1}))
//
// with the weighted state x_w = (1−αf)·x_{n+1} + αf·x_n.
type alphaCore struct {
	name   string
	p      AlphaParams
	sys    SecondOrder
	jacFn  func(t float64, q, v, z, dadq, dadv []float64) error
	nq, nz int
	c      conf
	stats  *Work

	// trial result
	q1, v1, z1, a1, g1 []float64
	// work
	qw, vw, zw, aw, gw, aE []float64
	x, xp, r0, rp          []float64
	dadq, dadv             []float64
	tw                     float64
	ls                     *linSolver // dense LU, or GMRES's dense staging; nil otherwise
	nl                     *newtonLinear
	sp                     *alphaSparse // sparse assembly from a first-order SparseJacobian, or nil
	div                    divergence

	// the step's inputs, for the matrix-free operator
	t0, t1, dt         float64
	q0, v0, z0, a0, g0 []float64
}

func newAlphaCore(m methodInfo, sys SecondOrder, c conf, st *Work) *alphaCore {
	nq, nz := sys.Dims()
	if nq < 0 || nz < 0 {
		panic("integrators: negative dimensions")
	}
	n := nq + nz
	mk := func(k int) []float64 { return make([]float64, k) }
	a := &alphaCore{name: m.Name, p: m.Alpha, sys: sys, nq: nq, nz: nz, c: c, stats: st,
		q1: mk(nq), v1: mk(nq), z1: mk(nz), a1: mk(nq), g1: mk(nz),
		qw: mk(nq), vw: mk(nq), zw: mk(nz), aw: mk(nq), gw: mk(nz), aE: mk(nq),
		x: mk(n), xp: mk(n), r0: mk(n), rp: mk(n)}
	if j, ok := sys.(AccelJacobian); ok {
		a.jacFn = j.AccelJacobian
	}
	if a.jacFn != nil {
		a.dadq, a.dadv = mk(nq*nq), mk(nq*nq)
	}
	return a
}

// initLinear sets up the linear solver once the Jacobian sources are
// known: sparse and blockOf as for newNewtonLinear.
func (c *alphaCore) initLinear(sparse bool, blockOf []int, name func(int) string) {
	c.nl = newNewtonLinear(&c.c, c.nq+c.nz, sparse, blockOf, c.jv)
	c.nl.name = name
	c.ls = c.nl.dense
	if c.sp != nil {
		c.sp.a = c.nl.A
	}
}

// jv is the matrix-free product A·v ≈ (R(x + h·v) − R(x))/h at the
// current iterate (LinearOptions.MatrixFree); R(x) is in r0.
func (c *alphaCore) jv(v, dst []float64) error {
	h := fdDirection(c.x, v)
	if h == 0 {
		clear(dst)
		return nil
	}
	for i, x := range c.x {
		c.xp[i] = x + h*v[i]
	}
	if err := c.residual(c.t0, c.t1, c.dt, c.q0, c.v0, c.z0, c.a0, c.g0, c.xp, c.rp); err != nil {
		return err
	}
	for i := range dst {
		dst[i] = (c.rp[i] - c.r0[i]) / h
	}
	return nil
}

// alphaSparse assembles the sparse Newton matrix of the Newmark family
// over the unknowns [a, z] from the rows of a first-order System's
// Jacobian J (JacobianRows or SparseJacobian):
//
//	∂R_a/∂a = (1−αm)·I − (1−αf)·(β·dt²·J_vq + γ·dt·J_vv)   at the weighted state
//	∂R_a/∂z = −(1−αf)·J_vz
//	∂R_z/∂a = −dt/2·(β·dt²·J_zq + γ·dt·J_zv)             at the endpoint
//	∂R_z/∂z = I − dt/2·J_zz
//
// (rows v: velocity components, whose rate is the acceleration; rows z:
// other components; columns q, v, z likewise). Rows of the position
// components (q' = v) are not used. The a rows come from J at the
// weighted state, the z rows from a second evaluation at the endpoint.
type alphaSparse struct {
	pt    JacobianPoint // where A was last assembled
	ad    *partAdapter
	src   *jacRows
	a     *spMatrix
	rowU  []int32 // the unknown of each row of J (its a or z row), or -1
	colU  []int32 // the unknown of each column of J
	colT  []uint8 // the type of each column of J: 0 q, 1 v, 2 z
	nq    int
	coef  [6]float64 // by column type, + 3 for z rows
	dA    float64    // 1 − αm, the a rows' diagonal
	zpass bool       // this evaluation is for the z rows
	err   error
	emit  func(int, []int32, []float64)
}

func newAlphaSparse(ad *partAdapter, src *jacRows) *alphaSparse {
	n, nq := ad.n, len(ad.pos)
	m := &alphaSparse{ad: ad, src: src, nq: nq, rowU: make([]int32, n), colU: make([]int32, n), colT: make([]uint8, n),
		pt: JacobianPoint{Y: make([]float64, n)}}
	for i := range m.rowU {
		m.rowU[i] = -1
	}
	for i, k := range ad.pos {
		m.colU[k], m.colT[k] = int32(i), 0
	}
	for i, k := range ad.vel {
		m.rowU[k], m.colU[k], m.colT[k] = int32(i), int32(i), 1
	}
	for i, k := range ad.other {
		m.rowU[k], m.colU[k], m.colT[k] = int32(nq+i), int32(nq+i), 2
	}
	if len(ad.other) > 0 {
		m.pt.YE = make([]float64, n)
	}
	m.emit = m.add
	return m
}

// add takes row r of J: the a row it gives (first evaluation) or the z
// row (second).
func (m *alphaSparse) add(r int, cols []int32, vals []float64) {
	if m.err != nil {
		return
	}
	n := len(m.rowU)
	u := -1
	if r >= 0 && r < n {
		u = int(m.rowU[r])
	}
	mine := u >= 0 && (u >= m.nq) == m.zpass // a row of this evaluation's
	if m.err = checkRow(n, r, cols, vals, mine && m.a.seen[u]); m.err == nil && !checkCols(cols, n) {
		m.err = errCols(r, n)
	}
	if m.err != nil || !mine {
		return
	}
	d := m.dA
	if m.zpass {
		d = 1
	}
	if m.err == nil {
		m.err = m.a.addMapped(u, cols, vals, m.colU, m.colT, &m.coef, m.zpass, d)
	}
}

// sparseMatrix assembles the Newton matrix into nl.A at the weighted
// state of the last residual (and its endpoint when nz > 0).
func (c *alphaCore) sparseMatrix(t1, dt float64) error {
	m, ad := c.sp, c.sp.ad
	ad.scatter(c.qw, c.vw, c.zw)
	copy(m.pt.Y, ad.y)
	m.pt.T, m.pt.Dt = c.tw, dt
	if c.nz > 0 {
		c.stats.JacEvals++
		ad.scatter(c.q1, c.v1, c.z1)
		copy(m.pt.YE, ad.y)
		m.pt.TE = t1
	}
	return c.sparseAt()
}

// sparseAt assembles the Newton matrix from the Jacobians at the point
// recorded in c.sp.pt.
func (c *alphaCore) sparseAt() error {
	m, p := c.sp, c.p
	dt, t1 := m.pt.Dt, m.pt.T
	wf, he := 1-p.AlphaF, 0.5*dt
	m.coef = [6]float64{-wf * p.Beta * dt * dt, -wf * p.Gamma * dt, -wf, -he * p.Beta * dt * dt, -he * p.Gamma * dt, -he}
	m.dA = 1 - p.AlphaM
	m.a.reset()
	m.err, m.zpass = nil, false
	if err := m.src.eval(m.pt.T, m.pt.Y, m.emit); err != nil {
		return &StepError{Method: c.name, Status: Failure, T: m.pt.T, Dt: dt, Index: -1, Err: err}
	}
	if c.nz > 0 && m.err == nil {
		t1 = m.pt.TE
		m.zpass = true
		if err := m.src.eval(t1, m.pt.YE, m.emit); err != nil {
			return &StepError{Method: c.name, Status: Failure, T: t1, Dt: dt, Index: -1, Err: err}
		}
	}
	if m.err == nil {
		m.err = m.a.finish(m.dA, c.nq)
	}
	if m.err != nil {
		return &StepError{Method: c.name, Status: Failure, T: t1, Dt: dt, Index: -1, Err: m.err}
	}
	if i := m.a.nonFiniteRow(); i >= 0 {
		return &StepError{Method: c.name, Status: NonFinite, T: t1, Dt: dt, Index: i}
	}
	return nil
}

func (c *alphaCore) accel(t, dt float64, q, v, z, a, g []float64) error {
	c.stats.FuncEvals++
	if err := c.sys.Accel(t, q, v, z, a, g); err != nil {
		var se *StepError
		if errors.As(err, &se) && se.Status == NotPartitioned {
			se.Method, se.Dt = c.name, dt
			return se
		}
		return &StepError{Method: c.name, Status: Failure, T: t, Dt: dt, Index: -1, Err: err}
	}
	return nil
}

// physical writes the physical acceleration and extra rates at a state.
func (c *alphaCore) physical(t float64, q, v, z, a, g []float64) error {
	if err := c.accel(t, 0, q, v, z, a, g); err != nil {
		return err
	}
	if i := firstNonFinite(a); i >= 0 {
		return &StepError{Method: c.name, Status: NonFinite, T: t, Index: i}
	}
	if i := firstNonFinite(g); i >= 0 {
		return &StepError{Method: c.name, Status: NonFinite, T: t, Index: c.nq + i}
	}
	return nil
}

// kinematics fills q1, v1, z1, a1 from the unknowns x.
func (c *alphaCore) kinematics(dt float64, q0, v0, a0, x []float64) {
	b, g := c.p.Beta, c.p.Gamma
	for i := range c.q1 {
		ai := x[i]
		c.q1[i] = q0[i] + dt*v0[i] + dt*dt*((0.5-b)*a0[i]+b*ai)
		c.v1[i] = v0[i] + dt*((1-g)*a0[i]+g*ai)
		c.a1[i] = ai
	}
	copy(c.z1, x[c.nq:])
}

func (c *alphaCore) residual(t0, t1, dt float64, q0, v0, z0, a0, g0, x, r []float64) error {
	c.kinematics(dt, q0, v0, a0, x)
	af, am := c.p.AlphaF, c.p.AlphaM
	c.tw = (1-af)*t1 + af*t0
	for i := range c.qw {
		c.qw[i] = (1-af)*c.q1[i] + af*q0[i]
		c.vw[i] = (1-af)*c.v1[i] + af*v0[i]
	}
	for i := range c.zw {
		c.zw[i] = (1-af)*c.z1[i] + af*z0[i]
	}
	if err := c.accel(c.tw, dt, c.qw, c.vw, c.zw, c.aw, c.gw); err != nil {
		return err
	}
	for i := range c.aw {
		r[i] = (1-am)*x[i] + am*a0[i] - c.aw[i]
	}
	if c.nz > 0 {
		if err := c.accel(t1, dt, c.q1, c.v1, c.z1, c.aE, c.g1); err != nil {
			return err
		}
		for k := range c.z1 {
			r[c.nq+k] = c.z1[k] - z0[k] - 0.5*dt*(g0[k]+c.g1[k])
		}
	}
	return nil
}

// step solves one step from (t0, q0, v0, z0) with carried acceleration a0
// and extra rates g0. On success the new state is in q1, v1, z1, a1, g1;
// the inputs are never modified.
func (c *alphaCore) step(t0, t1, dt float64, q0, v0, z0, a0, g0 []float64) error {
	nq := c.nq
	x := c.x
	copy(x, a0)
	for k := range c.z1 {
		x[nq+k] = z0[k] + dt*g0[k]
	}
	c.t0, c.t1, c.dt = t0, t1, dt
	c.q0, c.v0, c.z0, c.a0, c.g0 = q0, v0, z0, a0, g0
	ls, nl := c.ls, c.nl
	nl.beginStep()
	c.div.reset()
	converged := false
	it := 0
	dxNorm := 0.0
	var dx []float64
	dxScale := 1.0
	for it < c.c.newtonMaxIter {
		it++
		if err := c.residual(t0, t1, dt, q0, v0, z0, a0, g0, x, c.r0); err != nil {
			return err
		}
		ss, rmax := sumSqMax(c.r0)
		rn, finite := normOf(c.r0, ss, rmax)
		nl.lastRes = rn
		if nl.krylv && !finite {
			return &StepError{Method: c.name, Status: NonFinite, T: t1, Dt: dt, Index: firstNonFinite(c.r0), Iter: it}
		}
		if d := c.div.check(rn); d != "" {
			if nl.krylv && nl.stale() {
				nl.valid = false
				c.div.reset()
			} else {
				return &StepError{Method: c.name, Status: NewtonFailure, T: t1, Dt: dt, Index: -1, Iter: it, Residual: rn, Detail: d}
			}
		}
		if !nl.krylv {
			c.stats.JacEvals++
			if err := c.denseMatrix(dt, x); err != nil {
				return err
			}
			copy(ls.r, c.r0)
			c.stats.NewtonIters++
			if !ls.solve(c.stats) {
				break
			}
			dx = ls.dx
		} else {
			if nl.needMatrix(dt, it, dxNorm) {
				c.stats.JacEvals++
				var err error
				if c.sp != nil {
					err = c.sparseMatrix(t1, dt)
				} else if err = c.denseMatrix(dt, x); err == nil {
					if err = nl.fromDense(); err != nil {
						err = &StepError{Method: c.name, Status: Failure, T: t1, Dt: dt, Index: -1, Err: err}
					}
				}
				if err != nil {
					return err
				}
				nl.valid = false
				if err := nl.setupPC(c.stats); err != nil {
					return nl.linearError(c.name, t1, dt, it, err)
				}
				nl.matrixDone(dt)
			}
			c.stats.NewtonIters++
			for i, v := range c.r0 {
				nl.b[i] = -v
			}
			if err := nl.solve(rn, c.stats); err != nil {
				if nl.stale() {
					nl.valid = false
					continue
				}
				return nl.linearError(c.name, t1, dt, it, err)
			}
			dxScale, dx = nl.step()
		}
		dmax, xmax := update(x, x, dxScale, dx)
		if nl.krylv {
			nl.prevDx, dxNorm = dxNorm, dmax
		}
		if dmax <= c.c.newtonTol*(1+xmax) {
			converged = true
			break
		}
	}
	if !converged {
		return &StepError{Method: c.name, Status: NewtonFailure, T: t1, Dt: dt, Index: -1, Iter: it, Residual: nl.lastRes,
			Detail: fmt.Sprintf("no convergence within %d iterations (NewtonTol %g)", c.c.newtonMaxIter, c.c.newtonTol)}
	}
	c.kinematics(dt, q0, v0, a0, x)
	if c.nz > 0 {
		// Carried extra rates come from the final endpoint evaluation.
		if err := c.accel(t1, dt, c.q1, c.v1, c.z1, c.aE, c.g1); err != nil {
			return err
		}
	}
	for _, list := range [][]float64{c.q1, c.v1, c.a1} {
		if i := firstNonFinite(list); i >= 0 {
			return &StepError{Method: c.name, Status: NonFinite, T: t1, Dt: dt, Index: i}
		}
	}
	for _, list := range [][]float64{c.z1, c.g1} {
		if i := firstNonFinite(list); i >= 0 {
			return &StepError{Method: c.name, Status: NonFinite, T: t1, Dt: dt, Index: nq + i}
		}
	}
	nl.endStep()
	return nil
}

// denseMatrix writes the Newton matrix ∂R/∂x at x (after residual at x)
// into ls.jd: from the acceleration Jacobian when nz == 0, by forward
// differences of the residual otherwise.
func (c *alphaCore) denseMatrix(dt float64, x []float64) error {
	nq, n, p, ls := c.nq, c.nq+c.nz, c.p, c.ls
	if c.nz == 0 && c.jacFn != nil {
		if err := c.jacFn(c.tw, c.qw, c.vw, c.zw, c.dadq, c.dadv); err != nil {
			return &StepError{Method: c.name, Status: Failure, T: c.tw, Dt: dt, Index: -1, Err: err}
		}
		kq := (1 - p.AlphaF) * p.Beta * dt * dt
		kv := (1 - p.AlphaF) * p.Gamma * dt
		for i := 0; i < nq; i++ {
			for j := 0; j < nq; j++ {
				ls.jd[i*nq+j] = -kq*c.dadq[i*nq+j] - kv*c.dadv[i*nq+j]
			}
			ls.jd[i*nq+i] += 1 - p.AlphaM
		}
		return nil
	}
	copy(c.xp, x)
	for j := 0; j < n; j++ {
		h := fdStep(x[j])
		c.xp[j] = x[j] + h
		h = c.xp[j] - x[j]
		if err := c.residual(c.t0, c.t1, c.dt, c.q0, c.v0, c.z0, c.a0, c.g0, c.xp, c.rp); err != nil {
			return err
		}
		c.xp[j] = x[j]
		for i := 0; i < n; i++ {
			ls.jd[i*n+j] = (c.rp[i] - c.r0[i]) / h
		}
	}
	return nil
}

// State is a second-order state at time T. Q and V have length nq, Z
// length nz.
type State struct {
	T       float64
	Q, V, Z []float64
}

// MemoryEntry is one accepted point of a second-order trajectory: the
// state, the algorithmic acceleration carried to the next step, the rate
// of the extra quantities from the final endpoint evaluation, and the
// method's identity and layout, used to reject foreign histories.
type MemoryEntry struct {
	State
	Clock  Clock     // time from step count; State.T == Clock.Now()
	A      []float64 // algorithmic acceleration (len nq)
	ZDot   []float64 // z' at the state (len nz)
	Method string    // MethodNewmark or MethodGeneralizedAlpha
	AlphaParams
	NQ, NZ int
	IDs    []int64 // DriverOptions.IDs of the stepper that wrote the entry
}

// Memory is the memory of a second-order trajectory. The zero Memory
// is empty: the next step starts from the physical acceleration
// a(t, q, v, z). The one-step schemes here need only the latest entry.
type Memory struct {
	Latest *MemoryEntry
}

// Empty reports whether h has no entry.
func (h Memory) Empty() bool { return h.Latest == nil }

// SecondOrderStepper runs Newmark or generalized-alpha on a SecondOrder
// system. It is a parameterized fixed-step runner: each Advance call takes
// the accepted state and Memory of the previous call and returns the
// next. It has no error estimator, dense output or event localization.
//
// A SecondOrderStepper is not safe for concurrent use; distinct ones are.
type SecondOrderStepper struct {
	m     methodInfo
	core  *alphaCore
	ids   []int64
	stats Work
	a0    []float64
	g0    []float64
}

// NewSecondOrder returns a SecondOrderStepper of Newmark for sys.
// DriverOptions.Output and MaxSteps do not apply (ErrNotApplicable).
func (m Newmark) NewSecondOrder(sys SecondOrder, o *DriverOptions) (*SecondOrderStepper, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	return newSecondOrder(m.info(), m.Newton, m.Linear, sys, o)
}

// NewSecondOrder returns a SecondOrderStepper of generalized-alpha for
// sys. DriverOptions.Output and MaxSteps do not apply (ErrNotApplicable).
func (m GeneralizedAlpha) NewSecondOrder(sys SecondOrder, o *DriverOptions) (*SecondOrderStepper, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	return newSecondOrder(m.info(), m.Newton, m.Linear, sys, o)
}

func newSecondOrder(m methodInfo, n NewtonOptions, l LinearOptions, sys SecondOrder, o *DriverOptions) (*SecondOrderStepper, error) {
	if err := checkFixedStep(o, m.Name+" (on a SecondOrder system)"); err != nil {
		return nil, err
	}
	s := o.settings()
	s.setSolver(n, l)
	c := resolve(s)
	if err := c.checkLinear(); err != nil {
		return nil, err
	}
	r := &SecondOrderStepper{m: m, ids: c.ids}
	r.core = newAlphaCore(m, sys, c, &r.stats)
	r.core.initLinear(false, nil, nil)
	r.a0 = make([]float64, r.core.nq)
	r.g0 = make([]float64, r.core.nz)
	return r, nil
}

// Method returns the method name.
func (r *SecondOrderStepper) Method() string { return r.m.Name }

// Order returns the declared order, 2.
func (r *SecondOrderStepper) Order() int { return r.m.Order }

// Params returns the method parameters.
func (r *SecondOrderStepper) Params() AlphaParams { return r.m.Alpha }

// Work returns the work done over the life of r.
func (r *SecondOrderStepper) Work() Work { return r.stats }

func (r *SecondOrderStepper) checkHistory(st State, e *MemoryEntry) error {
	p := r.m.Alpha
	nq, nz := r.core.nq, r.core.nz
	switch {
	case e.Method != r.m.Name:
		return &StateMismatchError{Field: "method", Want: r.m.Name, Got: e.Method}
	case e.RhoInf != p.RhoInf:
		return &StateMismatchError{Field: "rho_inf", Want: fmtF(p.RhoInf), Got: fmtF(e.RhoInf)}
	case e.Beta != p.Beta:
		return &StateMismatchError{Field: "beta", Want: fmtF(p.Beta), Got: fmtF(e.Beta)}
	case e.Gamma != p.Gamma:
		return &StateMismatchError{Field: "gamma", Want: fmtF(p.Gamma), Got: fmtF(e.Gamma)}
	case e.AlphaM != p.AlphaM:
		return &StateMismatchError{Field: "alpha_m", Want: fmtF(p.AlphaM), Got: fmtF(e.AlphaM)}
	case e.AlphaF != p.AlphaF:
		return &StateMismatchError{Field: "alpha_f", Want: fmtF(p.AlphaF), Got: fmtF(e.AlphaF)}
	case e.NQ != nq || len(e.A) != nq:
		return &StateMismatchError{Field: "nq", Want: fmt.Sprint(nq), Got: fmt.Sprint(e.NQ)}
	case e.NZ != nz || len(e.ZDot) != nz:
		return &StateMismatchError{Field: "nz", Want: fmt.Sprint(nz), Got: fmt.Sprint(e.NZ)}
	case !slices.Equal(e.IDs, r.ids):
		return &StateMismatchError{Field: "ids", Want: fmt.Sprint(r.ids), Got: fmt.Sprint(e.IDs)}
	case e.T != st.T:
		return &StateMismatchError{Field: "time", Want: fmtF(st.T), Got: fmtF(e.T)}
	}
	return nil
}

// Advance takes one step of size dt > 0 from st.
//
// If h is empty, the step starts from the physical acceleration at st
// (one extra evaluation). Otherwise h.Latest must come from a stepper
// with the same method, parameters, layout (nq, nz, IDs) and time st.T;
// a mismatch returns a *StateMismatchError naming the field, wrapping
// ErrStateMismatch, with Status StateMismatch. The carried
// acceleration does not depend on dt, so a shorter step (for example to
// land on an output time) keeps it.
//
// On success the Outcome's Memory.Latest holds the new state (fresh
// slices) and the Outcome's Work the work of this call. On failure
// (Newton non-convergence, non-finite values, user error) the returned
// error is a *StepError, Status says why, and neither st nor h is
// touched: the caller still holds the accepted state and Memory.
func (r *SecondOrderStepper) Advance(st State, h Memory, dt float64) (Outcome, error) {
	checkStep(dt)
	nq, nz := r.core.nq, r.core.nz
	if len(st.Q) != nq || len(st.V) != nq || len(st.Z) != nz {
		panic(fmt.Sprintf("integrators: Advance: state lengths (%d, %d, %d), want (%d, %d, %d)",
			len(st.Q), len(st.V), len(st.Z), nq, nq, nz))
	}
	before := r.stats
	fail := func(err error) (Outcome, error) {
		if se, ok := err.(*StepError); ok && se.Step == 0 {
			se.Step = r.stats.Steps + 1
		}
		r.stats.Rejected++
		return Outcome{Status: TerminationOf(err), Work: r.stats.Sub(before), T: st.T}, err
	}
	clk := Clock{Base: st.T}
	if e := h.Latest; e != nil {
		if err := r.checkHistory(st, e); err != nil {
			return Outcome{Status: StateMismatch, T: st.T}, err
		}
		copy(r.a0, e.A)
		copy(r.g0, e.ZDot)
		if e.Clock.Now() == st.T {
			clk = e.Clock
		}
	} else if err := r.core.physical(st.T, st.Q, st.V, st.Z, r.a0, r.g0); err != nil {
		return fail(err)
	}
	nc := clk.next(dt)
	t1 := nc.Now()
	if err := r.core.step(st.T, t1, dt, st.Q, st.V, st.Z, r.a0, r.g0); err != nil {
		return fail(err)
	}
	r.stats.Steps++
	c := r.core
	e := &MemoryEntry{
		State:  State{T: t1, Q: cloneF(c.q1), V: cloneF(c.v1), Z: cloneF(c.z1)},
		Clock:  nc,
		A:      cloneF(c.a1),
		ZDot:   cloneF(c.g1),
		Method: r.m.Name, AlphaParams: r.m.Alpha,
		NQ: nq, NZ: nz, IDs: slices.Clone(r.ids),
	}
	return Outcome{Status: Success, Work: r.stats.Sub(before), T: t1, Memory: Memory{Latest: e}}, nil
}

// partAdapter presents a Partitioned first-order System as SecondOrder:
// q = y[pos], v = y[vel], z = the other components.
type partAdapter struct {
	sys             System
	n               int
	pos, vel, other []int
	y, f, jd        []float64
	jac             Jacobian
}

func (p *partAdapter) Dims() (int, int) { return len(p.pos), len(p.other) }

func (p *partAdapter) scatter(q, v, z []float64) {
	for i, k := range p.pos {
		p.y[k] = q[i]
	}
	for i, k := range p.vel {
		p.y[k] = v[i]
	}
	for i, k := range p.other {
		p.y[k] = z[i]
	}
}

func (p *partAdapter) Accel(t float64, q, v, z, a, zdot []float64) error {
	p.scatter(q, v, z)
	if err := p.sys.Func(t, p.y, p.f); err != nil {
		return err
	}
	for i, k := range p.pos {
		if !rateMatches(p.f[k], v[i]) {
			return &StepError{Status: NotPartitioned, T: t, Index: i}
		}
	}
	for i, k := range p.vel {
		a[i] = p.f[k]
	}
	for i, k := range p.other {
		zdot[i] = p.f[k]
	}
	return nil
}

func (p *partAdapter) accelJac(t float64, q, v, z, dadq, dadv []float64) error {
	p.scatter(q, v, z)
	if err := p.jac.Jacobian(t, p.y, p.jd); err != nil {
		return err
	}
	nq, n := len(p.pos), p.n
	for i, vi := range p.vel {
		for j := 0; j < nq; j++ {
			dadq[i*nq+j] = p.jd[vi*n+p.pos[j]]
			dadv[i*nq+j] = p.jd[vi*n+p.vel[j]]
		}
	}
	return nil
}

// alphaFirst runs a Newmark-family method on a Partitioned first-order
// System through the Stepper interface.
type alphaFirst struct {
	m    methodInfo
	ad   *partAdapter
	core *alphaCore
	n    int
	ids  []int64

	init          bool
	haveA         bool
	clk           Clock
	y             []float64
	q, v, z, a, g []float64
	stats         Work
}

func newAlphaFirstOrder(m methodInfo, sys System, c conf) (*alphaFirst, error) {
	p, err := pairsOf(sys, c, m.Name)
	if err != nil {
		return nil, err
	}
	n := sys.Dim()
	pos, vel, other, err := checkPairs(p, n)
	if err != nil {
		return nil, err
	}
	ad := &partAdapter{sys: sys, n: n, pos: pos, vel: vel, other: other, y: make([]float64, n), f: make([]float64, n)}
	s := &alphaFirst{m: m, ad: ad, n: n, ids: c.ids, y: make([]float64, n)}
	s.core = newAlphaCore(m, ad, c, &s.stats)
	nq, nz := len(pos), len(other)
	var blockOf []int
	krylov := c.useKrylov(nq + nz)
	if krylov {
		if !c.matrixFree || c.pc != PrecondNone {
			src, err := newJacRows(sys, n)
			if err != nil {
				return nil, err
			}
			if src != nil {
				s.core.sp = newAlphaSparse(ad, src)
			}
		}
		of, err := blocksOf(sys, n)
		if err != nil {
			return nil, err
		}
		if of != nil {
			blockOf = make([]int, nq+nz)
			for i, k := range vel {
				blockOf[i] = of[k]
			}
			for i, k := range other {
				blockOf[nq+i] = of[k]
			}
		}
	}
	// The dense acceleration Jacobian is only for the dense solver (or
	// GMRES on a System without SparseJacobian): n² memory.
	if j, ok := sys.(Jacobian); ok && (!krylov || s.core.sp == nil && (!c.matrixFree || c.pc != PrecondNone)) {
		ad.jac = j
		ad.jd = make([]float64, n*n)
		s.core.jacFn = ad.accelJac
		s.core.dadq = make([]float64, len(pos)*len(pos))
		s.core.dadv = make([]float64, len(pos)*len(pos))
	}
	var name func(int) string
	if cn, ok := sys.(componentNamer); ok {
		name = func(i int) string {
			if i < nq {
				return cn.Component(vel[i])
			}
			return cn.Component(other[i-nq])
		}
	}
	s.core.initLinear(s.core.sp != nil, blockOf, name)
	s.core.nl.crossStep = s.core.sp != nil
	s.q, s.v, s.a = make([]float64, nq), make([]float64, nq), make([]float64, nq)
	s.z, s.g = make([]float64, nz), make([]float64, nz)
	return s, nil
}

// Method, Order, Work and State implement Stepper.
func (s *alphaFirst) Method() string              { return s.m.Name }
func (s *alphaFirst) Order() int                  { return s.m.Order }
func (s *alphaFirst) Work() Work                  { return s.stats }
func (s *alphaFirst) State() (float64, []float64) { return s.clk.Now(), s.y }

func (s *alphaFirst) gather() {
	for i, k := range s.ad.pos {
		s.q[i] = s.y[k]
	}
	for i, k := range s.ad.vel {
		s.v[i] = s.y[k]
	}
	for i, k := range s.ad.other {
		s.z[i] = s.y[k]
	}
}

// Init implements Stepper.
func (s *alphaFirst) Init(t0 float64, y0 []float64) error {
	if len(y0) != s.n {
		panic(fmt.Sprintf("integrators: Init: len(y0) = %d, Dim = %d", len(y0), s.n))
	}
	if i := firstNonFinite(y0); i >= 0 {
		return &StepError{Method: s.m.Name, Status: NonFinite, T: t0, Index: i}
	}
	copy(s.y, y0)
	s.gather()
	s.clk = Clock{Base: t0}
	s.haveA = false
	s.core.nl.valid = false
	s.stats = Work{}
	s.init = true
	return nil
}

// Step implements Stepper.
func (s *alphaFirst) Step(dt float64) error {
	if !s.init {
		panic("integrators: Step before Init")
	}
	checkStep(dt)
	err := s.step(dt)
	if se, ok := err.(*StepError); ok && se.Step == 0 {
		se.Step = s.stats.Steps + 1
	}
	return err
}

func (s *alphaFirst) step(dt float64) error {
	t := s.clk.Now()
	if !s.haveA {
		if err := s.core.physical(t, s.q, s.v, s.z, s.a, s.g); err != nil {
			s.stats.Rejected++
			return err
		}
		s.haveA = true
	}
	nc := s.clk.next(dt)
	if err := s.core.step(t, nc.Now(), dt, s.q, s.v, s.z, s.a, s.g); err != nil {
		s.stats.Rejected++
		return err
	}
	c := s.core
	copy(s.q, c.q1)
	copy(s.v, c.v1)
	copy(s.z, c.z1)
	copy(s.a, c.a1)
	copy(s.g, c.g1)
	s.ad.scatter(s.q, s.v, s.z)
	copy(s.y, s.ad.y)
	s.clk = nc
	s.stats.Steps++
	return nil
}

// Checkpoint implements Checkpointer.
func (s *alphaFirst) Checkpoint() StepperState {
	c := StepperState{Method: s.m.Name, Alpha: s.m.Alpha, IDs: slices.Clone(s.ids), Dim: s.n, Clock: s.clk,
		T: s.clk.Now(), Y: cloneF(s.y), Work: s.stats}
	if s.haveA {
		c.A, c.ZDot = cloneF(s.a), cloneF(s.g)
	}
	if nl := s.core.nl; nl.crossStep && nl.valid {
		p := s.core.sp.pt
		p.Y, p.YE, p.Age = cloneF(p.Y), cloneF(p.YE), nl.age
		c.Jac = &p
	}
	return c
}

// Restore implements Checkpointer.
func (s *alphaFirst) Restore(c StepperState) error {
	if err := c.check(s.m.Name, s.n, true); err != nil {
		return err
	}
	if c.Alpha != s.m.Alpha {
		return &StateMismatchError{Field: "parameters", Want: fmt.Sprintf("%+v", s.m.Alpha), Got: fmt.Sprintf("%+v", c.Alpha)}
	}
	if !slices.Equal(c.IDs, s.ids) {
		return &StateMismatchError{Field: "ids", Want: fmt.Sprint(s.ids), Got: fmt.Sprint(c.IDs)}
	}
	if c.A != nil && (len(c.A) != len(s.a) || len(c.ZDot) != len(s.g)) {
		return &StateMismatchError{Field: "nq", Want: fmt.Sprint(len(s.a)), Got: fmt.Sprint(len(c.A))}
	}
	copy(s.y, c.Y)
	s.gather()
	s.clk = c.Clock
	s.stats = c.Work
	s.haveA = c.A != nil
	if s.haveA {
		copy(s.a, c.A)
		copy(s.g, c.ZDot)
	}
	nl := s.core.nl
	nl.valid = false
	if p := c.Jac; p != nil && nl.crossStep {
		// Re-assemble the reused matrix where it was (not counted as
		// work: it restores memory).
		m := s.core.sp
		if len(p.Y) != s.n || len(p.YE) != len(m.pt.YE) {
			return &StateMismatchError{Field: "jacobian point", Want: fmt.Sprint(s.n), Got: fmt.Sprint(len(p.Y))}
		}
		copy(m.pt.Y, p.Y)
		copy(m.pt.YE, p.YE)
		m.pt.T, m.pt.TE, m.pt.Dt = p.T, p.TE, p.Dt
		st := s.stats
		err := s.core.sparseAt()
		if err == nil {
			err = nl.setupPC(&st)
		}
		if err != nil {
			return fmt.Errorf("integrators: restoring the Newton matrix: %w", err)
		}
		nl.matrixDone(p.Dt)
		nl.fresh, nl.age = false, p.Age
	}
	s.init = true
	return nil
}
