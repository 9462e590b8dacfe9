package integrators

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Method names: the stable name of every built-in method, what its Name
// returns. Node metadata names its discretization with exactly these
// strings, scene files and checkpoints store them, and ByName maps them
// back to a Method.
const (
	MethodForwardEuler      = "forward-euler"
	MethodSemiImplicitEuler = "semi-implicit-euler"
	MethodHeun              = "heun"
	MethodRK4               = "rk4"
	MethodDormandPrince     = "dormand-prince"
	MethodBackwardEuler     = "backward-euler"
	MethodImplicitTrapezoid = "implicit-trapezoid"
	MethodNewmark           = "newmark"
	MethodGeneralizedAlpha  = "generalized-alpha"
	MethodESDIRK43          = "esdirk43"
	MethodESDIRK32          = "esdirk32"
	MethodBDF               = "bdf"
)

// Method is an integration method, like gonum's optimize.Method: a small
// interface that the drivers (NewStepper, graph.Sim.RunMonolithic) use,
// implemented by the built-in methods of this package — ForwardEuler,
// SemiImplicitEuler, Heun, RK4, DormandPrince, BackwardEuler,
// ImplicitTrapezoid, Newmark, GeneralizedAlpha, ESDIRK43, ESDIRK32, BDF,
// and NewmarkFamily for the family's other members — and by any type of
// the caller's.
//
// Each built-in method is a value type that carries its own options
// (DormandPrince its tolerances, the implicit methods their
// NewtonOptions and LinearOptions, Newmark β and γ); the zero value of
// every option means its documented default (GeneralizedAlpha's ρ∞ is a
// parameter with no default: its zero is ρ∞ = 0), and an option that a
// method does not have cannot be given to it. What every method shares — event
// tolerances, the system's position/velocity pairs, the adaptive
// driver's output times and step budget — is in DriverOptions.
//
// A method defined outside this package implements Method directly. Its
// Name must be 1 to 64 bytes without surrounding spaces and not (in any
// case) the name of a built-in method; its Order is the declared global
// order of accuracy, at least 1. New returns a fixed-step Stepper for sys
// whose Method and Order report the method's Name and Order; it receives
// the caller's DriverOptions after NewStepper has refused those no
// fixed-step method uses (Output, MaxSteps), and need not handle events:
// NewStepper locates them for it as for the built-in methods
// (re-stepping from Init, or from Checkpoint/Restore when the Stepper is
// a Checkpointer). Register makes it known to ByName, so that scene files
// and the cosim command line can name it and checkpoints of it can be
// resumed. A Method value may be used by several goroutines at once: its
// New must not modify it.
type Method interface {
	// Name returns the method's stable name, e.g. MethodRK4.
	Name() string
	// Order returns the declared global order of accuracy.
	Order() int
	// New returns a fixed-step Stepper of the method for sys. Callers
	// use NewStepper, which checks the method and adds event handling
	// to a caller-defined method's Stepper; a built-in method's New is
	// NewStepper.
	New(sys System, o *DriverOptions) (Stepper, error)
}

// NewtonMethod is implemented by the methods that solve a nonlinear
// equation by Newton's method at every step (BackwardEuler,
// ImplicitTrapezoid, Newmark, GeneralizedAlpha, ESDIRK43, ESDIRK32,
// BDF). Scene loaders and
// checkpoints use it to read and set the solver options of whichever
// implicit method they hold.
type NewtonMethod interface {
	Method
	// Solver returns the method's Newton and linear-solver options.
	Solver() (NewtonOptions, LinearOptions)
	// WithSolver returns a copy of the method with these options.
	WithSolver(NewtonOptions, LinearOptions) NewtonMethod
}

// SecondOrderMethod is implemented by the Newmark family, which also
// runs on a SecondOrder system with an explicit Memory (SecondOrderStepper).
type SecondOrderMethod interface {
	Method
	// Params returns the method's parameters αm, αf, β, γ (and ρ∞).
	Params() AlphaParams
	// NewSecondOrder returns a SecondOrderStepper of the method for sys.
	NewSecondOrder(sys SecondOrder, o *DriverOptions) (*SecondOrderStepper, error)
}

