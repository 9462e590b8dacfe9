package graph_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// quarterCar adds one wheel-suspension corner to g with every node name
// prefixed by pre: a wheel (masspoint, 40 kg) on a tire spring to the
// ground and a body corner (masspoint, 400 kg) on a suspension spring-
// damper of stiffness k to the wheel. Used both inside a subsystem (pre
// "") and wired flat by hand (pre "c1_"), so the two are the same model.
func quarterCar(t testing.TB, g *graph.Graph, pre string, k float64) {
	t.Helper()
	wheel, err := masspoint.New(masspoint.Params{Mass: 40, InitialPosition: [3]float64{0, 0, 0.3}})
	if err != nil {
		t.Fatal(err)
	}
	body, err := masspoint.New(masspoint.Params{Mass: 400, InitialPosition: [3]float64{0, 0, 0.8}})
	if err != nil {
		t.Fatal(err)
	}
	g.Add(pre+"wheel", wheel)
	g.Add(pre+"body", body)
	tire := springdamper.DefaultParams()
	tire.Stiffness = [3]float64{2e5, 2e5, 2e5}
	tire.Damping = [3]float64{100, 100, 100}
	tire.Offset = [3]float64{0, 0, 0.3}
	if _, err := springdamper.Connect(g, pre+"tire", tire, node.GroundAt([3]float64{}), node.Body(pre+"wheel")); err != nil {
		t.Fatal(err)
	}
	susp := springdamper.DefaultParams()
	susp.Stiffness = [3]float64{k, k, k}
	susp.Damping = [3]float64{1500, 1500, 1500}
	susp.Offset = [3]float64{0, 0, 0.5}
	if _, err := springdamper.Connect(g, pre+"suspension", susp, node.Body(pre+"wheel"), node.Body(pre+"body")); err != nil {
		t.Fatal(err)
	}
}

// corner is quarterCar as a subsystem: input port "load" (the body's
// force), outputs "body" and "wheel" (positions), parameter "k".
func corner(t testing.TB, k float64) *graph.Subsystem {
	g := graph.New()
	quarterCar(t, g, "", k)
	s := graph.NewSubsystem(g)
	s.ExposeInput("load", "body.force")
	s.ExposeOutput("body", "body.position")
	s.ExposeOutput("wheel", "wheel.position")
	s.PromoteParam("k", "suspension.stiffness")
	return s
}

// load is a constant force source for tests: a stateless node with one
// output "f" (3-vector, N).
type load struct {
	spec *node.Spec
	f    [3]float64
}

func newLoad(f [3]float64) *load {
	return &load{f: f, spec: node.NewSpec(node.Spec{
		Type:    "load",
		Outputs: []node.Field{{Name: "f", Shape: node.Vec(3), Units: "N", Description: "force"}},
	})}
}

func (l *load) Spec() *node.Spec                                                 { return l.spec }
func (l *load) InitialState([]float64)                                           {}
func (l *load) Update(float64, float64, []float64, node.Inputs, []float64) error { return nil }
func (l *load) Outputs(_ float64, _ []float64, _ node.Inputs, dst []float64) error {
	copy(dst, l.f[:])
	return nil
}

