package fmi

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cosimgo/cosim/node"
)

// This file is the seam between the node types (cosim.go, me.go) and the
// transport that reaches an FMU's functions. The node types call only
// the instance interface below; the in-process transport (cgo.go, over
// dlopen) implements it, and a transport that runs the FMU in a child
// process and speaks to it over a pipe implements the same interface, so
// that the node types work unchanged over either. doc.go, "Transports",
// states the contract a transport meets.

// CallStatus is an FMI status returned by an FMU function (fmi3Status,
// fmi2Status).
type CallStatus int

// The FMI statuses (FMI 2.0 adds Pending, which cosim never asks for).
const (
	StatusOK CallStatus = iota
	StatusWarning
	StatusDiscard
	StatusError
	StatusFatal
	StatusPending
)

func (s CallStatus) String() string {
	switch s {
	case StatusOK:
		return "OK"
	case StatusWarning:
		return "Warning"
	case StatusDiscard:
		return "Discard"
	case StatusError:
		return "Error"
	case StatusFatal:
		return "Fatal"
	case StatusPending:
		return "Pending"
	}
	return "CallStatus(" + strconv.Itoa(int(s)) + ")"
}

// Sentinels for errors.Is.
var (
	// ErrStatus is wrapped by every *CallError: an FMU function returned
	// Warning, Discard, Error, Fatal (or Pending).
	ErrStatus = errors.New("FMU function did not return OK")
	// ErrNeedsCgo: this cosim was built without cgo (CGO_ENABLED=0), so it
	// cannot load an FMU's binary.
	ErrNeedsCgo = errors.New("loading an FMU binary needs cgo: rebuild cosim with CGO_ENABLED=1 and a C compiler")
	// ErrMissingFunction: the FMU's binary does not export a function
	// cosim needs (*MissingFunctionError lists them).
	ErrMissingFunction = errors.New("FMU binary lacks functions")
	// ErrNotRepresentable: a value cannot be carried between the FMU and
	// cosim's float64 values: an integer input that is not an integer or
	// is out of its type's range, an Int64 output beyond 2^53.
	ErrNotRepresentable = errors.New("value not representable")
	// ErrNonFinite: the FMU returned NaN or an infinite value. It is
	// node.ErrNonFinite itself (one sentinel for a value that stopped
	// being finite, whoever found it): errors.Is(err, node.ErrNonFinite)
	// holds for an FMU's NaN as for a native node's.
	ErrNonFinite = node.ErrNonFinite
	// ErrState: the FMU cannot do what the graph asks of its hidden state:
	// step again from an earlier state or save one without
	// canGetAndSetFMUState, checkpoint without canSerializeFMUState, or
	// step from a state other than the one it is in.
	ErrState = errors.New("FMU state")
	// ErrTerminated: the FMU asked to terminate the simulation (a
	// co-simulation step's terminateSimulation). A model-exchange FMU
	// that asks at an event ends a monolithic run there instead
	// (node.ErrStop).
	ErrTerminated = errors.New("FMU asked to terminate the simulation")
	// ErrFatal: an FMU function returned Fatal earlier; the standard
	// forbids any further call to any instance of that FMU binary.
	ErrFatal = errors.New("FMU is unusable after a Fatal status")
	// ErrCrashed: an isolated FMU's process ended during a call (a
	// segmentation fault, an abort, an exit); the *CallError says how
	// and what the process printed last.
	ErrCrashed = errors.New("the FMU's process died")
	// ErrTimeout: an isolated FMU's call did not return within the
	// node's timeout; cosim killed its process.
	ErrTimeout = errors.New("the FMU's call did not return in time")
	// ErrProtocol: an isolated FMU's process sent cosim something that is
	// not its host protocol (the FMU wrote into cosim's pipe, or the host
	// program is not the one cosim built).
	ErrProtocol = errors.New("the FMU's process broke cosim's host protocol")
	// ErrNeedsIsolation: the FMU's binary cannot be loaded into cosim's
	// process (it was built with Go, whose runtime cannot share a process
	// with cosim's): import it with Options.Isolate ("isolate": true).
	ErrNeedsIsolation = errors.New("the FMU's binary must run in its own process")
)

// CallError is the error of an FMU function that returned another status
// than OK: the FMU, its instance, the function, the status, the
// simulation time of the call (NaN when it has none, at instantiation)
// and the messages the FMU logged during the call. errors.Is(err,
// ErrStatus) holds.
//
// An isolated FMU's function may also not return at all: its process
// crashed, the call timed out or was cancelled, or the process broke the
// host protocol. Err is then that cause (wrapping ErrCrashed, ErrTimeout,
// ErrProtocol or the context's error, and ErrFatal: nothing can be
// called in that process again), Status is Fatal and errors.Is(err,
// ErrStatus) does not hold.
type CallError struct {
	FMU      string // the model name
	Instance string // the instance name (the node's name in a graph)
	Function string // "fmi3DoStep"
	Status   CallStatus
	Time     float64
	Messages []string // what the FMU logged during the call, oldest first
	// Null marks an instantiation function that returned NULL rather
	// than a status.
	Null bool
	// Err is why the function did not return (isolated FMUs only); nil
	// when it returned Status.
	Err error
}

