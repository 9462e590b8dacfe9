package graph

import (
	"fmt"
	"math"
	"math/cmplx"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/node"
)

// This file analyses the stability of a coupling scheme: the stable step
// of a co-simulation depends on how nodes exchange values within a step,
// not only on each node's own integrator, so every node's stable-step
// check (stablestep.go) can pass while the coupled scheme grows without
// bound (Gauss–Seidel on a lightly damped spring chain does).
//
// The amplification matrix is computed, not derived: one step of the
// actual scheme — the nodes' own Update methods, the scheme's stage
// order, groups, rates and interpolation, as a Run steps them — is
// applied to the state perturbed by ±h along each unit vector, and the
// central difference is the column. For a linear graph this is the exact
// one-step matrix up to rounding (the step is an affine map of the
// state); for a nonlinear one it is the linearisation at the state the
// Sim holds. Deriving the matrices by hand would need each node's
// integrator in closed form and would drift from the code.

// Stability constants.
const (
	// StabilityTol is the relative margin by which a spectral radius
	// may exceed its bound (1, or the physical growth, see
	// StabilityAnalysis.Bound) before the scheme counts as unstable: it covers
	// the finite differences' rounding (about 1e-10 relative on each
	// entry, more on eigenvalues of non-normal matrices such as the
	// Jordan blocks of free motion), while Gauss–Seidel's growth on the
	// example spring chain is 2·10⁻⁵ per step.
	StabilityTol = 1e-6
	// MaxStabilityStates is the largest state (values) the analysis
	// handles: it computes a dense amplification matrix (two steps per
	// state value) and its eigenvalues (O(n³)). Larger graphs are not
	// analysed (StabilityAnalysis.Skipped says so); the run-time growth check
	// still watches them.
	MaxStabilityStates = 300
	// MaxStartStabilityStates is the largest state (values) that the
	// check at the start of every co-simulation Run analyses: its cost
	// grows as the cube of the state (a first Run of the W1 chain
	// took about 1.5 ms at 60 values and 100 ms at 300, measured once on
	// the development machine; not a benchmark), which a sweep of many
	// fresh Sims pays at every run. Larger graphs, up to
	// MaxStabilityStates, are analysed on request (Sim.Stability,
	// cosim check); the growth watch still watches every run.
	MaxStartStabilityStates = 120
	// stabilityRel is the relative size of the finite-difference
	// perturbation of a state value x: h = stabilityRel·max(|x|, 1).
	stabilityRel = 1e-5
)

// SchemeStability is the analysis of one coupling scheme at one step.
type SchemeStability struct {
	// Strategy is the scheme in coupling.ParseStrategy's syntax
	// ("jacobi", "gauss-seidel,order=m2/m1", "iterative:iqn-ils").
	Strategy string
	// Chosen marks the strategy the run uses.
	Chosen bool
	// Radius is the spectral radius of the one-step amplification
	// matrix at the analysed step (+Inf when a trial step failed or an
	// iterated group did not converge).
	Radius float64
	// Stable is Radius ≤ Bound·(1 + StabilityTol).
	Stable bool
	// Searched reports whether MaxDt was computed: Stability computes it
	// for every scheme, CheckStability for the chosen scheme when it is
	// unstable. MaxDt is then the largest stable step found by bisection
	// (relative precision 1e-3), searched from dt/2²⁰ to 2¹⁰·dt: 0 when
	// no step in that range is stable; with AtLeast, every step up to
	// 2¹⁰·dt is.
	Searched bool
	MaxDt    float64
	AtLeast  bool
	// Note says why Radius is +Inf, when it is.
	Note string
}

// StabilityAnalysis is the coupled-stability analysis of a graph for one step:
// the spectral radius of each scheme's one-step amplification matrix,
// linearised at the state the Sim held (Sim.Stability).
type StabilityAnalysis struct {
	// Time is the time of the state linearised at; Dt the analysed step.
	Time, Dt float64
	// States is the number of state values.
	States int
	// Growth is the physical growth rate, max Re λ of the monolithic
	// Jacobian ∂f/∂x (1/s): negative for a damped system, zero for free
	// motion, positive for a physically unstable one. GrowthKnown is
	// false (and Growth 0) when the graph has no monolithic view (a node
	// without Derivatives).
	Growth      float64
	GrowthKnown bool
	// Bound is the radius a stable scheme may reach at Dt: 1, or for a
	// physically unstable system exp(2·Dt·Growth) — twice the physical
	// rate, so that a scheme is flagged only for growth the physics does
	// not explain.
	Bound float64
	// Schemes lists the chosen strategy first, then the alternatives:
	// Jacobi, Gauss–Seidel in node order and in reverse order, and one
	// iterated group of all nodes (implicit coupling, analysed at its
	// converged fixed point with IQN-ILS).
	Schemes []SchemeStability
	// Skipped, when not empty, says why the graph was not analysed
	// (Schemes is then empty).
	Skipped string
}

