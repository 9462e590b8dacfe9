package integrators

import (
	"errors"
	"math"
	"testing"
)

// A BDF driver restored from a checkpoint steps on bit for bit
// (Checkpointer; bdfDriver.Checkpoint keeps the order, the Nordsieck
// array, the past steps, the controller and the correction saved for an
// order increase). On van der Pol (μ = 5) the driver goes through
// orders 1 to 5 and back, with pending order changes and saved
// corrections; after each of its first 200 steps a checkpoint is
// restored into a fresh driver, whose next 12 steps must equal the
// uninterrupted run's to the last bit.
func TestBDFCheckpointBitForBitA(t *testing.T) {
	const n, ahead = 200, 12
	newD := func() Driver {
		d, err := BDF{RTol: 1e-6, ATol: 1e-8}.NewDriver(vdp5{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	type point struct {
		t float64
		y [2]float64
	}
	ref := newD()
	if err := ref.Init(0, []float64{2, 0.5}); err != nil {
		t.Fatal(err)
	}
	var cps []StepperState
	var traj []point
	orders := map[[2]int]bool{}
	for k := 0; k < n+ahead; k++ {
		if k < n {
			cps = append(cps, ref.Checkpoint())
			if h := cps[k].Implicit; !h.Restart {
				orders[[2]int{h.Order, h.NextOrder}] = true
			}
		}
		rep, err := ref.Step(100)
		if err != nil {
			t.Fatal(err)
		}
		_, y := ref.State()
		traj = append(traj, point{rep.T1, [2]float64{y[0], y[1]}})
	}
	if !orders[[2]int{1, 1}] || !orders[[2]int{1, 2}] || !orders[[2]int{5, 5}] || !orders[[2]int{5, 4}] {
		t.Fatalf("the run did not reach the orders the test needs: %v", orders)
	}
	for k, cp := range cps {
		d := newD()
		if err := d.Restore(cp); err != nil {
			t.Fatalf("checkpoint after step %d: %v", k, err)
		}
		for j := k; j < k+ahead; j++ {
			rep, err := d.Step(100)
			if err != nil {
				t.Fatal(err)
			}
			_, y := d.State()
			if p := traj[j]; rep.T1 != p.t || y[0] != p.y[0] || y[1] != p.y[1] {
				t.Fatalf("restored after step %d: step %d ends at %v with %v, the run at %v with %v", k, j+1, rep.T1, y, p.t, p.y)
			}
		}
	}
}

// Restore refuses a BDF history that no driver can have, with a
// StateMismatchError: an order change by two, a zero step, next step or
// step-growth bound.
func TestBDFRestoreRefusesBadHistoryA(t *testing.T) {
	d, err := BDF{RTol: 1e-6, ATol: 1e-8}.NewDriver(vdp5{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Init(0, []float64{2, 0.5}); err != nil {
		t.Fatal(err)
	}
	var cp StepperState
	for cp.Implicit == nil || cp.Implicit.Order != 3 || cp.Implicit.NextOrder != 3 {
		if _, err := d.Step(100); err != nil {
			t.Fatal(err)
		}
		cp = d.Checkpoint()
	}
	for _, c := range []struct {
		name string
		edit func(h *ImplicitState)
	}{
		{"next order +2", func(h *ImplicitState) { h.NextOrder = h.Order + 2 }},
		{"next order −2", func(h *ImplicitState) { h.NextOrder = h.Order - 2 }},
		{"zero step", func(h *ImplicitState) { h.Step = 0 }},
		{"zero next step", func(h *ImplicitState) { h.NextStep = 0 }},
		{"zero growth bound", func(h *ImplicitState) { h.EtaMax = 0 }},
		{"infinite step", func(h *ImplicitState) { h.Step = math.Inf(1) }},
	} {
		h := *cp.Implicit
		c.edit(&h)
		bad := cp
		bad.Implicit = &h
		d2, err := BDF{RTol: 1e-6, ATol: 1e-8}.NewDriver(vdp5{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var sm *StateMismatchError
		if err := d2.Restore(bad); !errors.As(err, &sm) {
			t.Errorf("%s: Restore returned %v, want a *StateMismatchError", c.name, err)
		}
	}
}