// builtin is implemented by this package's methods only.
type builtin interface {
	Method
	// info returns the name, order and parameters, with every default
	// filled in; its value identifies the method and its options.
	info() methodInfo
	// canonical returns the method with every option's default filled
	// in: two built-in methods are the same iff their canonical forms
	// are ==.
	canonical() Method
}

// methodInfo is what a stepper records of its method.
type methodInfo struct {
	Name  string
	Order int
	Alpha AlphaParams // Newmark family only
}

// AlphaParams are the parameters of the Newmark family. Newmark is AlphaM =
// AlphaF = 0. The weights are on the old state (Chung–Hulbert):
//
//	(1−αm)·a_{n+1} + αm·a_n = a(t_{n+1−αf}, q_{n+1−αf}, v_{n+1−αf}, z_{n+1−αf})
//	q_{n+1} = q_n + dt·v_n + dt²·((½−β)·a_n + β·a_{n+1})
//	v_{n+1} = v_n + dt·((1−γ)·a_n + γ·a_{n+1})
//
// where x_{n+1−αf} = (1−αf)·x_{n+1} + αf·x_n. Steppers, memories and
// stepper states record them to reject a foreign one.
type AlphaParams struct {
	AlphaM, AlphaF float64
	Beta, Gamma    float64
	// RhoInf is ρ∞ for generalized-alpha; for Newmark it is 0 and has no
	// meaning.
	RhoInf float64
}

// ForwardEuler is y_{n+1} = y_n + dt·f(t_n, y_n): explicit, first order,
// one evaluation per step. It has no options.
type ForwardEuler struct{}

// SemiImplicitEuler (symplectic Euler) updates the velocities and other
// components with f(t_n, y_n) and then the positions with the new
// velocities; it needs the system's position/velocity pairs
// (Partitioned, or DriverOptions.Positions and Velocities). First order,
// one evaluation per step. It has no options.
type SemiImplicitEuler struct{}

// Heun is the explicit trapezoidal (improved Euler) Runge–Kutta method:
// second order, two evaluations per step. It has no options.
type Heun struct{}

// RK4 is the classical fourth-order Runge–Kutta method: four evaluations
// per step. It has no options.
type RK4 struct{}

// DormandPrince is the Dormand–Prince 5(4) pair. As a fixed-step Method
// (NewStepper, graph.Sim.RunMonolithic) it takes the 5th-order solution
// with the caller's step, and its controller fields must be zero (setting
// one is an error wrapping ErrNotApplicable: the caller, not a
// controller, chooses the step). Its adaptive driver (NewAdaptive,
// Integrate, graph.Sim.Integrate) adds the embedded error estimate, step
// control with these options, dense output and events. Zero values mean
// the documented defaults.
type DormandPrince struct {
	// RTol and ATol are the relative and absolute tolerances of the
	// adaptive controller: a step is accepted when the RMS norm of
	// err_i / (ATol + RTol·max(|y_i|, |y_new,i|)) is at most 1.
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

	// FixedStep, when positive, turns the adaptive driver into a
	// fixed-step 5th-order method without error control (dense output and
	// events still work). Zero means adaptive.
	FixedStep float64
}

// NewtonOptions configure the Newton iteration of an implicit method.
// Zero values mean the documented defaults.
type NewtonOptions struct {
	// Tol is the convergence test: the iteration stops when
	// max|Δx| ≤ Tol·(1 + max|x|). Zero means 1e-10.
	Tol float64
	// MaxIter bounds the iterations of one step; not converging within
	// it fails the step with NewtonFailure. Zero means 10.
	MaxIter int
}

// LinearOptions configure the linear solver of the Newton iterations of
// an implicit method. Zero values mean the documented defaults.
type LinearOptions struct {
	// Solver selects dense LU, GMRES, banded LU, or (zero) LinearAuto,
	// dense up to AutoDenseMax unknowns and GMRES above.
	Solver LinearSolver

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

	// JacobianMaxAge bounds, with GMRES and banded LU, the number of
	// steps an assembled Newton matrix and its preconditioner are reused
	// (it is re-assembled sooner when the step size changes or Newton
	// converges slowly or fails with it). 1 assembles at every step's
	// first iteration. Zero means 20. The dense solver re-evaluates at
	// every iteration.
	JacobianMaxAge int
}

