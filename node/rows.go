package node

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"
	"weak"
)

// This file holds the one way a batch kernel keeps its members'
// parameters: a node holds them in a Published value, a kernel copies
// them into Rows, and every later Set on the node reaches every live copy.
// The node refers to the copies through weak pointers, so a batch that
// nobody uses any more (its graph's Sim was dropped, or the graph was
// built again) is collected like any other value: a node built into a
// thousand graphs one after the other holds no dead batch.

// Published holds a node's parameters of type P in the form its batch
// kernel reads them (a law of motion, a row of coefficients), and
// publishes each new value to every batch row that copied it
// ([NewRows]). A node embeds or holds one, reads its parameters with Get
// and changes them only with Set, which is what makes a batch see later
// SetParams calls.
//
// The zero value holds the zero P and no rows. A Published must not be
// copied after first use. Set is not safe for concurrent use with Get or
// with the kernels reading the rows (SetParams is called between runs);
// building rows ([NewRows]) is safe for concurrent use with other builds.
type Published[P any] struct {
	v  P
	mu sync.Mutex // guards one and more
	// one is a row registered with the value (its rows pointer nil when
	// none is, or when they were collected) and more the others: a node
	// is almost always in one batch, whose row then costs no allocation.
	one  rowRef[P]
	more *[]rowRef[P]
}

// rowRef is row i of some Rows, held weakly.
type rowRef[P any] struct {
	rows weak.Pointer[Rows[P]]
	i    int
}

// Get returns the current parameters. The value is the node's: read it,
// never write through it (change it with Set).
func (p *Published[P]) Get() *P { return &p.v }

// Set replaces the parameters with v and copies v into every live row
// that copied the old value. Rows whose batch has been collected are
// forgotten.
func (p *Published[P]) Set(v P) {
	p.v = v
	p.mu.Lock()
	defer p.mu.Unlock()
	p.visitLocked(func(r *Rows[P], i int) { r.put(i, &p.v) })
}

// visitLocked calls f (when not nil) for every registered row whose Rows
// are alive, and forgets the collected ones, shrinking the list when
// most of it was collected.
func (p *Published[P]) visitLocked(f func(r *Rows[P], i int)) {
	if r := p.one.rows.Value(); r == nil {
		p.one = rowRef[P]{}
	} else if f != nil {
		f(r, p.one.i)
	}
	if p.more == nil {
		return
	}
	subs := *p.more
	live := subs[:0]
	for _, s := range subs {
		if r := s.rows.Value(); r != nil {
			if f != nil {
				f(r, s.i)
			}
			live = append(live, s)
		}
	}
	clear(subs[len(live):])
	switch {
	case len(live) == 0:
		p.more = nil
	case cap(live) > 8 && len(live) < cap(live)/4:
		*p.more = append([]rowRef[P](nil), live...)
	default:
		*p.more = live
	}
}

// subscribe registers row i of the rows w points to.
func (p *Published[P]) subscribe(w weak.Pointer[Rows[P]], i int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ref := rowRef[P]{rows: w, i: i}
	if p.one.rows.Value() == nil {
		p.one = ref
		return
	}
	if p.more == nil {
		p.more = new([]rowRef[P])
	}
	if len(*p.more) == cap(*p.more) {
		p.pruneLocked()
		if p.more == nil {
			p.more = new([]rowRef[P])
		}
	}
	*p.more = append(*p.more, ref)
}

// prune forgets the rows that have been collected. It runs as the
// cleanup of every collected Rows (see Rows.subscribe), so that a node
// keeps no trace of a batch soon after the batch is collected.
func (p *Published[P]) prune() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pruneLocked()
}

func (p *Published[P]) pruneLocked() { p.visitLocked(nil) }

// registered returns the number of rows registered, collected or not,
// for tests.
func (p *Published[P]) registered() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	if p.one.rows != (weak.Pointer[Rows[P]]{}) {
		n++
	}
	if p.more != nil {
		n += len(*p.more)
	}
	return n
}

// live returns the number of rows registered and not yet collected, for
// tests.
func (p *Published[P]) live() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	if p.one.rows.Value() != nil {
		n++
	}
	if p.more != nil {
		for _, s := range *p.more {
			if s.rows.Value() != nil {
				n++
			}
		}
	}
	return n
}

// Rows are the parameters of a family's members, one row per member in
// member order, as a batch kernel reads them. Each row is a copy of the
// member's [Published] value that the member's Set keeps current: a
// kernel that reads its parameters only from Rows sees every SetParams
// by construction. A kernel holds its Rows (a pointer) for as long as it
// lives; the members hold them only weakly.
//
// A kernel reads the rows and never writes them. The methods are safe for
// concurrent use (they only read), but not with a member's Set.
type Rows[P any] struct {
	// p holds the rows; while shared, only row 0, which stands for all n.
	p []P
	n int
	// same, when set, says whether two rows hold equal parameters, and
	// uniform whether every row equals row 0 (see NewUniformRows).
	same    func(a, b *P) bool
	uniform bool
	// shared says that p holds one row for all: rows made by
	// NewUniformRows store one copy while they are uniform, so a family
	// of equal members keeps one set of parameters, not one per member.
	shared bool
}

