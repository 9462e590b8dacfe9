package graph_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/benchmarks"
	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/table"
)

// The ball on the table (h0 = 10 m, e = 0.9, g = 9.81) run to 3 s: one
// impact, at t1 = √(2·h0/g) = 1.4278 s (the second is at t1 + 2·e·g·t1/g =
// 3.998 s), after which h(t) = v1·(t−t1) − g/2·(t−t1)², v1 = e·g·t1.
const (
	resH0, resE, resG = 10.0, 0.9, 9.81
	resEnd, resDt     = 3.0, 1e-3
)

func resImpact() float64 { return math.Sqrt(2 * resH0 / resG) }

func resHeight(t float64) float64 {
	t1 := resImpact()
	v1 := resE * resG * t1
	return v1*(t-t1) - resG/2*(t-t1)*(t-t1)
}

// resModes are the three ways of running a Sim, each selected by the
// Settings alone and run by the one entry point, Sim.Run.
func resModes() []struct {
	name   string
	mode   graph.Mode
	method string
	set    func(graph.Settings) graph.Settings
} {
	return []struct {
		name   string
		mode   graph.Mode
		method string
		set    func(graph.Settings) graph.Settings
	}{
		{"co-simulation", graph.CoSimulation{}, "jacobi", func(s graph.Settings) graph.Settings { return s }},
		{"monolithic rk4", graph.Monolithic{}, integrators.MethodRK4, func(s graph.Settings) graph.Settings {
			s.Mode = graph.Monolithic{Method: integrators.RK4{}}
			return s
		}},
		{"adaptive", graph.MonolithicAdaptive{}, integrators.MethodDormandPrince, func(s graph.Settings) graph.Settings {
			s.Mode = graph.MonolithicAdaptive{Method: integrators.DormandPrince{RTol: 1e-10, ATol: 1e-12}}
			return s
		}},
	}
}

