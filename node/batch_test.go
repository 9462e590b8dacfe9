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
