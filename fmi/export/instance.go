package export

import (
	"bytes"
	"context"
	"fmt"
	"github.com/cosimgo/cosim/fmi"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/scene"
)

// This file is one instance of an exported FMU, whichever binary drives
// it: the cosim process of the process binary (Serve decodes the shim's
// requests into these calls) and the Go library of the c-shared binary
// (its fmi3 functions call these directly). Every method is one fmi3
// function of FMI 3.0's co-simulation interface, with its status (an
// fmi.CallStatus, whose numbers are fmi3Status's) and the messages it logs.

// ValueType is the type of the values of a Get or Set: the FMU's
// variables are Float64, Int64 or Boolean. Values travel as 8-byte
// words: a Float64's IEEE bits, an Int64's two's complement, a Boolean's
// 0 or 1.
type ValueType byte

// The value types (also the protocol's numbers).
const (
	TypeFloat64 ValueType = 1
	TypeInt64   ValueType = 2
	TypeBoolean ValueType = 3
)

// String names the type as FMI does.
func (t ValueType) String() string {
	switch t {
	case TypeFloat64:
		return "Float64"
	case TypeInt64:
		return "Int64"
	case TypeBoolean:
		return "Boolean"
	}
	return fmt.Sprintf("type %d", byte(t))
}

// LogFunc receives an instance's log messages: the status of the call
// that logs it, the category (LogError, LogWarning, LogInfo) and the
// text.
type LogFunc func(status fmi.CallStatus, category, message string)

// The states of an instance (FMI 3.0's co-simulation state machine, the
// part this FMU implements).
const (
	stInstantiated = iota
	stInitialization
	stStep
	stTerminated
	stFailed // after an Error in a step or Fatal: only Reset, Free
)

var stateNames = [...]string{"Instantiated", "Initialization Mode", "Step Mode", "Terminated", "a failed step"}

// Instance is one instance of an exported FMU, running the scene of the
// FMU's resources folder in the calling process. Its methods are the
// fmi3 functions of a co-simulation FMU. An Instance is not safe for
// concurrent use (FMI calls on one instance are not concurrent);
// instances are independent of each other.
type Instance struct {
	reg   *node.Registry
	dir   string
	log   LogFunc
	name  string
	debug bool

	sc        *scene.Scene
	model     *Model
	vtypes    []ValueType // by value reference
	sceneData []byte
	st        int
	// vals holds each parameter's and input's value by value reference
	// (nil for time and outputs): what the master set, else the start.
	vals [][]float64
	// sim is the scene's graph with the parameters of vals, built when
	// first needed and again when a parameter changes before
	// initialization ends; inputs are its FMU input nodes and outputs
	// the fields of the FMU's outputs, by value reference.
	sim     *graph.Sim
	dirty   bool
	inputs  []*inputNode
	outputs []*graph.Field
	buf     []float64 // an output's values, read from its field
	set     graph.Settings
	// inPlace is whether DoStep advances the built graph step by step
	// (graph.Sim.Step) rather than by a Run per call (steppable): the
	// scene runs in co-simulation with the default coupling, which Step
	// takes bit for bit as Run does, without Run's per-call set-up and
	// allocations.
	inPlace bool
	t       float64
	start   float64 // the start time the master gave
	stop    float64 // the stop time the master gave, else +Inf

	states    map[uint32]*fmuState
	nextState uint32
}

// fmuState is an FMU state the master asked for (fmi3GetFMUState): a
// checkpoint of the graph with the FMU's time and the values of its
// parameters and inputs, which the checkpoint does not hold.
type fmuState struct {
	cp   *graph.Checkpoint
	t    float64
	st   int
	vals [][]float64
}

// NewInstance returns an instance, not yet instantiated, of the FMU whose
// resources folder is resources, running its scene with the node types
// of reg; log receives its messages (nil: none).
func NewInstance(resources string, reg *node.Registry, log LogFunc) *Instance {
	if log == nil {
		log = func(fmi.CallStatus, string, string) {}
	}
	return &Instance{reg: reg, dir: resources, log: log, states: map[uint32]*fmuState{}}
}

