package fmi

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/cosimgo/cosim/node"
)

// This file holds what the co-simulation and model-exchange nodes share:
// instantiation, initialization, parameters, errors and the instance's
// lifetime.

// Options say how New makes a node of an FMU.
type Options struct {
	// Interface is InterfaceCoSimulation or InterfaceModelExchange; empty means
	// co-simulation where the FMU offers it, else model exchange.
	Interface Interface
	// Instance is the instance name given to the FMU; empty means its
	// modelIdentifier.
	Instance string
	// Params are parameter values by name, as a scene gives them: the
	// FMU's parameters (under the node's names for them) and the node's
	// own ("rtol", "atol", "isolate", "timeout"); "path", "interface" and
	// "instance" may be given and must then agree with the FMU and the
	// fields above.
	Params map[string]any
	// Isolate runs the FMU in a child process of its own, cosim's FMU
	// host (HostProgram), reached over pipes: an FMU that crashes, hangs
	// or leaks ends that process and the call reports it (a *CallError
	// wrapping ErrCrashed, ErrTimeout or ErrProtocol) instead of taking
	// cosim down, and an FMU built with Go can be loaded (ErrNeedsIsolation
	// otherwise). Every call then crosses a pipe (docs/fmi.md gives the
	// cost). The scene parameter "isolate" is the same.
	Isolate bool
	// Timeout bounds every call into an isolated FMU (wall-clock time):
	// a call that takes longer has its process killed and returns an
	// error wrapping ErrTimeout. Zero means no limit. The scene parameter
	// "timeout" is the same, in seconds.
	Timeout time.Duration
	// Context, when not nil, interrupts a call into an isolated FMU that
	// is in progress when it is done (its process is killed; the error
	// wraps the context's cause): a run cancelled while an isolated FMU
	// hangs stops. Calls into an FMU in cosim's process cannot be
	// interrupted.
	Context context.Context
}

// resources is what an instance holds outside Go memory. It is shared by
// the node and the cleanup that frees it if the node is garbage collected
// without Close, so it must not refer to the node.
type resources struct {
	once     sync.Once
	f        *FMU
	k        Interface
	isolated bool
	inst     instance
	// terminable: the instance is initialized and has not failed, so
	// Terminate is due before FreeInstance.
	terminable bool
	err        error
}

// close terminates (when due) and frees the instance exactly once, and
// gives up its reference to the FMU.
func (r *resources) close() error {
	r.once.Do(func() {
		var errs []error
		if r.terminable {
			errs = append(errs, r.inst.terminate())
		}
		r.inst.free()
		errs = append(errs, r.f.releaseInstance(r.k, r.isolated))
		r.err = errors.Join(errs...)
	})
	return r.err
}

// base is the part of a node both interfaces share.
type base struct {
	f    *FMU
	k    Interface
	md   *ModelDescription
	m    *mapping
	spec *node.Spec
	name string // the instance name

	mu      sync.Mutex // serializes every call into the instance
	res     *resources
	inst    instance
	cleanup runtime.Cleanup
	closed  bool
	// failed is the error that left the instance unusable (a status of
	// Discard, Error or Fatal); later calls return it.
	failed error

	vals      node.Values // current parameter values
	params    *valueMap   // every FMU parameter
	paramVals []float64   // their values, in params' layout
	in        *valueMap   // the inputs, in InputLayout order
	inBuf     []float64   // inputs as last set (to skip setting them again)
	inSet     bool

	t0     float64   // the time the FMU is initialized at
	x0     []float64 // the state after initialization
	restep bool      // AllowRestep granted: the state is saved before every step
	// initSaved: the state after initialization is in slotInit.
	initSaved bool
}

// typeLabel names the node's FMU in parameter errors: "fmu BouncingBall".
func (b *base) typeLabel() string { return TypeName + " " + b.md.ModelName }