// The flattened subsystems are the same model as the same nodes wired by
// hand: the reference is that hand-wired graph, and the runs must agree
// bit for bit (same nodes, same order, same edges, same arithmetic).
func TestSubsystemMatchesFlat(t *testing.T) {
	const n = 3
	ks := []float64{2e4, 3e4, 4e4}
	nested := graph.New()
	flat := graph.New()
	for i := range n {
		name := fmt.Sprintf("c%d", i)
		nested.AddSubsystem(name, corner(t, ks[i]))
		quarterCar(t, flat, name+"_", ks[i])
		f := [3]float64{0, 0, -1000 * float64(i+1)}
		nested.Add(name+"load", newLoad(f))
		flat.Add(name+"load", newLoad(f))
		nested.Connect(name+"load.f", name+".load")
		flat.Connect(name+"load.f", name+"_body.force")
	}
	a, err := nested.Build()
	if err != nil {
		t.Fatal(err)
	}
	b, err := flat.Build()
	if err != nil {
		t.Fatal(err)
	}
	set := graph.Settings{Mode: graph.CoSimulation{Workers: 2}, Dt: 1e-4, Steps: 2000}
	if _, err := a.Run(context.Background(), set); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Run(context.Background(), set); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(b.State(nil), a.State(nil)); diff != "" {
		t.Errorf("state of the subsystems differs from the flat graph's (-flat +subsystems):\n%s", diff)
	}
	for i := range n {
		got, err := a.Value(fmt.Sprintf("c%d.body.position", i))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := b.Value(fmt.Sprintf("c%d_body.position", i))
		if !cmp.Equal(got, want) {
			t.Errorf("c%d.body.position = %v, flat %v", i, got, want)
		}
	}
	// The families the batched engine found are the same.
	if fa, fb := len(a.Families()), len(b.Families()); fa != fb {
		t.Errorf("%d families with subsystems, %d flat", fa, fb)
	}
}

// An axle holds two corners; a vehicle holds two axles. Inner fields are
// addressed by full path, ports resolve through both levels, and the
// static equilibrium under gravity-free constant loads matches the closed
// form: a body load F compresses tire and suspension in series, so the
// body sinks F/k_t + F/k_s below its rest height.
func TestSubsystemNested(t *testing.T) {
	axle := func(k float64) *graph.Subsystem {
		g := graph.New()
		g.AddSubsystem("left", corner(t, k))
		g.AddSubsystem("right", corner(t, k))
		s := graph.NewSubsystem(g)
		s.ExposeInput("load", "left.load", "right.load") // fans out
		s.ExposeOutput("left_body", "left.body")
		s.PromoteParam("k_left", "left.k")
		return s
	}
	g := graph.New()
	g.AddSubsystem("front", axle(3e4))
	g.AddSubsystem("rear", axle(3e4))
	g.Add("weight", newLoad([3]float64{0, 0, -2000}))
	g.Connect("weight.f", "front.load")
	g.Connect("weight.f", "rear.load")
	front, _ := g.Subsystem("front")
	if err := front.SetParams(map[string]any{"k_left": []float64{2e4, 2e4, 2e4}}); err != nil {
		t.Fatal(err)
	}
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	wantNames := []string{"front.left.wheel", "front.left.body", "front.left.tire", "front.left.suspension",
		"front.right.wheel", "front.right.body", "front.right.tire", "front.right.suspension",
		"rear.left.wheel", "rear.left.body", "rear.left.tire", "rear.left.suspension",
		"rear.right.wheel", "rear.right.body", "rear.right.tire", "rear.right.suspension", "weight"}
	if diff := cmp.Diff(wantNames, s.Names()); diff != "" {
		t.Errorf("flattened names (-want +got):\n%s", diff)
	}
	// Damped to rest: 20 s is over 60 time constants of the slowest
	// mode's decay (ζω ≈ 3.4 1/s for the body on k_s = 2e4, c = 1500).
	if _, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: 1}, Dt: 1e-4, End: 20}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		ks   float64
	}{{"front.left.body.position", 2e4}, {"front.right.body.position", 3e4}, {"rear.left.body.position", 3e4}} {
		got, err := s.Value(c.path)
		if err != nil {
			t.Fatal(err)
		}
		want := 0.8 - 2000/2e5 - 2000/c.ks
		// Tolerance: the residual transient, e^{-68} of a centimetre, is
		// far below round-off of the position; 1e-9 m bounds round-off
		// of 200 000 steps.
		if !numtest.Within(got[2], want, 1e-9) {
			t.Errorf("%s z = %.12g, want %.12g (series springs)", c.path, got[2], want)
		}
	}
}