// Co-simulation, fixed-step monolithic RK4 and adaptive Dormand–Prince
// run the ball scene through Sim.Run with the same Settings but for the
// mode, and return the same Result type whose Stats and Status mean the
// same thing: the run ended at 3 s (EndReached), Steps counts the steps
// (3 000 of 1 ms for the fixed-step modes, the accepted steps when
// adaptive), Time is the Sim's time, the History holds the recorded rows
// at the same times in every mode (every 500 steps of 1 ms; the adaptive
// run samples its dense output there), the height at 3 s is the closed
// form's, and the mode-specific counts sit where they belong.
func TestResultModes(t *testing.T) {
	for _, m := range resModes() {
		t.Run(m.name, func(t *testing.T) {
			s := ballTable(t)
			set := m.set(graph.Settings{Dt: resDt, End: resEnd, Record: []string{"ball.position"}, RecordEvery: 500})
			res, err := s.Run(context.Background(), set)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != graph.EndReached || res.Status.Err() != nil || fmt.Sprintf("%T", res.Mode) != fmt.Sprintf("%T", m.mode) || res.Method != m.method {
				t.Errorf("status %v (%v), mode %v, method %q; want EndReached, %v, %q", res.Status, res.Status.Err(), res.Mode, res.Method, m.mode, m.method)
			}
			// Time: the fixed-step modes end at n·dt, within one rounding
			// of 3; the adaptive driver ends on End exactly.
			if res.Time != s.Time() || !numtest.Within(res.Time, resEnd, 1e-12) {
				t.Errorf("Time %v, Sim at %v; want %v", res.Time, s.Time(), resEnd)
			}
			if res.Wall <= 0 {
				t.Errorf("Wall %v", res.Wall)
			}
			// Every 0.5 s from 0 to 3: seven rows, the same times in
			// every mode (to one rounding of n·dt).
			if h := res.History; h == nil || len(h.Times) != 7 {
				t.Fatalf("history %+v; want 7 rows", h)
			}
			for i, ti := range res.History.Times {
				if !numtest.Within(ti, 0.5*float64(i), 1e-12) {
					t.Errorf("row %d at t = %v, want %v", i, ti, 0.5*float64(i))
				}
			}
			// The height at 3 s. Tolerances: co-simulation, whose ball
			// resolves contact at the end of the step that passes the
			// table, is first order in dt: the impact is late by up to
			// one step, an error of about v1·dt = 12.6 mm; RK4 and the
			// adaptive driver locate the impact to their event
			// tolerance and integrate a parabola exactly, to rounding.
			h, _ := s.Value("ball.position")
			tol := 1e-9
			if _, co := m.mode.(graph.CoSimulation); co {
				tol = 2e-2
			}
			if d := math.Abs(h[0] - resHeight(resEnd)); d > tol {
				t.Errorf("h(3) = %.12g, closed form %.12g (|Δ| = %.3g > %g)", h[0], resHeight(resEnd), d, tol)
			}
			switch m.mode.(type) {
			case graph.CoSimulation:
				if res.Steps != 3000 || res.NodeUpdates == 0 || res.NodeUpdates%int64(res.Steps) != 0 || res.Integrator != nil ||
					res.Evaluations != 0 || res.Events != 0 || res.Rejected != 0 {
					t.Errorf("co-simulation stats %+v, integrator %v", res.Stats, res.Integrator)
				}
			case graph.Monolithic:
				// The integrator's own Steps count its partial steps to
				// and from the located impact as well.
				in := res.Integrator
				if res.Steps != 3000 || in == nil || in.Steps < 3000 || res.Events != 1 || in.EventsHandled != 1 ||
					res.Evaluations != int64(in.FuncEvals) || res.Evaluations < 4*3000 || res.NodeUpdates != 0 {
					t.Errorf("RK4 stats %+v, integrator %+v", res.Stats, in)
				}
			case graph.MonolithicAdaptive:
				in := res.Integrator
				if in == nil || res.Steps == 0 || res.Steps != in.Steps || res.Rejected != in.Rejected ||
					res.Evaluations != int64(in.FuncEvals) || res.Events != 1 || len(in.Events) != 1 || len(in.Samples) != 7 {
					t.Fatalf("adaptive stats %+v, integrator %+v", res.Stats, in)
				}
				// The located impact, to the driver's event tolerance.
				if d := math.Abs(in.Events[0].T - resImpact()); !numtest.AtMost(d, 1e-9) {
					t.Errorf("impact at %.12g, want %.12g", in.Events[0].T, resImpact())
				}
			}
		})
	}
}

