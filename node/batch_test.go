package node_test

import (
	"testing"

	"github.com/cosimgo/cosim/node"
)

// TestStridedSpan: Span of rows [lo, hi) of width n runs from the first
// value of row lo, Off + lo·Stride, to the last of row hi−1, Off +
// (hi−1)·Stride + n (exclusive), so a kernel may address every row of
// the call inside it; an empty range is nil. Offsets computed by hand
// for Off 1, Stride 4, n 2.
func TestStridedSpan(t *testing.T) {
	buf := make([]float64, 20)
	s := node.Strided{Buf: buf, Off: 1, Stride: 4}
	span := s.Span(1, 3, 2)
	if len(span) != 6 || &span[0] != &buf[5] {
		t.Fatalf("Span(1, 3, 2) has %d values from %p, want 6 from buf[5] (%p)", len(span), &span[0], &buf[5])
	}
	for i := 1; i < 3; i++ {
		row := s.Row(i, 2)
		if &row[0] != &span[(i-1)*4] || &row[1] != &span[(i-1)*4+1] {
			t.Errorf("row %d is not where Span places it", i)
		}
	}
	for _, r := range [][2]int{{2, 2}, {3, 2}} {
		if got := s.Span(r[0], r[1], 2); got != nil {
			t.Errorf("Span(%d, %d, 2) = %v, want nil", r[0], r[1], got)
		}
	}
}

// TestStridedExtent: Extent(lo, hi, n) is where Span's values lie in
// Buf — start at the first value of row lo, end just after the last of
// row hi−1 — so a compiled kernel slices each call's buffer with them
// (node.BatchPlanner). Each case is checked against Row (the definition:
// row i at Off + i·Stride) through the index of its values in Buf, and
// against bounds computed by hand: a positive and a negative Off, a lo
// and hi away from 0 and 1 (so lo·Stride and (hi−1)·Stride differ from
// lo/Stride and (hi+1)·Stride), a broadcast (Stride 0) and a single row.
func TestStridedExtent(t *testing.T) {
	buf := make([]float64, 64)
	index := func(v *float64) int {
		for i := range buf {
			if &buf[i] == v {
				return i
			}
		}
		return -1
	}
	for _, c := range []struct {
		off, stride, lo, hi, n int
		start, end             int // by hand: off + lo·stride, off + (hi−1)·stride + n
	}{
		{off: 1, stride: 4, lo: 3, hi: 7, n: 2, start: 13, end: 27},
		{off: -6, stride: 5, lo: 2, hi: 5, n: 3, start: 4, end: 17},
		{off: 3, stride: 0, lo: 2, hi: 6, n: 3, start: 3, end: 6},
		{off: 2, stride: 6, lo: 4, hi: 5, n: 6, start: 26, end: 32},
	} {
		s := node.Strided{Buf: buf, Off: c.off, Stride: c.stride}
		start, end := s.Extent(c.lo, c.hi, c.n)
		if start != c.start || end != c.end {
			t.Errorf("Strided{Off: %d, Stride: %d}.Extent(%d, %d, %d) = %d, %d; want %d, %d",
				c.off, c.stride, c.lo, c.hi, c.n, start, end, c.start, c.end)
			continue
		}
		first, last := s.Row(c.lo, c.n), s.Row(c.hi-1, c.n)
		if index(&first[0]) != start || index(&last[c.n-1]) != end-1 {
			t.Errorf("Extent(%d, %d, %d) = %d, %d: row %d starts at %d and row %d ends before %d",
				c.lo, c.hi, c.n, start, end, c.lo, index(&first[0]), c.hi-1, index(&last[c.n-1])+1)
		}
		if span := s.Span(c.lo, c.hi, c.n); len(span) != end-start || &span[0] != &buf[start] {
			t.Errorf("Extent(%d, %d, %d) = %d, %d, but Span has %d values from buf[%d]", c.lo, c.hi, c.n, start, end, len(span), index(&span[0]))
		}
	}
}

// TestBatchArgsNeeds: a nil Need means every output is needed; otherwise
// each entry says whether its output is.
func TestBatchArgsNeeds(t *testing.T) {
	a := node.BatchArgs{}
	if !a.Needs(0) || !a.Needs(3) {
		t.Error("nil Need: an output reported unneeded")
	}
	a.Need = []bool{true, false}
	if !a.Needs(0) || a.Needs(1) {
		t.Errorf("Need %v: Needs(0), Needs(1) = %v, %v", a.Need, a.Needs(0), a.Needs(1))
	}
}
