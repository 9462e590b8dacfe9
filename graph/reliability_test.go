package graph_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/table"
)

// rocket is a stateful node with Derivatives x' = v, v' = k·v, optional
// events (x − level, falling) and switches that make its Derivatives,
// EventValues or Reset panic, or call a hook on every evaluation.
type rocket struct {
	spec        *node.Spec
	x0, v0, k   float64
	level       float64
	panicDeriv  bool
	panicEvents bool
	panicReset  bool
	onDeriv     func()
}

func newRocket(x0, v0, k float64, events bool) *rocket {
	sp := node.Spec{
		Type: "rocket",
		State: []node.Field{
			{Name: "x", Units: "m", Description: "position", Role: node.Position, Rate: "v"},
			{Name: "v", Units: "m/s", Description: "velocity", Role: node.Velocity},
		},
		Inputs: []node.Input{{Name: "force", Units: "N", Description: "force", Combine: node.Additive, Default: []float64{0}}},
	}
	if events {
		sp.Events = []node.Event{{Name: "floor", Description: "x crosses the level", Direction: -1}}
	}
	return &rocket{x0: x0, v0: v0, k: k, spec: node.NewSpec(sp)}
}

func (n *rocket) Spec() *node.Spec           { return n.spec }
func (n *rocket) InitialState(dst []float64) { dst[0], dst[1] = n.x0, n.v0 }
func (n *rocket) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0], dst[1] = x[0]+dt*x[1], x[1]+dt*(n.k*x[1]+in.Values[0])
	return nil
}
func (n *rocket) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	if n.panicDeriv {
		panic("rocket derivatives exploded")
	}
	if n.onDeriv != nil {
		n.onDeriv()
	}
	dst[0], dst[1] = x[1], n.k*x[1]+in.Values[0]
	return nil
}
func (n *rocket) EventValues(t float64, x []float64, in node.Inputs, dst []float64) error {
	if n.panicEvents {
		panic("rocket events exploded")
	}
	dst[0] = x[0] - n.level
	return nil
}
func (n *rocket) Reset(event int, t float64, x []float64, in node.Inputs, dst []float64) error {
	if n.panicReset {
		panic("rocket reset exploded")
	}
	dst[0], dst[1] = x[0], -x[1]
	return nil
}

func wantPanicError(t *testing.T, what string, err error, nodeName string) {
	t.Helper()
	var se *node.StateError
	if !errors.As(err, &se) || se.Node != nodeName || !strings.Contains(err.Error(), "panic") {
		t.Fatalf("%s: err = %v; want a *node.StateError naming node %s and the panic", what, err, nodeName)
	}
}

