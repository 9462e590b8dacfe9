package graph

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// sampleGrid's contract (its doc comment): the samples of an adaptive
// run recording every h from t0 to end are t0, the multiples k·h of h
// after t0 (anchored at time 0, not at t0), and end; a multiple within
// 1e-9·h of t0 or of end counts as on it. Every expected grid below is
// written out from that rule; the multiples of 0.25 and the integers
// near 2^52 are exact in binary, so the comparison is exact.
func TestMutSampleGrid(t *testing.T) {
	const p52 = 1 << 52
	for _, c := range []struct {
		name       string
		t0, end, h float64
		want       []float64
	}{
		// The end between two multiples is a sample of its own.
		{"end off the grid", 0, 1.1, 0.25, []float64{0, 0.25, 0.5, 0.75, 1, 1.1}},
		// A step above 1 and a start off 0: the multiples of 2 after 10.
		{"h > 1 from t0 = 10", 10, 20, 2, []float64{10, 12, 14, 16, 18, 20}},
		// t0 is 5e-10·h before the multiple 0.5: that multiple counts as
		// t0 itself, and the next sample is 0.75.
		{"t0 just before a multiple", 0.5 - 1.25e-10, 1, 0.25, []float64{0.5 - 1.25e-10, 0.75, 1}},
		// end is 5e-10·h after the multiple 1: the multiple is the last
		// sample, the end is not sampled a second time.
		{"end just after a multiple", 0, 1 + 1.25e-10, 0.25, []float64{0, 0.25, 0.5, 0.75, 1}},
		// A run shorter than h: its start and its end.
		{"run shorter than h", 0, 0.1, 0.25, []float64{0, 0.1}},
		// Far from 0 the count is that of this run, not of the multiples
		// since 0 (2^52 of them).
		{"late start", p52, p52 + 4, 1, []float64{p52, p52 + 1, p52 + 2, p52 + 3, p52 + 4}},
	} {
		got, err := sampleGrid(c.t0, c.end, c.h)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: sampleGrid(%v, %v, %v) = %v, %v; want %v", c.name, c.t0, c.end, c.h, got, err, c.want)
		}
	}
	// Near 2^53·h consecutive multiples k·h can round to the same time
	// (h = 0.1 is below the spacing 0.125 of the doubles near 9e14): the
	// samples still ascend strictly, each time once, and end at end.
	t0 := float64(1<<53-64) * 0.1
	got, err := sampleGrid(t0, t0+3, 0.1)
	if err != nil || len(got) < 20 || got[len(got)-1] != t0+3 {
		t.Fatalf("near 2^53·h: %v, %v", got, err)
	}
	for i := 1; i < len(got); i++ {
		if !(got[i] > got[i-1]) {
			t.Errorf("near 2^53·h: sample %d = %v does not follow %v", i, got[i], got[i-1])
		}
	}
	// More than MaxSteps = 2^53 samples is refused with an error, not
	// attempted.
	if _, err := sampleGrid(0, math.Ldexp(1, 60), 1); err == nil || !strings.Contains(err.Error(), "MaxSteps") {
		t.Errorf("2^60 samples: %v, want the MaxSteps error", err)
	}
}