// BackwardEuler is y_{n+1} = y_n + dt·f(t_{n+1}, y_{n+1}), solved by
// Newton's method: first order, L-stable.
type BackwardEuler struct {
	Newton NewtonOptions
	Linear LinearOptions
}

// ImplicitTrapezoid is y_{n+1} = y_n + dt/2·(f_n + f_{n+1}), solved by
// Newton's method: second order, A-stable without damping.
type ImplicitTrapezoid struct {
	Newton NewtonOptions
	Linear LinearOptions
}

// Newmark is the Newmark method with parameters β and γ (zero means
// β = ¼, γ = ½, the average-acceleration rule).
//
// Its declared Order is 2 only for γ = ½ and 1 otherwise: the velocity
// update's local error has a term (γ−½)·dt²·ȧ, so any γ ≠ ½ is first
// order whatever β (Hughes, The Finite Element Method, §9.1.2). Applied to
// the undamped oscillator q̈ = −ω²q it is
//
//   - unconditionally stable for 2β ≥ γ ≥ ½ (β = ¼, γ = ½ is second
//     order without numerical damping; γ > ½ adds damping of order γ−½),
//   - conditionally stable for γ ≥ ½, 2β < γ: ω·dt ≤ 1/√(γ/2 − β),
//   - unstable for γ < ½ (negative numerical damping: amplitudes grow at
//     every step size).
//
// NewStepper and NewSecondOrder reject β < 0 and γ < ½ (the unstable
// range) with an error; the conditionally stable range is accepted.
type Newmark struct {
	Beta, Gamma float64
	Newton      NewtonOptions
	Linear      LinearOptions
}

// DefaultRhoInf is the ρ∞ of the generalized-alpha method that ByName
// returns.
const DefaultRhoInf = 0.5

// GeneralizedAlpha is the generalized-alpha method (Chung & Hulbert 1993)
// with spectral radius at infinity ρ∞ ∈ [0, 1]:
//
//	αm = (2ρ∞−1)/(ρ∞+1), αf = ρ∞/(ρ∞+1), γ = ½−αm+αf, β = ¼(1−αm+αf)².
//
// ρ∞ = 1 is undamped average-acceleration Newmark for linear forces;
// ρ∞ = 0 annihilates the highest frequencies in one step. RhoInf is a
// parameter, not an option: its zero value is ρ∞ = 0, the most damping
// member of the family; ByName returns ρ∞ = DefaultRhoInf.
type GeneralizedAlpha struct {
	RhoInf float64
	Newton NewtonOptions
	Linear LinearOptions
}

// Name, Order and New implement Method for each built-in method.

func (ForwardEuler) Name() string      { return MethodForwardEuler }
func (SemiImplicitEuler) Name() string { return MethodSemiImplicitEuler }
func (Heun) Name() string              { return MethodHeun }
func (RK4) Name() string               { return MethodRK4 }
func (DormandPrince) Name() string     { return MethodDormandPrince }
func (BackwardEuler) Name() string     { return MethodBackwardEuler }
func (ImplicitTrapezoid) Name() string { return MethodImplicitTrapezoid }
func (Newmark) Name() string           { return MethodNewmark }
func (GeneralizedAlpha) Name() string  { return MethodGeneralizedAlpha }

func (ForwardEuler) Order() int      { return 1 }
func (SemiImplicitEuler) Order() int { return 1 }
func (Heun) Order() int              { return 2 }
func (RK4) Order() int               { return 4 }
func (DormandPrince) Order() int     { return 5 }
func (BackwardEuler) Order() int     { return 1 }
func (ImplicitTrapezoid) Order() int { return 2 }
func (GeneralizedAlpha) Order() int  { return 2 }

// Order is 2 for γ = ½ and 1 otherwise.
func (m Newmark) Order() int {
	if m.canonical().(Newmark).Gamma == 0.5 {
		return 2
	}
	return 1
}

