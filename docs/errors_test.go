package docs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/calibrate"
	"github.com/cosimgo/cosim/fmi/export"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/graphtest"
	"github.com/cosimgo/cosim/internal/textio"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/constant"
	"github.com/cosimgo/cosim/nodes/control"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/rigidbody"
	"github.com/cosimgo/cosim/nodes/source"
	"github.com/cosimgo/cosim/nodes/spring"
	"github.com/cosimgo/cosim/nodes/springdamper"
	"github.com/cosimgo/cosim/nodes/table"
	"github.com/cosimgo/cosim/scene"
)

// twiceRows is y' = −y in two components whose JacobianRows breaks its
// contract by giving row 0 twice.
type twiceRows struct{}

func (twiceRows) Dim() int { return 2 }
func (twiceRows) Func(t float64, y, dst []float64) error {
	dst[0], dst[1] = -y[0], -y[1]
	return nil
}
func (twiceRows) JacobianRows(t float64, y []float64, emit func(int, []int32, []float64)) error {
	emit(0, []int32{0}, []float64{-1})
	emit(0, []int32{0}, []float64{-1})
	return nil
}

// userErrors produces the error messages users meet, by making each
// mistake for real. docs/errors.md quotes every one of them verbatim, and
// TestErrorsDocumented fails when the code's wording drifts from it.
func userErrors(t *testing.T) map[string]string {
	t.Helper()
	msgs := map[string]string{}
	add := func(key string, err error) {
		if err == nil {
			t.Fatalf("%s: no error", key)
		}
		msgs[key] = err.Error()
	}
	p := ball.DefaultParams()
	p.Elasticity = 1.5
	_, err := ball.New(p)
	add("param", err)
	_, err = nodes.Registry().New("bal", nil)
	add("type", err)

	mp, _ := masspoint.New(masspoint.DefaultParams())
	b, _ := ball.New(ball.DefaultParams())
	tb, _ := table.New(table.DefaultParams())
	g := graph.New()
	g.Add("ball", b)
	g.Add("table", tb)
	g.Add("mass", mp)
	g.Connect("tabel.position", "ball.table_position")
	g.Connect("table.positon", "ball.table_position")
	g.Connect("table.position", "mass.force")
	_, err = g.Build()
	add("wiring", err)

	// Go API mistakes: an edge into its own node, a connector on one
	// body, a run of neither steps nor end, pairs outside the state, a
	// nil context, checkpoint or connector.
	g = graph.New()
	g.Add("mass", mp)
	g.Connect("mass.position", "mass.force", graph.Via(graph.Scale{Factor: -1, From: "m", To: "N"}))
	_, err = g.Build()
	add("self edge (Go)", err)
	g = graph.New()
	g.Add("mass", mp)
	_, err = g.AddConnector("s", spring.DefaultParams(), "mass", [3]float64{}, "mass", [3]float64{})
	add("connector on one body (Go)", err)
	_, err = g.AddConnector("s", nil, "", [3]float64{}, "mass", [3]float64{})
	add("nil connector", err)
	sm, _ := g.Build()
	_, err = sm.Run(context.Background(), graph.Settings{Dt: 0.1})
	add("neither steps nor end", err)
	_, err = sm.Run(context.Background(), graph.Settings{Mode: graph.Monolithic{Method: integrators.RK4{}, Options: &integrators.DriverOptions{Positions: []int{6}, Velocities: []int{3}}}, Dt: 0.1, Steps: 1})
	add("pairs outside the state", err)
	_, err = sm.Run(nilContext(), graph.Settings{Dt: 0.1, Steps: 1})
	add("nil context", err)
	add("nil checkpoint", sm.Restore(nil))
	rp := rigidbody.DefaultParams()
	rp.Inertia = [3]float64{1, 1, 5}
	_, err = rigidbody.New(rp)
	add("inertia triangle", err)

	// A run that goes non-finite: a ball with overflowing gravity.
	p = ball.DefaultParams()
	p.Gravity = -1e308
	b, _ = ball.New(p)
	g = graph.New()
	g.Add("ball", b)
	s, _ := g.Build()
	_, err = s.Run(context.Background(), graph.Settings{Dt: 10, Steps: 5})
	add("nonfinite", err)

	// A checkpoint restored into another graph.
	g2 := graph.New()
	b2, _ := ball.New(ball.DefaultParams())
	g2.Add("ball2", b2)
	s2, _ := g2.Build()
	add("mismatch", s2.Restore(s.Checkpoint()))
	var buf bytes.Buffer
	s.Checkpoint().Encode(&buf)
	data := buf.Bytes()
	data[len(data)-3] ^= 1
	_, err = graph.DecodeCheckpoint(bytes.NewReader(data))
	add("corrupt", err)
	// A monolithic RK4 checkpoint continued as a co-simulation.
	s3, _ := g2.Build()
	if _, err := s3.Run(context.Background(), graph.Settings{Mode: graph.Monolithic{Method: integrators.RK4{}}, Dt: 1e-3, Steps: 5}); err != nil {
		t.Fatal(err)
	}
	s4, _ := g2.Build()
	if err := s4.Restore(s3.Checkpoint()); err != nil {
		t.Fatal(err)
	}
	_, err = s4.Run(context.Background(), graph.Settings{Dt: 1e-3, Steps: 5})
	add("resume in another mode", err)

	// A scene with mistakes.
	_, err = scene.Decode(strings.NewReader(`{"nodes": [{"name": "b", "type": "ball"}], "run": {"dt": -1, "steps": 10}}`))
	add("scene", err)

	// Subsystems: a port naming a misspelled inner field, and an edge
	// into a port the subsystem does not have, reported with full paths.
	inner := graph.New()
	km, _ := masspoint.New(masspoint.DefaultParams())
	inner.Add("mass", km)
	knee := graph.NewSubsystem(inner)
	knee.ExposeOutput("x", "mass.positon")
	legG := graph.New()
	legG.AddSubsystem("knee", knee)
	leg := graph.NewSubsystem(legG)
	leg.ExposeInput("push", "knee.force")
	g = graph.New()
	g.AddSubsystem("leg2", leg)
	g.Add("table", tb)
	g.Connect("table.position", "leg2.pull")
	_, err = g.Build()
	add("subsystem", err)

	// A subsystem in a scene given a parameter its part does not promote.
	_, err = scene.Load(strings.NewReader(`{"nodes": [{"name": "leg", "type": "subsystem", "graph": {"nodes": [{"name": "mass", "type": "masspoint"}], "ports": {"params": [{"name": "m", "param": "mass.mass"}]}}, "params": {"mas": 2}}], "run": {"dt": 0.1, "steps": 1}}`), nodes.Registry())
	add("subsystem-scene", err)
	part, _ := scene.Decode(strings.NewReader(`{"nodes": [{"name": "mass", "type": "masspoint"}], "ports": {}}`))
	_, err = part.Simulate(context.Background(), nodes.Registry(), nil)
	add("part", err)

	// Newton failing in an implicit integrator.
	sys := integrators.SystemFunc{N: 1, F: func(t float64, y, dst []float64) error { dst[0] = -math.Exp(50 * y[0]); return nil }}
	st, _ := integrators.NewStepper(integrators.BackwardEuler{Newton: integrators.NewtonOptions{MaxIter: 2}}, sys, nil)
	st.Init(0, []float64{1})
	add("newton", st.Step(1))
	_ = node.ErrNonFinite

	// An adaptive implicit method whose model leaves its domain (f not
	// finite below y = ½), and one whose solution blows up (y' = y²).
	domain := integrators.SystemFunc{N: 1, F: func(t float64, y, dst []float64) error {
		dst[0] = -1
		if y[0] < 0.5 {
			dst[0] = math.NaN()
		}
		return nil
	}}
	_, err = integrators.Integrate(integrators.BDF{}, domain, 0, []float64{1}, 1, nil)
	add("adaptive newton", err)
	blowup := integrators.SystemFunc{N: 1, F: func(t float64, y, dst []float64) error { dst[0] = y[0] * y[0]; return nil }}
	_, err = integrators.Integrate(integrators.BDF{}, blowup, 0, []float64{1}, 2, nil)
	add("adaptive step", err)

	// A System of one's own whose JacobianRows gives a row twice.
	st, _ = integrators.NewStepper(integrators.BackwardEuler{Linear: integrators.LinearOptions{Solver: integrators.LinearGMRES}}, twiceRows{}, nil)
	st.Init(0, []float64{1, 0})
	add("jacobian rows", st.Step(0.5))

	// An algebraic loop refused on request, one that cannot be solved
	// (y = 1 + y: a sum reading its own output through a unit gain), and
	// a required input left unconnected.
	g = graph.New()
	g.SetLoopSettings(graph.LoopSettings{Refuse: true})
	g.Add("a", newEcho(true))
	g.Add("b", newEcho(true))
	g.Connect("a.out", "b.in")
	g.Connect("b.out", "a.in")
	_, err = g.Build()
	add("loop", err)
	g = graph.New()
	one, _ := control.NewGain(control.GainParams{Gain: []float64{1}})
	sum, _ := control.NewSum(control.SumParams{Signs: "++"})
	g.Add("gain", one)
	g.Add("sum", sum)
	g.Connect("sum.out", "gain.in")
	g.Connect("gain.out", "sum.in2")
	ref, _ := source.NewStep(source.StepParams{Time: 0, Final: []float64{1}, Units: "1"})
	g.Add("ref", ref)
	g.Connect("ref.value", "sum.in1")
	s, err = g.Build()
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 1})
	add("loop diverges", err)
	// A loop whose solution has no derivative where it is solved: y = x +
	// y − y³ (a sum reading its own output through a unit gain, and the
	// cube of it through a product), so y³ = x, at x = 0 where dy/dx is
	// infinite; the implicit method's first Jacobian meets it.
	g = graph.New()
	mass, _ := masspoint.New(masspoint.DefaultParams())
	g.Add("mass", mass)
	unit, _ := control.NewGain(control.GainParams{Size: 3, Gain: []float64{1}, InputUnits: "m", OutputUnits: "m"})
	cube, _ := control.NewProduct(control.ProductParams{Ops: "***", Size: 3, InputUnits: "m", OutputUnits: "m"})
	sum, _ = control.NewSum(control.SumParams{Signs: "++-", Size: 3, Units: "m"})
	g.Add("unit", unit)
	g.Add("cube", cube)
	g.Add("sum", sum)
	g.Connect("mass.position", "sum.in1")
	g.Connect("sum.out", "unit.in")
	g.Connect("unit.out", "sum.in2")
	for _, in := range []string{"in1", "in2", "in3"} {
		g.Connect("sum.out", "cube."+in)
	}
	g.Connect("cube.out", "sum.in3")
	g.Connect("sum.out", "mass.force", graph.Via(graph.Scale{Factor: 1, From: "m", To: "N"}))
	if s, err = g.Build(); err != nil {
		t.Fatal(err)
	}
	_, err = s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 1, Mode: graph.Monolithic{Method: integrators.BackwardEuler{}}})
	add("loop jacobian", err)
	g = graph.New()
	g.Add("c", newEcho(false))
	_, err = g.Build()
	add("unconnected", err)

	// A panic in user code: a custom transform.
	g = graph.New()
	tb, _ = table.New(table.DefaultParams())
	b, _ = ball.New(ball.DefaultParams())
	g.Add("table", tb)
	g.Add("ball", b)
	g.Connect("table.position", "ball.table_position", graph.Via(graph.TransformFunc{Label: "lift", In: node.Scalar, Out: node.Scalar,
		F: func(dst, src []float64) { panic("index out of range [3] with length 1") }}))
	s, _ = g.Build()
	_, err = s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 5})
	add("panic", err)

	// A truncated scene file.
	_, err = scene.Decode(strings.NewReader(`{"nodes": [{"name": "b", "type": "ball"`))
	add("truncated", err)

	// Two masses on a geometric spring flying through each other.
	ma, _ := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{-1, 0, 0}, InitialVelocity: [3]float64{1, 0, 0}})
	mb, _ := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{1, 0, 0}, InitialVelocity: [3]float64{-1, 0, 0}})
	g = graph.New()
	g.Add("a", ma)
	g.Add("b", mb)
	spring.Connect(g, "s", spring.DefaultParams(), node.Body("a"), node.Body("b"))
	s, _ = g.Build()
	_, err = s.Run(context.Background(), graph.Settings{Dt: 0.25, Steps: 8})
	add("coincident", err)

	// Connector ends: a body given as a Go value in a graph, and a ball's
	// axis that is not a unit vector.
	mk, _ := masspoint.New(masspoint.DefaultParams())
	bk, _ := ball.New(ball.DefaultParams())
	g = graph.New()
	g.Add("m", mk)
	g.Add("b", bk)
	_, err = springdamper.Connect(g, "k", springdamper.DefaultParams(), node.At(mk, [3]float64{}), node.GroundAt([3]float64{}))
	add("end by value", err)
	_, err = springdamper.Connect(g, "k2", springdamper.DefaultParams(), node.BodyAt("b", [3]float64{0, 2, 0}), node.GroundAt([3]float64{}))
	add("ball axis", err)

	// A lookup table asked outside its range with outside = "error".
	lk, _ := source.NewLookup(source.LookupParams{Times: []float64{0, 1}, Values: []float64{0, 0, 0, 1, 0, 0}, Outside: source.OutsideError, Units: "N"})
	g = graph.New()
	mp, _ = masspoint.New(masspoint.DefaultParams())
	g.Add("thrust", lk)
	g.Add("m", mp)
	g.Connect("thrust.value", "m.force")
	s, _ = g.Build()
	_, err = s.Run(context.Background(), graph.Settings{Dt: 0.5, Steps: 4})
	add("outside", err)

	// An unknown integrator name.
	_, err = integrators.ByName("rk5")
	add("method", err)

	// Sensitivities of a co-simulation run, and of a Sim that has run.
	s = ballOnTable()
	_, err = s.Sensitivities(context.Background(), []string{"ball.elasticity"}, &graph.SensitivityOptions{End: 1, Mode: graph.CoSimulation{}})
	add("sens-cosim", err)
	s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 1})
	_, err = s.Sensitivities(context.Background(), []string{"ball.elasticity"}, &graph.SensitivityOptions{End: 1})
	add("sens-ran", err)
	_, err = s.Sensitivities(context.Background(), []string{"ball.show"}, &graph.SensitivityOptions{End: 1})
	add("sens-param", err)
	// Sensitivity options their mode cannot honour.
	_, err = ballOnTable().Sensitivities(context.Background(), []string{"ball.elasticity"}, &graph.SensitivityOptions{End: 1, Mode: graph.MonolithicAdaptive{Method: integrators.BDF{}}})
	add("sens-adaptive-method", err)
	_, err = ballOnTable().Sensitivities(context.Background(), []string{"ball.elasticity"}, &graph.SensitivityOptions{End: 1, Dt: 0.01})
	add("sens-adaptive-dt", err)
	_, err = ballOnTable().Sensitivities(context.Background(), []string{"ball.elasticity"}, &graph.SensitivityOptions{End: 1, Dt: 0.01, Output: []float64{1}, Mode: graph.Monolithic{Method: integrators.RK4{}}})
	add("sens-fixed-output", err)

	// Strict scene files: a key given twice, a key in the wrong case,
	// steps with end, a self-wired input, an edge given twice.
	_, err = scene.Decode(strings.NewReader("{\"nodes\": [{\"name\": \"b\", \"type\": \"ball\"}],\n \"run\": {\"dt\": 0.0001, \"dt\": 0.5, \"end\": 10}}"))
	add("duplicate key", err)
	_, err = scene.Decode(strings.NewReader(`{"nodes": [{"name": "b", "type": "ball"}], "run": {"DT": 0.1, "end": 1}}`))
	add("key case", err)
	_, err = scene.Decode(strings.NewReader(`{"nodes": [{"name": "b", "type": "ball"}], "run": {"dt": 0.1, "steps": 10, "end": 5}}`))
	add("steps and end", err)
	_, err = scene.Decode(strings.NewReader(`{"nodes": [{"name": "ball", "type": "ball"}], "edges": [{"from": "ball.position", "to": "ball.table_position"}], "run": {"dt": 0.1, "end": 1}}`))
	add("self edge", err)
	_, err = scene.Load(strings.NewReader(`{"nodes": [{"name": "m", "type": "masspoint"}, {"name": "load", "type": "constant", "params": {"value": [0, -5, 0]}}],
	 "edges": [{"from": "load.value", "to": "m.force"}, {"from": "load.value", "to": "m.force"}], "run": {"dt": 0.1, "end": 1}}`), nodes.Registry())
	add("edge twice", err)
	_, err = scene.Load(strings.NewReader(`{"nodes": [{"name": "m", "type": "masspoint"}], "connectors": [{"name": "s", "type": "springdamper", "bodies": ["ground", "m"]}],
	 "edges": [{"from": "s.m1_force", "to": "m.force", "transform": {"kind": "scale", "factor": 1}}], "run": {"dt": 0.1, "end": 1}}`), nodes.Registry())
	add("connector edge again through a scale", err)
	sc, _ := scene.Decode(strings.NewReader(`{"nodes": [{"name": "b", "type": "ball"}], "run": {"dt": 0.1, "end": 1}}`))
	_, err = sc.With(map[string]any{"run.dt": -1.0})
	add("set", err)

	// Control blocks: an improper transfer function, a zero divisor, a
	// step longer than a hold's period, a sample skipped by three holds
	// sharing an instant under a fixed-step method.
	_, err = control.NewTransferFunction(control.TransferFunctionParams{Numerator: []float64{1, 0, 0}, Denominator: []float64{1, 1}})
	add("improper", err)
	g = graph.New()
	num, _ := source.NewStep(source.StepParams{Time: 0, Final: []float64{1}})
	den, _ := source.NewStep(source.StepParams{Time: 0.05, Initial: []float64{2}, Final: []float64{0}})
	ratio, _ := control.NewProduct(control.ProductParams{Ops: "*/"})
	lag, _ := control.NewLag(control.FirstOrderParams{})
	g.Add("num", num)
	g.Add("den", den)
	g.Add("ratio", ratio)
	g.Add("lag", lag)
	g.Connect("num.value", "ratio.in1")
	g.Connect("den.value", "ratio.in2")
	g.Connect("ratio.out", "lag.in")
	s, _ = g.Build()
	_, err = s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 10})
	add("divide", err)
	g = graph.New()
	sine, _ := source.NewSine(source.SineParams{})
	zoh, _ := control.NewZOH(control.HoldParams{SampleTime: 0.1})
	g.Add("u", sine)
	g.Add("zoh", zoh)
	g.Connect("u.value", "zoh.in")
	s, _ = g.Build()
	_, err = s.Run(context.Background(), graph.Settings{Dt: 0.2, Steps: 3})
	add("step too long", err)
	// A sample skipped: the graph's System integrated through a wrapper
	// that hides its time events, with steps of 0.03 s that end on a
	// sample instant only every 0.3 s.
	g = graph.New()
	g.Add("u", sine)
	zoh, _ = control.NewZOH(control.HoldParams{SampleTime: 0.1})
	g.Add("zoh", zoh)
	g.Connect("u.value", "zoh.in")
	s, _ = g.Build()
	gsys, _ := s.System()
	st, _ = integrators.NewStepper(integrators.RK4{}, hiddenTimeEvents{gsys}, nil)
	err = st.Init(0, s.State(nil))
	for k := 0; k < 20 && err == nil; k++ {
		err = st.Step(0.03)
	}
	add("skipped", err)

	// Two events whose resets undo each other at one instant: the event
	// iteration at that instant never settles.
	_, err = integrators.Integrate(integrators.DormandPrince{}, toggles{}, 0, []float64{0, 0}, 2, nil)
	add("event iteration", err)

	// An observer stopping a run.
	g = graph.New()
	b, _ = ball.New(ball.DefaultParams())
	g.Add("ball", b)
	s, _ = g.Build()
	_, err = s.Run(context.Background(), graph.Settings{Dt: 0.5, Steps: 10, Observer: graph.ObserverFunc(func(v *graph.View) error {
		if v.Time >= 1 {
			return errors.New("the ball is below 5 m")
		}
		return nil
	})})
	add("observer", err)

	// Settings a mode cannot run: a monolithic mode without a method.
	_, err = s.Run(context.Background(), graph.Settings{Dt: 0.5, Steps: 10, Mode: graph.Monolithic{}})
	add("mode", err)

	// A coupling scheme that is unstable at the step: the warning at the
	// start and the error that stops the growth.
	chain, err := scene.LoadFile("../examples/scenes/mass-spring-chain.json", nodes.Registry())
	if err != nil {
		t.Fatal(err)
	}
	chain.Run.End = 300
	res, err := chain.Simulate(context.Background(), nodes.Registry(), nil)
	add("growth", err)
	if res != nil && res.Stability != nil {
		add("stability warning", errors.New(res.Stability.Warning()))
	}
	// An explicit monolithic method beyond its stable step: RK4 on a
	// stiff spring.
	{
		g := graph.New()
		mp := masspoint.DefaultParams()
		mp.InitialPosition = [3]float64{1.01, 0, 0}
		m, _ := masspoint.New(mp)
		g.Add("m", m)
		sp := springdamper.DefaultParams()
		sp.Stiffness, sp.Offset = [3]float64{1e4, 0, 0}, [3]float64{1, 0, 0}
		if _, err := g.AddConnector("s", sp, "", [3]float64{}, "m", [3]float64{}); err != nil {
			t.Fatal(err)
		}
		stiff, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		res, _ := stiff.Run(context.Background(), graph.Settings{Mode: graph.Monolithic{Method: integrators.RK4{}}, Dt: 0.05, Steps: 20})
		if res == nil || res.Stability == nil || !res.Stability.Unstable() {
			t.Fatalf("RK4 on the stiff spring at dt = 0.05 s: no unstable analysis: %+v", res)
		}
		add("monolithic stability warning", errors.New(res.Stability.Warning()))
	}

	// A lookup table naming its value column twice, and one with a
	// hexadecimal time.
	dir := t.TempDir()
	lookup := func(csv string) error {
		os.WriteFile(filepath.Join(dir, "t.csv"), []byte(csv), 0o644)
		os.WriteFile(filepath.Join(dir, "s.json"), []byte(`{"nodes": [{"name": "f", "type": "lookup", "params": {"file": "t.csv", "column": "force"}}], "run": {"dt": 0.1, "end": 1}}`), 0o644)
		_, err := scene.LoadFile(filepath.Join(dir, "s.json"), nodes.Registry())
		if err == nil {
			return nil
		}
		// From the line on: the path before it is the test's temporary one.
		msg := err.Error()
		return errors.New(msg[strings.Index(msg, "line "):])
	}
	add("lookup twice", lookup("time,force,force\n0,1,2\n"))
	add("hexadecimal", lookup("time,force\n0,1\n0x10,2\n"))

	// A misspelt connector body; tolerances below the floor.
	_, err = scene.Load(strings.NewReader(`{"nodes": [{"name": "mass", "type": "masspoint"}], "connectors": [{"name": "s", "type": "springdamper", "bodies": ["ground", "mas"]}], "run": {"dt": 0.01, "end": 1}}`), nodes.Registry())
	add("connector body", err)
	_, err = scene.Decode(strings.NewReader(`{"nodes": [{"name": "b", "type": "ball"}], "run": {"mode": "monolithic", "dt": 0.01, "end": 1, "integrator": {"method": "dormand-prince", "adaptive": true, "rtol": 1e-300, "atol": 1e-300}}}`))
	add("tolerances", err)
	_, err = integrators.DormandPrince{RTol: 1e-300, ATol: 1e-300}.NewDriver(integrators.SystemFunc{N: 1, F: func(t float64, y, dst []float64) error { return nil }}, nil)
	add("tolerances (Go)", err)

	// Fit data: a column twice, a digit separator, too few values, both
	// weights and noise; the size limit.
	_, err = calibrate.ReadCSV(strings.NewReader("t,ball.position,ball.position\n0,1,1\n"))
	add("data twice", err)
	_, err = calibrate.ReadCSV(strings.NewReader("t,ball.position\n0,1_0\n"))
	add("digit separator", err)
	s = ballOnTable()
	d := &calibrate.Data{Times: []float64{0.3}, Columns: []string{"ball.position", "ball.velocity"}, Values: [][]float64{{0.5, -2.9}}}
	_, err = calibrate.Fit(context.Background(), &calibrate.Problem{Sim: s, Free: []calibrate.FreeParam{{Name: "ball.gravity"}, {Name: "ball.initial_velocity"}}, Data: d}, nil)
	add("too few values", err)
	d = &calibrate.Data{Times: []float64{0.3, 0.4}, Columns: []string{"ball.position"}, Values: [][]float64{{0.5}, {0.4}}, Weights: []float64{1}, Sigma: []float64{1}}
	_, err = calibrate.Fit(context.Background(), &calibrate.Problem{Sim: s, Free: []calibrate.FreeParam{{Name: "ball.gravity"}}, Data: d}, nil)
	add("weights and sigma", err)
	d = &calibrate.Data{Times: []float64{0.3, 0.4}, Columns: []string{"ball.nope"}, Values: [][]float64{{0.5}, {0.4}}}
	_, err = calibrate.Fit(context.Background(), &calibrate.Problem{Sim: s, Free: []calibrate.FreeParam{{Name: "ball.gravity"}}, Data: d}, nil)
	add("unknown column", err)
	add("too large", fmt.Errorf("/dev/zero: calibrate: data header: %w", &textio.TooLargeError{What: "the data", Limit: calibrate.MaxDataBytes}))

	// A recording beyond its memory limit.
	mp, _ = masspoint.New(masspoint.DefaultParams())
	mp2, _ := masspoint.New(masspoint.DefaultParams())
	g = graph.New()
	g.Add("m1", mp)
	g.Add("m2", mp2)
	s, _ = g.Build()
	_, err = s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 1000, Record: []string{"m1.position[0]"}, RecordLimit: 1000})
	add("record limit", err)

	// An exported FMU's fmu section naming what the scene does not have,
	// and an export without a C compiler or the Go toolchain (cosim export).
	xdir := t.TempDir()
	osc, err := os.ReadFile("../fmi/export/testdata/oscillator.json")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(strings.Replace(string(osc), `"to": ["mass.force"]`, `"to": ["mass.forse"]`, 1), `"param": "mass.mass"`, `"param": "mass.masss"`, 1)
	badPath := filepath.Join(xdir, "bad.json")
	if err := os.WriteFile(badPath, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = export.Export(badPath, filepath.Join(xdir, "bad.fmu"), nodes.Registry(), export.Options{Program: "/bin/true"})
	if err == nil {
		t.Fatal("export of a bad fmu section: no error")
	}
	msgs["export fmu section"] = strings.ReplaceAll(err.Error(), xdir+string(filepath.Separator), "")
	t.Setenv("CC", "")
	t.Setenv("PATH", xdir)
	_, err = export.Export("../fmi/export/testdata/oscillator.json", filepath.Join(xdir, "osc.fmu"), nodes.Registry(), export.Options{Binary: export.BinaryProcess, Program: "/bin/true"})
	add("export compiler", err)
	_, err = export.Export("../fmi/export/testdata/oscillator.json", filepath.Join(xdir, "osc.fmu"), nodes.Registry(), export.Options{})
	add("export go", err)
	// A node whose Derivatives switch mode exactly where the Jacobian is
	// taken (a penalty floor at the mass's height) and that has no
	// analytic Jacobian (graphtest.FloorMass, k = 10⁴ N/m, at x = 0).
	_, err = graphtest.FloorJacobian(t, 1e4, 0, 0)
	add("switch", err)
	return msgs
}