// Free releases the instance's graph (fmi3FreeInstance).
func (in *Instance) Free() {
	if in.sim != nil {
		in.sim.Close()
		in.sim = nil
	}
	in.states = map[uint32]*fmuState{}
}

func (in *Instance) logf(status fmi.CallStatus, f string, a ...any) {
	cat := LogError
	switch status {
	case fmi.StatusOK:
		if !in.debug {
			return
		}
		cat = LogInfo
	case fmi.StatusWarning:
		cat = LogWarning
	}
	in.log(status, cat, fmt.Sprintf(f, a...))
}

// fail logs why a call failed and returns its status.
func (in *Instance) fail(status fmi.CallStatus, f string, a ...any) fmi.CallStatus {
	in.logf(status, f, a...)
	return status
}

// ready refuses a call before the instance is instantiated.
func (in *Instance) ready(fn string) bool {
	if in.model == nil {
		in.logf(fmi.StatusFatal, "%s: the instance was not instantiated", fn)
		return false
	}
	return true
}

// SetDebugLogging turns the messages of successful calls on or off.
func (in *Instance) SetDebugLogging(on bool) fmi.CallStatus {
	in.debug = on
	return fmi.StatusOK
}

// Instantiate reads the FMU's scene, computes its model and checks the
// instantiation token against it (fmi3InstantiateCoSimulation).
func (in *Instance) Instantiate(token, name string, logging bool) fmi.CallStatus {
	in.name, in.debug = name, logging
	if in.model != nil {
		return in.fail(fmi.StatusFatal, "instantiated twice")
	}
	path := filepath.Join(in.dir, SceneFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return in.fail(fmi.StatusFatal, "reading the FMU's scene: %v", err)
	}
	sc, err := scene.LoadFile(path, in.reg)
	if err != nil {
		return in.fail(fmi.StatusFatal, "the FMU's scene %s: %v", path, err)
	}
	g, err := sc.Build(in.reg, nil)
	if err != nil {
		return in.fail(fmi.StatusFatal, "the FMU's scene %s: %v", path, err)
	}
	model, err := newModel(sc, g, data, "")
	closeGraph(g)
	if err != nil {
		return in.fail(fmi.StatusFatal, "the FMU's scene %s: %v", path, err)
	}
	if token != model.Token {
		return in.fail(fmi.StatusFatal, "instantiation token %s does not match the FMU's (%s): the modelDescription.xml is not this FMU's", token, model.Token)
	}
	in.sc, in.model, in.sceneData = sc, model, data
	in.vals = make([][]float64, len(model.Variables))
	in.vtypes = make([]ValueType, len(model.Variables))
	size := 0
	for i, v := range model.Variables {
		if v.Kind == Parameter || v.Kind == Input {
			in.vals[i] = append([]float64(nil), v.Start...)
		}
		in.vtypes[i] = valueType(v)
		size = max(size, v.Size)
	}
	in.buf = make([]float64, size)
	in.st, in.stop, in.dirty = stInstantiated, math.Inf(1), true
	in.logf(fmi.StatusOK, "instance %q of %s: scene %s, %d variables", name, model.Name, path, len(model.Variables))
	return fmi.StatusOK
}

// closeGraph releases the resources of a graph's nodes (an imported FMU
// in the scene) that was built but not compiled.
func closeGraph(g *graph.Graph) {
	for _, name := range g.Names() {
		n, _ := g.Node(name)
		if c, ok := node.As[io.Closer](n); ok {
			c.Close()
		}
	}
}