func (m ForwardEuler) info() methodInfo      { return methodInfo{Name: m.Name(), Order: m.Order()} }
func (m SemiImplicitEuler) info() methodInfo { return methodInfo{Name: m.Name(), Order: m.Order()} }
func (m Heun) info() methodInfo              { return methodInfo{Name: m.Name(), Order: m.Order()} }
func (m RK4) info() methodInfo               { return methodInfo{Name: m.Name(), Order: m.Order()} }
func (m DormandPrince) info() methodInfo     { return methodInfo{Name: m.Name(), Order: m.Order()} }
func (m BackwardEuler) info() methodInfo     { return methodInfo{Name: m.Name(), Order: m.Order()} }
func (m ImplicitTrapezoid) info() methodInfo { return methodInfo{Name: m.Name(), Order: m.Order()} }
func (m Newmark) info() methodInfo {
	return methodInfo{Name: m.Name(), Order: m.Order(), Alpha: m.Params()}
}
func (m GeneralizedAlpha) info() methodInfo {
	return methodInfo{Name: m.Name(), Order: m.Order(), Alpha: m.Params()}
}

func (m ForwardEuler) canonical() Method      { return m }
func (m SemiImplicitEuler) canonical() Method { return m }
func (m Heun) canonical() Method              { return m }
func (m RK4) canonical() Method               { return m }
func (m DormandPrince) canonical() Method {
	s := resolve(m.settings(nil))
	return DormandPrince{RTol: s.rtol, ATol: s.atol, InitialStep: s.h0, MinStep: s.hmin, MaxStep: s.hmax, FixedStep: s.fixed}
}
func (m BackwardEuler) canonical() Method {
	m.Newton, m.Linear = canonicalSolver(m.Newton, m.Linear)
	return m
}
func (m ImplicitTrapezoid) canonical() Method {
	m.Newton, m.Linear = canonicalSolver(m.Newton, m.Linear)
	return m
}
func (m Newmark) canonical() Method {
	if m.Beta == 0 {
		m.Beta = 0.25
	}
	if m.Gamma == 0 {
		m.Gamma = 0.5
	}
	m.Newton, m.Linear = canonicalSolver(m.Newton, m.Linear)
	return m
}
func (m GeneralizedAlpha) canonical() Method {
	m.Newton, m.Linear = canonicalSolver(m.Newton, m.Linear)
	return m
}

// canonicalSolver fills in the solver defaults.
func canonicalSolver(n NewtonOptions, l LinearOptions) (NewtonOptions, LinearOptions) {
	c := resolve(solverSettings(n, l))
	return NewtonOptions{Tol: c.newtonTol, MaxIter: c.newtonMaxIter},
		LinearOptions{Solver: c.lin, Preconditioner: c.pc, KrylovTol: c.krylovTol, KrylovRestart: c.restart,
			KrylovMaxIter: c.krylovMaxIter, Forcing: c.forcing, MatrixFree: c.matrixFree, JacobianMaxAge: c.jacMaxAge}
}

// Params returns αm = αf = 0 and β, γ with their defaults filled in.
func (m Newmark) Params() AlphaParams {
	c := m.canonical().(Newmark)
	return AlphaParams{Beta: c.Beta, Gamma: c.Gamma}
}

// Params returns αm, αf, β and γ computed from ρ∞ (see GeneralizedAlpha).
func (m GeneralizedAlpha) Params() AlphaParams {
	r := m.RhoInf
	am := (2*r - 1) / (r + 1)
	af := r / (r + 1)
	g := 0.5 - am + af
	b := 0.25 * (1 - am + af) * (1 - am + af)
	return AlphaParams{AlphaM: am, AlphaF: af, Beta: b, Gamma: g, RhoInf: r}
}

// Solver and WithSolver implement NewtonMethod.

func (m BackwardEuler) Solver() (NewtonOptions, LinearOptions)     { return m.Newton, m.Linear }
func (m ImplicitTrapezoid) Solver() (NewtonOptions, LinearOptions) { return m.Newton, m.Linear }
func (m Newmark) Solver() (NewtonOptions, LinearOptions)           { return m.Newton, m.Linear }
func (m GeneralizedAlpha) Solver() (NewtonOptions, LinearOptions)  { return m.Newton, m.Linear }

func (m BackwardEuler) WithSolver(n NewtonOptions, l LinearOptions) NewtonMethod {
	m.Newton, m.Linear = n, l
	return m
}
func (m ImplicitTrapezoid) WithSolver(n NewtonOptions, l LinearOptions) NewtonMethod {
	m.Newton, m.Linear = n, l
	return m
}
func (m Newmark) WithSolver(n NewtonOptions, l LinearOptions) NewtonMethod {
	m.Newton, m.Linear = n, l
	return m
}
func (m GeneralizedAlpha) WithSolver(n NewtonOptions, l LinearOptions) NewtonMethod {
	m.Newton, m.Linear = n, l
	return m
}