// Chosen returns the analysis of the chosen strategy; false when the
// graph was not analysed.
func (r *StabilityAnalysis) Chosen() (SchemeStability, bool) {
	for _, sc := range r.Schemes {
		if sc.Chosen {
			return sc, true
		}
	}
	return SchemeStability{}, false
}

// Unstable reports whether the chosen strategy was analysed and found
// unstable at Dt.
func (r *StabilityAnalysis) Unstable() bool {
	c, ok := r.Chosen()
	return ok && !c.Stable
}

// Warning is the warning cosim run prints when the chosen strategy is
// unstable (Unstable): the scheme, its radius, a stable step and a
// stable scheme. It is "" otherwise.
func (r *StabilityAnalysis) Warning() string {
	c, ok := r.Chosen()
	if !ok || c.Stable {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "coupling %s is unstable at dt = %s s: the spectral radius of its one-step amplification matrix (linearised at t = %s) is %s > %s",
		c.Strategy, fmtNum(r.Dt), fmtNum(r.Time), fmtRadius(c.Radius), fmtRadius(r.Bound))
	if c.Note != "" {
		fmt.Fprintf(&b, " (%s)", c.Note)
	}
	b.WriteString(", so the state will grow without bound")
	switch {
	case c.Searched && c.MaxDt > 0:
		fmt.Fprintf(&b, "; it is stable for dt ≤ %s s", fmtNum(c.MaxDt))
	case c.Searched:
		fmt.Fprintf(&b, "; no step down to %s s makes it stable", fmtNum(r.Dt/(1<<20)))
	}
	var alt []string
	for _, sc := range r.Schemes {
		if !sc.Chosen && sc.Stable {
			alt = append(alt, fmt.Sprintf("%s (radius %s)", sc.Strategy, fmtRadius(sc.Radius)))
		}
	}
	if len(alt) > 0 {
		fmt.Fprintf(&b, "; stable at this dt: %s", strings.Join(alt, ", "))
	} else {
		b.WriteString("; none of the schemes analysed is stable at this dt")
	}
	b.WriteString(" (cosim check SCENE prints the analysis)")
	return b.String()
}

// fmtRadius formats a spectral radius with enough digits to show a
// growth of 10⁻⁶ per step.
func fmtRadius(v float64) string { return strconv.FormatFloat(v, 'g', 9, 64) }

// Stability analyses the coupled stability of the graph at its current
// state for the step dt and the strategy st (nil: Jacobi, as Run): for
// the chosen strategy and each alternative, the spectral radius of the
// one-step amplification matrix and the largest stable step. The Sim's
// state, clock and coupling memory are left as they were. A graph the
// analysis cannot handle (more than MaxStabilityStates values, a node
// keeping hidden state, a trial step that fails) gives a report with
// Skipped set, not an error; the error is for invalid arguments (a
// strategy that does not compile for this graph).
func (s *Sim) Stability(st *coupling.Strategy, dt float64) (*StabilityAnalysis, error) {
	return s.stability(st, dt, true)
}

