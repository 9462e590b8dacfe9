//go:build unix

package fmi

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The out-of-process transport: every instance runs in its own child
// process, cosim's FMU host program (host/fmuhost.c, built by
// hostbuild.go), which loads the FMU's binary and calls its functions as
// this file asks over two pipes (the protocol is described at the top of
// fmuhost.c). An FMU that crashes, hangs or leaks takes down its process,
// not cosim: the call in progress returns a *CallError naming the FMU and
// the function, with how the process ended (ErrCrashed), that no answer
// came in time (ErrTimeout) or that it was cancelled, and what the process
// printed last. An FMU built with Go, which cannot be loaded into cosim's
// process, runs there too. The transport needs no cgo.
//
// Every instance owns its process: the instance's free sends FREE (which
// frees the FMU instance, unless a function returned Fatal), closes the
// request pipe (the host exits at its end) and waits for the process, so
// the process is reaped and the pipes closed on every path — a normal
// free, an error while instantiating, a crash, a timeout, a cancellation.

// Frame kinds and operations of the host protocol (fmuhost.c has the
// same numbers; TestHostProtocolConstants checks).
const (
	kindHello = 1
	kindLog   = 2
	kindDone  = 3
	kindError = 4

	opLoad        = 16
	opBind        = 17
	opInstantiate = 18
	opInst        = 19
	opInit        = 20
	opGet         = 21
	opSet         = 22
	opDoStep      = 23
	opStepGet     = 24
	opSetTime     = 25
	opArray       = 26
	opUpdate      = 27
	opCompleted   = 28
	opDD          = 29
	opState       = 30
	opSetState    = 31
	opSerialize   = 32
	opDeserialize = 33
	opFree        = 34

	hostProtocolVersion = 1
	hostMagic           = "cosim-fmu-host"
	// hostMaxFrame bounds a reply: a serialized FMU state of up to 1 GiB
	// and its framing.
	hostMaxFrame = 1<<30 + 1024
)

// Slots of the functions an isolated instance calls, in the order BIND
// sends their names.
const (
	hInstantiateCS = iota
	hInstantiateME
	hFree
	hSetup // FMI 2.0's fmi2SetupExperiment
	hEnterInit
	hExitInit
	hEnterConfig
	hExitConfig
	hTerminate
	hReset
	hDoStep
	hSetTime
	hSetX
	hGetX
	hDerivs
	hEvents
	hEnterEvent
	hEnterCT
	hUpdate
	hCompleted
	hDD
	hGetState
	hSetState
	hFreeState
	hStateSize
	hSerialize
	hDeserialize
	hBoolStatus // FMI 2.0's fmi2GetBooleanStatus
	hRealStatus // fmi2GetRealStatus
	hGet0       // fmi3GetFloat64 …, in typeOrder
	hSet0       = hGet0 + len(typeOrder)
	hNum        = hSet0 + len(typeOrder)
)

// hostNames are the names of the slots' functions in FMI version major
// ("" for a function the version does not have).
func hostNames(major int) [hNum]string {
	var n [hNum]string
	p := "fmi3"
	if major == 2 {
		p = "fmi2"
		n[hInstantiateCS], n[hInstantiateME] = "fmi2Instantiate", "fmi2Instantiate"
		n[hSetup] = "fmi2SetupExperiment"
		n[hUpdate] = "fmi2NewDiscreteStates"
		n[hDerivs] = "fmi2GetDerivatives"
		n[hBoolStatus], n[hRealStatus] = "fmi2GetBooleanStatus", "fmi2GetRealStatus"
		n[hGetState], n[hSetState], n[hFreeState] = "fmi2GetFMUstate", "fmi2SetFMUstate", "fmi2FreeFMUstate"
		n[hStateSize], n[hSerialize], n[hDeserialize] = "fmi2SerializedFMUstateSize", "fmi2SerializeFMUstate", "fmi2DeSerializeFMUstate"
	} else {
		n[hInstantiateCS], n[hInstantiateME] = "fmi3InstantiateCoSimulation", "fmi3InstantiateModelExchange"
		n[hEnterConfig], n[hExitConfig] = "fmi3EnterConfigurationMode", "fmi3ExitConfigurationMode"
		n[hUpdate] = "fmi3UpdateDiscreteStates"
		n[hDerivs] = "fmi3GetContinuousStateDerivatives"
		n[hGetState], n[hSetState], n[hFreeState] = "fmi3GetFMUState", "fmi3SetFMUState", "fmi3FreeFMUState"
		n[hStateSize], n[hSerialize], n[hDeserialize] = "fmi3SerializedFMUStateSize", "fmi3SerializeFMUState", "fmi3DeserializeFMUState"
	}
	for slot, name := range map[int]string{hFree: "FreeInstance", hEnterInit: "EnterInitializationMode",
		hExitInit: "ExitInitializationMode", hTerminate: "Terminate", hReset: "Reset", hDoStep: "DoStep",
		hSetTime: "SetTime", hSetX: "SetContinuousStates", hGetX: "GetContinuousStates",
		hEvents: "GetEventIndicators", hEnterEvent: "EnterEventMode", hEnterCT: "EnterContinuousTimeMode",
		hCompleted: "CompletedIntegratorStep", hDD: "GetDirectionalDerivative"} {
		n[slot] = p + name
	}
	for i, t := range typeOrder {
		if major == 2 && apiType(2, t) != t {
			continue // FMI 2.0 has Real, Integer and Boolean only
		}
		n[hGet0+i], n[hSet0+i] = getName(major, t, false), getName(major, t, true)
	}
	return n
}

