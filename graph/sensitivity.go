package graph

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

// Forward sensitivities of a monolithic run, in five files read top
// down: this one (the options, the result and Sim.Sensitivities, which
// sets a run up); sensitivity_system.go (the augmented system [y, S] the
// integrator steps, and ∂f/∂y, ∂f/∂p); sensitivity_params.go (the named
// parameters, their exact or differenced derivatives, and the time
// events they must not move); sensitivity_events.go (the saltation jump
// of S at a located event); sensitivity_run.go (the adaptive and
// fixed-step loops and the recorded rows); loop_sensitivity.go holds
// the differences (parameter, state, time) through algebraic loops.

// ErrNotDifferentiable is the cause of every error Sim.Sensitivities
// returns for a run it cannot differentiate correctly (co-simulation,
// fixed steps through events, a grazing contact, a parameter that moves
// a node's time events). Test for it with errors.Is.
var ErrNotDifferentiable = errors.New("sensitivities cannot be computed correctly for this run")

// SensitivityOptions configures Sim.Sensitivities. End is required; every
// other zero value means the documented default.
type SensitivityOptions struct {
	// End is the time to integrate to; it must be after the Sim's time.
	End float64
	// Record lists the fields whose sensitivities are reported, "node.field"
	// or "node.field[i]": state fields (exact, from S) or outputs
	// (differentiated along S by central differences, see Sim.Sensitivities).
	// Nil means every state field.
	Record []string
	// Mode is how the state and its sensitivities are integrated, as in
	// Settings.Mode and with the same values:
	//
	//   - nil or MonolithicAdaptive: the adaptive Dormand–Prince 5(4)
	//     driver with event localization on its dense output;
	//     MonolithicAdaptive.Method nil or an integrators.DormandPrince
	//     carrying the tolerances (FixedStep included), and its Options
	//     the driver options (event tolerance, Zeno guard, MaxSteps; their
	//     Output must be empty: the sample times are Output below). The
	//     other adaptive methods (ESDIRK, BDF) are refused: integrate a
	//     stiff graph's sensitivities with a fixed-step implicit method.
	//   - Monolithic: Method steps with the fixed step Dt, events located
	//     by re-stepping; Options are its driver options.
	//   - CoSimulation: refused with an error wrapping
	//     ErrNotDifferentiable (see Sim.Sensitivities).
	//
	// The method's tolerances control the error of the state and of the
	// sensitivities together.
	Mode Mode
	// Output lists the times (ascending, within [start, End]) at which the
	// adaptive method samples its dense output, state and sensitivities
	// alike: times between steps are interpolated, never snapped. Nil means
	// the start, the end of every accepted step, and both sides of every
	// event. A fixed-step run (Monolithic) refuses it: it records every
	// RecordEvery steps.
	Output []float64
	// Dt is the fixed step of a Monolithic run; it must be zero for an
	// adaptive one.
	Dt float64
	// RecordEvery records every RecordEvery fixed steps (and the start).
	// Zero means 1.
	RecordEvery int
}

// sensitivityMode returns the options' mode as a value (nil is adaptive
// Dormand–Prince with the defaults, a pointer is the value it points to)
// after checking that Sensitivities can integrate it: the error of a
// co-simulation wraps ErrNotDifferentiable.
func (o *SensitivityOptions) sensitivityMode() (Mode, error) {
	set := Settings{Mode: o.Mode}
	if set.Mode == nil {
		set.Mode = MonolithicAdaptive{}
	}
	mode, err := set.mode()
	if err != nil {
		return nil, &prefixed{"graph: Sensitivities: ", err}
	}
	switch m := mode.(type) {
	case CoSimulation:
		return nil, fmt.Errorf("graph: Sensitivities: co-simulation runs are not differentiated: the nodes' Update maps have no derivatives, and a contact handled inside an Update is a per-step branch whose time a fixed step never differentiates (MADD-ANO-021); run monolithically with the adaptive method instead (SensitivityOptions.Mode nil or graph.MonolithicAdaptive): %w", ErrNotDifferentiable)
	case MonolithicAdaptive:
		if _, ok := m.Method.(integrators.DormandPrince); !ok {
			return nil, fmt.Errorf("graph: Sensitivities: MonolithicAdaptive.Method is %s: sensitivities integrate adaptively with %s only (its dense output and event localization); give an integrators.DormandPrince, or a fixed-step method (graph.Monolithic, an implicit one for a stiff graph)", m.Method.Name(), integrators.MethodDormandPrince)
		}
		switch {
		case o.Dt != 0:
			return nil, fmt.Errorf("graph: Sensitivities: Dt = %v with an adaptive mode: the adaptive driver chooses its steps (a fixed step of Dormand–Prince is DormandPrince.FixedStep, or graph.Monolithic with Dt)", o.Dt)
		case m.Options != nil && len(m.Options.Output) > 0:
			return nil, errors.New("graph: Sensitivities: MonolithicAdaptive.Options.Output is set: give the sample times as SensitivityOptions.Output")
		}
	case Monolithic:
		switch {
		case !(o.Dt > 0) || math.IsInf(o.Dt, 0):
			return nil, fmt.Errorf("graph: Sensitivities: Dt %v must be finite and positive for the fixed-step method %s", o.Dt, m.Method.Name())
		case len(o.Output) > 0:
			return nil, fmt.Errorf("graph: Sensitivities: Output is set for the fixed-step method %s, which has no dense output: record every RecordEvery steps, or integrate adaptively", m.Method.Name())
		}
	}
	if o.RecordEvery < 0 {
		return nil, fmt.Errorf("graph: Sensitivities: RecordEvery = %d is negative (0 means every step)", o.RecordEvery)
	}
	return mode, nil
}

