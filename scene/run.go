package scene

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

// Options adjust Simulate. A nil *Options means the zero value.
type Options struct {
	// Overrides are applied as Build applies them ("node.param" → value).
	Overrides map[string]any
	// Observer, when not nil, watches the run (graph.Observer): at the
	// start, every ObserveEvery steps (every accepted step of an adaptive
	// run) and at the end, on the goroutine that called Simulate.
	// Returning an error stops the run at the observed state. It cannot
	// change the results.
	Observer graph.Observer
	// ObserveEvery is graph.Settings.ObserveEvery; zero means every step.
	ObserveEvery int
	// Resume, when not nil, is a checkpoint of this scene's graph
	// (graph.Sim.Checkpoint) to continue from: Simulate restores it and
	// runs from its time to the scene's end, bit for bit as the run it
	// was taken from would have continued (the history starts at the
	// checkpoint's time).
	Resume *graph.Checkpoint
	// Prepare, when not nil, is called with the compiled Sim (restored
	// from Resume) before the run starts, for observers that read it or
	// checkpoint it; its error stops Simulate.
	Prepare func(sim *graph.Sim) error
	// NoHistory skips recording (sweeps read the end state from
	// Result.Sim instead).
	NoHistory bool
	// RecordTo, when set, receives the recorded rows as CSV as they are
	// recorded (graph.Settings.RecordTo), in every mode. StreamOnly then
	// keeps no rows in memory (Result.History has the columns only).
	RecordTo   io.Writer
	StreamOnly bool
}

// Result is the graph.Result of a scene run — the same Stats, Status and
// mode-specific parts whichever the scene's mode — with the compiled Sim
// beside it.
type Result struct {
	*graph.Result
	// Sim is the compiled graph in its end state: Sim.Value reads any
	// field at the end time. A scene with nodes that hold resources
	// outside Go memory (an imported FMU) should have it closed
	// (Sim.Close) when done; otherwise they are released when it is
	// garbage collected.
	Sim *graph.Sim
}

// Simulate compiles the scene against reg and runs it in its mode with
// one graph.Sim.Run: the scene's run settings (Settings) select
// co-simulation with the scene's coupling strategy, fixed-step monolithic
// or adaptive monolithic integration (samples at Record.Times or every
// Every·Dt). Errors are *Error values with the JSON path they come from
// where there is one; a run that fails part way returns its Result so
// far with the error, and a run that could not start a nil Result.
func (sc *Scene) Simulate(ctx context.Context, reg *node.Registry, opts *Options) (*Result, error) {
	if opts == nil {
		opts = &Options{}
	}
	// Every problem at once: the structure, the registry, the recorded
	// fields and the wiring.
	c := sc.check()
	if c.fatal {
		return nil, c.err()
	}
	sim, _, errs := sc.compile(reg, opts.Overrides, c)
	if errs = append(c.errs, errs...); len(errs) > 0 {
		return nil, joinErrors(errs)
	}
	started := false
	defer func() {
		if !started {
			sim.Close() // nothing half-loaded when the run cannot start
		}
	}()
	set, err := sc.runSettings()
	if err != nil {
		return nil, err
	}
	if opts.NoHistory {
		set.Record = nil
		if m, ok := set.Mode.(graph.MonolithicAdaptive); ok && m.Options != nil {
			m.Options.Output = nil
		}
	}
	set.Observer, set.ObserveEvery = opts.Observer, opts.ObserveEvery
	if opts.RecordTo != nil && len(set.Record) > 0 {
		set.RecordTo, set.StreamOnly = opts.RecordTo, opts.StreamOnly
	}
	if opts.Resume != nil {
		if err := sim.Restore(opts.Resume); err != nil {
			return nil, &Error{Path: "checkpoint", Err: err}
		}
		left := sc.EndTime() > sim.Time()
		if set.Steps > 0 {
			set.Steps -= sim.StepCount()
			left = set.Steps > 0
		}
		if !left {
			return nil, &Error{Path: "checkpoint", Err: fmt.Errorf("the checkpoint is at t = %v, step %d: the run ends at t = %v, nothing is left to run", sim.Time(), sim.StepCount(), sc.EndTime())}
		}
	}
	if opts.Prepare != nil {
		if err := opts.Prepare(sim); err != nil {
			return nil, err
		}
	}
	gr, err := sim.Run(ctx, set)
	if gr == nil {
		return nil, sc.startError(err)
	}
	started = true
	return &Result{Result: gr, Sim: sim}, err
}

// runSettings returns the graph settings of the scene's run: the step,
// length and recording, and its mode — graph.CoSimulation with the
// scene's workers and coupling strategy, graph.Monolithic with the
// method (Integrator.Configure: the registry's method with the scene's
// options) and driver options, or graph.MonolithicAdaptive with the
// adaptive method (Dormand–Prince, ESDIRK or BDF), which ends at EndTime
// and samples at Record.Times when given (else every Every·Dt). The
// error is an *Error at the path of an invalid setting.
func (sc *Scene) runSettings() (graph.Settings, error) {
	set := graph.Settings{Dt: sc.Run.Dt, Steps: sc.Run.Steps, End: sc.Run.End, Record: sc.Record.Fields, RecordEvery: sc.Record.Every}
	in := sc.Run.Integrator
	if !sc.Run.Monolithic() || in == nil {
		co := graph.CoSimulation{Workers: sc.Run.Workers}
		if sc.Run.Coupling != nil {
			co.Coupling, _ = sc.Run.Coupling.Strategy()
		}
		set.Mode = co
		return set, nil
	}
	m, opts, err := in.Configure()
	if err != nil {
		set.Mode = graph.CoSimulation{Workers: sc.Run.Workers}
		return set, &Error{Path: "run.integrator.method", Err: err}
	}
	if in.Adaptive {
		am, ok := m.(integrators.AdaptiveMethod)
		if !ok {
			return set, &Error{Path: "run.integrator.adaptive", Err: fmt.Errorf("%s has no error control; an adaptive run takes %s, %s, %s or %s", m.Name(), integrators.MethodDormandPrince, integrators.MethodBDF, integrators.MethodESDIRK43, integrators.MethodESDIRK32)}
		}
		set.Steps, set.End = 0, sc.EndTime()
		opts.Output = slices.Clone(sc.Record.Times)
		set.Mode = graph.MonolithicAdaptive{Method: am, Options: opts}
		return set, nil
	}
	set.Mode = graph.Monolithic{Method: m, Options: opts}
	return set, nil
}

// startError places the error of a run that could not start (a nil
// graph.Result) at the scene path it comes from.
func (sc *Scene) startError(err error) error {
	switch {
	case errors.Is(err, graph.ErrCouplingName) && sc.Run.Coupling != nil:
		return &Error{Path: "run.coupling", Err: err}
	case errors.Is(err, graph.ErrNoDerivatives):
		return &Error{Path: "run.mode", Err: err}
	}
	return err
}
