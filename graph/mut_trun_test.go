package graph_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// Tests of Sim.Run's loop and of Sim.Step (run.go): the worker count a
// run reports, the validation of Dt, Steps and End at their bounds, the
// recording budget, the observer's calls with a recording, the per-run
// replay count and the time and step count Step advances.

// mutTrunClock is a stateful node with a batch kernel: x⁺ = x + Δt (its
// state is a clock from x0), output y = x. Its kernel computes exactly
// what Update and Outputs compute, except that its Update refuses (returns
// an error) for a step starting at a time listed in refuse: a kernel "that
// could not compute" the step (Result.Replays), which the graph then
// replays on the per-node path, where Update succeeds. The members of a
// family share one refuse map.
type mutTrunClock struct {
	spec   *node.Spec
	x0     float64
	refuse map[float64]bool
}

func mutTrunNewClock(x0 float64, refuse map[float64]bool) *mutTrunClock {
	return &mutTrunClock{x0: x0, refuse: refuse, spec: node.NewSpec(node.Spec{
		Type:    "mutTrunClock",
		State:   []node.Field{{Name: "x", Units: "s", Description: "clock"}},
		Outputs: []node.Field{{Name: "y", Units: "s", Description: "the clock"}},
	})}
}

func (n *mutTrunClock) Spec() *node.Spec           { return n.spec }
func (n *mutTrunClock) InitialState(dst []float64) { dst[0] = n.x0 }
func (n *mutTrunClock) BatchKey() string           { return "" }
func (n *mutTrunClock) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = x[0] + dt
	return nil
}
func (n *mutTrunClock) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = x[0]
	return nil
}
func (n *mutTrunClock) NewBatch(members []node.Node) node.Batch {
	return mutTrunClockBatch{refuse: members[0].(*mutTrunClock).refuse}
}

type mutTrunClockBatch struct{ refuse map[float64]bool }

func (b mutTrunClockBatch) Update(a *node.BatchArgs) error {
	if b.refuse[a.T] {
		return fmt.Errorf("mutTrunClock: the kernel does not compute the step from t = %v", a.T)
	}
	for i := a.Lo; i < a.Hi; i++ {
		a.Dst.Row(i, 1)[0] = a.X.Row(i, 1)[0] + a.Dt
	}
	return nil
}
func (b mutTrunClockBatch) Outputs(a *node.BatchArgs) error {
	for i := a.Lo; i < a.Hi; i++ {
		if a.Needs(0) {
			a.Out[0].Row(i, 1)[0] = a.X.Row(i, 1)[0]
		}
	}
	return nil
}

