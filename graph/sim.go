package graph

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

// Sim is a compiled graph: nodes with every name resolved to offsets into
// flat state, output and input buffers, ready to step. A Sim is not safe
// for concurrent use; it runs its own workers inside Run.
type Sim struct {
	onGroupStep func(GroupStep) // Settings.OnGroupStep of the current Run
	nodes       []cnode
	index       map[string]int
	nameCache   *nameCache // during Build only
	gathers     []gather
	levels      [][]int32 // nodes with outputs, by feedthrough depth
	stateful    []int32   // nodes with state, in node order

	x, xNext []float64 // state at t_n; scratch for t_{n+1}
	y        []float64 // outputs
	z        []float64 // outputs only families read, packed (compact.go)
	u        []float64 // inputs
	present  []bool
	scratch  []float64
	yFresh   bool // y holds the outputs of the current x

	t0    float64 // time of step 0 of the current base
	dt    float64 // step of the current base (0: none yet)
	n     int     // steps since t0
	steps int     // steps since Build

	pool  *pool
	grain int
	done  <-chan struct{} // the context of the current Run (nil: none); checked inside long steps
	ctx   context.Context

	cplan *coupledPlan // the compiled Settings.Coupling during a Run; nil otherwise
	cmem  *coupledPlan // the last coupled Run's plan, kept for its cross-step memory (coupled_memory.go)

	// lastRun is the identity (runIdentity) of the last run started, or
	// of the checkpoint restored since; resumeRun that of a checkpoint
	// restored and not yet continued (runident.go).
	lastRun, resumeRun string

	mono *monoState // the monolithic stepper of the last RunMonolithic, kept to resume
	// spare is a stepper set aside because the state moved on without
	// it (SetState, a co-simulation run): a run with the same method and
	// options re-initialises it rather than allocating another (a
	// million-mass chain's RK4 stages are 336 MB).
	spare *monoState

	// The batched engine (family.go, engine.go): families of nodes
	// stepped by batch kernels, the nodes left to the per-node path, and
	// the workers' scratch and pool.
	families      []*family
	inFamily      []bool    // per node
	famOf, rowOf  []int32   // per node: its family (−1: none) and row
	looseLevels   [][]int32 // per output level, nodes not in a family
	looseStateful []int32   // stateful nodes not in a family
	// fuseStep and fuseDerivs are the fused forms of a batched step and
	// of a batched derivatives evaluation (fused.go); nil where fusion
	// does not apply.
	fuseStep, fuseDerivs *fusePlan
	// windows selects window mode for fused steps (fused.go): 0 where
	// Sim.z holds at least windowMinValues, 1 always, −1 never (tests'
	// comparisons).
	windows int8
	// limSrc lists, per output level, the nodes whose outputs the step
	// limiters read (limiterSources); nil until first needed.
	limSrc  [][]int32
	lims    []limRef // the nodes stating a stable step (limiters); nil until first needed
	limFams []limFam // the families among them whose kernel bounds them in one call (limiters)
	workers []*worker
	bpool   *batchPool
	replays int  // batched steps or evaluations replayed per node
	noBatch bool // SetBatching(false)
}

// Time is the current simulation time, t0 + n·dt.
func (s *Sim) Time() float64 { return s.t0 + float64(s.n)*s.dt }

// StepCount is the number of steps taken since Build.
func (s *Sim) StepCount() int { return s.steps }

// Names returns the node names in the order they were added, as
// Graph.Names does for the graph the Sim was built from.
func (s *Sim) Names() []string { return s.nodeNames() }

// Node returns the named node.
func (s *Sim) Node(name string) (node.Node, bool) {
	i, ok := s.index[name]
	if !ok {
		return nil, false
	}
	return s.nodes[i].n, true
}

// StateSize is the length of the flat state vector.
func (s *Sim) StateSize() int { return len(s.x) }

