package graph

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/integrators"
)

// This file is the numerical part of the stability analysis
// (stability.go): trial steps of a scheme or a monolithic method from a
// perturbed state, the dense amplification matrix they give, and the
// matrix-free spectral-radius estimate by restarted Arnoldi.

// stepFn steps the state x by dt with the analysed scheme, from the
// analysed time, and writes the state after the step into out. It
// reports an iterated group that did not reach its fixed point.
type stepFn func(x []float64, dt float64, out []float64) (notConverged bool, err error)

// amplifier computes amplification operators of a Sim by trial steps. It
// saves everything a step changes and restores it.
type amplifier struct {
	s    *Sim
	n    int
	plan checkPlan
	// saved
	x                  []float64
	t                  float64 // the time linearised at
	t0, dt             float64
	n0, steps, replays int
	yFresh             bool
	cplan, cmem        *coupledPlan
	onGroupStep        func(GroupStep)
	// work
	scale      []float64 // max(‖x‖∞, 1): the matrix-free perturbation's scale
	g          []float64 // the dense matrix, row-major
	xq, yp, ym []float64
	trials     int   // trial steps taken (cost measurements)
	iters      int64 // group iterations of those trial steps (cost measurements)
	// The physical growth rate (growth): grow, whether it is known, and
	// whether it comes from the dense Jacobian (exact up to rounding)
	// rather than an Arnoldi estimate.
	grow                 float64
	growKnown, growDense bool
	// noNewton keeps the strategy's own accelerator (IQN-ILS at
	// analysisIteration) in iterated groups instead of newtonAccel
	// (tests comparing the two).
	noNewton bool
	// searching marks the bisection for the largest stable step
	// (maxStableDt), which escalates to the dense radius only up to
	// DenseSearchStates values.
	searching bool
}

func newAmplifier(s *Sim) *amplifier {
	a := &amplifier{s: s, n: len(s.state), plan: fullPlan(len(s.state), bySize)}
	a.x = slices.Clone(s.state)
	a.t = s.Time()
	a.t0, a.dt, a.n0, a.steps, a.replays, a.yFresh = s.t0, s.dt, s.n, s.steps, s.replays, s.outputsFresh
	a.cplan, a.cmem, a.onGroupStep = s.plan, s.lastPlan, s.onGroupStep
	s.onGroupStep = nil
	a.scale = make([]float64, a.n)
	c := max(floats.Norm(a.x, math.Inf(1)), 1)
	for i := range a.x {
		a.scale[i] = c
	}
	a.xq, a.yp, a.ym = make([]float64, a.n), make([]float64, a.n), make([]float64, a.n)
	return a
}

func (a *amplifier) restore() {
	s := a.s
	copy(s.state, a.x)
	s.t0, s.dt, s.n, s.steps, s.replays, s.outputsFresh = a.t0, a.dt, a.n0, a.steps, a.replays, false
	s.plan, s.lastPlan, s.onGroupStep = a.cplan, a.cmem, a.onGroupStep
}

// schemeStep returns the trial step of the coupling strategy st (nil or
// Jacobi without rates: the default path). Gauss–Seidel and multirate
// plans carry nothing from one step to the next; an iterated group's
// memory (IQN-ILS columns of past steps are not kept: Reuse is 0)
// changes only the first iterate, not the fixed point the analysis
// iterates to.
func (a *amplifier) schemeStep(st *coupling.Strategy) (stepFn, error) {
	var p *coupledPlan
	if needsPlan(st) {
		var err error
		if p, err = a.s.compileCoupling(st); err != nil {
			return nil, err
		}
		if p.kind == planIterative && !a.noNewton {
			for _, g := range p.groups {
				if m := len(g.u); m > 0 && m <= NewtonInterface {
					g.acc = newNewtonAccel(a, p, g)
				}
			}
		}
	}
	step := func(x []float64, dt float64, out []float64) (notConverged bool, err error) {
		s := a.s
		a.trials++
		copy(s.state, x)
		s.t0, s.n, s.dt, s.outputsFresh, s.plan = a.t, 0, dt, false, p
		var res Result
		if p != nil {
			for _, g := range p.groups {
				g.stats.NonConverged = 0
			}
		}
		err = s.step(a.t, dt, &res)
		if p != nil {
			for _, g := range p.groups {
				m := 1.0
				for _, v := range g.u {
					m = max(m, math.Abs(v))
				}
				a.iters += int64(g.stats.LastIterations)
				if g.stats.NonConverged > 0 && !(g.stats.LastResidual <= analysisResidual*m) {
					notConverged = true
				}
			}
		}
		s.plan = nil
		copy(out, s.state)
		return notConverged, err
	}
	return step, nil
}