// Amplification returns the one-step amplification matrix of the
// strategy st (nil: Jacobi) at step dt, linearised at the Sim's current
// state: entry (i, j) is ∂x_i(t+dt)/∂x_j(t) over the flat state
// (Sim.State's order), computed by central differences of trial steps
// (see Stability). The Sim is left as it was. It is an error for a graph
// the analysis does not handle (more than MaxStabilityStates values, a
// node keeping hidden state) or when a trial step fails.
func (s *Sim) Amplification(st *coupling.Strategy, dt float64) (*mat.Dense, error) {
	if !(dt > 0) || math.IsInf(dt, 0) {
		return nil, fmt.Errorf("graph: Amplification: dt = %v: the step must be finite and positive", dt)
	}
	if len(s.state) == 0 || len(s.state) > MaxStabilityStates {
		return nil, fmt.Errorf("graph: Amplification: %d state values; the analysis handles 1 to MaxStabilityStates = %d", len(s.state), MaxStabilityStates)
	}
	for i := range s.nodes {
		if _, ok := node.As[node.HiddenState](s.nodes[i].n); ok {
			return nil, fmt.Errorf("graph: Amplification: node %s keeps state outside the graph (node.HiddenState)", s.nodes[i].name)
		}
	}
	cands, err := s.stabilityCandidates(st)
	if err != nil {
		return nil, err
	}
	a := &amplifier{s: s, n: len(s.state)}
	a.save()
	defer a.restore()
	if _, err := a.matrix(cands[0].st, dt); err != nil {
		return nil, err
	}
	return mat.NewDense(a.n, a.n, a.g), nil
}

// CheckStability is Stability made cheap for the start of a run: it
// computes the chosen strategy's radius only and, only when that is
// unstable, what a warning names: the chosen strategy's largest stable
// step and the alternatives' radii at dt (their largest stable steps are
// not searched). Run
// calls it (Result.Stability); cosim run prints its Warning.
func (s *Sim) CheckStability(st *coupling.Strategy, dt float64) (*StabilityAnalysis, error) {
	return s.stability(st, dt, false)
}

// stability is Stability; with full false it stops after the chosen
// strategy's radius when that is stable (the check at the start of a
// Run), computing the alternatives and the stable steps only for a
// warning.
func (s *Sim) stability(st *coupling.Strategy, dt float64, full bool) (*StabilityAnalysis, error) {
	if !(dt > 0) || math.IsInf(dt, 0) {
		return nil, fmt.Errorf("graph: Stability: dt = %v: the step must be finite and positive", dt)
	}
	if st != nil {
		if err := st.Validate(); err != nil {
			return nil, fmt.Errorf("graph: %w", err)
		}
	}
	r := &StabilityAnalysis{Time: s.Time(), Dt: dt, States: len(s.state), Bound: 1}
	switch {
	case len(s.state) == 0:
		r.Skipped = "the graph has no state"
		return r, nil
	case len(s.state) > MaxStabilityStates:
		r.Skipped = fmt.Sprintf("%d state values, more than MaxStabilityStates = %d", len(s.state), MaxStabilityStates)
		return r, nil
	}
	for i := range s.nodes {
		if _, ok := node.As[node.HiddenState](s.nodes[i].n); ok {
			r.Skipped = fmt.Sprintf("node %s keeps state outside the graph (node.HiddenState), which a trial step would change", s.nodes[i].name)
			return r, nil
		}
	}
	a := &amplifier{s: s, n: len(s.state)}
	a.save()
	defer a.restore()
	r.Growth, r.GrowthKnown = a.growth()
	r.Bound = growthBound(r.Growth, dt)
	cands, err := s.stabilityCandidates(st)
	if err != nil {
		return nil, err
	}
	all := full
	for k, c := range cands {
		if k > 0 && !full {
			break
		}
		sc := SchemeStability{Strategy: c.name, Chosen: k == 0}
		rad, note, err := a.radius(c.st, dt)
		if err != nil {
			if k == 0 {
				r.Schemes = nil
				r.Skipped = "a trial step failed: " + err.Error()
				return r, nil
			}
			rad, note = math.Inf(1), "a trial step failed: "+err.Error()
		}
		sc.Radius, sc.Note = rad, note
		sc.Stable = rad <= r.Bound*(1+StabilityTol)
		r.Schemes = append(r.Schemes, sc)
		if k == 0 && sc.Stable && !full {
			return r, nil
		}
		full = true
	}
	for k := range r.Schemes {
		if k > 0 && !all {
			break // the check at a run's start: the chosen scheme's only
		}
		r.Schemes[k].MaxDt, r.Schemes[k].AtLeast = a.maxStableDt(cands[k].st, dt, r.Growth, r.Schemes[k].Stable)
		r.Schemes[k].Searched = true
	}
	return r, nil
}

// growthBound is the radius a stable scheme may reach at step dt for the
// physical growth rate g (StabilityAnalysis.Bound).
func growthBound(g, dt float64) float64 {
	if g > 0 {
		return math.Exp(2 * dt * g)
	}
	return 1
}