// State copies the flat state vector (all nodes, in node order) into dst
// and returns it; dst is grown when too short.
func (s *Sim) State(dst []float64) []float64 {
	if cap(dst) < len(s.x) {
		dst = make([]float64, len(s.x))
	}
	dst = dst[:len(s.x)]
	copy(dst, s.x)
	return dst
}

// SetState replaces the flat state vector and the time.
func (s *Sim) SetState(x []float64, t float64) error {
	if len(x) != len(s.x) {
		return fmt.Errorf("graph: state has %d values, the graph has %d", len(x), len(s.x))
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("graph: state value %s is not finite", s.componentName(i))
		}
	}
	if math.IsNaN(t) || math.IsInf(t, 0) {
		return fmt.Errorf("graph: SetState: time %v is not finite", t)
	}
	copy(s.x, x)
	s.t0, s.n, s.yFresh = t, 0, false
	return nil
}

// componentName names the j-th value of the flat state, "node.field[k]".
func (s *Sim) componentName(j int) string {
	if name, field := s.locate(j); name != "" {
		return name + "." + field
	}
	return "#" + strconv.Itoa(j)
}

// Value returns a copy of the current value of "node.field" (a state field
// or an output; outputs are evaluated at the current state if needed) or
// of one component, "node.field[i]".
func (s *Sim) Value(path string) ([]float64, error) {
	r, err := s.resolvePath(path)
	if err != nil {
		return nil, err
	}
	if r.fromY && !s.yFresh {
		if err := s.outputs(s.Time()); err != nil {
			return nil, err
		}
		s.yFresh = true
	}
	buf := s.x
	if r.fromY {
		buf = s.y
	}
	return append([]float64(nil), buf[r.off:r.off+r.n]...), nil
}

// SetValue sets the state field "node.field" (or one component) to v.
func (s *Sim) SetValue(path string, v ...float64) error {
	r, err := s.resolvePath(path)
	if err != nil {
		return err
	}
	if r.fromY {
		return fmt.Errorf("graph: %s is an output; only state fields can be set", path)
	}
	if len(v) != r.n {
		return fmt.Errorf("graph: %s has %d values, got %d", path, r.n, len(v))
	}
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("graph: %s: value %d (%v) is not finite", path, i, x)
		}
	}
	copy(s.x[r.off:r.off+r.n], v)
	s.yFresh = false
	return nil
}

type pathRef struct {
	name  string
	off   int
	n     int
	fromY bool
}

// resolvePath resolves "node.field" or "node.field[i]" for reading.
func (s *Sim) resolvePath(path string) (pathRef, error) {
	comp := -1
	p := path
	shown := node.Elide(path)
	if i := strings.IndexByte(p, '['); i > 0 && strings.HasSuffix(p, "]") {
		k, err := strconv.Atoi(p[i+1 : len(p)-1])
		if err != nil || k < 0 {
			return pathRef{}, fmt.Errorf("graph: %s: bad component index", node.Quote(path))
		}
		comp, p = k, p[:i]
	}
	var errs []error
	ref, ok := s.resolveSource(p, func(err error, f string, a ...any) {
		errs = append(errs, fmt.Errorf("graph: %s: %w: %s", shown, err, node.ElideTo(fmt.Sprintf(f, a...), 300)))
	})
	if !ok {
		return pathRef{}, errs[0]
	}
	r := pathRef{name: path, off: ref.off, n: ref.field.Shape.Len(), fromY: ref.fromY}
	if comp >= 0 {
		if comp >= r.n {
			return pathRef{}, fmt.Errorf("graph: %q: component %d of a %s field", path, comp, ref.field.Shape)
		}
		r.off += comp
		r.n = 1
	}
	return r, nil
}

