//go:build cgo && unix

package fmi

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "cfmi.h"
*/
import "C"

import (
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"runtime/cgo"
	"sync"
	"sync/atomic"
	"unsafe"
)

// The in-process transport: the FMU's binary loaded into this process
// with dlopen, its functions called through the C wrappers of cfmi.c.

// cgoAvailable reports whether this build can load FMU binaries.
const cgoAvailable = true

// inProcess is the transport of this build.
var inProcess transport = cgoTransport{}

type cgoTransport struct{}

// cgoLib is a loaded binary.
type cgoLib struct {
	path   string
	handle unsafe.Pointer
	mu     sync.Mutex
	fns    map[string]unsafe.Pointer // resolved symbols (nil: looked up, absent)
	// fatal is set when a function returned Fatal: the standard then
	// forbids calling anything of the binary again, FreeInstance
	// included, so the library is left loaded.
	fatal atomic.Bool
}

func (l *cgoLib) close() error {
	if l.fatal.Load() {
		return nil
	}
	var buf [512]C.char
	if C.cosim_dlclose(l.handle, &buf[0], C.size_t(len(buf))) != 0 {
		return fmt.Errorf("fmi: dlclose %s: %s", l.path, C.GoString(&buf[0]))
	}
	return nil
}

// sym resolves a symbol, caching the answer.
func (l *cgoLib) sym(name string) unsafe.Pointer {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p, ok := l.fns[name]; ok {
		return p
	}
	cs := C.CString(name)
	p := C.cosim_dlsym(l.handle, cs)
	C.free(unsafe.Pointer(cs))
	l.fns[name] = p
	return p
}

// library loads the binary of interface k once per FMU.
func (f *FMU) library(k Interface) (*cgoLib, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if l, ok := f.libs[k].(*cgoLib); ok {
		return l, nil
	}
	p, err := f.binary(k)
	if err != nil {
		return nil, err
	}
	if builtWithGo(p) {
		return nil, fmt.Errorf("%w: %s (%s): %s was built with Go, and a Go runtime cannot be loaded into cosim's process (itself a Go program): import it with \"isolate\": true (fmi.Options.Isolate), which runs it in a process of its own",
			ErrNeedsIsolation, f.md.ModelName, k, p)
	}
	cp := C.CString(p)
	defer C.free(unsafe.Pointer(cp))
	var buf [1024]C.char
	h := C.cosim_dlopen(cp, &buf[0], C.size_t(len(buf)))
	if h == nil {
		return nil, fmt.Errorf("%w: %s (%s): cannot load %s: %s", ErrPlatform, f.md.ModelName, k, p, C.GoString(&buf[0]))
	}
	l := &cgoLib{path: p, handle: h, fns: map[string]unsafe.Pointer{}}
	f.libs[k] = l
	return l, nil
}

// cgoInstance is one instance of an FMU in this process.
type cgoInstance struct {
	callLog
	lib    *cgoLib
	major  int
	inst   unsafe.Pointer
	env    *C.cosim_env
	cb     unsafe.Pointer // FMI 2.0 callback functions
	cname  *C.char
	handle cgo.Handle
	fn     map[string]unsafe.Pointer
	getFn  [len(typeOrder)]unsafe.Pointer
	setFn  [len(typeOrder)]unsafe.Pointer
	// The functions called per step, resolved once (no map look-up on
	// the hot path).
	fDoStep, fSetTime, fGetState, fSetState, fDD unsafe.Pointer
	fSetX, fGetX, fDerivs, fEvents               unsafe.Pointer
	getNames                                     [len(typeOrder)]string // the functions' names, made once
	setNames                                     [len(typeOrder)]string
	states                                       [numSlots]unsafe.Pointer
	scratch                                      []uint64 // conversion buffer for non-Float64 values
	// Out-parameters of the C calls, kept here so that taking their
	// addresses allocates nothing per call.
	outB  [6]C.bool
	outI  [6]C.int
	outD  [1]C.double
	freed bool
}

