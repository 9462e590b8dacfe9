package graph

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

// This file analyses the stability of a coupling scheme, or of a
// fixed-step monolithic method: the stable step of a co-simulation
// depends on how nodes exchange values within a step, not only on each
// node's own integrator, so every node's stable-step check
// (stablestep.go) can pass while the coupled scheme grows without bound
// (Gauss–Seidel on a lightly damped spring chain does); and an explicit
// method integrating the whole graph has a stable step of its own.
//
// The amplification operator is computed, not derived: one step of the
// actual scheme — the nodes' own Update methods, the scheme's stage
// order, groups (iterated to their fixed point), rates and
// interpolation, as a Run steps them; or one step of the monolithic
// method on the graph's System — is applied to the state perturbed along
// a direction, and the central difference of the two trial steps is the
// operator applied to that direction. For a linear graph this is exact
// up to rounding (the step is an affine map of the state); for a
// nonlinear one it is the linearisation at the state the Sim holds.
// Deriving the matrices by hand would need each node's integrator in
// closed form and would drift from the code.
//
// Two ways give the spectral radius (amplifier.radius), and a third
// decides what the second leaves open (amplifier.decide):
//
//   - dense, for at most DenseStabilityStates values: the whole matrix,
//     one column per unit vector (2n trial steps), and all its
//     eigenvalues (gonum's mat.Eigen, O(n³)): exact up to rounding;
//   - matrix-free, above: restarted Arnoldi on the operator (Krylov
//     dimension KrylovDim, at most KrylovCycles cycles, each restarted
//     from the leading Ritz vector), the eigenvalues of the small
//     Hessenberg matrix giving the estimate. Its cost is at most
//     2·KrylovDim·KrylovCycles trial steps plus O(n·KrylovDim²)
//     arithmetic, whatever n. The estimate comes with the Ritz residual
//     (SchemeStability.Residual): the estimate is an eigenvalue of a
//     matrix within that distance of the operator. When many eigenvalues
//     share nearly the largest modulus — undamped oscillators, whose
//     eigenvalues all lie on the unit circle — Arnoldi converges slowly
//     and may miss a growth smaller than its residual;
//   - escalation, up to DenseMaxStates values: an estimate that neither
//     converged nor certifies instability is replaced by the dense
//     radius (SchemeStability.Escalated), and when that exceeds 1 the
//     growth rate by the dense Jacobian's, so that the decision is exact
//     up to rounding. No Krylov method can do this cheaply: a polynomial
//     of degree d separates an eigenvalue at radius 1+δ from an arc of
//     the unit circle of half-width α only by a factor about
//     exp(d·δ/α), so Gauss–Seidel's 5·10⁻⁴ per step on the test chain
//     (α = h·ω_max = 0.063) needs hundreds of Arnoldi steps per digit,
//     and a neutral spectrum (Jacobi, radius exactly 1) is never
//     certified. The full analysis escalates; the check at a run's
//     start only when the run affords it (startPlan), and otherwise
//     leaves the undecided estimate (counted stable) to the growth watch
//     (growth.go), which watches every co-simulation.
//
// An iterated group's trial step finds the group's fixed point by
// Newton's method with the interface Jacobian formed once per analysed
// step (newtonAccel, up to NewtonInterface interface values): the same
// fixed point the group's own iteration converges to, in 3 to 4
// evaluations of the group's map instead of IQN-ILS's 20 or so.

// The operator is applied in scaled coordinates: direction v perturbs
// value i by ε·max(|x_i|, 1)·v_i and the difference is divided by the
// same scale, which gives D⁻¹AD (D the scales), of the same eigenvalues
// as A, with every value perturbed relative to its own size.

