package graph

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

// RunMonolithic advances the simulation in monolithic mode with a fixed
// step: it is Run with set.Mode replaced by Monolithic{Method: method,
// Options: opts}, the form for a caller that picks the method per run
// (set.Mode may not hold a coupling strategy or OnGroupStep, which a
// monolithic run cannot honour). The graph's stateful
// nodes form one system (Sim.System) that method steps with the fixed
// step set.Dt, re-evaluating connector outputs at every stage. It is the
// counterpart of co-simulation, which lets each node step itself; the
// caller picks per run. Steps, End, Record, RecordEvery and Observer mean
// what they mean for co-simulation; the run uses one goroutine
// (integrator stages are sequential). method carries its own options (for example
// integrators.BackwardEuler{Newton: …}; integrators.ByName gives a method
// by name with its defaults), opts the driver's (nil: the defaults). Node
// events (node.Eventer, such as the ball's contact) are handled by every
// method: a crossing within a step is located to opts.EventTol by
// re-stepping, the node's reset applied and the step finished from the
// reset state (package integrators, Events); Result.Events counts them. A
// reset that returns integrators.EventStop ends the run at the event, with
// Status StoppedByEvent, the state after the reset and no error; that last
// step is counted and recorded.
//
// On an error (a failed Newton iteration, a non-finite value, a node
// error or panic) the state is the last accepted one and the error is a
// *integrators.StepError wrapping the cause; a non-finite value in the
// state is reported as a *node.StateError naming node, field, step and
// time, wrapping the *integrators.StepError. Cancellation stops within one
// step. Stepping allocates nothing for the explicit methods.
//
// After Sim.Restore of a checkpoint holding stepper memory, the run must
// use the checkpoint's method, parameters and options (those that affect
// the trajectory); otherwise it is an error saying what differs
// (Sim.ResetIntegrator drops the memory).
func (s *Sim) RunMonolithic(ctx context.Context, method integrators.Method, opts *integrators.DriverOptions, set Settings) (*Result, error) {
	if method == nil {
		return nil, errors.New("graph: RunMonolithic: no integration method (nil); integrators.ByName gives one by name")
	}
	m, err := set.mode()
	if err != nil {
		return nil, err
	}
	if co, ok := m.(CoSimulation); ok && (co.Coupling != nil || co.OnGroupStep != nil) {
		return nil, errors.New("graph: RunMonolithic: Settings.Mode is a co-simulation with a coupling strategy or OnGroupStep; a monolithic run integrates all nodes together: drop one of them")
	}
	set.Mode = Monolithic{Method: method, Options: opts}
	return s.Run(ctx, set)
}

