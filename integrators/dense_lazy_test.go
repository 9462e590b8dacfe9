package integrators

import (
	"math"
	"testing"
)

// denseOsc is y” = −y as a first-order system. denseOscEv adds one
// event function that never crosses (g = 1): with it the Adaptive
// computes its dense output eagerly after every step, without it lazily
// on Dense.
type denseOsc struct{}

func (denseOsc) Dim() int { return 2 }
func (denseOsc) Func(t float64, y, dst []float64) error {
	dst[0], dst[1] = y[1], -y[0]
	return nil
}

type denseOscEv struct{ denseOsc }

func (denseOscEv) EventCount() int                          { return 1 }
func (denseOscEv) EventDirection(int) int                   { return 0 }
func (denseOscEv) Events(t float64, y, dst []float64) error { dst[0] = 1; return nil }
func (denseOscEv) Reset(int, float64, []float64, []float64) (EventAction, error) {
	return EventContinue, nil
}

// Dense output computed lazily (no events) is bit-identical to the eager
// computation (an event system), at every sample of every step.
func TestDenseLazyMatchesEager(t *testing.T) {
	lazy, err := newAdaptiveS(denseOsc{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	eager, err := newAdaptiveS(denseOscEv{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	y0 := []float64{1, 0}
	if err := lazy.Init(0, y0); err != nil {
		t.Fatal(err)
	}
	if err := eager.Init(0, y0); err != nil {
		t.Fatal(err)
	}
	a, b := make([]float64, 2), make([]float64, 2)
	for step := 0; step < 40; step++ {
		ra, err := lazy.Step(10)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := eager.Step(10)
		if err != nil {
			t.Fatal(err)
		}
		if ra.T0 != rb.T0 || ra.T1 != rb.T1 {
			t.Fatalf("step %d: [%v, %v] lazy, [%v, %v] eager", step, ra.T0, ra.T1, rb.T0, rb.T1)
		}
		for _, th := range []float64{0, 0.25, 0.5, 0.9, 1} {
			tt := ra.T0 + th*(ra.T1-ra.T0)
			lazy.Dense(tt, a)
			eager.Dense(tt, b)
			for i := range a {
				if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
					t.Fatalf("step %d, t = %v: dense[%d] lazy %v, eager %v", step, tt, i, a[i], b[i])
				}
			}
		}
	}
}