// build (re)builds the graph with the current parameter values, the FMU
// input nodes wired into the inputs they drive, resolves the outputs,
// and sets the graph's clock to the instance's time.
func (in *Instance) build() error {
	if in.sim != nil && !in.dirty {
		return nil
	}
	over := map[string]any{}
	for i, v := range in.model.Variables {
		if v.Kind == Parameter {
			over[v.Path] = paramValue(v, in.vals[i])
		}
	}
	g, err := in.sc.Build(in.reg, over)
	if err != nil {
		return err
	}
	in.inputs = make([]*inputNode, len(in.model.Variables))
	for i, v := range in.model.Variables {
		if v.Kind != Input {
			continue
		}
		n := newInputNode(v.shape, v.Units, in.vals[i])
		name := fmt.Sprintf("fmu-input-%d", i)
		for k := 0; ; k++ {
			if _, taken := g.Node(name); !taken {
				break
			}
			name = fmt.Sprintf("fmu-input-%d-%d", i, k)
		}
		g.Add(name, n)
		for _, to := range v.Targets {
			g.Connect(name+".value", to)
		}
		in.inputs[i] = n
	}
	sim, err := g.Build()
	if err != nil {
		closeGraph(g)
		return err
	}
	outputs := make([]*graph.Field, len(in.model.Variables))
	for i, v := range in.model.Variables {
		if v.Kind != Output {
			continue
		}
		if outputs[i], err = sim.Field(v.Path); err != nil {
			sim.Close()
			return fmt.Errorf("output %s: %w", v.Name, err)
		}
	}
	if in.t != 0 {
		// A start time other than the scene's 0: the graph's clock
		// starts there.
		if err := sim.SetState(sim.State(nil), in.t); err != nil {
			sim.Close()
			return err
		}
	}
	if in.sim != nil {
		in.sim.Close()
	}
	in.sim, in.outputs, in.dirty = sim, outputs, false
	set := in.sc.Settings()
	set.Record, set.RecordEvery, set.Observer, set.RecordTo, set.StreamOnly = nil, 0, nil, nil, false
	switch m := set.Mode.(type) {
	case graph.Monolithic:
		if m.Options != nil {
			o := *m.Options
			o.Output = nil
			m.Options = &o
			set.Mode = m
		}
	case graph.MonolithicAdaptive:
		if m.Options != nil {
			o := *m.Options
			o.Output = nil
			m.Options = &o
			set.Mode = m
		}
	}
	in.set, in.inPlace = set, steppable(set, len(sim.Names()))
	return nil
}

// steppable reports whether DoStep can advance a graph of n nodes with
// graph.Sim.Step instead of a Run with settings set, losing nothing:
// co-simulation with the default coupling (explicit Jacobi) and the loop
// settings of the graph's Build, where Step is Run's two-phase step, bit
// for bit whatever the worker count, on the calling goroutine and
// without allocating; and a graph Run would step on one goroutine too
// (one worker, or fewer nodes than the grain at which Run shares a phase
// among its workers), so that a large graph keeps its concurrent steps.
func steppable(set graph.Settings, n int) bool {
	var m graph.CoSimulation
	switch x := set.Mode.(type) {
	case nil:
	case graph.CoSimulation:
		m = x
	case *graph.CoSimulation:
		if x != nil {
			m = *x
		}
	default:
		return false
	}
	if m.Coupling != nil || set.Loops != nil {
		return false
	}
	workers, grain := m.Workers, m.Grain
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if grain <= 0 {
		grain = graph.DefaultGrain
	}
	return workers == 1 || n < grain
}

// paramValue is a parameter's value as its node takes it.
func paramValue(v Variable, x []float64) any {
	switch v.kind {
	case node.Vector:
		return append([]float64(nil), x...)
	case node.Integer:
		return int(x[0])
	case node.Bool:
		return x[0] != 0
	}
	return x[0]
}

// EnterInitializationMode starts initialization
// (fmi3EnterInitializationMode). The scene's integrator settings are the
// FMU's, so the tolerance is not used. A start time other than 0 starts
// the scene's graph there: its nodes see that time (a source of time
// does), and the steps count from it.
func (in *Instance) EnterInitializationMode(toleranceDefined bool, tolerance, start float64, stopDefined bool, stop float64) fmi.CallStatus {
	const fn = "fmi3EnterInitializationMode"
	if !in.ready(fn) {
		return fmi.StatusFatal
	}
	if in.st != stInstantiated {
		return in.fail(fmi.StatusError, "%s in %s", fn, stateNames[in.st])
	}
	if math.IsNaN(start) || math.IsInf(start, 0) {
		return in.fail(fmi.StatusError, "%s: startTime = %v is not finite", fn, start)
	}
	if stopDefined {
		if math.IsNaN(stop) || stop < start {
			return in.fail(fmi.StatusError, "%s: stopTime = %v is before the start %v", fn, stop, start)
		}
		in.stop = stop
	}
	if start != in.t {
		// A graph built before (an output read while instantiated)
		// runs from 0: build it again at the start time.
		in.dirty = true
	}
	in.t, in.start = start, start
	in.st = stInitialization
	return fmi.StatusOK
}