// Sim.RunMonolithic and Sim.Integrate are Run with the mode's settings:
// the same Result, bit for bit but for the wall-clock time.
func TestResultThinForms(t *testing.T) {
	rk4, _ := integrators.ByName(integrators.MethodRK4)
	dp := integrators.DormandPrince{RTol: 1e-9, ATol: 1e-12}
	a, b := ballTable(t), ballTable(t)
	ra, err := a.RunMonolithic(context.Background(), rk4, nil, graph.Settings{Dt: resDt, End: 2})
	if err != nil {
		t.Fatal(err)
	}
	rb, err := b.Run(context.Background(), graph.Settings{Mode: graph.Monolithic{Method: rk4}, Dt: resDt, End: 2})
	if err != nil {
		t.Fatal(err)
	}
	sameResult(t, "RunMonolithic", ra, rb)
	a, b = ballTable(t), ballTable(t)
	ra, err = a.Integrate(context.Background(), 2, dp, nil)
	if err != nil {
		t.Fatal(err)
	}
	rb, err = b.Run(context.Background(), graph.Settings{Mode: graph.MonolithicAdaptive{Method: dp}, End: 2})
	if err != nil {
		t.Fatal(err)
	}
	sameResult(t, "Integrate", ra, rb)
	// With driver options (sample times, event tolerance) and the
	// adaptive driver's defaults (Method nil): Integrate's opts are
	// MonolithicAdaptive.Options, and the samples are the Result's.
	opts := &integrators.DriverOptions{Output: []float64{0, 0.5, 1.5, 2}, EventTol: 1e-10}
	a, b = ballTable(t), ballTable(t)
	ra, err = a.Integrate(context.Background(), 2, integrators.DormandPrince{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	rb, err = b.Run(context.Background(), graph.Settings{Mode: graph.MonolithicAdaptive{Options: opts}, End: 2})
	if err != nil {
		t.Fatal(err)
	}
	sameResult(t, "Integrate with options", ra, rb)
	if got := len(rb.Integrator.Samples); got != len(opts.Output) || rb.Integrator.Samples[1].T != 0.5 {
		t.Errorf("samples %+v, want one at each of %v", rb.Integrator.Samples, opts.Output)
	}
}

// sameResult compares two Results but for their wall-clock times.
func sameResult(t *testing.T, name string, a, b *graph.Result) {
	t.Helper()
	ac, bc := *a, *b
	ac.Wall, bc.Wall = 0, 0
	if !reflect.DeepEqual(ac, bc) {
		t.Errorf("%s: %+v %+v\nRun: %+v %+v", name, ac, ac.Integrator, bc, bc.Integrator)
	}
}

// Every mode reports how its run ended in the same Status: a cancelled
// context (Cancelled, the context's error, the state untouched), an
// Observer's error (StoppedByObserver after the observed step, an
// *ObserverError) and a failing node (Failed, the node's error, the last
// good state).
func TestResultStatus(t *testing.T) {
	for _, m := range resModes() {
		t.Run(m.name, func(t *testing.T) {
			// Cancelled before the first step.
			s := ballTable(t)
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			res, err := s.Run(ctx, m.set(graph.Settings{Dt: resDt, End: resEnd}))
			if !errors.Is(err, context.Canceled) || res == nil || res.Status != graph.Cancelled || res.Steps != 0 || res.Time != 0 || s.Time() != 0 {
				t.Errorf("cancelled: err %v, result %+v", err, res)
			} else if !errors.Is(res.Status.Err(), graph.ErrCancelled) {
				t.Errorf("Cancelled.Err() = %v", res.Status.Err())
			}

			// Stopped by the Observer after its fifth step.
			s = ballTable(t)
			stop := errors.New("enough")
			var at float64
			set := m.set(graph.Settings{Dt: resDt, End: resEnd})
			set.Observer = graph.ObserverFunc(func(v *graph.View) error {
				if v.Phase == graph.ObserveStep && v.Step == 5 {
					at = v.Time
					if v.Stats.Steps != 5 || v.Stats.Time != v.Time {
						t.Errorf("view stats %+v at step %d, t = %v", v.Stats, v.Step, v.Time)
					}
					return stop
				}
				return nil
			})
			res, err = s.Run(context.Background(), set)
			var oe *graph.ObserverError
			if !errors.Is(err, stop) || !errors.As(err, &oe) || res == nil || res.Status != graph.StoppedByObserver ||
				res.Steps != 5 || res.Time != at || s.Time() != at || !(at > 0) {
				t.Errorf("observer stop: err %v, result %+v, observed at %v", err, res, at)
			}

			// Failed: node m fails from t = 0.05 (in Update when
			// co-simulated, in Derivatives otherwise).
			fail := "derivatives"
			if _, co := m.mode.(graph.CoSimulation); co {
				fail = "update"
			}
			s = fieldGraph(t, fail, 0.05)
			res, err = s.Run(context.Background(), m.set(graph.Settings{Dt: 0.01, End: 1}))
			var se *node.StateError
			if !errors.As(err, &se) || se.Node != "m" || res == nil || res.Status != graph.Failed ||
				res.Time != s.Time() || !(res.Time < 0.05+1e-12) || res.Steps == 0 {
				t.Errorf("failure: err %v, result %+v", err, res)
			}
		})
	}
}

// stopAtImpact is the ball whose contact ends the run: its Reset applies
// the ball's own reset map, then returns node.ErrStop. It forwards the
// capabilities a monolithic run uses (and not the ball's batch kernel,
// which is for *ball.Node only).
type stopAtImpact struct{ b *ball.Node }

func (n stopAtImpact) Spec() *node.Spec           { return n.b.Spec() }
func (n stopAtImpact) InitialState(dst []float64) { n.b.InitialState(dst) }
func (n stopAtImpact) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	return n.b.Update(t, dt, x, in, dst)
}
func (n stopAtImpact) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	return n.b.Derivatives(t, x, in, dst)
}
func (n stopAtImpact) EventValues(t float64, x []float64, in node.Inputs, dst []float64) error {
	return n.b.EventValues(t, x, in, dst)
}
func (n stopAtImpact) Reset(event int, t float64, x []float64, in node.Inputs, dst []float64) error {
	if err := n.b.Reset(event, t, x, in, dst); err != nil {
		return err
	}
	return node.ErrStop
}

