package export

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/scene"
)

// SceneFile is the scene an exported FMU carries, in its resources
// folder.
const SceneFile = "scene.json"

// ServeCommand is the first argument with which an exported FMU's library
// starts the cosim program in its resources folder (cosim fmu-serve DIR).
const ServeCommand = "fmu-serve"

// Serve runs one instance of an exported FMU: it answers the requests of
// the FMU's C library (protocol.go) on r and w until the library frees
// the instance or closes the connection, running the scene in
// resources/scene.json (resources is the FMU's resources folder) with
// the node types of reg. It returns nil when the instance was freed or
// the library went away between requests, and the protocol error
// otherwise; the errors of the scene's run are replies, not errors of
// Serve.
func Serve(r io.Reader, w io.Writer, resources string, reg *node.Registry) error {
	in := &instance{reg: reg, dir: resources, states: map[uint32]*fmuState{}}
	defer in.close()
	br, bw := bufio.NewReader(r), bufio.NewWriter(w)
	for {
		op, payload, err := readRequest(br)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		m := &message{b: payload}
		var res reply
		status := in.call(op, m, &res)
		if m.err != nil {
			return fmt.Errorf("request %d: %v", op, m.err)
		}
		logs := in.logs
		in.logs = nil
		if err := writeReply(bw, status, logs, res.b); err != nil {
			return err
		}
		if op == opFree {
			return nil
		}
	}
}

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