// Adaptive reports whether the options integrate adaptively (Mode nil
// or MonolithicAdaptive).
func (o *SensitivityOptions) Adaptive() bool {
	switch o.Mode.(type) {
	case nil, MonolithicAdaptive, *MonolithicAdaptive:
		return true
	}
	return false
}

// Sensitivity is the history of the recorded fields and of their
// derivatives with respect to the named parameters.
type Sensitivity struct {
	// Params are the parameters, "node.param", in the order asked for.
	Params []string
	// Columns are the recorded components ("ball.position",
	// "mass.position[1]").
	Columns []string
	// Times has one entry per row. At an event time there are two rows
	// (adaptive method, Output nil): before and after the reset.
	Times []float64
	// Values[i][k] is Columns[k] at Times[i].
	Values [][]float64
	// D[i][k*len(Params)+j] is ∂Columns[k]/∂Params[j] at Times[i].
	D [][]float64
	// Events are the located events with the derivatives of their times.
	Events []SensitivityEvent
	// Method names the integrator: "dormand-prince (adaptive)" or the
	// fixed-step method's name.
	Method string
	// Work is the integrator's work on the augmented system (state and
	// sensitivities together).
	Work integrators.Work
}

// SensitivityEvent is an event located during Sim.Sensitivities.
type SensitivityEvent struct {
	T    float64   // the located time
	Name string    // "node.event"
	DT   []float64 // ∂T/∂Params[j], from the event condition
}

// At returns ∂column/∂param at row i, and false when either name is not
// in the result.
func (r *Sensitivity) At(i int, column, param string) (float64, bool) {
	k, j := indexOf(r.Columns, column), indexOf(r.Params, param)
	if k < 0 || j < 0 || i < 0 || i >= len(r.D) {
		return 0, false
	}
	return r.D[i][k*len(r.Params)+j], true
}

// Value returns column at row i, and false when it is not recorded.
func (r *Sensitivity) Value(i int, column string) (float64, bool) {
	k := indexOf(r.Columns, column)
	if k < 0 || i < 0 || i >= len(r.Values) {
		return 0, false
	}
	return r.Values[i][k], true
}

