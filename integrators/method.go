package integrators

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Method names. Node metadata names its discretization with exactly these
// strings; ByName maps them back to a Method.
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
)

// Kind classifies a method.
type Kind int

const (
	Explicit    Kind = iota // explicit Runge–Kutta, fixed step
	Implicit                // implicit, Newton iteration with dense LU
	Structural              // Newmark family for second-order systems, implicit
	UserDefined             // a caller's Scheme (Custom, Register)
)

// AlphaParams are the parameters of the Newmark family. Newmark is
// AlphaM = AlphaF = 0. The weights are on the old state (Chung–Hulbert):
//
//	(1−αm)·a_{n+1} + αm·a_n = a(t_{n+1−αf}, q_{n+1−αf}, v_{n+1−αf}, z_{n+1−αf})
//	q_{n+1} = q_n + dt·v_n + dt²·((½−β)·a_n + β·a_{n+1})
//	v_{n+1} = v_n + dt·((1−γ)·a_n + γ·a_{n+1})
//
// where x_{n+1−αf} = (1−αf)·x_{n+1} + αf·x_n.
type AlphaParams struct {
	AlphaM, AlphaF float64
	Beta, Gamma    float64
	// RhoInf is ρ∞ for generalized-alpha; for Newmark it is 0 and has no
	// meaning.
	RhoInf float64
}

// Method describes one integration method: its stable name, declared
// order, kind and, for the Newmark family, its parameters, or a
// caller-defined Scheme (Kind Custom). The zero Method is invalid; obtain
// one from ByName, Methods, Newmark, GeneralizedAlpha or Custom. Compare
// methods with Same: == panics on a Custom method whose Scheme is not
// comparable.
type Method struct {
	Name  string
	Order int // declared global order of accuracy
	Kind  Kind
	Alpha AlphaParams // MethodNewmark and MethodGeneralizedAlpha only

	scheme Scheme // Kind Custom only
}

// DefaultRhoInf is the ρ∞ that ByName(MethodGeneralizedAlpha) uses.
const DefaultRhoInf = 0.5

// Newmark returns the Newmark method with parameters β and γ.
//
// Its declared Order is 2 only for γ = ½ and 1 otherwise: the velocity
// update's local error has a term (γ−½)·dt²·ȧ, so any γ ≠ ½ is first
// order whatever β (Hughes, The Finite Element Method, §9.1.2). Applied to
// the undamped oscillator q̈ = −ω²q it is
//
//   - unconditionally stable for 2β ≥ γ ≥ ½ (β = ¼, γ = ½, the
//     average-acceleration rule that ByName returns, is second order
//     without numerical damping; γ > ½ adds damping of order γ−½),
//   - conditionally stable for γ ≥ ½, 2β < γ: ω·dt ≤ 1/√(γ/2 − β),
//   - unstable for γ < ½ (negative numerical damping: amplitudes grow at
//     every step size).
//
// Method.New and NewSecondOrder reject β ≤ 0 and γ < ½ (the unstable
// range) with an error; the conditionally stable range is accepted.
func Newmark(beta, gamma float64) Method {
	order := 1
	if gamma == 0.5 {
		order = 2
	}
	return Method{Name: MethodNewmark, Order: order, Kind: Structural,
		Alpha: AlphaParams{Beta: beta, Gamma: gamma}}
}

// GeneralizedAlpha returns the generalized-alpha method (Chung & Hulbert
// 1993) with spectral radius at infinity ρ∞ ∈ [0, 1]:
//
//	αm = (2ρ∞−1)/(ρ∞+1), αf = ρ∞/(ρ∞+1), γ = ½−αm+αf, β = ¼(1−αm+αf)².
//
// ρ∞ = 1 is undamped average-acceleration Newmark for linear forces; ρ∞ = 0
// annihilates the highest frequencies in one step. The range is checked by
// Method.New.
func GeneralizedAlpha(rhoInf float64) Method {
	am := (2*rhoInf - 1) / (rhoInf + 1)
	af := rhoInf / (rhoInf + 1)
	g := 0.5 - am + af
	b := 0.25 * (1 - am + af) * (1 - am + af)
	return Method{Name: MethodGeneralizedAlpha, Order: 2, Kind: Structural,
		Alpha: AlphaParams{AlphaM: am, AlphaF: af, Beta: b, Gamma: g, RhoInf: rhoInf}}
}

