package graph

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"time"
)

// Run advances the simulation in the mode Settings.Mode gives, and is
// the one entry point for every way of running a Sim:
//
//   - CoSimulation (the default, Mode nil): every node steps itself with
//     its own Update, coupled by the mode's Coupling (explicit Jacobi by
//     default), on its Workers goroutines;
//   - Monolithic: the stateful nodes form one system (Sim.System) that
//     the mode's Method integrates with the fixed step Dt (RunMonolithic
//     is this form);
//   - MonolithicAdaptive: the system is integrated to End by the adaptive
//     driver of the mode's integrators.AdaptiveMethod (Dormand–Prince
//     5(4) by default; ESDIRK43, ESDIRK32 or BDF for stiff graphs), its
//     error control choosing the steps (Integrate is this form).
//
// Every mode returns a *Result with the same Stats and Status, records
// the same way (Settings.Record) and calls the same Observer.
//
// Run stops at the first error: a node's error, a panic inside node or
// transform code, a non-finite value in a state, output or input
// (reported as a *node.StateError naming node, field, step and time), or
// an integrator failure (a *integrators.StepError, wrapped in a
// *node.StateError when a value is non-finite); the state is then the
// last good one (before the failing step), the Result describes the steps
// that succeeded and its Status is Failed. Run stops within one step
// when ctx is cancelled (inside a step, within one coupling-group
// iteration or multirate substep, the cancelled step leaving the state at
// its start; within one trial step when adaptive) and returns ctx's error
// with the state reached and Status Cancelled. An Observer that returns
// an error stops the run at the observed state: Status StoppedByObserver,
// the error an *ObserverError. Invalid settings are an error before any
// step, with a nil Result (see Settings and MaxSteps).
func (s *Sim) Run(ctx context.Context, set Settings) (*Result, error) {
	mode, err := set.mode()
	if err != nil {
		return nil, err
	}
	restoreLoops, err := s.useLoopSettings(set.Loops) // loop.go
	if err != nil {
		return nil, err
	}
	defer restoreLoops()
	if err := s.checkRunArgs(ctx, mode); err != nil {
		return nil, err
	}
	if err := s.checkResume(mode); err != nil {
		return nil, err
	}
	// A checkpoint an Observer takes during the run names it.
	prev := s.lastRun
	s.lastRun = runIdentity(mode)
	var res *Result
	switch m := mode.(type) {
	case Monolithic:
		res, err = s.runMonolithic(ctx, m, set)
	case MonolithicAdaptive:
		res, err = s.integrate(ctx, m, set)
	default:
		res, err = s.cosimulate(ctx, mode.(CoSimulation), set)
	}
	if res == nil {
		s.lastRun = prev // the run did not start
	} else {
		s.resumeRun = ""
	}
	return res, err
}

// cosimulate is Run in co-simulation.
func (s *Sim) cosimulate(ctx context.Context, mode CoSimulation, set Settings) (res *Result, err error) {
	steps, err := s.prepareRun(set)
	if err != nil {
		return nil, err
	}
	ob, err := s.observeRun(set, steps)
	if err != nil {
		return nil, err
	}
	every := max(set.RecordEvery, 1)
	workers := mode.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	grain := mode.Grain
	if grain <= 0 {
		grain = DefaultGrain
	}
	res = &Result{Mode: mode, Method: "jacobi", Workers: 1}
	if mode.Coupling != nil {
		res.Method = mode.Coupling.Name()
	}
	// Deferred first, so that it runs last, on the final error.
	defer func() {
		if res != nil {
			res.Status = statusOf(ctx, err, false)
		}
	}()
	if ws, werr := s.StepWarnings(set.Dt); werr == nil && len(ws) > 0 {
		res.Warnings = ws
		defer func() { err = WithStepHint(err, ws) }()
	}
	// The context is set first so that a cancellation stops the
	// analysis's trial steps too (within one substep or iteration).
	s.ctx, s.done = ctx, ctx.Done()
	// The workers start before the stability check, so that its trial
	// steps (steps of the run's own engine) use them.
	if workers == 1 || s.maxPhase() < grain {
		workers = 1
	}
	s.engine.startWorkers(workers, grain)
	defer s.engine.stopWorkers()
	res.Workers = workers
	// The check's trial steps are spaced by its arithmetic: the pool does
	// not judge sharing on them (pool.go, sharing.hold).
	s.engine.holdSharing(true)
	gw := s.startStability(mode, set, steps, res)
	s.engine.holdSharing(false)
	s.onGroupStep = mode.OnGroupStep
	defer func() { s.onGroupStep, s.ctx, s.done = nil, nil, nil }()
	if err := s.beginCoupling(mode.Coupling); err != nil {
		return nil, err
	}
	if s.plan != nil {
		defer s.endCoupling(res)
	}
	rec, err := s.startRecording(set, steps, res)
	if err != nil {
		return nil, err
	}
	defer rec.finish(&err)
	done := ctx.Done()
	start := time.Now()
	replays := s.replays
	defer func() { res.Replays = s.replays - replays }()
	err = s.first(rec, ob, res)
	for k := 0; k < steps; k++ {
		if done != nil { // a context that cannot be cancelled has none
			select {
			case <-done:
				err = ctx.Err()
			default:
			}
		}
		if err != nil {
			break
		}
		if err = s.step(s.Time(), set.Dt, res); err != nil {
			break
		}
		s.n++
		s.steps++
		res.Steps++
		if gw != nil && res.Steps%growthStride == 0 {
			if err = gw.sample(s, res.Steps); err != nil {
				break
			}
		}
		if rec != nil && s.n%every == 0 {
			if err = rec.row(s); err != nil {
				break
			}
		}
		if ob.due(res.Steps) {
			res.Replays, res.CouplingIters = s.replays-replays, s.couplingIters()
			if err = ob.step(s, res); err != nil {
				break
			}
		}
	}
	res.Wall = time.Since(start)
	res.Time = s.Time()
	res.Replays, res.CouplingIters = s.replays-replays, s.couplingIters()
	return res, ob.end(s, res, err)
}

