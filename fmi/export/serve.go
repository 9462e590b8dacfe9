package export

import (
	"bufio"
	"fmt"
	"github.com/cosimgo/cosim/fmi"
	"io"

	"github.com/cosimgo/cosim/node"
)

// SceneFile is the scene an exported FMU carries, in its resources
// folder.
const SceneFile = "scene.json"

// ServeCommand is the first argument with which the process binary of an
// exported FMU starts the cosim program in its resources folder (cosim
// fmu-serve DIR).
const ServeCommand = "fmu-serve"

// Serve runs one instance of an exported FMU for its process binary: it
// answers the requests of the FMU's C library (protocol.go) on r and w
// until the library frees the instance or closes the connection, running
// the scene in resources/scene.json (resources is the FMU's resources
// folder) with the node types of reg, through an Instance. It returns
// nil when the instance was freed or the library went away between
// requests, and the protocol error otherwise; the errors of the scene's
// run are replies, not errors of Serve.
func Serve(r io.Reader, w io.Writer, resources string, reg *node.Registry) error {
	var logs []logEntry
	in := NewInstance(resources, reg, func(s fmi.CallStatus, cat, text string) {
		logs = append(logs, logEntry{uint32(s), cat, text})
	})
	defer in.Free()
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
		status := call(in, op, m, &res)
		if m.err != nil {
			return fmt.Errorf("request %d: %v", op, m.err)
		}
		if err := writeReply(bw, uint32(status), logs, res.b); err != nil {
			return err
		}
		logs = logs[:0]
		if op == opFree {
			return nil
		}
	}
}

// call decodes one request into the Instance's method and encodes its
// results. A request shorter than its fields sets m.err (Serve then
// fails); its status does not matter.
func call(in *Instance, op uint32, m *message, res *reply) fmi.CallStatus {
	switch op {
	case opInstantiate:
		version, token, name, logging := m.u32(), m.str(), m.str(), m.u8()
		if m.err != nil {
			return fmi.StatusFatal
		}
		if version != protocolVersion {
			return in.fail(fmi.StatusFatal, "the FMU's library speaks protocol %d, its cosim program %d: the FMU was assembled from different cosim versions", version, protocolVersion)
		}
		return in.Instantiate(token, name, logging != 0)
	case opDebugLogging:
		return in.SetDebugLogging(m.u8() != 0)
	case opEnterInit:
		tolDefined, tol, start, stopDefined, stop := m.u8(), m.f64(), m.f64(), m.u8(), m.f64()
		if m.err != nil {
			return fmi.StatusFatal
		}
		return in.EnterInitializationMode(tolDefined != 0, tol, start, stopDefined != 0, stop)
	case opExitInit:
		return in.ExitInitializationMode()
	case opSet, opGet:
		t := ValueType(m.u8())
		vrs := make([]uint32, m.count(4))
		for i := range vrs {
			vrs[i] = m.u32()
		}
		if op == opGet {
			out := make([]uint64, m.u32())
			if m.err != nil {
				return fmi.StatusFatal
			}
			s := in.Get(t, vrs, out)
			if s <= fmi.StatusWarning {
				for _, w := range out {
					res.word(w)
				}
			}
			return s
		}
		words := make([]uint64, m.count(8))
		for i := range words {
			words[i] = m.word()
		}
		if m.err != nil {
			return fmi.StatusFatal
		}
		return in.Set(t, vrs, words)
	case opDoStep:
		t, h := m.f64(), m.f64()
		if m.err != nil {
			return fmi.StatusFatal
		}
		s, last := in.DoStep(t, h)
		res.u8(0)
		res.f64(last)
		return s
	case opTerminate:
		return in.Terminate()
	case opReset:
		return in.Reset()
	case opGetState:
		id, s := in.GetState(m.u32())
		res.u32(id)
		return s
	case opSetState:
		return in.SetState(m.u32())
	case opFreeState:
		return in.FreeState(m.u32())
	case opSerialize:
		b, s := in.SerializeState(m.u32())
		if s <= fmi.StatusWarning {
			res.bytes(b)
		}
		return s
	case opDeserialize:
		data := m.take(int(m.u32()))
		if m.err != nil {
			return fmi.StatusFatal
		}
		id, s := in.DeserializeState(data)
		res.u32(id)
		return s
	case opFree:
		in.Free()
		return fmi.StatusOK
	}
	return in.fail(fmi.StatusFatal, "unknown request %d: the FMU's library and its cosim program do not match", op)
}