// Every problem of a graph of subsystems is reported at once, each with
// the full path of the part it is about.
func TestSubsystemProblemsAtOnce(t *testing.T) {
	bad := func() *graph.Subsystem {
		s := corner(t, 2e4)
		s.ExposeOutput("speed", "body.velocty")  // misspelled field
		s.ExposeInput("push", "wheels.force")    // unknown node
		s.PromoteParam("mass", "body.massss")    // unknown parameter
		s.ExposeOutput("body", "wheel.position") // declared twice
		return s
	}
	inner := graph.New()
	inner.AddSubsystem("knee", bad())
	inner.Add("w", newLoad([3]float64{}))
	inner.Connect("w.f", "knee.lod") // unknown port
	leg := graph.NewSubsystem(inner)
	leg.ExposeOutput("foot", "knee.wheel")
	leg.ExposeOutput("toe", "knee.nothing")
	g := graph.New()
	g.AddSubsystem("leg2", leg)
	g.Add("src", newLoad([3]float64{}))
	g.Connect("src.f", "leg2.foot") // an output port as an input
	g.Connect("src.nope", "src.f")  // an ordinary wiring problem, reported too
	_, err := g.Build()
	var be *graph.BuildError
	if !errors.As(err, &be) {
		t.Fatalf("Build: %v, want a *BuildError", err)
	}
	msg := err.Error()
	for _, want := range []string{
		`subsystem "leg2.knee" output port "speed": unknown field: node "body" (masspoint) has no state field or output "velocty" (did you mean "velocity"?)`,
		`subsystem "leg2.knee" input port "push": unknown node: no node or subsystem "wheels"`,
		`subsystem "leg2.knee" param port "mass": unknown field: node "body" (masspoint) has no parameter "massss"`,
		`subsystem "leg2.knee" output port "body": duplicate node name: declared twice`,
		`subsystem "leg2" output port "toe": unknown field: subsystem "knee" has no output port "nothing"`,
		`leg2.w.f -> leg2.knee.lod: unknown field: subsystem "knee" has no input port "lod"`,
		`src.f -> leg2.foot: unknown field: subsystem "leg2" has no input port "foot"`,
		`src.nope -> src.f: unknown field`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q; got:\n%s", want, msg)
		}
	}
	if !errors.Is(err, graph.ErrUnknownField) || !errors.Is(err, graph.ErrDuplicateName) {
		t.Errorf("errors.Is fails for the sentinels: %v", err)
	}
	var pe *graph.PortError
	if !errors.As(err, &pe) || pe.Subsystem != "leg2" || pe.Port != "toe" || pe.Kind != graph.OutputPort {
		t.Errorf("errors.As PortError: %+v, want the first problem (a subsystem's ports are checked before its parts): leg2's output port toe", pe)
	}
}

func TestSubsystemPortsAndMeta(t *testing.T) {
	s := corner(t, 2e4)
	ports, err := s.Ports()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ports {
		got = append(got, fmt.Sprintf("%s %s %v %s %v", p.Kind, p.Name, p.Shape, p.Units, p.Leaf))
	}
	want := []string{
		"input load (3,) N [body.force]",
		"output body (3,) m [body.position]",
		"output wheel (3,) m [wheel.position]",
		"param k (3,) N/m [suspension.stiffness]",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ports (-want +got):\n%s", diff)
	}
	if r := ports[3].Param.Range; r.String() == "" {
		t.Errorf("promoted parameter lost its range: %+v", ports[3].Param)
	}
	// The metadata derives from the nodes': masspoint's first order is
	// the lowest declared (springdamper has no discretization, order 0
	// is "none declared"), and the anomalies are springdamper's, once
	// per connector, each naming it.
	m := s.Meta()
	if m.Order.Temporal != 1 || m.OrderFrom != "wheel" || m.Nodes != 4 {
		t.Errorf("meta order %v from %q, %d nodes; want 1 from wheel, 4 nodes", m.Order.Temporal, m.OrderFrom, m.Nodes)
	}
	var anos []string
	for _, a := range m.Anomalies {
		anos = append(anos, a.Node+":"+a.ID)
	}
	wantAnos := []string{"tire:COSIM-ANO-002", "tire:COSIM-ANO-003", "suspension:COSIM-ANO-002", "suspension:COSIM-ANO-003"}
	if diff := cmp.Diff(wantAnos, anos); diff != "" {
		t.Errorf("anomalies (-want +got):\n%s", diff)
	}
	if err := s.SetParams(map[string]any{"kk": 1.0}); err == nil || !strings.Contains(err.Error(), `did you mean "k"`) {
		t.Errorf("SetParams of an unknown name: %v", err)
	}
	if err := s.SetParams(map[string]any{"k": []float64{math.NaN(), 0, 0}}); err == nil {
		t.Error("SetParams accepted a NaN stiffness")
	}
}