// newBase resolves parameters, instantiates and initializes the FMU.
func newBase(f *FMU, opts Options) (*base, error) {
	md := f.md
	k := opts.Interface
	if k == "" {
		k = InterfaceCoSimulation
		if md.CoSimulation == nil {
			k = InterfaceModelExchange
		}
		if s, ok := opts.Params[ParamInterface].(string); ok && s != "" {
			k = Interface(s)
		}
	}
	if k != InterfaceCoSimulation && k != InterfaceModelExchange {
		return nil, &node.ParamError{Node: TypeName + " " + md.ModelName, Param: ParamInterface, Value: string(k),
			Reason: "is not an FMI interface", Valid: "one of \"co-simulation\", \"model-exchange\""}
	}
	if md.Interface(k) == nil {
		offered := InterfaceCoSimulation
		if md.CoSimulation == nil {
			offered = InterfaceModelExchange
		}
		return nil, &node.ParamError{Node: TypeName + " " + md.ModelName, Param: ParamInterface, Value: string(k),
			Reason: "is not offered by the FMU", Valid: fmt.Sprintf("%q", offered)}
	}
	if _, err := f.binary(k); err != nil {
		return nil, err
	}
	m, err := newMapping(md, k, opts.Params)
	if err != nil {
		return nil, fmt.Errorf("FMU %s: %w", md.ModelName, err)
	}
	b := &base{f: f, k: k, md: md, m: m}
	b.spec = m.spec(metadata(md, k, m))
	given := maps.Clone(opts.Params)
	if given == nil {
		given = map[string]any{}
	}
	if opts.Instance != "" {
		if s, ok := given[ParamInstance].(string); ok && s != "" && s != opts.Instance {
			return nil, fmt.Errorf("FMU %s: instance %q given twice, as %q", md.ModelName, opts.Instance, s)
		}
		given[ParamInstance] = opts.Instance
	}
	if p, ok := given[ParamPath]; !ok || p == "" {
		given[ParamPath] = f.path
	}
	if opts.Isolate {
		if v, ok := given[ParamIsolate].(bool); ok && !v {
			return nil, fmt.Errorf("FMU %s: Options.Isolate is true and the parameter %q false", md.ModelName, ParamIsolate)
		}
		given[ParamIsolate] = true
	}
	if opts.Timeout != 0 {
		sec := opts.Timeout.Seconds()
		if v, ok := given[ParamTimeout].(float64); ok && v != sec {
			return nil, fmt.Errorf("FMU %s: timeout given twice: Options.Timeout %s and the parameter %q %v s", md.ModelName, opts.Timeout, ParamTimeout, v)
		}
		given[ParamTimeout] = sec
	}
	if err := b.notCarried(given); err != nil {
		return nil, err
	}
	vals, err := node.Resolve(b.typeLabel(), b.spec.Params, nil, given)
	if err != nil {
		return nil, err
	}
	if err := b.checkParams(vals); err != nil {
		return nil, err
	}
	b.vals = vals
	b.name = vals.String(ParamInstance)
	if b.name == "" {
		b.name = md.Interface(k).ModelIdentifier
		b.vals[ParamInstance] = b.name
	}
	b.params = newValueMap(m.params, 0)
	b.paramVals = b.flatParams(vals)
	b.in = newValueMap(m.inputs, 0)
	b.inBuf = make([]float64, b.in.size)
	use := varUse{types: map[VarType]bool{}}
	b.params.types(use.types)
	b.in.types(use.types)
	newValueMap(m.stateOuts, 0).types(use.types)
	newValueMap(m.outputs, 0).types(use.types)
	for _, c := range m.params {
		if c.v.Causality == CausalityStructuralParameter {
			use.configuration = md.Major == 3
		}
	}
	var tr transport = inProcess
	isolate := vals.Bool(ParamIsolate)
	if isolate {
		tr = isolated{timeout: time.Duration(vals.Float(ParamTimeout) * float64(time.Second)), ctx: opts.Context}
	} else if vals.Float(ParamTimeout) != 0 {
		return nil, &node.ParamError{Node: b.typeLabel(), Param: ParamTimeout, Value: vals.Float(ParamTimeout),
			Reason: "needs \"isolate\": true: a call into an FMU in cosim's process cannot be interrupted", Valid: "0 without isolate"}
	}
	if err := f.acquire(k, isolate); err != nil {
		return nil, fmt.Errorf("FMU %s: %w", md.ModelName, err)
	}
	inst, err := tr.instantiate(f, k, b.name, use)
	if err != nil {
		f.releaseInstance(k, isolate)
		return nil, err
	}
	b.inst = inst
	b.res = &resources{f: f, k: k, isolated: isolate, inst: inst}
	return b, nil
}