// runMonolithic is Run in fixed-step monolithic mode.
func (s *Sim) runMonolithic(ctx context.Context, mode Monolithic, set Settings) (res *Result, err error) {
	method := mode.Method
	steps, err := s.prepareRun(set)
	if err != nil {
		return nil, err
	}
	ob, err := s.observeRun(set, steps)
	if err != nil {
		return nil, err
	}
	st, err := s.monoStepper(method, mode.Options)
	if err != nil {
		return nil, err
	}
	res = &Result{Mode: mode, Method: method.Name(), Workers: 1}
	// The stability of one step of the method (stability.go), analysed
	// once per method and step from the state the stepper was just
	// initialised at (the analysis leaves the Sim and the kept stepper
	// as they are).
	s.startMonolithicStability(mode, set, steps, res)
	// The work of this run: since the stepper was kept, or all of it
	// (with Init's) when it is new.
	var stats0 integrators.Work
	if s.mono.runs > 0 {
		stats0 = st.Work()
	}
	s.mono.runs++
	res.integration(integrators.Work{})
	stopped := false
	s.mono.sys.stop = nil
	defer func() {
		if res != nil {
			res.Status = statusOf(ctx, err, stopped)
			if res.Status == StoppedByEvent {
				res.StopCause = s.mono.sys.stop
			}
		}
	}()
	rec, err := s.startRecording(set, steps, res)
	if err != nil {
		return nil, err
	}
	defer rec.finish(&err)
	every := max(set.RecordEvery, 1)
	done := ctx.Done()
	start := time.Now()
	err = s.first(rec, ob, res)
	for k := 0; k < steps; k++ {
		select {
		case <-done:
			err = ctx.Err()
		default:
		}
		if err != nil {
			break
		}
		if err = st.Step(set.Dt); err != nil {
			var se *integrators.StepError
			if !errors.As(err, &se) || se.Status != integrators.StoppedByEvent {
				err = s.monoError(err)
				break
			}
			// An event stopped the run inside the step: the stepper
			// holds the reset state at the event time.
			err, stopped = nil, true
		}
		t, y := st.State()
		var c completion
		if c, err = s.mono.sys.completed(t, y); err != nil {
			break
		}
		if c.y != nil {
			// A step event: the integrator starts again from the state
			// the nodes changed at the end of the step.
			if err = s.mono.restart(c.y); err != nil {
				err = s.monoError(err)
				break
			}
			res.StepEvents++
			t, y = st.State()
		}
		if c.stop != nil {
			s.mono.sys.stop, stopped = c.stop, true
		}
		copy(s.state, y)
		s.outputsFresh = false
		if stopped {
			s.t0, s.n = t, 0
		} else {
			s.n++
		}
		s.steps++
		res.Steps++
		if rec != nil && (stopped || s.n%every == 0) {
			if err = rec.row(s); err != nil {
				break
			}
		}
		if ob.due(res.Steps) || stopped {
			res.integration(st.Work().Sub(stats0))
			if err = ob.step(s, res); err != nil {
				break
			}
		}
		if stopped {
			break
		}
	}
	res.Wall = time.Since(start)
	res.Time = s.Time()
	res.integration(st.Work().Sub(stats0))
	return res, ob.end(s, res, err)
}

// monoError names the node and field of a non-finite value that a
// stepper reports by its flat index, wrapping the stepper's error, and
// dates a node error from an evaluation inside the step to the step's
// start, as in co-simulation (the StepError keeps the evaluation's time).
func (s *Sim) monoError(err error) error {
	var ne *node.StateError
	if errors.As(err, &ne) {
		ne.Step, ne.Time = s.steps, s.Time()
	}
	var se *integrators.StepError
	if !errors.As(err, &se) || se.Status != integrators.NonFinite || se.Index < 0 || se.Index >= len(s.state) {
		return err
	}
	name, field := s.locate(se.Index)
	return stepError(name, field, s.steps, s.Time(), fmt.Errorf("%w: %w", node.ErrNonFinite, err))
}

// monoState keeps the monolithic stepper between RunMonolithic calls (or
// the adaptive driver between Integrate calls), so that a method with
// memory (the implicit trapezoid's carried f, the Newmark family's
// algorithmic acceleration, the step-size controller) resumes exactly
// where it stopped, and so that checkpoints carry that memory.
type monoState struct {
	method   integrators.Method         // with its options; an integrators.AdaptiveMethod when adaptive
	adaptive bool                       // ad is Integrate's driver, st is nil
	opts     *integrators.DriverOptions // a copy; nil means the defaults
	sys      *System
	st       integrators.Stepper
	ad       integrators.Driver
	// restored marks memory restored from a checkpoint: continuing it
	// with another method, parameters or options is an error rather than
	// a silent restart.
	restored bool
	// runs counts the runs that used the stepper: the first one's Result
	// counts the work of Init as well.
	runs int
}

// state returns the kept stepper's time and state.
func (m *monoState) state() (float64, []float64) {
	if m.adaptive {
		return m.ad.State()
	}
	return m.st.State()
}

// checkpoint returns the kept stepper's memory, if it has any to save.
func (m *monoState) checkpoint() (integrators.StepperState, bool) {
	if m.adaptive {
		return m.ad.Checkpoint(), true
	}
	if cp, ok := m.st.(integrators.Checkpointer); ok {
		return cp.Checkpoint(), true
	}
	return integrators.StepperState{}, false
}

