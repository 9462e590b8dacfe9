package source_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/source"
)

func out(t *testing.T, n node.Node, tm float64) []float64 {
	t.Helper()
	dst := make([]float64, n.Spec().OutputLayout.Size())
	if err := n.(node.Outputter).Outputs(tm, nil, node.Inputs{}, dst); err != nil {
		t.Fatalf("Outputs(%v): %v", tm, err)
	}
	return dst
}

// Reference values are the closed forms of each node's equation, written
// out independently here; sources are exact, so equality is to the bit
// except for the sine (math.Sin is evaluated the same way: equal too).
func TestClosedForms(t *testing.T) {
	sine, err := source.NewSine(source.SineParams{Amplitude: []float64{2, 3}, Omega: []float64{math.Pi}, Phase: []float64{0, 0.5}, Offset: []float64{1}, Units: "N"})
	if err != nil {
		t.Fatal(err)
	}
	if s := sine.Spec().Outputs[0]; s.Shape != node.Vec(2) || s.Units != "N" {
		t.Fatalf("sine output %+v", s)
	}
	got := out(t, sine, 0.3)
	if want := []float64{1 + 2*math.Sin(math.Pi*0.3), 1 + 3*math.Sin(math.Pi*0.3+0.5)}; got[0] != want[0] || got[1] != want[1] {
		t.Errorf("sine(0.3) = %v, want %v", got, want)
	}

	step, _ := source.NewStep(source.StepParams{Time: 2, Initial: []float64{-1}, Final: []float64{4}})
	if s := step.Spec().Outputs[0].Shape; s != node.Scalar {
		t.Errorf("one-component step has shape %v, want scalar", s)
	}
	for _, c := range []struct{ t, want float64 }{{1.999, -1}, {math.Nextafter(2, 0), -1}, {2, 4}, {5, 4}} {
		if y := out(t, step, c.t)[0]; y != c.want {
			t.Errorf("step(%v) = %v, want %v (right-continuous at T = 2)", c.t, y, c.want)
		}
	}

	ramp, _ := source.NewRamp(source.RampParams{Start: 1, Slope: []float64{2, -1, 0}, Offset: []float64{0.5}})
	if y := out(t, ramp, 0.5); y[0] != 0.5 || y[1] != 0.5 || y[2] != 0.5 {
		t.Errorf("ramp before start = %v", y)
	}
	if y := out(t, ramp, 3); y[0] != 4.5 || y[1] != -1.5 || y[2] != 0.5 {
		t.Errorf("ramp(3) = %v, want [4.5 -1.5 0.5]", y)
	}

	pulse, _ := source.NewPulse(source.PulseParams{Period: 2, Width: 0.5, Delay: 1, Amplitude: []float64{3}, Offset: []float64{1}})
	for _, c := range []struct{ t, want float64 }{
		{0, 1}, {0.999, 1}, {1, 4}, {1.4, 4}, {1.5, 1}, {2.9, 1}, {3, 4}, {3.49, 4}, {3.5, 1}, {1001, 4}, {1001.5, 1},
	} {
		if y := out(t, pulse, c.t)[0]; y != c.want {
			t.Errorf("pulse(%v) = %v, want %v", c.t, y, c.want)
		}
	}
}

