package graph_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
)

// call is one Observer call as a test records it.
type call struct {
	phase graph.ObservePhase
	step  int
	t     float64
	x     float64 // m1.x read through a Field
	err   error
}

// recorder returns an Observer that records its calls, reading m1.x
// through a Field resolved once, and fails with stop at step stopAt (−1:
// never).
func recorder(t *testing.T, s *graph.Sim, calls *[]call, stopAt int, stop error) graph.Observer {
	f, err := s.Field("m1.x")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]float64, 1)
	return graph.ObserverFunc(func(v *graph.View) error {
		if err := f.Get(buf); err != nil {
			return err
		}
		*calls = append(*calls, call{v.Phase, v.Step, v.Time, buf[0], v.Err})
		if v.Phase == graph.ObserveStep && v.Step == stopAt {
			return stop
		}
		return nil
	})
}

// runner runs a chain sim in one of the fixed-step modes.
type runner func(s *graph.Sim, set graph.Settings) (*graph.Result, error)

var fixedStepModes = map[string]runner{
	"co-simulation": func(s *graph.Sim, set graph.Settings) (*graph.Result, error) {
		return s.Run(context.Background(), set)
	},
	"monolithic": func(s *graph.Sim, set graph.Settings) (*graph.Result, error) {
		m, _ := integrators.ByName(integrators.MethodRK4)
		return s.RunMonolithic(context.Background(), m, nil, set)
	},
}

// The observer sees the start, every k-th step and the end, with the
// step's time (t0 + n·dt exactly, as Sim.Time computes it) and the state
// of that step: the value it reads through a Field is the one a run of
// exactly that many steps ends with.
func TestObserverFixedStep(t *testing.T) {
	for name, run := range fixedStepModes {
		for _, every := range []int{0, 1, 3} {
			t.Run(fmt.Sprintf("%s/every=%d", name, every), func(t *testing.T) {
				const dt, steps = 1e-3, 10
				s, err := chain(3).Build()
				if err != nil {
					t.Fatal(err)
				}
				var calls []call
				set := graph.Settings{Dt: dt, Steps: steps, Observer: recorder(t, s, &calls, -1, nil), ObserveEvery: every}
				if _, err := run(s, set); err != nil {
					t.Fatal(err)
				}
				k := max(every, 1)
				var want []int // the observed step numbers, start and end included
				want = append(want, 0)
				for n := k; n <= steps; n += k {
					want = append(want, n)
				}
				want = append(want, steps)
				if len(calls) != len(want) {
					t.Fatalf("%d calls, want %d (start, every %d steps, end): %+v", len(calls), len(want), k, calls)
				}
				for i, c := range calls {
					phase := graph.ObserveStep
					switch i {
					case 0:
						phase = graph.ObserveStart
					case len(calls) - 1:
						phase = graph.ObserveEnd
					}
					if c.phase != phase || c.step != want[i] || c.t != float64(want[i])*dt || c.err != nil {
						t.Errorf("call %d = %+v, want phase %v, step %d, t = %v", i, c, phase, want[i], float64(want[i])*dt)
					}
					// The value read is the state after want[i] steps.
					ref, _ := chain(3).Build()
					if want[i] > 0 {
						if _, err := run(ref, graph.Settings{Dt: dt, Steps: want[i]}); err != nil {
							t.Fatal(err)
						}
					}
					x, _ := ref.Value("m1.x")
					if c.x != x[0] {
						t.Errorf("call %d read m1.x = %v, a run of %d steps ends at %v", i, c.x, want[i], x[0])
					}
				}
			})
		}
	}
}

// The view's stats are the work so far: RK4 evaluates its right-hand
// side four times a step; co-simulation updates every stateful node once
// a step (three masses).
func TestObserverStats(t *testing.T) {
	for name, run := range fixedStepModes {
		s, _ := chain(3).Build()
		bad := 0
		obs := graph.ObserverFunc(func(v *graph.View) error {
			var got int64
			want := int64(v.Step) * 4
			if name == "monolithic" {
				got = int64(v.Stats.Evaluations)
			} else {
				got, want = v.Stats.NodeUpdates, int64(v.Step)*3
			}
			if got != want || v.Steps != 7 || v.End != 7e-3 || v.Fraction() != float64(v.Step)/7 {
				bad++
				t.Errorf("%s: %+v", name, v)
			}
			return nil
		})
		if _, err := run(s, graph.Settings{Dt: 1e-3, Steps: 7, Observer: obs}); err != nil {
			t.Fatal(err)
		}
	}
}