// ResetIntegrator drops the monolithic stepper memory the Sim keeps
// between RunMonolithic or Integrate calls, also one restored from a
// checkpoint: the next monolithic run starts its method afresh, with any
// method and settings.
//
// It also lets the next run continue a restored checkpoint in another
// mode or with another method than the run it was taken from, which Run
// otherwise refuses.
func (s *Sim) ResetIntegrator() { s.mono, s.resumeRun = nil, "" }

// cloneOptions copies the driver options a stepper depends on.
func cloneOptions(in *integrators.DriverOptions) *integrators.DriverOptions {
	if in == nil {
		return nil
	}
	c := *in
	c.Output = nil // samples only: not part of the trajectory
	c.Positions, c.Velocities, c.IDs = slices.Clone(in.Positions), slices.Clone(in.Velocities), slices.Clone(in.IDs)
	return &c
}

// methodDiff describes how the method (with its parameters and options)
// a run asks for differs from the kept one, or "" if they are the same.
func methodDiff(kept integrators.Method, keptAdaptive bool, want integrators.Method, wantAdaptive bool) string {
	name := func(m integrators.Method, adaptive bool) string {
		if adaptive {
			return "adaptive " + m.Name() + " (Integrate)"
		}
		return m.Name() + " (RunMonolithic)"
	}
	if keptAdaptive != wantAdaptive || kept.Name() != want.Name() {
		return fmt.Sprintf("method %s in the checkpoint, %s in the run", name(kept, keptAdaptive), name(want, wantAdaptive))
	}
	if !integrators.Same(kept, want) {
		return fmt.Sprintf("%s is %+v in the checkpoint, %+v in the run", kept.Name(), kept, want)
	}
	return ""
}

// optionsDiff lists the driver options that differ between a and b and
// that affect the trajectory: the event options of every method, the
// partition and IDs of the fixed-step ones. Output and MaxSteps do not
// affect it. A zero field (or nil options) means the default and
// compares equal only to zero.
func optionsDiff(a, b *integrators.DriverOptions, adaptive bool) []string {
	var za, zb integrators.DriverOptions
	if a == nil {
		a = &za
	}
	if b == nil {
		b = &zb
	}
	var d []string
	f := func(name string, x, y any) {
		if fmt.Sprint(x) != fmt.Sprint(y) {
			d = append(d, fmt.Sprintf("%s is %v in the checkpoint, %v in the run", name, x, y))
		}
	}
	f("EventTol", a.EventTol, b.EventTol)
	f("ZenoLimit", a.ZenoLimit, b.ZenoLimit)
	f("ZenoSpacing", a.ZenoSpacing, b.ZenoSpacing)
	if adaptive {
		return d
	}
	f("Positions", a.Positions, b.Positions)
	f("Velocities", a.Velocities, b.Velocities)
	f("IDs", a.IDs, b.IDs)
	return d
}

// keptMono returns the kept monolithic state when it can continue the
// run asked for: the same method, parameters and settings, and still
// describing the simulation's state bit for bit (nothing else has stepped
// or set it since). Memory restored from a checkpoint that the run would
// discard is an error naming what differs.
func (s *Sim) keptMono(method integrators.Method, adaptive bool, opts *integrators.DriverOptions) (*monoState, error) {
	m := s.mono
	if m == nil || !s.monoCurrent() {
		if m != nil {
			s.spare = m
		}
		s.mono = nil
		return nil, nil
	}
	var diffs []string
	if d := methodDiff(m.method, m.adaptive, method, adaptive); d != "" {
		diffs = append(diffs, d)
	} else {
		diffs = optionsDiff(m.opts, opts, adaptive)
	}
	if len(diffs) == 0 {
		return m, nil
	}
	if m.restored {
		return nil, fmt.Errorf("graph: the checkpoint restored carries integrator memory that this run would discard: %s; continue with the checkpoint's method and options, or call Sim.ResetIntegrator to drop the memory", strings.Join(diffs, "; "))
	}
	s.mono = nil
	return nil, nil
}

