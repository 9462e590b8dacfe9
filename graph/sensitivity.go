package graph

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

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
	// Output lists the times (ascending, within [start, End]) at which the
	// adaptive method samples its dense output, state and sensitivities
	// alike: times between steps are interpolated, never snapped. Nil means
	// the start, the end of every accepted step, and both sides of every
	// event. Fixed-step methods ignore it (see Every).
	Output []float64
	// Method is the integration method, with its options. Nil, or an
	// integrators.DormandPrince with Dt zero, means the Dormand–Prince 5(4)
	// driver with event localization on its dense output, configured by
	// the DormandPrince's options (nil: the defaults): adaptive, or at a
	// fixed step with DormandPrince.FixedStep. Any other method (or
	// DormandPrince with Dt > 0) integrates with the fixed step Dt,
	// events located by re-stepping.
	Method integrators.Method
	// Dt is the fixed step of Method; zero for the adaptive method.
	Dt float64
	// Every records every Every fixed steps (and the start). Zero means 1.
	Every int
	// Integrator holds the driver options (event tolerance, Zeno guard,
	// MaxSteps of the adaptive driver); nil means their defaults.
	// Integrator.Output is ignored: use Output. The method's tolerances
	// control the error of the state and of the sensitivities together.
	Integrator *integrators.DriverOptions
	// CoSimulation asks for the sensitivities of a co-simulation run (Run):
	// that is rejected with ErrNotDifferentiable (see Sim.Sensitivities).
	CoSimulation bool
}