// A node event whose reset returns node.ErrStop ends a monolithic run at
// the event, fixed step or adaptive, with Status StoppedByEvent and no
// error: the time is the located impact (t1 = √(2·h0/g), to the event
// tolerance), the state the reset one (the ball leaving the table at
// e·g·t1), the event counted, and the last state recorded.
func TestResultStoppedByEvent(t *testing.T) {
	for _, m := range resModes()[1:] { // co-simulated nodes handle events inside Update
		t.Run(m.name, func(t *testing.T) {
			p := ball.DefaultParams()
			p.InitialPosition, p.Elasticity = resH0, resE
			b, err := ball.New(p)
			if err != nil {
				t.Fatal(err)
			}
			tb, _ := table.New(table.DefaultParams())
			g := graph.New()
			g.Add("ball", stopAtImpact{b})
			g.Add("table", tb)
			g.Connect("table.position", "ball.table_position")
			s, err := g.Build()
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Run(context.Background(), m.set(graph.Settings{Dt: resDt, End: resEnd, Record: []string{"ball.velocity"}, RecordEvery: 100}))
			if err != nil || res.Status != graph.StoppedByEvent || res.Status.Err() != nil {
				t.Fatalf("err %v, status %v", err, res.Status)
			}
			// Event tolerance: the fixed-step wrapper and the adaptive
			// driver both locate the crossing to 1e-9 s or better here.
			t1 := resImpact()
			if !numtest.Within(res.Time, t1, 1e-9) || res.Time != s.Time() || res.Events != 1 {
				t.Errorf("stopped at %.12g (Sim %.12g), %d events; want the impact at %.12g", res.Time, s.Time(), res.Events, t1)
			}
			v, _ := s.Value("ball.velocity")
			if !numtest.Within(v[0], resE*resG*t1, 1e-6) {
				t.Errorf("velocity after the reset %v, want %v", v[0], resE*resG*t1)
			}
			h := res.History
			if last := len(h.Times) - 1; last < 0 || h.Times[last] != res.Time || h.Rows[last][0] != v[0] {
				t.Errorf("history ends at %v, want the stop at %v with v = %v", h.Times, res.Time, v[0])
			}
			// A later run continues from the stop.
			again, err := s.Run(context.Background(), m.set(graph.Settings{Dt: resDt, End: resEnd}))
			if err != nil || again.Status != graph.StoppedByEvent && again.Status != graph.EndReached || !(again.Time > res.Time) {
				t.Errorf("continued run: err %v, result %+v", err, again)
			}
		})
	}
}

// embeddedMode satisfies graph.Mode through the mode it embeds, and is
// not one of Run's modes.
type embeddedMode struct{ graph.CoSimulation }