// goFMILog is the FMU's logger callback (cfmi.c calls it from the FMU's
// thread during a call into the FMU).
//
//export goFMILog
func goFMILog(h C.uintptr_t, status C.int, category, message *C.char) {
	sink, ok := cgo.Handle(h).Value().(*logSink)
	if !ok {
		return
	}
	cat, msg := "", ""
	if category != nil {
		cat = C.GoString(category)
	}
	if message != nil {
		msg = C.GoString(message)
	}
	sink.add(CallStatus(status), cat, msg)
}

func (cgoTransport) instantiate(f *FMU, k Interface, name string, use varUse) (instance, error) {
	md := f.md
	lib, err := f.library(k)
	if err != nil {
		return nil, err
	}
	if lib.fatal.Load() {
		return nil, fmt.Errorf("FMU %s: %w", md.ModelName, ErrFatal)
	}
	c := &cgoInstance{callLog: callLog{fmu: md.ModelName, name: name, log: &logSink{}}, lib: lib, major: md.Major, fn: map[string]unsafe.Pointer{}}
	var missing []string
	for _, n := range needed(md, k, use) {
		p := lib.sym(n)
		if p == nil {
			missing = append(missing, n)
		}
		c.fn[n] = p
	}
	if len(missing) > 0 {
		return nil, &MissingFunctionError{FMU: md.ModelName, Binary: filepath.Base(lib.path), Missing: missing}
	}
	pick := func(n2, n3 string) unsafe.Pointer {
		if md.Major == 2 {
			return c.fn[n2]
		}
		return c.fn[n3]
	}
	c.fDoStep = pick("fmi2DoStep", "fmi3DoStep")
	c.fSetTime = pick("fmi2SetTime", "fmi3SetTime")
	c.fGetState = pick("fmi2GetFMUstate", "fmi3GetFMUState")
	c.fSetState = pick("fmi2SetFMUstate", "fmi3SetFMUState")
	c.fDD = pick("fmi2GetDirectionalDerivative", "fmi3GetDirectionalDerivative")
	c.fSetX = pick("fmi2SetContinuousStates", "fmi3SetContinuousStates")
	c.fGetX = pick("fmi2GetContinuousStates", "fmi3GetContinuousStates")
	c.fDerivs = pick("fmi2GetDerivatives", "fmi3GetContinuousStateDerivatives")
	c.fEvents = pick("fmi2GetEventIndicators", "fmi3GetEventIndicators")
	for i, t := range typeOrder {
		c.getNames[i], c.setNames[i] = getName(md.Major, t, false), getName(md.Major, t, true)
		c.getFn[i] = c.fn[c.getNames[i]]
		c.setFn[i] = c.fn[c.setNames[i]]
	}
	res, err := filepath.Abs(f.resourceDir())
	if err != nil {
		return nil, err
	}
	c.handle = cgo.NewHandle(c.log)
	c.env = C.cosim_env_new(C.uintptr_t(c.handle))
	c.cname = C.CString(name)
	token := C.CString(md.Token)
	defer C.free(unsafe.Pointer(token))
	var fname string
	if md.Major == 2 {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(res)}
		cres := C.CString(u.String())
		defer C.free(unsafe.Pointer(cres))
		c.cb = C.cosim_fmi2_callbacks_new(c.env)
		typ := C.int(0)
		if k == InterfaceCoSimulation {
			typ = 1
		}
		fname = "fmi2Instantiate"
		c.inst = C.cosim_fmi2_instantiate(c.fn[fname], c.cname, typ, token, cres, c.cb, 0)
	} else {
		cres := C.CString(res + string(os.PathSeparator))
		defer C.free(unsafe.Pointer(cres))
		if k == InterfaceCoSimulation {
			fname = "fmi3InstantiateCoSimulation"
			c.inst = C.cosim_fmi3_instantiate_cs(c.fn[fname], c.cname, token, cres, false, c.env)
		} else {
			fname = "fmi3InstantiateModelExchange"
			c.inst = C.cosim_fmi3_instantiate_me(c.fn[fname], c.cname, token, cres, false, c.env)
		}
	}
	if c.inst == nil {
		err := &CallError{FMU: c.fmu, Instance: name, Function: fname, Status: StatusError, Time: math.NaN(), Messages: c.log.all(), Null: true}
		c.release()
		return nil, err
	}
	return c, nil
}