// ExitInitializationMode builds the scene's graph with the parameters
// set (fmi3ExitInitializationMode).
func (in *Instance) ExitInitializationMode() fmi.CallStatus {
	const fn = "fmi3ExitInitializationMode"
	if !in.ready(fn) {
		return fmi.StatusFatal
	}
	if in.st != stInitialization {
		return in.fail(fmi.StatusError, "%s in %s", fn, stateNames[in.st])
	}
	if err := in.build(); err != nil {
		return in.fail(fmi.StatusError, "%s: building the scene's graph: %v", fn, err)
	}
	in.st = stStep
	return fmi.StatusOK
}

// Terminate ends the run (fmi3Terminate).
func (in *Instance) Terminate() fmi.CallStatus {
	if !in.ready("fmi3Terminate") {
		return fmi.StatusFatal
	}
	if in.st != stStep && in.st != stInitialization {
		return in.fail(fmi.StatusError, "fmi3Terminate in %s: terminate from Step Mode", stateNames[in.st])
	}
	in.st = stTerminated
	return fmi.StatusOK
}

// valueType is the type of a variable's values.
func valueType(v Variable) ValueType {
	switch v.Type {
	case fmi.Int64:
		return TypeInt64
	case fmi.Boolean:
		return TypeBoolean
	}
	return TypeFloat64
}

// check resolves the value references of a Set or Get of type t,
// checking that each names a variable of that type; it returns the
// number of values they hold. It allocates nothing.
func (in *Instance) check(fn string, t ValueType, vrs []uint32) (int, bool) {
	n := 0
	for _, vr := range vrs {
		if int(vr) >= len(in.model.Variables) {
			in.logf(fmi.StatusError, "%s%s: no variable has value reference %d (the FMU has %d)", fn, t, vr, len(in.model.Variables))
			return 0, false
		}
		if in.vtypes[vr] != t {
			v := &in.model.Variables[vr]
			in.logf(fmi.StatusError, "%s%s: variable %q (value reference %d) is of type %s", fn, t, v.Name, vr, v.Type)
			return 0, false
		}
		n += in.model.Variables[vr].Size
	}
	return n, true
}