// hiddenTimeEvents is a graph's System without its time events
// (integrators.TimeEventSystem): an integrator then steps over the
// sampled blocks' instants.
type hiddenTimeEvents struct{ m *graph.System }

func (h hiddenTimeEvents) Dim() int                                 { return h.m.Dim() }
func (h hiddenTimeEvents) Func(t float64, y, dst []float64) error   { return h.m.Func(t, y, dst) }
func (h hiddenTimeEvents) EventCount() int                          { return h.m.EventCount() }
func (h hiddenTimeEvents) EventDirection(i int) int                 { return h.m.EventDirection(i) }
func (h hiddenTimeEvents) Events(t float64, y, dst []float64) error { return h.m.Events(t, y, dst) }
func (h hiddenTimeEvents) Reset(i int, t float64, y, dst []float64) (integrators.EventAction, error) {
	return h.m.Reset(i, t, y, dst)
}

// toggles has a clock event at t = 1 (rising) that sets y[0] = 1, and
// two level events on y[0] − ½ and y[1] − ½ (either direction) whose
// resets flip y[1] and y[0]: each makes the other cross again, without
// end.
type toggles struct{}

func (toggles) Dim() int { return 2 }
func (toggles) Func(t float64, y, dst []float64) error {
	clear(dst)
	return nil
}
func (toggles) EventCount() int { return 3 }
func (toggles) EventDirection(i int) int {
	if i == 0 {
		return 1
	}
	return 0
}
func (toggles) Events(t float64, y, dst []float64) error {
	dst[0], dst[1], dst[2] = t-1, y[0]-0.5, y[1]-0.5
	return nil
}
func (toggles) Reset(i int, t float64, y, dst []float64) (integrators.EventAction, error) {
	switch i {
	case 0:
		dst[0] = 1
	case 1:
		dst[1] = 1 - y[1]
	case 2:
		dst[0] = 1 - y[0]
	}
	return integrators.EventContinue, nil
}
func (toggles) EventName(i int) string { return []string{"valve.clock", "valve.open", "pump.on"}[i] }

