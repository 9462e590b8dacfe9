package integrators

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// StepControl holds the options of an adaptive method's step-size
// controller. Zero values mean the documented defaults of the method.
type StepControl struct {
	// RTol and ATol are the relative and absolute tolerances: a step is
	// accepted when the RMS norm of err_i / (ATol + RTol·|y_i|) is at most
	// 1 (each method says which |y_i| and which error estimate err).
	// Zero means RTol = 1e-6 and ATol = 1e-9.
	RTol, ATol float64
	// InitialStep is the first trial step; zero means the method's
	// automatic choice.
	InitialStep float64
	// MinStep is the smallest step the controller may propose; needing a
	// smaller one ends the run with StepTooSmall. Zero means no bound
	// other than 16 ulp of t.
	MinStep float64
	// MaxStep bounds every step. Zero means +Inf (the end time still
	// bounds a step).
	MaxStep float64
}

// AdaptiveMethod is a Method with an error-controlled driver: an embedded
// or built-in local error estimate, step-size (and for BDF order)
// control, dense output and event location. DormandPrince, ESDIRK43,
// ESDIRK32 and BDF implement it; Integrate, graph.Sim.Integrate and
// adaptive graph runs take any of them.
type AdaptiveMethod interface {
	Method
	// Control returns the method's step-control options.
	Control() StepControl
	// WithControl returns a copy of the method with these step-control
	// options (scene loaders set tolerances through it).
	WithControl(StepControl) AdaptiveMethod
	// NewDriver returns the method's adaptive driver for sys. The
	// DriverOptions it uses are the event options, Output (for Integrate
	// and Run) and MaxSteps.
	NewDriver(sys System, o *DriverOptions) (Driver, error)
}

// Driver is an error-controlled integrator of a first-order System: the
// driver of an AdaptiveMethod (*Adaptive for Dormand–Prince). It takes
// one accepted step at a time, rejecting and retrying trials internally,
// keeps a dense output of the last step, and locates the events of an
// EventSystem on it (see "Events" in the package documentation).
//
// A Driver is not safe for concurrent use; distinct ones are.
type Driver interface {
	// Method and Order identify the method (Order is its declared order,
	// the highest for a variable-order method).
	Method() string
	Order() int
	// Init sets the state to (t0, y0), copying y0, and resets the
	// controller, the method's memory, the events and the Work. It
	// evaluates the event functions at t0.
	Init(t0 float64, y0 []float64) error
	// Step takes one accepted step that ends no later than tMax > t. If
	// an event fires, the step ends at the located event time with the
	// reset applied and the report names the event. On error the
	// accepted state is unchanged.
	Step(tMax float64) (StepReport, error)
	// Dense writes the state at a time t of the last accepted step
	// [T0, T1] into dst; at an event time T1 it is the state before the
	// reset. It panics outside the step.
	Dense(t float64, dst []float64)
	// State returns the current time and state; y is owned by the
	// driver and valid until its next Step, Init or Restore.
	State() (t float64, y []float64)
	// NextStep returns the step size the controller proposes next.
	NextStep() float64
	// Work returns the work done since Init.
	Work() Work
	// Run continues the driver from its state to tEnd, recording
	// samples at output and the located events (see Adaptive.Run).
	Run(ctx context.Context, tEnd float64, output []float64) (*Outcome, error)
	Checkpointer
}

// Integrate solves y' = f(t, y) from (t0, y0) to tEnd > t0 with the
// adaptive driver of method m (DormandPrince, or its fixed step, see
// DormandPrince.FixedStep; ESDIRK43, ESDIRK32, BDF), recording
// dense-output samples at DriverOptions.Output and locating the events
// of an EventSystem.
//
// The returned Outcome is never nil. Its Status is Success when tEnd was
// reached and StoppedByEvent when a Reset returned EventStop; otherwise
// the error (a *StepError) says why and the Outcome holds the last
// accepted state. Invalid settings return an error with Status Failure.
func Integrate(m AdaptiveMethod, sys System, t0 float64, y0 []float64, tEnd float64, o *DriverOptions) (*Outcome, error) {
	res := &Outcome{T: t0, Y: cloneF(y0)}
	if m == nil {
		res.Status = Failure
		return res, errors.New("integrators: Integrate: no method (nil)")
	}
	if !(tEnd > t0) {
		res.Status = Failure
		return res, fmt.Errorf("integrators: Integrate: tEnd %v must be after t0 %v", tEnd, t0)
	}
	d, err := m.NewDriver(sys, o)
	if err != nil {
		res.Status = Failure
		return res, err
	}
	var output []float64
	if o != nil {
		output = o.Output
	}
	if err := checkOutput(output, t0, tEnd); err != nil {
		res.Status = Failure
		return res, err
	}
	if err := d.Init(t0, y0); err != nil {
		res.Status = TerminationOf(err)
		return res, err
	}
	res, err = d.Run(context.Background(), tEnd, output)
	res.Work = d.Work() // including Init's evaluations
	return res, err
}