// candidate is a strategy the analysis tries: its name and the strategy
// it steps with (nil: the default Jacobi path).
type candidate struct {
	name string
	st   *coupling.Strategy
}

// stabilityCandidates returns the chosen strategy, then the alternatives
// not equal to it. An iterated strategy is analysed at its converged
// fixed point (analysisIteration).
func (s *Sim) stabilityCandidates(st *coupling.Strategy) ([]candidate, error) {
	chosen := coupling.Strategy{}
	if st != nil {
		chosen = *st
	}
	var names []string
	for _, i := range s.stateful {
		names = append(names, s.nodes[i].name)
	}
	var rev [][]string
	for k := len(names) - 1; k >= 0; k-- {
		rev = append(rev, []string{names[k]})
	}
	list := []coupling.Strategy{chosen, {}, {Scheme: coupling.GaussSeidel}}
	if len(names) > 1 {
		list = append(list, coupling.Strategy{Scheme: coupling.GaussSeidel, Order: rev})
	}
	list = append(list, coupling.Strategy{Scheme: coupling.Iterative, Iteration: coupling.Iteration{Acceleration: coupling.Acceleration{Accel: coupling.IQNILS}}})
	var out []candidate
	seen := map[string]bool{}
	for k, c := range list {
		key := c.String()
		if seen[key] {
			continue
		}
		seen[key] = true
		a := c
		if a.Scheme == coupling.Iterative {
			a.Iteration = analysisIteration
		}
		if k == 0 {
			// The chosen strategy must compile for this graph (node
			// names): that is the caller's error.
			if _, err := s.compileCoupling(&a); err != nil {
				return nil, err
			}
		}
		out = append(out, candidate{name: key, st: &a})
	}
	return out, nil
}

// analysisIteration replaces an iterated strategy's iteration settings
// in the analysis: the scheme's fixed point (the implicit coupling the
// iteration converges to within its tolerance) is found to rounding by
// IQN-ILS, which solves a linear problem's fixed point exactly in at most
// as many iterations as interface values. The tolerance is near what
// rounding lets the iteration reach; when it is not reached within
// MaxIter the Accept policy takes the last iterate, and the step counts
// as not converged when that iterate's residual exceeds analysisResidual
// relative to the interface values (a looser fixed point would put its
// error, divided by the perturbation, into the matrix).
var analysisIteration = coupling.Iteration{
	Acceleration: coupling.Acceleration{Accel: coupling.IQNILS},
	ATol:         1e-15, RTol: 1e-14, MaxIter: 40, OnFail: coupling.Accept,
}

// analysisResidual is the largest relative residual of an accepted
// fixed point in the analysis.
const analysisResidual = 1e-9

// amplifier computes amplification matrices of a Sim by trial steps. It
// saves everything a step changes and restores it.
type amplifier struct {
	s *Sim
	n int
	// saved
	x                  []float64
	t0, dt             float64
	n0, steps, replays int
	yFresh             bool
	cplan, cmem        *coupledPlan
	onGroupStep        func(GroupStep)
	g                  []float64 // the matrix, column-major work
	xp                 []float64
	evals              int
}

func (a *amplifier) save() {
	s := a.s
	a.x = append([]float64(nil), s.state...)
	a.t0, a.dt, a.n0, a.steps, a.replays, a.yFresh = s.t0, s.dt, s.n, s.steps, s.replays, s.outputsFresh
	a.cplan, a.cmem, a.onGroupStep = s.plan, s.lastPlan, s.onGroupStep
	s.onGroupStep = nil
	a.g = make([]float64, a.n*a.n)
	a.xp = make([]float64, a.n)
}

func (a *amplifier) restore() {
	s := a.s
	copy(s.state, a.x)
	s.t0, s.dt, s.n, s.steps, s.replays, s.outputsFresh = a.t0, a.dt, a.n0, a.steps, a.replays, false
	s.plan, s.lastPlan, s.onGroupStep = a.cplan, a.cmem, a.onGroupStep
}

// growth is max Re λ(∂f/∂x) at the saved state; false without a
// monolithic view.
func (a *amplifier) growth() (float64, bool) {
	sys, err := a.s.System()
	if err != nil {
		return 0, false
	}
	t := a.t0 + float64(a.n0)*a.dt
	if err := sys.Jacobian(t, a.x, a.g); err != nil {
		return 0, false
	}
	ev, ok := eigenvalues(a.n, a.g)
	if !ok {
		return 0, false
	}
	g := math.Inf(-1)
	for _, v := range ev {
		g = max(g, real(v))
	}
	return g, true
}