// Settings a mode cannot run are an error before any step, naming the
// field. Mixing the modes (a coupling strategy with an integration
// method, driver options in co-simulation) is not expressible: each
// Mode value holds the options of its mode only.
func TestResultModeSettings(t *testing.T) {
	rk4, _ := integrators.ByName(integrators.MethodRK4)
	s := ballTable(t)
	for name, c := range map[string]struct {
		set  graph.Settings
		want string
	}{
		"a nil *Monolithic":                  {graph.Settings{Dt: 0.1, End: 1, Mode: (*graph.Monolithic)(nil)}, "Settings.Mode is a nil *graph.Monolithic"},
		"a type embedding a mode":            {graph.Settings{Dt: 0.1, End: 1, Mode: embeddedMode{}}, "Settings.Mode is a graph_test.embeddedMode, which embeds a mode"},
		"Monolithic without a Method":        {graph.Settings{Dt: 0.1, End: 1, Mode: graph.Monolithic{}}, "Monolithic.Method is nil"},
		"a nil *RK4":                         {graph.Settings{Dt: 0.1, End: 1, Mode: graph.Monolithic{Method: (*integrators.RK4)(nil)}}, "Monolithic.Method is a nil *integrators.RK4"},
		"negative Workers":                   {graph.Settings{Dt: 0.1, End: 1, Mode: graph.CoSimulation{Workers: -1}}, "CoSimulation.Workers = -1"},
		"negative Grain":                     {graph.Settings{Dt: 0.1, End: 1, Mode: &graph.CoSimulation{Grain: -1}}, "CoSimulation.Grain = -1"},
		"negative RecordEvery":               {graph.Settings{Dt: 0.1, End: 1, RecordEvery: -1}, "Settings.RecordEvery = -1"},
		"adaptive Steps without Dt":          {graph.Settings{Steps: 3, Mode: graph.MonolithicAdaptive{}}, "Settings.Steps = 3"},
		"adaptive End before now":            {graph.Settings{End: -1, Mode: graph.MonolithicAdaptive{}}, "Settings.End = -1"},
		"adaptive with a bad tolerance":      {graph.Settings{End: 1, Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{RTol: -1}}}, "RTol"},
		"a nil *BDF":                         {graph.Settings{End: 1, Mode: graph.MonolithicAdaptive{Method: (*integrators.BDF)(nil)}}, "MonolithicAdaptive.Method is a nil *integrators.BDF"},
		"fixed step with Output":             {graph.Settings{Dt: 0.1, End: 1, Mode: graph.Monolithic{Method: rk4, Options: &integrators.DriverOptions{Output: []float64{0.5}}}}, "Output"},
		"fixed-step DormandPrince tolerance": {graph.Settings{Dt: 0.1, End: 1, Mode: graph.Monolithic{Method: integrators.DormandPrince{RTol: 1e-9}}}, "RTol"},
	} {
		res, err := s.Run(context.Background(), c.set)
		if err == nil || res != nil || s.Time() != 0 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: result %+v, err %v; want an error naming %q before any step", name, res, err, c.want)
		}
	}
	// RunMonolithic replaces the mode, but not a coupling strategy it
	// would silently drop.
	gs, _ := coupling.ByName("gauss-seidel")
	if res, err := s.RunMonolithic(context.Background(), rk4, nil, graph.Settings{Dt: 0.1, End: 1, Mode: graph.CoSimulation{Coupling: &gs}}); err == nil || res != nil {
		t.Errorf("RunMonolithic with a coupling strategy: result %+v, err %v; want an error", res, err)
	}
}

// Status and Mode print their names.
func TestStatusString(t *testing.T) {
	for st, want := range map[graph.Status]string{
		graph.NotTerminated: "NotTerminated", graph.EndReached: "EndReached", graph.StoppedByEvent: "StoppedByEvent",
		graph.StoppedByObserver: "StoppedByObserver", graph.Cancelled: "Cancelled", graph.Failed: "Failed", graph.Status(99): "Status(99)",
	} {
		if st.String() != want {
			t.Errorf("%d prints %q, want %q", int(st), st, want)
		}
	}
	for _, c := range []struct {
		m    graph.Mode
		want string
	}{{graph.CoSimulation{}, "co-simulation"}, {graph.Monolithic{}, "monolithic"}, {graph.MonolithicAdaptive{}, "monolithic (adaptive)"}} {
		if got := fmt.Sprint(c.m); got != c.want {
			t.Errorf("%T prints %q, want %q", c.m, got, c.want)
		}
	}
}