// track registers the cleanup that frees the instance of a node dropped
// without Close; owner is the node.
func track[N any](owner *N, b *base) {
	b.cleanup = runtime.AddCleanup(owner, func(r *resources) { r.close() }, b.res)
}

// notCarried reports the given parameters that name FMU variables the
// node does not carry (a String parameter, say), with the reason.
func (b *base) notCarried(given map[string]any) error {
	var errs []error
	for _, d := range b.m.dropped {
		for _, name := range []string{d.Name, fieldName(d.Name)} {
			if v, ok := given[name]; ok {
				errs = append(errs, &node.ParamError{Node: b.typeLabel(), Param: name, Value: v,
					Reason: "cannot be set: the FMU's variable " + fmt.Sprintf("%q", d.Name) + " is " + d.Why})
				break
			}
		}
	}
	return errors.Join(errs...)
}

// checkParams checks what Resolve cannot: enumeration values, integer
// and Boolean elements of vector parameters, and that "path" and
// "interface" agree with the node.
func (b *base) checkParams(vals node.Values) error {
	var errs []error
	if p := vals.String(ParamPath); p != b.f.path {
		errs = append(errs, &node.ParamError{Node: b.typeLabel(), Param: ParamPath, Value: p,
			Reason: "differs from the FMU the node was made from", Valid: fmt.Sprintf("%q", b.f.path)})
	}
	if s := vals.String(ParamInterface); s != string(b.k) {
		errs = append(errs, &node.ParamError{Node: b.typeLabel(), Param: ParamInterface, Value: s,
			Reason: "differs from the interface the node was made with", Valid: fmt.Sprintf("%q", b.k)})
	}
	for _, c := range b.m.params {
		var xs []float64
		switch v := vals[c.name].(type) {
		case float64:
			xs = []float64{v}
		case int:
			xs = []float64{float64(v)}
		case []float64:
			xs = v
		default:
			continue
		}
		for i, x := range xs {
			if why := checkValue(c.v, x); why != "" {
				what := fmt.Sprintf("%s (%s)", why, c.v.Type)
				if len(xs) > 1 {
					what = fmt.Sprintf("component %d %s", i, what)
				}
				p, _ := b.spec.Param(c.name)
				errs = append(errs, &node.ParamError{Node: b.typeLabel(), Param: c.name, Value: vals[c.name], Reason: what, Valid: p.Valid()})
				break
			}
		}
	}
	return errors.Join(errs...)
}

// flatParams lays the FMU parameters' values out as b.params does.
func (b *base) flatParams(vals node.Values) []float64 {
	out := make([]float64, 0, b.params.size)
	for _, c := range b.m.params {
		switch v := vals[c.name].(type) {
		case float64:
			out = append(out, v)
		case int:
			out = append(out, float64(v))
		case bool:
			out = append(out, b2f(v))
		case []float64:
			out = append(out, v...)
		}
	}
	return out
}

// startVals are the FMU parameters' start values, laid out as paramVals.
func (b *base) startVals() []float64 {
	out := make([]float64, 0, b.params.size)
	for _, c := range b.m.params {
		s := c.v.Start
		for j := 0; j < c.n; j++ {
			if len(s) == c.n {
				out = append(out, s[j])
			} else {
				// No start, or one for other dimensions: always set.
				out = append(out, math.NaN())
			}
		}
	}
	return out
}

// at gives an FMU error the simulation time of the call (when it has
// none yet), and records a status that leaves the instance unusable.
func (b *base) at(err error, t float64) error {
	if err == nil {
		return nil
	}
	var ce *CallError
	if errors.As(err, &ce) {
		// A transport makes a new CallError per failed call, and the
		// node gives it its time once: setting it in place keeps what
		// wraps it ("setting parameter m: …").
		if math.IsNaN(ce.Time) {
			ce.Time = t
		}
		if ce.Status >= StatusDiscard {
			b.failed = err
			b.res.terminable = false
		}
	}
	return err
}

// usable reports the error that keeps the instance from being called.
func (b *base) usable() error {
	switch {
	case b.closed:
		return fmt.Errorf("FMU %s (instance %s): %w", b.md.ModelName, b.name, ErrClosed)
	case b.failed != nil:
		return fmt.Errorf("FMU %s (instance %s) failed earlier and cannot be called until it is re-initialized (a parameter change, or restoring a checkpoint): %w", b.md.ModelName, b.name, b.failed)
	}
	return nil
}