// An error from the observer stops the run at the observed step: the
// state is the one of that step (equal to a run of that many steps), and
// the error returned wraps the observer's, for errors.Is and errors.As.
// The end call still comes, with the error.
func TestObserverStops(t *testing.T) {
	stop := errors.New("enough")
	for name, run := range fixedStepModes {
		t.Run(name, func(t *testing.T) {
			s, _ := chain(3).Build()
			var calls []call
			res, err := run(s, graph.Settings{Dt: 1e-3, Steps: 100, Observer: recorder(t, s, &calls, 5, stop), ObserveEvery: 1})
			var oe *graph.ObserverError
			if !errors.Is(err, stop) || !errors.As(err, &oe) || oe.Step != 5 || oe.Phase != graph.ObserveStep {
				t.Fatalf("error %v, want the observer's at step 5", err)
			}
			if res.Steps != 5 || s.Time() != 5e-3 || s.StepCount() != 5 {
				t.Errorf("stopped after %d steps at t = %v, want 5 steps at 0.005", res.Steps, s.Time())
			}
			ref, _ := chain(3).Build()
			if _, err := run(ref, graph.Settings{Dt: 1e-3, Steps: 5}); err != nil {
				t.Fatal(err)
			}
			if a, b := s.State(nil), ref.State(nil); !reflect.DeepEqual(a, b) {
				t.Errorf("state %v, a run of 5 steps: %v", a, b)
			}
			last := calls[len(calls)-1]
			if len(calls) != 7 || last.phase != graph.ObserveEnd || !errors.Is(last.err, stop) {
				t.Errorf("calls %+v: want start, 5 steps and the end with the error", calls)
			}
		})
	}
	t.Run("at start", func(t *testing.T) {
		s, _ := chain(3).Build()
		obs := graph.ObserverFunc(func(v *graph.View) error {
			if v.Phase == graph.ObserveStart {
				return stop
			}
			return nil
		})
		res, err := s.Run(context.Background(), graph.Settings{Dt: 1e-3, Steps: 100, Observer: obs})
		if !errors.Is(err, stop) || res.Steps != 0 || s.Time() != 0 {
			t.Errorf("error %v after %d steps, want the observer's before any", err, res.Steps)
		}
	})
	t.Run("negative every", func(t *testing.T) {
		s, _ := chain(3).Build()
		_, err := s.Run(context.Background(), graph.Settings{Dt: 1e-3, Steps: 1, ObserveEvery: -1})
		if err == nil || err.Error() != "graph: Settings.ObserveEvery = -1 is negative" {
			t.Errorf("error %v", err)
		}
	})
}