// The names graph.Status shares with integrators.Termination mean one
// thing in both: the same name, the same string, and an error from Err
// exactly when the other's is one (nil only for a run that ended as
// asked). The integrators' cancelled driver run reports Cancelled, as a
// cancelled graph run does.
func TestStatusMeansWhatTerminationMeans(t *testing.T) {
	for _, c := range []struct {
		g graph.Status
		i integrators.Termination
	}{
		{graph.NotTerminated, integrators.NotTerminated},
		{graph.StoppedByEvent, integrators.StoppedByEvent},
		{graph.Cancelled, integrators.Cancelled},
		{graph.EndReached, integrators.Success},
	} {
		if c.g != graph.EndReached && c.g.String() != c.i.String() {
			t.Errorf("graph.%v and integrators.%v differ in name", c.g, c.i)
		}
		if (c.g.Err() == nil) != (c.i.Err() == nil) {
			t.Errorf("graph.%v.Err() = %v, integrators.%v.Err() = %v: one is an error, the other not", c.g, c.g.Err(), c.i, c.i.Err())
		}
	}
	s := ballTable(t)
	sys, err := s.System()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d, err := integrators.DormandPrince{}.NewDriver(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Init(0, s.State(nil)); err != nil {
		t.Fatal(err)
	}
	out, err := d.Run(ctx, 1, nil)
	if !errors.Is(err, context.Canceled) || out == nil || out.Status != integrators.Cancelled || out.Status.Err() != integrators.ErrCancelled {
		t.Errorf("a cancelled driver run: err %v, outcome %+v; want context.Canceled and Status Cancelled", err, out)
	}
	res, err := s.Run(ctx, graph.Settings{End: 1, Mode: graph.MonolithicAdaptive{}})
	if !errors.Is(err, context.Canceled) || res == nil || res.Status != graph.Cancelled {
		t.Errorf("a cancelled graph run: err %v, result %+v; want context.Canceled and Status Cancelled", err, res)
	}
}

// MonolithicAdaptive runs any integrators.AdaptiveMethod, explicit or
// implicit: each method's graph run names it in Result.Method and ends
// where the integrator's own run on the graph's System ends, bit for bit
// (the reference is an independent call of integrators.Integrate with
// the same method on the same system, 4 masses of the stiff W4 chain over
// 2 ms), and a pointer to a method value runs as the value, bit for bit.
func TestMonolithicAdaptiveMethods(t *testing.T) {
	c := benchmarks.StiffChain{N: 4}
	const end = 0.002
	for _, m := range []integrators.AdaptiveMethod{
		integrators.DormandPrince{RTol: 1e-6, ATol: 1e-9},
		integrators.ESDIRK43{},
		integrators.ESDIRK32{},
		integrators.BDF{},
		&integrators.BDF{RTol: 1e-8},
	} {
		s, err := c.Build()
		if err != nil {
			t.Fatal(err)
		}
		y0 := s.State(nil)
		sys, err := s.System()
		if err != nil {
			t.Fatal(err)
		}
		direct, err := integrators.Integrate(m, sys, 0, y0, end, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(context.Background(), graph.Settings{End: end, Mode: graph.MonolithicAdaptive{Method: m}})
		if err != nil {
			t.Fatalf("%s: %v", m.Name(), err)
		}
		if got := s.State(nil); !slices.Equal(got, direct.Y) || res.Integrator.Work != direct.Work || res.Method != m.Name() || res.Status != graph.EndReached {
			t.Errorf("%T: method %q, status %v, work %+v (integrator's %+v), state equal to the integrator's: %v", m, res.Method, res.Status, res.Integrator.Work, direct.Work, slices.Equal(got, direct.Y))
		}
		if p, ok := m.(*integrators.BDF); ok {
			v, _ := c.Build()
			if _, err := v.Run(context.Background(), graph.Settings{End: end, Mode: graph.MonolithicAdaptive{Method: *p}}); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(v.State(nil), s.State(nil)) {
				t.Errorf("&BDF{} and BDF{} end apart")
			}
		}
	}
}