// Stability constants.
const (
	// StabilityTol is the relative margin by which a spectral radius
	// may exceed its bound (1, or the physical growth, see
	// StabilityAnalysis.Bound) before the scheme counts as unstable per
	// step: it covers the finite differences' rounding (about 1e-10
	// relative on each entry, more on eigenvalues of non-normal matrices
	// such as the Jordan blocks of free motion), while Gauss–Seidel's
	// growth on the example spring chain is 2·10⁻⁵ per step.
	StabilityTol = 1e-6
	// MaxRunGrowth is the factor by which the linearised scheme may
	// grow a perturbation over a whole run, beyond the physical bound,
	// before the start-of-run check warns: a scheme whose radius ρ
	// exceeds its bound by a hair (an energy-conserving system whose
	// linearisation away from equilibrium is not exactly neutral) does
	// not grow visibly in a finite run. A run of N steps warns when
	// (ρ/Bound)^N > MaxRunGrowth, one without an end (or an analysis
	// not tied to a run) when ρ > Bound·(1 + StabilityTol).
	MaxRunGrowth = 2
	// DenseStabilityStates is the largest state (values) for which the
	// radius is computed from the dense amplification matrix (2n trial
	// steps and O(n³) for its eigenvalues: about a millisecond at 100
	// values); larger graphs get the matrix-free estimate, whose
	// 2·KrylovDim·KrylovCycles trial steps cost more than the dense
	// matrix's below this size, and the dense radius only when the
	// estimate is undecided (DenseMaxStates).
	DenseStabilityStates = 128
	// DenseMaxStates is the largest state (values) for which an
	// undecided matrix-free estimate (SchemeStability.undecided) is
	// replaced by the dense radius (SchemeStability.Escalated) in the
	// full analysis (Sim.Stability, cosim check, a run without an end),
	// and at a run's start when the run affords it (startPlan). The
	// dense radius costs 2n trial steps and the eigenvalues of an n×n
	// matrix, O(n³): at 2 000 values about 7 s on an idle core (gonum's
	// mat.Eigen; measured 46 s on the loaded 2-core development
	// machine), twice that when the growth rate must be made exact too.
	DenseMaxStates = 2048
	// DenseSearchStates is the largest state (values) for which the
	// bisection for the largest stable step (SchemeStability.MaxDt)
	// escalates undecided estimates to the dense radius: each bisection
	// step is a new matrix, and some twenty of them at DenseMaxStates
	// values would take minutes. Above it MaxDt is bisected on the
	// estimates (an undecided one counted stable).
	DenseSearchStates = 512
	// KrylovDim is the Krylov dimension of the matrix-free estimate.
	KrylovDim = 32
	// KrylovCycles is the largest number of Arnoldi cycles of the
	// matrix-free estimate; it stops earlier when the Ritz residual of
	// the leading Ritz value is below krylovTol relative.
	KrylovCycles = 4
	// MaxStabilityStates is the largest state (values) for which
	// Sim.Amplification returns the dense matrix (n² values). Stability
	// and CheckStability analyse any size.
	MaxStabilityStates = 300
	// stabilityRel is the relative size of the finite-difference
	// perturbation of a state value x: h = stabilityRel·max(|x|, 1).
	stabilityRel = 1e-5
	// CertifyFactor is the multiple of its Ritz residual by which a
	// matrix-free estimate must exceed the bound to count as unstable
	// (SchemeStability.Stable). The distance of a Ritz value to the
	// spectrum is at most the residual times the condition number of the
	// eigenvectors, which the analysis cannot know; on the test chains
	// the unconverged estimates of a neutral spectrum were 15 to 25 times
	// their residual outside it.
	CertifyFactor = 100
	// krylovTol is the relative Ritz residual at which the matrix-free
	// estimate stops restarting: well below StabilityTol, so that a
	// converged estimate decides stability as the dense radius would.
	krylovTol = 1e-8
)