// setParamsInFMU writes the parameters that differ from their start
// values (all of them for a variable without a start) at time t.
// Structural parameters of FMI 3.0 are set in configuration mode.
func (b *base) setParamsInFMU(vals []float64, t float64) error {
	starts := b.startVals()
	type one struct {
		c  carried
		xs []float64
	}
	var structural, others []one
	off := 0
	for _, c := range b.m.params {
		xs := vals[off : off+c.n]
		if !slices.Equal(xs, starts[off:off+c.n]) {
			if c.v.Causality == CausalityStructuralParameter && b.md.Major == 3 {
				structural = append(structural, one{c, xs})
			} else {
				others = append(others, one{c, xs})
			}
		}
		off += c.n
	}
	// One variable per call: an error then names it, and an FMU that
	// miscounts values over several references is not asked to.
	set := func(ps []one) error {
		for _, p := range ps {
			if err := b.inst.set(p.c.v.Type, []uint32{p.c.v.VR}, p.xs); err != nil {
				return fmt.Errorf("setting parameter %s: %w", p.c.name, b.at(err, t))
			}
		}
		return nil
	}
	if len(structural) > 0 {
		if err := b.inst.enterConfigurationMode(); err != nil {
			return err
		}
		if err := set(structural); err != nil {
			return err
		}
		if err := b.inst.exitConfigurationMode(); err != nil {
			return err
		}
	}
	return set(others)
}

// tolerance is the tolerance given to the FMU at initialization.
func (b *base) tolerance() float64 {
	if b.k == InterfaceModelExchange {
		return b.vals.Float(ParamRTol)
	}
	if de := b.md.DefaultExperiment; de != nil && de.Tolerance > 0 {
		return de.Tolerance
	}
	return math.NaN()
}

// initialize takes a freshly instantiated (or reset) FMU to the start of
// a run at t0 with the current parameters: parameters set, initialization
// mode entered and left and, for model exchange, the initial event
// iteration done and continuous-time mode entered. It returns the
// next time event (+Inf: none) of a model-exchange FMU.
func (b *base) initialize() (float64, error) {
	if err := b.setParamsInFMU(b.paramVals, b.t0); err != nil {
		return 0, err
	}
	if err := b.inst.enterInitializationMode(b.tolerance(), b.t0, math.Inf(1)); err != nil {
		return 0, err
	}
	if err := b.inst.exitInitializationMode(); err != nil {
		return 0, err
	}
	b.inSet = false
	b.failed = nil
	b.res.terminable = true
	if b.k != InterfaceModelExchange {
		return math.Inf(1), nil
	}
	ev, err := b.eventIteration()
	if err != nil {
		return 0, err
	}
	if ev.terminate {
		return 0, fmt.Errorf("FMU %s (instance %s) asked to terminate during its initialization", b.md.ModelName, b.name)
	}
	if err := b.inst.enterContinuousTimeMode(); err != nil {
		return 0, err
	}
	return ev.nextEventTime, nil
}

// maxEventIterations bounds the event iteration at one event: a model
// whose discrete states keep changing at one time instant is not
// converging.
const maxEventIterations = 1000

// eventIteration calls fmi3UpdateDiscreteStates until the FMU needs no
// further update (the event iteration of the standard), accumulating
// whether the continuous states changed. Its nextEventTime is +Inf when
// none is defined.
func (b *base) eventIteration() (eventInfo, error) {
	var acc eventInfo
	for i := 0; ; i++ {
		if i == maxEventIterations {
			return acc, fmt.Errorf("FMU %s (instance %s): the event iteration did not converge in %d calls of fmi%dUpdateDiscreteStates", b.md.ModelName, b.name, maxEventIterations, b.md.Major)
		}
		ev, err := b.inst.updateDiscreteStates()
		if err != nil {
			return acc, err
		}
		acc.valuesChanged = acc.valuesChanged || ev.valuesChanged
		acc.terminate = ev.terminate
		acc.nextEventTime, acc.nextEventTimeOK = math.Inf(1), ev.nextEventTimeOK
		if ev.nextEventTimeOK {
			acc.nextEventTime = ev.nextEventTime
		}
		if ev.terminate || !ev.needUpdate {
			return acc, nil
		}
	}
}