// Settings controls a Run: how long, in which mode (co-simulation by
// default; Method or Adaptive for monolithic), what to record and observe.
// Dt and one of Steps or End are required (an adaptive run needs only
// End); every other zero value means the documented default.
type Settings struct {
	// Dt is the macro step of a co-simulation, the fixed step of a
	// monolithic Method. It must be finite and positive; an adaptive run
	// needs none (zero), and uses it only to space its recorded samples
	// (Adaptive).
	Dt float64
	// Steps is the number of steps to take, at most MaxSteps. When zero,
	// End is used.
	Steps int
	// End is the time to run to: round((End − Time())/Dt) steps of a
	// fixed step, End itself when adaptive. It must be finite, not before
	// the current time, and at most MaxSteps steps away.
	End float64
	// Workers bounds the goroutines that update nodes in co-simulation
	// (monolithic runs use one). Zero means runtime.GOMAXPROCS(0); one
	// runs everything on the calling goroutine; negative is an error.
	// Results are bit-identical for every value.
	Workers int
	// Grain is the smallest number of node evaluations in one phase for
	// which the phase is split across workers; smaller phases run on the
	// calling goroutine. Zero means DefaultGrain; negative is an error.
	Grain int
	// Record lists fields to record, "node.field" or "node.field[i]".
	Record []string
	// Every records every Every steps (and the initial state); an
	// adaptive run samples every Every·Dt instead (Adaptive). Zero means
	// 1; negative is an error.
	Every int
	// RecordTo, when set, receives every recorded row as it is recorded,
	// as CSV in the format of History.WriteCSV (the header first), so that
	// an interrupted or failed run has written every row recorded before
	// it stopped. Rows are buffered and flushed when Run returns; a write
	// error stops the run and is returned.
	RecordTo io.Writer
	// StreamOnly, with RecordTo, keeps no rows in memory: Result.History
	// then has the columns and no rows, and memory stays constant however
	// long the run. Without RecordTo it is an error.
	StreamOnly bool
	// RecordLimit bounds the memory that the rows kept in Result.History
	// may need, in bytes. Run refuses up front, naming the row count and
	// the memory needed, a recording that could exceed it. Zero means
	// DefaultRecordLimit(); negative is an error.
	RecordLimit int64
	// Coupling is the co-simulation strategy (see package coupling and
	// Sim.Schedule). Nil means explicit Jacobi on the default path: the
	// same results as coupling.Jacobi, without its statistics.
	Coupling *coupling.Strategy
	// OnGroupStep, when set, is called once per step for every iterated
	// coupling group, after the group's iteration ends (converged or
	// not), with that step's diagnostics. It runs on the goroutine that
	// called Run, between steps of the group's members, so it needs no
	// locking; it must not call back into the Sim. Nil costs nothing.
	OnGroupStep func(GroupStep)
	// Observer, when set, is called at the start of the run, every
	// ObserveEvery steps and at the end (see Observer); returning an
	// error stops the run. Nil costs nothing.
	Observer Observer
	// ObserveEvery is the number of steps between Observer calls. Zero
	// means every step; it must not be negative.
	ObserveEvery int

	// Method, when not nil, runs the graph monolithically: its stateful
	// nodes form one system (Sim.System) that Method integrates with the
	// fixed step Dt, re-evaluating connector outputs at every stage (see
	// RunMonolithic). Method carries its own options (the implicit
	// methods' Newton and linear solvers, Newmark's β and γ);
	// integrators.ByName gives a method by name with its defaults, and a
	// method defined outside package integrators works like a built-in
	// one. Nil means co-simulation (Coupling), unless Adaptive. Workers
	// and Grain do not apply (integrator stages are sequential); Coupling
	// and OnGroupStep must then be unset.
	Method integrators.Method
	// Options are the driver options every method shares (event
	// tolerance and Zeno guard, position/velocity pairs, IDs; for an
	// adaptive run also the Output sample times and the MaxSteps budget).
	// Nil means their defaults. They need Method or Adaptive; an option
	// the driver does not use (Output or MaxSteps with a fixed step) is
	// an error wrapping integrators.ErrNotApplicable.
	Options *integrators.DriverOptions
	// Adaptive runs the graph monolithically with the adaptive driver of
	// an integrators.AdaptiveMethod (see Integrate): error control
	// chooses the steps and node events are located to Options.EventTol.
	// Method must then be nil (Dormand–Prince 5(4) with the defaults) or
	// an AdaptiveMethod — integrators.DormandPrince, ESDIRK43, ESDIRK32
	// or BDF — whose tolerances and step bounds the driver uses.
	// End is required, or Steps with Dt (the run then ends at Time() +
	// Steps·Dt); Dt is otherwise optional: with Record it sets the sample
	// times (below). The state is sampled from the integrator's dense
	// output at Options.Output when set, else, when recording with Dt > 0,
	// at the run's start time, at the multiples k·Every·Dt after it (the
	// grid is anchored at time 0, so that a run continued from a
	// checkpoint samples where the uninterrupted run does) and at End; those
	// samples are Result.Integrator.Samples and the rows of Result.History
	// (outputs evaluated at the sampled state). Recording with neither
	// records the start and every Every accepted steps. A run an event
	// stops records its last state too (fixed-step runs as well).
	// ObserveEvery counts accepted steps.
	Adaptive bool
}

