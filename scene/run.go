package scene

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

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
	// recorded (graph.Settings.RecordTo), for the fixed-step modes; an
	// adaptive run samples its dense output and records in memory only
	// (Streamable says which). StreamOnly then keeps no rows in memory
	// (Result.History has the columns only).
	RecordTo   io.Writer
	StreamOnly bool
}

// Streamable reports whether Options.RecordTo applies to a run of the
// scene: every mode but the adaptive one, which samples its history
// from dense output after the run.
func (sc *Scene) Streamable() bool { return !sc.adaptive() }

// Result describes a scene run, whichever the mode.
type Result struct {
	// Mode is CoSimulation, Monolithic or "monolithic (adaptive)".
	Mode string
	// Method is the integrator of a monolithic run; the coupling
	// strategy's name in co-simulation ("jacobi" by default).
	Method string
	// Steps is the number of steps taken (accepted steps when adaptive).
	Steps int
	// Rejected counts rejected trial steps (adaptive and Newton failures).
	Rejected int
	// Iterations counts the coupling group iterations (co-simulation) or
	// the Newton iterations (monolithic implicit methods).
	Iterations int64
	// Events counts located events (monolithic runs, adaptive or fixed
	// step, locate them; co-simulated nodes handle theirs inside their
	// steps, uncounted).
	Events int
	// Time is the simulation time at the end, Wall the wall-clock time.
	Time float64
	Wall time.Duration
	// History is the recorded table; nil when nothing was recorded.
	History *graph.History
	// Sim is the compiled graph in its end state: Sim.Value reads any
	// field at the end time.
	Sim *graph.Sim
	// Graph is the graph package's result (nil for adaptive runs);
	// Integrator the adaptive integrator's (nil otherwise).
	Graph      *graph.Result
	Integrator *integrators.Outcome
}

// ModeAdaptive is Result.Mode of an adaptive monolithic run.
const ModeAdaptive = "monolithic (adaptive)"

// Simulate compiles the scene against reg and runs it in its mode:
// co-simulation (graph.Sim.Run with the scene's coupling strategy),
// fixed-step monolithic (graph.Sim.RunMonolithic) or adaptive monolithic
// (graph.Sim.Integrate, with samples at Record.Times or every Every·Dt).
// Errors are *Error values with the JSON path they come from where there
// is one; a run that fails part way returns its Result so far with the
// error.
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
	set := sc.Settings()
	if opts.NoHistory {
		set.Record = nil
	}
	set.Observer, set.ObserveEvery = opts.Observer, opts.ObserveEvery
	if opts.RecordTo != nil && len(set.Record) > 0 && !sc.adaptive() {
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
	var err error
	res := &Result{Mode: CoSimulation, Sim: sim}
	switch {
	case sc.adaptive():
		res.Mode, res.Method = ModeAdaptive, integrators.MethodDormandPrince
		err = sc.integrate(ctx, sim, set, res)
	case sc.Run.Mode == Monolithic:
		res.Mode = Monolithic
		m, opts, merr := sc.Run.Integrator.Configure()
		if merr != nil {
			return nil, &Error{Path: "run.integrator.method", Err: merr}
		}
		res.Method = m.Name()
		if _, serr := sim.System(); serr != nil {
			return nil, &Error{Path: "run.mode", Err: serr}
		}
		gr, rerr := sim.RunMonolithic(ctx, m, opts, set)
		res.fromGraph(gr)
		res.Rejected = res.Graph.Integrator.Rejected
		res.Iterations = int64(res.Graph.Integrator.NewtonIters)
		err = rerr
	default:
		res.Method = "jacobi"
		if set.Coupling != nil {
			res.Method = set.Coupling.Name()
		}
		gr, rerr := sim.Run(ctx, set)
		if gr == nil && rerr != nil && sc.Run.Coupling != nil && errors.Is(rerr, graph.ErrCouplingName) {
			return nil, &Error{Path: "run.coupling", Err: rerr}
		}
		res.fromGraph(gr)
		if c := res.Graph.Coupling; c != nil {
			for _, gs := range c.Groups {
				res.Iterations += gs.Iterations
			}
		}
		err = rerr
	}
	return res, err
}

func (r *Result) fromGraph(gr *graph.Result) {
	if gr == nil {
		gr = &graph.Result{}
	}
	r.Graph = gr
	r.Steps, r.Time, r.Wall, r.History = gr.Steps, gr.Time, gr.Wall, gr.History
	r.Events = gr.Integrator.EventsHandled
}

// integrate runs the adaptive integrator and builds the history from its
// dense-output samples.
func (sc *Scene) integrate(ctx context.Context, sim *graph.Sim, set graph.Settings, res *Result) error {
	end := sc.EndTime()
	m, is, err := sc.Run.Integrator.Configure()
	if err != nil {
		return &Error{Path: "run.integrator.method", Err: err}
	}
	dp, _ := m.(integrators.DormandPrince) // validation allows adaptive only with dormand-prince
	if len(set.Record) > 0 {
		is.Output = sc.Record.Times
		if len(is.Output) == 0 {
			every := float64(max(sc.Record.Every, 1))
			n := int(math.Floor(end/(every*sc.Run.Dt) + 1e-9))
			for k := 0; k <= n; k++ {
				is.Output = append(is.Output, min(float64(k)*every*sc.Run.Dt, end))
			}
		}
	}
	start := time.Now()
	var obs []graph.Observer
	if set.Observer != nil {
		obs = append(obs, set.Observer)
	}
	ir, err := sim.Integrate(ctx, end, dp, is, obs...)
	res.Wall = time.Since(start)
	res.Integrator = ir
	if ir == nil {
		return err
	}
	res.Steps, res.Rejected, res.Events, res.Time = ir.Steps, ir.Rejected, len(ir.Events), ir.T
	res.Iterations = int64(ir.NewtonIters)
	if len(set.Record) == 0 || len(ir.Samples) == 0 {
		return err
	}
	h, herr := sampleHistory(sim, set.Record, ir)
	res.History = h
	return errors.Join(err, herr)
}

// sampleHistory evaluates the recorded fields at every dense-output sample
// (outputs such as a connector's force are evaluated at the sample's
// state), then restores the integrator's end state.
func sampleHistory(sim *graph.Sim, fields []string, ir *integrators.Outcome) (*graph.History, error) {
	h := &graph.History{}
	defer func() {
		if ir.Y != nil {
			_ = sim.SetState(ir.Y, ir.T)
		}
	}()
	for i, s := range ir.Samples {
		if err := sim.SetState(s.Y, s.T); err != nil {
			return h, err
		}
		var row []float64
		for _, f := range fields {
			v, err := sim.Value(f)
			if err != nil {
				return h, err
			}
			if i == 0 {
				if len(v) == 1 {
					h.Columns = append(h.Columns, f)
				} else {
					for k := range v {
						h.Columns = append(h.Columns, fmt.Sprintf("%s[%d]", f, k))
					}
				}
			}
			row = append(row, v...)
		}
		h.Times = append(h.Times, s.T)
		h.Rows = append(h.Rows, row)
	}
	return h, nil
}
