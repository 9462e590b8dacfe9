package fmi_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/fmitest"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// mixedGraph is a native mass on a native spring-damper to the ground,
// pushed along x by an imported VanDerPol's output x0 (10 N per unit):
// the FMU (co-simulation) drives the native nodes.
func mixedGraph(t *testing.T, v int) *graph.Sim {
	t.Helper()
	f := fmitest.Reference(t, "VanDerPol", v)
	vdp, err := fmi.Load(f.Zip, fmi.Options{Instance: "vdp"})
	if err != nil {
		t.Fatal(err)
	}
	g := graph.New()
	g.Add("vdp", vdp)
	m, err := masspoint.New(masspoint.Params{Mass: 2, InitialPosition: [3]float64{1, 0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	g.Add("mass", m)
	p := springdamper.DefaultParams()
	p.Stiffness = [3]float64{50, 50, 50}
	p.Damping = [3]float64{0.5, 0.5, 0.5}
	if _, err := springdamper.Connect(g, "spring", p, node.GroundAt([3]float64{}), node.Body("mass")); err != nil {
		t.Fatal(err)
	}
	g.Connect("vdp.x0", "mass.force", graph.Via(graph.TransformFunc{Label: "10 N along x", In: node.Scalar, Out: node.Vec(3), From: "1", To: "N",
		F: func(dst, src []float64) { dst[0], dst[1], dst[2] = 10*src[0], 0, 0 }}))
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestMixedGraphDeterministicAndCheckpointed: a graph mixing an imported
// FMU with native nodes gives the same bits for 1, 2 and 4 workers (the
// FMU steps concurrently with the native nodes), and a checkpoint taken
// half way, written to a file's bytes, read back and restored into a
// fresh graph (a new FMU instance) continues bit for bit as the
// uninterrupted run.
func TestMixedGraphDeterministicAndCheckpointed(t *testing.T) {
	for _, v := range []int{2, 3} {
		const steps, dt = 2000, 1e-3
		var ref []float64
		for _, w := range []int{1, 2, 4} {
			s := mixedGraph(t, v)
			if _, err := s.Run(context.Background(), graph.Settings{Dt: dt, Steps: steps, Mode: graph.CoSimulation{Workers: w, Grain: 1}}); err != nil {
				t.Fatal(err)
			}
			st := s.State(nil)
			if ref == nil {
				ref = st
				continue
			}
			for i := range st {
				if math.Float64bits(st[i]) != math.Float64bits(ref[i]) {
					t.Fatalf("FMI%d, %d workers: state %d is %v, %v with one worker", v, w, i, st[i], ref[i])
				}
			}
		}
		pos, _ := mixedGraph(t, v).Value("mass.position")
		if x := ref[len(ref)-6]; x == pos[0] {
			t.Errorf("FMI%d: the mass did not move (x = %v)", v, x)
		}

		s := mixedGraph(t, v)
		if _, err := s.Run(context.Background(), graph.Settings{Dt: dt, Steps: steps / 2}); err != nil {
			t.Fatal(err)
		}
		c := s.Checkpoint()
		if c.Err != nil {
			t.Fatal(c.Err)
		}
		var buf bytes.Buffer
		if err := c.Encode(&buf); err != nil {
			t.Fatal(err)
		}
		read, err := graph.DecodeCheckpoint(&buf)
		if err != nil {
			t.Fatal(err)
		}
		// Continue the original (its FMU goes on from where it is) and a
		// fresh graph restored from the file (a new FMU instance).
		fresh := mixedGraph(t, v)
		if err := fresh.Restore(read); err != nil {
			t.Fatal(err)
		}
		for _, sim := range []*graph.Sim{s, fresh} {
			if _, err := sim.Run(context.Background(), graph.Settings{Dt: dt, Steps: steps / 2, Mode: graph.CoSimulation{Workers: 2, Grain: 1}}); err != nil {
				t.Fatal(err)
			}
			st := sim.State(nil)
			for i := range st {
				if math.Float64bits(st[i]) != math.Float64bits(ref[i]) {
					t.Fatalf("FMI%d resumed: state %d is %v, %v uninterrupted", v, i, st[i], ref[i])
				}
			}
		}
		// Restoring the same checkpoint into the original graph rewinds
		// its FMU too.
		if err := s.Restore(read); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(context.Background(), graph.Settings{Dt: dt, Steps: steps / 2}); err != nil {
			t.Fatal(err)
		}
		if st := s.State(nil); st[0] != ref[0] || st[len(st)-1] != ref[len(ref)-1] {
			t.Fatalf("FMI%d rewound: %v, uninterrupted %v", v, st, ref)
		}
	}
}

// TestModelExchangeCheckpoint: an adaptive monolithic run of the
// model-exchange BouncingBall, checkpointed between bounces and resumed
// in a fresh graph, locates the later impacts at the same times, bit
// for bit, as the run continued in its own graph (the integrator's
// memory and the FMU's discrete state travel in the checkpoint).
func TestModelExchangeCheckpoint(t *testing.T) {
	set := func(end float64) graph.Settings {
		return graph.Settings{Mode: graph.MonolithicAdaptive{}, End: end}
	}
	// At 1.2 the ball is bouncing; at 2.8 it has stopped, which the FMU
	// recorded by setting its gravity to 0 inside: only the FMU's
	// serialized state knows it.
	for _, cut := range []float64{1.2, 2.8} {
		// The uninterrupted run: to the cut, then on to 3 (consecutive
		// adaptive runs continue one integration).
		full := buildOne(t, "bb", meNode(t, "BouncingBall", 3, nil))
		if _, err := full.Run(context.Background(), set(cut)); err != nil {
			t.Fatal(err)
		}
		res, err := full.Run(context.Background(), set(3))
		if err != nil {
			t.Fatal(err)
		}
		var want []float64
		for _, e := range res.Integrator.Events {
			want = append(want, e.T)
		}
		half := buildOne(t, "bb", meNode(t, "BouncingBall", 3, nil))
		if _, err := half.Run(context.Background(), set(cut)); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := half.Checkpoint().Encode(&buf); err != nil {
			t.Fatal(err)
		}
		c, err := graph.DecodeCheckpoint(&buf)
		if err != nil {
			t.Fatal(err)
		}
		fresh := buildOne(t, "bb", meNode(t, "BouncingBall", 3, nil))
		if err := fresh.Restore(c); err != nil {
			t.Fatal(err)
		}
		res, err = fresh.Run(context.Background(), set(3))
		if err != nil {
			t.Fatal(err)
		}
		var got []float64
		for _, e := range res.Integrator.Events {
			got = append(got, e.T)
		}
		if len(got) != len(want) {
			t.Fatalf("cut at %v: resumed impacts %v, uninterrupted %v", cut, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("cut at %v: impact %d at %v resumed, %v uninterrupted", cut, i, got[i], want[i])
			}
		}
		a, b := fresh.State(nil), full.State(nil)
		if a[0] != b[0] || a[1] != b[1] {
			t.Errorf("cut at %v: state at t=3 %v resumed, %v uninterrupted", cut, a, b)
		}
	}
}

// TestCheckpointRefused: a graph holding an FMU that cannot serialize
// its state cannot be checkpointed: the error names the node and the
// FMU, and writing the checkpoint fails with it.
func TestCheckpointRefused(t *testing.T) {
	s, _, err := runTestFMU(t, "nostate", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := s.Checkpoint()
	wantErr(t, c.Err, fmi.ErrState, "node tf", "FMU TestFMUNoState (instance tf)", "cannot serialize its state (canSerializeFMUState is false")
	var buf bytes.Buffer
	if err := c.Encode(&buf); err == nil || !errors.Is(err, fmi.ErrState) {
		t.Errorf("Encode: %v", err)
	}
	if err := s.Restore(c); err == nil {
		t.Error("Restore of an incomplete checkpoint succeeded")
	}
}

// iterGraph joins two test FMUs in a loop through one iterated group:
// b integrates its default input u = 1 (b.x = t), a integrates b.x. The
// group iteration re-steps both from the start of each step until a's
// input, b.x at the step's end, converges: the coupling is then implicit
// in b.x, so a.x after n steps of h is exactly the right-endpoint sum
// h·Σ_{j=1..n} j·h = h²·n(n+1)/2.
func iterGraph(t *testing.T, variant string) *graph.Sim {
	t.Helper()
	_, zip := testFMU(t, variant)
	g := graph.New()
	for _, name := range []string{"a", "b"} {
		n, err := fmi.Load(zip, fmi.Options{Instance: name})
		if err != nil {
			t.Fatal(err)
		}
		g.Add(name, n)
	}
	g.Connect("b.x", "a.u", graph.Via(graph.Scale{Factor: 1, From: "m", To: "1"}))
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestRestepping: an iterated coupling group steps its FMUs again from
// the start of every step, which needs fmi3GetFMUState/SetFMUState:
// with FMUs that can, the run converges to the implicit coupling's
// closed form; with FMUs that cannot, the run is refused before its
// first step, naming the strategy, the group, the node and the FMU.
func TestRestepping(t *testing.T) {
	st := &coupling.Strategy{Scheme: coupling.Iterative, Groups: []coupling.Group{{Name: "loop", Nodes: []string{"a", "b"}}},
		Iteration: coupling.Iteration{ATol: 1e-14}}
	s := iterGraph(t, "")
	const h, n = 0.1, 10
	res, err := s.Run(context.Background(), graph.Settings{Dt: h, Steps: n, Mode: graph.CoSimulation{Coupling: st}})
	if err != nil {
		t.Fatal(err)
	}
	ax, _ := s.Value("a.x")
	if want := h * h * n * (n + 1) / 2; !numtest.Within(ax[0], want, 1e-14) {
		t.Errorf("a.x(1) = %v, implicit coupling's closed form %v", ax[0], want)
	}
	if it := res.Coupling.Groups[0].Iterations; it < 2*n {
		t.Errorf("%d iterations over %d steps: the group did not re-step", it, n)
	}

	s = iterGraph(t, "nostate")
	_, err = s.Run(context.Background(), graph.Settings{Dt: h, Steps: n, Mode: graph.CoSimulation{Coupling: st}})
	wantErr(t, err, fmi.ErrState, "coupling iterative", `group "loop"`, "node a (fmu)", "FMU TestFMUNoState (instance a)",
		"cannot get and set its state (canGetAndSetFMUState is false")
	if s.StepCount() != 0 {
		t.Errorf("%d steps taken by a refused run", s.StepCount())
	}
	// Gauss–Seidel steps each node once per step: no state needed.
	if _, err := s.Run(context.Background(), graph.Settings{Dt: h, Steps: n, Mode: graph.CoSimulation{Coupling: &coupling.Strategy{Scheme: coupling.GaussSeidel,
		Order: [][]string{{"b"}, {"a"}}}}}); err != nil {
		t.Errorf("Gauss–Seidel with FMUs that cannot get their state: %v", err)
	}
}

// failing is a stateful native node without a batch kernel whose
// Update fails from t = 0.2 on.
type failing struct{}

var failingSpec = node.NewSpec(node.Spec{Type: "failing", State: []node.Field{{Name: "x", Units: "1", Description: "x"}}})

func (failing) Spec() *node.Spec           { return failingSpec }
func (failing) InitialState(dst []float64) { dst[0] = 0 }
func (failing) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	if t >= 0.2-1e-12 {
		return errors.New("fails as asked")
	}
	dst[0] = x[0] + dt
	return nil
}

// TestReplayedStep: when a node fails in the batched step, the graph
// replays the step node by node to name the failing node; the FMU node,
// stepped once already, gives its result again without stepping the FMU
// (which cannot step from the same state twice), so the error names the
// failing node, not the FMU.
func TestReplayedStep(t *testing.T) {
	_, zip := testFMU(t, "nostate")
	n, err := fmi.Load(zip, fmi.Options{Instance: "tf"})
	if err != nil {
		t.Fatal(err)
	}
	g := graph.New()
	g.Add("tf", n) // first in node order: replayed before the others
	for _, name := range []string{"m1", "m2", "m3"} {
		m, err := masspoint.New(masspoint.Params{Mass: 1})
		if err != nil {
			t.Fatal(err)
		}
		g.Add(name, m)
	}
	g.Add("bad", failing{})
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.Families()) == 0 {
		t.Fatal("the masses form no family: the batched path is not exercised")
	}
	res, err := s.Run(context.Background(), graph.Settings{Dt: 0.1, Steps: 5})
	var se *node.StateError
	if !errors.As(err, &se) || se.Node != "bad" || !strings.Contains(err.Error(), "fails as asked") {
		t.Fatalf("error %v: want the failing node's", err)
	}
	if res.Replays == 0 {
		t.Error("the step was not replayed")
	}
	x, _ := s.Value("tf.x")
	if !numtest.Within(x[0], 0.2, 1e-15) {
		t.Errorf("the FMU's x = %v after two good steps of 0.1, want 0.2", x[0])
	}
}