// Set sets the variables vrs, of type t, to words (fmi3SetFloat64,
// fmi3SetInt64, fmi3SetBoolean): parameters and inputs. A refused Set
// changes nothing. Setting inputs allocates nothing: the values are
// checked in one pass over words and copied in a second.
func (in *Instance) Set(t ValueType, vrs []uint32, words []uint64) fmi.CallStatus {
	if in.model == nil {
		return in.fail(fmi.StatusFatal, "fmi3Set%s: the instance was not instantiated", t)
	}
	n, ok := in.check("fmi3Set", t, vrs)
	if !ok {
		return fmi.StatusError
	}
	const fn = "fmi3Set"
	if n != len(words) {
		return in.fail(fmi.StatusError, "%s%s: %d values for variables holding %d", fn, t, len(words), n)
	}
	// Check everything first: a refused Set changes nothing.
	k, tuned := 0, false
	for _, vr := range vrs {
		v := &in.model.Variables[vr]
		switch v.Kind {
		case Time, Output:
			return in.fail(fmi.StatusError, "%s%s: %s is the FMU's %s: only parameters and inputs can be set", fn, t, v.Name, v.Kind)
		case Parameter:
			if in.st == stStep && !v.Tunable {
				return in.fail(fmi.StatusError, "%s%s: parameter %s (%s) is fixed: set it before fmi3ExitInitializationMode (its node cannot change it while it runs)", fn, t, v.Name, v.Path)
			}
			tuned = tuned || in.st == stStep
		}
		if in.st == stTerminated || in.st == stFailed {
			return in.fail(fmi.StatusError, "%s%s in %s", fn, t, stateNames[in.st])
		}
		for j := range v.Size {
			w := words[k]
			k++
			xj := decode(t, w)
			if t == TypeInt64 && (int64(xj) != int64(w) || math.Abs(xj) > 1<<53) {
				return in.fail(fmi.StatusError, "%s%s: %s = %d: cosim holds integers up to 2^53", fn, t, v.Name, int64(w))
			}
			if math.IsNaN(xj) || math.IsInf(xj, 0) {
				if v.Kind == Input {
					return in.fail(fmi.StatusError, "%s%s: input %s[%d] = %v at t = %v is not finite", fn, t, v.Name, j, xj, in.t)
				}
				return in.fail(fmi.StatusError, "%s%s: %s[%d] = %v is not finite", fn, t, v.Name, j, xj)
			}
			if v.Kind != Parameter {
				continue
			}
			if !math.IsNaN(v.Min) && xj < v.Min {
				return in.fail(fmi.StatusError, "%s%s: %s = %v is below its min %v", fn, t, v.Name, xj, v.Min)
			}
			if !math.IsNaN(v.Max) && xj > v.Max {
				return in.fail(fmi.StatusError, "%s%s: %s = %v is above its max %v", fn, t, v.Name, xj, v.Max)
			}
		}
	}
	// Tunable parameters of a built graph are set on their nodes, all
	// at once per node, so that a refused value changes nothing.
	if tuned && in.sim != nil && !in.dirty {
		vs := make([]*Variable, len(vrs))
		vals := make([][]float64, len(vrs))
		k := 0
		for i, vr := range vrs {
			vs[i] = &in.model.Variables[vr]
			vals[i] = make([]float64, vs[i].Size)
			for j := range vals[i] {
				vals[i][j] = decode(t, words[k])
				k++
			}
		}
		if err := in.tune(vs, vals); err != nil {
			return in.fail(fmi.StatusError, "%s%s: %v", fn, t, err)
		}
	}
	k = 0
	for _, vr := range vrs {
		v := &in.model.Variables[vr]
		x := in.vals[vr]
		for j := range x {
			x[j] = decode(t, words[k])
			k++
		}
		switch {
		case v.Kind == Input && in.inputs != nil && in.inputs[vr] != nil:
			copy(in.inputs[vr].value, x)
		case v.Kind == Parameter && in.st != stStep:
			// Before initialization ends, a parameter rebuilds the
			// graph when next needed.
			in.dirty = true
		}
	}
	return fmi.StatusOK
}

// decode is the float64 value of a word of type t.
func decode(t ValueType, w uint64) float64 {
	switch t {
	case TypeInt64:
		return float64(int64(w))
	case TypeBoolean:
		if w != 0 {
			return 1
		}
		return 0
	}
	return math.Float64frombits(w)
}

// tune sets the tunable parameters among vs on their nodes in the
// running graph. Before initialization ends the graph is rebuilt instead.
func (in *Instance) tune(vs []*Variable, vals [][]float64) error {
	if in.st != stStep {
		return nil
	}
	per := map[string]map[string]any{}
	var order []string
	for i, v := range vs {
		if v.Kind != Parameter {
			continue
		}
		if per[v.nodeName] == nil {
			per[v.nodeName] = map[string]any{}
			order = append(order, v.nodeName)
		}
		per[v.nodeName][v.param] = paramValue(*v, vals[i])
	}
	for _, name := range order {
		n, ok := in.sim.Node(name)
		tn, ok2 := node.As[node.Tunable](n)
		if !ok || !ok2 {
			return fmt.Errorf("node %s cannot take new parameters while it runs", name)
		}
		if err := tn.SetParams(per[name]); err != nil {
			return fmt.Errorf("node %s: %w", name, err)
		}
	}
	return nil
}