type instance struct {
	reg   *node.Registry
	dir   string
	name  string
	debug bool
	logs  []logEntry

	sc        *scene.Scene
	model     *Model
	sceneData []byte
	st        int
	// vals holds each parameter's and input's value by value reference
	// (nil for time and outputs): what the master set, else the start.
	vals [][]float64
	// sim is the scene's graph with the parameters of vals, built when
	// first needed and again when a parameter changes before
	// initialization ends; inputs are its FMU input nodes by value
	// reference.
	sim    *graph.Sim
	dirty  bool
	inputs []*inputNode
	set    graph.Settings
	t      float64
	stop   float64 // the stop time the master gave, else +Inf

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

func (in *instance) close() {
	if in.sim != nil {
		in.sim.Close()
		in.sim = nil
	}
}

func (in *instance) logf(status uint32, f string, a ...any) {
	cat := LogError
	switch status {
	case statusOK:
		if !in.debug {
			return
		}
		cat = LogInfo
	case statusWarning:
		cat = LogWarning
	}
	in.logs = append(in.logs, logEntry{status, cat, fmt.Sprintf(f, a...)})
}

// fail logs why a call failed and returns its status.
func (in *instance) fail(status uint32, f string, a ...any) uint32 {
	in.logf(status, f, a...)
	return status
}

// call dispatches one request.
func (in *instance) call(op uint32, m *message, res *reply) uint32 {
	if op != opInstantiate && in.model == nil {
		return in.fail(statusFatal, "the instance was not instantiated")
	}
	switch op {
	case opInstantiate:
		return in.instantiate(m)
	case opDebugLogging:
		in.debug = m.u8() != 0
		return statusOK
	case opEnterInit:
		return in.enterInit(m)
	case opExitInit:
		return in.exitInit()
	case opSet:
		return in.setValues(m)
	case opGet:
		return in.getValues(m, res)
	case opDoStep:
		return in.doStep(m, res)
	case opTerminate:
		if in.st != stStep && in.st != stInitialization {
			return in.fail(statusError, "fmi3Terminate in %s: terminate from Step Mode", stateNames[in.st])
		}
		in.st = stTerminated
		return statusOK
	case opReset:
		return in.reset()
	case opGetState:
		return in.getState(m, res)
	case opSetState:
		return in.setState(m)
	case opFreeState:
		delete(in.states, m.u32())
		return statusOK
	case opSerialize:
		return in.serialize(m, res)
	case opDeserialize:
		return in.deserialize(m, res)
	case opFree:
		in.close()
		return statusOK
	}
	return in.fail(statusFatal, "unknown request %d: the FMU's library and its cosim program do not match", op)
}

func (in *instance) instantiate(m *message) uint32 {
	version, token, name, logging := m.u32(), m.str(), m.str(), m.u8()
	in.name, in.debug = name, logging != 0
	if m.err != nil {
		return statusFatal
	}
	if in.model != nil {
		return in.fail(statusFatal, "instantiated twice")
	}
	if version != protocolVersion {
		return in.fail(statusFatal, "the FMU's library speaks protocol %d, its cosim program %d: the FMU was assembled from different cosim versions", version, protocolVersion)
	}
	path := filepath.Join(in.dir, SceneFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return in.fail(statusFatal, "reading the FMU's scene: %v", err)
	}
	sc, err := scene.LoadFile(path, in.reg)
	if err != nil {
		return in.fail(statusFatal, "the FMU's scene %s: %v", path, err)
	}
	g, err := sc.Build(in.reg, nil)
	if err != nil {
		return in.fail(statusFatal, "the FMU's scene %s: %v", path, err)
	}
	model, err := newModel(sc, g, data, "")
	closeGraph(g)
	if err != nil {
		return in.fail(statusFatal, "the FMU's scene %s: %v", path, err)
	}
	if token != model.Token {
		return in.fail(statusFatal, "instantiation token %s does not match the FMU's (%s): the modelDescription.xml is not this FMU's", token, model.Token)
	}
	in.sc, in.model, in.sceneData = sc, model, data
	in.vals = make([][]float64, len(model.Variables))
	for i, v := range model.Variables {
		if v.Kind == Parameter || v.Kind == Input {
			in.vals[i] = append([]float64(nil), v.Start...)
		}
	}
	in.st, in.stop, in.dirty = stInstantiated, math.Inf(1), true
	in.logf(statusOK, "instance %q of %s: scene %s, %d variables", name, model.Name, path, len(model.Variables))
	return statusOK
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
// input nodes wired into the inputs they drive, and restores the time.
func (in *instance) build() error {
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
	if in.sim != nil {
		in.sim.Close()
	}
	in.sim, in.dirty = sim, false
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
	in.set = set
	return nil
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

func (in *instance) enterInit(m *message) uint32 {
	tolDefined, _, start, stopDefined, stop := m.u8(), m.f64(), m.f64(), m.u8(), m.f64()
	if m.err != nil {
		return statusFatal
	}
	if in.st != stInstantiated {
		return in.fail(statusError, "fmi3EnterInitializationMode in %s", stateNames[in.st])
	}
	_ = tolDefined // the scene's integrator settings are the FMU's
	if start != 0 {
		return in.fail(statusError, "fmi3EnterInitializationMode: startTime = %v: the scene starts at 0, and so does its FMU", start)
	}
	if stopDefined != 0 {
		if math.IsNaN(stop) || stop < start {
			return in.fail(statusError, "fmi3EnterInitializationMode: stopTime = %v is before the start %v", stop, start)
		}
		in.stop = stop
	}
	in.st = stInitialization
	return statusOK
}

func (in *instance) exitInit() uint32 {
	if in.st != stInitialization {
		return in.fail(statusError, "fmi3ExitInitializationMode in %s", stateNames[in.st])
	}
	if err := in.build(); err != nil {
		return in.fail(statusError, "fmi3ExitInitializationMode: building the scene's graph: %v", err)
	}
	in.st = stStep
	return statusOK
}

// typeName names a protocol value type as FMI does.
func typeName(t byte) string {
	switch t {
	case typeFloat64:
		return "Float64"
	case typeInt64:
		return "Int64"
	case typeBoolean:
		return "Boolean"
	}
	return fmt.Sprintf("type %d", t)
}

func wireType(t fmi.VarType) byte {
	switch t {
	case fmi.Int64:
		return typeInt64
	case fmi.Boolean:
		return typeBoolean
	}
	return typeFloat64
}

// variables resolves the value references of a Set or Get of type t,
// checking that each names a variable of that type; it returns the
// variables and the number of values they hold.
func (in *instance) variables(fn string, t byte, vrs []uint32) ([]*Variable, int, error) {
	vs := make([]*Variable, len(vrs))
	n := 0
	for i, vr := range vrs {
		v := in.model.Variable(vr)
		if v == nil {
			return nil, 0, fmt.Errorf("%s: no variable has value reference %d (the FMU has %d)", fn, vr, len(in.model.Variables))
		}
		if wireType(v.Type) != t {
			return nil, 0, fmt.Errorf("%s: variable %q (value reference %d) is of type %s", fn, v.Name, vr, v.Type)
		}
		vs[i] = v
		n += v.Size
	}
	return vs, n, nil
}

func (in *instance) setValues(m *message) uint32 {
	t := m.u8()
	vrs := make([]uint32, m.count(4))
	for i := range vrs {
		vrs[i] = m.u32()
	}
	words := make([]uint64, m.count(8))
	for i := range words {
		words[i] = m.word()
	}
	if m.err != nil {
		return statusFatal
	}
	fn := "fmi3Set" + typeName(t)
	vs, n, err := in.variables(fn, t, vrs)
	if err != nil {
		return in.fail(statusError, "%v", err)
	}
	if n != len(words) {
		return in.fail(statusError, "%s: %d values for variables holding %d", fn, len(words), n)
	}
	// Check everything first: a refused Set changes nothing.
	vals := make([][]float64, len(vs))
	k := 0
	for i, v := range vs {
		x := make([]float64, v.Size)
		for j := range x {
			w := words[k]
			k++
			switch t {
			case typeFloat64:
				x[j] = math.Float64frombits(w)
			case typeInt64:
				x[j] = float64(int64(w))
				if int64(x[j]) != int64(w) || math.Abs(x[j]) > 1<<53 {
					return in.fail(statusError, "%s: %s = %d: cosim holds integers up to 2^53", fn, v.Name, int64(w))
				}
			case typeBoolean:
				if w != 0 {
					x[j] = 1
				}
			}
		}
		switch v.Kind {
		case Time, Output:
			return in.fail(statusError, "%s: %s is the FMU's %s: only parameters and inputs can be set", fn, v.Name, v.Kind)
		case Parameter:
			if in.st == stStep && !v.Tunable {
				return in.fail(statusError, "%s: parameter %s (%s) is fixed: set it before fmi3ExitInitializationMode (its node cannot change it while it runs)", fn, v.Name, v.Path)
			}
			if in.st == stTerminated || in.st == stFailed {
				return in.fail(statusError, "%s in %s", fn, stateNames[in.st])
			}
			for j, xj := range x {
				if math.IsNaN(xj) || math.IsInf(xj, 0) {
					return in.fail(statusError, "%s: %s[%d] = %v is not finite", fn, v.Name, j, xj)
				}
				if !math.IsNaN(v.Min) && xj < v.Min {
					return in.fail(statusError, "%s: %s = %v is below its min %v", fn, v.Name, xj, v.Min)
				}
				if !math.IsNaN(v.Max) && xj > v.Max {
					return in.fail(statusError, "%s: %s = %v is above its max %v", fn, v.Name, xj, v.Max)
				}
			}
		case Input:
			if in.st == stTerminated || in.st == stFailed {
				return in.fail(statusError, "%s in %s", fn, stateNames[in.st])
			}
			for j, xj := range x {
				if math.IsNaN(xj) || math.IsInf(xj, 0) {
					return in.fail(statusError, "%s: input %s[%d] = %v at t = %v is not finite", fn, v.Name, j, xj, in.t)
				}
			}
		}
		vals[i] = x
	}
	// Tunable parameters of a built graph are set on their nodes, all
	// at once per node, so that a refused value changes nothing.
	if in.sim != nil && !in.dirty {
		if err := in.tune(vs, vals); err != nil {
			return in.fail(statusError, "%s: %v", fn, err)
		}
	}
	for i, v := range vs {
		copy(in.vals[v.VR], vals[i])
		switch {
		case v.Kind == Input && in.inputs != nil && in.inputs[v.VR] != nil:
			copy(in.inputs[v.VR].value, vals[i])
		case v.Kind == Parameter && (in.sim == nil || in.dirty || in.st != stStep):
			// Before initialization ends, a parameter rebuilds the
			// graph when next needed.
			if in.st != stStep {
				in.dirty = true
			}
		}
	}
	return statusOK
}

// tune sets the tunable parameters among vs on their nodes in the
// running graph. Before initialization ends the graph is rebuilt instead.
func (in *instance) tune(vs []*Variable, vals [][]float64) error {
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

func (in *instance) getValues(m *message, res *reply) uint32 {
	t := m.u8()
	vrs := make([]uint32, m.count(4))
	for i := range vrs {
		vrs[i] = m.u32()
	}
	want := int(m.u32())
	if m.err != nil {
		return statusFatal
	}
	fn := "fmi3Get" + typeName(t)
	vs, n, err := in.variables(fn, t, vrs)
	if err != nil {
		return in.fail(statusError, "%v", err)
	}
	if n != want {
		return in.fail(statusError, "%s: room for %d values, the variables hold %d", fn, want, n)
	}
	var out reply
	for _, v := range vs {
		var x []float64
		switch v.Kind {
		case Time:
			x = []float64{in.t}
		case Parameter, Input:
			x = in.vals[v.VR]
		case Output:
			if in.st == stInstantiated {
				return in.fail(statusError, "%s: output %s has no value before fmi3EnterInitializationMode", fn, v.Name)
			}
			if err := in.build(); err != nil {
				return in.fail(statusError, "%s: building the scene's graph: %v", fn, err)
			}
			if x, err = in.sim.Value(v.Path); err != nil {
				return in.fail(statusError, "%s: %s (%s) at t = %v: %v", fn, v.Name, v.Path, in.t, err)
			}
		}
		for _, xj := range x {
			switch t {
			case typeFloat64:
				out.f64(xj)
			case typeInt64:
				out.word(uint64(int64(xj)))
			case typeBoolean:
				if xj != 0 {
					out.word(1)
				} else {
					out.word(0)
				}
			}
		}
	}
	res.b = append(res.b, out.b...)
	return statusOK
}

// stepTol is the relative round-off allowed between a communication
// point and the FMU's time, and between a step and a whole number of
// the scene's steps.
const stepTol = 1e-9

func (in *instance) doStep(m *message, res *reply) uint32 {
	t, h := m.f64(), m.f64()
	if m.err != nil {
		return statusFatal
	}
	lastOK := in.t
	defer func() {
		res.u8(0)
		res.f64(lastOK)
	}()
	if in.st != stStep {
		return in.fail(statusError, "fmi3DoStep in %s: call fmi3ExitInitializationMode first", stateNames[in.st])
	}
	if math.IsNaN(h) || math.IsInf(h, 0) || h <= 0 {
		return in.fail(statusError, "fmi3DoStep at t = %v: communicationStepSize = %v must be finite and positive", t, h)
	}
	if math.Abs(t-in.t) > stepTol*math.Max(1, math.Abs(in.t)) {
		return in.fail(statusError, "fmi3DoStep: currentCommunicationPoint = %v, and the FMU is at t = %v", t, in.t)
	}
	// The master's time is the FMU's: its communication points are
	// where the steps end, whatever round-off its sum of steps has.
	end := t + h
	if end > in.stop*(1+stepTol) {
		return in.fail(statusError, "fmi3DoStep at t = %v: a step of %v goes past the stop time %v", t, h, in.stop)
	}
	set := in.set
	if _, adaptive := set.Mode.(graph.MonolithicAdaptive); adaptive {
		set.End = end
	} else {
		// A step that is a whole number of the scene's steps takes them
		// (the scene's own grid, bit for bit as its run); any other is
		// split into the fewest equal steps no longer than the scene's.
		k := h / in.model.Dt
		n := math.Round(k)
		if n < 1 || math.Abs(k-n) > stepTol*math.Max(1, k) {
			n = math.Ceil(k)
			set.Dt = h / n
			in.logf(statusOK, "fmi3DoStep at t = %v: a step of %v is %d steps of %v (the scene's step is %v)", t, h, int(n), set.Dt, in.model.Dt)
		}
		if n > graph.MaxSteps {
			return in.fail(statusError, "fmi3DoStep at t = %v: a step of %v is %g steps of the scene's %v", t, h, n, in.model.Dt)
		}
		set.Steps, set.End = int(n), 0
	}
	_, err := in.sim.Run(context.Background(), set)
	if err != nil {
		in.st = stFailed
		return in.fail(statusError, "fmi3DoStep from t = %v to %v: %v", t, end, err)
	}
	in.t = end
	lastOK = end
	return statusOK
}

func (in *instance) reset() uint32 {
	in.close()
	for i, v := range in.model.Variables {
		if v.Kind == Parameter || v.Kind == Input {
			in.vals[i] = append([]float64(nil), v.Start...)
		}
	}
	in.inputs, in.t, in.st, in.stop, in.dirty = nil, 0, stInstantiated, math.Inf(1), true
	return statusOK
}

func (in *instance) getState(m *message, res *reply) uint32 {
	id := m.u32()
	if m.err != nil {
		return statusFatal
	}
	if in.st == stFailed {
		return in.fail(statusError, "fmi3GetFMUState after a failed step: the state is not one to return to")
	}
	if err := in.build(); err != nil {
		return in.fail(statusError, "fmi3GetFMUState: building the scene's graph: %v", err)
	}
	s := &fmuState{cp: in.sim.Checkpoint(), t: in.t, st: in.st, vals: cloneVals(in.vals)}
	if s.cp.Err != nil {
		return in.fail(statusError, "fmi3GetFMUState: %v", s.cp.Err)
	}
	if id == 0 || in.states[id] == nil {
		in.nextState++
		id = in.nextState
	}
	in.states[id] = s
	res.u32(id)
	return statusOK
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

func (in *instance) setState(m *message) uint32 {
	id := m.u32()
	if m.err != nil {
		return statusFatal
	}
	s := in.states[id]
	if s == nil {
		return in.fail(statusError, "fmi3SetFMUState: no such state (it was freed, or is another instance's)")
	}
	return in.restore("fmi3SetFMUState", s)
}

// restore returns the instance to state s: the parameters first (a fixed
// one rebuilds the graph), then the checkpoint, then the inputs.
func (in *instance) restore(fn string, s *fmuState) uint32 {
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
		return in.fail(statusError, "%s: building the scene's graph: %v", fn, err)
	}
	if err := in.sim.Restore(s.cp); err != nil {
		return in.fail(statusError, "%s: %v", fn, err)
	}
	for i, n := range in.inputs {
		if n != nil {
			copy(n.value, in.vals[i])
		}
	}
	in.t, in.st = s.t, s.st
	return statusOK
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

func (in *instance) serialize(m *message, res *reply) uint32 {
	id := m.u32()
	if m.err != nil {
		return statusFatal
	}
	s := in.states[id]
	if s == nil {
		return in.fail(statusError, "fmi3SerializeFMUState: no such state")
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
		return in.fail(statusError, "fmi3SerializeFMUState: %v", err)
	}
	res.bytes(b.Bytes())
	return statusOK
}

func (in *instance) deserialize(m *message, res *reply) uint32 {
	data := m.take(int(m.u32()))
	if m.err != nil {
		return statusFatal
	}
	bad := func(why string) uint32 {
		return in.fail(statusError, "fmi3DeserializeFMUState: not a state of this FMU: %s", why)
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
	res.u32(in.nextState)
	return statusOK
}