// monoStepper returns the kept stepper when keptMono allows, and a fresh,
// initialised one otherwise.
func (s *Sim) monoStepper(method integrators.Method, opts *integrators.DriverOptions) (integrators.Stepper, error) {
	if method == nil {
		return nil, errors.New("graph: RunMonolithic: no integration method (nil); integrators.ByName gives one by name")
	}
	m, err := s.keptMono(method, false, opts)
	if err != nil {
		return nil, err
	}
	if m != nil {
		return m.st, nil
	}
	var sys *System
	var st integrators.Stepper
	if sp := s.reuseSpare(method, false, opts); sp != nil {
		sys, st = sp.sys, sp.st
	} else {
		if sys, err = s.System(); err != nil {
			return nil, err
		}
		if st, err = integrators.NewStepper(method, sys, opts); err != nil {
			return nil, err
		}
	}
	if err := st.Init(s.Time(), s.state); err != nil {
		return nil, err
	}
	s.mono = &monoState{method: method, opts: cloneOptions(opts), sys: sys, st: st}
	return st, nil
}

// reuseSpare returns the stepper set aside (Sim.spare) when it runs the
// same method with the same options, and clears it either way. Init
// resets a stepper's state and memory (integrators.Stepper), so the
// re-initialised spare steps exactly as a new one would.
func (s *Sim) reuseSpare(method integrators.Method, adaptive bool, opts *integrators.DriverOptions) *monoState {
	sp := s.spare
	s.spare = nil
	if sp == nil || methodDiff(sp.method, sp.adaptive, method, adaptive) != "" || len(optionsDiff(sp.opts, opts, adaptive)) > 0 {
		return nil
	}
	return sp
}

// adaptiveStepper returns the kept adaptive driver when keptMono allows,
// and a fresh, initialised one otherwise.
func (s *Sim) adaptiveStepper(am integrators.AdaptiveMethod, opts *integrators.DriverOptions) (*monoState, error) {
	if c := am.Control(); math.IsInf(c.MaxStep, 1) {
		c.MaxStep = 0 // the same bound: +Inf is the default
		am = am.WithControl(c)
	}
	m, err := s.keptMono(am, true, opts)
	if err != nil || m != nil {
		return m, err
	}
	var sys *System
	var a integrators.Driver
	if sp := s.reuseSpare(am, true, opts); sp != nil {
		sys, a = sp.sys, sp.ad
	} else {
		if sys, err = s.System(); err != nil {
			return nil, err
		}
		if a, err = am.NewDriver(sys, opts); err != nil {
			return nil, err
		}
	}
	if err := a.Init(s.Time(), s.state); err != nil {
		return nil, s.monoError(err)
	}
	m = &monoState{method: am, adaptive: true, opts: cloneOptions(opts), sys: sys, ad: a}
	s.mono = m
	return m, nil
}

// monoCurrent reports whether the kept stepper's state is the Sim's.
func (s *Sim) monoCurrent() bool {
	if s.mono == nil {
		return false
	}
	t, y := s.mono.state()
	if t != s.Time() || len(y) != len(s.state) {
		return false
	}
	for i := range y {
		if math.Float64bits(y[i]) != math.Float64bits(s.state[i]) {
			return false
		}
	}
	return true
}

