package export

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// This file is the wire protocol between an exported FMU's C library
// (shim/fmu.c) and the cosim process that runs the scene (Serve). The
// library starts one process per instance and speaks to it over a Unix
// socket pair (the process's standard input and output). Every request is
//
//	u32 op, u32 payload length, payload
//
// and every reply
//
//	u32 status (fmi3Status: 0 OK … 4 Fatal), u32 payload length,
//	u32 number of log messages, each (u32 status, string category,
//	string message), then the op's results.
//
// Integers are little-endian (the library and the process run on one
// machine; the FMU carries x86_64-linux or aarch64-linux binaries, both
// little-endian), strings a u32 length and the bytes, values 8-byte
// words: a Float64 variable's IEEE bits, an Int64 variable's two's
// complement, a Boolean's 0 or 1; a type is a ValueType, a status an
// fmi.CallStatus (fmi3Status's numbers). The numbers below are shim/fmu.c's.

const protocolVersion = 1

const (
	opInstantiate  = 1  // u32 version, string token, string instance name, u8 logging on → –
	opEnterInit    = 2  // u8 tolerance defined, f64 tolerance, f64 start, u8 stop defined, f64 stop → –
	opExitInit     = 3  // → –
	opSet          = 4  // u8 type, u32 n, u32 vr[n], u32 m, word v[m] → –
	opGet          = 5  // u8 type, u32 n, u32 vr[n], u32 m → word v[m]
	opDoStep       = 6  // f64 t, f64 h → u8 terminate, f64 last successful time
	opTerminate    = 7  // → –
	opReset        = 8  // → –
	opGetState     = 9  // u32 id (0: a new state) → u32 id
	opSetState     = 10 // u32 id → –
	opFreeState    = 11 // u32 id → –
	opSerialize    = 12 // u32 id → bytes
	opDeserialize  = 13 // bytes → u32 id
	opFree         = 14 // → – (the process exits after replying)
	opDebugLogging = 15 // u8 on → –
	maxPayload     = 1 << 30
)

// message is a reader over one request's payload: reads past the end
// set err, and every later read returns zero.
type message struct {
	b   []byte
	err error
}

func (m *message) take(n int) []byte {
	if m.err != nil {
		return nil
	}
	if n < 0 || n > len(m.b) {
		m.err = errors.New("request shorter than its fields")
		return nil
	}
	b := m.b[:n]
	m.b = m.b[n:]
	return b
}

func (m *message) u8() byte {
	if b := m.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (m *message) u32() uint32 {
	if b := m.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (m *message) word() uint64 {
	if b := m.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (m *message) f64() float64 { return math.Float64frombits(m.word()) }

func (m *message) str() string { return string(m.take(int(m.u32()))) }

// count reads a u32 count of items of size bytes each, refusing one the
// payload cannot hold.
func (m *message) count(size int) int {
	n := int(m.u32())
	if m.err == nil && n*size > len(m.b) {
		m.err = fmt.Errorf("request announces %d values and holds %d bytes", n, len(m.b))
		return 0
	}
	return n
}

// reply builds one reply's results.
type reply struct{ b []byte }

func (r *reply) u8(x byte)     { r.b = append(r.b, x) }
func (r *reply) u32(x uint32)  { r.b = binary.LittleEndian.AppendUint32(r.b, x) }
func (r *reply) word(x uint64) { r.b = binary.LittleEndian.AppendUint64(r.b, x) }
func (r *reply) f64(x float64) { r.word(math.Float64bits(x)) }
func (r *reply) bytes(p []byte) {
	r.u32(uint32(len(p)))
	r.b = append(r.b, p...)
}

// readRequest reads one request; io.EOF when the library closed the
// connection between requests.
func readRequest(r *bufio.Reader) (op uint32, payload []byte, err error) {
	var h [8]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	op = binary.LittleEndian.Uint32(h[:4])
	n := binary.LittleEndian.Uint32(h[4:])
	if n > maxPayload {
		return 0, nil, fmt.Errorf("request %d announces %d bytes", op, n)
	}
	payload = make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		return 0, nil, fmt.Errorf("request %d cut short: %w", op, err)
	}
	return op, payload, nil
}

// logEntry is a message for the FMU's logger.
type logEntry struct {
	status   uint32
	category string
	text     string
}

// writeReply writes one reply: status, the logged messages and results.
func writeReply(w *bufio.Writer, status uint32, logs []logEntry, results []byte) error {
	var r reply
	r.u32(uint32(len(logs)))
	for _, l := range logs {
		r.u32(l.status)
		r.bytes([]byte(l.category))
		r.bytes([]byte(l.text))
	}
	r.b = append(r.b, results...)
	var h [8]byte
	binary.LittleEndian.PutUint32(h[:4], status)
	binary.LittleEndian.PutUint32(h[4:], uint32(len(r.b)))
	w.Write(h[:])
	w.Write(r.b)
	return w.Flush()
}