// Panics in a node's Derivatives, EventValues and Reset under
// RunMonolithic and Integrate are returned as errors naming the node.
func TestMonolithicNodePanicsRecovered(t *testing.T) {
	build := func(set func(r *rocket)) *graph.Sim {
		r := newRocket(1, -1, 0, true)
		r.level = 0.5
		set(r)
		g := graph.New()
		g.Add("rocket", r)
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	set := graph.Settings{Dt: 1e-2, Steps: 10}
	for _, name := range []string{"forward-euler", "rk4", "backward-euler", "implicit-trapezoid", "generalized-alpha"} {
		m, _ := integrators.ByName(name)
		s := build(func(r *rocket) { r.panicDeriv = true })
		_, err := s.RunMonolithic(context.Background(), m, nil, set)
		wantPanicError(t, name, err, "rocket")
	}
	s := build(func(r *rocket) { r.panicDeriv = true })
	_, err := s.Integrate(context.Background(), 1, integrators.DormandPrince{}, nil)
	wantPanicError(t, "Integrate, Derivatives", err, "rocket")
	s = build(func(r *rocket) { r.panicEvents = true })
	_, err = s.Integrate(context.Background(), 1, integrators.DormandPrince{}, nil)
	wantPanicError(t, "Integrate, EventValues", err, "rocket")
	s = build(func(r *rocket) { r.panicReset = true })
	_, err = s.Integrate(context.Background(), 1, integrators.DormandPrince{}, nil)
	wantPanicError(t, "Integrate, Reset", err, "rocket")

	// NewNodeSystem recovers as well.
	r := newRocket(1, -1, 0, false)
	r.panicDeriv = true
	ns, _ := graph.NewNodeSystem(r)
	if err := ns.Func(0, []float64{1, 1}, make([]float64, 2)); err == nil || !strings.Contains(err.Error(), "panic") {
		t.Errorf("NodeSystem.Func: err = %v", err)
	}
}

// panicky returns a transform that panics on its n-th call and every
// later one: whichever part of a run makes the n-th call (the start-of-run
// stability analysis, whose failed trial step only skips the analysis,
// or a step), the run meets the panic.
func panicky(n int64) graph.TransformFunc {
	var calls atomic.Int64
	return graph.TransformFunc{Label: "panicky", In: node.Scalar, Out: node.Scalar, F: func(dst, src []float64) {
		if calls.Add(1) >= n {
			panic(fmt.Sprintf("transform call %d", n))
		}
		copy(dst, src)
	}}
}

// A panicking user transform under RunMonolithic (System.prepare) and
// under iterated coupling (the group's gathers at t_n and the interface
// gathers of every iteration) is returned as an error naming the edge's
// destination node, whichever call panics.
func TestTransformPanicsRecovered(t *testing.T) {
	for call := int64(1); call <= 12; call++ {
		s, err := chainVia(3, panicky(call)).Build()
		if err != nil {
			t.Fatal(err)
		}
		m, _ := integrators.ByName("rk4")
		_, err = s.RunMonolithic(context.Background(), m, nil, graph.Settings{Dt: 1e-3, Steps: 5})
		wantPanicError(t, fmt.Sprintf("RunMonolithic, call %d", call), err, "m2")

		s, _ = chainVia(3, panicky(call)).Build()
		_, err = s.Integrate(context.Background(), 1, integrators.DormandPrince{}, nil)
		wantPanicError(t, fmt.Sprintf("Integrate, call %d", call), err, "m2")

		for _, st := range []*coupling.Strategy{
			{Scheme: coupling.Iterative},
			{Scheme: coupling.Iterative, Groups: []coupling.Group{{Name: "g", Nodes: []string{"m1", "s1", "m2"}}}},
		} {
			s, _ = chainVia(3, panicky(call)).Build()
			_, err = s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Coupling: st, Workers: 1}, Dt: 1e-3, Steps: 5})
			wantPanicError(t, fmt.Sprintf("iterative %v, call %d", st, call), err, "m2")
		}
	}
}

// Integrate stops within one trial step of a cancellation: a context
// cancelled from inside the run stops it with no further evaluation, the
// state is the last accepted one, and a deadline is honoured promptly.
func TestIntegrateCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := newRocket(0, 1, -0.5, false)
	var evals, after int
	r.onDeriv = func() {
		evals++
		if ctx.Err() != nil {
			after++
		}
		if evals == 200 {
			cancel()
		}
	}
	g := graph.New()
	g.Add("rocket", r)
	s, _ := g.Build()
	res, err := s.Integrate(ctx, 1e6, integrators.DormandPrince{RTol: 1e-12, ATol: 1e-12, MaxStep: 1e-3}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if after != 0 {
		t.Errorf("%d evaluations after the cancellation", after)
	}
	if res == nil || res.Status != graph.Cancelled || !(res.Time > 0) || res.Time != s.Time() {
		t.Fatalf("result %+v, time %v", res, s.Time())
	}

	// A deadline on a run that would take far longer.
	big, _ := chain(40).Build()
	dctx, dcancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer dcancel()
	start := time.Now()
	_, err = big.Integrate(dctx, 1e4, integrators.DormandPrince{RTol: 1e-12, ATol: 1e-14}, nil)
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("a 50 ms deadline returned after %v", el)
	}
	if !errors.Is(err, context.DeadlineExceeded) || !(big.Time() > 0) {
		t.Errorf("err = %v at t = %v", err, big.Time())
	}
}