// needsPlan reports whether a trial step of st needs a compiled coupled
// plan: every strategy but Jacobi without rates (the default path).
func needsPlan(st *coupling.Strategy) bool {
	return st != nil && (st.Scheme != coupling.Jacobi && st.Scheme != "" || len(st.Rates) > 0)
}

// monoStep returns the trial step of a fixed-step monolithic method on
// the graph's System: a stepper of its own, initialised at the perturbed
// state and stepped once.
func (a *amplifier) monoStep(method integrators.Method, opts *integrators.DriverOptions) (stepFn, error) {
	sys, err := a.s.System()
	if err != nil {
		return nil, err
	}
	st, err := integrators.NewStepper(method, sys, opts)
	if err != nil {
		return nil, err
	}
	return func(x []float64, dt float64, out []float64) (bool, error) {
		a.trials++
		if err := st.Init(a.t, x); err != nil {
			return false, err
		}
		if err := st.Step(dt); err != nil {
			return false, err
		}
		_, y := st.State()
		copy(out, y)
		return false, nil
	}, nil
}

// growth computes max Re λ(∂f/∂x) at the saved state into a.grow
// (a.growKnown false without a monolithic view) and returns it. Up to
// DenseStabilityStates values (or when the dense method is forced) from
// the dense Jacobian's eigenvalues; above, the largest real part of the
// Ritz values of one Arnoldi cycle on the Jacobian applied by central
// differences of f (an estimate, which can be positive for a system
// whose true rate is 0: denseGrowth replaces it when a decision
// depends on it).
func (a *amplifier) growth() (float64, bool) {
	a.grow, a.growKnown, a.growDense = 0, false, false
	sys, err := a.s.System()
	if err != nil {
		return 0, false
	}
	defer func() { a.s.outputsFresh = false }()
	if a.dense() {
		a.grow, a.growKnown = a.jacobianGrowth(sys)
		a.growDense = a.growKnown
		return a.grow, a.growKnown
	}
	op := func(v, out []float64) (bool, error) {
		eps := stabilityRel / normInf(v)
		for i := range a.x {
			a.xq[i] = a.x[i] + eps*a.scale[i]*v[i]
		}
		if err := sys.Func(a.t, a.xq, a.yp); err != nil {
			return false, err
		}
		for i := range a.x {
			a.xq[i] = a.x[i] - eps*a.scale[i]*v[i]
		}
		if err := sys.Func(a.t, a.xq, a.ym); err != nil {
			return false, err
		}
		for i := range out {
			out[i] = (a.yp[i] - a.ym[i]) / (2 * eps * a.scale[i])
		}
		return false, nil
	}
	k := newKrylov(a.n, a.plan.dim)
	if _, err := k.run(op, 1); err != nil || len(k.ritz) == 0 {
		return 0, false
	}
	g := math.Inf(-1)
	for _, v := range k.ritz {
		g = max(g, real(v))
	}
	a.grow, a.growKnown = g, true
	return g, true
}

