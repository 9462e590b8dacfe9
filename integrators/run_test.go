package integrators

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
)

// Adaptive.Run after Init is Integrate: the bouncing ball to t = 10 in
// one Run ends in the same bits, with the same events and, with Init's
// work, the same Stats. Split into Runs to 5 and to 10 it continues the
// same integration: the step clipped at t = 5 changes the step sequence,
// so the end agrees to the event tolerance (1e-9 bound; the free fall is
// a parabola, integrated exactly between events) with the same events.
func TestAdaptiveRunContinues(t *testing.T) {
	set := &settings{MaxStep: 1}
	sys := &ball{g: 9.81, e: 0.9}
	whole, err := integrateS(sys, 0, []float64{10, 0}, 10, set)
	if err != nil {
		t.Fatal(err)
	}
	start := func() *Adaptive {
		a, err := newAdaptiveS(sys, set)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Init(0, []float64{10, 0}); err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := start()
	init := a.Work()
	one, err := a.Run(context.Background(), 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := init
	sum.add(one.Work)
	if !slices.Equal(one.Y, whole.Y) || one.T != whole.T || len(one.Events) != len(whole.Events) || sum != whole.Work {
		t.Errorf("Run: t %v y %v, %d events, stats %+v; Integrate: t %v y %v, %d events, stats %+v",
			one.T, one.Y, len(one.Events), sum, whole.T, whole.Y, len(whole.Events), whole.Work)
	}

	a = start()
	r1, err := a.Run(context.Background(), 5, []float64{2.5, 5})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := a.Run(context.Background(), 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r2.T != 10 || maxAbsDiff(r2.Y, whole.Y) > 1e-9 || len(r1.Events)+len(r2.Events) != len(whole.Events) {
		t.Errorf("two Runs end at %v %v with %d+%d events; Integrate at %v %v with %d", r2.T, r2.Y, len(r1.Events), len(r2.Events), whole.T, whole.Y, len(whole.Events))
	}
	if len(r1.Samples) != 2 || r1.Samples[0].T != 2.5 || r1.Samples[1].T != 5 || !slices.Equal(r1.Samples[1].Y, r1.Y) {
		t.Errorf("samples %+v", r1.Samples)
	}
	if r1.Work.Steps == 0 || r2.Work.Steps == 0 || r1.Work.Steps+r2.Work.Steps != a.Work().Steps {
		t.Errorf("per-call stats %+v, %+v; driver %+v", r1.Work, r2.Work, a.Work())
	}

	// A cancelled context stops before the next trial step.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r3, err := a.Run(ctx, 20, nil)
	if !errors.Is(err, context.Canceled) || r3.Status != Cancelled || r3.T != 10 || r3.Work.Steps != 0 {
		t.Errorf("cancelled Run: %v, %+v", err, r3)
	}
}

func maxAbsDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
	}
	return d
}
