package graph_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
)

// Settings that cannot be run are errors before any step, not a panic
// (makeslice from int(+Inf)), an out-of-memory crash or a silent run of 0
// steps (doc.go, "Bounded memory and work").
func TestSettingsValidation(t *testing.T) {
	rec := []string{"m1.x"}
	cases := []struct {
		name string
		set  graph.Settings
		want string
	}{
		{"End +Inf with Record", graph.Settings{Dt: 0.01, End: math.Inf(1), Record: rec}, "Settings.End = +Inf"},
		{"End +Inf without Record", graph.Settings{Dt: 0.01, End: math.Inf(1)}, "must be finite"},
		{"End NaN", graph.Settings{Dt: 0.01, End: math.NaN()}, "must be finite"},
		{"End 1e300 with Record", graph.Settings{Dt: 0.01, End: 1e300, Record: rec}, "more than MaxSteps"},
		{"End 1e300 without Record", graph.Settings{Dt: 0.01, End: 1e300}, "more than MaxSteps"},
		{"Steps 1<<40 with Record", graph.Settings{Dt: 0.01, Steps: 1 << 40, Record: rec}, "1099511627777 rows of 2 values would need 128.0 TiB"},
		{"Steps beyond 2^53", graph.Settings{Dt: 0.01, Steps: 1<<53 + 1}, "more than MaxSteps"},
		{"negative RecordEvery", graph.Settings{Dt: 0.01, Steps: 1, RecordEvery: -1, Record: rec}, "Settings.RecordEvery = -1 is negative"},
		{"negative Workers", graph.Settings{Mode: graph.CoSimulation{Workers: -2}, Dt: 0.01, Steps: 1}, "CoSimulation.Workers = -2 is negative"},
		{"negative Grain", graph.Settings{Mode: graph.CoSimulation{Grain: -3}, Dt: 0.01, Steps: 1}, "CoSimulation.Grain = -3 is negative"},
		{"negative RecordLimit", graph.Settings{Dt: 0.01, Steps: 1, RecordLimit: -1, Record: rec}, "RecordLimit = -1 is negative"},
		{"StreamOnly without RecordTo", graph.Settings{Dt: 0.01, Steps: 1, StreamOnly: true, Record: rec}, "StreamOnly needs Settings.RecordTo"},
		{"over a small RecordLimit", graph.Settings{Dt: 0.01, Steps: 1000, Record: rec, RecordLimit: 1000}, "recording 1001 rows of 2 values would need 132.9 KiB of memory, more than the limit of 1000 B"},
	}
	m, err := integrators.ByName(integrators.MethodRK4)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		for _, mode := range []string{"Run", "RunMonolithic"} {
			sim, err := chain(2).Build()
			if err != nil {
				t.Fatal(err)
			}
			var res *graph.Result
			if mode == "Run" {
				res, err = sim.Run(context.Background(), c.set)
			} else {
				res, err = sim.RunMonolithic(context.Background(), m, nil, c.set)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s %s: error %v, want one containing %q", mode, c.name, err, c.want)
			}
			if res != nil || sim.StepCount() != 0 || sim.Time() != 0 {
				t.Errorf("%s %s: result %v, %d steps, time %v: want nothing done", mode, c.name, res, sim.StepCount(), sim.Time())
			}
		}
	}
}

// SetState and Integrate refuse a non-finite time instead of setting the
// clock to NaN or running forever.
func TestNonFiniteTimes(t *testing.T) {
	sim, err := chain(2).Build()
	if err != nil {
		t.Fatal(err)
	}
	x := sim.State(nil)
	for _, tm := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if err := sim.SetState(x, tm); err == nil || !strings.Contains(err.Error(), "not finite") {
			t.Errorf("SetState(x, %v): %v, want a not-finite error", tm, err)
		}
		if sim.Time() != 0 {
			t.Fatalf("SetState(x, %v) moved the clock to %v", tm, sim.Time())
		}
	}
	for _, end := range []float64{math.NaN(), math.Inf(1)} {
		if _, err := sim.Integrate(context.Background(), end, integrators.DormandPrince{}, nil); err == nil || !strings.Contains(err.Error(), "must be finite") {
			t.Errorf("Integrate(%v): %v, want a must-be-finite error", end, err)
		}
	}
}

// Rows are allocated as they arrive: a run whose preallocation would have
// taken gigabytes, cancelled after a few steps, holds only what it
// recorded. Measured through the allocations of the run (testing.AllocsPerRun
// cannot see bytes, so compare the heap growth).
func TestRecorderGrowsAsRowsArrive(t *testing.T) {
	sim, err := chain(2).Build()
	if err != nil {
		t.Fatal(err)
	}
	// 2e8 rows of 2 values: 9.7 GB preallocated before this change; its
	// estimate (23.8 GiB) fits a 32 GiB limit, so only the growth keeps
	// it small.
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	set := graph.Settings{Dt: 1e-3, Steps: 2e8, Record: []string{"m1.x"}, RecordLimit: 32 << 30,
		RecordTo: writerFunc(func(p []byte) (int, error) {
			n++
			if n == 3 {
				cancel()
			}
			return len(p), nil
		})}
	res, err := sim.Run(ctx, set)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v, want context.Canceled", err)
	}
	if got := cap(res.History.Times); got > 1<<17 {
		t.Errorf("cap(Times) = %d after %d rows: rows are preallocated", got, len(res.History.Times))
	}
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// RecordTo streams the rows as CSV identical to History.WriteCSV, and
// StreamOnly keeps none in memory; a failing writer stops the run.
func TestRecordTo(t *testing.T) {
	run := func(set graph.Settings) (*graph.Result, error) {
		sim, err := chain(3).Build()
		if err != nil {
			t.Fatal(err)
		}
		return sim.Run(context.Background(), set)
	}
	base := graph.Settings{Dt: 0.01, Steps: 50, RecordEvery: 7, Record: []string{"m1.x", "m3.v"}}
	res, err := run(base)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := res.History.WriteCSV(&want); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	set := base
	set.RecordTo = &got
	res2, err := run(set)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("streamed CSV differs from WriteCSV:\n%s\nwant\n%s", got.String(), want.String())
	}
	if len(res2.History.Rows) != len(res.History.Rows) {
		t.Errorf("RecordTo without StreamOnly kept %d rows, want %d", len(res2.History.Rows), len(res.History.Rows))
	}
	got.Reset()
	set.StreamOnly = true
	res3, err := run(set)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() || len(res3.History.Rows) != 0 || len(res3.History.Columns) != 2 {
		t.Errorf("StreamOnly: %d rows kept, %d columns, stream equal: %v", len(res3.History.Rows), len(res3.History.Columns), got.String() == want.String())
	}
	// StreamOnly is not bounded by RecordLimit.
	set.RecordLimit = 1
	if _, err := run(set); err != nil {
		t.Errorf("StreamOnly with RecordLimit 1: %v", err)
	}
	set.RecordLimit = 0
	boom := errors.New("disk full")
	set.RecordTo = writerFunc(func(p []byte) (int, error) { return 0, boom })
	if _, err := run(set); !errors.Is(err, boom) || !strings.Contains(err.Error(), "RecordTo") {
		t.Errorf("failing writer: %v, want it wrapped and naming RecordTo", err)
	}
}