// Integrate advances the simulation to end in monolithic mode with the
// adaptive driver of method dp (an integrators.AdaptiveMethod:
// DormandPrince, ESDIRK43, ESDIRK32 or BDF with its tolerances and step
// bounds; a zero value means the defaults; nil means Dormand–Prince with
// the defaults), its dense output and event localization: it is Run with
// Settings{End: end, Mode: MonolithicAdaptive{Method: dp, Options: opts},
// Observer: obs[0]}, the form for a caller that needs no other setting.
// Node events (node.Eventer, such as
// the ball's contact) are located to opts.EventTol and their reset maps
// applied. The state afterwards is the integrator's at end; the Result
// records the work done in this call, and its Integrator part the
// located events and the samples at opts.Output. end must be after the
// current time.
//
// The driver (its step-size controller, FSAL stage and event state) is
// kept between calls like RunMonolithic's stepper: a later Integrate with
// the same method and options continues it, and Sim.Checkpoint saves it.
//
// Cancelling ctx stops the run within one trial step (accepted or
// rejected): the state is the last accepted one, the Status is Cancelled
// and the error is ctx's. On any other error the state is the last
// accepted one as well.
//
// An Observer (at most one) is called at the start, after every accepted
// step, with the Sim holding that step's state, and at the end; when it
// returns an error the run stops at the observed state, the Status is
// StoppedByObserver and the error an *ObserverError. The integration is
// the same, bit for bit, with or without an Observer.
func (s *Sim) Integrate(ctx context.Context, end float64, dp integrators.AdaptiveMethod, opts *integrators.DriverOptions, obs ...Observer) (*Result, error) {
	if len(obs) > 1 {
		panic("graph: Integrate takes at most one Observer")
	}
	if t0 := s.Time(); math.IsNaN(end) || math.IsInf(end, 0) || !(end > t0) {
		return nil, fmt.Errorf("graph: Integrate: end %v must be finite and after the current time %v", end, t0)
	}
	set := Settings{End: end, Mode: MonolithicAdaptive{Method: dp, Options: opts}}
	if len(obs) == 1 {
		set.Observer = obs[0]
	}
	return s.Run(ctx, set)
}

// adaptiveMaxSteps is integrators.DriverOptions.MaxSteps's default.
const adaptiveMaxSteps = 1_000_000

// adaptiveRun validates the settings of an adaptive run and returns its
// end time and sample times.
func (s *Sim) adaptiveRun(mode MonolithicAdaptive, set Settings) (end float64, samples []float64, err error) {
	t0 := s.Time()
	switch {
	case set.Dt != 0 && (math.IsNaN(set.Dt) || math.IsInf(set.Dt, 0) || set.Dt < 0):
		return 0, nil, fmt.Errorf("graph: Settings.Dt = %v: the sampling step of an adaptive run must be finite and positive (or zero: none)", set.Dt)
	case set.Steps < 0:
		return 0, nil, fmt.Errorf("graph: Settings.Steps = %d is negative", set.Steps)
	case set.Steps > 0 && set.Dt == 0:
		return 0, nil, fmt.Errorf("graph: Settings.Steps = %d of an adaptive run needs Settings.Dt (the run ends at Steps·Dt); or give Settings.End", set.Steps)
	}
	if err := set.checkRecording(); err != nil {
		return 0, nil, err
	}
	end = set.End
	if set.Steps > 0 {
		end = t0 + float64(set.Steps)*set.Dt
	}
	if math.IsNaN(end) || math.IsInf(end, 0) {
		return 0, nil, fmt.Errorf("graph: Settings.End = %v: the end time must be finite", end)
	}
	if end < t0 {
		return 0, nil, fmt.Errorf("graph: Settings.End = %v is before the current time %v", end, t0)
	}
	if is := mode.Options; is != nil && len(is.Output) > 0 {
		for i, ot := range is.Output {
			if !(ot >= t0 && ot <= end) || (i > 0 && ot < is.Output[i-1]) {
				return 0, nil, fmt.Errorf("graph: MonolithicAdaptive.Options.Output[%d] = %v: the sample times must ascend within the run, [%v, %v]", i, ot, t0, end)
			}
		}
		return end, is.Output, nil
	}
	if len(set.Record) > 0 && set.Dt > 0 {
		h := float64(max(set.RecordEvery, 1)) * set.Dt
		if err := checkGridBudget(t0, end, h, set.RecordLimit); err != nil {
			return 0, nil, err
		}
		samples, err = sampleGrid(t0, end, h)
		return end, samples, err
	}
	return end, samples, nil
}

// checkGridBudget refuses an adaptive recording from t0 to end every h
// whose sample times alone (8 bytes each, before any recorded value)
// would exceed limit (0: the default Settings.RecordLimit), before the
// grid is allocated: the recording's own budget (checkRecordBudget) is
// checked later, and does not apply to a streamed recording, whose grid
// is still held.
func checkGridBudget(t0, end, h float64, limit int64) error {
	n := (end-t0)/h + 2
	how := "Settings.RecordLimit"
	if limit == 0 {
		var src string
		limit, src = processMemoryLimit()
		how = "the default Settings.RecordLimit: " + src
	}
	if need := 8 * n; need > float64(limit) {
		return fmt.Errorf("graph: recording every %v s from %v to %v takes %.3g samples, whose times alone need %s of memory, more than the limit of %s (%s): record less often (Settings.RecordEvery or a larger Settings.Dt) or a shorter run",
			h, t0, end, n, formatBytes(need), formatBytes(float64(limit)), how)
	}
	return nil
}