// SchemeStability is the analysis of one coupling scheme (or monolithic
// method) at one step.
type SchemeStability struct {
	// Strategy is the scheme in coupling.ParseStrategy's syntax
	// ("jacobi", "gauss-seidel,order=m2/m1", "iterative:iqn-ils"), or
	// the monolithic method's name ("rk4").
	Strategy string
	// Chosen marks the strategy the run uses.
	Chosen bool
	// Radius is the spectral radius of the one-step amplification
	// operator at the analysed step (+Inf when a trial step failed or an
	// iterated group did not converge).
	Radius float64
	// Estimated marks a matrix-free estimate (restarted Arnoldi, above
	// DenseStabilityStates values); Residual is then the Ritz residual
	// of the leading Ritz value, whose modulus Radius is (0 when the
	// Krylov space became invariant: the estimate is then exact up to
	// rounding). Radius is exact up to rounding when Estimated is false.
	Estimated bool
	Residual  float64
	// Escalated marks a radius computed from the dense matrix because
	// the matrix-free estimate was undecided (see checkPlan.escalate):
	// Estimated is then false and Radius exact up to rounding.
	Escalated bool
	// Stable is Radius ≤ Bound·(1 + StabilityTol): stable per step. An
	// estimate counts as unstable only when it exceeds that by more than
	// CertifyFactor·Residual: for a non-normal operator (every mechanical
	// one: positions and velocities differ in scale) an unconverged Ritz
	// value can lie outside the spectrum by more than its residual, so an
	// estimate within that margin, or not converged, is undecided: up to
	// DenseMaxStates values the analysis then takes the dense radius
	// (Escalated) when its plan affords it; otherwise it counts the
	// estimate stable (Note says so when it exceeds the bound) and the
	// growth watch still watches the run.
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
	// Note says why Radius is +Inf, when it is, or that an estimate is
	// undecided.
	Note string
	// notConverged marks an iterated group that did not reach the
	// analysis's fixed point in a trial step (Radius is +Inf).
	notConverged bool
}

