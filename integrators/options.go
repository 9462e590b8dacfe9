package integrators

import (
	"errors"
	"math"
	"slices"
)

// DriverOptions are the options every method shares, those of the
// drivers rather than of one method (each method's own options are fields
// of its type: DormandPrince's tolerances, the implicit methods'
// NewtonOptions and LinearOptions). A nil *DriverOptions means every
// documented default, and every field's zero value selects its default.
// Output and MaxSteps belong to the adaptive drivers (NewAdaptive,
// AdaptiveMethod.NewDriver, Integrate): NewStepper and NewSecondOrder return an error
// wrapping ErrNotApplicable when one is set, never ignoring it.
type DriverOptions struct {
	// Output lists the times, ascending and within [t0, tEnd], at which
	// Integrate records dense-output samples. Zero (nil) means none.
	Output []float64

	// MaxSteps bounds the number of trial steps (accepted + rejected) of
	// one Integrate call or one Adaptive.Step call. Zero means 1e6.
	MaxSteps int

	// EventTol is the absolute time tolerance of event localization: the
	// reported event time lies on the far side of the crossing and
	// within max(EventTol, 4ε|t|) of the root of the event function.
	// Zero means 1e-12.
	EventTol float64

	// ZenoLimit and ZenoSpacing form the Zeno guard: if ZenoLimit
	// consecutive events each fire less than ZenoSpacing after the
	// previous one, the run ends with ZenoDetected instead of stalling.
	// Zero means ZenoLimit = 16 and ZenoSpacing = 1e-9·max(1, |t|).
	ZenoLimit   int
	ZenoSpacing float64

	// Positions and Velocities pair position components with their
	// velocities (y[Positions[i]]' = y[Velocities[i]]) for semi-implicit
	// Euler and for Newmark/generalized-alpha on a first-order System.
	// Zero (nil) means the pairs of the System's Partitioned capability.
	Positions, Velocities []int

	// IDs is an optional caller-supplied layout (body or particle IDs)
	// stored in second-order memories and stepper states; resuming with
	// a different list is rejected. Zero (nil) means no IDs.
	IDs []int64
}

// settings is the flat form of a method's options and the
// DriverOptions, from which resolve fills in the defaults.
type settings struct {
	RTol, ATol            float64
	InitialStep           float64
	MinStep, MaxStep      float64
	MaxSteps              int
	FixedStep             float64
	Output                []float64
	EventTol              float64
	ZenoLimit             int
	ZenoSpacing           float64
	NewtonTol             float64
	NewtonMaxIter         int
	LinearSolver          LinearSolver
	Preconditioner        Preconditioner
	KrylovTol             float64
	KrylovRestart         int
	KrylovMaxIter         int
	Forcing               Forcing
	MatrixFree            bool
	JacobianMaxAge        int
	Positions, Velocities []int
	IDs                   []int64
}

// settings returns the flat settings of o (nil: all defaults).
func (o *DriverOptions) settings() *settings {
	s := &settings{}
	if o != nil {
		s.Output, s.MaxSteps = o.Output, o.MaxSteps
		s.EventTol, s.ZenoLimit, s.ZenoSpacing = o.EventTol, o.ZenoLimit, o.ZenoSpacing
		s.Positions, s.Velocities, s.IDs = o.Positions, o.Velocities, o.IDs
	}
	return s
}

// setSolver sets the Newton and linear-solver fields.
func (s *settings) setSolver(n NewtonOptions, l LinearOptions) {
	s.NewtonTol, s.NewtonMaxIter = n.Tol, n.MaxIter
	s.LinearSolver, s.Preconditioner, s.Forcing = l.Solver, l.Preconditioner, l.Forcing
	s.KrylovTol, s.KrylovRestart, s.KrylovMaxIter = l.KrylovTol, l.KrylovRestart, l.KrylovMaxIter
	s.MatrixFree, s.JacobianMaxAge = l.MatrixFree, l.JacobianMaxAge
}

// solverSettings returns the flat settings of a solver's options alone.
func solverSettings(n NewtonOptions, l LinearOptions) *settings {
	s := &settings{}
	s.setSolver(n, l)
	return s
}

// settings returns the flat settings of the adaptive driver of m with o.
func (m DormandPrince) settings(o *DriverOptions) *settings {
	s := o.settings()
	s.RTol, s.ATol, s.InitialStep = m.RTol, m.ATol, m.InitialStep
	s.MinStep, s.MaxStep, s.FixedStep = m.MinStep, m.MaxStep, m.FixedStep
	return s
}

// conf is settings with the defaults filled in.
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

func resolve(s *settings) conf {
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
	return nil, errors.New("integrators: " + method + " needs position/velocity pairs: DriverOptions.Positions and DriverOptions.Velocities, or a System that implements Partitioned")
}

type pairList struct{ pos, vel []int }

func (p pairList) Pairs() (pos, vel []int) { return p.pos, p.vel }