// sampleGrid returns the sample times of an adaptive run from t0 to end
// recording every h: t0, the multiples k·h of h after it, and end. The
// grid is anchored at time 0, not at t0, so that a run continued from a
// checkpoint taken between two accepted steps (an adaptive run stops at
// step times, off the grid) samples at the times the uninterrupted run
// does, bit for bit, and ends with the state at the end time. A run from
// 0 samples at 0, h, 2h, … as before. Times within 1e-9·h of a multiple
// count as on it, so the end is not sampled twice.
func sampleGrid(t0, end, h float64) ([]float64, error) {
	k0, k1 := math.Floor(t0/h+1e-9)+1, math.Floor(end/h+1e-9)
	if k0*h <= t0 {
		k0++
	}
	if n := k1 - k0 + 1; n > MaxSteps {
		return nil, gridTooLarge(t0, end, h)
	}
	samples := makeGrid(max(int(k1-k0)+1, 0) + 2)
	if samples == nil {
		return nil, gridTooLarge(t0, end, h)
	}
	samples = append(samples, t0)
	for k := k0; k <= k1; k++ {
		tk := min(k*h, end)
		if tk > samples[len(samples)-1] {
			samples = append(samples, tk)
		}
	}
	if samples[len(samples)-1] < end && (end-samples[len(samples)-1]) > 1e-9*h {
		samples = append(samples, end)
	}
	return samples, nil
}