// StabilityAnalysis is the stability analysis of a graph for one step:
// the spectral radius of each coupling scheme's one-step amplification
// operator (or of the monolithic method's, Method), linearised at the
// state the Sim held (Sim.Stability, Sim.MonolithicStability).
type StabilityAnalysis struct {
	// Time is the time of the state linearised at; Dt the analysed step.
	Time, Dt float64
	// States is the number of state values.
	States int
	// Method is the fixed-step monolithic method analysed
	// (Sim.MonolithicStability), "" for co-simulation schemes.
	Method string
	// Steps is the length of the run the analysis is judged over
	// (Over): 0 for a run without an end, or an analysis not tied to a
	// run, which is judged per step.
	Steps int
	// Growth is the physical growth rate, max Re λ of the monolithic
	// Jacobian ∂f/∂x (1/s): negative for a damped system, zero for free
	// motion, positive for a physically unstable one. GrowthKnown is
	// false (and Growth 0) when the graph has no monolithic view (a node
	// without Derivatives). Above DenseStabilityStates values it is the
	// largest real part of the Ritz values of one Arnoldi cycle on the
	// Jacobian (finite differences of the System's f): an estimate.
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
	// converged fixed point with IQN-ILS). A monolithic analysis has the
	// method only.
	Schemes []SchemeStability
	// Skipped, when not empty, says why the graph was not analysed
	// (Schemes is then empty).
	Skipped string
	// short marks an analysis skipped because the run was too short
	// (shortRun); passes is the cost of the plan the radius was computed
	// with (checkPlan.passes), so that a longer run that affords a finer
	// analysis does not reuse a cruder one (cachedStability).
	short  bool
	passes int
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

// Over returns a copy of the analysis judged over a run of steps steps
// (0: a run without an end): Unstable and Warning then use the growth
// over the run (see MaxRunGrowth).
func (r *StabilityAnalysis) Over(steps int) *StabilityAnalysis {
	c := *r
	c.Steps = max(steps, 0)
	return &c
}

// RunGrowth is the factor by which the chosen scheme's linearisation
// grows a perturbation over the Steps steps of the run beyond the
// physical bound, (Radius/Bound)^Steps (+Inf for an infinite radius; 1
// when not analysed or Steps is 0).
func (r *StabilityAnalysis) RunGrowth() float64 {
	c, ok := r.Chosen()
	if !ok || r.Steps == 0 {
		return 1
	}
	return runGrowth(c.Radius, r.Bound, r.Steps)
}

func runGrowth(radius, bound float64, steps int) float64 {
	if math.IsInf(radius, 1) || math.IsNaN(radius) {
		return math.Inf(1)
	}
	return math.Exp(float64(steps) * math.Log(radius/bound))
}

// Unstable reports whether the chosen strategy was analysed and found
// unstable at Dt in a way worth a warning: its radius exceeds the bound
// per step (Stable is false) and, for a run of Steps steps, the growth
// over the run exceeds MaxRunGrowth.
func (r *StabilityAnalysis) Unstable() bool {
	c, ok := r.Chosen()
	if !ok || c.Stable {
		return false
	}
	return r.Steps == 0 || r.RunGrowth() > MaxRunGrowth
}

// Warning is the warning cosim run prints when the chosen strategy is
// unstable (Unstable): the scheme, its radius, a stable step and a
// stable scheme. It is "" otherwise.
func (r *StabilityAnalysis) Warning() string {
	if !r.Unstable() {
		return ""
	}
	c, _ := r.Chosen()
	var b strings.Builder
	what, op := "coupling "+c.Strategy, "one-step amplification matrix"
	if r.Method != "" {
		what = "monolithic " + r.Method
	}
	if c.Estimated {
		op = "one-step amplification operator (matrix-free estimate)"
	}
	fmt.Fprintf(&b, "%s is unstable at dt = %s s: the spectral radius of its %s (linearised at t = %s) is %s > %s",
		what, fmtNum(r.Dt), op, fmtNum(r.Time), fmtRadius(c.Radius), fmtRadius(r.Bound))
	if c.Note != "" {
		fmt.Fprintf(&b, " (%s)", c.Note)
	}
	if r.Steps > 0 && !math.IsInf(c.Radius, 1) {
		fmt.Fprintf(&b, ", so a perturbation grows by a factor %s over the run's %d steps", fmtNum(r.RunGrowth()), r.Steps)
	} else {
		b.WriteString(", so the state will grow without bound")
	}
	switch {
	case c.Searched && c.MaxDt > 0 && c.AtLeast:
		fmt.Fprintf(&b, "; it is stable for dt ≤ %s s at least", fmtNum(c.MaxDt))
	case c.Searched && c.MaxDt > 0:
		fmt.Fprintf(&b, "; it is stable for dt ≤ %s s", fmtNum(c.MaxDt))
	case c.Searched:
		fmt.Fprintf(&b, "; no step down to %s s makes it stable", fmtNum(r.Dt/(1<<20)))
	}
	if r.Method != "" {
		b.WriteString("; an A-stable implicit method (backward-euler, implicit-trapezoid) or an adaptive run (dormand-prince, esdirk43, bdf), whose error control chooses the step, is not limited this way")
	} else {
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
	}
	b.WriteString(" (cosim check SCENE prints the analysis)")
	return b.String()
}

// stableUnder reports whether the scheme is stable per step under the
// bound (see Stable), and notes an undecided estimate.
func (sc *SchemeStability) stableUnder(bound float64) bool {
	lim := bound * (1 + StabilityTol)
	if sc.Radius <= lim {
		return true
	}
	if sc.Estimated && sc.Radius-CertifyFactor*sc.Residual <= lim {
		if sc.Note == "" {
			sc.Note = fmt.Sprintf("the estimate %s exceeds the bound by less than %d times its Ritz residual %s: undecided, counted stable", fmtRadius(sc.Radius), CertifyFactor, strconv.FormatFloat(sc.Residual, 'g', 3, 64))
		}
		return true
	}
	return false
}

// undecided reports whether a matrix-free estimate decides nothing: its
// Ritz residual is above krylovTol relative (not converged: a larger
// eigenvalue may be missed, and the estimate may lie outside the
// spectrum) and it does not certify instability (Stable, by at most
// CertifyFactor residuals above the bound, or below it).
func (sc *SchemeStability) undecided() bool {
	return sc.Estimated && !sc.notConverged && !math.IsInf(sc.Radius, 0) &&
		sc.Residual > krylovTol*max(sc.Radius, 1) && sc.Stable
}

// fmtRadius formats a spectral radius with enough digits to show a
// growth of 10⁻⁶ per step.
func fmtRadius(v float64) string { return strconv.FormatFloat(v, 'g', 9, 64) }

// Stability analyses the coupled stability of the graph at its current
// state for the step dt and the strategy st (nil: Jacobi, as Run): for
// the chosen strategy and each alternative, the spectral radius of the
// one-step amplification operator and the largest stable step. The
// Sim's state, clock and coupling memory are left as they were. A graph
// the analysis cannot handle (no state, a node keeping hidden state, a
// trial step that fails) gives a report with Skipped set, not an error;
// the error is for invalid arguments (a strategy that does not compile
// for this graph). The report is judged per step: Over ties it to a
// run's length.
func (s *Sim) Stability(st *coupling.Strategy, dt float64) (*StabilityAnalysis, error) {
	return s.stability(st, dt, true, 0)
}

// CheckStability is Stability made cheap for the start of a run of
// steps steps (0: without an end): it computes the chosen strategy's
// radius only and, only when that is unstable over the run (Unstable),
// what a warning names: the chosen strategy's largest stable step and
// the alternatives' radii at dt (their largest stable steps are not
// searched). Run calls it (Result.Stability); cosim run prints its
// Warning.
func (s *Sim) CheckStability(st *coupling.Strategy, dt float64, steps int) (*StabilityAnalysis, error) {
	return s.stability(st, dt, false, steps)
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
		return nil, fmt.Errorf("graph: Amplification: %d state values; the dense matrix is for 1 to MaxStabilityStates = %d (Stability analyses any size)", len(s.state), MaxStabilityStates)
	}
	if why := s.hiddenState(); why != "" {
		return nil, fmt.Errorf("graph: Amplification: %s", why)
	}
	cands, err := s.stabilityCandidates(st)
	if err != nil {
		return nil, err
	}
	a := newAmplifier(s)
	defer a.restore()
	f, err := a.schemeStep(cands[0].st)
	if err != nil {
		return nil, err
	}
	if _, err := a.matrix(f, dt); err != nil {
		return nil, err
	}
	return mat.NewDense(a.n, a.n, a.g), nil
}