// Get writes the values of the variables vrs, of type t, into out
// (fmi3GetFloat64, fmi3GetInt64, fmi3GetBoolean); len(out) must be the
// number of values they hold. Reading outputs in step mode allocates
// nothing and looks up no name (their fields are resolved when the graph
// is built).
func (in *Instance) Get(t ValueType, vrs []uint32, out []uint64) fmi.CallStatus {
	if in.model == nil {
		return in.fail(fmi.StatusFatal, "fmi3Get%s: the instance was not instantiated", t)
	}
	n, ok := in.check("fmi3Get", t, vrs)
	if !ok {
		return fmi.StatusError
	}
	if n != len(out) {
		return in.fail(fmi.StatusError, "fmi3Get%s: room for %d values, the variables hold %d", t, len(out), n)
	}
	k := 0
	for _, vr := range vrs {
		v := &in.model.Variables[vr]
		var x []float64
		switch v.Kind {
		case Time:
			in.buf[0] = in.t
			x = in.buf[:1]
		case Parameter, Input:
			x = in.vals[vr]
		case Output:
			if in.st == stInstantiated {
				return in.fail(fmi.StatusError, "fmi3Get%s: output %s has no value before fmi3EnterInitializationMode", t, v.Name)
			}
			if err := in.build(); err != nil {
				return in.fail(fmi.StatusError, "fmi3Get%s: building the scene's graph: %v", t, err)
			}
			x = in.buf[:v.Size]
			if err := in.outputs[vr].Get(x); err != nil {
				return in.fail(fmi.StatusError, "fmi3Get%s: %s (%s) at t = %v: %v", t, v.Name, v.Path, in.t, err)
			}
		}
		for _, xj := range x {
			switch t {
			case TypeFloat64:
				out[k] = math.Float64bits(xj)
			case TypeInt64:
				out[k] = uint64(int64(xj))
			case TypeBoolean:
				out[k] = 0
				if xj != 0 {
					out[k] = 1
				}
			}
			k++
		}
	}
	return fmi.StatusOK
}

// stepTol is the relative round-off allowed between a communication
// point and the FMU's time, and between a step and a whole number of
// the scene's steps.
const stepTol = 1e-9

// DoStep advances the scene from t by h (fmi3DoStep); it returns the
// status and the last time the FMU reached.
func (in *Instance) DoStep(t, h float64) (fmi.CallStatus, float64) {
	const fn = "fmi3DoStep"
	if !in.ready(fn) {
		return fmi.StatusFatal, t
	}
	lastOK := in.t
	if in.st != stStep {
		return in.fail(fmi.StatusError, "%s in %s: call fmi3ExitInitializationMode first", fn, stateNames[in.st]), lastOK
	}
	if math.IsNaN(h) || math.IsInf(h, 0) || h <= 0 {
		return in.fail(fmi.StatusError, "%s at t = %v: communicationStepSize = %v must be finite and positive", fn, t, h), lastOK
	}
	if math.Abs(t-in.t) > stepTol*math.Max(1, math.Abs(in.t)) {
		return in.fail(fmi.StatusError, "%s: currentCommunicationPoint = %v, and the FMU is at t = %v", fn, t, in.t), lastOK
	}
	// The master's time is the FMU's: its communication points are
	// where the steps end, whatever round-off its sum of steps has.
	end := t + h
	if end > in.stop+stepTol*math.Max(1, math.Abs(in.stop)) {
		return in.fail(fmi.StatusError, "%s at t = %v: a step of %v goes past the stop time %v", fn, t, h, in.stop), lastOK
	}
	if _, adaptive := in.set.Mode.(graph.MonolithicAdaptive); adaptive {
		set := in.set
		set.End = end
		return in.run(fn, t, end, set, lastOK)
	}
	// A step that is a whole number of the scene's steps takes them
	// (the scene's own grid, bit for bit as its run); any other is split
	// into the fewest equal steps no longer than the scene's.
	dt := in.model.Dt
	k := h / dt
	n := math.Round(k)
	if n < 1 || math.Abs(k-n) > stepTol*math.Max(1, k) {
		n = math.Ceil(k)
		dt = h / n
		if in.debug { // (the arguments would allocate)
			in.logf(fmi.StatusOK, "%s at t = %v: a step of %v is %d steps of %v (the scene's step is %v)", fn, t, h, int(n), dt, in.model.Dt)
		}
	}
	if n > graph.MaxSteps {
		return in.fail(fmi.StatusError, "%s at t = %v: a step of %v is %g steps of the scene's %v", fn, t, h, n, in.model.Dt), lastOK
	}
	if !in.inPlace {
		set := in.set
		set.Dt, set.Steps, set.End = dt, int(n), 0
		return in.run(fn, t, end, set, lastOK)
	}
	// The steady state of an FMU in a master: the graph built at
	// initialization advanced in place, nothing allocated.
	for range int(n) {
		if err := in.sim.Step(dt); err != nil {
			if ws, werr := in.sim.StepWarnings(dt); werr == nil {
				err = graph.WithStepHint(err, ws)
			}
			in.st = stFailed
			return in.fail(fmi.StatusError, "%s from t = %v to %v: %v", fn, t, end, err), lastOK
		}
	}
	in.t = end
	return fmi.StatusOK, end
}

