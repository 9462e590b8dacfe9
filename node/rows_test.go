package node

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"testing"
	"time"
	"unsafe"
	"weak"
)

// law is a parameter row for the tests: what a mass point's kernel reads.
type law struct {
	mass    float64
	gravity [3]float64
}

// pubNode is a node holding its parameters in a Published, as the node
// packages do.
type pubNode struct {
	Stateless
	law Published[law]
}

func (*pubNode) Spec() *Spec { return nil }

func lawOf(n Node) *Published[law] { return &n.(*pubNode).law }

func newPubNodes(n int, mass func(i int) float64) []Node {
	ns := make([]Node, n)
	for i := range ns {
		p := &pubNode{}
		p.law.Set(law{mass: mass(i), gravity: [3]float64{0, -9.81, 0}})
		ns[i] = p
	}
	return ns
}

// TestRowsSeeSet: a row is a copy of its member's parameters at NewRows,
// and every later Set on the member reaches it; other rows keep theirs.
func TestRowsSeeSet(t *testing.T) {
	ms := newPubNodes(4, func(i int) float64 { return float64(i + 1) })
	r := NewRows(ms, lawOf)
	if r.Len() != 4 || r.Uniform() {
		t.Fatalf("Len, Uniform = %d, %v; want 4, false", r.Len(), r.Uniform())
	}
	for i := range 4 {
		if got := r.At(i).mass; got != float64(i+1) {
			t.Errorf("row %d: mass %v, want %v", i, got, i+1)
		}
	}
	ms[2].(*pubNode).law.Set(law{mass: 30})
	if got := r.At(2).mass; got != 30 {
		t.Errorf("after Set: row 2 mass %v, want 30", got)
	}
	if got := ms[2].(*pubNode).law.Get().mass; got != 30 {
		t.Errorf("after Set: Get().mass = %v, want 30", got)
	}
	if got := r.Span(1, 4); len(got) != 3 || got[0].mass != 2 || got[1].mass != 30 || got[2].mass != 4 {
		t.Errorf("Span(1, 4) = %v, want masses 2, 30, 4", got)
	}
	// A second batch of the same members sees the same Set, and so does
	// the first.
	r2 := NewRows(ms, lawOf)
	ms[0].(*pubNode).law.Set(law{mass: 10})
	if r.At(0).mass != 10 || r2.At(0).mass != 10 {
		t.Errorf("after Set: rows 0 = %v, %v; want mass 10 in both", *r.At(0), *r2.At(0))
	}
	runtime.KeepAlive(r)
	runtime.KeepAlive(r2)
}

// TestUniformRows: the rows are uniform while every row equals row 0;
// a Set that changes a row clears it, one that keeps the value does
// not. Walk then returns row 0 and stride 0, else row lo and the size
// of a row.
func TestUniformRows(t *testing.T) {
	same := func(a, b *law) bool { return *a == *b }
	ms := newPubNodes(5, func(int) float64 { return 2 })
	r := NewUniformRows(ms, lawOf, same)
	if !r.Uniform() {
		t.Fatal("equal members: not uniform")
	}
	p, stride := r.Walk(2, 5)
	if p != unsafe.Pointer(r.At(0)) || stride != 0 {
		t.Errorf("uniform Walk(2, 5) = %p, %d; want row 0 (%p), 0", p, stride, r.At(0))
	}
	ms[3].(*pubNode).law.Set(*ms[3].(*pubNode).law.Get())
	if !r.Uniform() {
		t.Error("a Set of the same value cleared uniform")
	}
	if len(r.p) != 1 || r.Len() != 5 || r.At(4) != r.At(0) {
		t.Errorf("uniform rows store %d rows for Len %d (At(4) %p, At(0) %p); want one row for 5", len(r.p), r.Len(), r.At(4), r.At(0))
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Span of uniform rows stored once did not panic")
			}
		}()
		r.Span(0, 2)
	}()
	ms[3].(*pubNode).law.Set(law{mass: 3})
	if r.Uniform() {
		t.Error("a Set of another value left the rows uniform")
	}
	for i, want := range []float64{2, 2, 2, 3, 2} {
		if got := r.At(i).mass; got != want || len(r.p) != 5 {
			t.Errorf("after the Set that broke uniform: row %d mass %v of %d stored rows; want %v of 5", i, got, len(r.p), want)
		}
	}
	p, stride = r.Walk(2, 5)
	if p != unsafe.Pointer(r.At(2)) || stride != unsafe.Sizeof(law{}) {
		t.Errorf("Walk(2, 5) = %p, %d; want row 2 (%p), %d", p, stride, r.At(2), unsafe.Sizeof(law{}))
	}
	if u := NewUniformRows(newPubNodes(3, func(i int) float64 { return float64(i%2 + 1) }), lawOf, same); u.Uniform() {
		t.Error("different members: uniform")
	}
	for _, c := range [][2]int{{2, 2}, {3, 6}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Walk(%d, %d) did not panic", c[0], c[1])
				}
			}()
			r.Walk(c[0], c[1])
		}()
	}
}

