package graph

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// sampleGrid's end rule (its doc comment): the end is a sample of its
// own unless it lies within 1e-9·h of the last sample, which is then
// taken as the end — within inclusive, as for the multiples (k1 counts
// end/h ≥ k − 1e-9 as on k). The expected grids are written out from
// that rule:
//   - from 0 to end = 1e-9 every h = 1: the end is exactly 1e-9·h (the
//     same double on both sides) after t0 = 0, so it counts as on t0 and
//     the grid is t0 alone;
//   - from 0 to end = 1 + 1e-9 every h = 0.25: the end is 1e-9 = 4e-9·h
//     after the multiple 1, beyond 1e-9·h, so it is a sample of its own.
//
// The comparison is exact: every time is one of the arguments or a
// multiple of 0.25.
func TestMutTmonoSampleGridEnd(t *testing.T) {
	for _, c := range []struct {
		name       string
		t0, end, h float64
		want       []float64
	}{
		{"end exactly 1e-9·h after t0", 0, 1e-9, 1, []float64{0}},
		{"end 4e-9·h after a multiple", 0, 1 + 1e-9, 0.25, []float64{0, 0.25, 0.5, 0.75, 1, 1 + 1e-9}},
	} {
		got, err := sampleGrid(c.t0, c.end, c.h)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: sampleGrid(%v, %v, %v) = %v, %v; want %v", c.name, c.t0, c.end, c.h, got, err, c.want)
		}
	}
}

// sampleGrid refuses a grid that no slice can hold with an error, not a
// panic: more than MaxSteps = 2^53 samples (its contract,
// TestMutSampleGrid's 2^60 case), also just above that bound, and fewer
// samples than that that the runtime still cannot allocate (above its
// largest allocation, 2^48 bytes on 64-bit platforms: 2^45 samples),
// which make refused with a panic ("makeslice: cap out of range") before
// the refusal was extended to them. The grids, from t0 every h = 1:
//   - from 1 to 2^53 + 4: the multiples k = 2 … 2^53 + 4 (exact doubles:
//     even integers above 2^53), 2^53 + 3 of them, more than MaxSteps;
//   - from 0 to 2^53: 2^53 multiples, not more than MaxSteps, 2^56 bytes;
//   - from 0 to 1e15: about 2^49.8 multiples, 8e15 bytes.
//
// A panic is caught and reported.
func TestMutTmonoSampleGridTooLarge(t *testing.T) {
	for _, c := range []struct{ t0, end float64 }{{1, math.Ldexp(1, 53) + 4}, {0, math.Ldexp(1, 53)}, {0, 1e15}} {
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			_, err = sampleGrid(c.t0, c.end, 1)
		}()
		if err == nil || !strings.Contains(err.Error(), "more samples than one slice can hold") || !strings.Contains(err.Error(), "Settings.RecordEvery") {
			t.Errorf("sampleGrid(%v, %v, 1): %v; want the grid refused, naming Settings.RecordEvery", c.t0, c.end, err)
		}
	}
}

// A caller that claims no part of its own job (a worker's claim took the
// only part first: a late claim lands on the next job whole, see claim)
// waits for the worker's part like any other caller: it polls for
// callerSlack (it has no time per part of its own to add) and then
// sleeps until the part is done, and every part runs once. The order is
// forced, not raced: the pool has no worker goroutine; the test counts a
// worker parked so that the caller's publish takes the mutex, holds the
// mutex so the caller stops there after publishing, claims the job's
// only part itself (as a worker would) and, once the caller has gone to
// sleep on it, lets the part finish. A panic on the caller's goroutine
// is caught and reported.
func TestMutTmonoPoolCallerRanNoPart(t *testing.T) {
	var runs atomic.Int32
	claimed, release := make(chan struct{}), make(chan struct{})
	p := startWorkerPool(1, func(w, k int) {
		close(claimed)
		<-release
		runs.Add(1)
	}, newSharing())
	p.parked.Add(1)
	p.mu.Lock()
	caller := make(chan any, 1)
	go func() {
		defer func() { caller <- recover() }()
		p.runParts(1, 1)
	}()
	for p.seq.Load() == 0 { // the caller has published the job
		runtime.Gosched()
	}
	worker := make(chan bool, 1)
	go func() { worker <- p.claim() }()
	<-claimed
	p.mu.Unlock()
	deadline := time.Now().Add(10 * time.Second)
	var panicked any
	for waiting := true; waiting; {
		select {
		case panicked = <-caller:
			waiting = false
		default:
			if p.sleeping.Load() {
				waiting = false
			} else if time.Now().After(deadline) {
				t.Fatal("the caller neither slept nor returned within 10 s")
			}
			runtime.Gosched()
		}
	}
	close(release)
	woke := <-worker
	if panicked == nil {
		panicked = <-caller
	}
	p.parked.Add(-1)
	if panicked != nil {
		t.Fatalf("the caller that ran no part panicked: %v", panicked)
	}
	p.stop()
	if runs.Load() != 1 || p.done.Load() != 1 || !woke {
		t.Errorf("part ran %d times, %d done, worker woke the caller: %v; want 1, 1, true", runs.Load(), p.done.Load(), woke)
	}
}
