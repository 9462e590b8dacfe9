package fmi_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/fmitest"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// stepEventSim loads cosim's step-event test FMU (testdata/stepevent:
// x' = 1 + n; an accepted step ending with x ≥ 1 asks for a step event,
// whose update sets x to 0, adds 1 to n and records the time in te) for
// model exchange, alone in a graph.
func stepEventSim(t *testing.T, params map[string]any) *graph.Sim {
	t.Helper()
	td := filepath.Join(fmitest.ModuleRoot(t), "fmi", "testdata", "stepevent")
	hdr := fmitest.HeadersDir(t)
	headers, _ := filepath.Glob(filepath.Join(hdr, "*.h"))
	headers = append(headers, filepath.Join(td, "..", "fmustate.h"))
	dir, _ := fmitest.Package(t, "stepevent", "stepevent", filepath.Join(td, "stepevent.xml"),
		[]string{"-DFMI_VERSION=3", "-I" + hdr}, []string{filepath.Join(td, "stepevent.c")}, headers, nil)
	n, err := fmi.Load(dir, fmi.Options{Interface: fmi.InterfaceModelExchange, Params: params})
	if err != nil {
		t.Fatal(err)
	}
	g := graph.New()
	g.Add("se", n)
	s, err := g.Build()
	if err != nil {
		n.(interface{ Close() error }).Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestStepEventFixed: a fixed-step monolithic run (RK4, dt = 0.07)
// handles the FMU's step events as the standard's importer does — event
// update at the end of the accepted step, integration restarted from the
// new state — and reproduces, at every step, an independent replay of
// the model on the same grid (x += (1 + n)·dt, then the event rule),
// to 1e-12: RK4 is exact on x' = const, so only rounding differs. The
// threshold is never within 0.04 of a grid value, so rounding cannot
// move an event.
func TestStepEventFixed(t *testing.T) {
	s := stepEventSim(t, nil)
	const dt, steps = 0.07, 40
	res, err := s.Run(context.Background(), graph.Settings{Dt: dt, Steps: steps, Mode: graph.Monolithic{Method: integrators.RK4{}},
		Record: []string{"se.x", "se.n", "se.te"}})
	if err != nil {
		t.Fatal(err)
	}
	h := res.History
	xs, ns, tes := h.Column("se.x"), h.Column("se.n"), h.Column("se.te")
	x, n, te, events := 0.0, 0.0, 0.0, 0
	for k := 1; k <= steps; k++ {
		x += (1 + n) * dt
		tk := float64(k) * dt
		if x >= 1 {
			x, n, te = 0, n+1, tk
			events++
		}
		if !numtest.Within(xs[k], x, 1e-12) || ns[k] != n || !numtest.Within(tes[k], te, 1e-12) {
			t.Errorf("t=%v: x, n, te = %v, %v, %v; the replay gives %v, %v, %v", h.Times[k], xs[k], ns[k], tes[k], x, n, te)
		}
	}
	if events < 4 || res.StepEvents != events {
		t.Errorf("%d step events in the result, the replay has %d (want at least 4)", res.StepEvents, events)
	}
}

// TestStepEventAdaptive: adaptive Dormand–Prince (steps at most 0.05)
// handles them too. Reference: the closed form x(t) = (1 + n)·(t − te)
// between events, which holds at every recorded sample to 1e-12 only if
// the integrator restarted from the FMU's new state with its new
// derivative (Dormand–Prince's FSAL stage from before the event would
// leave it); and each event is prompt — the piece after event k lasts
// at least 1/(k+1), the time x needs to reach 1, and at most one step
// more.
func TestStepEventAdaptive(t *testing.T) {
	s := stepEventSim(t, nil)
	const hmax = 0.05
	res, err := s.Run(context.Background(), graph.Settings{End: 3, Dt: 0.01, Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{RTol: 1e-8, ATol: 1e-10, MaxStep: hmax}},
		Record: []string{"se.x", "se.n", "se.te"}})
	if err != nil {
		t.Fatal(err)
	}
	h := res.History
	ns, tes := closedForm(t, h)
	// The event times, from the recorded te.
	var te []float64
	for k := range h.Times {
		if k > 0 && ns[k] != ns[k-1] {
			te = append(te, tes[k])
		}
	}
	if len(te) < 4 || res.StepEvents < len(te) {
		t.Fatalf("events at %v, %d in the result: want at least 4, all counted", te, res.StepEvents)
	}
	prev := 0.0
	for k, tk := range te {
		if d, least := tk-prev, 1/float64(k+1); d < least-1e-12 || d > least+hmax+1e-12 {
			t.Errorf("event %d at t=%v, %v after the last: want within [%v, %v]", k+1, tk, d, least, least+hmax)
		}
		prev = tk
	}
}

// TestStepEventTerminate: an FMU that asks in fmi3CompletedIntegratorStep
// to terminate the simulation ends a monolithic run there, cleanly:
// status StoppedByEvent, no error, the state of that time, and the
// Result's StopCause naming the FMU and the time (and wrapping
// fmi.ErrTerminated). Fixed-step and adaptive.
func TestStepEventTerminate(t *testing.T) {
	for _, adaptive := range []bool{false, true} {
		s := stepEventSim(t, map[string]any{"stop_at": 0.5})
		set := graph.Settings{Dt: 0.07, Steps: 40, Mode: graph.Monolithic{Method: integrators.RK4{}}}
		want := 0.56 // the first step end at or after 0.5
		if adaptive {
			set = graph.Settings{End: 3, Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{MaxStep: 0.05}}}
		}
		res, err := s.Run(context.Background(), set)
		if err != nil {
			t.Fatalf("adaptive %v: %v", adaptive, err)
		}
		if res.Status != graph.StoppedByEvent || !errors.Is(res.StopCause, fmi.ErrTerminated) {
			t.Fatalf("adaptive %v: status %v, cause %v: want StoppedByEvent and a cause wrapping ErrTerminated", adaptive, res.Status, res.StopCause)
		}
		tt := s.Time()
		if adaptive && (tt < 0.5 || tt > 0.55+1e-12) || !adaptive && !numtest.Within(tt, want, 1e-12) {
			t.Errorf("adaptive %v: stopped at t=%v", adaptive, tt)
		}
		msg := res.StopCause.Error()
		if !adaptive {
			docQuotes(t, res.StopCause)
		}
		for _, w := range []string{"node se", "FMU StepEvent", "fmi3CompletedIntegratorStep asked to terminate", "t=" + node.FormatValue(tt)} {
			if !strings.Contains(msg, w) {
				t.Errorf("adaptive %v: cause %q does not say %q", adaptive, msg, w)
			}
		}
		if x, _ := s.Value("se.x"); !numtest.Within(x[0], tt, 1e-12) {
			t.Errorf("adaptive %v: x = %v at t=%v, want x = t (no event yet)", adaptive, x[0], tt)
		}
	}
}