// hiddenState names a node keeping state outside the graph, which a
// trial step would change, or returns "".
func (s *Sim) hiddenState() string {
	for i := range s.nodes {
		if _, ok := node.As[node.HiddenState](s.nodes[i].n); ok {
			return fmt.Sprintf("node %s keeps state outside the graph (node.HiddenState), which a trial step would change", s.nodes[i].name)
		}
	}
	return ""
}

// stabilityMethod forces the dense or the matrix-free radius (tests);
// the zero value chooses by size.
type stabilityMethod int

const (
	bySize stabilityMethod = iota
	forceDense
	forceKrylov
)

// stability is Stability; with full false it stops after the chosen
// strategy's radius when that is stable over a run of steps steps (the
// check at the start of a Run), computing the alternatives and the
// stable steps only for a warning.
func (s *Sim) stability(st *coupling.Strategy, dt float64, full bool, steps int) (*StabilityAnalysis, error) {
	return s.stabilityBy(st, dt, full, steps, bySize)
}

func (s *Sim) stabilityBy(st *coupling.Strategy, dt float64, full bool, steps int, how stabilityMethod) (*StabilityAnalysis, error) {
	if !(dt > 0) || math.IsInf(dt, 0) {
		return nil, fmt.Errorf("graph: Stability: dt = %v: the step must be finite and positive", dt)
	}
	if st != nil {
		if err := st.Validate(); err != nil {
			return nil, fmt.Errorf("graph: %w", err)
		}
	}
	r := &StabilityAnalysis{Time: s.Time(), Dt: dt, States: len(s.state), Bound: 1, Steps: max(steps, 0)}
	plan, ok := startPlan(len(s.state), steps, how)
	if full {
		plan, ok = fullPlan(len(s.state), how), true
	}
	if len(s.state) > 0 && !ok {
		// (Before the node scan: a long list of nodes is what makes the
		// run too short.)
		r.Skipped, r.short = shortRun(len(s.state), steps, full), true
		return r, nil
	}
	if why := s.analysable(); why != "" {
		r.Skipped = why
		return r, nil
	}
	cands, err := s.stabilityCandidates(st)
	if err != nil {
		return nil, err
	}
	a := newAmplifier(s)
	a.plan = plan
	r.passes = plan.passes(len(s.state))
	defer a.restore()
	r.Growth, r.GrowthKnown = a.growth()
	r.Bound = growthBound(r.Growth, dt)
	// An escalated radius can make the growth rate exact (decide): the
	// bound and the decisions already taken follow it.
	rebound := func() {
		if r.Growth == a.grow {
			return
		}
		r.Growth, r.Bound = a.grow, a.bound(dt)
		for k := range r.Schemes {
			r.Schemes[k].Stable = r.Schemes[k].stableUnder(r.Bound)
		}
	}
	fs := make([]stepFn, len(cands))
	all := full
	for k, c := range cands {
		if k > 0 && !full {
			break
		}
		sc := SchemeStability{Strategy: c.name, Chosen: k == 0}
		f, err := a.schemeStep(c.st)
		if err == nil {
			fs[k] = f
			err = a.decide(f, dt, &sc)
		}
		if err != nil {
			if k == 0 {
				r.Schemes = nil
				r.Skipped = "a trial step failed: " + err.Error()
				return r, nil
			}
			sc.Radius, sc.Note = math.Inf(1), "a trial step failed: "+err.Error()
		}
		if k == 0 && sc.notConverged {
			// The analysis iterates a group far tighter than a run does
			// (analysisIteration): missing that says nothing of the run.
			r.Schemes = nil
			r.Skipped = fmt.Sprintf("the iterated group of %s does not reach the analysis's fixed-point tolerance (relative residual %g within %d iterations) in a trial step", c.name, analysisResidual, analysisIteration.MaxIter)
			return r, nil
		}
		r.Schemes = append(r.Schemes, sc)
		rebound()
		if k == 0 && !full && !r.Unstable() {
			return r, nil
		}
		full = true
	}
	for k := range r.Schemes {
		if k > 0 && !all {
			break // the check at a run's start: the chosen scheme's only
		}
		if fs[k] == nil {
			continue
		}
		r.Schemes[k].MaxDt, r.Schemes[k].AtLeast = a.maxStableDt(fs[k], dt, r.Schemes[k].Stable)
		r.Schemes[k].Searched = true
		rebound()
	}
	return r, nil
}