// isolated is the out-of-process transport of one node.
type isolated struct {
	// timeout bounds every call (0: none).
	timeout time.Duration
	// ctx, when not nil, interrupts a call in progress when done.
	ctx context.Context
}

// hostInstance is one FMU instance in its own host process.
type hostInstance struct {
	callLog
	major   int
	present [hNum]bool
	names   [hNum]string

	cmd     *exec.Cmd
	pid     int
	w, r    *os.File // the request pipe's write end, the reply pipe's read end
	br      *bufio.Reader
	output  *tailWriter // what the process printed
	waited  chan struct{}
	reaped  sync.Once
	timeout time.Duration
	ctx     context.Context
	stopCtx func() bool

	// fatal: a function returned Fatal or the process is gone; nothing
	// is called in the FMU again. dead is why the process is gone.
	fatal bool
	dead  error
	freed bool
	saved [numSlots]bool // FMU states held by the host

	req   []byte // the request being built
	hdr   [5]byte
	frame []byte // the last reply's payload
	rd    reply
	buf   []byte // scratch for encoded values
}

// tailWriter keeps the last bytes a host process printed (its stdout and
// stderr, where an FMU's own printing and a crash's message go) for error
// messages, and passes everything on to cosim's stderr, as an FMU in
// cosim's process would print there.
type tailWriter struct {
	mu   sync.Mutex
	tail []byte
	pass io.Writer
}

const maxTail = 2048

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.tail = append(w.tail, p...)
	if len(w.tail) > maxTail {
		w.tail = append(w.tail[:0], w.tail[len(w.tail)-maxTail:]...)
	}
	w.mu.Unlock()
	if w.pass != nil {
		w.pass.Write(p)
	}
	return len(p), nil
}

func (w *tailWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.TrimSpace(string(w.tail))
}