// couplingIters is the number of group iterations of the current coupled
// Run so far (0 outside one).
func (s *Sim) couplingIters() int64 {
	var n int64
	if p := s.plan; p != nil {
		for _, g := range p.groups {
			n += g.stats.Iterations
		}
	}
	return n
}

// MaxSteps is the largest number of steps one fixed-step Run (or
// Settings.End) may ask for: 2^53, beyond which the step count, and so
// the time t0 + n·dt, is no longer exact in float64.
const MaxSteps = 1 << 53

// prepareRun validates the settings, rebases time when the step changes
// and returns the number of steps to take. It changes nothing when the
// settings are invalid.
func (s *Sim) prepareRun(set Settings) (int, error) {
	if math.IsNaN(set.Dt) || math.IsInf(set.Dt, 0) || set.Dt <= 0 {
		return 0, fmt.Errorf("graph: Settings.Dt = %v: the step must be finite and positive", set.Dt)
	}
	if err := set.checkRecording(); err != nil {
		return 0, err
	}
	steps := set.Steps
	if steps < 0 {
		return 0, fmt.Errorf("graph: Settings.Steps = %d is negative", steps)
	}
	if steps > MaxSteps {
		return 0, fmt.Errorf("graph: Settings.Steps = %d is more than MaxSteps = 2^53", steps)
	}
	if steps == 0 {
		if set.End == 0 && s.Time() == 0 {
			return 0, errors.New("graph: Settings has neither Steps nor End: give the number of steps or the end time of the run")
		}
		if math.IsNaN(set.End) || math.IsInf(set.End, 0) {
			return 0, fmt.Errorf("graph: Settings.End = %v: the end time must be finite (or give Settings.Steps)", set.End)
		}
		n := math.Round((set.End - s.Time()) / set.Dt)
		if math.IsNaN(n) || n < 0 {
			return 0, fmt.Errorf("graph: Settings.End = %v is before the current time %v", set.End, s.Time())
		}
		if n > MaxSteps {
			return 0, fmt.Errorf("graph: Settings.End = %v is %.3g steps of %v from the current time %v, more than MaxSteps = 2^53", set.End, n, set.Dt, s.Time())
		}
		steps = int(n)
	}
	if set.Dt != s.dt {
		s.t0, s.n, s.dt = s.Time(), 0, set.Dt
	}
	return steps, nil
}

// startRecording resolves set.Record; first records the initial row.
func (s *Sim) startRecording(set Settings, steps int, res *Result) (*recorder, error) {
	if len(set.Record) == 0 {
		return nil, nil
	}
	rec, err := s.newRecorder(set.Record, steps/max(set.RecordEvery, 1)+1, set.RecordLimit, !set.StreamOnly)
	if err != nil {
		return nil, err
	}
	if set.RecordTo != nil {
		rec.startStream(set.RecordTo)
	}
	res.History = rec.h
	return rec, nil
}

// first records the initial row, when recording, and makes the
// Observer's start call: the run's prologue, whose error (a node failing
// at the initial state, the Observer stopping it) ends the run before its
// first step.
func (s *Sim) first(rec *recorder, ob *observation, res *Result) error {
	if rec != nil {
		if err := rec.row(s); err != nil {
			return err
		}
	}
	return ob.begin(s, res)
}

// cancelled returns the Run's context error once it is cancelled, and nil
// otherwise (and outside a Run). Long steps (group iterations, multirate
// substeps) call it between their parts, so that a step whose own work
// is large still stops promptly; it does not allocate.
func (s *Sim) cancelled() error {
	select {
	case <-s.done:
		return s.ctx.Err()
	default:
		return nil
	}
}

// Step advances the simulation by one step of dt on the calling
// goroutine, with the error semantics of Run. It does not allocate.
func (s *Sim) Step(dt float64) error {
	if math.IsNaN(dt) || math.IsInf(dt, 0) || dt <= 0 {
		return fmt.Errorf("graph: step %v must be finite and positive", dt)
	}
	if dt != s.dt {
		s.t0, s.n, s.dt = s.Time(), 0, dt
	}
	var res Result
	if err := s.step(s.Time(), dt, &res); err != nil {
		return err
	}
	s.n++
	s.steps++
	return nil
}

func (s *Sim) maxPhase() int {
	m := len(s.stateful)
	for _, l := range s.levels {
		m = max(m, len(l))
	}
	return m
}

// step takes one two-phase step from t: outputs at t in dependency order,
// then every stateful node from t to t+dt with inputs gathered at t.
func (s *Sim) step(t, dt float64, res *Result) error {
	if s.plan != nil {
		return s.coupledStep(t, dt, res)
	}
	if s.engine.on() {
		if s.engine.step(t, dt, s.outputsFresh) {
			if !s.outputsFresh {
				res.OutputEvals += int64(s.numOutputNodes())
			}
			res.NodeUpdates += int64(len(s.stateful))
			s.state, s.nextState = s.nextState, s.state
			s.outputsFresh = false
			return nil
		}
		s.replays++
	}
	return s.stepPerNode(t, dt, res)
}