// mutTrunSim builds n clocks c1..cn (x0 = 0) sharing refuse (nil: none).
func mutTrunSim(t *testing.T, n int, refuse map[float64]bool) *graph.Sim {
	t.Helper()
	g := graph.New()
	for i := 1; i <= n; i++ {
		g.Add(fmt.Sprintf("c%d", i), mutTrunNewClock(0, refuse))
	}
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMutTrunReplaysCountPerRun: Result.Replays, like every Stats field,
// is "the count of this run alone (not since Build)", and an Observer's
// View.Stats is "the work done so far in this run, as the run's Result
// will report it". The clocks' kernel refuses the steps starting at
// t = 0.25 and 0.5 (run 1: steps 2 and 3 of 4, Dt = 0.25) and at
// t = 1.5 (run 2: step 3 of 4); each refused step is replayed once per
// node, so the expected counts follow from the refused times: run 1
// observes 0, 1, 2, 2 after its steps and 2 at its end; run 2, which
// starts after run 1's two replays, 0, 0, 1, 1 and 1. The replayed steps
// give the per-node result, so the clocks read the run's time (sums of
// 0.25, exact in binary).
func TestMutTrunReplaysCountPerRun(t *testing.T) {
	refuse := map[float64]bool{0.25: true, 0.5: true, 1.5: true}
	s := mutTrunSim(t, 2, refuse)
	if fams := s.Families(); len(fams) != 1 || len(fams[0].Nodes) != 2 {
		t.Fatalf("families %v: want the two clocks in one family (the test needs the batched path)", fams)
	}
	for _, run := range []struct {
		steps []int // View.Stats.Replays after each step
		end   int   // at the end call and in the Result
	}{
		{[]int{0, 1, 2, 2}, 2},
		{[]int{0, 0, 1, 1}, 1},
	} {
		var steps []int
		end := -1
		obs := graph.ObserverFunc(func(v *graph.View) error {
			switch v.Phase {
			case graph.ObserveStep:
				steps = append(steps, v.Stats.Replays)
			case graph.ObserveEnd:
				end = v.Stats.Replays
			}
			return nil
		})
		res, err := s.Run(context.Background(), graph.Settings{
			Mode: graph.CoSimulation{Workers: 1}, Dt: 0.25, Steps: 4, Observer: obs})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(steps) != fmt.Sprint(run.steps) {
			t.Errorf("t0 = %v: replays observed after each step %v, want %v", res.Time-1, steps, run.steps)
		}
		if end != run.end {
			t.Errorf("t0 = %v: replays observed at the end %d, want %d", res.Time-1, end, run.end)
		}
		if res.Replays != run.end {
			t.Errorf("t0 = %v: Result.Replays = %d, want %d", res.Time-1, res.Replays, run.end)
		}
		x, err := s.Value("c2.x")
		if err != nil || x[0] != res.Time {
			t.Errorf("clock c2 = %v at t = %v, want the time", x, res.Time)
		}
	}
}

// TestMutTrunWorkersZeroMeansGOMAXPROCS: CoSimulation.Workers "Zero means
// runtime.GOMAXPROCS(0)", and Result.Workers is "the number of
// goroutines that updated nodes". With Grain 1 every phase (two clocks)
// is split, so a run with Workers 0 reports GOMAXPROCS workers.
func TestMutTrunWorkersZeroMeansGOMAXPROCS(t *testing.T) {
	s := mutTrunSim(t, 2, nil)
	res, err := s.Run(context.Background(), graph.Settings{
		Mode: graph.CoSimulation{Workers: 0, Grain: 1}, Dt: 0.25, Steps: 2})
	if err != nil {
		t.Fatal(err)
	}
	if want := runtime.GOMAXPROCS(0); res.Workers != want {
		t.Errorf("Workers 0: Result.Workers = %d, want GOMAXPROCS = %d", res.Workers, want)
	}
}

// TestMutTrunGrainEqualToPhaseSplits: Grain "is the smallest number of
// node evaluations in one phase for which the phase is split across
// workers". Three clocks make phases of three evaluations (three
// updates, three outputs at one level): Grain 3 splits them (2 workers),
// Grain 4 does not (1 worker).
func TestMutTrunGrainEqualToPhaseSplits(t *testing.T) {
	for _, c := range []struct{ grain, want int }{{3, 2}, {4, 1}} {
		s := mutTrunSim(t, 3, nil)
		res, err := s.Run(context.Background(), graph.Settings{
			Mode: graph.CoSimulation{Workers: 2, Grain: c.grain}, Dt: 0.25, Steps: 2})
		if err != nil {
			t.Fatal(err)
		}
		if res.Workers != c.want {
			t.Errorf("3 clocks, Grain %d: Result.Workers = %d, want %d", c.grain, res.Workers, c.want)
		}
	}
}

// TestMutTrunZeroStepRefused: Settings.Dt "must be finite and positive"
// and invalid settings are "an error before any step, with a nil
// Result"; Step's dt likewise. Zero is the boundary: Run and Step refuse
// it and the Sim does not move (time 0, no step counted).
func TestMutTrunZeroStepRefused(t *testing.T) {
	s := mutTrunSim(t, 1, nil)
	res, err := s.Run(context.Background(), graph.Settings{Dt: 0, Steps: 1})
	if err == nil || res != nil || !strings.Contains(err.Error(), "Settings.Dt = 0") {
		t.Errorf("Run with Dt 0: result %v, error %v; want a nil result and an error naming Settings.Dt", res, err)
	}
	if err := s.Step(0); err == nil {
		t.Errorf("Step(0) returned no error; want one (the step must be positive)")
	}
	if s.Time() != 0 || s.StepCount() != 0 {
		t.Errorf("after the refused calls: time %v, %d steps; want 0 and 0", s.Time(), s.StepCount())
	}
}

// mutTrunStopAtStart is an Observer that stops the run at its start call
// and keeps the View's Steps and End (the run's step count and end time,
// known before the first step).
type mutTrunStopAtStart struct {
	steps int
	end   float64
}

var mutTrunErrStop = errors.New("mutTrun: stop before the first step")

func (o *mutTrunStopAtStart) Observe(v *graph.View) error {
	if v.Phase == graph.ObserveStart {
		o.steps, o.end = v.Steps, v.End
		return mutTrunErrStop
	}
	return nil
}

// TestMutTrunMaxStepsAccepted: Steps is "at most MaxSteps", and End "at
// most MaxSteps steps away": exactly MaxSteps (2^53) is accepted, given
// as Steps or as End = 2^53 with Dt 1 from t = 0 (round(2^53/1) = 2^53,
// exact in float64). The run cannot take them; an Observer stops it at
// its start call, where the View already shows the 2^53 steps and the
// end time 2^53 (Start + Steps·Dt). One more step (Steps = 2^53 + 1, End
// = 2^53 + 2, the next float64) is refused with a nil Result.
func TestMutTrunMaxStepsAccepted(t *testing.T) {
	const maxN = graph.MaxSteps
	for _, set := range []graph.Settings{{Dt: 1, Steps: maxN}, {Dt: 1, End: maxN}} {
		s := mutTrunSim(t, 1, nil)
		obs := &mutTrunStopAtStart{}
		set.Observer = obs
		res, err := s.Run(context.Background(), set)
		var oe *graph.ObserverError
		if !errors.As(err, &oe) || !errors.Is(err, mutTrunErrStop) || res == nil || res.Status != graph.StoppedByObserver {
			t.Errorf("Steps %d, End %v: result %v, error %v; want the run accepted and stopped by the observer", set.Steps, set.End, res, err)
			continue
		}
		if obs.steps != maxN || obs.end != float64(maxN) || res.Steps != 0 {
			t.Errorf("Steps %d, End %v: observed %d steps to t = %v, took %d; want 2^53 steps to 2^53, none taken", set.Steps, set.End, obs.steps, obs.end, res.Steps)
		}
	}
	for _, set := range []graph.Settings{{Dt: 1, Steps: maxN + 1}, {Dt: 1, End: maxN + 2}} {
		s := mutTrunSim(t, 1, nil)
		res, err := s.Run(context.Background(), set)
		if err == nil || res != nil || !strings.Contains(err.Error(), "MaxSteps") {
			t.Errorf("Steps %d, End %v: result %v, error %v; want a nil result and an error naming MaxSteps", set.Steps, set.End, res, err)
		}
	}
}

// TestMutTrunEndAtCurrentTime: End must be "not before the current
// time"; End equal to it (t = 1 after four steps of 0.25, exact) is a
// run of round(0/Dt) = 0 steps, accepted: no error, no step, the time
// unchanged. An End one step before it is refused.
func TestMutTrunEndAtCurrentTime(t *testing.T) {
	s := mutTrunSim(t, 1, nil)
	if _, err := s.Run(context.Background(), graph.Settings{Dt: 0.25, Steps: 4}); err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), graph.Settings{Dt: 0.25, End: 1})
	if err != nil || res == nil || res.Steps != 0 || res.Time != 1 || s.StepCount() != 4 {
		t.Fatalf("End = current time 1: result %+v, error %v; want 0 steps at t = 1 and no error", res, err)
	}
	if res, err := s.Run(context.Background(), graph.Settings{Dt: 0.25, End: 0.75}); err == nil || res != nil {
		t.Errorf("End 0.75 before the current time 1: result %v, error %v; want a nil result and an error", res, err)
	}
}