func (t isolated) instantiate(f *FMU, k Interface, name string, use varUse) (instance, error) {
	md := f.md
	bin, err := f.binary(k)
	if err != nil {
		return nil, err
	}
	prog, err := HostProgram()
	if err != nil {
		return nil, fmt.Errorf("FMU %s (instance %s): %w", md.ModelName, name, err)
	}
	h := &hostInstance{callLog: callLog{fmu: md.ModelName, name: name, log: &logSink{}}, major: md.Major,
		names: hostNames(md.Major), timeout: t.timeout, ctx: t.ctx}
	if err := h.startProcess(prog); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			h.fatal = true // nothing instantiated: just end the process
			h.reap(time.Second)
		}
	}()
	if err := h.hello(); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		return nil, err
	}
	// LOAD
	h.op(opLoad)
	h.str(abs)
	s, err := h.roundTrip("dlopen")
	if err != nil {
		return nil, err
	}
	if s != StatusOK {
		why := string(h.rd.bytes())
		return nil, fmt.Errorf("%w: %s (%s): cannot load %s: %s", ErrPlatform, md.ModelName, k, bin, why)
	}
	// BIND
	h.op(opBind)
	h.u32(uint32(hNum))
	for _, n := range h.names {
		h.str(n)
	}
	if _, err := h.roundTrip("dlsym"); err != nil {
		return nil, err
	}
	got := h.rd.bytes()
	if h.rd.bad || len(got) != hNum {
		return nil, h.broken("dlsym", fmt.Errorf("BIND answered %d slots of %d", len(got), hNum))
	}
	have := map[string]bool{}
	for i, b := range got {
		h.present[i] = b != 0
		if b != 0 {
			have[h.names[i]] = true
		}
	}
	var missing []string
	for _, n := range needed(md, k, use) {
		if !have[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return nil, &MissingFunctionError{FMU: md.ModelName, Binary: filepath.Base(bin), Missing: missing}
	}
	// INSTANTIATE
	res, err := filepath.Abs(f.resourceDir())
	if err != nil {
		return nil, err
	}
	slot, fname := hInstantiateCS, h.names[hInstantiateCS]
	if k == InterfaceModelExchange {
		slot, fname = hInstantiateME, h.names[hInstantiateME]
	}
	if md.Major == 2 {
		res = (&url.URL{Scheme: "file", Path: filepath.ToSlash(res)}).String()
	} else {
		res += string(os.PathSeparator)
	}
	h.op(opInstantiate)
	h.u8(byte(md.Major))
	h.bool(k == InterfaceCoSimulation)
	h.u8(byte(slot))
	h.u8(hFree)
	h.u8(hFreeState)
	h.str(name)
	h.str(md.Token)
	h.str(res)
	h.start()
	s, err = h.roundTrip(fname)
	if err != nil {
		return nil, err
	}
	if s != StatusOK {
		return nil, &CallError{FMU: h.fmu, Instance: name, Function: fname, Status: StatusError, Time: math.NaN(), Messages: h.log.all(), Null: true}
	}
	ok = true
	return h, nil
}

// startProcess starts the host with its two pipes.
func (h *hostInstance) startProcess(prog string) error {
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("FMU %s (instance %s): %w: %v", h.fmu, h.name, ErrHost, err)
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return fmt.Errorf("FMU %s (instance %s): %w: %v", h.fmu, h.name, ErrHost, err)
	}
	h.output = &tailWriter{pass: os.Stderr}
	cmd := exec.Command(prog, strconv.Itoa(os.Getpid()))
	cmd.ExtraFiles = []*os.File{reqR, repW} // fds 3 and 4
	cmd.Stdout, cmd.Stderr = h.output, h.output
	cmd.SysProcAttr = hostProcAttr()
	// A grandchild that keeps the output pipe open must not keep Wait
	// waiting.
	cmd.WaitDelay = time.Second
	err = cmd.Start()
	reqR.Close()
	repW.Close()
	if err != nil {
		reqW.Close()
		repR.Close()
		return fmt.Errorf("FMU %s (instance %s): %w: starting %s: %v", h.fmu, h.name, ErrHost, prog, err)
	}
	h.cmd, h.pid, h.w, h.r = cmd, cmd.Process.Pid, reqW, repR
	h.br = bufio.NewReaderSize(repR, 64<<10)
	h.waited = make(chan struct{})
	go func() {
		cmd.Wait()
		close(h.waited)
	}()
	if h.ctx != nil {
		h.stopCtx = context.AfterFunc(h.ctx, func() { cmd.Process.Kill() })
	}
	return nil
}

// hello reads the host's greeting.
func (h *hostInstance) hello() error {
	kind, err := h.readFrame()
	if err != nil {
		return h.lost("starting the FMU host", err)
	}
	h.rd = reply{b: h.frame}
	magic := string(h.rd.bytes())
	version := h.rd.u32()
	if kind != kindHello || magic != hostMagic || h.rd.bad {
		return h.broken("starting the FMU host", errors.New("its first message is not the host's greeting"))
	}
	if version != hostProtocolVersion {
		return h.broken("starting the FMU host", fmt.Errorf("the host program speaks protocol version %d, this cosim %d (a stale %s?)", version, hostProtocolVersion, HostEnv))
	}
	return nil
}

// Request building. A request is a frame: length, operation, payload.

