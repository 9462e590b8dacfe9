package integrators

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// noEvents is y' = −y offering NextTimeEvent with no event at all, as a
// graph without time-event nodes does.
type noEvents struct{}

func (noEvents) Dim() int { return 3 }
func (noEvents) Func(t float64, y, dst []float64) error {
	for i := range y {
		dst[i] = -y[i]
	}
	return nil
}
func (noEvents) NextTimeEvent(t float64) float64 { return math.Inf(1) }

// The event stepper of a System that offers NextTimeEvent but has no
// time event ahead holds none of its six sub-step state buffers (at
// 600 000 states they were 29 MB never used); one with a time event ahead
// of Init's or Restore's time gets them there, before any Step, so that
// steps do not allocate them. Reference: the buffers' nil-ness, and the
// exact solution of stepped (timeevents_test.go) through its jump.
func TestEventStepperStatesOnlyWhenNeeded(t *testing.T) {
	for _, name := range []string{MethodBackwardEuler, MethodRK4} {
		m, err := ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		st, err := NewStepper(m, noEvents{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		w, ok := st.(*eventStepper)
		if !ok {
			t.Fatalf("%s: stepper is %T, want the event stepper (the System offers NextTimeEvent)", name, st)
		}
		if err := w.Init(0, []float64{1, 2, 3}); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if err := w.Step(0.1); err != nil {
				t.Fatal(err)
			}
		}
		if w.y0 != nil || w.ys != nil || w.ye != nil || w.yHi != nil || w.yBest != nil || w.yp != nil {
			t.Errorf("%s: sub-step buffers allocated without any time event", name)
		}
		cp := w.Checkpoint()
		if err := w.Restore(cp); err != nil {
			t.Fatal(err)
		}
		if w.y0 != nil {
			t.Errorf("%s: Restore allocated the sub-step buffers without any time event", name)
		}

		st, err = NewStepper(m, stepped{tau: 0.25}, nil)
		if err != nil {
			t.Fatal(err)
		}
		w = st.(*eventStepper)
		if err := w.Init(0, []float64{0}); err != nil {
			t.Fatal(err)
		}
		if w.y0 == nil || w.yp == nil {
			t.Fatalf("%s: a time event lies ahead but Init left the sub-step buffers unallocated", name)
		}
		for range 5 { // to t = 0.5, through the jump at 0.25
			if err := w.Step(0.1); err != nil {
				t.Fatal(err)
			}
		}
		// y = 3·(t − τ) after the jump: every method integrates the
		// piecewise-constant right-hand side exactly when its sub-steps
		// end on the jump (round-off of the step sums only).
		if _, y := w.State(); !numtest.Within(y[0], 0.75, 1e-12) {
			t.Errorf("%s: y(0.5) = %v, want 0.75", name, y[0])
		}
	}
}

// The first assembly of a matrix whose rows all hold the same number of
// entries (a chain's) takes its projected size once enough rows are in,
// instead of doubling: its arrays end within a sixteenth (plus the
// projection's slack of 64) of the entries. A matrix whose first row is a
// hub (many entries, the rest few) is not sized from that row: its
// arrays stay within twice its entries, as with doubling.
// Reference: exact entry counts of the two patterns.
func TestSpMatrixGrowProjection(t *testing.T) {
	const n = 50_000
	uniform := newSpMatrix(n)
	uniform.reset()
	cols, vals := []int32{0, 0, 0}, []float64{1, 1, 1}
	for i := range n {
		cols = cols[:0]
		for _, j := range []int{i - 1, i, i + 1} {
			if j >= 0 && j < n {
				cols = append(cols, int32(j))
			}
		}
		if err := uniform.addScaled(i, cols, vals, 1, 0); err != nil {
			t.Fatal(err)
		}
	}
	nnz := uniform.nnz()
	if nnz != 3*n-2 {
		t.Fatalf("uniform: %d entries, want %d", nnz, 3*n-2)
	}
	// A sixteenth, plus the allocator's rounding to its size classes.
	if c, cv := cap(uniform.col), cap(uniform.val); float64(max(c, cv)) > 1.07*float64(nnz)+1024 {
		t.Errorf("uniform: capacity %d (val %d) for %d entries, want at most about 1/16 more", c, cv, nnz)
	}

	hub := newSpMatrix(n)
	hub.reset()
	all := make([]int32, 2000)
	ones := make([]float64, len(all))
	for j := range all {
		all[j], ones[j] = int32(j), 1
	}
	one := []int32{0}
	for i := range n {
		c := all
		if i > 0 {
			one[0] = int32(i) // the diagonal only
			c = one
		}
		if err := hub.addScaled(i, c, ones, 1, 0); err != nil {
			t.Fatal(err)
		}
	}
	nnz = hub.nnz()
	if c := cap(hub.col); c > 2*nnz+1024 {
		t.Errorf("hub: capacity %d for %d entries, want at most twice", c, nnz)
	}
}

// TestSpMatrixRowOrder: a matrix whose rows come in order keeps no end
// array of its own (the end of row i is the start of row i+1), and one
// whose rows come in any other order (the Newmark family's mapping, or
// rows finish fills in) gets one at its first out-of-order row, holding
// the same matrix. Reference: the same tridiagonal rows appended in
// order and in reverse order, whose products must agree bit for bit
// (each row's entries are summed in the same order either way).
func TestSpMatrixRowOrder(t *testing.T) {
	const n = 7
	rowOf := func(i int) ([]int32, []float64) {
		var cols []int32
		var vals []float64
		for _, j := range []int{i - 1, i, i + 1} {
			if j >= 0 && j < n {
				cols = append(cols, int32(j))
				vals = append(vals, float64(1+i*n+j)/3)
			}
		}
		return cols, vals
	}
	build := func(order []int) *spMatrix {
		a := newSpMatrix(n)
		for pass := 0; pass < 2; pass++ { // the second assembly reuses the arrays
			a.reset()
			for _, i := range order {
				c, v := rowOf(i)
				if err := a.addScaled(i, c, v, -0.5, 1); err != nil {
					t.Fatal(err)
				}
			}
			if err := a.finish(1, n); err != nil {
				t.Fatal(err)
			}
		}
		return a
	}
	in, rev, gap := build([]int{0, 1, 2, 3, 4, 5, 6}), build([]int{6, 5, 4, 3, 2, 1, 0}), build([]int{0, 1, 3, 4, 5, 6})
	if in.split || !rev.split || !gap.split {
		t.Errorf("split: in order %v, reversed %v, a row left to finish %v; want false, true, true", in.split, rev.split, gap.split)
	}
	x := []float64{0.3, -1.7, 2.9, 0.01, -5, 7.5, 1.25}
	want := make([]float64, n)
	in.MulVec(x, want)
	got := make([]float64, n)
	rev.MulVec(x, got)
	for i := range got {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Errorf("reversed: row %d of A·x = %v, in order %v", i, got[i], want[i])
		}
	}
	// The gap: row 2 is the identity row finish adds.
	gap.MulVec(x, got)
	if got[2] != x[2] || math.Float64bits(got[3]) != math.Float64bits(want[3]) {
		t.Errorf("a row left to finish: A·x rows 2, 3 = %v, %v; want %v, %v", got[2], got[3], x[2], want[3])
	}
}
