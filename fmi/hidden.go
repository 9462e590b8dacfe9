package fmi

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
)

// The node.HiddenState capability of both node types: the FMU's state
// serialized (fmi3SerializeFMUState) with the node's own bookkeeping, so
// that a graph checkpoint holding an FMU resumes bit for bit.
//
// A snapshot is: the magic line "cosim-fmu-state\n", a format version
// (uint32, little endian), the FMU's instantiation token and the
// interface (each a uint32 length and bytes), the node's bookkeeping as
// float64s (a uint32 count, then the values), and the FMU's serialized
// state (a uint64 length and bytes).

const hiddenMagic = "cosim-fmu-state\n"

const hiddenVersion = 1

func (b *base) encodeHidden(book []float64, state []byte) []byte {
	var w bytes.Buffer
	w.WriteString(hiddenMagic)
	le := binary.LittleEndian
	w.Write(le.AppendUint32(nil, hiddenVersion))
	for _, s := range []string{b.md.Token, string(b.k)} {
		w.Write(le.AppendUint32(nil, uint32(len(s))))
		w.WriteString(s)
	}
	w.Write(le.AppendUint32(nil, uint32(len(book))))
	for _, x := range book {
		w.Write(le.AppendUint64(nil, math.Float64bits(x)))
	}
	w.Write(le.AppendUint64(nil, uint64(len(state))))
	w.Write(state)
	return w.Bytes()
}

// decodeHidden checks a snapshot against the node and splits it.
func (b *base) decodeHidden(data []byte, nbook int) ([]float64, []byte, error) {
	bad := func(why string) ([]float64, []byte, error) {
		return nil, nil, b.stateError("the checkpoint's snapshot of the FMU %s", why)
	}
	r := bytes.NewReader(data)
	magic := make([]byte, len(hiddenMagic))
	if _, err := r.Read(magic); err != nil || string(magic) != hiddenMagic {
		return bad("is not a cosim FMU snapshot")
	}
	le := binary.LittleEndian
	var v uint32
	if binary.Read(r, le, &v) != nil || v != hiddenVersion {
		return bad(fmt.Sprintf("has format version %d; this cosim reads %d", v, hiddenVersion))
	}
	str := func() (string, bool) {
		var n uint32
		if binary.Read(r, le, &n) != nil || int(n) > r.Len() {
			return "", false
		}
		s := make([]byte, n)
		_, err := r.Read(s)
		return string(s), err == nil || n == 0
	}
	token, ok := str()
	if !ok {
		return bad("is truncated")
	}
	if token != b.md.Token {
		return bad(fmt.Sprintf("is of the FMU with instantiation token %s, not %s (%s)", token, b.md.Token, b.md.ModelName))
	}
	k, ok := str()
	if !ok {
		return bad("is truncated")
	}
	if k != string(b.k) {
		return bad(fmt.Sprintf("is of its %s interface, the node uses %s", k, b.k))
	}
	var nb uint32
	if binary.Read(r, le, &nb) != nil || int(nb) != nbook {
		return bad(fmt.Sprintf("holds %d bookkeeping values, the node %d", nb, nbook))
	}
	book := make([]float64, nb)
	for i := range book {
		var u uint64
		if binary.Read(r, le, &u) != nil {
			return bad("is truncated")
		}
		book[i] = math.Float64frombits(u)
	}
	var ns uint64
	if binary.Read(r, le, &ns) != nil || ns != uint64(r.Len()) {
		return bad("is truncated or has trailing data")
	}
	state := make([]byte, ns)
	r.Read(state)
	return book, state, nil
}

// serializable reports why the FMU's state cannot be serialized.
func (b *base) serializable() error {
	it := b.md.Interface(b.k)
	if !it.CanSerializeFMUState {
		what := "canSerializeFMUState"
		if b.md.Major == 2 {
			what = "canSerializeFMUstate"
		}
		return b.stateError("it cannot serialize its state (%s is false in its modelDescription.xml), so a checkpoint of a graph holding it cannot be taken", what)
	}
	return b.usable()
}

// restoreFMU puts a serialized FMU state back, re-initializing an FMU
// that failed first (the standard allows Reset after an error).
func (b *base) restoreFMU(state []byte) error {
	if b.closed {
		return b.usable()
	}
	if b.failed != nil {
		if _, err := b.reinitialize(); err != nil {
			return b.at(err, b.t0)
		}
	}
	if err := b.inst.deserializeState(state); err != nil {
		return b.at(err, math.NaN())
	}
	b.failed = nil
	b.res.terminable = true
	b.inSet = false
	return nil
}

// AllowRestep lets a graph step the node again from the start of a step
// (iterated coupling groups): the FMU's state is then saved before every
// step (fmi3GetFMUState). An FMU without canGetAndSetFMUState cannot be.
func (b *base) AllowRestep() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.md.Interface(b.k).CanGetAndSetFMUState {
		what := "canGetAndSetFMUState"
		if b.md.Major == 2 {
			what = "canGetAndSetFMUstate"
		}
		return b.stateError("it cannot get and set its state (%s is false in its modelDescription.xml), so it cannot be stepped again from the start of a step", what)
	}
	b.restep = true
	return nil
}

// SaveHidden serializes the FMU's state at the communication point the
// graph holds.
func (n *CoSimNode) SaveHidden() ([]byte, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.serializable(); err != nil {
		return nil, err
	}
	if !n.cur {
		return nil, n.stateError("its state is not one the graph holds (a step failed), so it cannot be saved")
	}
	state, err := n.inst.serializeState()
	if err != nil {
		return nil, n.at(err, n.xc[0])
	}
	return n.encodeHidden(append(append([]float64(nil), n.xc...), n.term), state), nil
}

// RestoreHidden puts a state saved by SaveHidden back.
func (n *CoSimNode) RestoreHidden(data []byte) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	book, state, err := n.decodeHidden(data, len(n.xc)+1)
	if err != nil {
		return err
	}
	if err := n.restoreFMU(state); err != nil {
		return err
	}
	copy(n.xc, book[:len(n.xc)])
	n.term = book[len(n.xc)]
	n.cur = true
	n.pre.ok, n.memo.ok, n.omemo.ok = false, false, false
	return nil
}

// SaveHidden serializes the FMU's state and its event bookkeeping.
func (n *ModelExchangeNode) SaveHidden() ([]byte, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.serializable(); err != nil {
		return nil, err
	}
	if err := n.latest(); err != nil {
		return nil, err
	}
	state, err := n.inst.serializeState()
	if err != nil {
		return nil, n.at(err, n.d.from)
	}
	return n.encodeHidden([]float64{n.d.from, n.d.next, n.d.prev, float64(n.d.k), n.term}, state), nil
}

// RestoreHidden puts a state saved by SaveHidden back.
func (n *ModelExchangeNode) RestoreHidden(data []byte) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	book, state, err := n.decodeHidden(data, 5)
	if err != nil {
		return err
	}
	if err := n.restoreFMU(state); err != nil {
		return err
	}
	n.d = discrete{from: book[0], until: math.Inf(1), next: book[1], prev: book[2], k: int(book[3])}
	n.term = book[4]
	n.tSet, n.xSet = false, false
	n.pre.ok, n.memo.ok, n.evPre.ok, n.evPost.ok = false, false, false, false
	return nil
}