// integrate is Run in adaptive monolithic mode: Adaptive.Run's loop (the
// same calls of Step, the same samples, events, statuses and errors) with
// recording and the Observer, the Sim holding each accepted state while
// they see it.
func (s *Sim) integrate(ctx context.Context, mode MonolithicAdaptive, set Settings) (res *Result, err error) {
	end, out, err := s.adaptiveRun(mode, set)
	if err != nil {
		return nil, err
	}
	t0 := s.Time()
	ob, err := newObservation(set, t0, end, 0)
	if err != nil {
		return nil, err
	}
	m, err := s.adaptiveStepper(mode.Method, mode.Options)
	if err != nil {
		return nil, err
	}
	maxSteps := adaptiveMaxSteps
	if is := mode.Options; is != nil && is.MaxSteps != 0 {
		maxSteps = is.MaxSteps
	}
	var rec *recorder
	if len(set.Record) > 0 {
		if rec, err = s.newRecorder(set.Record, max(len(out), 1), set.RecordLimit, !set.StreamOnly); err != nil {
			return nil, err
		}
		if set.RecordTo != nil {
			rec.startStream(set.RecordTo)
		}
	}
	res = &Result{Mode: mode, Method: mode.Method.Name(), Workers: 1}
	if rec != nil {
		res.History = rec.h
	}
	in := res.integration(integrators.Work{})
	stopped := false
	m.sys.stop = nil
	defer func() {
		if res != nil {
			res.Status = statusOf(ctx, err, stopped)
			if res.Status == StoppedByEvent {
				res.StopCause = m.sys.stop
			}
		}
	}()
	defer rec.finish(&err)
	// The System checks ctx at every evaluation too, so even a run of
	// rejected trials stops within one trial.
	m.sys.ctx, m.sys.done = ctx, ctx.Done()
	defer func() { m.sys.ctx, m.sys.done = nil, nil }()
	a := m.ad
	n := s.StateSize()
	// at puts the Sim at state y, time t; sync puts it at the driver's.
	at := func(t float64, y []float64) {
		copy(s.state, y)
		s.t0, s.n, s.dt, s.outputsFresh = t, 0, 0, false
	}
	sync := func() { at(a.State()) }
	// sample records the sample at t, state y, and leaves the Sim there.
	sample := func(t float64, y []float64) error {
		in.Samples = append(in.Samples, integrators.Sample{T: t, Y: y})
		if rec == nil {
			return nil
		}
		at(t, y)
		return rec.row(s)
	}
	every := max(set.RecordEvery, 1)
	var stats0 integrators.Work
	if m.runs > 0 {
		stats0 = a.Work()
	}
	m.runs++
	start := time.Now()
	k := 0
	for k < len(out) && out[k] == t0 && err == nil {
		err = sample(t0, slices.Clone(s.state))
		k++
	}
	if rec != nil && len(out) == 0 && err == nil {
		err = rec.row(s)
	}
	sync()
	if err == nil {
		err = ob.begin(s, res)
	}
	done := ctx.Done()
	for err == nil {
		if t, _ := a.State(); !(t < end) {
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
		st := a.Work()
		if n := st.Steps + st.Rejected - stats0.Steps - stats0.Rejected; n >= maxSteps {
			t, _ := a.State()
			err = s.monoError(&integrators.StepError{Method: mode.Method.Name(), Status: integrators.MaxStepsReached, T: t, Dt: a.NextStep(), Index: -1,
				Err: fmt.Errorf("%d trial steps", n)})
			break
		}
		var rep integrators.StepReport
		if rep, err = a.Step(end); err != nil {
			if cerr := ctx.Err(); cerr == nil || !errors.Is(err, cerr) {
				err = s.monoError(err)
			} else {
				err = cerr
			}
			break
		}
		for k < len(out) && out[k] <= rep.T1 && err == nil {
			y := make([]float64, n)
			a.Dense(out[k], y)
			err = sample(out[k], y)
			k++
		}
		for _, f := range rep.Fired {
			in.Events = append(in.Events, integrators.EventRecord{T: rep.T1, Index: f.Index, Action: f.Action, Round: f.Round, Before: slices.Clone(f.Before), After: slices.Clone(f.After)})
		}
		stopped = rep.Event >= 0 && rep.Action == integrators.EventStop
		// The nodes are told of the step after its samples, which the
		// dense output gives from the trajectory before any step event
		// (as it gives the state before a located event's reset at T1).
		if err == nil {
			t1, y1 := a.State()
			var c completion
			if c, err = m.sys.completed(t1, y1); err != nil {
				break
			}
			if c.y != nil {
				if err = m.restart(c.y); err != nil {
					err = s.monoError(err)
					break
				}
				res.StepEvents++
			}
			if c.stop != nil {
				m.sys.stop, stopped = c.stop, true
			}
		}
		res.Steps++
		sync()
		if err == nil && rec != nil && (len(out) == 0 && res.Steps%every == 0 || stopped) {
			err = rec.row(s)
		}
		if err == nil && (ob.due(res.Steps) || stopped) {
			res.integration(a.Work().Sub(stats0))
			err = ob.step(s, res)
		}
		if stopped {
			break
		}
	}
	sync()
	res.Wall = time.Since(start)
	res.Time = s.Time()
	res.integration(a.Work().Sub(stats0))
	if err != nil {
		stopped = false
	}
	return res, ob.end(s, res, err)
}

// gridTooLarge is sampleGrid's refusal of a grid that no slice can hold:
// more than MaxSteps samples, or more than the runtime's largest
// allocation (2^45 samples on 64-bit platforms), which a
// Settings.RecordLimit set that high (math.MaxInt64) lets through
// checkGridBudget.
func gridTooLarge(t0, end, h float64) error {
	return fmt.Errorf("graph: recording every %v from %v to %v takes more samples than one slice can hold (at most MaxSteps = 2^53, fewer within the runtime's largest allocation): record less often (Settings.RecordEvery or a larger Settings.Dt) or a shorter run", h, t0, end)
}

// makeGrid returns an empty slice of capacity c, or nil when the runtime
// cannot allocate one (make panics: "cap out of range").
func makeGrid(c int) (s []float64) {
	defer func() {
		if recover() != nil {
			s = nil
		}
	}()
	return make([]float64, 0, c)
}