// Series returns ∂column/∂param at every row, or nil when either name is
// not in the result.
func (r *Sensitivity) Series(column, param string) []float64 {
	k, j := indexOf(r.Columns, column), indexOf(r.Params, param)
	if k < 0 || j < 0 {
		return nil
	}
	out := make([]float64, len(r.D))
	for i, d := range r.D {
		out[i] = d[k*len(r.Params)+j]
	}
	return out
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// WriteCSV writes the history as CSV: a header "t", then for every column
// its value and its derivatives, named "d(column)/d(param)"; floats in the
// shortest form that reads back exactly.
func (r *Sensitivity) WriteCSV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("t")
	for _, c := range r.Columns {
		bw.WriteString("," + c)
		for _, p := range r.Params {
			bw.WriteString(",d(" + c + ")/d(" + p + ")")
		}
	}
	bw.WriteByte('\n')
	np := len(r.Params)
	var buf []byte
	for i, t := range r.Times {
		buf = strconv.AppendFloat(buf[:0], t, 'g', -1, 64)
		for k := range r.Columns {
			buf = append(buf, ',')
			buf = strconv.AppendFloat(buf, r.Values[i][k], 'g', -1, 64)
			for j := 0; j < np; j++ {
				buf = append(buf, ',')
				buf = strconv.AppendFloat(buf, r.D[i][k*np+j], 'g', -1, 64)
			}
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}

// Sensitivities integrates the graph as one system y' = f(t, y, p) (the
// monolithic view, Sim.System) from the nodes' initial states at the
// current parameters (InitialState, whatever the Sim's state) at the
// Sim's start time, to opts.End, together
// with the forward sensitivities S = ∂y/∂p of the named parameters
// ("node.param" for Real parameters of Tunable nodes, "node.param[i]" for
// a component of a Vector one, such as a spring-damper's "stiffness[0]"):
//
//	S' = (∂f/∂y)·S + ∂f/∂p,   S(t0) = ∂InitialState/∂p,
//
// with the same method and the same steps as the state (the integrator
// steps the augmented system [y, S], and its error control covers both).
// ∂f/∂y is the graph's Jacobian: its sparse assembly (JacobianPattern and
// SparseJacobian) when the System has one, System.Jacobian otherwise.
// ∂f/∂p comes from a node's node.ParamJacobian when the parameter's node
// is stateful and has no outputs (so the parameter reaches f only through
// that node's own Derivatives), and otherwise from central differences of f over
// SetParams (step 1e-6·|p|, one-sided near a bound of the parameter's
// range). ∂InitialState/∂p likewise comes from node.InitialStateJacobian
// or from differences of InitialState. Through an algebraic loop, every
// difference over a parameter (of f, of an event's or reset's inputs, of
// a recorded output) is taken with the loop held at its solution and
// moved along dz/dp = (I − ∂F/∂z)⁻¹·∂F/∂p (the implicit-function
// theorem, F the loop's one pass through its members), never re-solved,
// so the loop's solve tolerance is not divided by the step.
//
// At an event located by the integrator (time t*, event function g,
// reset map R) — the adaptive driver on its dense output, a fixed-step
// method by re-stepping to the crossing (integrators' fixed-step event
// handling, which steps the augmented system like any other) — S jumps
// by the saltation map
//
//	S⁺ = (∂R/∂y)·S⁻ + ∂R/∂p − (f⁺ − (∂R/∂y)·f⁻ − ∂R/∂t)·∂t*/∂p,
//	∂t*/∂p = −(∂g/∂y·S⁻ + ∂g/∂p) / (∂g/∂y·f⁻ + ∂g/∂t),
//
// where f⁻ and f⁺ are f before and after the reset. (The total
// derivative of the state just after the event is (∂R/∂y)·(S⁻ +
// f⁻·∂t*/∂p) + ∂R/∂p + ∂R/∂t·∂t*/∂p; S⁺ at a fixed time subtracts the
// post-event flow f⁺·∂t*/∂p, hence the minus sign: with a plus the
// term would give ∂x/∂h = +e instead of −e just after a ball's bounce,
// and the bouncing-ball closed forms in verification pin the sign.) The event node's node.EventJacobian and node.ResetJacobian give
// the derivatives with respect to its state, inputs and parameters
// exactly; its inputs' dependence on the graph state and parameters, and
// everything of a node without those capabilities, is differenced. f⁻ is
// the flow on the near side of the event's surface (the located state
// lies on or past it, where a node that switches mode on that surface —
// a limited integrator held at its limit — already reports the mode
// after it). A crossing with ∂g/∂y·f⁻ +
// ∂g/∂t = 0 (grazing) has no derivative and is an error. A differenced
// ∂f/∂p whose one-sided differences disagree however small the step (a
// state held exactly on a switch that p moves, as a saturated
// integrator's own limit) takes the side on which the mode at p
// extends, or is refused with a *SwitchError when neither side
// converges. The located time
// is within the driver options' EventTol (the mode's Options) of the root, and the sensitivities are
// exact to that tolerance and the integration tolerances.
//
// Recorded state fields are read from S. Recorded outputs are
// differentiated along S: ∂o/∂p_j = (o(y + h·S_j, p_j + h) − o(y − h·S_j,
// p_j − h))/(2h), central differences with the parameter step above.
//
// What is not differentiated, and rejected with an error wrapping
// ErrNotDifferentiable rather than answered wrongly:
//   - co-simulation (a CoSimulation Mode, or nodes without Derivatives): the
//     nodes' Update maps are not differentiated, and a contact inside an
//     Update is a per-step branch whose time derivative a fixed step never
//     sees (MADD-ANO-021);
//   - parameters that move a node's time events (node.TimeEventer), whose
//     jump in S is not implemented;
//   - a node that says its sensitivities cannot be right
//     (node.SensitivityChecker: an imported FMU with events or discrete
//     state), refused before the run with its reason;
//   - a node that changes its state at an accepted step (a step event,
//     node.StepCompleter), refused at that step: the jump of S there is
//     not implemented. Such nodes are told of every accepted step, as in
//     a monolithic run, and one that asks to stop ends the run there.
//
// Sensitivities restores every parameter it perturbs and leaves the Sim's
// state, time and kept integrator untouched. It must not run while the
// Sim steps, and it allocates per evaluation (Jacobians, and SetParams
// for differenced parameters): it is for analysis, not the hot loop.
func (s *Sim) Sensitivities(ctx context.Context, params []string, opts *SensitivityOptions) (*Sensitivity, error) {
	if ctx == nil {
		return nil, errors.New("graph: Sensitivities: the context is nil; pass context.Background() (or context.TODO())")
	}
	if opts == nil {
		return nil, fmt.Errorf("graph: Sensitivities: options with End are required")
	}
	if _, err := opts.sensitivityMode(); err != nil {
		return nil, err
	}
	if s.steps != 0 || s.mono != nil {
		return nil, fmt.Errorf("graph: Sensitivities starts from the nodes' initial states, and this Sim has already run (Run, Step, RunMonolithic or Integrate); build a fresh Sim (parameters set with SetParams are kept by the nodes)")
	}
	t0 := s.Time()
	if math.IsNaN(opts.End) || !(opts.End > t0) {
		return nil, fmt.Errorf("graph: Sensitivities: End %v must be after the current time %v", opts.End, t0)
	}
	if len(params) == 0 {
		return nil, fmt.Errorf("graph: Sensitivities: no parameters named")
	}
	m, err := s.System()
	if err != nil {
		return nil, fmt.Errorf("%w (%w)", &prefixed{"graph: Sensitivities: ", err}, ErrNotDifferentiable)
	}
	return s.sensitivities(ctx, m, m, params, opts)
}

// sensitivities is Sensitivities with the source of ∂f/∂y given: m
// itself, or (in tests) a wrapper with a sparse assembly.
func (s *Sim) sensitivities(ctx context.Context, m *System, jac stateJacobian, params []string, opts *SensitivityOptions) (*Sensitivity, error) {
	t0 := s.Time()
	for i := range s.nodes {
		if sc, ok := node.As[node.SensitivityChecker](s.nodes[i].n); ok {
			if err := sc.CheckSensitivities(); err != nil {
				return nil, fmt.Errorf("graph: Sensitivities: node %s: %w (%w)", s.nodes[i].name, err, ErrNotDifferentiable)
			}
		}
	}
	a, err := newSensSys(s, m, params)
	if err != nil {
		return nil, err
	}
	a.useJacobian(jac)
	defer a.restoreParams()
	refs, cols, err := s.sensRecord(opts.Record)
	if err != nil {
		return nil, err
	}
	if err := a.checkTimeEvents(t0, opts.End); err != nil {
		return nil, err
	}
	m.ctx, m.done = ctx, ctx.Done()
	defer func() { m.ctx, m.done = nil, nil }()
	Y0, err := a.initial(t0)
	if err != nil {
		return nil, err
	}
	res := &Sensitivity{Params: append([]string(nil), params...), Columns: cols}
	rec := &sensRecorder{a: a, refs: refs, res: res}
	mode, err := opts.sensitivityMode()
	if err != nil {
		return nil, err
	}
	switch m := mode.(type) {
	case MonolithicAdaptive:
		err = a.runAdaptive(ctx, t0, Y0, opts, m, rec)
	case Monolithic:
		err = a.runFixed(ctx, t0, Y0, opts, m, rec)
	}
	res.Events = a.events
	if err != nil {
		return res, err
	}
	return res, nil
}

// sensRecord resolves the recorded fields (nil: every state field).
func (s *Sim) sensRecord(paths []string) ([]pathRef, []string, error) {
	if paths == nil {
		for _, i := range s.stateful {
			c := &s.nodes[i]
			for fi := 0; fi < c.spec.StateLayout.Len(); fi++ {
				paths = append(paths, c.name+"."+c.spec.StateLayout.Field(fi).Name)
			}
		}
	}
	var refs []pathRef
	var cols []string
	for _, p := range paths {
		r, err := s.resolvePath(p)
		if err != nil {
			return nil, nil, &prefixed{"graph: Sensitivities: ", err}
		}
		for k := 0; k < r.n; k++ {
			one := r
			one.off, one.n = r.off+k, 1
			refs = append(refs, one)
			if r.n == 1 {
				cols = append(cols, p)
			} else {
				cols = append(cols, fmt.Sprintf("%s[%d]", p, k))
			}
		}
	}
	return refs, cols, nil
}
