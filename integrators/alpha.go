package integrators

import (
	"errors"
	"fmt"
)

// The Newmark family's step (alphaCore): unknowns, residual and the
// Newton iteration shared by SecondOrderStepper (alpha_secondorder.go)
// and the first-order Stepper (alpha_firstorder.go); its linear algebra
// is in alpha_linear.go.

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
	// comp maps a position in one of the lists above to the component a
	// StepError names (see component); nil for a SecondOrder system.
	comp func(list, i int) int
	ls   *linSolver // dense LU, or GMRES's dense staging; nil otherwise
	nl   *newtonLinear
	sp   *alphaSparse // sparse assembly from a first-order SparseJacobian, or nil
	div  divergence

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

// The core's lists, for the component a StepError names.
const (
	listQ = iota // positions q
	listV        // velocities v
	listA        // accelerations a, the velocities' rates
	listZ        // extra quantities z and their rates g
)

// component is the component a StepError names for position i of a
// list: c.comp's answer when set (a first-order System's own component:
// the alpha stepper of a Partitioned System sets it), else the
// SecondOrder coordinate — i for q, v and a, nq+i for z and g.
func (c *alphaCore) component(list, i int) int {
	if c.comp != nil {
		return c.comp(list, i)
	}
	if list == listZ {
		return c.nq + i
	}
	return i
}

// rowComponent is component for row i of the Newton unknowns x = [a, z]
// (a residual or a row of the Newton matrix).
func (c *alphaCore) rowComponent(i int) int {
	if i < c.nq {
		return c.component(listA, i)
	}
	return c.component(listZ, i-c.nq)
}

// physical writes the physical acceleration and extra rates at a state.
func (c *alphaCore) physical(t float64, q, v, z, a, g []float64) error {
	if err := c.accel(t, 0, q, v, z, a, g); err != nil {
		return err
	}
	if i := firstNonFinite(a); i >= 0 {
		return &StepError{Method: c.name, Status: NonFinite, T: t, Index: c.component(listA, i)}
	}
	if i := firstNonFinite(g); i >= 0 {
		return &StepError{Method: c.name, Status: NonFinite, T: t, Index: c.component(listZ, i)}
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
			return &StepError{Method: c.name, Status: NonFinite, T: t1, Dt: dt, Index: c.rowComponent(firstNonFinite(c.r0)), Iter: it}
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
	for k, list := range [][]float64{c.q1, c.v1, c.a1, c.z1, c.g1} {
		if i := firstNonFinite(list); i >= 0 {
			return &StepError{Method: c.name, Status: NonFinite, T: t1, Dt: dt, Index: c.component(min(k, listZ), i)}
		}
	}
	nl.endStep()
	return nil
}