// run is DoStep by a graph Run with settings set, from t to end, in the
// modes graph.Sim.Step does not take (a coupling strategy, monolithic
// integration).
func (in *Instance) run(fn string, t, end float64, set graph.Settings, lastOK float64) (fmi.CallStatus, float64) {
	if _, err := in.sim.Run(context.Background(), set); err != nil {
		in.st = stFailed
		return in.fail(fmi.StatusError, "%s from t = %v to %v: %v", fn, t, end, err), lastOK
	}
	in.t = end
	return fmi.StatusOK, end
}

// Reset returns the instance to its start values, as instantiated
// (fmi3Reset).
func (in *Instance) Reset() fmi.CallStatus {
	if !in.ready("fmi3Reset") {
		return fmi.StatusFatal
	}
	if in.sim != nil {
		in.sim.Close()
		in.sim = nil
	}
	for i, v := range in.model.Variables {
		if v.Kind == Parameter || v.Kind == Input {
			in.vals[i] = append([]float64(nil), v.Start...)
		}
	}
	in.inputs, in.outputs, in.t, in.start, in.st, in.stop, in.dirty = nil, nil, 0, 0, stInstantiated, math.Inf(1), true
	return fmi.StatusOK
}

// GetState records the FMU's state (fmi3GetFMUState) under id, or under
// a new id when id is 0 or unknown; it returns the id.
func (in *Instance) GetState(id uint32) (uint32, fmi.CallStatus) {
	const fn = "fmi3GetFMUState"
	if !in.ready(fn) {
		return 0, fmi.StatusFatal
	}
	if in.st == stFailed {
		return 0, in.fail(fmi.StatusError, "%s after a failed step: the state is not one to return to", fn)
	}
	if err := in.build(); err != nil {
		return 0, in.fail(fmi.StatusError, "%s: building the scene's graph: %v", fn, err)
	}
	s := &fmuState{cp: in.sim.Checkpoint(), t: in.t, st: in.st, vals: cloneVals(in.vals)}
	if s.cp.Err != nil {
		return 0, in.fail(fmi.StatusError, "%s: %v", fn, s.cp.Err)
	}
	if id == 0 || in.states[id] == nil {
		in.nextState++
		id = in.nextState
	}
	in.states[id] = s
	return id, fmi.StatusOK
}

func cloneVals(v [][]float64) [][]float64 {
	c := make([][]float64, len(v))
	for i, x := range v {
		if x != nil {
			c[i] = append([]float64(nil), x...)
		}
	}
	return c
}

// SetState returns to the state id (fmi3SetFMUState).
func (in *Instance) SetState(id uint32) fmi.CallStatus {
	const fn = "fmi3SetFMUState"
	if !in.ready(fn) {
		return fmi.StatusFatal
	}
	s := in.states[id]
	if s == nil {
		return in.fail(fmi.StatusError, "%s: no such state (it was freed, or is another instance's)", fn)
	}
	return in.restore(fn, s)
}

// FreeState forgets the state id (fmi3FreeFMUState).
func (in *Instance) FreeState(id uint32) fmi.CallStatus {
	delete(in.states, id)
	return fmi.StatusOK
}