// A non-finite state in monolithic mode names node, field, step and time
// for every method, not just a flat component index.
func TestMonolithicNonFiniteNamed(t *testing.T) {
	for _, c := range []struct {
		method string
		k, dt  float64
	}{
		{"forward-euler", 1, 1},
		{"semi-implicit-euler", 1, 1},
		{"implicit-trapezoid", 1, 1},
		{"backward-euler", 1, 0.5},
		{"backward-euler", 1, 0.9}, // the first Newton update overflows
		{"rk4", 1, 1},
		{"generalized-alpha", 1, 0.5},
	} {
		r := newRocket(0, 1e307, c.k, false)
		g := graph.New()
		g.Add("source", newSource("N", 0))
		g.Add("rocket", r)
		g.Connect("source.value", "rocket.force")
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		m, _ := integrators.ByName(c.method)
		_, err = s.RunMonolithic(context.Background(), m, nil, graph.Settings{Dt: c.dt, Steps: 50})
		var se *node.StateError
		if !errors.As(err, &se) || se.Node != "rocket" || (se.Field != "v" && se.Field != "x" && se.Field != "d/dt v" && se.Field != "d/dt x") ||
			!errors.Is(err, node.ErrNonFinite) {
			t.Errorf("%s: err = %v; want a non-finite *node.StateError naming rocket.v", c.method, err)
			continue
		}
		if se.Step != s.StepCount() || se.Time != s.Time() || !strings.Contains(err.Error(), fmt.Sprintf("step %d", se.Step)) {
			t.Errorf("%s: error at step %d t=%v, the run stopped at step %d t=%v: %v", c.method, se.Step, se.Time, s.StepCount(), s.Time(), err)
		}
		t.Logf("%s: %v", c.method, err)
	}
}