// Adaptive reports whether the options ask for the adaptive
// Dormand–Prince driver.
func (o *SensitivityOptions) Adaptive() bool {
	if o.Method == nil {
		return true
	}
	_, dp := o.Method.(integrators.DormandPrince)
	return dp && o.Dt == 0
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
// that node's own Derivatives), and otherwise from central differences over
// SetParams (step 1e-6·|p|, one-sided near a bound of the parameter's
// range): of the gathered inputs of every node with a node.InputJacobian,
// multiplied by its ∂f/∂u (the chain rule, so that the node's Jacobian of
// the mode it is in applies: a ball resting on the table keeps the
// table's sensitivity, where a difference of its f across the resting
// test would add −g/(2h)), and of f for the other nodes and the
// parameter's own. ∂InitialState/∂p likewise comes from
// node.InitialStateJacobian or from differences of InitialState.
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
// post-event flow f⁺·∂t*/∂p, hence the minus sign. Issue 16 wrote the
// term with a plus, which gives ∂x/∂h = +e instead of −e just after a
// ball's bounce; the bouncing-ball closed forms in verification pin the
// sign.) The event node's node.EventJacobian and node.ResetJacobian give
// the derivatives with respect to its state, inputs and parameters
// exactly; its inputs' dependence on the graph state and parameters, and
// everything of a node without those capabilities, is differenced. A crossing with ∂g/∂y·f⁻ +
// ∂g/∂t = 0 (grazing) has no derivative and is an error. The located time
// is within Integrator.EventTol of the root, and the sensitivities are
// exact to that tolerance and the integration tolerances.
//
// Recorded state fields are read from S. Recorded outputs are
// differentiated along S: ∂o/∂p_j = (o(y + h·S_j, p_j + h) − o(y − h·S_j,
// p_j − h))/(2h), central differences with the parameter step above.
//
// What is not differentiated, and rejected with an error wrapping
// ErrNotDifferentiable rather than answered wrongly:
//   - co-simulation (opts.CoSimulation, or nodes without Derivatives): the
//     nodes' Update maps are not differentiated, and a contact inside an
//     Update is a per-step branch whose time derivative a fixed step never
//     sees (MADD-ANO-021);
//   - parameters that move a node's time events (node.TimeEventer), whose
//     jump in S is not implemented.
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
	if opts.CoSimulation {
		return nil, fmt.Errorf("graph: Sensitivities: co-simulation runs are not differentiated: the nodes' Update maps have no derivatives, and a contact handled inside an Update is a per-step branch whose time a fixed step never differentiates (MADD-ANO-021); run monolithically with the adaptive method instead: %w", ErrNotDifferentiable)
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
	if opts.Adaptive() {
		err = a.runAdaptive(ctx, t0, Y0, opts, rec)
	} else {
		err = a.runFixed(ctx, t0, Y0, opts, rec)
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

// sensParam is one named parameter, resolved.
type sensParam struct {
	name     string // "node.param"
	pname    string
	node     int32
	col      int // index in Spec().Params
	comp     int // component of a Vector parameter, or −1 for a Real one
	tun      node.Tunable
	analytic node.ParamJacobian // nil: difference f over SetParams
	v, h     float64            // the value at the start, the difference step
	buf      []float64          // the node's ∂f/∂p (analytic only)
}

// stateJacobian is how the sensitivities read ∂f/∂y: System.Jacobian
// (dense, row-major n×n), or any other assembly with the same contract.
type stateJacobian interface {
	Jacobian(t float64, y, dst []float64) error
}

// sparseJacobian is the optional sparse assembly of ∂f/∂y: a CSR pattern
// (columns ascending) fixed for the System's life, and the values in its
// order. When the System has it, (∂f/∂y)·S costs O(nnz) per column of S
// instead of O(n²), and no dense n×n matrix is formed except for an
// implicit method's Newton matrix.
type sparseJacobian interface {
	JacobianPattern() (rowPtr, col []int)
	SparseJacobian(t float64, y, val []float64) error
}

// useJacobian picks the sparse assembly of jac when it has one.
func (a *sensSys) useJacobian(jac stateJacobian) {
	a.jac = jac
	if sj, ok := jac.(sparseJacobian); ok {
		a.sj = sj
		a.rowPtr, a.col = sj.JacobianPattern()
		a.val = make([]float64, len(a.col))
	} else {
		a.J = make([]float64, a.n*a.n)
	}
}

// stateJac assembles ∂f/∂y at (t, y), sparse or dense.
func (a *sensSys) stateJac(t float64, y []float64) error {
	if a.sj != nil {
		return a.sj.SparseJacobian(t, y, a.val)
	}
	return a.jac.Jacobian(t, y, a.J)
}

// mulJ writes (∂f/∂y)·S + fp into d, from the last stateJac.
func (a *sensSys) mulJ(S, fp, d []float64) {
	n := a.n
	if a.sj != nil {
		for i := 0; i < n; i++ {
			var sum float64
			for p := a.rowPtr[i]; p < a.rowPtr[i+1]; p++ {
				sum += a.val[p] * S[a.col[p]]
			}
			d[i] = sum + fp[i]
		}
		return
	}
	for i := 0; i < n; i++ {
		row := a.J[i*n : (i+1)*n]
		var sum float64
		for k, v := range row {
			if v != 0 {
				sum += v * S[k]
			}
		}
		d[i] = sum + fp[i]
	}
}

// sensSys is the augmented system [y, S] (S column-major after y: Y[n +
// j·n + i] = ∂y_i/∂p_j) that the integrators step. It implements
// integrators.System, Jacobian, Partitioned, EventSystem and
// TimeEventSystem.
type sensSys struct {
	s      *Sim
	m      *System
	jac    stateJacobian
	sj     sparseJacobian // nil: dense J
	rowPtr []int
	col    []int
	val    []float64 // sparse values of ∂f/∂y
	ps     []sensParam
	n, np  int
	J      []float64 // dense ∂f/∂y, n×n (nil with a sparse assembly until needed)
	fp     []float64 // np columns of n
	events []SensitivityEvent
}

func newSensSys(s *Sim, m *System, params []string) (*sensSys, error) {
	a := &sensSys{s: s, m: m, jac: m, n: len(s.x), np: len(params)}
	var errs []error
	seen := map[string]bool{}
	for _, name := range params {
		p, err := s.resolveParam(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if seen[name] {
			errs = append(errs, fmt.Errorf("graph: Sensitivities: parameter %s named twice", name))
			continue
		}
		seen[name] = true
		a.ps = append(a.ps, p)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	a.fp = make([]float64, a.n*a.np)
	return a, nil
}

// resolveParam resolves "node.param" to a Real parameter of a Tunable node.
func (s *Sim) resolveParam(name string) (sensParam, error) {
	nn, pn, ok := strings.Cut(name, ".")
	if !ok || nn == "" || pn == "" {
		return sensParam{}, fmt.Errorf("graph: parameter %q: want node.param or node.param[i]", name)
	}
	comp := -1
	if b := strings.IndexByte(pn, '['); b > 0 && strings.HasSuffix(pn, "]") {
		k, err := strconv.Atoi(pn[b+1 : len(pn)-1])
		if err != nil || k < 0 {
			return sensParam{}, fmt.Errorf("graph: parameter %q: bad component index", name)
		}
		comp, pn = k, pn[:b]
	}
	i, ok := s.index[nn]
	if !ok {
		return sensParam{}, fmt.Errorf("graph: parameter %q: no node %q (nodes: %s)", name, nn, strings.Join(s.nodeNames(), ", "))
	}
	c := &s.nodes[i]
	col := -1
	var names []string
	for k, p := range c.spec.Params {
		names = append(names, p.Name)
		if p.Name == pn {
			col = k
		}
	}
	if col < 0 {
		return sensParam{}, fmt.Errorf("graph: parameter %q: node %s (%s) has no parameter %q (parameters: %s)", name, nn, c.spec.Type, pn, strings.Join(names, ", "))
	}
	kind := c.spec.Params[col].Kind
	switch {
	case comp < 0 && kind == node.Vector:
		return sensParam{}, fmt.Errorf("graph: parameter %q is a vector: name one component, %s[i]", name, name)
	case comp >= 0 && kind != node.Vector:
		return sensParam{}, fmt.Errorf("graph: parameter %q: %s is %s, not a vector with components", name, pn, kind)
	case kind != node.Real && kind != node.Vector:
		return sensParam{}, fmt.Errorf("graph: parameter %q is %s, not real: only real parameters (and vector components) have derivatives", name, kind)
	}
	tun, ok := node.As[node.Tunable](c.n)
	if !ok {
		return sensParam{}, fmt.Errorf("graph: parameter %q: node %s (%s) is not Tunable, so its parameters cannot be varied", name, nn, c.spec.Type)
	}
	p := sensParam{name: name, pname: pn, node: int32(i), col: col, comp: comp, tun: tun}
	v, ok := p.get()
	if !ok {
		return sensParam{}, fmt.Errorf("graph: parameter %q has no finite real value", name)
	}
	p.v, p.h = v, fdParamStep(v)
	if comp < 0 && c.x1 > c.x0 && c.out == nil {
		p.analytic, _ = node.As[node.ParamJacobian](c.n)
	}
	return p, nil
}

// get reads the parameter's current value (one component of a vector).
func (p *sensParam) get() (float64, bool) {
	raw := p.tun.Params()[p.pname]
	var v float64
	if p.comp < 0 {
		f, ok := raw.(float64)
		if !ok {
			return 0, false
		}
		v = f
	} else {
		vec, ok := raw.([]float64)
		if !ok || p.comp >= len(vec) {
			return 0, false
		}
		v = vec[p.comp]
	}
	return v, !math.IsNaN(v) && !math.IsInf(v, 0)
}

// fdParamStep is the central-difference step of a parameter of value v:
// relative, 1e-6·|v| (truncation ~1e-12, rounding ~1e-10 relative), and
// 1e-6 for v = 0.
func fdParamStep(v float64) float64 {
	if h := 1e-6 * math.Abs(v); h > 1e-300 {
		return h
	}
	return 1e-6
}

func (a *sensSys) set(j int, v float64) error {
	p := &a.ps[j]
	if p.comp < 0 {
		return p.tun.SetParams(map[string]any{p.pname: v})
	}
	vec, ok := p.tun.Params()[p.pname].([]float64)
	if !ok {
		return fmt.Errorf("graph: parameter %s is no longer a vector", p.name)
	}
	vec = append([]float64(nil), vec...)
	vec[p.comp] = v
	return p.tun.SetParams(map[string]any{p.pname: vec})
}

// restoreParams puts every parameter back to its value at the start.
func (a *sensSys) restoreParams() {
	for j := range a.ps {
		_ = a.set(j, a.ps[j].v)
	}
}

// dParam differentiates eval (a vector of len(dst)) with respect to
// parameter j: central differences, or second-order one-sided ones when a
// step leaves the parameter's valid range.
func (a *sensSys) dParam(j int, eval func(out []float64) error, dst []float64) (err error) {
	p := &a.ps[j]
	v, h := p.v, p.h
	defer func() {
		if rerr := a.set(j, v); rerr != nil && err == nil {
			err = rerr
		}
	}()
	n := len(dst)
	f1, f2 := make([]float64, n), make([]float64, n)
	at := func(x float64, out []float64) (bool, error) {
		if a.set(j, x) != nil {
			return false, nil
		}
		return true, eval(out)
	}
	okP, err := at(v+h, f1)
	if err != nil {
		return err
	}
	okM, err := at(v-h, f2)
	if err != nil {
		return err
	}
	switch {
	case okP && okM:
		for i := range dst {
			dst[i] = (f1[i] - f2[i]) / (2 * h)
		}
		return nil
	case okP || okM:
		sgn := 1.0
		if !okP {
			sgn, f1 = -1, f2
		}
		f0 := make([]float64, n)
		if _, err := at(v, f0); err != nil {
			return err
		}
		ok, err := at(v+2*sgn*h, f2)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("graph: Sensitivities: parameter %s = %v: no valid difference step of %v on either side", p.name, v, h)
		}
		for i := range dst {
			dst[i] = sgn * (-3*f0[i] + 4*f1[i] - f2[i]) / (2 * h)
		}
		return nil
	}
	return fmt.Errorf("graph: Sensitivities: parameter %s = %v: no valid difference step of %v on either side", p.name, v, h)
}

// checkTimeEvents rejects parameters that move their node's time events
// within [t0, end]: S would jump at those times, which is not implemented.
func (a *sensSys) checkTimeEvents(t0, end float64) error {
	list := func(te node.TimeEventer) []float64 {
		var out []float64
		t := t0
		for len(out) < 10000 {
			_, _, next := te.TimeEvents(t)
			if !(next <= end) {
				break
			}
			out = append(out, next)
			t = next
		}
		return out
	}
	for j := range a.ps {
		p := &a.ps[j]
		te, ok := node.As[node.TimeEventer](a.s.nodes[p.node].n)
		if !ok {
			continue
		}
		base := list(te)
		moved := false
		for _, x := range []float64{p.v + p.h, p.v - p.h} {
			if a.set(j, x) != nil {
				continue
			}
			got := list(te)
			if len(got) != len(base) {
				moved = true
			}
			for k := range got {
				if k < len(base) && got[k] != base[k] {
					moved = true
				}
			}
		}
		if err := a.set(j, p.v); err != nil {
			return err
		}
		if moved {
			return fmt.Errorf("graph: Sensitivities: parameter %s moves the time events of node %s, and the jump of the sensitivities at a parameter-dependent switching time is not implemented: %w", p.name, a.s.nodes[p.node].name, ErrNotDifferentiable)
		}
	}
	return nil
}

// initial returns [y0, S0]: the nodes' initial states and their
// parameter derivatives.
func (a *sensSys) initial(t0 float64) ([]float64, error) {
	s, n := a.s, a.n
	Y := make([]float64, n*(1+a.np))
	for i := range s.nodes {
		c := &s.nodes[i]
		if c.x1 > c.x0 {
			c.n.InitialState(Y[c.x0:c.x1])
		}
	}
	if k := nonFinite(Y[:n]); k >= 0 {
		return nil, fmt.Errorf("graph: Sensitivities: initial state %s is not finite", s.componentName(k))
	}
	for j := range a.ps {
		p := &a.ps[j]
		c := &s.nodes[p.node]
		nx := c.x1 - c.x0
		if nx == 0 {
			continue
		}
		col := Y[n+j*n+c.x0 : n+j*n+c.x1]
		if ij, ok := node.As[node.InitialStateJacobian](c.n); ok && p.comp < 0 {
			np := len(c.spec.Params)
			buf := make([]float64, nx*np)
			ij.InitialStateParamJacobian(buf)
			for r := 0; r < nx; r++ {
				col[r] = buf[r*np+p.col]
			}
			continue
		}
		if err := a.dParam(j, func(out []float64) error { c.n.InitialState(out); return nil }, col); err != nil {
			return nil, err
		}
	}
	return Y, nil
}

// Dim is n·(1 + number of parameters).
func (a *sensSys) Dim() int { return a.n * (1 + a.np) }

// Func writes [f, (∂f/∂y)·S + ∂f/∂p].
func (a *sensSys) Func(t float64, Y, dst []float64) error {
	n := a.n
	y := Y[:n]
	if err := a.m.Func(t, y, dst[:n]); err != nil {
		return err
	}
	if err := a.stateJac(t, y); err != nil {
		return err
	}
	if err := a.paramDerivs(t, y); err != nil {
		return err
	}
	for j := 0; j < a.np; j++ {
		a.mulJ(Y[n+j*n:n+(j+1)*n], a.fp[j*n:(j+1)*n], dst[n+j*n:n+(j+1)*n])
	}
	return nil
}

// paramDerivs fills a.fp with ∂f/∂p at (t, y): the node's own ∂f/∂p
// when it has one, else by the chain rule through the inputs of nodes
// that declare their Jacobian (sensitivity_inputs.go) and differences of
// f for the rest.
func (a *sensSys) paramDerivs(t float64, y []float64) error {
	n := a.n
	var other []int
	for j := range a.ps {
		p := &a.ps[j]
		col := a.fp[j*n : (j+1)*n]
		clear(col)
		if p.analytic != nil {
			if err := a.analyticParam(p, t, y, col); err != nil {
				return err
			}
			continue
		}
		other = append(other, j)
	}
	if len(other) == 0 {
		return nil
	}
	return a.inputParamDerivs(t, y, other)
}

// analyticParam writes node p.node's ∂f/∂p column into its rows of col.
func (a *sensSys) analyticParam(p *sensParam, t float64, y, col []float64) (err error) {
	s := a.s
	c := &s.nodes[p.node]
	nx, np := c.x1-c.x0, len(c.spec.Params)
	if len(p.buf) != nx*np {
		p.buf = make([]float64, nx*np)
	}
	buf := p.buf
	saved, err := a.m.prepare(t, y)
	defer a.m.restore(saved)
	if err != nil {
		return err
	}
	cur := p.node
	defer a.m.recoverAt(&cur, t, &err)
	if err := p.analytic.DerivativesParamJacobian(t, y[c.x0:c.x1], s.inputs(c), buf); err != nil {
		return stepError(c.name, "", s.steps, t, err)
	}
	for r := 0; r < nx; r++ {
		col[c.x0+r] = buf[r*np+p.col]
	}
	return nil
}

// Jacobian is block diagonal, ∂f/∂y in every block: it omits the
// derivative of (∂f/∂y)·S with respect to y, so an implicit method's
// Newton iteration solves the state exactly and, once it has converged,
// the linear sensitivity equations exactly (a staggered corrector).
func (a *sensSys) Jacobian(t float64, Y, dst []float64) error {
	n, N := a.n, a.Dim()
	if a.J == nil {
		a.J = make([]float64, n*n)
	}
	if err := a.jac.Jacobian(t, Y[:n], a.J); err != nil {
		return err
	}
	clear(dst)
	for b := 0; b <= a.np; b++ {
		for i := 0; i < n; i++ {
			copy(dst[(b*n+i)*N+b*n:(b*n+i)*N+b*n+n], a.J[i*n:(i+1)*n])
		}
	}
	return nil
}

// Pairs are the graph's position/velocity pairs, in y and in every
// column of S (the sensitivity of a position's rate is the velocity's).
func (a *sensSys) Pairs() (pos, vel []int) {
	p, v := a.m.Pairs()
	for b := 0; b <= a.np; b++ {
		for i := range p {
			pos = append(pos, b*a.n+p[i])
			vel = append(vel, b*a.n+v[i])
		}
	}
	return pos, vel
}

// NextTimeEvent is the graph's.
func (a *sensSys) NextTimeEvent(t float64) float64 { return a.m.NextTimeEvent(t) }

// EventCount is the graph's.
func (a *sensSys) EventCount() int { return a.m.EventCount() }

// EventDirection is the graph's.
func (a *sensSys) EventDirection(i int) int { return a.m.EventDirection(i) }

// Events are the graph's event functions of the state part.
func (a *sensSys) Events(t float64, Y, dst []float64) error { return a.m.Events(t, Y[:a.n], dst) }

// Reset applies the graph's reset to the state and the saltation map to S.
func (a *sensSys) Reset(i int, t float64, Y, dst []float64) (integrators.EventAction, error) {
	n := a.n
	yMinus := Y[:n]
	act, err := a.m.Reset(i, t, yMinus, dst[:n])
	if err != nil {
		return act, err
	}
	yPlus := dst[:n]
	fm, fpl := make([]float64, n), make([]float64, n)
	if err := a.m.Func(t, yMinus, fm); err != nil {
		return act, err
	}
	if err := a.m.Func(t, yPlus, fpl); err != nil {
		return act, err
	}
	gy, gp := make([]float64, n), make([]float64, a.np)
	gt, err := a.eventGrad(i, t, yMinus, gy, gp)
	if err != nil {
		return act, err
	}
	Ry, Rp, Rt := make([]float64, n*n), make([]float64, n*a.np), make([]float64, n)
	if err := a.resetJac(i, t, yMinus, Ry, Rp, Rt); err != nil {
		return act, err
	}
	denom, scale := gt, math.Abs(gt)
	for k := range gy {
		denom += gy[k] * fm[k]
		scale += math.Abs(gy[k] * fm[k])
	}
	if !(math.Abs(denom) > 1e-10*scale) || denom == 0 {
		return act, fmt.Errorf("graph: Sensitivities: event %s at t=%s grazes its surface (dg/dt = %g along the trajectory): the event time has no derivative: %w", a.m.EventName(i), node.FormatValue(t), denom, ErrNotDifferentiable)
	}
	// jump = f⁺ − Ry·f⁻ − Rt, entering S⁺ with a minus sign (see
	// Sensitivities).
	jump := make([]float64, n)
	for r := 0; r < n; r++ {
		v := fpl[r] - Rt[r]
		for k := 0; k < n; k++ {
			v -= Ry[r*n+k] * fm[k]
		}
		jump[r] = v
	}
	ev := SensitivityEvent{T: t, Name: a.m.EventName(i), DT: make([]float64, a.np)}
	for j := 0; j < a.np; j++ {
		Sm := Y[n+j*n : n+(j+1)*n]
		Sp := dst[n+j*n : n+(j+1)*n]
		num := gp[j]
		for k := range gy {
			num += gy[k] * Sm[k]
		}
		dtj := -num / denom
		ev.DT[j] = dtj
		for r := 0; r < n; r++ {
			v := Rp[r*a.np+j] - jump[r]*dtj
			for k := 0; k < n; k++ {
				v += Ry[r*n+k] * Sm[k]
			}
			Sp[r] = v
		}
	}
	a.events = append(a.events, ev)
	return act, nil
}

// inputSens differences node c's gathered inputs with respect to the
// graph state (Uy, nu×n), time (Ut) and parameters (Up, nu×np).
func (a *sensSys) inputSens(c *cnode, t float64, y []float64) (Uy, Ut, Up []float64, err error) {
	s, n := a.s, a.n
	nu := c.u1 - c.u0
	Uy, Ut, Up = make([]float64, nu*n), make([]float64, nu), make([]float64, nu*a.np)
	if nu == 0 {
		return
	}
	uAt := func(t float64, y, out []float64) error {
		saved, err := a.m.prepare(t, y)
		defer a.m.restore(saved)
		if err != nil {
			return err
		}
		if c.feedthrough {
			if err := s.gatherSafe(c, t); err != nil {
				return err
			}
		}
		copy(out, s.u[c.u0:c.u1])
		return nil
	}
	up, um := make([]float64, nu), make([]float64, nu)
	yt := append([]float64(nil), y...)
	for k := 0; k < n; k++ {
		h := fdStep(y[k])
		yt[k] = y[k] + h
		if err = uAt(t, yt, up); err != nil {
			return
		}
		yt[k] = y[k] - h
		if err = uAt(t, yt, um); err != nil {
			return
		}
		yt[k] = y[k]
		for q := 0; q < nu; q++ {
			Uy[q*n+k] = (up[q] - um[q]) / (2 * h)
		}
	}
	h := fdStep(t)
	if err = uAt(t+h, y, up); err != nil {
		return
	}
	if err = uAt(t-h, y, um); err != nil {
		return
	}
	for q := 0; q < nu; q++ {
		Ut[q] = (up[q] - um[q]) / (2 * h)
	}
	col := make([]float64, nu)
	for j := range a.ps {
		if err = a.dParam(j, func(out []float64) error { return uAt(t, y, out) }, col); err != nil {
			return
		}
		for q := 0; q < nu; q++ {
			Up[q*a.np+j] = col[q]
		}
	}
	return
}

// nodeInputs returns node c's inputs at (t, y), copied.
func (a *sensSys) nodeInputs(c *cnode, t float64, y []float64) (node.Inputs, error) {
	saved, err := a.m.prepare(t, y)
	defer a.m.restore(saved)
	if err != nil {
		return node.Inputs{}, err
	}
	if c.feedthrough {
		if err := a.s.gatherSafe(c, t); err != nil {
			return node.Inputs{}, err
		}
	}
	in := a.s.inputs(c)
	return node.Inputs{Values: append([]float64(nil), in.Values...), Present: append([]bool(nil), in.Present...)}, nil
}

// eventGrad writes ∂g_i/∂y into gy and ∂g_i/∂p into gp and returns
// ∂g_i/∂t, at the state before the event.
func (a *sensSys) eventGrad(i int, t float64, y, gy, gp []float64) (float64, error) {
	s, n := a.s, a.n
	e := a.m.events()[i]
	c := &s.nodes[e.node]
	if ej, ok := node.As[node.EventJacobian](c.n); ok && a.scalarParams(e.node) {
		nx, nu, npn := c.x1-c.x0, c.u1-c.u0, len(c.spec.Params)
		gx, gu, gpo := make([]float64, nx), make([]float64, nu), make([]float64, npn)
		in, err := a.nodeInputs(c, t, y)
		if err != nil {
			return 0, err
		}
		gt, err := ej.EventValuesJacobian(e.event, t, y[c.x0:c.x1], in, gx, gu, gpo)
		if err != nil {
			return 0, stepError(c.name, "", s.steps, t, err)
		}
		clear(gy)
		clear(gp)
		copy(gy[c.x0:c.x1], gx)
		for j := range a.ps {
			if a.ps[j].node == e.node {
				gp[j] = gpo[a.ps[j].col]
			}
		}
		if anyNonZero(gu) {
			Uy, Ut, Up, err := a.inputSens(c, t, y)
			if err != nil {
				return 0, err
			}
			for q, w := range gu {
				for k := 0; k < n; k++ {
					gy[k] += w * Uy[q*n+k]
				}
				gt += w * Ut[q]
				for j := 0; j < a.np; j++ {
					gp[j] += w * Up[q*a.np+j]
				}
			}
		}
		return gt, nil
	}
	ne := a.m.EventCount()
	g1, g2 := make([]float64, ne), make([]float64, ne)
	gAt := func(t float64, y []float64, out []float64) error { return a.m.Events(t, y, out) }
	yt := append([]float64(nil), y...)
	for k := 0; k < n; k++ {
		h := fdStep(y[k])
		yt[k] = y[k] + h
		if err := gAt(t, yt, g1); err != nil {
			return 0, err
		}
		yt[k] = y[k] - h
		if err := gAt(t, yt, g2); err != nil {
			return 0, err
		}
		yt[k] = y[k]
		gy[k] = (g1[i] - g2[i]) / (2 * h)
	}
	h := fdStep(t)
	if err := gAt(t+h, y, g1); err != nil {
		return 0, err
	}
	if err := gAt(t-h, y, g2); err != nil {
		return 0, err
	}
	gt := (g1[i] - g2[i]) / (2 * h)
	col := make([]float64, ne)
	for j := range a.ps {
		if err := a.dParam(j, func(out []float64) error { return gAt(t, y, out) }, col); err != nil {
			return 0, err
		}
		gp[j] = col[i]
	}
	return gt, nil
}

// resetJac writes ∂R/∂y (n×n), ∂R/∂p (n×np) and ∂R/∂t (n) of flat event
// i's reset at the state before it.
func (a *sensSys) resetJac(i int, t float64, y, Ry, Rp, Rt []float64) error {
	s, n, np := a.s, a.n, a.np
	e := a.m.events()[i]
	c := &s.nodes[e.node]
	clear(Ry)
	clear(Rp)
	clear(Rt)
	if rj, ok := node.As[node.ResetJacobian](c.n); ok && a.scalarParams(e.node) {
		nx, nu, npn := c.x1-c.x0, c.u1-c.u0, len(c.spec.Params)
		Rx, Ru, Rpo, Rto := make([]float64, nx*nx), make([]float64, nx*nu), make([]float64, nx*npn), make([]float64, nx)
		in, err := a.nodeInputs(c, t, y)
		if err != nil {
			return err
		}
		if err := rj.ResetJacobian(e.event, t, y[c.x0:c.x1], in, Rx, Ru, Rpo, Rto); err != nil {
			return stepError(c.name, "", s.steps, t, err)
		}
		for r := 0; r < n; r++ {
			if r < c.x0 || r >= c.x1 {
				Ry[r*n+r] = 1
			}
		}
		for r := 0; r < nx; r++ {
			R := c.x0 + r
			for q := 0; q < nx; q++ {
				Ry[R*n+c.x0+q] = Rx[r*nx+q]
			}
			Rt[R] = Rto[r]
			for j := range a.ps {
				if a.ps[j].node == e.node {
					Rp[R*np+j] = Rpo[r*npn+a.ps[j].col]
				}
			}
		}
		if anyNonZero(Ru) {
			Uy, Ut, Up, err := a.inputSens(c, t, y)
			if err != nil {
				return err
			}
			for r := 0; r < nx; r++ {
				R := c.x0 + r
				for q := 0; q < nu; q++ {
					w := Ru[r*nu+q]
					if w == 0 {
						continue
					}
					for k := 0; k < n; k++ {
						Ry[R*n+k] += w * Uy[q*n+k]
					}
					Rt[R] += w * Ut[q]
					for j := 0; j < np; j++ {
						Rp[R*np+j] += w * Up[q*np+j]
					}
				}
			}
		}
		return nil
	}
	rAt := func(t float64, y, out []float64) error {
		copy(out, y)
		_, err := a.m.Reset(i, t, y, out)
		return err
	}
	r1, r2 := make([]float64, n), make([]float64, n)
	yt := append([]float64(nil), y...)
	for k := 0; k < n; k++ {
		h := fdStep(y[k])
		yt[k] = y[k] + h
		if err := rAt(t, yt, r1); err != nil {
			return err
		}
		yt[k] = y[k] - h
		if err := rAt(t, yt, r2); err != nil {
			return err
		}
		yt[k] = y[k]
		for r := 0; r < n; r++ {
			Ry[r*n+k] = (r1[r] - r2[r]) / (2 * h)
		}
	}
	h := fdStep(t)
	if err := rAt(t+h, y, r1); err != nil {
		return err
	}
	if err := rAt(t-h, y, r2); err != nil {
		return err
	}
	for r := 0; r < n; r++ {
		Rt[r] = (r1[r] - r2[r]) / (2 * h)
	}
	col := make([]float64, n)
	for j := range a.ps {
		if err := a.dParam(j, func(out []float64) error { return rAt(t, y, out) }, col); err != nil {
			return err
		}
		for r := 0; r < n; r++ {
			Rp[r*np+j] = col[r]
		}
	}
	return nil
}

// scalarParams reports that none of the named parameters is a component
// of a vector parameter of node i: the analytic event and reset
// Jacobians have one column per Spec().Params entry, so a component is
// differenced through the whole graph instead.
func (a *sensSys) scalarParams(i int32) bool {
	for j := range a.ps {
		if a.ps[j].node == i && a.ps[j].comp >= 0 {
			return false
		}
	}
	return true
}

func anyNonZero(v []float64) bool {
	for _, x := range v {
		if x != 0 {
			return true
		}
	}
	return false
}

// sensRecorder appends rows to a Sensitivity.
type sensRecorder struct {
	a    *sensSys
	refs []pathRef
	res  *Sensitivity
}

// row records (t, Y).
func (r *sensRecorder) row(t float64, Y []float64) error {
	a := r.a
	n, np := a.n, a.np
	vals := make([]float64, len(r.refs))
	ds := make([]float64, len(r.refs)*np)
	var outs []int
	for k, ref := range r.refs {
		if ref.fromY {
			outs = append(outs, k)
			continue
		}
		vals[k] = Y[ref.off]
		for j := 0; j < np; j++ {
			ds[k*np+j] = Y[n+j*n+ref.off]
		}
	}
	if len(outs) > 0 {
		o := make([]float64, len(outs))
		at := func(y []float64, out []float64) error {
			saved, err := a.m.prepare(t, y)
			defer a.m.restore(saved)
			if err != nil {
				return err
			}
			for q, k := range outs {
				out[q] = a.s.y[r.refs[k].off]
			}
			return nil
		}
		if err := at(Y[:n], o); err != nil {
			return err
		}
		for q, k := range outs {
			vals[k] = o[q]
		}
		// Along S: y(p_j ± h) ≈ y ± h·S_j, differenced with the parameter.
		yt := make([]float64, n)
		col := make([]float64, len(outs))
		for j := 0; j < np; j++ {
			S := Y[n+j*n : n+(j+1)*n]
			v := a.ps[j].v
			err := a.dParam(j, func(out []float64) error {
				cur, _ := a.ps[j].get()
				dp := cur - v
				for i := range yt {
					yt[i] = Y[i] + dp*S[i]
				}
				return at(yt, out)
			}, col)
			if err != nil {
				return err
			}
			for q, k := range outs {
				ds[k*np+j] = col[q]
			}
		}
	}
	r.res.Times = append(r.res.Times, t)
	r.res.Values = append(r.res.Values, vals)
	r.res.D = append(r.res.D, ds)
	return nil
}

// runAdaptive steps the augmented system with adaptive Dormand–Prince and
// event localization.
func (a *sensSys) runAdaptive(ctx context.Context, t0 float64, Y0 []float64, opts *SensitivityOptions, rec *sensRecorder) error {
	rec.res.Method = integrators.MethodDormandPrince + " (adaptive)"
	var set integrators.DriverOptions
	if opts.Integrator != nil {
		set = *opts.Integrator
	}
	set.Output = nil
	dp, _ := opts.Method.(integrators.DormandPrince) // nil: the defaults
	out := opts.Output
	for i, t := range out {
		if math.IsNaN(t) || t < t0 || t > opts.End || (i > 0 && t < out[i-1]) {
			return fmt.Errorf("graph: Sensitivities: Output[%d] = %v not ascending within [%v, %v]", i, t, t0, opts.End)
		}
	}
	ad, err := integrators.NewAdaptive(dp, a, &set)
	if err != nil {
		return err
	}
	if err := ad.Init(t0, Y0); err != nil {
		return a.s.monoError(err)
	}
	defer func() { rec.res.Work = ad.Work() }()
	k := 0
	if out == nil {
		if err := rec.row(t0, Y0); err != nil {
			return err
		}
	}
	for k < len(out) && out[k] == t0 {
		if err := rec.row(t0, Y0); err != nil {
			return err
		}
		k++
	}
	buf := make([]float64, a.Dim())
	maxSteps := set.MaxSteps
	if maxSteps <= 0 {
		maxSteps = 10_000_000
	}
	for steps := 0; ; steps++ {
		t, _ := ad.State()
		if !(t < opts.End) {
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if steps >= maxSteps {
			return fmt.Errorf("graph: Sensitivities: %d steps before t=%v reached End %v", steps, t, opts.End)
		}
		rep, err := ad.Step(opts.End)
		if err != nil {
			return a.s.monoError(err)
		}
		for k < len(out) && out[k] <= rep.T1 {
			ad.Dense(out[k], buf)
			if err := rec.row(out[k], buf); err != nil {
				return err
			}
			k++
		}
		if out == nil {
			if rep.Event >= 0 {
				ad.Dense(rep.T1, buf)
				if err := rec.row(rep.T1, buf); err != nil {
					return err
				}
			}
			t1, y := ad.State()
			if err := rec.row(t1, y); err != nil {
				return err
			}
		}
		if rep.Event >= 0 && rep.Action == integrators.EventStop {
			break
		}
	}
	return nil
}

// runFixed steps the augmented system with a fixed-step method.
func (a *sensSys) runFixed(ctx context.Context, t0 float64, Y0 []float64, opts *SensitivityOptions, rec *sensRecorder) error {
	rec.res.Method = opts.Method.Name()
	if !(opts.Dt > 0) || math.IsInf(opts.Dt, 0) {
		return fmt.Errorf("graph: Sensitivities: Dt %v must be finite and positive for the fixed-step method %s", opts.Dt, opts.Method.Name())
	}
	steps := int(math.Round((opts.End - t0) / opts.Dt))
	if steps < 1 {
		return fmt.Errorf("graph: Sensitivities: End %v is less than one step %v after %v", opts.End, opts.Dt, t0)
	}
	st, err := integrators.NewStepper(opts.Method, a, opts.Integrator)
	if err != nil {
		return err
	}
	if err := st.Init(t0, Y0); err != nil {
		return a.s.monoError(err)
	}
	defer func() { rec.res.Work = st.Work() }()
	if err := rec.row(t0, Y0); err != nil {
		return err
	}
	every := max(opts.Every, 1)
	for k := 1; k <= steps; k++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := st.Step(opts.Dt); err != nil {
			return a.s.monoError(err)
		}
		if k%every == 0 || k == steps {
			_, y := st.State()
			if err := rec.row(t0+float64(k)*opts.Dt, y); err != nil {
				return err
			}
		}
	}
	return nil
}
