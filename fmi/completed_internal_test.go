package fmi

import (
	"context"
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/fmitest"
	"github.com/cosimgo/cosim/internal/numtest"
)

// countingInstance counts an FMU's fmi*CompletedIntegratorStep calls,
// recording the time last set in the FMU at each, and can make the FMU
// ask for a step event.
type countingInstance struct {
	instance
	n     *ModelExchangeNode
	times []float64
	enter bool
}

func (c *countingInstance) completedIntegratorStep() (bool, bool, error) {
	c.times = append(c.times, c.n.lastT)
	e, term, err := c.instance.completedIntegratorStep()
	return e || c.enter, term, err
}

// countedME loads the Reference FMU Dahlquist (x' = −k·x, k = 1, x0 = 1)
// for model exchange with its calls counted, in a graph of its own.
func countedME(t *testing.T, v int) (*graph.Sim, *countingInstance) {
	t.Helper()
	f := fmitest.Reference(t, "Dahlquist", v)
	nn, err := Load(f.Dir, Options{Interface: InterfaceModelExchange})
	if err != nil {
		t.Fatal(err)
	}
	n := nn.(*ModelExchangeNode)
	t.Cleanup(func() { n.Close() })
	c := &countingInstance{instance: n.inst, n: n}
	n.inst = c
	g := graph.New()
	g.Add("d", n)
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, c
}

// TestCompletedIntegratorStepMonolithic: in a graph's monolithic runs, a
// model-exchange FMU that needs fmi2CompletedIntegratorStep (the FMI 2.0
// Reference Dahlquist: it does not declare
// completedIntegratorStepNotNeeded) gets one call per accepted step,
// with the FMU's time set to the step's end first, fixed-step and
// adaptive; one that does not need it (the FMI 3.0 Dahlquist:
// needsCompletedIntegratorStep defaults to false) gets none. The results
// are the exact solution's to the methods' accuracy, so the calls did
// not disturb the integration.
func TestCompletedIntegratorStepMonolithic(t *testing.T) {
	s, c := countedME(t, 2)
	res, err := s.Run(context.Background(), graph.Settings{Dt: 0.1, Steps: 10, Mode: graph.Monolithic{Method: integrators.RK4{}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.times) != 10 {
		t.Fatalf("fixed step: %d calls for %d steps, want 10", len(c.times), res.Steps)
	}
	for k, tk := range c.times {
		if want := float64(k+1) * 0.1; !numtest.Within(tk, want, 1e-12) {
			t.Errorf("fixed step: call %d with the FMU at t=%v, want the step's end %v", k, tk, want)
		}
	}
	x, _ := s.Value("d.x")
	// RK4's global error at h = 0.1 over [0, 1] is about 1e-6 relative.
	if rel := math.Abs(x[0]-math.Exp(-1)) / math.Exp(-1); rel > 1e-5 {
		t.Errorf("fixed step: x(1) = %v, exp(−1) = %v, relative error %.2g > 1e-5", x[0], math.Exp(-1), rel)
	}

	s, c = countedME(t, 2)
	res, err = s.Run(context.Background(), graph.Settings{End: 2, Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{RTol: 1e-9, ATol: 1e-12}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.times) != res.Steps || res.Steps < 2 {
		t.Fatalf("adaptive: %d calls for %d accepted steps, want one per accepted step", len(c.times), res.Steps)
	}
	if last := c.times[len(c.times)-1]; last != 2 {
		t.Errorf("adaptive: last call with the FMU at t=%v, want the end 2", last)
	}

	s, c = countedME(t, 3)
	if _, err := s.Run(context.Background(), graph.Settings{Dt: 0.1, Steps: 10, Mode: graph.Monolithic{Method: integrators.RK4{}}}); err != nil {
		t.Fatal(err)
	}
	if len(c.times) != 0 {
		t.Errorf("FMI 3.0 Dahlquist (needsCompletedIntegratorStep false): %d calls, want none", len(c.times))
	}
}

// TestCompletedIntegratorStepEvent: an FMI 2.0 FMU (the Reference
// Dahlquist, made to ask for a step event at every accepted step) gets
// its event update at the end of each step of a monolithic run and the
// integrator restarts there; Dahlquist's update changes nothing, so the
// result is still exp(−t) to the method's accuracy (RK4 at h = 0.1:
// about 1e-6 relative at t = 1; Dormand–Prince at rtol 1e-9, restarted
// every step) and every step counts one step event.
func TestCompletedIntegratorStepEvent(t *testing.T) {
	for _, adaptive := range []bool{false, true} {
		s, c := countedME(t, 2)
		c.enter = true
		set := graph.Settings{Dt: 0.1, Steps: 10, Mode: graph.Monolithic{Method: integrators.RK4{}}}
		tol := 1e-5
		if adaptive {
			set = graph.Settings{End: 1, Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{RTol: 1e-9, ATol: 1e-12}}}
			tol = 1e-7
		}
		res, err := s.Run(context.Background(), set)
		if err != nil {
			t.Fatal(err)
		}
		if res.StepEvents != res.Steps || len(c.times) != res.Steps {
			t.Errorf("adaptive %v: %d step events, %d calls for %d steps: want one each per step", adaptive, res.StepEvents, len(c.times), res.Steps)
		}
		x, _ := s.Value("d.x")
		if rel := math.Abs(x[0]-math.Exp(-1)) / math.Exp(-1); s.Time() != 1 || rel > tol {
			t.Errorf("adaptive %v: x(%v) = %v, exp(−1) = %v, relative error %.2g > %g", adaptive, s.Time(), x[0], math.Exp(-1), rel, tol)
		}
	}
}
