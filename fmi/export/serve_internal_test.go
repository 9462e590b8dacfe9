package export

import (
	"bufio"
	"encoding/binary"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// client speaks the protocol to Serve as the FMU's C binary does.
type client struct {
	t     testing.TB
	w     io.WriteCloser
	r     *bufio.Reader
	done  chan error
	token string
}

type result struct {
	status uint32
	logs   []logEntry
	m      *message
}

func (r result) text() string {
	var b strings.Builder
	for _, l := range r.logs {
		b.WriteString(l.text + "\n")
	}
	return b.String()
}

// serve starts Serve on the oscillator scene and returns a client with
// the scene's token.
func serve(t testing.TB) *client {
	data, err := os.ReadFile("testdata/oscillator.json")
	if err != nil {
		t.Fatal(err)
	}
	return serveScene(t, data)
}

// resourcesOf writes the scene file data as an FMU's resources folder
// and returns the folder and the FMU's model.
func resourcesOf(t testing.TB, data []byte) (string, *Model) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, SceneFile)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	reg := nodes.Registry()
	sc, err := scene.LoadFile(path, reg)
	if err != nil {
		t.Fatal(err)
	}
	g, err := sc.Build(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := newModel(sc, g, data, "")
	closeGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	return dir, m
}

// serveScene starts Serve on the scene file data.
func serveScene(t testing.TB, data []byte) *client {
	dir, m := resourcesOf(t, data)
	reg := nodes.Registry()
	reqR, reqW := io.Pipe()
	repR, repW := io.Pipe()
	c := &client{t: t, w: reqW, r: bufio.NewReader(repR), done: make(chan error, 1), token: m.Token}
	go func() {
		err := Serve(reqR, repW, dir, reg)
		repW.Close()
		c.done <- err
	}()
	t.Cleanup(func() {
		reqW.Close()
		if err := <-c.done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return c
}

func (c *client) call(op uint32, payload []byte) result {
	c.t.Helper()
	var h [8]byte
	binary.LittleEndian.PutUint32(h[:4], op)
	binary.LittleEndian.PutUint32(h[4:], uint32(len(payload)))
	if _, err := c.w.Write(append(h[:], payload...)); err != nil {
		c.t.Fatal(err)
	}
	if _, err := io.ReadFull(c.r, h[:]); err != nil {
		c.t.Fatal(err)
	}
	body := make([]byte, binary.LittleEndian.Uint32(h[4:]))
	if _, err := io.ReadFull(c.r, body); err != nil {
		c.t.Fatal(err)
	}
	m := &message{b: body}
	res := result{status: binary.LittleEndian.Uint32(h[:4]), m: m}
	for n := m.u32(); n > 0; n-- {
		res.logs = append(res.logs, logEntry{m.u32(), m.str(), m.str()})
	}
	return res
}

func (c *client) instantiate(token string) result {
	var r reply
	r.u32(protocolVersion)
	r.bytes([]byte(token))
	r.bytes([]byte("inst"))
	r.u8(0)
	return c.call(opInstantiate, r.b)
}

// start instantiates and initializes the FMU with the stop time stop
// (none when 0), checking every status.
func (c *client) start(stop float64) {
	c.t.Helper()
	c.ok(c.instantiate(c.token))
	var r reply
	r.u8(0)
	r.f64(0)
	r.f64(0)
	if stop > 0 {
		r.u8(1)
	} else {
		r.u8(0)
	}
	r.f64(stop)
	c.ok(c.call(opEnterInit, r.b))
	c.ok(c.call(opExitInit, nil))
}

func (c *client) ok(r result) result {
	c.t.Helper()
	if r.status != uint32(fmi.StatusOK) {
		c.t.Fatalf("status %d: %s", r.status, r.text())
	}
	return r
}

func (c *client) set(vr uint32, x ...float64) result {
	var r reply
	r.u8(byte(TypeFloat64))
	r.u32(1)
	r.u32(vr)
	r.u32(uint32(len(x)))
	for _, v := range x {
		r.f64(v)
	}
	return c.call(opSet, r.b)
}

func (c *client) get(vr uint32, n int) []float64 {
	c.t.Helper()
	var r reply
	r.u8(byte(TypeFloat64))
	r.u32(1)
	r.u32(vr)
	r.u32(uint32(n))
	res := c.ok(c.call(opGet, r.b))
	x := make([]float64, n)
	for i := range x {
		x[i] = res.m.f64()
	}
	return x
}

func (c *client) step(t, h float64) result {
	var r reply
	r.f64(t)
	r.f64(h)
	return c.call(opDoStep, r.b)
}

// The oscillator's value references (time, parameters, inputs, outputs).
const (
	vrM, vrK, vrF, vrX, vrY = 1, 2, 3, 4, 5
)

func TestServeRefusesAnotherToken(t *testing.T) {
	c := serve(t)
	r := c.instantiate("{00000000-0000-0000-0000-000000000000}")
	if r.status != uint32(fmi.StatusFatal) || !strings.Contains(r.text(), "instantiation token") {
		t.Errorf("status %d, %q: want Fatal naming the instantiation token", r.status, r.text())
	}
}

// TestServeErrorsAreLogged triggers the errors a master can cause and
// checks that each is an Error whose logged message names the call and
// the variable (and the time, for a step), and that a refused call
// changes nothing.
func TestServeErrorsAreLogged(t *testing.T) {
	c := serve(t)
	c.ok(c.instantiate(c.token))
	for _, tc := range []struct {
		r    result
		want []string
	}{
		{c.step(0, 0.001), []string{"fmi3DoStep", "Instantiated"}},
		{c.set(vrM, -1), []string{"fmi3SetFloat64", "m = -1 is below its min 0"}},
		{c.set(vrX, 1, 2, 3), []string{"fmi3SetFloat64", "x", "only parameters and inputs"}},
		{c.set(vrF, 1, 2), []string{"fmi3SetFloat64", "2 values", "3"}},
		{c.set(99, 1), []string{"value reference 99"}},
	} {
		if tc.r.status != uint32(fmi.StatusError) {
			t.Errorf("status %d (%s), want Error", tc.r.status, tc.r.text())
		}
		for _, w := range tc.want {
			if !strings.Contains(tc.r.text(), w) {
				t.Errorf("%q does not say %q", tc.r.text(), w)
			}
		}
	}
	if m := c.get(vrM, 1); m[0] != 5 {
		t.Errorf("m = %v after refused sets, want the start 5", m[0])
	}
	var r reply
	r.u8(0)
	r.f64(0)
	r.f64(0)
	r.u8(0)
	r.f64(0)
	c.ok(c.call(opEnterInit, r.b))
	c.ok(c.call(opExitInit, nil))
	if r := c.set(vrF, 0, math.NaN(), 0); r.status != uint32(fmi.StatusError) || !strings.Contains(r.text(), "F[1] = NaN at t = 0") {
		t.Errorf("a NaN input: status %d, %q", r.status, r.text())
	}
	if r := c.step(0.3, 0.001); r.status != uint32(fmi.StatusError) || !strings.Contains(r.text(), "currentCommunicationPoint = 0.3") {
		t.Errorf("a step from the wrong time: status %d, %q", r.status, r.text())
	}
	// A mass of 1e-9 kg on a 5000 N/m spring stepped at 1 ms is far past
	// the explicit step's stability bound: the state overflows, and the
	// step that produces a non-finite value fails with the run's error.
	c.ok(c.set(vrM, 1e-9))
	var res result
	tt := 0.0
	for i := 0; i < 500; i++ {
		if res = c.step(tt, 0.001); res.status != uint32(fmi.StatusOK) {
			break
		}
		tt += 0.001
	}
	if res.status != uint32(fmi.StatusError) || !strings.Contains(res.text(), "fmi3DoStep from t = ") {
		t.Fatalf("diverging run: status %d, %q", res.status, res.text())
	}
	t.Logf("the diverging step's error: %s", res.text())
	if r := c.step(tt, 0.001); r.status != uint32(fmi.StatusError) || !strings.Contains(r.text(), "a failed step") {
		t.Errorf("a step after the failed one: status %d, %q", r.status, r.text())
	}
	c.ok(c.call(opReset, nil))
	if m := c.get(vrM, 1); m[0] != 5 {
		t.Errorf("m = %v after Reset, want the start 5", m[0])
	}
}

// TestServeStatesResumeBitForBit takes an FMU state, steps on, returns
// to the state (directly, and through its serialized bytes) and steps
// again: the same bits as the first time, since the state is a graph
// checkpoint with the FMU's inputs and parameters.
func TestServeStatesResumeBitForBit(t *testing.T) {
	c := serve(t)
	c.start(0.5)
	tt := 0.0
	run := func(n int) {
		for range n {
			c.ok(c.step(tt, 0.001))
			tt += 0.001
		}
	}
	c.ok(c.set(vrF, 0, 1.5, 0))
	run(100)
	var r reply
	r.u32(0)
	id := c.ok(c.call(opGetState, r.b)).m.u32()
	t0 := tt
	c.ok(c.set(vrF, 0, -3, 0))
	c.ok(c.set(vrK, 4000, 4000, 4000))
	run(100)
	want := c.get(vrX, 3)
	var s reply
	s.u32(id)
	data := c.ok(c.call(opSerialize, s.b)).m
	blob := data.take(int(data.u32()))
	for _, how := range []string{"state", "serialized"} {
		sid := id
		if how == "serialized" {
			var d reply
			d.bytes(blob)
			sid = c.ok(c.call(opDeserialize, d.b)).m.u32()
		}
		var q reply
		q.u32(sid)
		c.ok(c.call(opSetState, q.b))
		if f := c.get(vrF, 3); f[1] != 1.5 {
			t.Errorf("%s: F = %v after restoring, want the state's [0 1.5 0]", how, f)
		}
		tt = t0
		c.ok(c.set(vrF, 0, -3, 0))
		c.ok(c.set(vrK, 4000, 4000, 4000))
		run(100)
		got := c.get(vrX, 3)
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Errorf("%s: x[%d] = %v, want %v", how, i, got[i], want[i])
			}
		}
	}
	var d reply
	d.bytes([]byte("garbage"))
	if r := c.call(opDeserialize, d.b); r.status != uint32(fmi.StatusError) || !strings.Contains(r.text(), "not a state of this FMU") {
		t.Errorf("garbage state: status %d, %q", r.status, r.text())
	}
}