// StartCheckShare bounds the cost of the check at the start of a run of
// S steps: it makes at most S/StartCheckShare passes over the state (or
// StartCheckFloor value-passes, whichever is more; see checkCost). A
// trial step counts as one pass: it uses the run's own workers and steps
// as the run does, so it costs what a step of the run costs, and a run
// step reads and writes the whole state at least once. The analysis's
// own arithmetic is counted in passes too (a Gram–Schmidt dot or update
// is one; the dense eigenvalues of an n×n matrix count n² passes), so
// the check costs at most about 1/StartCheckShare of the run.
const StartCheckShare = 10

// StartCheckFloor is the work (state values × passes) the start check
// may always do, whatever the run's length: about a millisecond. Small
// graphs are analysed even for a run of one step (a graph of 40 values
// by its dense matrix); a large graph's short run by a smaller Krylov
// space (checkPlan).
const StartCheckFloor = 1 << 20

// minKrylovDim is the smallest Krylov dimension the start check uses; a
// run whose budget does not afford one cycle of it is not analysed.
const minKrylovDim = 4

// checkPlan is how a radius is computed: the dense matrix, or restarted
// Arnoldi of Krylov dimension dim and at most cycles cycles, whose
// undecided estimates are replaced by the dense radius when escalate is
// set (amplifier.decide).
type checkPlan struct {
	dense       bool
	dim, cycles int
	escalate    bool
}

// fullPlan is the plan of Stability, CheckStability for a run without
// an end, and cosim check: dense up to DenseStabilityStates values,
// Krylov dimension KrylovDim and KrylovCycles cycles above, escalating
// to the dense radius up to DenseMaxStates values.
func fullPlan(n int, how stabilityMethod) checkPlan {
	switch {
	case how == forceDense || how == bySize && n <= DenseStabilityStates:
		return checkPlan{dense: true}
	}
	return checkPlan{dim: min(KrylovDim, n), cycles: KrylovCycles, escalate: how == bySize && n <= DenseMaxStates}
}