// GroupStep is the diagnostics of one iterated coupling group in one step
// (Settings.OnGroupStep).
type GroupStep struct {
	Group      string  // the group's name
	Step       int     // the step, counted as in StateError
	Time       float64 // the time at the start of the step
	Iterations int     // evaluations of G in this step
	Residual   float64 // max |G(u)_i − u_i| of the accepted iterate
	Converged  bool    // false when accepted by coupling.Accept after MaxIter
}

// DefaultGrain is the default Settings.Grain: below it, handing work to
// other goroutines costs more than it saves. A run starts its workers
// when its largest phase has DefaultGrain evaluations (the W1 chain's
// N+1 connectors), so a chain of 512 masses or more splits. Measured on
// an idle two-core machine (go run ./benchmarks/report), with the pool's
// workers spinning between phases (engine.go): at this Grain two workers
// ran 1.7× one at 1 000 masses and 1.5–1.9× up to 10⁶; forced on every
// phase of every size (Grain 1, which also splits a run's per-node
// start-up work), they were slower than one up to a few hundred masses
// (0.46× at 30, 0.65–0.87× at 100–300) and 1.04–1.11× from 1 000.
const DefaultGrain = 512

// Run advances the simulation in the mode the settings select, and is
// the one entry point for every way of running a Sim:
//
//   - co-simulation (Settings.Method nil, Adaptive false): every node
//     steps itself with its own Update, coupled by Settings.Coupling
//     (explicit Jacobi by default), on Workers goroutines;
//   - fixed-step monolithic (Settings.Method set): the stateful nodes form
//     one system (Sim.System) that the method integrates with the fixed
//     step Dt (RunMonolithic is this form);
//   - adaptive monolithic (Settings.Adaptive): the system is integrated
//     to End by the adaptive driver of an integrators.AdaptiveMethod
//     (Settings.Method nil for Dormand–Prince 5(4), or a DormandPrince,
//     ESDIRK43, ESDIRK32 or BDF carrying its tolerances), its error
//     control choosing the steps (Integrate is this form).
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
	if err := s.checkRunArgs(ctx, set); err != nil {
		return nil, err
	}
	if err := checkMode(set); err != nil {
		return nil, err
	}
	if err := s.checkResume(set); err != nil {
		return nil, err
	}
	// A checkpoint an Observer takes during the run names it.
	prev := s.lastRun
	s.lastRun = runIdentity(set)
	var res *Result
	var err error
	switch {
	case set.Adaptive:
		res, err = s.integrate(ctx, set)
	case set.Method != nil:
		res, err = s.runMonolithic(ctx, set.Method, set)
	default:
		res, err = s.cosimulate(ctx, set)
	}
	if res == nil {
		s.lastRun = prev // the run did not start
	} else {
		s.resumeRun = ""
	}
	return res, err
}