// TestRowsCollected: the members hold their rows only weakly. Building
// rows for the same members a thousand times, each dropped at once,
// leaves the members with no live row after a collection, collects
// every Rows, and keeps the heap flat; a row that is still referenced
// stays registered.
func TestRowsCollected(t *testing.T) {
	ms := newPubNodes(64, func(i int) float64 { return float64(i + 1) })
	kept := NewRows(ms, lawOf)
	var weaks []weak.Pointer[Rows[law]]
	// heap is the live heap once the collected rows' cleanups, which
	// run on their own goroutine after a collection, have pruned the
	// members' lists and have all run (each holds its members until it
	// runs): collections until the lists are pruned and the heap stops
	// shrinking.
	heap := func() uint64 {
		deadline := time.Now().Add(10 * time.Second)
		var st runtime.MemStats
		last := uint64(math.MaxUint64)
		for {
			runtime.GC()
			time.Sleep(2 * time.Millisecond)
			pruned := true
			for _, m := range ms {
				pruned = pruned && m.(*pubNode).law.registered() == 1
			}
			runtime.ReadMemStats(&st)
			if pruned && st.HeapAlloc >= last || time.Now().After(deadline) {
				return st.HeapAlloc
			}
			last = st.HeapAlloc
		}
	}
	build := func(n int) {
		for range n {
			r := NewRows(ms, lawOf)
			if len(weaks) < 100 {
				weaks = append(weaks, weak.Make(r))
			}
		}
	}
	build(10)
	before := heap()
	build(1000)
	after := heap()
	for i, w := range weaks {
		if w.Value() != nil {
			t.Fatalf("Rows %d of the dropped builds is still reachable after GC", i)
		}
	}
	// The rows of one build are 64·32 bytes; a thousand kept alive would
	// be 2 MB. The bound leaves room for the runtime's own noise.
	if after > before+256<<10 {
		t.Errorf("heap grew from %d to %d bytes over 1000 dropped builds", before, after)
	}
	for i, m := range ms {
		p := &m.(*pubNode).law
		registered := p.registered()
		if n := p.live(); n != 1 || registered != 1 {
			t.Fatalf("member %d: %d live rows, %d registered; want 1 and 1 (the kept batch)", i, n, registered)
		}
	}
	ms[5].(*pubNode).law.Set(law{mass: 50})
	if kept.At(5).mass != 50 {
		t.Errorf("the kept rows missed a Set: row 5 mass %v, want 50", kept.At(5).mass)
	}
	runtime.KeepAlive(kept)
}

// TestRowsConcurrentBuild: rows of the same members may be built
// concurrently (two graphs built at once); run under -race.
func TestRowsConcurrentBuild(t *testing.T) {
	ms := newPubNodes(16, func(i int) float64 { return float64(i + 1) })
	var wg sync.WaitGroup
	rows := make([]*Rows[law], 8)
	for g := range rows {
		wg.Go(func() { rows[g] = NewRows(ms, lawOf) })
	}
	wg.Wait()
	ms[7].(*pubNode).law.Set(law{mass: 70})
	for g, r := range rows {
		if r.At(7).mass != 70 {
			t.Errorf("rows %d: row 7 mass %v, want 70", g, r.At(7).mass)
		}
	}
}

// TestUniformRowsStoredOnceBounds: rows stored once still check their
// indices as rows stored one per member do: At(n) panics instead of
// returning row 0, and Walk takes exactly the documented ranges — [0, n)
// and every non-empty range inside it — and panics for an empty range or
// one that leaves [0, n).
func TestUniformRowsStoredOnceBounds(t *testing.T) {
	same := func(a, b *law) bool { return *a == *b }
	r := NewUniformRows(newPubNodes(4, func(int) float64 { return 2 }), lawOf, same)
	if !r.shared {
		t.Fatal("equal members: rows not stored once")
	}
	panics := func(name string, f func()) {
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", name)
			}
		}()
		f()
	}
	panics("At(4) of 4 rows", func() { r.At(4) })
	panics("At(-1)", func() { r.At(-1) })
	for _, c := range [][2]int{{1, 1}, {-1, 2}, {3, 5}, {2, 1}} {
		panics(fmt.Sprintf("Walk(%d, %d)", c[0], c[1]), func() { r.Walk(c[0], c[1]) })
	}
	for _, c := range [][2]int{{0, 4}, {0, 1}, {3, 4}} {
		if p, stride := r.Walk(c[0], c[1]); p != unsafe.Pointer(r.At(0)) || stride != 0 {
			t.Errorf("Walk(%d, %d) = %p, %d; want row 0, 0", c[0], c[1], p, stride)
		}
	}
}

// TestUniformRowsOfOne: a family of one member is not stored shared (one
// row is already stored once), so Span, which panics only for rows
// shared by several members, returns its row.
func TestUniformRowsOfOne(t *testing.T) {
	same := func(a, b *law) bool { return *a == *b }
	r := NewUniformRows(newPubNodes(1, func(int) float64 { return 7 }), lawOf, same)
	if !r.Uniform() {
		t.Error("a single member: not uniform")
	}
	if got := r.Span(0, 1); len(got) != 1 || got[0].mass != 7 {
		t.Errorf("Span(0, 1) = %v, want one row of mass 7", got)
	}
}