// TimeEvents is consistent with Outputs and with its own contract:
// prev ≤ t < next, k counts the events at or before t, and the output
// only changes across a reported event.
func TestTimeEventsContract(t *testing.T) {
	step, _ := source.NewStep(source.StepParams{Time: 0.3})
	ramp, _ := source.NewRamp(source.RampParams{Start: 0.7})
	pulse, _ := source.NewPulse(source.PulseParams{Period: 0.3, Width: 0.1, Delay: 0.05})
	lookup, _ := source.NewLookup(source.LookupParams{Times: []float64{0.1, 0.25, 0.5, 0.9}, Values: []float64{0, 1, 0, 2}, Interpolation: source.InterpolationHold})
	for _, n := range []node.TimeEventer{step, ramp, pulse, lookup} {
		name := n.(node.Node).Spec().Type
		prevK := -1
		for i := 0; i <= 4000; i++ {
			tm := -0.5 + float64(i)*0.0005
			k, prev, next := n.TimeEvents(tm)
			if !(prev <= tm && tm < next) {
				t.Fatalf("%s: TimeEvents(%v) = %d, %v, %v: t not in [prev, next)", name, tm, k, prev, next)
			}
			if prevK >= 0 && k < prevK {
				t.Fatalf("%s: k decreased from %d to %d at %v", name, prevK, k, tm)
			}
			prevK = k
			// At an event time itself, k counts it.
			if k2, p2, _ := n.TimeEvents(next); !math.IsInf(next, 1) && (k2 != k+1 || p2 != next) {
				t.Fatalf("%s: TimeEvents(next = %v) = %d, %v; want %d, %v", name, next, k2, p2, k+1, next)
			}
		}
	}
	// Pulse edges: exactly D + mP and D + mP + W, even after many periods.
	// Just below each rising edge (the next float down) the pulse is low
	// and the edge is the next event: there (t − D)/P can round up to m
	// (at m = 19, 33, 38, … for these numbers), and the count is
	// corrected to the edges' own times.
	for m := range 100000 {
		rise := 0.05 + float64(m)*0.3
		k, prev, next := pulse.TimeEvents(rise)
		if k != 2*m+1 || prev != rise || next != rise+0.1 {
			t.Fatalf("pulse at rise %d (%v): %d, %v, %v", m, rise, k, prev, next)
		}
		before := math.Nextafter(rise, math.Inf(-1))
		if k, prev, next := pulse.TimeEvents(before); k != 2*m || next != rise || !(prev <= before) {
			t.Fatalf("pulse just below rise %d (%v): %d, %v, %v; want %d, prev ≤ t, next %v", m, before, k, prev, next, 2*m, rise)
		}
	}
	// A sine has no time events.
	sine, _ := source.NewSine(source.SineParams{})
	if _, ok := node.Node(sine).(node.TimeEventer); ok {
		t.Error("sine declares time events")
	}
}

func TestParamErrors(t *testing.T) {
	cases := []struct {
		typ   string
		build func() error
		param string
		msg   string
	}{
		{"sine", func() error {
			_, err := source.SineFromMap(map[string]any{"amplitude": []float64{1, 2}, "omega": []float64{1, 2, 3}})
			return err
		}, "omega", "has 3 values, but amplitude has 2"},
		{"pulse", func() error { _, err := source.PulseFromMap(map[string]any{"period": 1.0, "width": 1.0}); return err }, "width", "is not less than the period"},
		{"lookup", func() error {
			_, err := source.LookupFromMap(map[string]any{"times": []float64{0, 1, 1}, "values": []float64{0, 1, 2}})
			return err
		}, "times", "times[2] = 1 follows times[1] = 1"},
		{"lookup", func() error {
			_, err := source.LookupFromMap(map[string]any{"times": []float64{0, 1}, "values": []float64{0, 1, 2}})
			return err
		}, "values", "has 3 values for 2 breakpoints"},
		{"lookup", func() error { _, err := source.LookupFromMap(map[string]any{"file": "f.csv"}); return err }, "file", "scene loader"},
		{"lookup", func() error {
			_, err := source.LookupFromMap(map[string]any{"times": []float64{0, math.NaN()}, "values": []float64{0, 1}})
			return err
		}, "times", "not finite"},
		{"step", func() error { _, err := source.StepFromMap(map[string]any{"units": ""}); return err }, "units", "is empty"},
	}
	for _, c := range cases {
		err := c.build()
		var pe *node.ParamError
		if !errors.As(err, &pe) || pe.Node != c.typ || pe.Param != c.param || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s.%s: err %v; want a ParamError containing %q", c.typ, c.param, err, c.msg)
		}
	}
	// SetParams cannot change the output size or units, and changes
	// nothing when it refuses.
	s, _ := source.NewSine(source.SineParams{Amplitude: []float64{1, 2}})
	if err := s.SetParams(map[string]any{"phase": []float64{1, 2, 3}}); err == nil {
		t.Error("SetParams changed the size")
	}
	if err := s.SetParams(map[string]any{"units": "N"}); err == nil {
		t.Error("SetParams changed the units")
	}
	if err := s.SetParams(map[string]any{"amplitude": []float64{5}}); err != nil {
		t.Fatal(err)
	}
	if y := out(t, s, math.Pi/2); y[0] != 5 || y[1] != 5 {
		t.Errorf("after SetParams sine(π/2) = %v, want [5 5]", y)
	}
}