// denseGrowth replaces an estimated growth rate by the dense Jacobian's
// (the escalation of decide); it keeps the estimate when the Jacobian
// or its eigenvalues fail.
func (a *amplifier) denseGrowth() {
	if a.growDense || !a.growKnown {
		return
	}
	sys, err := a.s.System()
	if err != nil {
		return
	}
	defer func() { a.s.outputsFresh = false }()
	if g, ok := a.jacobianGrowth(sys); ok {
		a.grow, a.growDense = g, true
	}
}

// jacobianGrowth is the largest real part of the eigenvalues of the
// System's dense Jacobian at the saved state.
func (a *amplifier) jacobianGrowth(sys *System) (float64, bool) {
	g := a.matrixBuf()
	if err := sys.Jacobian(a.t, a.x, g); err != nil {
		return 0, false
	}
	ev, ok := eigenvalues(a.n, g)
	if !ok || len(ev) == 0 {
		return 0, false
	}
	r := math.Inf(-1)
	for _, v := range ev {
		r = max(r, real(v))
	}
	return r, true
}

// bound is the radius a stable scheme may reach at dt under the growth
// rate known so far (StabilityAnalysis.Bound).
func (a *amplifier) bound(dt float64) float64 { return growthBound(a.grow, dt) }

// dense reports whether the radius is computed from the dense matrix.
func (a *amplifier) dense() bool { return a.plan.dense }

func (a *amplifier) matrixBuf() []float64 {
	if a.g == nil {
		a.g = make([]float64, a.n*a.n)
	}
	return a.g
}

// normInf is max |v_i| (a NaN entry propagates through the trial step
// regardless of the norm).
func normInf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		if a := math.Abs(x); a > m {
			m = a
		}
	}
	return m
}

// eigenvalues of the n×n row-major matrix m.
func eigenvalues(n int, m []float64) ([]complex128, bool) {
	var e mat.Eigen
	if !e.Factorize(mat.NewDense(n, n, m), mat.EigenNone) {
		return nil, false
	}
	return e.Values(nil), true
}

// matrix computes the amplification matrix of the step f at dt into a.g
// (row-major) by central differences along each unit vector.
func (a *amplifier) matrix(f stepFn, dt float64) (notConverged bool, err error) {
	n := a.n
	g := a.matrixBuf()
	for j := 0; j < n; j++ {
		h := stabilityRel * max(math.Abs(a.x[j]), 1)
		copy(a.xq, a.x)
		up, down := a.x[j]+h, a.x[j]-h
		a.xq[j] = up
		nc, err := f(a.xq, dt, a.yp)
		if err != nil {
			return false, err
		}
		notConverged = notConverged || nc
		a.xq[j] = down
		nc, err = f(a.xq, dt, a.ym)
		if err != nil {
			return false, err
		}
		notConverged = notConverged || nc
		w := up - down
		for i := 0; i < n; i++ {
			g[i*n+j] = (a.yp[i] - a.ym[i]) / w
		}
	}
	return notConverged, nil
}

// apply writes D⁻¹AD·v into out, A the step's amplification operator at
// dt and D the scales: two trial steps from x ± ε·D·v.
func (a *amplifier) apply(f stepFn, dt float64, v, out []float64) (bool, error) {
	eps := stabilityRel / normInf(v)
	for i := range a.x {
		a.xq[i] = a.x[i] + eps*a.scale[i]*v[i]
	}
	nc1, err := f(a.xq, dt, a.yp)
	if err != nil {
		return false, err
	}
	for i := range a.x {
		a.xq[i] = a.x[i] - eps*a.scale[i]*v[i]
	}
	nc2, err := f(a.xq, dt, a.ym)
	if err != nil {
		return false, err
	}
	for i := range out {
		out[i] = (a.yp[i] - a.ym[i]) / (2 * eps * a.scale[i])
	}
	return nc1 || nc2, nil
}

