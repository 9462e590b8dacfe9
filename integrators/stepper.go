package integrators

import (
	"fmt"
	"math"
)

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
	// method's memory (carried derivatives, accelerations) and Work.
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
	// Work returns the work done since Init.
	Work() Work
}

// Checkpointer is implemented by every Stepper in this package and by
// *Adaptive: an in-memory snapshot of the integrator's own state (a
// StepperState). Restoring it into a fresh stepper of the same method
// and system and stepping on gives results bit-identical to never having
// stopped. (graph.Checkpoint, a whole simulation's checkpoint, holds one
// of these for its monolithic integrator.)
type Checkpointer interface {
	Checkpoint() StepperState
	Restore(c StepperState) error
}

// StepperState is the complete state of a stepper, a plain struct with
// exported fields so that callers can serialise it (graph's checkpoint
// schema does, with its own tagged types). Slices are copies.
type StepperState struct {
	Method string
	Alpha  AlphaParams // Newmark family only
	IDs    []int64     // DriverOptions.IDs of the stepper
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
	Work         Work
	// Jac is where the Newton matrix reused across steps was assembled
	// (GMRES on a SparseJacobian only; nil otherwise), or for the
	// adaptive implicit methods (ESDIRK43, ESDIRK32, BDF) where their
	// reused Jacobian was evaluated.
	Jac *JacobianPoint `json:",omitempty"`
	// Implicit is the further memory of the adaptive implicit methods
	// (nil for the others).
	Implicit *ImplicitState `json:",omitempty"`
}

// ImplicitState is the memory that the adaptive implicit methods carry
// between steps besides the state: the Newton-matrix reuse of ESDIRK43,
// ESDIRK32 and BDF (where the Jacobian was evaluated is
// StepperState.Jac), and BDF's multistep history. Slices are copies.
type ImplicitState struct {
	// SetupC is γ·h of the factored Newton matrix I − γh·J (0: none)
	// and SetupAge the accepted steps since it was factored.
	SetupC   float64
	SetupAge int
	// Rate is the Newton convergence-rate estimate carried between
	// steps, and RateStep the γ·h it was measured at (ESDIRK).
	Rate, RateStep float64
	// BDF: the order in use and the one chosen for the next step, the
	// steps before an order change may be considered, the step the
	// Nordsieck array is scaled by and the next step, the largest step
	// growth allowed next, and whether the next step restarts the
	// history at order 1 (after Init, an event or a time event).
	Order, NextOrder, Wait int
	Step, NextStep, EtaMax float64
	Restart                bool
	// Tau are BDF's past steps (Tau[0] the last); Z its Nordsieck array
	// z_0..z_Order (z_0 is the state); Saved the correction kept for the
	// estimate of the next order, whose error constant was SavedTq5.
	Tau      []float64
	Z        [][]float64
	Saved    []float64
	SavedTq5 float64
	// Started counts the steps of BDF's fixed-step Stepper since Init;
	// while it starts (Started < MaxOrder − 1) StartT and StartY are the
	// starting values so far.
	Started int
	StartT  []float64
	StartY  [][]float64
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
func (c *StepperState) check(method string, dim int, clocked bool) error {
	if c.Method != method {
		return &StateMismatchError{Field: "method", Want: method, Got: c.Method}
	}
	if c.Dim != dim {
		return &StateMismatchError{Field: "dim", Want: fmt.Sprint(dim), Got: fmt.Sprint(c.Dim)}
	}
	if len(c.Y) != dim {
		return &StateMismatchError{Field: "len(y)", Want: fmt.Sprint(dim), Got: fmt.Sprint(len(c.Y))}
	}
	if math.IsNaN(c.T) || math.IsInf(c.T, 0) {
		return &StateMismatchError{Field: "time", Want: "a finite time", Got: fmtF(c.T)}
	}
	k := c.Clock
	if math.IsNaN(k.Base) || math.IsInf(k.Base, 0) || !(k.DT >= 0) || math.IsInf(k.DT, 0) || k.N < 0 || (k.N > 0 && k.DT == 0) {
		return &StateMismatchError{Field: "clock", Want: "finite Base, N ≥ 0, finite DT ≥ 0 (> 0 if N > 0)",
			Got: fmt.Sprintf("Base %s, N %d, DT %s", fmtF(k.Base), k.N, fmtF(k.DT))}
	}
	if clocked {
		if now := k.Now(); now != c.T {
			return &StateMismatchError{Field: "time", Want: fmt.Sprintf("Clock.Now() = %s + %d·%s = %s", fmtF(k.Base), k.N, fmtF(k.DT), fmtF(now)),
				Got: fmtF(c.T)}
		}
	}
	return nil
}
