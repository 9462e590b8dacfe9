package control_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/control"
)

// A transport delay's output reads its documented state (spec: sample k
// in slot k mod (N+3), then the index of the first sample and of the
// newest): here histories written by hand, as a checkpoint restores
// them, read at t = 1.1 s with T = 1 s and N = 4 (h = 0.25 s), where
// t − T = 0.1 s lies between samples 0 and 1 at w = (1.1 − 1)/0.25 = 0.4
// of the way (the equation of the node's metadata).
func TestTransportDelayReadsHandWrittenHistories(t *testing.T) {
	d, err := control.NewTransportDelay(control.TransportDelayParams{Delay: 1, Samples: 4, Initial: []float64{9}})
	if err != nil {
		t.Fatal(err)
	}
	const ring = 4 + 3
	history := func(first, newest float64, samples map[int]float64) []float64 {
		x := make([]float64, ring+2)
		for k, v := range samples {
			x[k%ring] = v
		}
		x[ring], x[ring+1] = first, newest
		return x
	}
	tt := 1.1
	w := (tt - 1) / 0.25
	for _, c := range []struct {
		name string
		x    []float64
		want float64 // NaN: an error on the history
	}{
		// Sample 0 is the only one: both ends of the interval read it
		// (the newest sample stands for the samples not yet taken).
		{"only sample 0 taken", history(0, 0, map[int]float64{0: 5}), 5},
		// Samples 0 … 6 fill the ring: sample 0 is the oldest still held.
		{"the ring reaches back exactly", history(0, 6, map[int]float64{0: 10, 1: 11, 2: 12, 3: 13, 4: 14, 5: 15, 6: 16}), 10 + w*(11-10)},
		// Sample 7 overwrote sample 0 in slot 0: the history no longer
		// reaches back to t − T.
		{"sample 0 overwritten", history(0, 7, map[int]float64{1: 11, 2: 12, 3: 13, 4: 14, 5: 15, 6: 16, 7: 17}), math.NaN()},
		{"sample 0 long gone", history(0, 20, map[int]float64{14: 1, 15: 1, 16: 1, 17: 1, 18: 1, 19: 1, 20: 1}), math.NaN()},
		// The first sample is 2: before it the history is `initial`.
		{"before the first sample", history(2, 3, map[int]float64{2: 5, 3: 6}), 9},
		{"no sample yet", history(-1, -1, nil), 9},
	} {
		y := []float64{math.NaN()}
		err := d.Outputs(tt, c.x, node.Inputs{Values: []float64{0}, Present: []bool{true}}, y)
		if math.IsNaN(c.want) {
			var fe *node.FieldError
			// The message names the delayed instant t − T = 0.1 s.
			if !errors.As(err, &fe) || fe.Field != "history" || !strings.Contains(err.Error(), "t − T = 0.1") {
				t.Errorf("%s: output %v, error %v; want a FieldError on the history", c.name, y[0], err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if math.Abs(y[0]-c.want) > 1e-12 {
			t.Errorf("%s: output %v, want %v", c.name, y[0], c.want)
		}
	}
}

// A sample the run stepped over is an error naming it when the next one
// is taken (Sampler.Reset), also when the last sample taken is sample 0;
// the first sample of a run is never "skipped" whatever its index. ZOH
// with T = 0.1 s: at t = 0.2 s the sample due is 2.
func TestHoldSkippedSampleAfterSampleZero(t *testing.T) {
	for _, c := range []struct {
		name   string
		newest float64
		want   string // "" when no sample was skipped
	}{
		{"after sample 0", 0, "sample 1 at t = 0.1 s was not taken (taking sample 2 at t = 0.2)"},
		{"after sample 1", 1, ""},
		{"first sample of the run", -1, ""},
	} {
		h, err := control.NewZOH(control.HoldParams{SampleTime: 0.1})
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]float64, 2)
		err = h.Reset(0, 0.2, []float64{1, c.newest}, node.Inputs{Values: []float64{3}, Present: []bool{true}}, dst)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if !errors.Is(err, control.ErrSampleSkipped) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want ErrSampleSkipped saying %q", c.name, err, c.want)
		}
	}
}