// runDriver is Run of every Driver: it continues d from its state to
// tEnd, recording dense-output samples at output (ascending, within
// [current time, tEnd]) and the located events, stops at an EventStop,
// and takes at most maxSteps trial steps. ctx is checked before every
// trial step: on cancellation the Outcome's Status is Cancelled and
// the error is ctx's. The Outcome's Work is the work of this call; the
// state is the driver's, the last accepted one on any error.
func runDriver(ctx context.Context, d Driver, maxSteps int, tEnd float64, output []float64) (*Outcome, error) {
	res := &Outcome{Status: Success}
	t, y := d.State()
	if err := checkOutput(output, t, tEnd); err != nil {
		res.Status, res.T, res.Y = Failure, t, cloneF(y)
		return res, err
	}
	k := 0
	for k < len(output) && output[k] == t {
		res.Samples = append(res.Samples, Sample{T: t, Y: cloneF(y)})
		k++
	}
	stats0 := d.Work()
	n := len(y)
	done := ctx.Done()
	var err error
	for {
		if t, _ := d.State(); !(t < tEnd) {
			break
		}
		select {
		case <-done:
			err = ctx.Err()
		default:
		}
		if err != nil {
			break
		}
		w := d.Work()
		if trials := w.Steps + w.Rejected - stats0.Steps - stats0.Rejected; trials >= maxSteps {
			t, _ := d.State()
			err = &StepError{Method: d.Method(), Status: MaxStepsReached, T: t, Dt: d.NextStep(), Index: -1,
				Err: fmt.Errorf("%d trial steps", trials)}
			break
		}
		var rep StepReport
		if rep, err = d.Step(tEnd); err != nil {
			break
		}
		for k < len(output) && output[k] <= rep.T1 {
			s := make([]float64, n)
			d.Dense(output[k], s)
			res.Samples = append(res.Samples, Sample{T: output[k], Y: s})
			k++
		}
		if rep.Event >= 0 {
			before := make([]float64, n)
			d.Dense(rep.T1, before)
			_, after := d.State()
			res.Events = append(res.Events, EventRecord{T: rep.T1, Index: rep.Event, Action: rep.Action, Before: before, After: cloneF(after)})
			if rep.Action == EventStop {
				res.Status = StoppedByEvent
				break
			}
		}
	}
	res.Work = d.Work().Sub(stats0)
	t, y = d.State()
	res.T, res.Y = t, cloneF(y)
	if err != nil {
		res.Status = TerminationOf(err)
		if cerr := ctx.Err(); cerr != nil && errors.Is(err, cerr) {
			res.Status = Cancelled
		}
	}
	return res, err
}

// Control implements AdaptiveMethod: the controller fields of m.
func (m DormandPrince) Control() StepControl {
	return StepControl{RTol: m.RTol, ATol: m.ATol, InitialStep: m.InitialStep, MinStep: m.MinStep, MaxStep: m.MaxStep}
}

// WithControl implements AdaptiveMethod; FixedStep is kept.
func (m DormandPrince) WithControl(c StepControl) AdaptiveMethod {
	m.RTol, m.ATol, m.InitialStep, m.MinStep, m.MaxStep = c.RTol, c.ATol, c.InitialStep, c.MinStep, c.MaxStep
	return m
}

// NewDriver implements AdaptiveMethod: NewAdaptive(m, sys, o).
func (m DormandPrince) NewDriver(sys System, o *DriverOptions) (Driver, error) {
	return NewAdaptive(m, sys, o)
}

// ErrorEstimator is implemented by the drivers and fixed-step steppers
// of the adaptive implicit methods (ESDIRK43, ESDIRK32, BDF): the local
// error estimate of the last step, the vector whose weighted RMS norm
// the error test bounds (CVODE's CVodeGetEstLocalErrors). For an ESDIRK
// pair it is h·Σ (b_i − b̂_i)·k_i, the difference of the two solutions;
// for BDF of order q, C_{q+1}-scaled corrector–predictor difference
// tq₂·(y_n − y_n⁽⁰⁾). Its order in h (p̂ + 1 for an embedded pair of
// order p̂, q + 1 for BDF-q) is verified in package verification.
type ErrorEstimator interface {
	// LocalError writes the estimate of the last step into dst (len
	// Dim). It panics before the first step.
	LocalError(dst []float64)
}

// checkDense panics unless a driver has a step with dense output
// (started) and t lies in it, [t0, t1], to a few ulp.
func checkDense(started bool, t, t0, t1 float64) {
	if !started {
		panic("integrators: Dense before the first step")
	}
	slack := 4 * 0x1p-52 * math.Max(math.Abs(t0), math.Abs(t1))
	if t < t0-slack || t > t1+slack {
		panic(fmt.Sprintf("integrators: Dense(%v) outside the last step [%v, %v]", t, t0, t1))
	}
}

// checkInit checks the state a driver of method and dimension n is
// initialised with: a wrong length is a programmer error (panic), a
// non-finite value a *StepError.
func checkInit(method string, n int, t0 float64, y0 []float64) error {
	if len(y0) != n {
		panic(fmt.Sprintf("integrators: Init: len(y0) = %d, Dim = %d", len(y0), n))
	}
	if i := firstNonFinite(y0); i >= 0 {
		return &StepError{Method: method, Status: NonFinite, T: t0, Index: i}
	}
	return nil
}