// reinitialize resets the FMU and initializes it again with the current
// parameters.
func (b *base) reinitialize() (float64, error) {
	if err := b.resetFMU(); err != nil {
		return 0, err
	}
	return b.initialize()
}

// resetFMU resets the FMU to its instantiated state (fmi3Reset), ready
// for a node type's start, which initializes it.
func (b *base) resetFMU() error {
	if err := b.inst.reset(); err != nil {
		return err
	}
	b.res.terminable = false
	return nil
}

// reinitializeWith resets the FMU and runs start (the node type's: it
// initializes the FMU with the parameter values vals and records the
// initial state). When either fails, the old values are put back, the
// FMU reset and started with them again, and the first error returned.
func (b *base) reinitializeWith(vals node.Values, start func() error) error {
	old, oldFlat := b.vals, b.paramVals
	b.vals, b.paramVals = vals, b.flatParams(vals)
	err := b.resetFMU()
	if err == nil {
		if err = start(); err == nil {
			return nil
		}
	} else {
		err = b.at(err, b.t0)
	}
	b.vals, b.paramVals = old, oldFlat
	if rerr := b.resetFMU(); rerr == nil {
		start()
	}
	return err
}

// setInputs writes the inputs into the FMU, checking that each value
// fits its variable; it skips the call when the inputs are those set
// last. t is for the error.
func (b *base) setInputs(in node.Inputs, t float64) error {
	if b.in.size == 0 {
		return nil
	}
	if b.inSet && slices.Equal(in.Values, b.inBuf) {
		return nil
	}
	for gi := range b.in.groups {
		g := &b.in.groups[gi]
		for j, off := range g.off {
			x := in.Values[off]
			c := b.in.vars[g.vars[j]]
			if why := checkValue(c.v, x); why != "" {
				return &node.FieldError{Field: "input " + c.name, Err: fmt.Errorf("FMU %s (instance %s): input %s = %s %s at t=%s: %w",
					b.md.ModelName, b.name, c.name, fmtNum(x), why, fmtNum(t), ErrNotRepresentable)}
			}
			g.buf[j] = x
		}
		if err := b.inst.set(g.t, g.vrs, g.buf); err != nil {
			b.inSet = false
			return b.at(err, t)
		}
	}
	copy(b.inBuf, in.Values)
	b.inSet = true
	return nil
}

// getValues reads the variables of vm into dst (laid out by vm from its
// base offset), checking that each is finite. fn names the reading in
// errors.
func (b *base) getValues(vm *valueMap, dst []float64, t float64) error {
	for gi := range vm.groups {
		g := &vm.groups[gi]
		if err := b.inst.get(g.t, g.vrs, g.buf); err != nil {
			var ve *valueError
			if errors.As(err, &ve) {
				return fmt.Errorf("FMU %s (instance %s): %s at t=%s: %w", b.md.ModelName, b.name, getName(b.md.Major, g.t, false), fmtNum(t), err)
			}
			return b.at(err, t)
		}
	}
	return b.scatter(vm, dst, t)
}

// scatter puts the values of vm's groups, already read into their
// buffers, into dst, checking that each is finite.
func (b *base) scatter(vm *valueMap, dst []float64, t float64) error {
	for gi := range vm.groups {
		g := &vm.groups[gi]
		for j, off := range g.off {
			x := g.buf[j]
			if math.IsNaN(x) || math.IsInf(x, 0) {
				c := vm.vars[g.vars[j]]
				return &node.FieldError{Field: c.name, Err: fmt.Errorf("FMU %s (instance %s): %s gave %s = %v at t=%s: %w",
					b.md.ModelName, b.name, getName(b.md.Major, g.t, false), c.name, x, fmtNum(t), ErrNonFinite)}
			}
			dst[off] = x
		}
	}
	return nil
}

// checkFinite reports the first non-finite value of xs, read by fn, as
// an error naming the field.
func (b *base) checkFinite(xs []float64, fields []carried, fn string, t float64) error {
	off := 0
	for _, c := range fields {
		for j := 0; j < c.n; j++ {
			if x := xs[off+j]; math.IsNaN(x) || math.IsInf(x, 0) {
				return &node.FieldError{Field: c.name, Err: fmt.Errorf("FMU %s (instance %s): %s gave %s = %v at t=%s: %w",
					b.md.ModelName, b.name, fn, c.name, x, fmtNum(t), ErrNonFinite)}
			}
		}
		off += c.n
	}
	return nil
}