// eigenvalues of the n×n row-major matrix m.
func eigenvalues(n int, m []float64) ([]complex128, bool) {
	var e mat.Eigen
	if !e.Factorize(mat.NewDense(n, n, m), mat.EigenNone) {
		return nil, false
	}
	return e.Values(nil), true
}

// trial steps the saved state plus dx·e_j (j < 0: no perturbation) by one
// step dt with the plan p (nil: the default Jacobi path) and leaves the
// result in a.xp. Gauss–Seidel and multirate plans carry nothing from
// one step to the next; an iterated group's memory (IQN-ILS columns of
// past steps are not kept: Reuse is 0) changes only the first iterate,
// not the fixed point the analysis iterates to.
func (a *amplifier) trial(p *coupledPlan, dt float64, j int, dx float64) (notConverged bool, err error) {
	s := a.s
	copy(s.state, a.x)
	if j >= 0 {
		s.state[j] += dx
	}
	t := a.t0 + float64(a.n0)*a.dt
	s.t0, s.n, s.dt, s.outputsFresh, s.plan = t, 0, dt, false, p
	var res Result
	if p != nil {
		for _, g := range p.groups {
			g.stats.NonConverged = 0
		}
	}
	err = s.step(t, dt, &res)
	if p != nil {
		for _, g := range p.groups {
			m := 1.0
			for _, v := range g.u {
				m = max(m, math.Abs(v))
			}
			if g.stats.NonConverged > 0 && !(g.stats.LastResidual <= analysisResidual*m) {
				notConverged = true
			}
		}
	}
	s.plan = nil
	copy(a.xp, s.state)
	return notConverged, err
}

// matrix computes the amplification matrix of st at dt into a.g
// (row-major) by central differences.
func (a *amplifier) matrix(st *coupling.Strategy, dt float64) (notConverged bool, err error) {
	n := a.n
	col := make([]float64, n)
	var p *coupledPlan
	if st.Scheme != coupling.Jacobi && st.Scheme != "" || len(st.Rates) > 0 {
		if p, err = a.s.compileCoupling(st); err != nil {
			return false, err
		}
	}
	for j := 0; j < n; j++ {
		h := stabilityRel * max(math.Abs(a.x[j]), 1)
		up, down := a.x[j]+h, a.x[j]-h
		nc, err := a.trial(p, dt, j, up-a.x[j])
		if err != nil {
			return false, err
		}
		notConverged = notConverged || nc
		copy(col, a.xp)
		nc, err = a.trial(p, dt, j, down-a.x[j])
		if err != nil {
			return false, err
		}
		notConverged = notConverged || nc
		w := up - down
		for i := 0; i < n; i++ {
			a.g[i*n+j] = (col[i] - a.xp[i]) / w
		}
	}
	return notConverged, nil
}

// radius is the spectral radius of st's amplification matrix at dt.
func (a *amplifier) radius(st *coupling.Strategy, dt float64) (float64, string, error) {
	nc, err := a.matrix(st, dt)
	if err != nil {
		return 0, "", err
	}
	if nc {
		return math.Inf(1), "its group iteration does not converge at this step", nil
	}
	ev, ok := eigenvalues(a.n, a.g)
	if !ok {
		return math.Inf(1), "the eigenvalue computation did not converge", nil
	}
	r := 0.0
	for _, v := range ev {
		r = max(r, cmplx.Abs(v))
	}
	return r, "", nil
}

// stableAt reports whether st is stable at dt.
func (a *amplifier) stableAt(st *coupling.Strategy, dt, growth float64) bool {
	r, _, err := a.radius(st, dt)
	return err == nil && r <= growthBound(growth, dt)*(1+StabilityTol)
}

// maxStableDt bisects for the largest stable step of st, starting from
// dt, whose stability is known.
func (a *amplifier) maxStableDt(st *coupling.Strategy, dt, growth float64, stable bool) (float64, bool) {
	lo, hi := 0.0, 0.0
	if stable {
		lo = dt
		for k := 0; k < 10; k++ {
			if !a.stableAt(st, 2*lo, growth) {
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
			if a.stableAt(st, hi/2, growth) {
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
		if a.stableAt(st, mid, growth) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, false
}