// passes is the cost of one radius and the growth estimate under the
// plan, in passes over the n state values (see StartCheckShare): 2n
// trial steps, n Jacobian columns and n² for the eigenvalues when dense;
// per Arnoldi cycle of dimension m, 2m trial steps (or evaluations of
// the System's f for the growth cycle) and 4(j+1)+3 passes of
// Gram–Schmidt and scaling at the j-th vector; with escalate, at most
// the dense radius and the dense growth rate on top (3n + 2n²).
func (p checkPlan) passes(n int) int {
	if p.dense {
		return 3*n + n*n
	}
	cycle := 0
	for j := 0; j < p.dim; j++ {
		cycle += 2 + 4*(j+1) + 3
	}
	c := (p.cycles + 1) * cycle
	if p.escalate {
		c += 3*n + 2*n*n
	}
	return c
}

// startPlan is the plan of the check at the start of a run of steps
// steps (0: without an end), and false when the run is too short to
// afford even one Arnoldi cycle of dimension minKrylovDim. The budget is
// max(steps/StartCheckShare, StartCheckFloor/n) passes: the full plan
// when it fits (up to DenseStabilityStates values that is the dense
// matrix, the cheapest exact plan), else KrylovCycles cycles of the
// largest dimension that fits, else one cycle of the largest dimension
// that fits.
func startPlan(n, steps int, how stabilityMethod) (checkPlan, bool) {
	full := fullPlan(n, how)
	if steps <= 0 || how != bySize || n == 0 {
		return full, true
	}
	budget := max(steps/StartCheckShare, StartCheckFloor/n)
	if full.passes(n) <= budget {
		return full, true
	}
	for _, cycles := range []int{KrylovCycles, 1} {
		for m := min(KrylovDim, n); m >= min(minKrylovDim, n); m-- {
			if p := (checkPlan{dim: m, cycles: cycles}); p.passes(n) <= budget {
				return p, true
			}
		}
	}
	return checkPlan{}, false
}

// shortRun says why the check at the start of a run of steps steps (full
// false) does not analyse a graph of n values, or "": the run is so short
// that even the smallest analysis would cost more than its share of the
// run (StartCheckShare); a perturbation can double within so few steps
// only at a radius far above 1, which the run shows by itself.
func shortRun(n, steps int, full bool) string {
	if full || !isShort(n, steps) {
		return ""
	}
	return fmt.Sprintf("the run's %d steps are too short for the analysis of %d state values: even one Arnoldi cycle of dimension %d would cost more than 1/%d of the run (Sim.Stability, cosim check analyse it)", steps, n, minKrylovDim, StartCheckShare)
}

// startPasses is the cost of the start check's plan for a run of steps
// steps of a graph of n values (0 when it is too short). It does not
// allocate.
func startPasses(n, steps int) int {
	p, ok := startPlan(n, steps, bySize)
	if !ok {
		return 0
	}
	return p.passes(n)
}

// isShort reports whether a run of steps steps is too short for the
// start check of a graph of n values (shortRun). It does not allocate.
func isShort(n, steps int) bool {
	_, ok := startPlan(n, steps, bySize)
	return !ok
}

// analysable says why the graph cannot be analysed, or "".
func (s *Sim) analysable() string {
	if len(s.state) == 0 {
		return "the graph has no state"
	}
	return s.hiddenState()
}