// ballOnTable is a default ball above a default table.
func ballOnTable() *graph.Sim {
	b, _ := ball.New(ball.DefaultParams())
	tb, _ := table.New(table.DefaultParams())
	g := graph.New()
	g.Add("ball", b)
	g.Add("table", tb)
	g.Connect("table.position", "ball.table_position")
	s, _ := g.Build()
	return s
}

// echo copies input "in" to output "out" (feedthrough when ft); without
// ft its input is required.
type echo struct {
	node.Stateless
	spec *node.Spec
}

func newEcho(ft bool) *echo {
	in := node.Input{Name: "in", Units: "1", Description: "value in", Combine: node.Replacing, Default: []float64{0}}
	if !ft {
		in.Default = nil
	}
	return &echo{spec: node.NewSpec(node.Spec{
		Type:        "echo",
		Inputs:      []node.Input{in},
		Outputs:     []node.Field{{Name: "out", Units: "1", Description: "value out"}},
		Feedthrough: ft,
	})}
}

func (e *echo) Spec() *node.Spec { return e.spec }
func (e *echo) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = in.Values[0]
	return nil
}

// nilContext is the nil context a caller may pass by mistake.
func nilContext() context.Context { return nil }

// mustConstant is a constant (1, 2, 3) in units.
func mustConstant(t *testing.T, units string) node.Node {
	t.Helper()
	c, err := constant.New(constant.Params{Value: [3]float64{1, 2, 3}, Units: units})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestErrorsDocumented(t *testing.T) {
	doc, err := os.ReadFile("errors.md")
	if err != nil {
		t.Fatal(err)
	}
	for key, msg := range userErrors(t) {
		for _, line := range strings.Split(msg, "\n") {
			line = strings.TrimSpace(line)
			if !bytes.Contains(doc, []byte(line)) {
				t.Errorf("docs/errors.md does not quote the %s error as the code words it now:\n%s", key, line)
			}
		}
	}
}