// restore returns the instance to state s: the parameters first (a fixed
// one rebuilds the graph), then the checkpoint, then the inputs.
func (in *Instance) restore(fn string, s *fmuState) fmi.CallStatus {
	for i, v := range in.model.Variables {
		if v.Kind == Parameter && !equal(in.vals[i], s.vals[i]) {
			if v.Tunable && in.sim != nil && !in.dirty {
				if err := in.tune([]*Variable{&in.model.Variables[i]}, [][]float64{s.vals[i]}); err == nil {
					continue
				}
			}
			in.dirty = true
		}
	}
	in.vals = cloneVals(s.vals)
	if err := in.build(); err != nil {
		return in.fail(fmi.StatusError, "%s: building the scene's graph: %v", fn, err)
	}
	if err := in.sim.Restore(s.cp); err != nil {
		return in.fail(fmi.StatusError, "%s: %v", fn, err)
	}
	for i, n := range in.inputs {
		if n != nil {
			copy(n.value, in.vals[i])
		}
	}
	in.t, in.st = s.t, s.st
	return fmi.StatusOK
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// stateMagic starts a serialized FMU state.
const stateMagic = "cosim-fmu-state 1\n"

// SerializeState returns the bytes of the state id
// (fmi3SerializeFMUState): the instantiation token, the time, the values
// of the parameters and inputs, and the graph's checkpoint.
func (in *Instance) SerializeState(id uint32) ([]byte, fmi.CallStatus) {
	const fn = "fmi3SerializeFMUState"
	if !in.ready(fn) {
		return nil, fmi.StatusFatal
	}
	s := in.states[id]
	if s == nil {
		return nil, in.fail(fmi.StatusError, "%s: no such state", fn)
	}
	var b bytes.Buffer
	b.WriteString(stateMagic)
	b.WriteString(in.model.Token)
	var r reply
	r.f64(s.t)
	r.u32(uint32(s.st))
	r.u32(uint32(len(s.vals)))
	for _, x := range s.vals {
		r.u32(uint32(len(x)))
		for _, xj := range x {
			r.f64(xj)
		}
	}
	b.Write(r.b)
	if err := s.cp.Encode(&b); err != nil {
		return nil, in.fail(fmi.StatusError, "%s: %v", fn, err)
	}
	return b.Bytes(), fmi.StatusOK
}

// DeserializeState makes a state of bytes SerializeState wrote, of an
// instance of the same FMU (fmi3DeserializeFMUState); it returns its id.
func (in *Instance) DeserializeState(data []byte) (uint32, fmi.CallStatus) {
	const fn = "fmi3DeserializeFMUState"
	if !in.ready(fn) {
		return 0, fmi.StatusFatal
	}
	bad := func(why string) (uint32, fmi.CallStatus) {
		return 0, in.fail(fmi.StatusError, "%s: not a state of this FMU: %s", fn, why)
	}
	head := stateMagic + in.model.Token
	if !strings.HasPrefix(string(data), head) {
		return bad("its header or instantiation token differs")
	}
	d := &message{b: data[len(head):]}
	s := &fmuState{t: d.f64(), st: int(d.u32())}
	nv := d.count(4)
	if d.err == nil && nv != len(in.model.Variables) {
		return bad(fmt.Sprintf("%d variables, the FMU has %d", nv, len(in.model.Variables)))
	}
	s.vals = make([][]float64, nv)
	for i := range s.vals {
		k := d.count(8)
		if k == 0 {
			continue
		}
		s.vals[i] = make([]float64, k)
		for j := range s.vals[i] {
			s.vals[i][j] = d.f64()
		}
		if v := in.model.Variables[i]; v.Kind != Parameter && v.Kind != Input || v.Size != k {
			return bad(fmt.Sprintf("variable %s holds %d values", v.Name, k))
		}
	}
	if d.err != nil {
		return bad(d.err.Error())
	}
	if s.st < stInstantiated || s.st > stTerminated {
		return bad(fmt.Sprintf("state %d", s.st))
	}
	cp, err := graph.DecodeCheckpoint(bytes.NewReader(d.b))
	if err != nil {
		return bad(err.Error())
	}
	s.cp = cp
	in.nextState++
	in.states[in.nextState] = s
	return in.nextState, fmi.StatusOK
}