func (h *hostInstance) op(code byte) { h.req = append(h.req[:0], 0, 0, 0, 0, code) }
func (h *hostInstance) u8(v byte)    { h.req = append(h.req, v) }
func (h *hostInstance) bool(v bool) {
	if v {
		h.u8(1)
	} else {
		h.u8(0)
	}
}
func (h *hostInstance) u32(v uint32) { h.req = binary.NativeEndian.AppendUint32(h.req, v) }
func (h *hostInstance) f64(v float64) {
	h.req = binary.NativeEndian.AppendUint64(h.req, math.Float64bits(v))
}
func (h *hostInstance) raw(b []byte) { h.u32(uint32(len(b))); h.req = append(h.req, b...) }
func (h *hostInstance) str(s string) { h.u32(uint32(len(s))); h.req = append(h.req, s...) }
func (h *hostInstance) vrs(v []uint32) {
	h.u32(uint32(4 * len(v)))
	for _, x := range v {
		h.req = binary.NativeEndian.AppendUint32(h.req, x)
	}
}
func (h *hostInstance) f64s(v []float64) {
	h.u32(uint32(8 * len(v)))
	for _, x := range v {
		h.req = binary.NativeEndian.AppendUint64(h.req, math.Float64bits(x))
	}
}

// reply reads a DONE payload.
type reply struct {
	b   []byte
	off int
	bad bool
}