// release frees what instantiate allocated in C and the handle.
func (c *cgoInstance) release() {
	if c.cb != nil {
		C.cosim_fmi2_callbacks_free(c.cb)
		c.cb = nil
	}
	if c.env != nil {
		C.cosim_env_free(c.env)
		c.env = nil
	}
	if c.cname != nil {
		C.free(unsafe.Pointer(c.cname))
		c.cname = nil
	}
	if c.handle != 0 {
		c.handle.Delete()
		c.handle = 0
	}
}

// begin starts a call: it refuses once the binary returned Fatal and
// marks the log.
func (c *cgoInstance) begin(fn string) error {
	if c.freed {
		panic("fmi: call " + fn + " on a freed instance")
	}
	if c.lib.fatal.Load() {
		return c.refused(fn, "a function of this FMU returned Fatal earlier")
	}
	c.start()
	return nil
}

// status turns a returned status into an error.
func (c *cgoInstance) status(fn string, s C.int) error {
	if CallStatus(s) == StatusFatal {
		c.lib.fatal.Store(true)
	}
	return c.failed(fn, CallStatus(s))
}

func (c *cgoInstance) simple(name string) error {
	fn := "fmi3" + name
	if c.major == 2 {
		fn = "fmi2" + name
	}
	if err := c.begin(fn); err != nil {
		return err
	}
	if c.major == 2 {
		return c.status(fn, C.cosim_fmi2_inst(c.fn[fn], c.inst))
	}
	return c.status(fn, C.cosim_fmi3_inst(c.fn[fn], c.inst))
}

func cbool(b bool) C.bool { return C.bool(b) }