// NewRows copies the parameters of every member — of(members[i]), which
// must be the member's own Published — into row i, and registers the
// rows with the members so that their Set reaches them.
func NewRows[P any](members []Node, of func(Node) *Published[P]) *Rows[P] {
	r := &Rows[P]{p: make([]P, len(members)), n: len(members)}
	r.subscribe(members, of)
	return r
}

// NewUniformRows is NewRows that also tracks whether every row holds the
// same parameters as row 0, by same (which must be an equivalence: equal
// parameters compute equal bits). A kernel may then read row 0 for every
// row (Walk returns a zero stride), so that a family of equal members
// moves no parameter bytes per row. While the rows are uniform they are
// stored once (At returns row 0 for every row, and Span, which would
// need a row per member, panics); a Set that makes any row differ from
// what it held clears the property for the rest of the batch's life and
// stores every row from then on (the rows not set hold row 0's value,
// equal to theirs under same).
func NewUniformRows[P any](members []Node, of func(Node) *Published[P], same func(a, b *P) bool) *Rows[P] {
	r := &Rows[P]{n: len(members), same: same, uniform: true}
	for i := 1; i < len(members) && r.uniform; i++ {
		r.uniform = same(&of(members[i]).v, &of(members[0]).v)
	}
	if r.uniform && len(members) > 1 {
		r.p, r.shared = make([]P, 1), true
	} else {
		r.p = make([]P, len(members))
	}
	r.subscribe(members, of)
	return r
}

// subscribe copies the members' parameters into the rows (only row 0's
// while shared) and registers each row with its member. When r is
// collected, a cleanup prunes the members' lists; it holds the members'
// Published values, never r.
func (r *Rows[P]) subscribe(members []Node, of func(Node) *Published[P]) {
	w := weak.Make(r)
	pubs := make([]*Published[P], len(members))
	for i, m := range members {
		pub := of(m)
		if i < len(r.p) {
			r.p[i] = pub.v
		}
		pub.subscribe(w, i)
		pubs[i] = pub
	}
	runtime.AddCleanup(r, func(pubs []*Published[P]) {
		for _, p := range pubs {
			p.prune()
		}
	}, pubs)
}

// put writes row i, clearing uniform when the row changes; shared rows
// are first stored one per member.
func (r *Rows[P]) put(i int, v *P) {
	if r.shared {
		if r.same(v, &r.p[0]) {
			return
		}
		p := make([]P, r.n)
		for k := range p {
			p[k] = r.p[0]
		}
		r.p, r.shared = p, false
	}
	if r.uniform && !r.same(v, &r.p[i]) {
		r.uniform = false
	}
	r.p[i] = *v
}

// Len is the number of rows.
func (r *Rows[P]) Len() int { return r.n }

// At returns row i (row 0 for every i while the rows are stored once).
func (r *Rows[P]) At(i int) *P {
	if r.shared {
		if uint(i) >= uint(r.n) {
			panic(fmt.Sprintf("node: row %d of %d", i, r.n))
		}
		return &r.p[0]
	}
	return &r.p[i]
}

// Span returns rows [lo, hi). It panics for uniform rows stored once
// (NewUniformRows): their kernels read them with Walk or At.
func (r *Rows[P]) Span(lo, hi int) []P {
	if r.shared {
		panic("node: Span of uniform rows stored once; read them with Walk or At")
	}
	return r.p[lo:hi:hi]
}

// Uniform reports whether every row holds row 0's parameters; always
// false for rows made by NewRows.
func (r *Rows[P]) Uniform() bool { return r.uniform }

// Walk returns the address of the parameters of row lo and the distance
// in bytes from one row's to the next's, for a kernel that addresses row
// lo+k at unsafe.Add(p, k·stride) without per-row bounds checks: the
// rows [lo, hi) are checked once, here. When the rows are uniform it
// returns row 0 and a stride of 0. It panics when lo >= hi or the rows
// are out of range.
func (r *Rows[P]) Walk(lo, hi int) (p unsafe.Pointer, stride uintptr) {
	if r.shared {
		if lo < 0 || lo >= hi || hi > r.n {
			panic(fmt.Sprintf("node: Walk(%d, %d) of %d rows", lo, hi, r.n))
		}
		return unsafe.Pointer(&r.p[0]), 0
	}
	ps := r.p[lo:hi]
	first := &ps[0]
	if r.uniform {
		return unsafe.Pointer(&r.p[0]), 0
	}
	return unsafe.Pointer(first), unsafe.Sizeof(ps[0])
}