// validate checks a method's parameters.
func (m Newmark) validate() error {
	p := m.Params()
	if !(p.Beta > 0) || math.IsInf(p.Beta, 0) || math.IsNaN(p.Gamma) || math.IsInf(p.Gamma, 0) {
		return fmt.Errorf("integrators: newmark needs finite β > 0 and finite γ, got β = %v, γ = %v", p.Beta, p.Gamma)
	}
	if p.Gamma < 0.5 {
		return fmt.Errorf("integrators: newmark with γ = %v < ½ is unstable (negative numerical damping grows every oscillation at any step); use γ ≥ ½, and 2β ≥ γ for unconditional stability", p.Gamma)
	}
	return nil
}

func (m GeneralizedAlpha) validate() error {
	if r := m.RhoInf; !(r >= 0 && r <= 1) {
		return fmt.Errorf("integrators: generalized-alpha needs rho_inf in [0, 1], got %v", r)
	}
	return nil
}

// New implements Method: it is NewStepper for the built-in methods.
func (m ForwardEuler) New(sys System, o *DriverOptions) (Stepper, error) {
	return newExplicitMethod(m.info(), sys, o)
}

// New implements Method: it is NewStepper for the built-in methods.
func (m SemiImplicitEuler) New(sys System, o *DriverOptions) (Stepper, error) {
	return newExplicitMethod(m.info(), sys, o)
}

// New implements Method: it is NewStepper for the built-in methods.
func (m Heun) New(sys System, o *DriverOptions) (Stepper, error) {
	return newExplicitMethod(m.info(), sys, o)
}

// New implements Method: it is NewStepper for the built-in methods.
func (m RK4) New(sys System, o *DriverOptions) (Stepper, error) {
	return newExplicitMethod(m.info(), sys, o)
}

// New implements Method: the fixed-step 5th-order solution of the pair
// with the caller's step. A non-zero controller field is an error
// wrapping ErrNotApplicable; use NewAdaptive or Integrate for error
// control and dense output.
func (m DormandPrince) New(sys System, o *DriverOptions) (Stepper, error) {
	if f := m.setField(); f != "" {
		return nil, fmt.Errorf("%w: a fixed-step %s Stepper does not use DormandPrince.%s (the caller chooses the step; it is an option of the adaptive driver: NewAdaptive, Integrate, graph.Sim.Integrate); leave it zero",
			ErrNotApplicable, MethodDormandPrince, f)
	}
	return newExplicitMethod(m.info(), sys, o)
}

// setField names the first non-zero controller field, or "".
func (m DormandPrince) setField() string {
	for _, f := range []struct {
		name string
		v    float64
	}{{"RTol", m.RTol}, {"ATol", m.ATol}, {"InitialStep", m.InitialStep}, {"MinStep", m.MinStep}, {"MaxStep", m.MaxStep}, {"FixedStep", m.FixedStep}} {
		if f.v != 0 {
			return f.name
		}
	}
	return ""
}

// New implements Method: it is NewStepper for the built-in methods.
func (m BackwardEuler) New(sys System, o *DriverOptions) (Stepper, error) {
	return newImplicitMethod(m.info(), 1, m.Newton, m.Linear, sys, o)
}

// New implements Method: it is NewStepper for the built-in methods.
func (m ImplicitTrapezoid) New(sys System, o *DriverOptions) (Stepper, error) {
	return newImplicitMethod(m.info(), 0.5, m.Newton, m.Linear, sys, o)
}

// New implements Method: Newmark on a first-order System, which needs
// position/velocity pairs (Partitioned, or DriverOptions.Positions and
// Velocities).
func (m Newmark) New(sys System, o *DriverOptions) (Stepper, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	return newAlphaMethod(m.info(), m.Newton, m.Linear, sys, o)
}