// radius fills sc.Radius (and Estimated, Residual, Note) with the
// spectral radius of the step f at dt: dense or matrix-free as the plan
// says (see the top of stability.go).
func (a *amplifier) radius(f stepFn, dt float64, sc *SchemeStability) error {
	if a.dense() {
		return a.denseRadius(f, dt, sc)
	}
	sc.Estimated, sc.Residual, sc.Note, sc.notConverged = false, 0, "", false
	k := newKrylov(a.n, a.plan.dim)
	op := func(v, out []float64) (bool, error) { return a.apply(f, dt, v, out) }
	nc, err := k.run(op, a.plan.cycles)
	switch {
	case err != nil:
		return err
	case nc:
		sc.Radius, sc.Note, sc.notConverged = math.Inf(1), "its group iteration does not converge at this step", true
	case k.failed:
		sc.Radius, sc.Note = math.Inf(1), "the eigenvalue computation did not converge"
	default:
		sc.Radius, sc.Estimated, sc.Residual = cmplx.Abs(k.best), true, k.resid
	}
	return nil
}

// denseRadius fills sc with the spectral radius of the dense
// amplification matrix of f at dt (2n trial steps, mat.Eigen): exact up
// to rounding.
func (a *amplifier) denseRadius(f stepFn, dt float64, sc *SchemeStability) error {
	sc.Estimated, sc.Residual, sc.Note, sc.notConverged = false, 0, "", false
	nc, err := a.matrix(f, dt)
	switch {
	case err != nil:
		return err
	case nc:
		sc.Radius, sc.Note, sc.notConverged = math.Inf(1), "its group iteration does not converge at this step", true
		return nil
	}
	ev, ok := eigenvalues(a.n, a.g)
	if !ok {
		sc.Radius, sc.Note = math.Inf(1), "the eigenvalue computation did not converge"
		return nil
	}
	r := 0.0
	for _, v := range ev {
		r = max(r, cmplx.Abs(v))
	}
	sc.Radius = r
	return nil
}

// decide fills sc with the radius of the step f at dt and whether it is
// stable under the bound. A matrix-free estimate that neither converged
// (Ritz residual above krylovTol relative) nor certifies instability
// (exceeds the bound by more than CertifyFactor residuals) is replaced
// by the dense radius when the plan allows it (checkPlan.escalate; in
// the bisection of maxStableDt only up to DenseSearchStates values):
// the eigenvalues of undamped oscillators cluster on the unit circle,
// where Arnoldi converges too slowly to tell a growth of 10⁻⁶ per step
// from none, while the dense eigenvalues tell it to rounding. When the
// dense radius exceeds 1 the growth rate is made exact too (denseGrowth),
// so that the bound it is compared with is not an estimate.
func (a *amplifier) decide(f stepFn, dt float64, sc *SchemeStability) error {
	if err := a.radius(f, dt, sc); err != nil {
		return err
	}
	sc.Stable = sc.stableUnder(a.bound(dt))
	if !sc.undecided() || !a.plan.escalate || a.searching && a.n > DenseSearchStates {
		return nil
	}
	if err := a.denseRadius(f, dt, sc); err != nil {
		return err
	}
	sc.Escalated = true
	if sc.Radius > 1+StabilityTol {
		a.denseGrowth()
	}
	sc.Stable = sc.stableUnder(a.bound(dt))
	return nil
}

// stableAt reports whether the step f is stable at dt.
func (a *amplifier) stableAt(f stepFn, dt float64) bool {
	var sc SchemeStability
	err := a.decide(f, dt, &sc)
	return err == nil && sc.Stable
}