// words sets or gets values of an Int64 or Boolean variable.
func (c *client) setWords(typ byte, vr uint32, w ...uint64) result {
	var r reply
	r.u8(typ)
	r.u32(1)
	r.u32(vr)
	r.u32(uint32(len(w)))
	for _, x := range w {
		r.word(x)
	}
	return c.call(opSet, r.b)
}

func (c *client) getWord(typ byte, vr uint32) (uint64, result) {
	var r reply
	r.u8(typ)
	r.u32(1)
	r.u32(vr)
	r.u32(1)
	res := c.call(opGet, r.b)
	if res.status != uint32(fmi.StatusOK) {
		return 0, res
	}
	return res.m.word(), res
}

// TestServeIntegerAndBooleanParameters exposes the spring-damper's
// Boolean "active" and integer "item" as FMU parameters (Boolean and
// Int64 variables): their values read and set through their own types,
// another type refused, and switching the spring off between steps
// (a tunable parameter) makes its force zero from the next step on.
func TestServeIntegerAndBooleanParameters(t *testing.T) {
	data, err := os.ReadFile("testdata/oscillator.json")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), `"parameters": [{"name": "m", "param": "mass.mass"}, {"name": "k", "param": "spring.stiffness"}]`,
		`"parameters": [{"name": "active", "param": "spring.active"}, {"name": "item", "param": "spring.item_number"}]`, 1)
	c := serveScene(t, []byte(text))
	c.ok(c.instantiate(c.token))
	const vrActive, vrItem, vrForce = 1, 2, 6 // time, active, item, F, x, y, spring.force
	if w, r := c.getWord(byte(TypeBoolean), vrActive); r.status != uint32(fmi.StatusOK) || w != 1 {
		t.Errorf("active = %d (%s), want 1 (true, the default)", w, r.text())
	}
	c.ok(c.setWords(byte(TypeInt64), vrItem, uint64(^uint64(6)))) // -7
	if w, r := c.getWord(byte(TypeInt64), vrItem); r.status != uint32(fmi.StatusOK) || int64(w) != -7 {
		t.Errorf("item = %d (%s), want -7", int64(w), r.text())
	}
	if r := c.set(vrItem, 1); r.status != uint32(fmi.StatusError) || !strings.Contains(r.text(), "is of type Int64") {
		t.Errorf("item set as Float64: status %d, %q", r.status, r.text())
	}
	var r reply
	r.u8(0)
	r.f64(0)
	r.f64(0)
	r.u8(0)
	r.f64(0)
	c.ok(c.call(opEnterInit, r.b))
	c.ok(c.call(opExitInit, nil))
	c.ok(c.step(0, 0.001))
	if f := c.get(vrForce, 3); f[1] == 0 {
		t.Fatalf("spring force %v with the spring on", f)
	}
	c.ok(c.setWords(byte(TypeBoolean), vrActive, 0))
	c.ok(c.step(0.001, 0.001))
	if f := c.get(vrForce, 3); f[0] != 0 || f[1] != 0 || f[2] != 0 {
		t.Errorf("spring force %v after switching it off, want 0", f)
	}
}

// BenchmarkServeDoStep is the cost of fmi3DoStep (one scene step) and
// fmi3GetFloat64 of an output in Serve, over an in-memory pipe: the
// export's server side without the process switch.
func BenchmarkServeDoStep(b *testing.B) {
	c := serve(b)
	c.start(0)
	tt := 0.0
	b.ReportAllocs()
	for b.Loop() {
		c.ok(c.step(tt, 0.001))
		tt += 0.001
		c.get(vrY, 1)
	}
}