// New implements Method: generalized-alpha on a first-order System, which
// needs position/velocity pairs (Partitioned, or DriverOptions.Positions
// and Velocities).
func (m GeneralizedAlpha) New(sys System, o *DriverOptions) (Stepper, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	return newAlphaMethod(m.info(), m.Newton, m.Linear, sys, o)
}

func newExplicitMethod(mi methodInfo, sys System, o *DriverOptions) (Stepper, error) {
	if err := checkFixedStep(o, mi.Name); err != nil {
		return nil, err
	}
	c := resolve(o.settings())
	st, err := newExplicit(mi, sys, c)
	if err != nil {
		return nil, err
	}
	return withEvents(st, sys, c) // fixedevents.go
}

func newImplicitMethod(mi methodInfo, theta float64, n NewtonOptions, l LinearOptions, sys System, o *DriverOptions) (Stepper, error) {
	if err := checkFixedStep(o, mi.Name); err != nil {
		return nil, err
	}
	s := o.settings()
	s.setSolver(n, l)
	c := resolve(s)
	if err := c.checkLinear(); err != nil {
		return nil, err
	}
	st, err := newImplicit(mi, theta, sys, c)
	if err != nil {
		return nil, err
	}
	return withEvents(st, sys, c)
}

func newAlphaMethod(mi methodInfo, n NewtonOptions, l LinearOptions, sys System, o *DriverOptions) (Stepper, error) {
	if err := checkFixedStep(o, mi.Name); err != nil {
		return nil, err
	}
	s := o.settings()
	s.setSolver(n, l)
	c := resolve(s)
	if err := c.checkLinear(); err != nil {
		return nil, err
	}
	st, err := newAlphaFirstOrder(mi, sys, c)
	if err != nil {
		return nil, err
	}
	return withEvents(st, sys, c)
}

// NewStepper returns a fixed-step Stepper of method m for sys: the driver
// of every Method, built-in or the caller's.
//
// Semi-implicit Euler, Newmark and generalized-alpha need position/velocity
// pairs, from DriverOptions.Positions/Velocities or from sys's Partitioned
// capability, and return an error without them. The implicit methods use
// sys's Jacobian when it implements Jacobian. DormandPrince returns the
// 5th-order solution of the pair as a fixed-step method; use NewAdaptive
// or Integrate for error control and dense output.
//
// When sys implements EventSystem with at least one event, every method
// handles the events: a step over which an armed event function changes
// sign in its direction is cut at the crossing, located to
// DriverOptions.EventTol by re-stepping, the resets of every event due
// there applied (and of those they make fire) and the rest of the step
// integrated from the state after them; the events due at the start are
// applied by the first Step. When sys implements TimeEventSystem, a step
// with time events inside is split into sub-steps that end on them (see
// "Events" in the package documentation). Steps without time events or
// crossings are the method's own, bit for bit.
//
// DriverOptions.Output and MaxSteps belong to the adaptive driver: setting
// one is an error wrapping ErrNotApplicable. A method defined outside this
// package is checked (see Method) and its Stepper must report the
// method's Name and Order.
func NewStepper(m Method, sys System, o *DriverOptions) (Stepper, error) {
	if m == nil {
		return nil, errors.New("integrators: NewStepper: no Method (nil)")
	}
	if _, ok := m.(builtin); ok {
		return m.New(sys, o)
	}
	if err := checkCustom(m); err != nil {
		return nil, err
	}
	name, order := m.Name(), m.Order()
	if err := checkFixedStep(o, name); err != nil {
		return nil, err
	}
	c := resolve(o.settings())
	st, err := m.New(sys, o)
	if err != nil {
		return nil, fmt.Errorf("integrators: %s: %w", name, err)
	}
	if st == nil {
		return nil, fmt.Errorf("integrators: %s: Method.New returned no Stepper and no error", name)
	}
	if st.Method() != name || st.Order() != order {
		return nil, fmt.Errorf("integrators: %s: its Stepper reports method %q of order %d, want %q of order %d", name, st.Method(), st.Order(), name, order)
	}
	return withEvents(st, sys, c)
}