// maxStableDt bisects for the largest stable step of f, starting from
// dt, whose stability is known.
func (a *amplifier) maxStableDt(f stepFn, dt float64, stable bool) (float64, bool) {
	a.searching = true
	defer func() { a.searching = false }()
	lo, hi := 0.0, 0.0
	if stable {
		lo = dt
		for k := 0; k < 10; k++ {
			if !a.stableAt(f, 2*lo) {
				hi = 2 * lo
				break
			}
			lo *= 2
		}
		if hi == 0 {
			return lo, true
		}
	} else {
		hi = dt
		for k := 0; k < 20; k++ {
			if a.stableAt(f, hi/2) {
				lo = hi / 2
				break
			}
			hi /= 2
		}
		if lo == 0 {
			return 0, false
		}
	}
	for hi-lo > 1e-3*hi {
		mid := (lo + hi) / 2
		if a.stableAt(f, mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, false
}

// krylov is a restarted Arnoldi iteration for the eigenvalue of largest
// modulus of an operator given by its action.
type krylov struct {
	n, m   int
	v      [][]float64 // m+1 orthonormal basis vectors
	h      []float64   // (m+1)×m Hessenberg matrix, row-major
	w, u   []float64
	ritz   []complex128 // the last cycle's Ritz values
	best   complex128   // the Ritz value of largest modulus
	resid  float64      // its Ritz residual
	failed bool         // the Hessenberg eigenvalues did not converge
}

// restartVecs is the number of leading Ritz vectors a restart sums.
const restartVecs = 1

// newKrylov prepares an Arnoldi iteration of dimension min(dim, n).
func newKrylov(n, dim int) *krylov {
	m := min(dim, n)
	k := &krylov{n: n, m: m, v: make([][]float64, m+1), h: make([]float64, (m+1)*m), w: make([]float64, n), u: make([]float64, n)}
	for i := range k.v {
		k.v[i] = make([]float64, n)
	}
	// A fixed pseudo-random start: the same bits on every run, and no
	// special direction (a constant vector can be orthogonal to a mode).
	r := rand.New(rand.NewPCG(1, 2))
	for i := range k.v[0] {
		k.v[0][i] = 2*r.Float64() - 1
	}
	floats.Scale(1/floats.Norm(k.v[0], 2), k.v[0])
	return k
}

// run iterates up to cycles Arnoldi cycles of op from the start vector,
// each restarted from the sum of the real and imaginary parts of the
// leading Ritz vector(s) (restartVecs), and stops when the leading Ritz value's residual
// is below krylovTol relative to max(|λ|, 1) or the space is invariant.
func (k *krylov) run(op func(v, out []float64) (bool, error), cycles int) (notConverged bool, err error) {
	for c := 0; c < cycles; c++ {
		clear(k.h)
		dim, invariant := 0, false
		hnorm := 0.0
		for j := 0; j < k.m; j++ {
			nc, err := op(k.v[j], k.w)
			if err != nil {
				return false, err
			}
			if nc {
				return true, nil
			}
			// Modified Gram–Schmidt, twice: the second pass restores
			// the orthogonality the first loses to rounding.
			for pass := 0; pass < 2; pass++ {
				for i := 0; i <= j; i++ {
					d := floats.Dot(k.v[i], k.w)
					k.h[i*k.m+j] += d
					floats.AddScaled(k.w, -d, k.v[i])
				}
			}
			beta := floats.Norm(k.w, 2)
			for i := 0; i <= j; i++ {
				hnorm = max(hnorm, math.Abs(k.h[i*k.m+j]))
			}
			dim = j + 1
			k.h[(j+1)*k.m+j] = beta
			if beta <= 1e-12*max(hnorm, 1e-300) {
				invariant = true
				break
			}
			floats.ScaleTo(k.v[j+1], 1/beta, k.w)
		}
		hd := mat.NewDense(dim, dim, nil)
		for i := 0; i < dim; i++ {
			for j := 0; j < dim; j++ {
				hd.Set(i, j, k.h[i*k.m+j])
			}
		}
		var e mat.Eigen
		if !e.Factorize(hd, mat.EigenRight) {
			k.failed = true
			return false, nil
		}
		k.ritz = e.Values(nil)
		var vecs mat.CDense
		e.VectorsTo(&vecs)
		order := make([]int, dim)
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(p, q int) int {
			ap, aq := cmplx.Abs(k.ritz[p]), cmplx.Abs(k.ritz[q])
			switch {
			case ap > aq:
				return -1
			case ap < aq:
				return 1
			}
			return 0
		})
		lead := order[0]
		k.best = k.ritz[lead]
		norm := 0.0
		for i := 0; i < dim; i++ {
			norm = math.Hypot(norm, cmplx.Abs(vecs.At(i, lead)))
		}
		k.resid = 0
		if !invariant {
			k.resid = k.h[dim*k.m+dim-1] * cmplx.Abs(vecs.At(dim-1, lead)) / norm
		}
		if invariant || k.resid <= krylovTol*max(cmplx.Abs(k.best), 1) || c == cycles-1 {
			return false, nil
		}
		// Restart from the leading Ritz vector (its real and imaginary
		// parts summed: a conjugate pair spans both). Restarting from
		// several Ritz vectors converged worse on the test chains.
		clear(k.u)
		for _, p := range order[:min(restartVecs, dim)] {
			for i := 0; i < dim; i++ {
				y := vecs.At(i, p)
				floats.AddScaled(k.u, real(y)+imag(y), k.v[i])
			}
		}
		nu := floats.Norm(k.u, 2)
		if !(nu > 0) {
			return false, nil
		}
		floats.ScaleTo(k.v[0], 1/nu, k.u)
	}
	return false, nil
}

// NewtonInterface is the largest interface (values) of an iterated group
// whose fixed point the analysis's trial steps find by Newton's method
// (newtonAccel) rather than by IQN-ILS: forming the interface Jacobian
// costs 2m evaluations of the group's map and its LU factorisation m³/3
// flops, once per analysed step.
const NewtonInterface = 1024

// newtonAccel finds an iterated group's fixed point u = G(u) in the
// analysis's trial steps by Newton's method, u ← u + (I − J)⁻¹(G(u) − u),
// with J = ∂G/∂u formed once per step size by central differences of G
// (2m evaluations of the group's map, the same evalG the iteration
// calls) at the first iterate it sees, and (I − J) factorised once. The
// trial steps of one analysis all start within a perturbation of one
// state, where G is affine up to the perturbation's square: Newton
// reaches the fixed point in one iteration up to the differences'
// rounding, and the iteration's own convergence test (analysisIteration)
// accepts it after two or three evaluations of G, where IQN-ILS, which
// learns J anew in every trial step, took about twenty. The fixed point
// is the one the iteration converges to whatever the accelerator (the
// test is the residual G(u) − u), so the analysis is unchanged; only its
// cost falls. When forming or factorising J fails (an evaluation error,
// a singular or ill-conditioned I − J) it hands over to the group's own
// accelerator.
type newtonAccel struct {
	a        *amplifier
	p        *coupledPlan
	g        *cgroup
	fallback coupling.Accelerator
	dt       float64 // the step J was formed for (0: not formed)
	failed   bool
	lu       mat.LU
	m        *mat.Dense
	u0, gp   []float64
	r, d     *mat.VecDense
}

func newNewtonAccel(a *amplifier, p *coupledPlan, g *cgroup) *newtonAccel {
	m := len(g.u)
	return &newtonAccel{a: a, p: p, g: g, fallback: g.acc,
		m: mat.NewDense(m, m, nil), u0: make([]float64, m), gp: make([]float64, m),
		r: mat.NewVecDense(m, nil), d: mat.NewVecDense(m, nil)}
}

func (nw *newtonAccel) Begin()                     { nw.fallback.Begin() }
func (nw *newtonAccel) End()                       { nw.fallback.End() }
func (nw *newtonAccel) Stats() coupling.AccelStats { return nw.fallback.Stats() }

// newtonMaxCond is the largest condition number of I − J newtonAccel
// solves with.
const newtonMaxCond = 1e10

func (nw *newtonAccel) Next(dst, u, g []float64) {
	s := nw.a.s
	if nw.dt != s.dt {
		nw.form(u)
	}
	if nw.failed {
		nw.fallback.Next(dst, u, g)
		return
	}
	r := nw.r.RawVector().Data
	for i := range r {
		r[i] = g[i] - u[i]
	}
	if err := nw.d.SolveVec(&nw.lu, nw.r); err != nil {
		nw.fallback.Next(dst, u, g)
		return
	}
	d := nw.d.RawVector().Data
	for i := range dst {
		dst[i] = u[i] + d[i]
	}
}

// form computes J = ∂G/∂u at u (the group's current iterate, g.u, which
// it perturbs one value at a time and restores) for the current step,
// and factorises I − J. Each evaluation of G starts from the trial
// step's state (s.state between iterations) with the interface held at
// the perturbed u, as the iteration's own evaluations do.
func (nw *newtonAccel) form(u []float64) {
	s, g := nw.a.s, nw.g
	nw.dt, nw.failed = s.dt, true
	t, dt := nw.a.t, s.dt
	t1 := s.endTime(t, dt)
	copy(nw.u0, u)
	n := len(u)
	var res Result
	eval := func(j int, v float64, out []float64) error {
		g.u[j] = v
		err := s.evalG(nw.p, g, s.state, t, t1, dt, &res)
		g.u[j] = nw.u0[j]
		if err == nil {
			s.readSpans(g, out)
		}
		return err
	}
	for j := 0; j < n; j++ {
		h := stabilityRel * max(math.Abs(nw.u0[j]), 1)
		up, down := nw.u0[j]+h, nw.u0[j]-h
		if eval(j, up, nw.gp) != nil {
			return
		}
		for i := 0; i < n; i++ {
			nw.m.Set(i, j, nw.gp[i])
		}
		if eval(j, down, nw.gp) != nil {
			return
		}
		w := up - down
		for i := 0; i < n; i++ {
			v := -(nw.m.At(i, j) - nw.gp[i]) / w
			if i == j {
				v++
			}
			nw.m.Set(i, j, v)
		}
	}
	nw.a.iters += int64(2 * n)
	nw.lu.Factorize(nw.m)
	if nw.failed = !(nw.lu.Cond() <= newtonMaxCond); nw.failed {
		return
	}
	// The rounding floor of the fixed point: Newton from u until the
	// residual G(u) − u stops falling by a factor newtonFloorDrop. The
	// iteration's relative test (analysisIteration.RTol, 1e-14) cannot
	// be met where interface values are small differences of large
	// terms (a chain's net spring forces, 1e-3 N from terms of 3e5 N,
	// round at 1e-10 N); iterating on only rebounds within the floor, so
	// the group's absolute tolerance becomes newtonFloorMargin times it
	// (never above the accepted residual, analysisResidual relative),
	// and each trial step stops after 3 to 4 evaluations.
	cur, next := slices.Clone(nw.u0), make([]float64, n)
	floor := math.Inf(1)
	for k := 0; k < newtonFloorIters; k++ {
		if s.evalG(nw.p, g, s.state, t, t1, dt, &res) != nil {
			break
		}
		s.readSpans(g, nw.gp)
		nw.a.iters++
		r := 0.0
		for i := range cur {
			r = max(r, math.Abs(nw.gp[i]-cur[i]))
		}
		if !(r < floor/newtonFloorDrop) {
			floor = min(floor, r)
			break
		}
		floor = r
		nw.Next(next, cur, nw.gp)
		cur, next = next, cur
		copy(g.u, cur)
	}
	copy(g.u, nw.u0)
	if !math.IsInf(floor, 1) {
		g.it.ATol = max(g.it.ATol, min(newtonFloorMargin*floor, analysisResidual*max(normInf(nw.u0), 1)))
	}
}

// The rounding floor of newtonAccel.form: at most newtonFloorIters
// evaluations, a fall by less than newtonFloorDrop ends them, and the
// tolerance is newtonFloorMargin times the floor.
const (
	newtonFloorIters  = 6
	newtonFloorDrop   = 4
	newtonFloorMargin = 8
)