func (r *reply) take(n int) []byte {
	if r.bad || n < 0 || len(r.b)-r.off < n {
		r.bad = true
		return nil
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p
}

func (r *reply) u8() byte {
	if p := r.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (r *reply) flag() bool { return r.u8() != 0 }

func (r *reply) u32() uint32 {
	if p := r.take(4); p != nil {
		return binary.NativeEndian.Uint32(p)
	}
	return 0
}

func (r *reply) f64() float64 {
	if p := r.take(8); p != nil {
		return math.Float64frombits(binary.NativeEndian.Uint64(p))
	}
	return 0
}

// bytes returns a byte string of the reply (valid until the next call).
func (r *reply) bytes() []byte { return r.take(int(r.u32())) }

// readFrame reads one frame into h.frame.
func (h *hostInstance) readFrame() (byte, error) {
	if _, err := io.ReadFull(h.br, h.hdr[:]); err != nil {
		return 0, err
	}
	n := binary.NativeEndian.Uint32(h.hdr[:4])
	if n == 0 || n > hostMaxFrame {
		return 0, &protocolError{fmt.Sprintf("a frame of %d bytes (% x…)", n, h.hdr[:])}
	}
	if cap(h.frame) < int(n-1) {
		h.frame = make([]byte, n-1)
	}
	h.frame = h.frame[:n-1]
	if _, err := io.ReadFull(h.br, h.frame); err != nil {
		return 0, err
	}
	return h.hdr[4], nil
}

type protocolError struct{ what string }

func (e *protocolError) Error() string { return e.what }

// roundTrip sends the request built in h.req and reads the reply: log
// frames go to the sink, the DONE frame's status is returned with h.rd
// positioned after it. fn names the call in errors. A failure of the
// process or the protocol is a *CallError with Err set; the instance is
// then dead.
func (h *hostInstance) roundTrip(fn string) (CallStatus, error) {
	if h.dead != nil {
		return 0, h.gone(fn)
	}
	binary.NativeEndian.PutUint32(h.req, uint32(len(h.req)-4))
	if h.timeout > 0 {
		deadline := time.Now().Add(h.timeout)
		h.w.SetWriteDeadline(deadline)
		h.r.SetReadDeadline(deadline)
	}
	if _, err := h.w.Write(h.req); err != nil {
		return 0, h.lost(fn, err)
	}
	for {
		kind, err := h.readFrame()
		if err != nil {
			return 0, h.lost(fn, err)
		}
		h.rd = reply{b: h.frame}
		switch kind {
		case kindLog:
			st := int32(h.rd.u32())
			cat := string(h.rd.bytes())
			msg := string(h.rd.bytes())
			if h.rd.bad {
				return 0, h.broken(fn, errors.New("a malformed log message"))
			}
			h.log.add(CallStatus(st), cat, msg)
		case kindDone:
			st := int32(h.rd.u32())
			if h.rd.bad || st < 0 || st > int32(StatusPending) {
				return 0, h.broken(fn, fmt.Errorf("a reply with status %d", st))
			}
			return CallStatus(st), nil
		case kindError:
			return 0, h.broken(fn, fmt.Errorf("the host refused the request: %s", h.rd.b))
		default:
			return 0, h.broken(fn, fmt.Errorf("a frame of kind %d", kind))
		}
	}
}

// done checks that a reply was read whole.
func (h *hostInstance) done(fn string) error {
	if h.rd.bad {
		return h.broken(fn, errors.New("a reply too short for its operation"))
	}
	return nil
}

// broken ends a process that broke the protocol.
func (h *hostInstance) broken(fn string, why error) error {
	return h.lost(fn, &protocolError{why.Error()})
}

// lost ends the process after a failed exchange and returns the error of
// the call: a timeout, a cancellation, a protocol error or the process's
// end.
func (h *hostInstance) lost(fn string, err error) error {
	var pe *protocolError
	var cause error
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		h.cmd.Process.Kill()
		cause = fmt.Errorf("%w: no answer within %s; cosim killed the FMU's process (pid %d)", ErrTimeout, h.timeout, h.pid)
	case errors.As(err, &pe):
		h.cmd.Process.Kill()
		cause = fmt.Errorf("%w: it sent %s; cosim killed the FMU's process (pid %d)", ErrProtocol, pe.what, h.pid)
	case h.ctx != nil && h.ctx.Err() != nil:
		cause = fmt.Errorf("cancelled: cosim killed the FMU's process (pid %d): %w", h.pid, context.Cause(h.ctx))
	default:
		h.reap(5 * time.Second)
		cause = fmt.Errorf("%w (pid %d): %s", ErrCrashed, h.pid, h.exit())
	}
	h.reap(5 * time.Second)
	if out := h.output.String(); out != "" {
		cause = fmt.Errorf("%w; it printed last: %s", cause, out)
	}
	h.dead, h.fatal = cause, true
	return &CallError{FMU: h.fmu, Instance: h.name, Function: fn, Status: StatusFatal, Time: math.NaN(), Messages: h.log.since(h.mark), Err: cause}
}

// gone is the error of a call after the process is gone.
func (h *hostInstance) gone(fn string) error {
	return &CallError{FMU: h.fmu, Instance: h.name, Function: fn, Status: StatusFatal, Time: math.NaN(),
		Messages: []string{"not called: the FMU's process ended earlier"}, Err: h.dead}
}

// exit describes how the reaped process ended.
func (h *hostInstance) exit() string {
	ps := h.cmd.ProcessState
	if ps == nil {
		return "it closed its pipe to cosim"
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("killed by signal %s (%s)", signalName(ws.Signal()), ws.Signal())
	}
	return fmt.Sprintf("it exited with status %d during the call", ps.ExitCode())
}

func signalName(s syscall.Signal) string {
	names := map[syscall.Signal]string{syscall.SIGSEGV: "SIGSEGV", syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS",
		syscall.SIGFPE: "SIGFPE", syscall.SIGILL: "SIGILL", syscall.SIGKILL: "SIGKILL", syscall.SIGTERM: "SIGTERM",
		syscall.SIGPIPE: "SIGPIPE", syscall.SIGINT: "SIGINT"}
	if n, ok := names[s]; ok {
		return n
	}
	return "#" + strconv.Itoa(int(s))
}

// reap ends the process: its request pipe closed (the host frees what it
// holds and exits at its end), then killed if it has not exited within
// grace; it waits for the process and closes the pipes. Only the first
// call acts.
func (h *hostInstance) reap(grace time.Duration) {
	h.reaped.Do(func() {
		h.w.Close()
		t := time.NewTimer(grace)
		select {
		case <-h.waited:
		case <-t.C:
			h.cmd.Process.Kill()
			<-h.waited
		}
		t.Stop()
		h.r.Close()
		if h.stopCtx != nil {
			h.stopCtx()
		}
	})
}

// begin starts a call: it refuses once a function returned Fatal or the
// process is gone, and marks the log.
func (h *hostInstance) begin(fn string) error {
	if h.freed {
		panic("fmi: call " + fn + " on a freed instance")
	}
	if h.dead != nil {
		return h.gone(fn)
	}
	if h.fatal {
		return h.refused(fn, "a function of this FMU returned Fatal earlier")
	}
	h.start()
	return nil
}

// status turns a returned status into an error.
func (h *hostInstance) status(fn string, s CallStatus) error {
	if s == StatusFatal {
		h.fatal = true
	}
	return h.failed(fn, s)
}

// call makes the request built in h.req as function fn (begin done) and
// returns its error.
func (h *hostInstance) call(fn string) error {
	s, err := h.roundTrip(fn)
	if err != nil {
		return err
	}
	if err := h.done(fn); err != nil {
		return err
	}
	return h.status(fn, s)
}

// request starts a call of the function in slot (begin) with a request
// of code op naming the slot, and returns the function's name.
func (h *hostInstance) request(op byte, slot int) (string, error) {
	fn := h.names[slot]
	if err := h.begin(fn); err != nil {
		return fn, err
	}
	h.op(op)
	h.u8(byte(slot))
	return fn, nil
}

// values reads the values a call returned — size bytes each, of the
// API type at — into dst, once the reply is read to its end and the
// status is OK.
func (h *hostInstance) values(fn string, s CallStatus, at VarType, size int, vrs []uint32, dst []float64) error {
	raw := h.rd.bytes()
	if err := h.done(fn); err != nil {
		return err
	}
	if err := h.status(fn, s); err != nil {
		return err
	}
	if len(raw) != size*len(dst) {
		return h.broken(fn, fmt.Errorf("%d bytes for %d values", len(raw), len(dst)))
	}
	return decodeValues(h.major, at, raw, dst, vrs)
}

// simple calls a function of shape (instance) in slot.
func (h *hostInstance) simple(slot int) error {
	fn, err := h.request(opInst, slot)
	if err != nil {
		return err
	}
	return h.call(fn)
}

func (h *hostInstance) enterInitializationMode(tol, start, stop float64) error {
	tolDef, stopDef := !math.IsNaN(tol), !math.IsInf(stop, 1)
	if !tolDef {
		tol = 0
	}
	if !stopDef {
		stop = 0
	}
	slot := hEnterInit
	if h.major == 2 {
		slot = hSetup
	}
	fn, err := h.request(opInit, slot)
	if err != nil {
		return err
	}
	h.bool(tolDef)
	h.f64(tol)
	h.f64(start)
	h.bool(stopDef)
	h.f64(stop)
	if err := h.call(fn); err != nil || h.major == 3 {
		return err
	}
	return h.simple(hEnterInit)
}

func (h *hostInstance) exitInitializationMode() error  { return h.simple(hExitInit) }
func (h *hostInstance) enterConfigurationMode() error  { return h.simple(hEnterConfig) }
func (h *hostInstance) exitConfigurationMode() error   { return h.simple(hExitConfig) }
func (h *hostInstance) enterEventMode() error          { return h.simple(hEnterEvent) }
func (h *hostInstance) enterContinuousTimeMode() error { return h.simple(hEnterCT) }
func (h *hostInstance) reset() error                   { return h.simple(hReset) }
func (h *hostInstance) terminate() error               { return h.simple(hTerminate) }

func (h *hostInstance) get(t VarType, vrs []uint32, dst []float64) error {
	at := apiType(h.major, t)
	ti := typeIndex(at)
	fn, err := h.request(opGet, hGet0+ti)
	if err != nil {
		return err
	}
	size := apiSize(h.major, at)
	h.u8(byte(size))
	h.vrs(vrs)
	h.u32(uint32(len(dst)))
	s, err := h.roundTrip(fn)
	if err != nil {
		return err
	}
	return h.values(fn, s, at, size, vrs, dst)
}

func (h *hostInstance) set(t VarType, vrs []uint32, src []float64) error {
	at := apiType(h.major, t)
	ti := typeIndex(at)
	fn, err := h.request(opSet, hSet0+ti)
	if err != nil {
		return err
	}
	n := apiSize(h.major, at) * len(src)
	if cap(h.buf) < n {
		h.buf = make([]byte, n)
	}
	h.buf = h.buf[:n]
	encodeValues(h.major, at, src, h.buf)
	h.vrs(vrs)
	h.u32(uint32(len(src)))
	h.raw(h.buf)
	return h.call(fn)
}

// stepReply reads what DO_STEP and STEP_GET report about the step.
func (h *hostInstance) stepReply() (terminate bool, last float64) {
	h.rd.flag() // eventHandlingNeeded: cosim does not use event mode
	terminate = h.rd.flag()
	h.rd.flag() // earlyReturn: not allowed
	return terminate, h.rd.f64()
}

func (h *hostInstance) doStep(t, step float64) (stepResult, error) {
	fn, err := h.request(opDoStep, hDoStep)
	if err != nil {
		return stepResult{}, err
	}
	h.u8(hBoolStatus)
	h.u8(hRealStatus)
	h.f64(t)
	h.f64(step)
	s, err := h.roundTrip(fn)
	if err != nil {
		return stepResult{}, err
	}
	term, last := h.stepReply()
	if err := h.done(fn); err != nil {
		return stepResult{}, err
	}
	if h.major == 2 {
		// FMI 2.0 says "terminate" by Discard and fmi2Terminated, which
		// the host asked.
		if s == StatusDiscard && term {
			return stepResult{terminate: true, last: last}, nil
		}
		return stepResult{last: math.NaN()}, h.status(fn, s)
	}
	return stepResult{terminate: term, last: last}, h.status(fn, s)
}

func (h *hostInstance) stepAndGet(t, step float64, vrs []uint32, dst []float64) (stepResult, error) {
	gi := typeIndex(Float64)
	fn, err := h.request(opStepGet, hDoStep)
	if err != nil {
		return stepResult{}, err
	}
	h.u8(byte(hGet0 + gi))
	h.u8(hBoolStatus)
	h.u8(hRealStatus)
	h.f64(t)
	h.f64(step)
	h.vrs(vrs)
	h.u32(uint32(len(dst)))
	s, err := h.roundTrip(fn)
	if err != nil {
		return stepResult{}, err
	}
	which := h.rd.u8()
	term, last := h.stepReply()
	raw := h.rd.bytes()
	if err := h.done(fn); err != nil {
		return stepResult{}, err
	}
	if len(raw) != 8*len(dst) {
		return stepResult{}, h.broken(fn, fmt.Errorf("%d bytes for %d values", len(raw), len(dst)))
	}
	if which == 1 {
		fn = h.names[hGet0+gi]
		decodeValues(h.major, Float64, raw, dst, vrs)
	}
	if h.major == 2 {
		if which == 0 && s == StatusDiscard && term {
			return stepResult{terminate: true, last: last}, nil
		}
		return stepResult{last: math.NaN()}, h.status(fn, s)
	}
	return stepResult{terminate: term, last: last}, h.status(fn, s)
}

func (h *hostInstance) setTime(t float64) error {
	fn, err := h.request(opSetTime, hSetTime)
	if err != nil {
		return err
	}
	h.f64(t)
	return h.call(fn)
}

// array calls a function of shape (instance, double[], n): a set sends x,
// a get fills it.
func (h *hostInstance) array(slot int, get bool, x []float64) error {
	fn, err := h.request(opArray, slot)
	if err != nil {
		return err
	}
	h.bool(get)
	h.u32(uint32(len(x)))
	if !get {
		h.f64s(x)
	}
	s, err := h.roundTrip(fn)
	if err != nil {
		return err
	}
	if get {
		return h.values(fn, s, Float64, 8, nil, x)
	}
	return h.status(fn, s)
}

func (h *hostInstance) setContinuousStates(x []float64) error   { return h.array(hSetX, false, x) }
func (h *hostInstance) getContinuousStates(dst []float64) error { return h.array(hGetX, true, dst) }
func (h *hostInstance) getDerivatives(dst []float64) error      { return h.array(hDerivs, true, dst) }
func (h *hostInstance) getEventIndicators(dst []float64) error  { return h.array(hEvents, true, dst) }

func (h *hostInstance) updateDiscreteStates() (eventInfo, error) {
	fn, err := h.request(opUpdate, hUpdate)
	if err != nil {
		return eventInfo{}, err
	}
	s, err := h.roundTrip(fn)
	if err != nil {
		return eventInfo{}, err
	}
	var ev eventInfo
	ev.needUpdate, ev.terminate = h.rd.flag(), h.rd.flag()
	h.rd.flag() // nominalsOfContinuousStatesChanged
	ev.valuesChanged, ev.nextEventTimeOK = h.rd.flag(), h.rd.flag()
	ev.nextEventTime = h.rd.f64()
	if err := h.done(fn); err != nil {
		return eventInfo{}, err
	}
	return ev, h.status(fn, s)
}

func (h *hostInstance) completedIntegratorStep() (bool, bool, error) {
	fn, err := h.request(opCompleted, hCompleted)
	if err != nil {
		return false, false, err
	}
	s, err := h.roundTrip(fn)
	if err != nil {
		return false, false, err
	}
	enter, term := h.rd.flag(), h.rd.flag()
	if err := h.done(fn); err != nil {
		return false, false, err
	}
	return enter, term, h.status(fn, s)
}

func (h *hostInstance) directionalDerivative(unknowns, knowns []uint32, seed, dst []float64) error {
	fn, err := h.request(opDD, hDD)
	if err != nil {
		return err
	}
	h.vrs(unknowns)
	h.vrs(knowns)
	h.f64s(seed)
	h.u32(uint32(len(dst)))
	s, err := h.roundTrip(fn)
	if err != nil {
		return err
	}
	return h.values(fn, s, Float64, 8, nil, dst)
}

func (h *hostInstance) saveState(slot int) error {
	fn, err := h.request(opState, hGetState)
	if err != nil {
		return err
	}
	h.u8(byte(slot))
	err = h.call(fn)
	if err == nil {
		h.saved[slot] = true
	}
	return err
}

func (h *hostInstance) loadState(slot int) error {
	if !h.saved[slot] {
		return fmt.Errorf("fmi: no FMU state saved in slot %d", slot)
	}
	fn, err := h.request(opSetState, hSetState)
	if err != nil {
		return err
	}
	h.u8(byte(slot))
	return h.call(fn)
}

func (h *hostInstance) serializeState() ([]byte, error) {
	fns := [3]string{h.names[hGetState], h.names[hStateSize], h.names[hSerialize]}
	if err := h.begin(fns[0]); err != nil {
		return nil, err
	}
	h.op(opSerialize)
	h.u8(hGetState)
	h.u8(hStateSize)
	h.u8(hSerialize)
	h.u8(slotTemp)
	s, err := h.roundTrip(fns[0])
	if err != nil {
		return nil, err
	}
	which := int(h.rd.u8())
	data := h.rd.bytes()
	size := h.rd.f64()
	if err := h.done(fns[0]); err != nil {
		return nil, err
	}
	if which > 2 {
		return nil, h.broken(fns[0], fmt.Errorf("a serialization reply naming step %d", which))
	}
	if which > 0 {
		h.saved[slotTemp] = true
	}
	if err := h.status(fns[which], s); err != nil {
		return nil, err
	}
	if size > 1<<30 || which < 2 {
		return nil, fmt.Errorf("FMU %s (instance %s): %s reports %.0f bytes, more than cosim keeps (1 GiB)", h.fmu, h.name, fns[1], size)
	}
	return append([]byte(nil), data...), nil
}

func (h *hostInstance) deserializeState(data []byte) error {
	fns := [3]string{h.names[hFreeState], h.names[hDeserialize], h.names[hSetState]}
	if err := h.begin(fns[1]); err != nil {
		return err
	}
	h.op(opDeserialize)
	h.u8(hFreeState)
	h.u8(hDeserialize)
	h.u8(hSetState)
	h.u8(slotTemp)
	h.raw(data)
	s, err := h.roundTrip(fns[1])
	if err != nil {
		return err
	}
	which := int(h.rd.u8())
	if err := h.done(fns[1]); err != nil {
		return err
	}
	if which > 2 {
		return h.broken(fns[1], fmt.Errorf("a deserialization reply naming step %d", which))
	}
	h.saved[slotTemp] = which == 2 || which == 1 && s == StatusOK
	return h.status(fns[which], s)
}

func (h *hostInstance) free() {
	if h.freed {
		return
	}
	h.freed = true
	if h.dead == nil {
		// The host frees the saved states and the instance, unless a
		// function returned Fatal (then nothing of the FMU is called);
		// a FreeInstance that does not return is bounded like any call.
		if h.timeout <= 0 {
			h.timeout = freeTimeout
		}
		h.op(opFree)
		h.u8(hFree)
		h.u8(hFreeState)
		h.bool(!h.fatal)
		h.roundTrip(h.names[hFree])
	}
	h.reap(5 * time.Second)
}

// freeTimeout bounds FreeInstance of an isolated FMU without a timeout of
// its own: freeing must not hang Close.
const freeTimeout = 60 * time.Second

// processID returns the host process's id (for tests).
func (h *hostInstance) processID() int { return h.pid }