// Checkpoints and sensitivities address inner nodes by full path.
func TestSubsystemCheckpointAndSensitivity(t *testing.T) {
	build := func() *graph.Sim {
		g := graph.New()
		g.AddSubsystem("leg", corner(t, 2e4))
		g.Add("w", newLoad([3]float64{0, 0, -500}))
		g.Connect("w.f", "leg.load")
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a := build()
	set := graph.Settings{Mode: graph.CoSimulation{Workers: 1}, Dt: 1e-4, Steps: 500}
	if _, err := a.Run(context.Background(), set); err != nil {
		t.Fatal(err)
	}
	cp := a.Checkpoint()
	if _, err := a.Run(context.Background(), set); err != nil {
		t.Fatal(err)
	}
	b := build()
	if err := b.Restore(cp); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Run(context.Background(), set); err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(a.State(nil), b.State(nil)) {
		t.Error("a run resumed from a checkpoint differs from the continuous run")
	}

	// ∂z_body/∂(suspension stiffness): the reference is a central
	// difference of two runs with the stiffness changed by ±1 %.
	s := build()
	res, err := s.Sensitivities(context.Background(), []string{"leg.suspension.stiffness[2]"}, &graph.SensitivityOptions{End: 0.05, Record: []string{"leg.body.position[2]"}})
	if err != nil {
		t.Fatal(err)
	}
	last := res.D[len(res.D)-1][0]
	z := func(k float64) float64 {
		s := build()
		n, _ := s.Node("leg.suspension")
		if err := n.(node.Tunable).SetParams(map[string]any{"stiffness": []float64{2e4, 2e4, k}}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: 1}, Dt: 1e-6, End: 0.05}); err != nil {
			t.Fatal(err)
		}
		v, _ := s.Value("leg.body.position")
		return v[2]
	}
	h := 200.0
	fd := (z(2e4+h) - z(2e4-h)) / (2 * h)
	// Tolerance 2 %: the difference quotient is taken of first-order
	// semi-implicit Euler runs at dt = 1e-6 (relative error ~1e-4) with a
	// ±1 % step (truncation ~1e-4 relative); 2 % leaves room for both.
	if !numtest.Within(last, fd, 0.02*math.Abs(fd)) {
		t.Errorf("∂z/∂k = %g, finite differences %g", last, fd)
	}
}

// A nil subsystem, or one around a nil graph, is a problem Build
// reports, not a panic, even with edges into it.
func TestSubsystemNil(t *testing.T) {
	g := graph.New()
	g.AddSubsystem("a", nil)
	g.AddSubsystem("b", graph.NewSubsystem(nil))
	g.Add("w", newLoad([3]float64{}))
	g.Connect("w.f", "a.load")
	g.Connect("w.f", "b.load")
	_, err := g.Build()
	if err == nil || !strings.Contains(err.Error(), `subsystem "a": invalid node name: the subsystem or its graph is nil`) || !strings.Contains(err.Error(), `subsystem "b": invalid node name`) {
		t.Errorf("Build: %v", err)
	}
}