// MonolithicStability analyses one step dt of the fixed-step method
// (with the driver options opts, nil for the defaults) on the graph's
// System, at its current state: the spectral radius of the method's
// one-step amplification operator (the step started afresh from the
// perturbed state, Stepper.Init then Step) and its largest stable step,
// in an analysis whose Method names the method and whose one scheme is
// the method: the analysis of a Monolithic run (an adaptive run,
// MonolithicAdaptive, is kept stable by its error control, which chooses
// the steps, and is not analysed). The Sim is left as it was. A method
// that carries memory from step to step (the Newmark family's algorithmic
// acceleration) is analysed as restarted at every step: its radius is
// that of the step from a consistent start, not of the recurrence with
// the memory. The report is judged per step: Over ties it to a run's
// length.
func (s *Sim) MonolithicStability(method integrators.Method, opts *integrators.DriverOptions, dt float64) (*StabilityAnalysis, error) {
	return s.monolithicStability(method, opts, dt, true, 0, bySize)
}

// CheckMonolithicStability is MonolithicStability made cheap for the
// start of a run of steps steps (0: without an end): the largest stable
// step is searched only when the method is unstable over the run
// (Unstable). Run calls it for a Monolithic run (Result.Stability).
func (s *Sim) CheckMonolithicStability(method integrators.Method, opts *integrators.DriverOptions, dt float64, steps int) (*StabilityAnalysis, error) {
	return s.monolithicStability(method, opts, dt, false, steps, bySize)
}

func (s *Sim) monolithicStability(method integrators.Method, opts *integrators.DriverOptions, dt float64, full bool, steps int, how stabilityMethod) (*StabilityAnalysis, error) {
	if method == nil {
		return nil, fmt.Errorf("graph: MonolithicStability: no integration method (nil)")
	}
	if !(dt > 0) || math.IsInf(dt, 0) {
		return nil, fmt.Errorf("graph: MonolithicStability: dt = %v: the step must be finite and positive", dt)
	}
	r := &StabilityAnalysis{Time: s.Time(), Dt: dt, States: len(s.state), Bound: 1, Method: method.Name(), Steps: max(steps, 0)}
	plan, ok := startPlan(len(s.state), steps, how)
	if full {
		plan, ok = fullPlan(len(s.state), how), true
	}
	if len(s.state) > 0 && !ok {
		// (Before the node scan: a long list of nodes is what makes the
		// run too short.)
		r.Skipped, r.short = shortRun(len(s.state), steps, full), true
		return r, nil
	}
	if why := s.analysable(); why != "" {
		r.Skipped = why
		return r, nil
	}
	a := newAmplifier(s)
	a.plan = plan
	r.passes = plan.passes(len(s.state))
	defer a.restore()
	f, err := a.monoStep(method, opts)
	if err != nil {
		return nil, err
	}
	r.Growth, r.GrowthKnown = a.growth()
	r.Bound = growthBound(r.Growth, dt)
	sc := SchemeStability{Strategy: method.Name(), Chosen: true}
	if err := a.decide(f, dt, &sc); err != nil {
		r.Skipped = "a trial step failed: " + err.Error()
		return r, nil
	}
	r.Growth, r.Bound = a.grow, a.bound(dt)
	sc.Stable = sc.stableUnder(r.Bound)
	r.Schemes = []SchemeStability{sc}
	if full || r.Unstable() {
		r.Schemes[0].MaxDt, r.Schemes[0].AtLeast = a.maxStableDt(f, dt, sc.Stable)
		r.Schemes[0].Searched = true
		r.Growth, r.Bound = a.grow, a.bound(dt)
		r.Schemes[0].Stable = r.Schemes[0].stableUnder(r.Bound)
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
		if k == 0 && needsPlan(&a) {
			// The chosen strategy must compile for this graph (node
			// names): that is the caller's error. (Jacobi without rates
			// steps on the default path and names no node.)
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
// error, divided by the perturbation, into the matrix). A trial step of
// an iterated group costs one evaluation of the group's map per
// iteration, up to MaxIter: 3 to 4 with the analysis's Newton iteration
// (newtonAccel), which replaces IQN-ILS for interfaces up to
// NewtonInterface values, about 20 with IQN-ILS above.
var analysisIteration = coupling.Iteration{
	Acceleration: coupling.Acceleration{Accel: coupling.IQNILS},
	ATol:         1e-15, RTol: 1e-14, MaxIter: 40, OnFail: coupling.Accept,
}

// analysisResidual is the largest relative residual of an accepted
// fixed point in the analysis.
const analysisResidual = 1e-9
