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

// RunMonolithic advances the simulation in monolithic mode: the graph's
// stateful nodes form one system (Sim.System) and method steps it with a
// fixed step set.Dt, re-evaluating connector outputs at every stage. It is
// the counterpart of Run, which lets each node step itself
// (co-simulation); the caller picks per run. Steps, End, Record and Every
// mean what they mean for Run; Workers and Grain are ignored (integrator
// stages are sequential). method carries its own options (for example
// integrators.BackwardEuler{Newton: …}; integrators.ByName gives a method
// by name with its defaults), opts the driver's (nil: the defaults). Node
// events (node.Eventer, such as the ball's contact) are handled by every
// method: a crossing within a step is located to opts.EventTol by
// re-stepping, the node's reset applied and the step finished from the
// reset state (package integrators, Events);
// Result.Integrator.EventsHandled counts them.
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
func (s *Sim) RunMonolithic(ctx context.Context, method integrators.Method, opts *integrators.DriverOptions, set Settings) (_ *Result, err error) {
	steps, err := s.prepareRun(set)
	if err != nil {
		return nil, err
	}
	ob, err := s.observeRun(set, steps)
	if err != nil {
		return nil, err
	}
	st, err := s.monoStepper(method, opts)
	if err != nil {
		return nil, err
	}
	stats0 := st.Stats()
	res := &Result{Workers: 1}
	rec, err := s.startRecording(set, steps, res)
	if err != nil {
		return nil, err
	}
	defer rec.finish(&err)
	every := max(set.Every, 1)
	done := ctx.Done()
	start := time.Now()
	err = ob.begin(s, res)
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
			err = s.monoError(err)
			break
		}
		_, y := st.State()
		copy(s.x, y)
		s.yFresh = false
		s.n++
		s.steps++
		res.Steps++
		if rec != nil && s.n%every == 0 {
			if err = rec.row(s); err != nil {
				break
			}
		}
		if ob.due(res.Steps) {
			if err = ob.step(s, res, st.Stats().Sub(stats0)); err != nil {
				break
			}
		}
	}
	res.Wall = time.Since(start)
	res.Time = s.Time()
	res.Integrator = st.Stats()
	return res, ob.end(s, res, st.Stats().Sub(stats0), err)
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
	if !errors.As(err, &se) || se.Status != integrators.NonFinite || se.Index < 0 || se.Index >= len(s.x) {
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
	method   integrators.Method         // with its options; integrators.DormandPrince when adaptive
	adaptive bool                       // ad is Integrate's driver, st is nil
	opts     *integrators.DriverOptions // a copy; nil means the defaults
	sys      *System
	st       integrators.Stepper
	ad       *integrators.Adaptive
	// restored marks memory restored from a checkpoint: continuing it
	// with another method, parameters or options is an error rather than
	// a silent restart.
	restored bool
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
func (s *Sim) ResetIntegrator() { s.mono = nil }

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
	sys, err := s.System()
	if err != nil {
		return nil, err
	}
	st, err := integrators.NewStepper(method, sys, opts)
	if err != nil {
		return nil, err
	}
	if err := st.Init(s.Time(), s.x); err != nil {
		return nil, err
	}
	s.mono = &monoState{method: method, opts: cloneOptions(opts), sys: sys, st: st}
	return st, nil
}

// adaptiveStepper returns the kept adaptive driver when keptMono allows,
// and a fresh, initialised one otherwise.
func (s *Sim) adaptiveStepper(dp integrators.DormandPrince, opts *integrators.DriverOptions) (*monoState, error) {
	if math.IsInf(dp.MaxStep, 1) {
		dp.MaxStep = 0 // the same bound: +Inf is the default
	}
	m, err := s.keptMono(dp, true, opts)
	if err != nil || m != nil {
		return m, err
	}
	sys, err := s.System()
	if err != nil {
		return nil, err
	}
	a, err := integrators.NewAdaptive(dp, sys, opts)
	if err != nil {
		return nil, err
	}
	if err := a.Init(s.Time(), s.x); err != nil {
		return nil, s.monoError(err)
	}
	m = &monoState{method: dp, adaptive: true, opts: cloneOptions(opts), sys: sys, ad: a}
	s.mono = m
	return m, nil
}

// monoCurrent reports whether the kept stepper's state is the Sim's.
func (s *Sim) monoCurrent() bool {
	if s.mono == nil {
		return false
	}
	t, y := s.mono.state()
	if t != s.Time() || len(y) != len(s.x) {
		return false
	}
	for i := range y {
		if math.Float64bits(y[i]) != math.Float64bits(s.x[i]) {
			return false
		}
	}
	return true
}

// Integrate advances the simulation to end in monolithic mode with the
// adaptive driver of the Dormand–Prince 5(4) method dp (its tolerances and
// step bounds; the zero value means the defaults), its dense output and
// event localization: node events (node.Eventer, such as the ball's
// contact) are located to opts.EventTol and their reset maps applied. The
// state afterwards is the integrator's at end; the returned outcome
// records the located events, samples at opts.Output and the work done in
// this call.
//
// The driver (its step-size controller, FSAL stage and event state) is
// kept between calls like RunMonolithic's stepper: a later Integrate with
// the same method and options continues it, and Sim.Checkpoint saves it.
//
// Cancelling ctx stops the run within one trial step (accepted or
// rejected): the state is the last accepted one, the result's Status is
// NotTerminated and the error is ctx's. On any other error the state is
// the last accepted one as well.
//
// An Observer (at most one) is called at the start, after every accepted
// step, with the Sim holding that step's state, and at the end; when it
// returns an error the run stops at the observed state, the Status is
// NotTerminated and the error an *ObserverError. The integration is the
// same, bit for bit, with or without an Observer.
func (s *Sim) Integrate(ctx context.Context, end float64, dp integrators.DormandPrince, opts *integrators.DriverOptions, obs ...Observer) (*integrators.Outcome, error) {
	if len(obs) > 1 {
		panic("graph: Integrate takes at most one Observer")
	}
	t0 := s.Time()
	if math.IsNaN(end) || math.IsInf(end, 0) || !(end > t0) {
		return nil, fmt.Errorf("graph: Integrate: end %v must be finite and after the current time %v", end, t0)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []float64
	if opts != nil {
		out = opts.Output
	}
	m, err := s.adaptiveStepper(dp, opts)
	if err != nil {
		return nil, err
	}
	// The System checks ctx at every evaluation too, so even a run of
	// rejected trials stops within one trial.
	m.sys.ctx, m.sys.done = ctx, ctx.Done()
	defer func() { m.sys.ctx, m.sys.done = nil, nil }()
	var res *integrators.Outcome
	var ob *observation
	var oerr error
	if len(obs) == 1 && obs[0] != nil {
		ob, _ = newObservation(Settings{Observer: obs[0]}, t0, end, 0)
		maxSteps := 1_000_000 // integrators.DriverOptions.MaxSteps's default
		if opts != nil && opts.MaxSteps != 0 {
			maxSteps = opts.MaxSteps
		}
		res, err, oerr = s.integrateObserved(ctx, m.ad, end, out, maxSteps, ob)
	} else {
		res, err = m.ad.Run(ctx, end, out)
	}
	copy(s.x, res.Y)
	s.t0, s.n, s.dt, s.yFresh = res.T, 0, 0, false
	switch {
	case err == nil:
		err = oerr
	case res.Status == integrators.NotTerminated:
		err = ctx.Err()
	default:
		err = s.monoError(err)
	}
	if ob == nil {
		return res, err
	}
	return res, ob.end(s, &ob.res, res.Stats, err)
}
