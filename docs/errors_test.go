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
	"github.com/cosimgo/cosim/internal/textio"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/control"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/source"
	"github.com/cosimgo/cosim/nodes/spring"
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

	// A scene with mistakes.
	_, err = scene.Decode(strings.NewReader(`{"nodes": [{"name": "b", "type": "ball"}], "run": {"dt": -1, "steps": 10}}`))
	add("scene", err)

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

	// An algebraic loop and a required input left unconnected.
	g = graph.New()
	g.Add("a", newEcho(true))
	g.Add("b", newEcho(true))
	g.Connect("a.out", "b.in")
	g.Connect("b.out", "a.in")
	_, err = g.Build()
	add("loop", err)
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
	spring.Between(g, "s", spring.DefaultParams(), spring.Body("a"), spring.Body("b"))
	s, _ = g.Build()
	_, err = s.Run(context.Background(), graph.Settings{Dt: 0.25, Steps: 8})
	add("coincident", err)

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
	g = graph.New()
	g.Add("u", sine)
	for _, b := range []struct {
		name string
		ts   float64
	}{{"c", 0.4}, {"a", 0.1}, {"b", 0.2}} {
		z, _ := control.NewZOH(control.HoldParams{SampleTime: b.ts, Offset: b.ts})
		g.Add(b.name, z)
		g.Connect("u.value", b.name+".in")
	}
	s, _ = g.Build()
	_, err = s.RunMonolithic(context.Background(), integrators.RK4{}, nil, graph.Settings{Dt: 0.01, End: 1})
	add("skipped", err)

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

	// Fit data: a column twice, a digit separator, too few values, both
	// weights and noise; the size limit.
	_, err = calibrate.ReadCSV(strings.NewReader("t,ball.position,ball.position\n0,1,1\n"))
	add("data twice", err)
	_, err = calibrate.ReadCSV(strings.NewReader("t,ball.position\n0,1_0\n"))
	add("digit separator", err)
	s = ballOnTable()
	d := &calibrate.Data{Times: []float64{0.3}, Columns: []string{"ball.position", "ball.velocity"}, Values: [][]float64{{0.5, -2.9}}}
	_, err = calibrate.Fit(context.Background(), &calibrate.Problem{Sim: s, Free: []calibrate.Param{{Name: "ball.gravity"}, {Name: "ball.initial_velocity"}}, Data: d}, nil)
	add("too few values", err)
	d = &calibrate.Data{Times: []float64{0.3, 0.4}, Columns: []string{"ball.position"}, Values: [][]float64{{0.5}, {0.4}}, Weights: []float64{1}, Sigma: []float64{1}}
	_, err = calibrate.Fit(context.Background(), &calibrate.Problem{Sim: s, Free: []calibrate.Param{{Name: "ball.gravity"}}, Data: d}, nil)
	add("weights and sigma", err)
	d = &calibrate.Data{Times: []float64{0.3, 0.4}, Columns: []string{"ball.nope"}, Values: [][]float64{{0.5}, {0.4}}}
	_, err = calibrate.Fit(context.Background(), &calibrate.Problem{Sim: s, Free: []calibrate.Param{{Name: "ball.gravity"}}, Data: d}, nil)
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
	// and an export without a C compiler (cosim export).
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
	_, err = export.Export("../fmi/export/testdata/oscillator.json", filepath.Join(xdir, "osc.fmu"), nodes.Registry(), export.Options{Program: "/bin/true"})
	add("export compiler", err)
	return msgs
}

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