// TestMutTrunRecordBudgetCountsRows: a run records "every RecordEvery
// steps (and the initial state)": 100 steps with RecordEvery 10 keep 11
// rows, and RecordLimit is checked up front against the memory of those
// rows, the refusal "naming the row count". graph.RecordBytes is the
// estimate the check uses (recordBytes): a limit of exactly 11 one-value
// rows' memory admits the run (which then holds 11 rows), one byte less
// is refused naming 11 rows.
func TestMutTrunRecordBudgetCountsRows(t *testing.T) {
	need := int64(graph.RecordBytes(11, 1))
	if float64(need) != graph.RecordBytes(11, 1) {
		t.Fatalf("RecordBytes(11, 1) = %v is not a whole number of bytes", graph.RecordBytes(11, 1))
	}
	set := graph.Settings{Dt: 0.25, Steps: 100, RecordEvery: 10, Record: []string{"c1.x"}, RecordLimit: need}
	res, err := mutTrunSim(t, 1, nil).Run(context.Background(), set)
	if err != nil {
		t.Fatalf("RecordLimit = %d B (11 rows): %v", need, err)
	}
	if len(res.History.Rows) != 11 {
		t.Errorf("%d rows recorded, want 11", len(res.History.Rows))
	}
	set.RecordLimit = need - 1
	_, err = mutTrunSim(t, 1, nil).Run(context.Background(), set)
	if err == nil || !strings.Contains(err.Error(), "recording 11 rows") {
		t.Errorf("RecordLimit = %d B: error %v; want the refusal naming 11 rows", need-1, err)
	}
}