func TestOutputsDoNotAllocate(t *testing.T) {
	step, _ := source.NewStep(source.StepParams{Time: 1})
	pulse, _ := source.NewPulse(source.DefaultPulseParams())
	lk, _ := source.NewLookup(source.LookupParams{Times: []float64{0, 1, 2, 3}, Values: []float64{0, 1, 4, 9}, Interpolation: source.InterpolationPCHIP})
	dst := make([]float64, 1)
	sine, _ := source.NewSine(source.SineParams{})
	for _, n := range []node.Node{step, pulse, lk, sine} {
		o := n.(node.Outputter)
		te, _ := n.(node.TimeEventer)
		if a := testing.AllocsPerRun(100, func() {
			_ = o.Outputs(1.7, nil, node.Inputs{}, dst)
			if te != nil {
				_, _, _ = te.TimeEvents(1.7)
			}
		}); a != 0 {
			t.Errorf("%s: %v allocations per Outputs+TimeEvents", n.Spec().Type, a)
		}
	}
}

func nil2() node.Inputs { return node.Inputs{} }

// Far beyond 2^52 periods the pulse reports no events and follows the
// phase (no loop, no panic).
func TestPulseFarFuture(t *testing.T) {
	p, _ := source.NewPulse(source.PulseParams{Period: 1e-9, Width: 0.5e-9})
	for _, tm := range []float64{1e10, 3.3e12} {
		k, prev, next := p.TimeEvents(tm)
		if !math.IsInf(prev, -1) || !math.IsInf(next, 1) || (k != 1 && k != 2) {
			t.Errorf("TimeEvents(%v) = %d, %v, %v", tm, k, prev, next)
		}
		_ = out(t, p, tm)
	}
}

// The pulse reports its edges up to 2^52 periods after the delay, counted
// from the delay, not from t = 0. Both cases below have edges exactly
// representable, so the expected events are exact:
//   - a train delayed by D = 3·2^49 s (P = 0.5 s, W = 0.25 s; the spacing
//     of floats near D is 0.25 s) at its first rising edge t = D: the
//     first pulse, from D to D + W;
//   - P = 3 s, W = 2 s, no delay, at t = 2^52·P exactly (floats 2 s apart
//     there): the rising edge of pulse 2^52, k = 2^53 + 1 edges at or
//     before t, the next edge at t + W.
func TestPulseEdgesUpTo2p52Periods(t *testing.T) {
	for _, c := range []struct {
		per, w, d, t float64
		k            int
		prev, next   float64
	}{
		{0.5, 0.25, 3 << 49, 3 << 49, 1, 3 << 49, 3<<49 + 0.25},
		{3, 2, 0, 3 << 52, 1<<53 + 1, 3 << 52, 3<<52 + 2},
	} {
		p, err := source.NewPulse(source.PulseParams{Period: c.per, Width: c.w, Delay: c.d, Amplitude: []float64{1}})
		if err != nil {
			t.Fatal(err)
		}
		if k, prev, next := p.TimeEvents(c.t); k != c.k || prev != c.prev || next != c.next {
			t.Errorf("P = %v, W = %v, D = %v: TimeEvents(%v) = %d, %v, %v; want %d, %v, %v", c.per, c.w, c.d, c.t, k, prev, next, c.k, c.prev, c.next)
		}
		if y := out(t, p, c.t)[0]; y != 1 {
			t.Errorf("P = %v, W = %v, D = %v: output at the rising edge %v = %v, want 1 (high)", c.per, c.w, c.d, c.t, y)
		}
	}
}

// Beyond 2^52 periods after the delay the pulse is high exactly when the
// phase since the delay, (t − D) mod P, is below W (a falling edge itself
// is low, as in the near range). P = 3 s, W = 2 s, D = 4 s, at
// t = 2^54 + 4j: floats are 4 apart there, so t − D and the phase are
// exact, and the phase is j mod 3 (2^54 ≡ 1 and 4 ≡ 1 mod 3), computed
// here in integer arithmetic: high for j ≡ 0, 1, low at the falling edge
// j ≡ 2.
func TestPulseFarFuturePhase(t *testing.T) {
	const per, w, d = 3, 2, 4
	p, err := source.NewPulse(source.PulseParams{Period: per, Width: w, Delay: d, Amplitude: []float64{1}, Offset: []float64{-1}})
	if err != nil {
		t.Fatal(err)
	}
	for j := range int64(6) {
		ti := int64(1)<<54 + 4*j
		high := (ti-d)%per < w
		want, wantK := -1.0, 2
		if high {
			want, wantK = 0, 1
		}
		if y := out(t, p, float64(ti))[0]; y != want {
			t.Errorf("pulse(2^54 + %d) = %v, want %v (phase %d)", 4*j, y, want, (ti-d)%per)
		}
		if k, _, _ := p.TimeEvents(float64(ti)); k != wantK {
			t.Errorf("TimeEvents(2^54 + %d): k = %d, want %d (phase %d)", 4*j, k, wantK, (ti-d)%per)
		}
	}
}
