package graph

import (
	"errors"
	"fmt"
	"io"
	"reflect"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/integrators"
)

// Settings controls a Run: in which mode it steps the graph, how long,
// what it records and who observes it. Dt and one of Steps or End are
// required (an adaptive run needs only End); every other zero value means
// the documented default, and the zero Mode is a co-simulation.
type Settings struct {
	// Mode is how the graph is stepped, with the options of that mode
	// alone: CoSimulation (nil means CoSimulation{}: explicit Jacobi on
	// GOMAXPROCS workers), Monolithic (a fixed-step integration method)
	// or MonolithicAdaptive (an adaptive method: Dormand–Prince, or ESDIRK
	// or BDF for stiff graphs). See Mode.
	Mode Mode
	// Dt is the macro step of a co-simulation, the fixed step of a
	// monolithic method. It must be finite and positive; an adaptive run
	// needs none (zero), and uses it only to space its recorded samples
	// (MonolithicAdaptive).
	Dt float64
	// Steps is the number of steps to take, at most MaxSteps. When zero,
	// End is used.
	Steps int
	// End is the time to run to: round((End − Time())/Dt) steps of a
	// fixed step, End itself when adaptive. It must be finite, not before
	// the current time, and at most MaxSteps steps away.
	End float64
	// Record lists fields to record, "node.field" or "node.field[i]".
	Record []string
	// RecordEvery records every RecordEvery steps (and the initial
	// state); an adaptive run samples every RecordEvery·Dt instead
	// (MonolithicAdaptive). Zero means 1; negative is an error.
	RecordEvery int
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
	// Observer, when set, is called at the start of the run, every
	// ObserveEvery steps and at the end (see Observer); returning an
	// error stops the run. Nil costs nothing.
	Observer Observer
	// ObserveEvery is the number of steps between Observer calls
	// (accepted steps of an adaptive run). Zero means every step; it
	// must not be negative.
	ObserveEvery int
}

// Mode is how a Run steps the graph, and carries the options of that
// mode only, as the Method value of gonum's optimize.Minimize does: a
// Settings cannot hold a coupling strategy and an integration method at
// once. Its values are of three types, of this package only:
//
//   - CoSimulation: every node steps itself with its own Update, coupled
//     by a coupling strategy (explicit Jacobi by default), on several
//     workers. The zero Settings.Mode (nil) is CoSimulation{}.
//   - Monolithic: the stateful nodes form one system (Sim.System) that a
//     fixed-step integration method steps.
//   - MonolithicAdaptive: the same system, integrated by the adaptive
//     driver of an integrators.AdaptiveMethod (Dormand–Prince 5(4) by
//     default; ESDIRK43, ESDIRK32 or BDF for stiff graphs), its error
//     control choosing the steps.
//
// A pointer to one of them is accepted as the value it points to. String
// names the mode as Result.Mode prints and scene files spell it.
type Mode interface {
	String() string
	// isMode keeps the set of modes to the three Run knows.
	isMode()
}

// CoSimulation is the mode in which every node steps itself with its own
// Update, from the inputs its edges carry at the start of the step,
// coupled by a coupling strategy. Its zero value is explicit Jacobi on
// GOMAXPROCS workers.
type CoSimulation struct {
	// Coupling is the co-simulation strategy (see package coupling and
	// Sim.Schedule). Nil means explicit Jacobi on the default path: the
	// same results as coupling.Jacobi, without its statistics.
	Coupling *coupling.Strategy
	// Workers bounds the goroutines that update nodes. Zero means
	// runtime.GOMAXPROCS(0); one runs everything on the calling
	// goroutine; negative is an error. Results are bit-identical for
	// every value.
	Workers int
	// Grain is the smallest number of node evaluations in one phase for
	// which the phase is split across workers; smaller phases run on the
	// calling goroutine. Zero means DefaultGrain; negative is an error.
	Grain int
	// OnGroupStep, when set, is called once per step for every iterated
	// coupling group, after the group's iteration ends (converged or
	// not), with that step's diagnostics. It runs on the goroutine that
	// called Run, between steps of the group's members, so it needs no
	// locking; it must not call back into the Sim. Nil costs nothing.
	OnGroupStep func(GroupStep)
}

// Monolithic is the mode in which the graph's stateful nodes form one
// system (Sim.System) that Method integrates with the fixed step
// Settings.Dt, re-evaluating connector outputs at every stage (see
// RunMonolithic, its short form). Integrator stages are sequential: the
// run uses one goroutine.
type Monolithic struct {
	// Method is the integration method, with its own options (the
	// implicit methods' Newton and linear solvers, Newmark's β and γ);
	// integrators.ByName gives a method by name with its defaults, and
	// a method defined outside package integrators works like a
	// built-in one. It is required.
	Method integrators.Method
	// Options are the driver options every method shares (event
	// tolerance and Zeno guard, position/velocity pairs, IDs). Nil means
	// their defaults. An option the fixed-step driver does not use
	// (Output, MaxSteps) is an error wrapping
	// integrators.ErrNotApplicable.
	Options *integrators.DriverOptions
}