var catalog = []Method{
	{Name: MethodForwardEuler, Order: 1, Kind: Explicit},
	{Name: MethodSemiImplicitEuler, Order: 1, Kind: Explicit},
	{Name: MethodHeun, Order: 2, Kind: Explicit},
	{Name: MethodRK4, Order: 4, Kind: Explicit},
	{Name: MethodDormandPrince, Order: 5, Kind: Explicit},
	{Name: MethodBackwardEuler, Order: 1, Kind: Implicit},
	{Name: MethodImplicitTrapezoid, Order: 2, Kind: Implicit},
	Newmark(0.25, 0.5),
	GeneralizedAlpha(DefaultRhoInf),
}

// Methods returns every method in a fixed order, with default parameters.
func Methods() []Method {
	out := make([]Method, len(catalog))
	copy(out, catalog)
	return out
}

// ErrUnknownMethod is returned by ByName for an unknown name.
var ErrUnknownMethod = errors.New("integrators: unknown method")

// ByName returns the method with the given stable name and default
// parameters (Newmark β = ¼, γ = ½; generalized-alpha ρ∞ = DefaultRhoInf),
// or the Custom method of a Scheme added with Register. Names are matched
// without regard to case ("RK4" is "rk4"); the error for an unknown name
// wraps ErrUnknownMethod, lists the valid names (Names) and suggests the
// nearest.
func ByName(name string) (Method, error) {
	for _, m := range catalog {
		if strings.EqualFold(m.Name, name) {
			return m, nil
		}
	}
	if sch, ok := registered(name); ok {
		return Custom(sch), nil
	}
	names := Names()
	hint := ""
	lower := make([]string, len(names))
	for i, n := range names {
		lower[i] = strings.ToLower(n)
	}
	if i := slices.Index(lower, nearest(strings.ToLower(name), lower)); i >= 0 {
		near := names[i]
		hint = fmt.Sprintf("; did you mean %q?", near)
	}
	shown := name
	if len(shown) > 64 {
		shown = strings.ToValidUTF8(shown[:64], "") + "…"
	}
	return Method{}, fmt.Errorf("%w %q (want one of %s)%s", ErrUnknownMethod, shown, strings.Join(names, ", "), hint)
}