// Integrate calls the observer after every accepted step with the Sim at
// that step's state, and integrates exactly as without an observer: the
// ball on the table (events located and reset) gives the same result,
// bit for bit, samples, events and statistics included.
func TestObserverIntegrate(t *testing.T) {
	dp := integrators.DormandPrince{RTol: 1e-10, ATol: 1e-12}
	set := &integrators.DriverOptions{Output: []float64{0, 0.5, 1, 2.5, 4}}
	plain := ballTable(t)
	want, err := plain.Integrate(context.Background(), 4, dp, set)
	if err != nil {
		t.Fatal(err)
	}
	s := ballTable(t)
	h, err := s.Field("ball.position")
	if err != nil {
		t.Fatal(err)
	}
	var steps, ends int
	last := 0.0
	got, err := s.Integrate(context.Background(), 4, dp, set, graph.ObserverFunc(func(v *graph.View) error {
		switch v.Phase {
		case graph.ObserveStep:
			steps++
			if v.Step != steps || !(v.Time > last) || v.Stats.Steps != steps {
				t.Errorf("step call %d: %+v after t = %v", steps, v, last)
			}
			if z, err := h.At(0); err != nil || z < -1e-9 {
				t.Errorf("t = %v: ball height %v (%v) below the table", v.Time, z, err)
			}
		case graph.ObserveEnd:
			ends++
			if v.Time != 4 || v.End != 4 {
				t.Errorf("end call %+v", v)
			}
		}
		last = v.Time
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	got.Wall, want.Wall = 0, 0
	if !reflect.DeepEqual(got, want) {
		t.Errorf("observed run differs:\n got %+v\nwant %+v", got, want)
	}
	if steps != want.Steps || ends != 1 || len(want.Integrator.Events) == 0 {
		t.Errorf("%d step calls and %d end calls for %d accepted steps (%d events)", steps, ends, want.Steps, len(want.Integrator.Events))
	}
	if !reflect.DeepEqual(s.State(nil), plain.State(nil)) || s.Time() != plain.Time() {
		t.Error("end states differ")
	}

	// Stopping: the state is the observed one, the status StoppedByObserver.
	stop := errors.New("stop here")
	s = ballTable(t)
	var at float64
	res, err := s.Integrate(context.Background(), 4, integrators.DormandPrince{}, nil, graph.ObserverFunc(func(v *graph.View) error {
		if v.Phase == graph.ObserveStep && v.Step == 3 {
			at = v.Time
			return stop
		}
		return nil
	}))
	if !errors.Is(err, stop) || res.Status != graph.StoppedByObserver || res.Steps != 3 || res.Time != at || s.Time() != at {
		t.Errorf("error %v, status %v, %d steps, t = %v (stopped at %v)", err, res.Status, res.Steps, res.Time, at)
	}
}

// strayAllocs is how many allocations of the runtime's own (other
// goroutines, timers, the garbage collector's bookkeeping) a count of
// testing.AllocsPerRun may include on a loaded machine: the observer
// checks compare runs whose per-step allocations would differ by
// hundreds.
const strayAllocs = 2

// Observing costs no allocation per step: a run of 1 000 steps allocates
// what a run of 10 does (its set-up), reading a field at every step.
func TestObserverNoAllocation(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for name, run := range fixedStepModes {
		s, _ := chain(3).Build()
		f, _ := s.Field("m2.x")
		buf := make([]float64, 1)
		sum := 0.0
		obs := graph.ObserverFunc(func(v *graph.View) error {
			if err := f.Get(buf); err != nil {
				return err
			}
			sum += buf[0] * v.Fraction()
			return nil
		})
		allocs := func(steps int) float64 {
			return numtest.AllocsPerRun(5, func() {
				if _, err := run(s, graph.Settings{Mode: graph.CoSimulation{Workers: 1}, Dt: 1e-4, Steps: steps, Observer: obs}); err != nil {
					t.Fatal(err)
				}
			})
		}
		// AllocsPerRun counts every goroutine's allocations, and under
		// load the runtime makes one now and then; an allocation per
		// step or per observation would add about 990 here.
		if a, b := allocs(10), allocs(1000); !numtest.Within(b, a, strayAllocs) {
			t.Errorf("%s: %v allocations for 10 steps, %v for 1000", name, a, b)
		}
	}
	s, _ := chain(3).Build()
	f, _ := s.Field("m2.x")
	n := 0
	obs := graph.ObserverFunc(func(v *graph.View) error {
		_, err := f.At(0)
		n++
		return err
	})
	end := 0.0
	allocs := func(span float64) (float64, int) {
		n = 0
		a := numtest.AllocsPerRun(1, func() {
			end += span
			if _, err := s.Integrate(context.Background(), end, integrators.DormandPrince{RTol: 1e-9, ATol: 1e-12}, nil, obs); err != nil {
				t.Fatal(err)
			}
		})
		return a, n
	}
	a1, n1 := allocs(0.01)
	a2, n2 := allocs(1)
	if !numtest.Within(a2, a1, strayAllocs) || n2 < 10*n1 || math.IsNaN(end) {
		t.Errorf("Integrate: %v allocations for %d observed steps, %v for %d", a1, n1, a2, n2)
	}
}