// MonolithicAdaptive is the mode in which the graph's stateful nodes
// form one system integrated by the adaptive driver of an
// integrators.AdaptiveMethod (see Integrate, its short form): error
// control chooses the steps and node events are located to
// Options.EventTol.
//
// The run ends at Settings.End, or at Time() + Steps·Dt when Steps and
// Dt are given; Dt is otherwise optional. The state is sampled from the
// integrator's dense output at Options.Output when set, else, when
// recording with Dt > 0, at the run's start time plus every
// RecordEvery·Dt up to the end; those samples are
// Result.Integrator.Samples and the rows of Result.History (outputs
// evaluated at the sampled state). Recording with neither records the
// start and every RecordEvery accepted steps. A run an event stops
// records its last state too. Settings.ObserveEvery counts accepted
// steps.
type MonolithicAdaptive struct {
	// Method is the adaptive method, carrying its tolerances and step
	// bounds (integrators.StepControl) and its own options (the implicit
	// methods' Newton and linear solvers): integrators.DormandPrince, or
	// for stiff graphs ESDIRK43, ESDIRK32 or BDF; a zero value means its
	// defaults. Nil means Dormand–Prince 5(4) with the defaults; a
	// pointer to a method value is accepted as the value it points to.
	Method integrators.AdaptiveMethod
	// Options are the driver options: event tolerance and Zeno guard,
	// the Output sample times and the MaxSteps budget of trial steps.
	// Nil means their defaults.
	Options *integrators.DriverOptions
}

func (CoSimulation) String() string       { return "co-simulation" }
func (Monolithic) String() string         { return "monolithic" }
func (MonolithicAdaptive) String() string { return "monolithic (adaptive)" }

func (CoSimulation) isMode()       {}
func (Monolithic) isMode()         {}
func (MonolithicAdaptive) isMode() {}

// mode returns the settings' mode as a value — CoSimulation{} for nil, the
// value a pointer points to — and checks the options of its mode.
func (set *Settings) mode() (Mode, error) {
	m := set.Mode
	switch p := m.(type) {
	case nil:
		return CoSimulation{}, nil
	case *CoSimulation:
		if p != nil {
			m = *p
		}
	case *Monolithic:
		if p != nil {
			m = *p
		}
	case *MonolithicAdaptive:
		if p != nil {
			m = *p
		}
	}
	switch m := m.(type) {
	case CoSimulation:
		switch {
		case m.Workers < 0:
			return nil, fmt.Errorf("graph: CoSimulation.Workers = %d is negative (0 means GOMAXPROCS)", m.Workers)
		case m.Grain < 0:
			return nil, fmt.Errorf("graph: CoSimulation.Grain = %d is negative (0 means DefaultGrain)", m.Grain)
		}
	case Monolithic:
		if m.Method == nil {
			return nil, errors.New("graph: Monolithic.Method is nil: give an integration method (integrators.RK4{}, or integrators.ByName for one by name)")
		}
		if v := reflect.ValueOf(m.Method); v.Kind() == reflect.Pointer && v.IsNil() {
			return nil, fmt.Errorf("graph: Monolithic.Method is a nil %T: give a method value (integrators.RK4{}, integrators.ByName)", m.Method)
		}
	case MonolithicAdaptive:
		if v := reflect.ValueOf(m.Method); v.Kind() == reflect.Pointer && v.IsNil() {
			return nil, fmt.Errorf("graph: MonolithicAdaptive.Method is a nil %T: give a method value (integrators.DormandPrince{RTol: …}, integrators.BDF{}, …), or leave it nil for Dormand–Prince with the defaults", m.Method)
		}
		if m.Method == nil {
			m.Method = integrators.DormandPrince{}
		} else if v := reflect.ValueOf(m.Method); v.Kind() == reflect.Pointer {
			// A pointer to a method value (&integrators.BDF{…}) runs as
			// the value, so that the kept driver and checkpoints compare
			// methods by their options, never by address.
			if am, ok := v.Elem().Interface().(integrators.AdaptiveMethod); ok {
				m.Method = am
			}
		}
		return m, nil
	default:
		if v := reflect.ValueOf(m); v.Kind() == reflect.Pointer && v.IsNil() {
			return nil, fmt.Errorf("graph: Settings.Mode is a nil %T: give a mode value (graph.Monolithic{Method: …}), or leave it nil for co-simulation", m)
		}
		return nil, fmt.Errorf("graph: Settings.Mode is a %T, which embeds a mode: give graph.CoSimulation, graph.Monolithic or graph.MonolithicAdaptive itself", m)
	}
	return m, nil
}

// GroupStep is the diagnostics of one iterated coupling group in one step
// (CoSimulation.OnGroupStep).
type GroupStep struct {
	Group      string  // the group's name
	Step       int     // the step, counted as in StateError
	Time       float64 // the time at the start of the step
	Iterations int     // evaluations of G in this step
	Residual   float64 // max |G(u)_i − u_i| of the accepted iterate
	Converged  bool    // false when accepted by coupling.Accept after MaxIter
}

// DefaultGrain is the default CoSimulation.Grain: below it, handing work
// to other goroutines costs more than it saves. A run starts its workers
// when its largest phase has DefaultGrain evaluations (the W1 chain's
// N+1 connectors, benchmarks/doc.go), so a chain of 512 masses or more
// splits. Measured on an idle two-core machine (go run
// ./benchmarks/report), with the pool's workers spinning between phases
// (pool.go): at this Grain two workers ran 1.7× one at 1 000 masses and
// 1.5–1.9× up to 10⁶; forced on every phase of every size (Grain 1,
// which also splits a run's per-node start-up work), they were slower
// than one up to a few hundred masses (0.46× at 30, 0.65–0.87× at
// 100–300) and 1.04–1.11× from 1 000.
const DefaultGrain = 512

// checkRecording checks the recording and observing settings every mode
// shares.
func (set *Settings) checkRecording() error {
	switch {
	case set.RecordEvery < 0:
		return fmt.Errorf("graph: Settings.RecordEvery = %d is negative (0 means every step)", set.RecordEvery)
	case set.RecordLimit < 0:
		return fmt.Errorf("graph: Settings.RecordLimit = %d is negative (0 means DefaultRecordLimit())", set.RecordLimit)
	case set.StreamOnly && set.RecordTo == nil:
		return errors.New("graph: Settings.StreamOnly needs Settings.RecordTo, the writer the rows stream to")
	}
	return nil
}
