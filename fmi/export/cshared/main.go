package main

/*
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"runtime/debug"
	"strings"
	"sync"
	"unsafe"

	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/fmi/export"
	"github.com/cosimgo/cosim/nodes"
)

// main is not called: the package is built as a shared library.
func main() {}

// instance is the Go side of one FMU instance: the export.Instance that
// runs the scene, behind a lock so that a master calling one instance
// from several threads at once (which FMI does not allow) gets its calls
// one after the other rather than a data race.
type instance struct {
	mu sync.Mutex
	in *export.Instance
	// log is the master's logger (logTo of the C instance).
	log export.LogFunc
	// panicked is the panic that ended a call: the instance's state is
	// then unknown, and only fmi3FreeInstance is accepted.
	panicked any
}

// call locks the Go side of the instance whose handle is h for one call
// of the function fn; it returns nil, and logs why, when the instance
// cannot take calls any more. The caller defers x.done(fn, &status).
// It allocates nothing (a call that runs the scene's step must not).
func call(h cgo.Handle, fn string) *instance {
	x := h.Value().(*instance)
	x.mu.Lock()
	if x.panicked != nil {
		x.log(fmi.StatusFatal, export.LogError, fmt.Sprintf("%s: the instance failed (%v): only fmi3FreeInstance is accepted", fn, x.panicked))
		x.mu.Unlock()
		return nil
	}
	return x
}

// done ends a call: a panic in cosim (a bug: user mistakes are errors)
// becomes the call's fmi3Fatal, logged, instead of the end of the
// master's process; then it unlocks the instance.
func (x *instance) done(fn string, status *C.int) {
	if r := recover(); r != nil {
		x.panicked = r
		x.log(fmi.StatusFatal, export.LogError, fmt.Sprintf("%s: cosim panicked: %v\n%s", fn, r, debug.Stack()))
		*status = C.int(fmi.StatusFatal)
	}
	x.mu.Unlock()
}

// logTo returns the logger of the C instance c: each message goes to the
// master's callback through the C trampoline cosim_log.
func logTo(c *C.inst) export.LogFunc {
	return func(s fmi.CallStatus, category, message string) {
		if c.log == nil {
			return
		}
		cc, cm := C.CString(category), C.CString(message)
		C.cosim_log(c, C.int(s), cc, cm)
		C.free(unsafe.Pointer(cc))
		C.free(unsafe.Pointer(cm))
	}
}

// resourceDir is the folder of FMI 3.0's resourcePath, which is a path;
// a file URI (as FMI 2.0 gave) is taken too.
func resourceDir(p string) string {
	if rest, ok := strings.CutPrefix(p, "file://"); ok {
		p = rest
		if rest, ok := strings.CutPrefix(p, "localhost/"); ok {
			p = "/" + rest
		}
	}
	return p
}

//export cosimInstantiate
func cosimInstantiate(c *C.inst, name, token, resources *C.char, logging C.int) (status C.int) {
	defer func() {
		if r := recover(); r != nil {
			logTo(c)(fmi.StatusFatal, export.LogError, fmt.Sprintf("fmi3InstantiateCoSimulation: cosim panicked: %v\n%s", r, debug.Stack()))
			status = C.int(fmi.StatusFatal)
		}
	}()
	log := logTo(c)
	in := export.NewInstance(resourceDir(C.GoString(resources)), nodes.Registry(), log)
	s := in.Instantiate(C.GoString(token), C.GoString(name), logging != 0)
	if s > fmi.StatusWarning {
		in.Free()
		return C.int(s)
	}
	c.h = C.uintptr_t(cgo.NewHandle(&instance{in: in, log: log}))
	return C.int(s)
}

//export cosimFree
func cosimFree(c *C.inst) {
	h := cgo.Handle(c.h)
	x := h.Value().(*instance)
	x.mu.Lock()
	x.in.Free()
	x.mu.Unlock()
	h.Delete()
	c.h = 0
}

//export cosimSetDebugLogging
func cosimSetDebugLogging(c *C.inst, on C.int) (status C.int) {
	x := call(cgo.Handle(c.h), "fmi3SetDebugLogging")
	if x == nil {
		return C.int(fmi.StatusFatal)
	}
	defer x.done("fmi3SetDebugLogging", &status)
	return C.int(x.in.SetDebugLogging(on != 0))
}

//export cosimEnterInitializationMode
func cosimEnterInitializationMode(c *C.inst, tolDefined C.int, tol, start C.double, stopDefined C.int, stop C.double) (status C.int) {
	x := call(cgo.Handle(c.h), "fmi3EnterInitializationMode")
	if x == nil {
		return C.int(fmi.StatusFatal)
	}
	defer x.done("fmi3EnterInitializationMode", &status)
	return C.int(x.in.EnterInitializationMode(tolDefined != 0, float64(tol), float64(start), stopDefined != 0, float64(stop)))
}

//export cosimExitInitializationMode
func cosimExitInitializationMode(c *C.inst) (status C.int) {
	x := call(cgo.Handle(c.h), "fmi3ExitInitializationMode")
	if x == nil {
		return C.int(fmi.StatusFatal)
	}
	defer x.done("fmi3ExitInitializationMode", &status)
	return C.int(x.in.ExitInitializationMode())
}

//export cosimTerminate
func cosimTerminate(c *C.inst) (status C.int) {
	x := call(cgo.Handle(c.h), "fmi3Terminate")
	if x == nil {
		return C.int(fmi.StatusFatal)
	}
	defer x.done("fmi3Terminate", &status)
	return C.int(x.in.Terminate())
}

//export cosimReset
func cosimReset(c *C.inst) (status C.int) {
	x := call(cgo.Handle(c.h), "fmi3Reset")
	if x == nil {
		return C.int(fmi.StatusFatal)
	}
	defer x.done("fmi3Reset", &status)
	return C.int(x.in.Reset())
}

// views returns the master's value references and values as Go slices
// over the C arrays (no copy).
func views(vr *C.uint32_t, nvr C.size_t, w *C.uint64_t, nw C.size_t) ([]uint32, []uint64) {
	var vrs []uint32
	var words []uint64
	if nvr > 0 {
		vrs = unsafe.Slice((*uint32)(unsafe.Pointer(vr)), int(nvr))
	}
	if nw > 0 {
		words = unsafe.Slice((*uint64)(unsafe.Pointer(w)), int(nw))
	}
	return vrs, words
}

//export cosimGet
func cosimGet(c *C.inst, typ C.int, vr *C.uint32_t, nvr C.size_t, w *C.uint64_t, nw C.size_t) C.int {
	vrs, words := views(vr, nvr, w, nw)
	return get(cgo.Handle(c.h), export.ValueType(typ), vrs, words)
}

//export cosimSet
func cosimSet(c *C.inst, typ C.int, vr *C.uint32_t, nvr C.size_t, w *C.uint64_t, nw C.size_t) C.int {
	vrs, words := views(vr, nvr, w, nw)
	return set(cgo.Handle(c.h), export.ValueType(typ), vrs, words)
}

//export cosimDoStep
func cosimDoStep(c *C.inst, t, h C.double, last *C.double) C.int {
	s, l := doStep(cgo.Handle(c.h), float64(t), float64(h))
	*last = C.double(l)
	return s
}

// get, set and doStep are the Go side of fmi3Get*, fmi3Set* and
// fmi3DoStep on the instance whose handle is h: the calls of a master's
// communication step, which allocate nothing in steady state
// (TestStepAllocatesNothing).
func get(h cgo.Handle, t export.ValueType, vrs []uint32, words []uint64) (status C.int) {
	x := call(h, "fmi3Get")
	if x == nil {
		return C.int(fmi.StatusFatal)
	}
	defer x.done("fmi3Get", &status)
	return C.int(x.in.Get(t, vrs, words))
}

func set(h cgo.Handle, t export.ValueType, vrs []uint32, words []uint64) (status C.int) {
	x := call(h, "fmi3Set")
	if x == nil {
		return C.int(fmi.StatusFatal)
	}
	defer x.done("fmi3Set", &status)
	return C.int(x.in.Set(t, vrs, words))
}

func doStep(h cgo.Handle, t, step float64) (status C.int, last float64) {
	x := call(h, "fmi3DoStep")
	if x == nil {
		return C.int(fmi.StatusFatal), t
	}
	defer x.done("fmi3DoStep", &status)
	s, l := x.in.DoStep(t, step)
	return C.int(s), l
}

//export cosimGetFMUState
func cosimGetFMUState(c *C.inst, id C.uint32_t, out *C.uint32_t) (status C.int) {
	x := call(cgo.Handle(c.h), "fmi3GetFMUState")
	if x == nil {
		return C.int(fmi.StatusFatal)
	}
	defer x.done("fmi3GetFMUState", &status)
	n, s := x.in.GetState(uint32(id))
	*out = C.uint32_t(n)
	return C.int(s)
}

//export cosimSetFMUState
func cosimSetFMUState(c *C.inst, id C.uint32_t) (status C.int) {
	x := call(cgo.Handle(c.h), "fmi3SetFMUState")
	if x == nil {
		return C.int(fmi.StatusFatal)
	}
	defer x.done("fmi3SetFMUState", &status)
	return C.int(x.in.SetState(uint32(id)))
}

//export cosimFreeFMUState
func cosimFreeFMUState(c *C.inst, id C.uint32_t) (status C.int) {
	x := call(cgo.Handle(c.h), "fmi3FreeFMUState")
	if x == nil {
		return C.int(fmi.StatusFatal)
	}
	defer x.done("fmi3FreeFMUState", &status)
	return C.int(x.in.FreeState(uint32(id)))
}

// cosimSerializeFMUState returns the state's bytes in memory from
// malloc, which the C part frees with the state.
//
//export cosimSerializeFMUState
func cosimSerializeFMUState(c *C.inst, id C.uint32_t, out **C.uint8_t, size *C.size_t) (status C.int) {
	x := call(cgo.Handle(c.h), "fmi3SerializeFMUState")
	if x == nil {
		return C.int(fmi.StatusFatal)
	}
	defer x.done("fmi3SerializeFMUState", &status)
	b, s := x.in.SerializeState(uint32(id))
	if s > fmi.StatusWarning {
		return C.int(s)
	}
	*out = (*C.uint8_t)(C.CBytes(b))
	*size = C.size_t(len(b))
	return C.int(s)
}

//export cosimDeserializeFMUState
func cosimDeserializeFMUState(c *C.inst, data *C.uint8_t, n C.size_t, id *C.uint32_t) (status C.int) {
	x := call(cgo.Handle(c.h), "fmi3DeserializeFMUState")
	if x == nil {
		return C.int(fmi.StatusFatal)
	}
	defer x.done("fmi3DeserializeFMUState", &status)
	var b []byte
	if n > 0 {
		b = C.GoBytes(unsafe.Pointer(data), C.int(n))
	}
	k, s := x.in.DeserializeState(b)
	*id = C.uint32_t(k)
	return C.int(s)
}