// nearest returns the name within edit distance 2 of s (or the one s is
// a prefix of) closest to it, or "".
func nearest(s string, names []string) string {
	if len(s) > 64 {
		return "" // no method name is that long; skip the O(len) distances
	}
	best, bestD := "", 3
	for _, n := range names {
		d := editDistance(s, n)
		if strings.HasPrefix(n, s) && len(s) >= 2 {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func (m Method) validate() error {
	if m.Kind == UserDefined || m.scheme != nil {
		if m.Kind != UserDefined {
			return fmt.Errorf("integrators: method %s has a Scheme but kind %d; obtain custom methods from Custom", m.Name, m.Kind)
		}
		return m.checkScheme()
	}
	switch m.Name {
	case MethodNewmark:
		p := m.Alpha
		if !(p.Beta > 0) || math.IsInf(p.Beta, 0) || math.IsNaN(p.Gamma) || math.IsInf(p.Gamma, 0) || p.AlphaM != 0 || p.AlphaF != 0 {
			return fmt.Errorf("integrators: newmark needs finite β > 0, finite γ and no alpha weights, got %+v", p)
		}
		if p.Gamma < 0.5 {
			return fmt.Errorf("integrators: newmark with γ = %v < ½ is unstable (negative numerical damping grows every oscillation at any step); use γ ≥ ½, and 2β ≥ γ for unconditional stability", p.Gamma)
		}
	case MethodGeneralizedAlpha:
		p := m.Alpha
		if !(p.RhoInf >= 0 && p.RhoInf <= 1) {
			return fmt.Errorf("integrators: generalized-alpha needs rho_inf in [0, 1], got %v", p.RhoInf)
		}
		if !(p.Beta > 0) || !(p.AlphaM < 1) || !(p.AlphaF <= 1) {
			return fmt.Errorf("integrators: generalized-alpha parameters out of range: %+v", p)
		}
	default:
		for _, c := range catalog {
			if c.Name == m.Name {
				if c != m {
					return fmt.Errorf("integrators: method %s has order %d, kind %d and parameters %+v; %s has order %d, kind %d and no parameters (obtain it from ByName)",
						m.Name, m.Order, m.Kind, m.Alpha, c.Name, c.Order, c.Kind)
				}
				return nil
			}
		}
		return fmt.Errorf("%w %q", ErrUnknownMethod, m.Name)
	}
	return nil
}

// New returns a fixed-step Stepper of method m for sys.
//
// Semi-implicit Euler, Newmark and generalized-alpha need position/velocity
// pairs, from Settings.Positions/Velocities or from sys's Partitioned
// capability, and return an error without them. The implicit methods use
// sys's Jacobian when it implements Jacobian. MethodDormandPrince returns
// the 5th-order solution of the Dormand–Prince pair as a fixed-step method;
// use NewAdaptive or Integrate for error control and dense output.
//
// When sys implements EventSystem with at least one event, every method
// handles the events: a step over which an armed event function changes
// sign in its direction is cut at the crossing, located to
// Settings.EventTol by re-stepping, the reset applied and the rest of the
// step integrated from the reset state (see "Events" in the package
// documentation). Steps without a crossing are the method's own, bit for
// bit.
//
// A Settings field that m does not use is an error wrapping
// ErrNotApplicable, not ignored: the adaptive driver's settings (RTol,
// ATol, InitialStep, MinStep, MaxStep, MaxSteps, FixedStep, Output) for
// every method, and the Newton and linear-solver settings (NewtonTol,
// NewtonMaxIter, LinearSolver, Preconditioner, Krylov*, Forcing,
// MatrixFree, JacobianMaxAge) for the explicit methods. Positions,
// Velocities and IDs describe the system and are accepted by every
// method. A Custom method's Scheme receives s, refused like an explicit
// method's unless the Scheme is a NewtonScheme that uses the Newton
// settings.
func (m Method) New(sys System, s *Settings) (Stepper, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	if err := checkApplicable(s, m.uses(), m.Name); err != nil {
		return nil, err
	}
	c := resolve(s)
	if err := c.checkLinear(); err != nil {
		return nil, err
	}
	var st Stepper
	if m.Kind == UserDefined {
		st, err := m.scheme.New(sys, s)
		if err != nil {
			return nil, fmt.Errorf("integrators: %s: %w", m.Name, err)
		}
		if st == nil {
			return nil, fmt.Errorf("integrators: %s: Scheme.New returned no Stepper and no error", m.Name)
		}
		if st.Method() != m.Name || st.Order() != m.Order {
			return nil, fmt.Errorf("integrators: %s: its Stepper reports method %q of order %d, want %q of order %d", m.Name, st.Method(), st.Order(), m.Name, m.Order)
		}
		return withEvents(st, sys, c), nil
	}
	switch m.Name {
	case MethodForwardEuler, MethodSemiImplicitEuler, MethodHeun, MethodRK4, MethodDormandPrince:
		e, err := newExplicit(m, sys, c)
		if err != nil {
			return nil, err
		}
		st = e
	case MethodBackwardEuler, MethodImplicitTrapezoid:
		im, err := newImplicit(m, sys, c)
		if err != nil {
			return nil, err
		}
		st = im
	case MethodNewmark, MethodGeneralizedAlpha:
		a, err := newAlphaFirstOrder(m, sys, c)
		if err != nil {
			return nil, err
		}
		st = a
	default:
		return nil, fmt.Errorf("%w %q", ErrUnknownMethod, m.Name)
	}
	return withEvents(st, sys, c), nil // fixedevents.go
}

// Stepper advances a first-order System with caller-chosen steps.
//
// A Stepper is not safe for concurrent use; distinct Steppers are. Steps
// are deterministic: the same inputs give bit-identical states.
type Stepper interface {
	// Method returns the stable method name, e.g. MethodRK4.
	Method() string
	// Order returns the declared global order of accuracy.
	Order() int
	// Init sets the state to (t0, y0), copying y0, and resets the
	// method's memory (carried derivatives, accelerations) and Stats.
	Init(t0 float64, y0 []float64) error
	// Step advances by dt > 0 (a non-positive or non-finite dt panics).
	// On error the accepted state is unchanged; the error is a
	// *StepError naming the time, the status and, where it applies, the
	// component.
	Step(dt float64) error
	// State returns the current time and state. y is owned by the
	// Stepper: it must not be modified and is valid until the next call
	// of Step, Init or Restore.
	State() (t float64, y []float64)
	// Stats returns the work done since Init.
	Stats() Stats
}

// Checkpointer is implemented by every Stepper in this package and by
// *Adaptive: an in-memory checkpoint of the integrator's own state.
// Restoring a checkpoint into a fresh stepper of the same method and
// system and stepping on gives results bit-identical to never having
// stopped.
type Checkpointer interface {
	Checkpoint() Checkpoint
	Restore(c Checkpoint) error
}

// Checkpoint is the complete state of a stepper, a plain struct with
// exported fields so that callers can serialise it. Slices are copies.
type Checkpoint struct {
	Method string
	Alpha  AlphaParams // Newmark family only
	IDs    []int64     // Settings.IDs of the stepper
	Dim    int
	Clock  Clock // time from step count; T = Clock.Now()
	T      float64
	Y      []float64
	F      []float64 // carried f(t, y): trapezoid f_n, Dormand–Prince FSAL stage
	A      []float64 // carried algorithmic acceleration (Newmark family)
	ZDot   []float64 // carried rate of the extra quantities (Newmark family)
	// Adaptive controller and event state (Dormand–Prince driver).
	H            float64   // proposed next step
	ErrPrev      float64   // previous accepted error norm (PI controller)
	LastRejected bool      // last trial was rejected
	G            []float64 // event functions at T (0 = unarmed)
	Disarmed     []bool
	ZenoCount    int
	LastEventT   float64
	Stats        Stats
	// Jac is where the Newton matrix reused across steps was assembled
	// (GMRES on a SparseJacobian only; nil otherwise).
	Jac *JacobianPoint `json:",omitempty"`
}

func cloneF(x []float64) []float64 {
	if x == nil {
		return nil
	}
	return append([]float64(nil), x...)
}

// check validates the parts of a checkpoint every stepper shares: the
// method, the dimension, the length of Y and the time. T must be finite,
// and so must the clock (Base and DT finite, N ≥ 0, DT ≥ 0, DT > 0 once N
// > 0). When clocked, the stepper derives its time from the clock, so T
// must also equal Clock.Now() = Base + N·DT exactly, as Checkpoint writes
// it; an edited T or Clock fails here. (A checkpoint carries no time of
// the outside world, so a T and Clock edited consistently cannot be told
// from a genuine one.)
func (c *Checkpoint) check(method string, dim int, clocked bool) error {
	if c.Method != method {
		return &HistoryError{Field: "method", Want: method, Got: c.Method}
	}
	if c.Dim != dim {
		return &HistoryError{Field: "dim", Want: fmt.Sprint(dim), Got: fmt.Sprint(c.Dim)}
	}
	if len(c.Y) != dim {
		return &HistoryError{Field: "len(y)", Want: fmt.Sprint(dim), Got: fmt.Sprint(len(c.Y))}
	}
	if math.IsNaN(c.T) || math.IsInf(c.T, 0) {
		return &HistoryError{Field: "time", Want: "a finite time", Got: fmtF(c.T)}
	}
	k := c.Clock
	if math.IsNaN(k.Base) || math.IsInf(k.Base, 0) || !(k.DT >= 0) || math.IsInf(k.DT, 0) || k.N < 0 || (k.N > 0 && k.DT == 0) {
		return &HistoryError{Field: "clock", Want: "finite Base, N ≥ 0, finite DT ≥ 0 (> 0 if N > 0)",
			Got: fmt.Sprintf("Base %s, N %d, DT %s", fmtF(k.Base), k.N, fmtF(k.DT))}
	}
	if clocked {
		if now := k.Now(); now != c.T {
			return &HistoryError{Field: "time", Want: fmt.Sprintf("Clock.Now() = %s + %d·%s = %s", fmtF(k.Base), k.N, fmtF(k.DT), fmtF(now)),
				Got: fmtF(c.T)}
		}
	}
	return nil
}