// TestStepEventOwnIntegration: in a co-simulation run the node
// integrates the FMU itself over each Update (adaptive Dormand–Prince)
// and handles its step events inside the step the same way; the
// closed form x = (1 + n)·(t − te) holds at every communication point to
// 1e-12, and events happen.
func TestStepEventOwnIntegration(t *testing.T) {
	s := stepEventSim(t, nil)
	res, err := s.Run(context.Background(), graph.Settings{Dt: 0.07, Steps: 40, Record: []string{"se.x", "se.n", "se.te"}})
	if err != nil {
		t.Fatal(err)
	}
	h := res.History
	ns, _ := closedForm(t, h)
	if last := ns[len(ns)-1]; last < 4 {
		t.Errorf("%v step events by t=%v, want at least 4", last, h.Times[len(h.Times)-1])
	}
}

// closedForm checks the recorded x against the step-event FMU's closed
// form x = (1 + n)·(t − te) at every row, to 1e-12 (rounding only: x is
// linear between events), and returns the recorded n and te.
func closedForm(t *testing.T, h *graph.History) (ns, tes []float64) {
	t.Helper()
	xs, ns, tes := h.Column("se.x"), h.Column("se.n"), h.Column("se.te")
	for k, tk := range h.Times {
		if want := (1 + ns[k]) * (tk - tes[k]); !numtest.Within(xs[k], want, 1e-12) {
			t.Errorf("t=%v: x = %v, closed form (1 + %v)·(t − %v) = %v", tk, xs[k], ns[k], tes[k], want)
		}
	}
	return ns, tes
}