// checkMode checks that the settings select one mode consistently.
func checkMode(set Settings) error {
	mono := set.Method != nil || set.Adaptive
	if v := reflect.ValueOf(set.Method); set.Method != nil && v.Kind() == reflect.Pointer && v.IsNil() {
		return fmt.Errorf("graph: Settings.Method is a nil %T: give a method value (integrators.RK4{}, integrators.ByName), or nil for co-simulation", set.Method)
	}
	if set.Adaptive && set.Method != nil {
		if _, ok := adaptiveMethod(set); !ok {
			return fmt.Errorf("graph: Settings.Adaptive needs an adaptive method (integrators.AdaptiveMethod: %s, %s, %s, %s); Settings.Method is %s (%T), which has no error control: leave it nil (%s), give one of those with the tolerances to use, or drop Adaptive for a fixed step", integrators.MethodDormandPrince, integrators.MethodESDIRK43, integrators.MethodESDIRK32, integrators.MethodBDF, set.Method.Name(), set.Method, integrators.MethodDormandPrince)
		}
	}
	switch {
	case !mono && set.Options != nil:
		return errors.New("graph: Settings.Options are the options of an integration method's driver, and Settings.Method is nil (co-simulation): set the Method (or Adaptive), or drop the Options")
	case mono && set.Coupling != nil:
		return fmt.Errorf("graph: Settings.Coupling (%s) is for co-simulation; a monolithic run (Settings.Method, Adaptive) integrates all nodes together: drop one of them", set.Coupling.Name())
	case mono && set.OnGroupStep != nil:
		return errors.New("graph: Settings.OnGroupStep reports coupling groups of a co-simulation; a monolithic run (Settings.Method, Adaptive) has none")
	}
	return nil
}

