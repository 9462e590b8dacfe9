package integrators

import (
	"errors"
	"math"
	"slices"
)

// Settings controls steppers and drivers, like optimize.Settings. A nil
// *Settings means every documented default. Every field's zero value
// selects its default. A non-zero field that the method or driver does
// not use is an error wrapping ErrNotApplicable (Method.New,
// NewAdaptive, Integrate), never silently ignored: the adaptive driver's
// fields (RTol through Output) apply to NewAdaptive and Integrate only,
// the Newton and linear-solver fields (NewtonTol through
// JacobianMaxAge) to the implicit, structural and user-defined methods
// only. The event fields apply everywhere, and Positions, Velocities and
// IDs, which describe the system rather than choose an option, are
// accepted by every method.
type Settings struct {
	// RTol and ATol are the relative and absolute tolerances of the
	// adaptive Dormand–Prince controller: a step is accepted when the RMS
	// norm of err_i / (ATol + RTol·max(|y_i|, |y_new,i|)) is at most 1.
	// Zero means RTol = 1e-6 and ATol = 1e-9.
	RTol, ATol float64

	// InitialStep is the first trial step of the adaptive driver. Zero
	// means the automatic choice of Hairer, Nørsett & Wanner (one extra
	// evaluation of Func).
	InitialStep float64

	// MinStep is the smallest step the adaptive controller may propose;
	// needing a smaller one ends the run with StepTooSmall. A last step
	// trimmed to land on the end time may be shorter. Zero means no bound
	// other than 16 ulp of t.
	MinStep float64

	// MaxStep bounds every adaptive step. Zero means +Inf (the end time
	// still bounds a step).
	MaxStep float64

	// MaxSteps bounds the number of trial steps (accepted + rejected) of
	// one Integrate call or one Adaptive.Step call. Zero means 1e6.
	MaxSteps int

	// FixedStep, when positive, turns the Dormand–Prince driver into a
	// fixed-step 5th-order method without error control (dense output and
	// events still work). Zero means adaptive.
	FixedStep float64

	// Output lists the times, ascending and within [t0, tEnd], at which
	// Integrate records dense-output samples. Zero (nil) means none.
	Output []float64

	// EventTol is the absolute time tolerance of event localization: the
	// reported event time lies on the far side of the crossing and
	// within max(EventTol, 4ε|t|) of the root of the dense-output event
	// function. Zero means 1e-12.
	EventTol float64

	// ZenoLimit and ZenoSpacing form the Zeno guard: if ZenoLimit
	// consecutive events each fire less than ZenoSpacing after the
	// previous one, the run ends with ZenoDetected instead of stalling.
	// Zero means ZenoLimit = 16 and ZenoSpacing = 1e-9·max(1, |t|).
	ZenoLimit   int
	ZenoSpacing float64

	// NewtonTol is the convergence test of the Newton iterations of the
	// implicit methods: the iteration stops when
	// max|Δx| ≤ NewtonTol·(1 + max|x|). Zero means 1e-10.
	NewtonTol float64

	// NewtonMaxIter bounds the Newton iterations of one step; not
	// converging within it fails the step with NewtonFailure. Zero means
	// 10.
	NewtonMaxIter int

	// LinearSolver selects the linear solver of the Newton iterations of
	// every implicit and structural method: dense LU, GMRES, or (zero)
	// LinearAuto, dense up to AutoDenseMax unknowns and GMRES above.
	LinearSolver LinearSolver

	// Preconditioner is GMRES's right preconditioner; zero means
	// block-Jacobi over the system's blocks (Blocked).
	Preconditioner Preconditioner

	// KrylovTol is the smallest forcing term: GMRES stops when the
	// linear residual is at most η·‖R‖ with η ≥ KrylovTol (η = KrylovTol
	// with ForcingConstant). Zero means 1e-6.
	KrylovTol float64

	// KrylovRestart is m of GMRES(m), the Krylov basis kept before a
	// restart (m+2 vectors of the system's size are stored). Zero means
	// 30.
	KrylovRestart int

	// KrylovMaxIter bounds the GMRES iterations of one linear solve;
	// reaching it fails the step with LinearFailure. Zero means 500.
	KrylovMaxIter int

	// Forcing chooses the forcing terms of the inexact Newton iteration;
	// zero means Eisenstat–Walker.
	Forcing Forcing

	// MatrixFree makes GMRES apply the Newton matrix by a directional
	// finite difference of the residual instead of the assembled sparse
	// Jacobian: A·v ≈ (R(x + h·v) − R(x))/h with
	// h = √(ε·(1 + ‖x‖₂))/‖v‖₂ (ε the float64 machine epsilon; Pernice &
	// Walker, SIAM J. Sci. Comput. 19(1), 302–318, 1998, as surveyed by
	// Knoll & Keyes, J. Comput. Phys. 193, 357–397, 2004, §2.2): one
	// right-hand side per GMRES iteration. The Jacobian is then assembled
	// only for the preconditioner (never with PrecondNone).
	MatrixFree bool

	// JacobianMaxAge bounds, with GMRES, the number of steps an assembled
	// Newton matrix and its preconditioner are reused (it is re-assembled
	// sooner when the step size changes or Newton converges slowly or
	// fails with it). 1 assembles at every step's first iteration. Zero
	// means 20. The dense solver re-evaluates at every iteration.
	JacobianMaxAge int

	// Positions and Velocities pair position components with their
	// velocities (y[Positions[i]]' = y[Velocities[i]]) for semi-implicit
	// Euler and for Newmark/generalized-alpha on a first-order System.
	// Zero (nil) means the pairs of the System's Partitioned capability.
	Positions, Velocities []int

	// IDs is an optional caller-supplied layout (body or particle IDs)
	// stored in second-order histories and checkpoints; resuming with a
	// different list is rejected. Zero (nil) means no IDs.
	IDs []int64
}