// fmtNum formats a value for messages: integers in full (a 64-bit
// integer's value, not its rounded digits), others as node.FormatValue.
func fmtNum(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) >= 1e15 && math.Abs(x) < 1e21 {
		return fmt.Sprintf("%.0f", x)
	}
	return node.FormatValue(x)
}

// Params returns a copy of the node's parameter values.
func (b *base) Params() node.Values {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(node.Values, len(b.vals))
	for k, v := range b.vals {
		if xs, ok := v.([]float64); ok {
			v = slices.Clone(xs)
		}
		out[k] = v
	}
	return out
}

// resolveParams validates new parameter values over the current ones
// (SetParams, with b.mu held) and lists the parameters that change; a
// closed node takes none. Structural parameters, "path", "interface" and
// "instance" cannot change: they fix the node's shape and identity.
func (b *base) resolveParams(p map[string]any) (node.Values, []string, error) {
	if b.closed {
		return nil, nil, b.usable()
	}
	if err := b.notCarried(p); err != nil {
		return nil, nil, err
	}
	vals, err := node.Resolve(b.typeLabel(), b.spec.Params, b.vals, p)
	if err != nil {
		return nil, nil, err
	}
	if err := b.checkParams(vals); err != nil {
		return nil, nil, err
	}
	var changed []string
	for _, sp := range b.spec.Params {
		if !equalValue(vals[sp.Name], b.vals[sp.Name]) {
			changed = append(changed, sp.Name)
		}
	}
	var errs []error
	for _, name := range changed {
		if name == ParamInstance || name == ParamIsolate || name == ParamTimeout {
			errs = append(errs, &node.ParamError{Node: b.typeLabel(), Param: name, Value: vals[name],
				Reason: "cannot change after the FMU is instantiated", Valid: node.FormatValue(b.vals[name])})
		}
		for _, c := range b.m.params {
			if c.name == name && c.v.Causality == CausalityStructuralParameter {
				errs = append(errs, &node.ParamError{Node: b.typeLabel(), Param: name, Value: vals[name],
					Reason: "is a structural parameter: it fixes the shapes of the node's fields, so it is set only when the node is made (a scene's params or --set)",
					Valid:  node.FormatValue(b.vals[name])})
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	return vals, changed, nil
}

func equalValue(a, c any) bool {
	xa, oka := a.([]float64)
	xc, okc := c.([]float64)
	if oka || okc {
		return oka && okc && slices.Equal(xa, xc)
	}
	return a == c
}

// closeLocked frees the instance; b.mu is held.
func (b *base) closeLocked() error {
	if b.closed {
		return nil
	}
	b.closed = true
	b.cleanup.Stop()
	return b.res.close()
}

// Close terminates the FMU instance (when it was initialized and has not
// failed) and frees it, exactly once; the node cannot be used afterwards.
// A node dropped without Close is freed when it is garbage collected.
func (b *base) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closeLocked()
}

// FMU returns the FMU the node was made from.
func (b *base) FMU() *FMU { return b.f }

// Interface returns the interface the node uses.
func (b *base) Interface() Interface { return b.k }

// InstanceName returns the FMU instance's name.
func (b *base) InstanceName() string { return b.name }

// Messages returns the messages the FMU logged (the last few dozen).
func (b *base) Messages() []string {
	if ls, ok := b.inst.(interface{ messages() []string }); ok {
		return ls.messages()
	}
	return nil
}

// MissingFieldReason tells a graph why the node has no field of that
// name when it is one of the FMU's variables cosim does not carry.
func (b *base) MissingFieldReason(name string) string {
	for _, d := range b.m.dropped {
		if fieldName(d.Name) == name || d.Name == name {
			return fmt.Sprintf("the FMU's variable %q is %s", d.Name, d.Why)
		}
	}
	return ""
}

// Spec returns the node's spec.
func (b *base) Spec() *node.Spec { return b.spec }

// InitialState writes the state after initialization.
func (b *base) InitialState(dst []float64) { copy(dst, b.x0) }

// stateError is the error of a call the FMU's hidden state cannot serve.
func (b *base) stateError(f string, a ...any) error {
	return fmt.Errorf("FMU %s (instance %s): %s: %w", b.md.ModelName, b.name, fmt.Sprintf(f, a...), ErrState)
}