func cint(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

func (c *cgoInstance) enterInitializationMode(tol, start, stop float64) error {
	tolDef, stopDef := !math.IsNaN(tol), !math.IsInf(stop, 1)
	if math.IsNaN(tol) {
		tol = 0
	}
	if !stopDef {
		stop = 0
	}
	if c.major == 2 {
		if err := c.begin("fmi2SetupExperiment"); err != nil {
			return err
		}
		s := C.cosim_fmi2_setup(c.fn["fmi2SetupExperiment"], c.inst, cint(tolDef), C.double(tol), C.double(start), cint(stopDef), C.double(stop))
		if err := c.status("fmi2SetupExperiment", s); err != nil {
			return err
		}
		return c.simple("EnterInitializationMode")
	}
	if err := c.begin("fmi3EnterInitializationMode"); err != nil {
		return err
	}
	s := C.cosim_fmi3_enter_init(c.fn["fmi3EnterInitializationMode"], c.inst, cbool(tolDef), C.double(tol), C.double(start), cbool(stopDef), C.double(stop))
	return c.status("fmi3EnterInitializationMode", s)
}

func (c *cgoInstance) exitInitializationMode() error { return c.simple("ExitInitializationMode") }
func (c *cgoInstance) enterConfigurationMode() error { return c.simple("EnterConfigurationMode") }
func (c *cgoInstance) exitConfigurationMode() error  { return c.simple("ExitConfigurationMode") }
func (c *cgoInstance) enterEventMode() error         { return c.simple("EnterEventMode") }
func (c *cgoInstance) enterContinuousTimeMode() error {
	return c.simple("EnterContinuousTimeMode")
}
func (c *cgoInstance) reset() error     { return c.simple("Reset") }
func (c *cgoInstance) terminate() error { return c.simple("Terminate") }

// buf returns scratch memory of at least n bytes.
func (c *cgoInstance) buf(n int) unsafe.Pointer {
	words := (n + 7) / 8
	if words == 0 {
		words = 1
	}
	if len(c.scratch) < words {
		c.scratch = make([]uint64, words)
	}
	return unsafe.Pointer(&c.scratch[0])
}

// vrPtr returns the address of the first value reference (nil when none).
func vrPtr(vrs []uint32) *C.uint32_t {
	if len(vrs) == 0 {
		return nil
	}
	return (*C.uint32_t)(unsafe.Pointer(&vrs[0]))
}

func dblPtr(x []float64) *C.double {
	if len(x) == 0 {
		return nil
	}
	return (*C.double)(unsafe.Pointer(&x[0]))
}

func (c *cgoInstance) get(t VarType, vrs []uint32, dst []float64) error {
	at := apiType(c.major, t)
	ti := typeIndex(at)
	fn := c.getNames[ti]
	if err := c.begin(fn); err != nil {
		return err
	}
	f := c.getFn[ti]
	n := len(dst)
	var p unsafe.Pointer
	if at == Float64 {
		p = unsafe.Pointer(dblPtr(dst))
	} else {
		p = c.buf(8 * n)
	}
	var s C.int
	if c.major == 2 {
		s = C.cosim_fmi2_get(f, c.inst, (*C.uint)(unsafe.Pointer(vrPtr(vrs))), C.size_t(len(vrs)), p)
	} else {
		s = C.cosim_fmi3_get(f, c.inst, vrPtr(vrs), C.size_t(len(vrs)), p, C.size_t(n))
	}
	if err := c.status(fn, s); err != nil {
		return err
	}
	if at == Float64 || n == 0 {
		return nil
	}
	return fromC(c.major, at, p, dst, vrs)
}

// fromC converts the len(dst) values of API type t at p into dst.
func fromC(major int, t VarType, p unsafe.Pointer, dst []float64, vrs []uint32) error {
	return decodeValues(major, t, unsafe.Slice((*byte)(p), len(dst)*apiSize(major, t)), dst, vrs)
}

func (c *cgoInstance) set(t VarType, vrs []uint32, src []float64) error {
	at := apiType(c.major, t)
	ti := typeIndex(at)
	fn := c.setNames[ti]
	if err := c.begin(fn); err != nil {
		return err
	}
	f := c.setFn[ti]
	n := len(src)
	var p unsafe.Pointer
	if at == Float64 {
		p = unsafe.Pointer(dblPtr(src))
	} else if n > 0 {
		p = c.buf(8 * n)
		toC(c.major, at, src, p)
	}
	var s C.int
	if c.major == 2 {
		s = C.cosim_fmi2_get(f, c.inst, (*C.uint)(unsafe.Pointer(vrPtr(vrs))), C.size_t(len(vrs)), p)
	} else {
		s = C.cosim_fmi3_get(f, c.inst, vrPtr(vrs), C.size_t(len(vrs)), p, C.size_t(n))
	}
	return c.status(fn, s)
}

// toC converts checked float64 values into API type t at p.
func toC(major int, t VarType, src []float64, p unsafe.Pointer) {
	encodeValues(major, t, src, unsafe.Slice((*byte)(p), len(src)*apiSize(major, t)))
}

func (c *cgoInstance) doStep(t, h float64) (stepResult, error) {
	if c.major == 2 {
		if err := c.begin("fmi2DoStep"); err != nil {
			return stepResult{}, err
		}
		s := C.cosim_fmi2_do_step(c.fDoStep, c.inst, C.double(t), C.double(h))
		if CallStatus(s) == StatusDiscard {
			// FMI 2.0 says "terminate" by Discard and fmi2Terminated.
			if r, ok := c.fmi2Terminated(); ok {
				return r, nil
			}
		}
		return stepResult{last: math.NaN()}, c.status("fmi2DoStep", s)
	}
	if err := c.begin("fmi3DoStep"); err != nil {
		return stepResult{}, err
	}
	b, d := &c.outB, &c.outD
	s := C.cosim_fmi3_do_step(c.fDoStep, c.inst, C.double(t), C.double(h), &b[0], &b[1], &b[2], &d[0])
	return stepResult{terminate: bool(b[1]), last: float64(d[0])}, c.status("fmi3DoStep", s)
}

// fmi2Terminated asks an FMI 2.0 FMU whose fmi2DoStep returned Discard
// whether it wants to terminate, and where it stopped. ok is false when
// it does not (or cannot say): the Discard is then an error.
func (c *cgoInstance) fmi2Terminated() (stepResult, bool) {
	bf, rf := c.lib.sym("fmi2GetBooleanStatus"), c.lib.sym("fmi2GetRealStatus")
	if bf == nil {
		return stepResult{}, false
	}
	o := &c.outI
	if C.cosim_fmi2_bool_status(bf, c.inst, 3, &o[0]) != 0 || o[0] == 0 {
		return stepResult{}, false
	}
	r := stepResult{terminate: true, last: math.NaN()}
	d := &c.outD
	if rf != nil && C.cosim_fmi2_real_status(rf, c.inst, 2, &d[0]) == 0 {
		r.last = float64(d[0])
	}
	return r, true
}

func (c *cgoInstance) stepAndGet(t, h float64, vrs []uint32, dst []float64) (stepResult, error) {
	gi := typeIndex(Float64)
	o := &c.outI
	if c.major == 2 {
		if err := c.begin("fmi2DoStep"); err != nil {
			return stepResult{}, err
		}
		s := C.cosim_fmi2_step_get(c.fDoStep, c.getFn[gi], c.inst, C.double(t), C.double(h), (*C.uint)(unsafe.Pointer(vrPtr(vrs))), C.size_t(len(vrs)), dblPtr(dst), &o[0])
		if o[0] == 0 {
			if CallStatus(s) == StatusDiscard {
				if r, ok := c.fmi2Terminated(); ok {
					return r, nil
				}
			}
			return stepResult{last: math.NaN()}, c.status("fmi2DoStep", s)
		}
		return stepResult{last: math.NaN()}, c.status(c.getNames[gi], s)
	}
	if err := c.begin("fmi3DoStep"); err != nil {
		return stepResult{}, err
	}
	b, d := &c.outB, &c.outD
	s := C.cosim_fmi3_step_get(c.fDoStep, c.getFn[gi], c.inst, C.double(t), C.double(h), &b[0], &b[1], &b[2], &d[0],
		vrPtr(vrs), C.size_t(len(vrs)), dblPtr(dst), C.size_t(len(dst)), &o[0])
	fn := "fmi3DoStep"
	if o[0] == 1 {
		fn = c.getNames[gi]
	}
	return stepResult{terminate: bool(b[1]), last: float64(d[0])}, c.status(fn, s)
}

func (c *cgoInstance) setTime(t float64) error {
	fn := "fmi3SetTime"
	if c.major == 2 {
		fn = "fmi2SetTime"
	}
	if err := c.begin(fn); err != nil {
		return err
	}
	if c.major == 2 {
		return c.status(fn, C.cosim_fmi2_set_time(c.fSetTime, c.inst, C.double(t)))
	}
	return c.status(fn, C.cosim_fmi3_set_time(c.fSetTime, c.inst, C.double(t)))
}

// array calls f, one of the functions of shape (instance, double[], n).
func (c *cgoInstance) array(f unsafe.Pointer, name2, name3 string, x []float64) error {
	fn := name3
	if c.major == 2 {
		fn = name2
	}
	if err := c.begin(fn); err != nil {
		return err
	}
	if c.major == 2 {
		return c.status(fn, C.cosim_fmi2_array(f, c.inst, dblPtr(x), C.size_t(len(x))))
	}
	return c.status(fn, C.cosim_fmi3_array(f, c.inst, dblPtr(x), C.size_t(len(x))))
}

func (c *cgoInstance) setContinuousStates(x []float64) error {
	return c.array(c.fSetX, "fmi2SetContinuousStates", "fmi3SetContinuousStates", x)
}
func (c *cgoInstance) getContinuousStates(dst []float64) error {
	return c.array(c.fGetX, "fmi2GetContinuousStates", "fmi3GetContinuousStates", dst)
}
func (c *cgoInstance) getDerivatives(dst []float64) error {
	return c.array(c.fDerivs, "fmi2GetDerivatives", "fmi3GetContinuousStateDerivatives", dst)
}
func (c *cgoInstance) getEventIndicators(dst []float64) error {
	return c.array(c.fEvents, "fmi2GetEventIndicators", "fmi3GetEventIndicators", dst)
}

func (c *cgoInstance) updateDiscreteStates() (eventInfo, error) {
	if c.major == 2 {
		fn := "fmi2NewDiscreteStates"
		if err := c.begin(fn); err != nil {
			return eventInfo{}, err
		}
		o, d := &c.outI, &c.outD
		s := C.cosim_fmi2_new_discrete(c.fn[fn], c.inst, &o[0], &o[1], &o[2], &o[3], &o[4], &d[0])
		return eventInfo{needUpdate: o[0] != 0, terminate: o[1] != 0, valuesChanged: o[3] != 0, nextEventTimeOK: o[4] != 0, nextEventTime: float64(d[0])}, c.status(fn, s)
	}
	fn := "fmi3UpdateDiscreteStates"
	if err := c.begin(fn); err != nil {
		return eventInfo{}, err
	}
	b, d := &c.outB, &c.outD
	s := C.cosim_fmi3_update_discrete(c.fn[fn], c.inst, &b[0], &b[1], &b[2], &b[3], &b[4], &d[0])
	return eventInfo{needUpdate: bool(b[0]), terminate: bool(b[1]), valuesChanged: bool(b[3]), nextEventTimeOK: bool(b[4]), nextEventTime: float64(d[0])}, c.status(fn, s)
}

func (c *cgoInstance) completedIntegratorStep() (bool, bool, error) {
	if c.major == 2 {
		fn := "fmi2CompletedIntegratorStep"
		if err := c.begin(fn); err != nil {
			return false, false, err
		}
		o := &c.outI
		s := C.cosim_fmi2_completed_step(c.fn[fn], c.inst, &o[0], &o[1])
		return o[0] != 0, o[1] != 0, c.status(fn, s)
	}
	fn := "fmi3CompletedIntegratorStep"
	if err := c.begin(fn); err != nil {
		return false, false, err
	}
	b := &c.outB
	s := C.cosim_fmi3_completed_step(c.fn[fn], c.inst, &b[0], &b[1])
	return bool(b[0]), bool(b[1]), c.status(fn, s)
}

func (c *cgoInstance) directionalDerivative(unknowns, knowns []uint32, seed, dst []float64) error {
	if c.major == 2 {
		fn := "fmi2GetDirectionalDerivative"
		if err := c.begin(fn); err != nil {
			return err
		}
		s := C.cosim_fmi2_dd(c.fDD, c.inst, (*C.uint)(unsafe.Pointer(vrPtr(unknowns))), C.size_t(len(unknowns)),
			(*C.uint)(unsafe.Pointer(vrPtr(knowns))), C.size_t(len(knowns)), dblPtr(seed), dblPtr(dst))
		return c.status(fn, s)
	}
	fn := "fmi3GetDirectionalDerivative"
	if err := c.begin(fn); err != nil {
		return err
	}
	s := C.cosim_fmi3_dd(c.fDD, c.inst, vrPtr(unknowns), C.size_t(len(unknowns)), vrPtr(knowns), C.size_t(len(knowns)),
		dblPtr(seed), C.size_t(len(seed)), dblPtr(dst), C.size_t(len(dst)))
	return c.status(fn, s)
}

func (c *cgoInstance) saveState(slot int) error {
	fn := stateFn(c.major, "Get")
	if err := c.begin(fn); err != nil {
		return err
	}
	var s C.int
	if c.major == 2 {
		s = C.cosim_fmi2_state(c.fGetState, c.inst, &c.states[slot])
	} else {
		s = C.cosim_fmi3_state(c.fGetState, c.inst, &c.states[slot])
	}
	return c.status(fn, s)
}

func (c *cgoInstance) loadState(slot int) error {
	fn := stateFn(c.major, "Set")
	if c.states[slot] == nil {
		return fmt.Errorf("fmi: no FMU state saved in slot %d", slot)
	}
	if err := c.begin(fn); err != nil {
		return err
	}
	if c.major == 2 {
		return c.status(fn, C.cosim_fmi2_set_state(c.fSetState, c.inst, c.states[slot]))
	}
	return c.status(fn, C.cosim_fmi3_set_state(c.fSetState, c.inst, c.states[slot]))
}

// freeState releases a saved state.
func (c *cgoInstance) freeState(slot int) error {
	if c.states[slot] == nil {
		return nil
	}
	fn := stateFn(c.major, "Free")
	if err := c.begin(fn); err != nil {
		c.states[slot] = nil
		return err
	}
	var s C.int
	if c.major == 2 {
		s = C.cosim_fmi2_state(c.fn[fn], c.inst, &c.states[slot])
	} else {
		s = C.cosim_fmi3_state(c.fn[fn], c.inst, &c.states[slot])
	}
	c.states[slot] = nil
	return c.status(fn, s)
}

func (c *cgoInstance) serializeState() ([]byte, error) {
	if err := c.saveState(slotTemp); err != nil {
		return nil, err
	}
	st := c.states[slotTemp]
	var size C.size_t
	sizeFn := "fmi3SerializedFMUStateSize"
	serFn := "fmi3SerializeFMUState"
	if c.major == 2 {
		sizeFn, serFn = "fmi2SerializedFMUstateSize", "fmi2SerializeFMUstate"
	}
	if err := c.begin(sizeFn); err != nil {
		return nil, err
	}
	var s C.int
	if c.major == 2 {
		s = C.cosim_fmi2_state_size(c.fn[sizeFn], c.inst, st, &size)
	} else {
		s = C.cosim_fmi3_state_size(c.fn[sizeFn], c.inst, st, &size)
	}
	if err := c.status(sizeFn, s); err != nil {
		return nil, err
	}
	if size > 1<<30 {
		return nil, fmt.Errorf("FMU %s (instance %s): %s reports %d bytes, more than cosim keeps (1 GiB)", c.fmu, c.name, sizeFn, size)
	}
	buf := C.malloc(max(size, 1))
	defer C.free(buf)
	if err := c.begin(serFn); err != nil {
		return nil, err
	}
	if c.major == 2 {
		s = C.cosim_fmi2_serialize(c.fn[serFn], c.inst, st, buf, size)
	} else {
		s = C.cosim_fmi3_serialize(c.fn[serFn], c.inst, st, buf, size)
	}
	if err := c.status(serFn, s); err != nil {
		return nil, err
	}
	return C.GoBytes(buf, C.int(size)), nil
}

func (c *cgoInstance) deserializeState(data []byte) error {
	fn := "fmi3DeserializeFMUState"
	if c.major == 2 {
		fn = "fmi2DeSerializeFMUstate"
	}
	if err := c.freeState(slotTemp); err != nil {
		return err
	}
	if err := c.begin(fn); err != nil {
		return err
	}
	buf := C.CBytes(data)
	defer C.free(buf)
	var s C.int
	if c.major == 2 {
		s = C.cosim_fmi2_deserialize(c.fn[fn], c.inst, buf, C.size_t(len(data)), &c.states[slotTemp])
	} else {
		s = C.cosim_fmi3_deserialize(c.fn[fn], c.inst, buf, C.size_t(len(data)), &c.states[slotTemp])
	}
	if err := c.status(fn, s); err != nil {
		return err
	}
	return c.loadState(slotTemp)
}

func (c *cgoInstance) free() {
	if c.freed {
		return
	}
	if !c.lib.fatal.Load() {
		for i := range c.states {
			c.freeState(i)
		}
		fn := "fmi3FreeInstance"
		if c.major == 2 {
			fn = "fmi2FreeInstance"
		}
		if c.major == 2 {
			C.cosim_fmi2_free(c.fn[fn], c.inst)
		} else {
			C.cosim_fmi3_free(c.fn[fn], c.inst)
		}
	}
	c.freed = true
	c.inst = nil
	c.release()
}