// conf is Settings with the defaults filled in.
type conf struct {
	rtol, atol     float64
	h0, hmin, hmax float64
	maxSteps       int
	fixed          float64
	output         []float64
	eventTol       float64
	zenoLimit      int
	zenoSpacing    float64
	newtonTol      float64
	newtonMaxIter  int
	ids            []int64
	pos, vel       []int
	lin            LinearSolver
	pc             Preconditioner
	krylovTol      float64
	restart        int
	krylovMaxIter  int
	forcing        Forcing
	matrixFree     bool
	jacMaxAge      int
}

func resolve(s *Settings) conf {
	var c conf
	if s != nil {
		c = conf{
			rtol: s.RTol, atol: s.ATol,
			h0: s.InitialStep, hmin: s.MinStep, hmax: s.MaxStep,
			maxSteps: s.MaxSteps, fixed: s.FixedStep,
			output:   s.Output,
			eventTol: s.EventTol, zenoLimit: s.ZenoLimit, zenoSpacing: s.ZenoSpacing,
			newtonTol: s.NewtonTol, newtonMaxIter: s.NewtonMaxIter,
			ids: slices.Clone(s.IDs),
			pos: slices.Clone(s.Positions), vel: slices.Clone(s.Velocities),
			lin: s.LinearSolver, pc: s.Preconditioner, krylovTol: s.KrylovTol,
			restart: s.KrylovRestart, krylovMaxIter: s.KrylovMaxIter,
			forcing: s.Forcing, matrixFree: s.MatrixFree, jacMaxAge: s.JacobianMaxAge,
		}
	}
	if c.rtol == 0 {
		c.rtol = 1e-6
	}
	if c.atol == 0 {
		c.atol = 1e-9
	}
	if c.hmax == 0 {
		c.hmax = math.Inf(1)
	}
	if c.maxSteps == 0 {
		c.maxSteps = 1000000
	}
	if c.eventTol == 0 {
		c.eventTol = 1e-12
	}
	if c.zenoLimit == 0 {
		c.zenoLimit = 16
	}
	if c.newtonTol == 0 {
		c.newtonTol = 1e-10
	}
	if c.newtonMaxIter == 0 {
		c.newtonMaxIter = 10
	}
	if c.krylovTol == 0 {
		c.krylovTol = 1e-6
	}
	if c.restart == 0 {
		c.restart = 30
	}
	if c.krylovMaxIter == 0 {
		c.krylovMaxIter = 500
	}
	if c.jacMaxAge == 0 {
		c.jacMaxAge = 20
	}
	return c
}

// Clock computes time from the step count: t = base + n·dt, restarting
// the count whenever the step size changes (STYLE: time from the step
// count, not t += dt).
type Clock struct {
	Base float64 // time at which the current constant-step run started
	N    int     // steps of size DT taken since Base
	DT   float64 // step size of the current run
}

// Now returns Base + N·DT.
func (c Clock) Now() float64 { return c.Base + float64(c.N)*c.DT }

// next returns the clock after one more step of size dt.
func (c Clock) next(dt float64) Clock {
	if dt != c.DT {
		return Clock{Base: c.Now(), N: 1, DT: dt}
	}
	c.N++
	return c
}

func firstNonFinite(y []float64) int {
	// One multiply-add per value first: v·0 is 0 for every finite v and
	// NaN otherwise, so the sums are 0 exactly when every value is
	// finite; only a failing vector is scanned for its first bad index.
	var a0, a1, a2, a3 float64
	i := 0
	for ; i+4 <= len(y); i += 4 {
		q := y[i : i+4 : i+4]
		a0 += q[0] * 0
		a1 += q[1] * 0
		a2 += q[2] * 0
		a3 += q[3] * 0
	}
	for ; i < len(y); i++ {
		a0 += y[i] * 0
	}
	if a0+a1+a2+a3 == 0 {
		return -1
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return i
		}
	}
	return -1
}

func checkStep(dt float64) {
	if !(dt > 0) || math.IsInf(dt, 0) {
		panic("integrators: step size must be positive and finite, got " + fmtF(dt))
	}
}

// pairsOf returns the partition from the settings or the System.
func pairsOf(sys System, c conf, method string) (Partitioned, error) {
	if c.pos != nil || c.vel != nil {
		return pairList{c.pos, c.vel}, nil
	}
	if p, ok := sys.(Partitioned); ok {
		return p, nil
	}
	return nil, errors.New("integrators: " + method + " needs position/velocity pairs: Settings.Positions and Settings.Velocities, or a System that implements Partitioned")
}

type pairList struct{ pos, vel []int }

func (p pairList) Pairs() (pos, vel []int) { return p.pos, p.vel }