// cosimulate is Run in co-simulation.
func (s *Sim) cosimulate(ctx context.Context, set Settings) (res *Result, err error) {
	steps, err := s.prepareRun(set)
	if err != nil {
		return nil, err
	}
	ob, err := s.observeRun(set, steps)
	if err != nil {
		return nil, err
	}
	every := max(set.Every, 1)
	workers := set.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	grain := set.Grain
	if grain <= 0 {
		grain = DefaultGrain
	}
	res = &Result{Mode: CoSimulation, Method: "jacobi", Workers: 1}
	if set.Coupling != nil {
		res.Method = set.Coupling.Name()
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
	s.onGroupStep = set.OnGroupStep
	s.ctx, s.done = ctx, ctx.Done()
	defer func() { s.onGroupStep, s.ctx, s.done = nil, nil, nil }()
	if err := s.beginCoupling(set.Coupling); err != nil {
		return nil, err
	}
	if s.cplan != nil {
		defer s.endCoupling(res)
	}
	rec, err := s.startRecording(set, steps, res)
	if err != nil {
		return nil, err
	}
	defer rec.finish(&err)
	if workers > 1 && s.maxPhase() >= grain {
		s.pool = startPool(workers)
		res.Workers = workers
		defer func() { s.pool.stop(); s.pool = nil }()
		if s.batching() {
			s.ensureWorkers(workers)
			s.bpool = startBatchPool(s, workers)
			defer func() { s.bpool.stop(); s.bpool = nil }()
		}
	}
	s.grain = grain
	done := ctx.Done()
	start := time.Now()
	replays := s.replays
	defer func() { res.Replays = s.replays - replays }()
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
		if err = s.step(s.Time(), set.Dt, res); err != nil {
			break
		}
		s.n++
		s.steps++
		res.Steps++
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
	if p := s.cplan; p != nil {
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
	switch {
	case set.Every < 0:
		return 0, fmt.Errorf("graph: Settings.Every = %d is negative (0 means every step)", set.Every)
	case set.Workers < 0:
		return 0, fmt.Errorf("graph: Settings.Workers = %d is negative (0 means GOMAXPROCS)", set.Workers)
	case set.Grain < 0:
		return 0, fmt.Errorf("graph: Settings.Grain = %d is negative (0 means DefaultGrain)", set.Grain)
	case set.RecordLimit < 0:
		return 0, fmt.Errorf("graph: Settings.RecordLimit = %d is negative (0 means DefaultRecordLimit())", set.RecordLimit)
	case set.StreamOnly && set.RecordTo == nil:
		return 0, errors.New("graph: Settings.StreamOnly needs Settings.RecordTo, the writer the rows stream to")
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
	rec, err := s.newRecorder(set.Record, steps/max(set.Every, 1)+1, set.RecordLimit, !set.StreamOnly)
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
	if s.cplan != nil {
		return s.coupledStep(t, dt, res)
	}
	if s.batching() {
		if s.stepBatched(t, dt) {
			if !s.yFresh {
				res.OutputEvals += int64(s.numOutputNodes())
			}
			res.NodeUpdates += int64(len(s.stateful))
			s.x, s.xNext = s.xNext, s.x
			s.yFresh = false
			return nil
		}
		s.replays++
	}
	return s.stepPerNode(t, dt, res)
}

// stepPerNode is the step on the per-node path: every node through its
// own Update and Outputs, checked node by node. It is the reference the
// batched step replays on failure.
func (s *Sim) stepPerNode(t, dt float64, res *Result) error {
	if !s.yFresh {
		if err := s.outputs(t); err != nil {
			return err
		}
		res.OutputEvals += int64(s.numOutputNodes())
	}
	if err := s.run(phaseUpdate, s.stateful, t, dt); err != nil {
		return err
	}
	res.NodeUpdates += int64(len(s.stateful))
	s.x, s.xNext = s.xNext, s.x
	s.yFresh = false
	return nil
}

func (s *Sim) numOutputNodes() int {
	n := 0
	for _, l := range s.levels {
		n += len(l)
	}
	return n
}

// outputs evaluates every node's outputs at the current state.
func (s *Sim) outputs(t float64) error {
	for _, l := range s.levels {
		if err := s.run(phaseOutputs, l, t, 0); err != nil {
			return err
		}
	}
	return nil
}

const (
	phaseOutputs = iota
	phaseUpdate
)

// run evaluates phase on the nodes in tasks, split across the pool when
// there is one and the phase is large enough. The error returned is the
// one of the first failing node in task order, whatever the split.
func (s *Sim) run(phase int, tasks []int32, t, dt float64) error {
	if s.pool == nil || len(tasks) < s.grain {
		return s.chunk(phase, tasks, t, dt)
	}
	return s.pool.do(s, phase, tasks, t, dt)
}

// chunk evaluates phase on tasks in order, recovering panics in node and
// transform code as errors naming the node.
func (s *Sim) chunk(phase int, tasks []int32, t, dt float64) (err error) {
	cur := int32(-1)
	defer func() {
		if r := recover(); r != nil {
			name := "?"
			if cur >= 0 {
				name = s.nodes[cur].name
			}
			err = stepError(name, "", s.steps, t, fmt.Errorf("panic: %v", r))
		}
	}()
	for _, i := range tasks {
		cur = i
		c := &s.nodes[i]
		switch phase {
		case phaseOutputs:
			err = s.evalOutputs(c, t)
		case phaseHeld:
			err = s.updateHeld(c, t, dt)
		default:
			err = s.update(c, t, dt)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *Sim) inputs(c *cnode) node.Inputs {
	return node.Inputs{Values: s.u[c.u0:c.u1], Present: s.present[c.p0:c.p1]}
}

func (s *Sim) evalOutputs(c *cnode, t float64) error {
	if c.feedthrough {
		if err := s.gather(c, t); err != nil {
			return err
		}
	}
	y := s.y[c.y0:c.y1]
	if err := c.out.Outputs(t, s.x[c.x0:c.x1], s.inputs(c), y); err != nil {
		return stepError(c.name, "", s.steps, t, err)
	}
	if j := nonFinite(y); j >= 0 {
		return stepError(c.name, c.spec.OutputLayout.Component(j), s.steps, t, node.ErrNonFinite)
	}
	return nil
}

func (s *Sim) update(c *cnode, t, dt float64) error {
	if !c.feedthrough {
		if err := s.gather(c, t); err != nil {
			return err
		}
	}
	dst := s.xNext[c.x0:c.x1]
	if err := c.n.Update(t, dt, s.x[c.x0:c.x1], s.inputs(c), dst); err != nil {
		return stepError(c.name, "", s.steps, t, err)
	}
	if j := nonFinite(dst); j >= 0 {
		return stepError(c.name, c.spec.StateLayout.Component(j), s.steps, t, node.ErrNonFinite)
	}
	return nil
}

// gather fills c's connected inputs from the sources' current values and
// checks them when they could be non-finite (cnode.checkIn).
func (s *Sim) gather(c *cnode, t float64) error {
	s.applyGathers(c.g0, c.g1)
	if !c.checkIn {
		return nil
	}
	if j := nonFinite(s.u[c.u0:c.u1]); j >= 0 {
		return stepError(c.name, "input "+c.spec.InputLayout.Component(j), s.steps, t, node.ErrNonFinite)
	}
	return nil
}

// gatherSafe is gather for callers outside chunk (the monolithic system,
// iterated groups): a panic in a transform is returned as a
// *node.StateError naming the receiving node instead of escaping.
func (s *Sim) gatherSafe(c *cnode, t float64) (err error) {
	defer s.recoverNode(c.name, t, &err)
	return s.gather(c, t)
}

// recoverNode turns a panic into a *node.StateError naming the node, at
// the current step and time t. It must be deferred directly (it calls
// recover); it allocates only when there is a panic.
func (s *Sim) recoverNode(name string, t float64, err *error) {
	if r := recover(); r != nil {
		*err = panicError(name, s.steps, t, r)
	}
}

// panicError is the error that reports a recovered panic in node or
// transform code.
func panicError(name string, step int, t float64, r any) error {
	return stepError(name, "", step, t, fmt.Errorf("panic: %v", r))
}

// locate returns the stateful node holding flat state component j and
// the field's component name within it ("x", "q[1]"), or "" if none.
func (s *Sim) locate(j int) (nodeName, field string) {
	for _, c := range s.nodes {
		if j >= c.x0 && j < c.x1 {
			return c.name, c.spec.StateLayout.Component(j - c.x0)
		}
	}
	return "", ""
}

// applyGathers runs gathers [lo, hi): each copies (or adds, after a
// transform) its source's current value into its input slot.
func (s *Sim) applyGathers(lo, hi int) {
	for gi := lo; gi < hi; gi++ {
		g := &s.gathers[gi]
		buf := s.x
		if g.fromY {
			buf = s.y
		}
		src := buf[g.src : g.src+g.sn]
		dst := s.u[g.dst : g.dst+g.n]
		switch {
		case g.mode == gatherSet && g.tr == nil:
			copy(dst, src)
		case g.mode == gatherSet:
			g.tr.Apply(dst, src)
		case g.tr == nil:
			for k, v := range src {
				dst[k] += v
			}
		default:
			tmp := s.scratch[g.scratch : g.scratch+g.n]
			g.tr.Apply(tmp, src)
			for k, v := range tmp {
				dst[k] += v
			}
		}
	}
}

// nonFinite returns the index of the first NaN or Inf in v, or -1.
func nonFinite(v []float64) int {
	for i, x := range v {
		if x-x != 0 {
			return i
		}
	}
	return -1
}