// TestMutTrunObserverWithRecording: an Observer is called "once at the
// start (before the first step), after steps ... and once at the end",
// whatever else the run does: recording the initial row before the
// start call must not skip it (nor, then, the end call, made "once the
// start call was made").
func TestMutTrunObserverWithRecording(t *testing.T) {
	var phases []string
	obs := graph.ObserverFunc(func(v *graph.View) error {
		phases = append(phases, v.Phase.String())
		return nil
	})
	res, err := mutTrunSim(t, 1, nil).Run(context.Background(), graph.Settings{
		Dt: 0.25, Steps: 2, Record: []string{"c1.x"}, Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(phases, " "), "start step step end"; got != want {
		t.Errorf("observer calls %q, want %q", got, want)
	}
	if len(res.History.Rows) != 3 {
		t.Errorf("%d rows recorded, want 3 (initial and 2 steps)", len(res.History.Rows))
	}
}

// TestMutTrunStepAdvancesTimeAndCount: Step "advances the simulation by
// one step of dt": the time grows by dt per call, also when dt changes
// between calls, and StepCount ("the number of steps taken since
// Build") by one. Steps of 0.25 and 0.5 keep every time exact in binary:
// 4·0.25 = 1, then 1 + 2·0.5 = 2. The clock's state, advanced by dt per
// Update, reads the same times.
func TestMutTrunStepAdvancesTimeAndCount(t *testing.T) {
	s := mutTrunSim(t, 1, nil)
	for k, dt := range []float64{0.25, 0.25, 0.25, 0.25, 0.5, 0.5} {
		if err := s.Step(dt); err != nil {
			t.Fatal(err)
		}
		want := 0.25 * float64(k+1)
		if k >= 4 {
			want = 1 + 0.5*float64(k-3)
		}
		x, err := s.Value("c1.x")
		if err != nil {
			t.Fatal(err)
		}
		if s.Time() != want || x[0] != want || s.StepCount() != k+1 {
			t.Fatalf("after step %d (dt %v): time %v, clock %v, StepCount %d; want %v, %v, %d", k+1, dt, s.Time(), x[0], s.StepCount(), want, want, k+1)
		}
	}
}