func (e *CallError) Error() string {
	var b strings.Builder
	what := e.Status.String()
	if e.Null {
		what = "NULL"
	}
	at := ""
	if !math.IsNaN(e.Time) {
		at = " at t=" + strconv.FormatFloat(e.Time, 'g', -1, 64)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, "FMU %s (instance %s): %s%s did not return: %v", e.FMU, e.Instance, e.Function, at, e.Err)
		if len(e.Messages) > 0 {
			b.WriteString("; the FMU logged: ")
			b.WriteString(strings.Join(e.Messages, " | "))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "FMU %s (instance %s): %s returned %s%s", e.FMU, e.Instance, e.Function, what, at)
	if len(e.Messages) == 0 {
		b.WriteString(" (the FMU logged nothing)")
	} else {
		b.WriteString("; the FMU logged: ")
		b.WriteString(strings.Join(e.Messages, " | "))
	}
	return b.String()
}

func (e *CallError) Unwrap() error {
	if e.Err != nil {
		return errors.Join(e.Err, ErrFatal)
	}
	if e.Status == StatusFatal {
		return errors.Join(ErrStatus, ErrFatal)
	}
	return ErrStatus
}

// MissingFunctionError lists every function an FMU's binary lacks that
// cosim needs for the interface and capabilities it declares.
type MissingFunctionError struct {
	FMU     string
	Binary  string
	Missing []string
}

func (e *MissingFunctionError) Error() string {
	return fmt.Sprintf("FMU %s: the binary %s does not export %s, which cosim needs for what its modelDescription.xml declares",
		e.FMU, e.Binary, strings.Join(e.Missing, ", "))
}

func (e *MissingFunctionError) Unwrap() error { return ErrMissingFunction }

// apiType is the FMI API type that carries variables of type t in FMI
// version major: FMI 2.0 has Real, Integer and Boolean; enumerations go
// through Int64 (FMI 3.0) or Integer (FMI 2.0).
func apiType(major int, t VarType) VarType {
	if major == 2 {
		switch t {
		case Float64, Float32:
			return Float64
		case Boolean:
			return Boolean
		}
		return Int32
	}
	if t == Enumeration {
		return Int64
	}
	return t
}

func getName(major int, t VarType, set bool) string {
	verb := "Get"
	if set {
		verb = "Set"
	}
	if major == 2 {
		n := map[VarType]string{Float64: "Real", Int32: "Integer", Boolean: "Boolean"}[apiType(2, t)]
		return "fmi2" + verb + n
	}
	return "fmi3" + verb + string(apiType(3, t))
}