// roundTrip encodes and decodes a checkpoint.
func roundTrip(t *testing.T, c *graph.Checkpoint) *graph.Checkpoint {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	out, err := graph.DecodeCheckpoint(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Checkpoints record the method's parameters and the integrator settings:
// a resumed run with custom settings is bit-identical to an uninterrupted
// one, and resuming with other parameters or settings is an error saying
// what differs.
func TestCheckpointIntegratorSettings(t *testing.T) {
	be, _ := integrators.ByName(integrators.MethodBackwardEuler)
	loose := integrators.BackwardEuler{Newton: integrators.NewtonOptions{Tol: 1e-2}}
	cases := []struct {
		name   string
		method integrators.Method
		set    *integrators.DriverOptions
	}{
		{"backward-euler NewtonTol=1e-2", loose, nil},
		{"generalized-alpha 0.8", integrators.GeneralizedAlpha{RhoInf: 0.8}, nil},
		{"generalized-alpha 0.8 NewtonTol=1e-3", integrators.GeneralizedAlpha{RhoInf: 0.8, Newton: integrators.NewtonOptions{Tol: 1e-3}}, nil},
		{"rk4 EventTol=1e-9", integrators.RK4{}, &integrators.DriverOptions{EventTol: 1e-9}},
	}
	run := func(s *graph.Sim, m integrators.Method, is *integrators.DriverOptions, steps int) error {
		_, err := s.RunMonolithic(context.Background(), m, is, graph.Settings{Dt: 2e-3, Steps: steps})
		return err
	}
	for _, c := range cases {
		ref, _ := chain(6).Build()
		if err := run(ref, c.method, c.set, 120); err != nil {
			t.Fatal(err)
		}
		s, _ := chain(6).Build()
		if err := run(s, c.method, c.set, 70); err != nil {
			t.Fatal(err)
		}
		ck := roundTrip(t, s.Checkpoint())
		fresh, _ := chain(6).Build()
		if err := fresh.Restore(ck); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := run(fresh, c.method, c.set, 50); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		sameBits(t, c.name, ref.State(nil), fresh.State(nil))
	}

	// Other parameters or settings after a restore: an error naming them.
	mismatch := []struct {
		name      string
		m         integrators.Method
		set       *integrators.DriverOptions
		runM      integrators.Method
		runSet    *integrators.DriverOptions
		wantInErr string
	}{
		{"GA 0.8 then 0.5", integrators.GeneralizedAlpha{RhoInf: 0.8}, nil, integrators.GeneralizedAlpha{RhoInf: 0.5}, nil, "RhoInf:0.8"},
		{"BE loose then default", loose, nil, be, nil, "Newton:{Tol:0.01 MaxIter:0}"},
		{"RK4 event tolerance then default", integrators.RK4{}, &integrators.DriverOptions{EventTol: 1e-9}, integrators.RK4{}, nil, "EventTol is 1e-09 in the checkpoint, 0 in the run"},
		{"BE then GA", be, nil, integrators.GeneralizedAlpha{RhoInf: 0.5}, nil, "method backward-euler (RunMonolithic) in the checkpoint"},
	}
	for _, c := range mismatch {
		s, _ := chain(4).Build()
		if err := run(s, c.m, c.set, 10); err != nil {
			t.Fatal(err)
		}
		fresh, _ := chain(4).Build()
		if err := fresh.Restore(roundTrip(t, s.Checkpoint())); err != nil {
			t.Fatal(err)
		}
		before := fresh.State(nil)
		err := run(fresh, c.runM, c.runSet, 10)
		if err == nil || !strings.Contains(err.Error(), c.wantInErr) || !strings.Contains(err.Error(), "ResetIntegrator") {
			t.Errorf("%s: err = %v\nwant it to contain %q", c.name, err, c.wantInErr)
			continue
		}
		sameBits(t, c.name+": a rejected run changed the state", before, fresh.State(nil))
		if _, err := fresh.Integrate(context.Background(), fresh.Time()+0.01, integrators.DormandPrince{}, nil); err == nil {
			t.Errorf("%s: Integrate continued a fixed-step checkpoint", c.name)
		}
		fresh.ResetIntegrator()
		if err := run(fresh, c.runM, c.runSet, 10); err != nil {
			t.Errorf("%s after ResetIntegrator: %v", c.name, err)
		}
	}
}

// ballTable is the bouncing ball on a table.
func ballTable(t *testing.T) *graph.Sim {
	p := ball.DefaultParams()
	p.InitialPosition, p.Elasticity = 10, 0.9
	b, _ := ball.New(p)
	tb, _ := table.New(table.DefaultParams())
	g := graph.New()
	g.Add("ball", b)
	g.Add("table", tb)
	g.Connect("table.position", "ball.table_position")
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// An Integrate run is checkpointed with its step-size controller, FSAL
// stage and event state, and resumes bit-identically, events included.
func TestIntegrateCheckpointResume(t *testing.T) {
	set := integrators.DormandPrince{RTol: 1e-9, ATol: 1e-12}
	ref := ballTable(t)
	if _, err := ref.Integrate(context.Background(), 2.5, set, nil); err != nil {
		t.Fatal(err)
	}
	want, err := ref.Integrate(context.Background(), 6, set, nil)
	if err != nil {
		t.Fatal(err)
	}

	s := ballTable(t)
	if _, err := s.Integrate(context.Background(), 2.5, set, nil); err != nil {
		t.Fatal(err)
	}
	ck := roundTrip(t, s.Checkpoint())
	if ck.Integrator == nil || !ck.Integrator.Adaptive {
		t.Fatalf("checkpoint after Integrate has no adaptive integrator state: %+v", ck.Integrator)
	}
	fresh := ballTable(t)
	if err := fresh.Restore(ck); err != nil {
		t.Fatal(err)
	}
	got, err := fresh.Integrate(context.Background(), 6, set, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameBits(t, "resumed Integrate", ref.State(nil), fresh.State(nil))
	got.Wall, want.Wall = 0, 0
	if got.Stats != want.Stats || got.Integrator.Work != want.Integrator.Work || len(got.Integrator.Events) != len(want.Integrator.Events) {
		t.Errorf("stats %+v %+v events %d; want %+v %+v, %d", got.Stats, got.Integrator.Work, len(got.Integrator.Events), want.Stats, want.Integrator.Work, len(want.Integrator.Events))
	}
	for i := range want.Integrator.Events {
		if got.Integrator.Events[i].T != want.Integrator.Events[i].T {
			t.Errorf("event %d at %v, want %v", i, got.Integrator.Events[i].T, want.Integrator.Events[i].T)
		}
	}

	// Other controller settings after the restore: an error.
	other := ballTable(t)
	other.Restore(ck)
	if _, err := other.Integrate(context.Background(), 6, integrators.DormandPrince{RTol: 1e-6, ATol: 1e-12}, nil); err == nil || !strings.Contains(err.Error(), "RTol") {
		t.Errorf("err = %v, want one naming RTol", err)
	}
}

// A header claiming a huge body does not make the reader allocate it.
func TestDecodeCheckpointHugeLength(t *testing.T) {
	data := []byte("cosim-checkpoint 1 1073741824 sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a\n{}")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	c, err := graph.DecodeCheckpoint(bytes.NewReader(data))
	runtime.ReadMemStats(&after)
	if c != nil || !errors.Is(err, graph.ErrCorruptCheckpoint) || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("got %v, %v", c, err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("decoding a %d-byte file allocated %d bytes", len(data), n)
	}
}

// signed wraps body in a checkpoint header with its correct checksum.
func signed(body []byte) []byte {
	sum := sha256.Sum256(body)
	h := fmt.Sprintf("cosim-checkpoint %d %d sha256:%s\n", graph.CheckpointVersion, len(body), hex.EncodeToString(sum[:]))
	return append([]byte(h), body...)
}

// checkpointBody returns the JSON body of s's checkpoint.
func checkpointBody(s *graph.Sim) []byte {
	var buf bytes.Buffer
	s.Checkpoint().Encode(&buf)
	b := buf.Bytes()
	return b[bytes.IndexByte(b, '\n')+1:]
}

// FuzzRestoreCheckpoint re-signs every mutated body, so that the JSON
// decoding, Restore and the run after it are exercised: nothing panics.
func FuzzRestoreCheckpoint(f *testing.F) {
	s, _ := chain(2).Build()
	f.Add(checkpointBody(s))
	s.Run(context.Background(), graph.Settings{Dt: 1e-3, Steps: 3})
	f.Add(checkpointBody(s))
	for _, m := range []integrators.Method{integrators.GeneralizedAlpha{RhoInf: 0.8}, integrators.Methods()[6]} {
		s, _ := chain(2).Build()
		s.RunMonolithic(context.Background(), m.(integrators.NewtonMethod).WithSolver(integrators.NewtonOptions{Tol: 1e-3}, integrators.LinearOptions{}), nil, graph.Settings{Dt: 1e-3, Steps: 3})
		f.Add(checkpointBody(s))
	}
	s, _ = chain(2).Build()
	s.Integrate(context.Background(), 0.01, integrators.DormandPrince{}, nil)
	f.Add(checkpointBody(s))
	s, _ = chain(2).Build()
	s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Coupling: &coupling.Strategy{Scheme: coupling.Iterative, Iteration: coupling.Iteration{Predictor: coupling.LinearPredictor}}}, Dt: 1e-3, Steps: 3})
	f.Add(checkpointBody(s))
	f.Add([]byte("{}"))
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := graph.DecodeCheckpoint(bytes.NewReader(signed(body)))
		if err != nil {
			return
		}
		s, _ := chain(2).Build()
		if s.Restore(c) != nil {
			return
		}
		ctx := context.Background()
		if ic := c.Integrator; ic != nil {
			if ic.Adaptive {
				dp, _ := ic.Method.(integrators.DormandPrince)
				s.Integrate(ctx, s.Time()+1e-3, dp, ic.Options)
			} else {
				s.RunMonolithic(ctx, ic.Method, ic.Options, graph.Settings{Dt: 1e-3, Steps: 2})
			}
			return
		}
		s.Run(ctx, graph.Settings{Dt: 1e-3, Steps: 2})
	})
}

// The panic recovery and cancellation checks keep monolithic stepping
// allocation-free: a RunMonolithic of 400 explicit steps allocates what
// one of 4 steps does.
func TestMonolithicAllocsWithRecovery(t *testing.T) {
	s, _ := chain(10).Build()
	rk4, _ := integrators.ByName(integrators.MethodRK4)
	allocs := func(steps int) float64 {
		return numtest.AllocsPerRun(3, func() {
			s.RunMonolithic(context.Background(), rk4, nil, graph.Settings{Dt: 1e-4, Steps: steps})
		})
	}
	// Per-step allocation would add ~396. The race detector's runtime
	// allocates a few times of its own, at random (raceEnabled), so the
	// margin there is 40: still a tenth of one per step.
	limit := 2.0
	if raceEnabled {
		limit = 40
	}
	if a4, a400 := allocs(4), allocs(400); a400-a4 > limit {
		t.Errorf("%v allocations for 400 steps, %v for 4", a400, a4)
	}
}