// checkCustom checks a caller-defined method's name and order.
func checkCustom(m Method) error {
	name := m.Name()
	switch {
	case name == "" || len(name) > 64 || strings.TrimSpace(name) != name:
		return fmt.Errorf("integrators: method name %q must be 1 to 64 bytes without surrounding spaces", name)
	case builtinName(name) != "":
		return fmt.Errorf("integrators: method %q (%T) takes the name of the built-in %s", name, m, builtinName(name))
	case m.Order() < 1:
		return fmt.Errorf("integrators: method %s declares order %d; want at least 1", name, m.Order())
	}
	return nil
}

// Same reports whether a and b are the same method with the same
// parameters and options, a zero option being the same as its default
// (so Newmark{} is Newmark{Beta: 0.25, Gamma: 0.5}). Unlike ==, it never
// panics: caller-defined methods whose dynamic type is not comparable are
// the same when their types, names and orders agree.
func Same(a, b Method) (same bool) {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ba, okA := a.(builtin)
	bb, okB := b.(builtin)
	if okA && okB {
		return ba.canonical() == bb.canonical()
	}
	if okA != okB || fmt.Sprintf("%T", a) != fmt.Sprintf("%T", b) || a.Name() != b.Name() || a.Order() != b.Order() {
		return false
	}
	defer func() {
		if recover() != nil {
			same = true // a non-comparable dynamic type: the same by type, name and order
		}
	}()
	return a == b
}

// MethodNewmarkFamily is the name of NewmarkFamily.
const MethodNewmarkFamily = "newmark-family"

// NewmarkFamily is the Newmark family (see AlphaParams) with explicit
// parameters αm, αf, β and γ: the members that Newmark and
// GeneralizedAlpha do not name (HHT-α: αm = 0, αf = α ∈ [0, ⅓],
// γ = ½ + α, β = ¼(1 + α)²; WBZ-α: αf = 0), and deliberately wrong ones
// kept as negative controls of a verification. RhoInf is recorded but not
// used. It is second order when γ = ½ − αm + αf and first order
// otherwise. It is not in the registry (ByName): scenes cannot name it,
// and a graph checkpoint of a run with it cannot be resumed.
type NewmarkFamily struct {
	Alpha  AlphaParams
	Newton NewtonOptions
	Linear LinearOptions
}

// Name returns MethodNewmarkFamily.
func (NewmarkFamily) Name() string { return MethodNewmarkFamily }

// Order is 2 when γ = ½ − αm + αf and 1 otherwise.
func (m NewmarkFamily) Order() int {
	if p := m.Alpha; p.Gamma == 0.5-p.AlphaM+p.AlphaF {
		return 2
	}
	return 1
}

// Params returns m.Alpha.
func (m NewmarkFamily) Params() AlphaParams { return m.Alpha }

func (m NewmarkFamily) info() methodInfo {
	return methodInfo{Name: m.Name(), Order: m.Order(), Alpha: m.Alpha}
}

func (m NewmarkFamily) canonical() Method {
	m.Newton, m.Linear = canonicalSolver(m.Newton, m.Linear)
	return m
}

// Solver implements NewtonMethod.
func (m NewmarkFamily) Solver() (NewtonOptions, LinearOptions) { return m.Newton, m.Linear }

// WithSolver implements NewtonMethod.
func (m NewmarkFamily) WithSolver(n NewtonOptions, l LinearOptions) NewtonMethod {
	m.Newton, m.Linear = n, l
	return m
}

func (m NewmarkFamily) validate() error {
	p := m.Alpha
	for _, x := range []float64{p.AlphaM, p.AlphaF, p.Beta, p.Gamma} {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("integrators: newmark-family parameters must be finite, got %+v", p)
		}
	}
	if !(p.Beta > 0) || !(p.AlphaM < 1) || !(p.AlphaF <= 1) {
		return fmt.Errorf("integrators: newmark-family needs β > 0, αm < 1 and αf ≤ 1, got %+v", p)
	}
	return nil
}

// New implements Method: the family member on a first-order System, which
// needs position/velocity pairs.
func (m NewmarkFamily) New(sys System, o *DriverOptions) (Stepper, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	return newAlphaMethod(m.info(), m.Newton, m.Linear, sys, o)
}

// NewSecondOrder returns a SecondOrderStepper of the family member for sys.
func (m NewmarkFamily) NewSecondOrder(sys SecondOrder, o *DriverOptions) (*SecondOrderStepper, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	return newSecondOrder(m.info(), m.Newton, m.Linear, sys, o)
}