// stateFn names fmi3GetFMUState (what "Get"; FMI 2.0: fmi2GetFMUstate)
// and its siblings "Set" and "Free", as constants (no string is built per
// call).
func stateFn(major int, what string) string {
	names := [2][3]string{{"fmi3GetFMUState", "fmi3SetFMUState", "fmi3FreeFMUState"}, {"fmi2GetFMUstate", "fmi2SetFMUstate", "fmi2FreeFMUstate"}}
	v := 0
	if major == 2 {
		v = 1
	}
	switch what {
	case "Get":
		return names[v][0]
	case "Set":
		return names[v][1]
	}
	return names[v][2]
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// valueError reports a value at position i of a get whose variable is
// vrs[min(i, len-1)] (arrays give one reference for many values).
type valueError struct {
	VR    uint32
	Value string
	Type  VarType
}

func (e *valueError) Error() string {
	return fmt.Sprintf("value %s of value reference %d (%s) has no exact float64 form", e.Value, e.VR, e.Type)
}

func (e *valueError) Unwrap() error { return ErrNotRepresentable }

func notExact(vrs []uint32, i int, v string, t VarType) error {
	vr := uint32(0)
	if len(vrs) > 0 {
		vr = vrs[min(i, len(vrs)-1)]
	}
	return &valueError{VR: vr, Value: v, Type: t}
}

// stepResult is what fmi*DoStep reports besides its status.
type stepResult struct {
	// terminate: the FMU asks to end the simulation (FMI 2.0: fmi2DoStep
	// returned Discard and fmi2GetBooleanStatus(fmi2Terminated) is true,
	// which the transport reports as this, not as an error).
	terminate bool
	// last is the time the FMU reached (lastSuccessfulTime), NaN when
	// the FMU does not say.
	last float64
}

// eventInfo is what fmi3UpdateDiscreteStates (fmi2NewDiscreteStates)
// reports.
type eventInfo struct {
	needUpdate      bool // iterate again
	terminate       bool
	valuesChanged   bool // continuous states changed
	nextEventTime   float64
	nextEventTimeOK bool
}

// instance is one instantiated FMU reached through a transport. Its
// methods map one to one onto the FMI functions of both versions (named
// in the comments with FMI 3.0's names); values cross as float64 in the
// order of the value references, a variable of an array type taking as
// many values as it has elements. Every method returns a *CallError for a
// status other than OK (time NaN: the caller, which knows the time, sets
// it) and never panics on an FMU's error. A transport serializes nothing:
// the node types make one call at a time per instance.
type instance interface {
	// enterInitializationMode (FMI 2.0: fmi2SetupExperiment then
	// fmi2EnterInitializationMode). tol NaN: no tolerance; stop +Inf: no
	// stop time.
	enterInitializationMode(tol, start, stop float64) error
	exitInitializationMode() error
	// enterConfigurationMode and exitConfigurationMode (FMI 3.0 only)
	// bracket the setting of structural parameters.
	enterConfigurationMode() error
	exitConfigurationMode() error

	// get and set read and write variables of one type (fmi3GetFloat64 …
	// fmi3SetBoolean; FMI 2.0's Real, Integer and Boolean). get returns
	// an error wrapping ErrNotRepresentable, naming the value reference,
	// when an integer does not convert to float64 exactly; set is given
	// values already checked to fit the type.
	get(t VarType, vrs []uint32, dst []float64) error
	set(t VarType, vrs []uint32, src []float64) error

	// doStep is fmi3DoStep from t over h.
	doStep(t, h float64) (stepResult, error)
	// stepAndGet is doStep followed, when it returns OK, by get of the
	// Float64 variables vrs into dst: one call per communication step
	// (one round trip for a transport over a pipe). An FMI 2.0 Discard
	// (a terminate request) is returned as from doStep, without the get.
	stepAndGet(t, h float64, vrs []uint32, dst []float64) (stepResult, error)

	// Model exchange.
	setTime(t float64) error
	setContinuousStates(x []float64) error
	getContinuousStates(dst []float64) error
	getDerivatives(dst []float64) error // fmi3GetContinuousStateDerivatives
	getEventIndicators(dst []float64) error
	enterEventMode() error
	updateDiscreteStates() (eventInfo, error) // FMI 2.0: fmi2NewDiscreteStates
	enterContinuousTimeMode() error
	completedIntegratorStep() (enterEvent, terminate bool, err error)
	// directionalDerivative writes ∂unknowns/∂knowns · seed into dst.
	directionalDerivative(unknowns, knowns []uint32, seed, dst []float64) error

	// The FMU state: saveState and loadState keep it in numbered slots
	// (fmi3GetFMUState / fmi3SetFMUState into memory the transport
	// reuses); serializeState and deserializeState move the current state
	// to and from bytes (fmi3SerializeFMUState, fmi3DeserializeFMUState).
	saveState(slot int) error
	loadState(slot int) error
	serializeState() ([]byte, error)
	deserializeState(data []byte) error

	reset() error
	terminate() error
	// free releases the instance (fmi3FreeInstance) and every saved
	// state; it is called exactly once, and calls nothing in the FMU
	// after any function of its binary returned Fatal.
	free()
}

// transport makes instances. in-process (cgo.go) is the only one built
// into this package; the node types reach it through newInstance.
type transport interface {
	instantiate(f *FMU, k Interface, name string, vars varUse) (instance, error)
}

// VarType indices of the get/set function tables.
var typeOrder = [...]VarType{Float64, Float32, Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, UInt64, Boolean}

func typeIndex(t VarType) int {
	if t == Enumeration {
		t = Int64
	}
	for i, u := range typeOrder {
		if u == t {
			return i
		}
	}
	return -1
}

// needed lists the functions an instance of interface k with these
// variable types needs, in a fixed order.
func needed(md *ModelDescription, k Interface, use varUse) []string {
	it := md.Interface(k)
	p := "fmi3"
	if md.Major == 2 {
		p = "fmi2"
	}
	var names []string
	add := func(ns ...string) {
		for _, n := range ns {
			names = append(names, p+n)
		}
	}
	if md.Major == 2 {
		add("Instantiate", "FreeInstance", "SetupExperiment", "EnterInitializationMode", "ExitInitializationMode", "Terminate", "Reset")
	} else {
		if k == InterfaceCoSimulation {
			add("InstantiateCoSimulation")
		} else {
			add("InstantiateModelExchange")
		}
		add("FreeInstance", "EnterInitializationMode", "ExitInitializationMode", "Terminate", "Reset")
		if use.configuration {
			add("EnterConfigurationMode", "ExitConfigurationMode")
		}
	}
	seen := map[string]bool{}
	for _, t := range typeOrder {
		if !use.types[t] && !(t == Int64 && use.types[Enumeration]) {
			continue
		}
		for _, set := range []bool{false, true} {
			n := getName(md.Major, t, set)
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	if k == InterfaceCoSimulation {
		add("DoStep")
	} else {
		add("EnterEventMode", "EnterContinuousTimeMode", "CompletedIntegratorStep", "SetTime", "SetContinuousStates",
			"GetContinuousStates", "GetEventIndicators")
		if md.Major == 2 {
			add("NewDiscreteStates", "GetDerivatives")
		} else {
			add("UpdateDiscreteStates", "GetContinuousStateDerivatives")
		}
	}
	if it.CanGetAndSetFMUState {
		if md.Major == 2 {
			add("GetFMUstate", "SetFMUstate", "FreeFMUstate")
		} else {
			add("GetFMUState", "SetFMUState", "FreeFMUState")
		}
	}
	if it.CanSerializeFMUState {
		if md.Major == 2 {
			add("SerializedFMUstateSize", "SerializeFMUstate", "DeSerializeFMUstate")
		} else {
			add("SerializedFMUStateSize", "SerializeFMUState", "DeserializeFMUState")
		}
	}
	if it.ProvidesDirectionalDerivatives {
		add("GetDirectionalDerivative")
	}
	return names
}

// varUse lists the variable types an instance will get and set, so that a
// transport resolves (and reports missing) exactly the functions needed;
// the other needs follow from the interface and its capability flags.
type varUse struct {
	types         map[VarType]bool
	configuration bool // structural parameters are set
}

// Slots of saved FMU states.
const (
	slotPre     = iota // the state at the start of the last step (re-stepping)
	slotInit           // the state after initialization
	slotTemp           // scratch for serialization
	slotEvtPre         // a model-exchange FMU's state just before its last event
	slotEvtPost        // and just after it
	numSlots
)

// callLog is what an instance of either transport keeps to report its
// calls: the names errors carry and the log sink, with the mark of the
// call in progress.
type callLog struct {
	fmu, name string
	log       *logSink
	mark      int64
}

// start marks the log at the start of a call.
func (c *callLog) start() { c.mark = c.log.seq() }

// failed turns a status other than OK into a *CallError with the messages
// logged since start.
func (c *callLog) failed(fn string, s CallStatus) error {
	if s == StatusOK {
		return nil
	}
	return &CallError{FMU: c.fmu, Instance: c.name, Function: fn, Status: s, Time: math.NaN(), Messages: c.log.since(c.mark)}
}

// refused is the error of a call not made because a function returned
// Fatal earlier (why says where).
func (c *callLog) refused(fn, why string) error {
	return &CallError{FMU: c.fmu, Instance: c.name, Function: fn, Status: StatusFatal, Time: math.NaN(),
		Messages: []string{"not called: " + why}}
}

func (c *callLog) messages() []string { return c.log.all() }

// library is a loaded FMU binary; the FMU closes it with its last
// reference.
type library interface {
	close() error
}

// logSink collects an instance's log messages. The transport feeds it
// from the FMU's logger callback (on the thread of the call) and attaches
// the messages of a failed call to its CallError. Messages are numbered
// from the first; the sink keeps the last maxMessages.
type logSink struct {
	mu    sync.Mutex
	msgs  []string
	first int64        // number of the first message kept
	n     atomic.Int64 // messages logged so far
}

// maxMessages bounds the messages one sink keeps; a chatty FMU cannot
// grow memory without bound.
const maxMessages = 64

// maxMessageBytes bounds one message.
const maxMessageBytes = 1024

func (l *logSink) add(status CallStatus, category, msg string) {
	if len(msg) > maxMessageBytes {
		msg = msg[:maxMessageBytes] + "…"
	}
	line := msg
	if category != "" {
		line = "[" + category + "] " + msg
	}
	if status != StatusOK {
		line = status.String() + ": " + line
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.msgs) >= maxMessages {
		k := len(l.msgs) / 2
		l.msgs = append(l.msgs[:0], l.msgs[k:]...)
		l.first += int64(k)
	}
	l.msgs = append(l.msgs, line)
	l.n.Add(1)
}

// seq is the number of messages logged so far: a call's mark.
func (l *logSink) seq() int64 { return l.n.Load() }

// since returns the messages logged since mark (those still kept).
func (l *logSink) since(mark int64) []string {
	if l.n.Load() == mark {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	i := max(0, int(mark-l.first))
	if i >= len(l.msgs) {
		return nil
	}
	return append([]string(nil), l.msgs[i:]...)
}

// all returns every message kept.
func (l *logSink) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.msgs...)
}
