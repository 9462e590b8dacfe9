package control_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/control"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/source"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// Cross-field rules that one parameter's range cannot state are
// *node.ParamErrors naming the block type and the parameter.
func TestParamErrors(t *testing.T) {
	reg := registry(t)
	for _, c := range []struct {
		typ    string
		params map[string]any
		param  string
		reason string
	}{
		{"gain", map[string]any{"size": 3, "gain": []float64{1, 2}}, "gain", "has 2 values for a signal of size 3"},
		{"gain", map[string]any{"size": 2, "outputs": 2, "gain": []float64{1, 2, 3}}, "gain", "for a 2 × 2 matrix"},
		{"sum", map[string]any{"signs": "+*"}, "signs", "is not a list of operators"},
		{"sum", map[string]any{"signs": ""}, "signs", "is not a list of operators"},
		{"sum", map[string]any{"signs": strings.Repeat("+", 17)}, "signs", "is not a list of operators"},
		{"product", map[string]any{"ops": "*/", "input_units": "N,m,s"}, "input_units", "names 3 units for 2 inputs"},
		{"product", map[string]any{"ops": "**", "input_units": "N,"}, "input_units", "has no unit for input 2"},
		{"saturation", map[string]any{"lower": 1.0, "upper": 0.0}, "lower", "is above upper"},
		{"saturation", map[string]any{"units": " "}, "units", "is empty"},
		{"integrator", map[string]any{"limit_output": true, "initial": 2.0}, "initial", "outside the limits"},
		{"pid", map[string]any{"size": 2, "kp": []float64{1, 2, 3}}, "kp", "has 3 values for a signal of size 2"},
		{"transferfunction", map[string]any{"numerator": []float64{1, 2, 3}, "denominator": []float64{1, 1}}, "numerator", "improper"},
		{"transferfunction", map[string]any{"denominator": []float64{0, 1, 1}}, "denominator", "zero leading coefficient"},
		{"transferfunction", map[string]any{"denominator": []float64{2}}, "denominator", "degree 0"},
		{"transferfunction", map[string]any{"denominator": []float64{1, 0}, "initial_input": 1.0}, "initial_input", "root at s = 0"},
		{"statespace", map[string]any{"a": []float64{1, 2, 3}}, "a", "not a square number"},
		{"statespace", map[string]any{"a": []float64{1, 0, 0, 1}, "b": []float64{1, 2, 3}}, "b", "for 2 states"},
		{"statespace", map[string]any{"a": []float64{-1}, "d": []float64{1, 2}}, "d", "for 1 outputs and 1 inputs"},
		{"statespace", map[string]any{"a": []float64{-1, 0, 0, -1}, "b": []float64{1, 1}, "c": []float64{1, 1}, "initial": []float64{1, 2, 3}}, "initial", "for 2 states"},
		{"zoh", map[string]any{"size": 2, "initial": []float64{1, 2, 3}}, "initial", "for a signal of size 2"},
		{"transportdelay", map[string]any{"size": 2, "initial": []float64{1, 2, 3}}, "initial", "for a signal of size 2"},
		{"transportdelay", map[string]any{"units": " "}, "units", "is empty"},
	} {
		n, err := reg.New(c.typ, c.params)
		var pe *node.ParamError
		if n != nil || !errors.As(err, &pe) || pe.Node != c.typ || pe.Param != c.param || !strings.Contains(err.Error(), c.reason) {
			t.Errorf("%s %v: node %v, err %v; want a ParamError for %s containing %q", c.typ, c.params, n, err, c.param, c.reason)
		}
	}
}

// SetParams refuses a change of what the spec was built from (the graph
// checked edges and loops against it), validating everything first, and
// leaves the block unchanged.
func TestSetParamsStructural(t *testing.T) {
	reg := registry(t)
	for _, c := range []struct {
		typ         string
		params, set map[string]any
		param       string
	}{
		{"gain", nil, map[string]any{"size": 2}, "size"},
		{"sum", map[string]any{"signs": "+-"}, map[string]any{"signs": "+-+"}, "signs"},
		{"product", nil, map[string]any{"ops": "*"}, "ops"},
		{"pid", nil, map[string]any{"output_units": "N"}, "output_units"},
		{"transferfunction", nil, map[string]any{"denominator": []float64{1, 2, 3}}, "denominator"},
		{"transferfunction", nil, map[string]any{"numerator": []float64{1, 0}}, "numerator"},
		{"statespace", nil, map[string]any{"d": []float64{1}}, "d"},
		{"statespace", nil, map[string]any{"a": []float64{-1, 0, 0, -1}, "b": []float64{1, 1}, "c": []float64{1, 1}}, "a"},
		{"transportdelay", nil, map[string]any{"samples": 10}, "samples"},
	} {
		n, err := reg.New(c.typ, c.params)
		if err != nil {
			t.Fatal(err)
		}
		before := n.(node.Tunable).Params()
		err = n.(node.Tunable).SetParams(c.set)
		var pe *node.ParamError
		if !errors.As(err, &pe) || pe.Param != c.param {
			t.Errorf("%s.SetParams(%v) = %v, want a ParamError naming %s", c.typ, c.set, err, c.param)
		}
		for k, v := range before {
			if node.FormatValue(n.(node.Tunable).Params()[k]) != node.FormatValue(v) {
				t.Errorf("%s: a refused SetParams changed %s", c.typ, k)
			}
		}
	}
}

// plant builds a 1 kg mass on a spring-damper to the ground (k = 4 N/m,
// c = 0.4 N s/m) whose position x is fed back through a PID to its force,
// towards a reference stepping to 1 m at t = 0 on the first axis.
func plant(t *testing.T, p control.PIDParams) (*graph.Sim, *control.PID) {
	t.Helper()
	g := graph.New()
	m, _ := masspoint.New(masspoint.Params{Mass: 1})
	g.Add("mass", m)
	sp := springdamper.DefaultParams()
	sp.Stiffness, sp.Damping = [3]float64{4, 4, 4}, [3]float64{0.4, 0.4, 0.4}
	if _, err := springdamper.Connect(g, "spring", sp, node.GroundAt([3]float64{}), node.Body("mass")); err != nil {
		t.Fatal(err)
	}
	r, _ := source.NewStep(source.StepParams{Time: 0, Final: []float64{1, 0, 0}, Units: "m"})
	g.Add("ref", r)
	p.Size, p.InputUnits, p.OutputUnits = 3, "m", "N"
	pid, err := control.NewPID(p)
	if err != nil {
		t.Fatal(err)
	}
	g.Add("pid", pid)
	g.Connect("ref.value", "pid.reference")
	g.Connect("mass.position", "pid.measurement")
	g.Connect("pid.out", "mass.force")
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s, pid
}

func value(t *testing.T, s *graph.Sim, f string) float64 {
	t.Helper()
	v, err := s.Value(f)
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}

// Bumpless gain changes: changing K_p, K_d, T_f or the weights between
// runs leaves the output where it was, bit for bit (the state carries
// the applied gains), and the applied gain then moves to its new target
// with time constant retune_time: in co-simulation exactly
// G + (g₀ − G) e^{−t/T_b} at every step (the update is exact for it;
// relative 1e-12 for the rounding of 100 steps). Changing K_i bumps
// nothing either (the integral integrates K_i e). Adaptive runs keep the
// output continuous the same way.
func TestPIDBumpless(t *testing.T) {
	for _, adaptive := range []bool{false, true} {
		set := graph.Settings{Dt: 1e-3, End: 0.5}
		if adaptive {
			set = graph.Settings{End: 0.5, Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{RTol: 1e-10, ATol: 1e-10}}}
		}
		s, pid := plant(t, control.PIDParams{Kp: []float64{20}, Ki: []float64{10}, Kd: []float64{4}, Tf: []float64{0.01}, RetuneTime: []float64{0.05}})
		if _, err := s.Run(context.Background(), set); err != nil {
			t.Fatal(err)
		}
		u0 := value(t, s, "pid.out[0]")
		g0 := value(t, s, "pid.gain_measurement[0]")
		for _, change := range []map[string]any{{"kp": 35.0}, {"kd": 6.0, "tf": 0.02}, {"ki": 50.0}, {"setpoint_weight": 0.5}} {
			if err := pid.SetParams(change); err != nil {
				t.Fatal(err)
			}
			if u := value(t, s, "pid.out[0]"); math.Float64bits(u) != math.Float64bits(u0) {
				t.Errorf("adaptive %v: SetParams(%v) moved the output from %v to %v", adaptive, change, u0, u)
			}
		}
		// Now G_y = 35 + 6/0.02 = 335: the applied gain relaxes towards it.
		const target, tb = 35 + 6/0.02, 0.05
		if adaptive {
			set.End = 0.6
		} else {
			set.End = 0.6
		}
		if _, err := s.Run(context.Background(), set); err != nil {
			t.Fatal(err)
		}
		g := value(t, s, "pid.gain_measurement[0]")
		want := target + (g0-target)*math.Exp(-0.1/tb)
		if !numtest.Within(g, want, 1e-8*math.Abs(want)) {
			t.Errorf("adaptive %v: applied gain %v after 0.1 s, want %v", adaptive, g, want)
		}
		if !adaptive && !numtest.Within(g, want, 1e-12*math.Abs(want)) {
			t.Errorf("co-simulation: applied gain %v after 0.1 s, want %v to rounding", g, want)
		}
	}
}

// A fresh PID built with the changed gain at the same state would jump:
// the bumpless behaviour is the applied-gain state's doing, not an
// accident of the numbers above.
func TestPIDWithoutRetuneJumps(t *testing.T) {
	a, _ := control.NewPID(control.PIDParams{Kp: []float64{20}})
	b, _ := control.NewPID(control.PIDParams{Kp: []float64{35}})
	x := make([]float64, 4)
	a.InitialState(x)
	in := a.Spec().DefaultInputs()
	in.Values[0], in.Values[1] = 1, 0.2
	ya, yb := make([]float64, 1), make([]float64, 1)
	xb := make([]float64, 4)
	b.InitialState(xb)
	a.Outputs(0, x, in, ya)
	b.Outputs(0, xb, in, yb)
	if ya[0] == yb[0] {
		t.Fatalf("the two gains give the same output %v", ya[0])
	}
	// SetParams on a keeps the applied gain of x: the same output.
	if err := a.SetParams(map[string]any{"kp": 35.0}); err != nil {
		t.Fatal(err)
	}
	y := make([]float64, 1)
	a.Outputs(0, x, in, y)
	if y[0] != ya[0] {
		t.Errorf("after SetParams the output at the same state moved from %v to %v", ya[0], y[0])
	}
}

// An integrator limited to [−1, 1] integrating 2 from 0 stops at 1 at
// t = 0.5 s and stays; a reset input held at 1 over [1, 1.2) s holds it
// at its initial value 0; it then integrates again, 2·(t − 1.2). In
// co-simulation (dt = 0.01 s, a divisor of every time involved: exact to
// rounding) the reset is seen by the step from t = 1, so the output is
// 0 from the next step on; in adaptive Dormand–Prince the limit and the
// reset's rising edge are events and the pulse's edges time events
// (1e-9). Both record the value just before the reset at t = 1.
func TestIntegratorLimitsAndReset(t *testing.T) {
	want := func(t float64) float64 {
		switch {
		case t < 0.5:
			return 2 * t
		case t <= 1+1e-9:
			return 1
		case t <= 1.2+1e-9:
			return 0
		}
		return math.Min(2*(t-1.2), 1)
	}
	for _, adaptive := range []bool{false, true} {
		g := graph.New()
		in, _ := source.NewStep(source.StepParams{Time: 0, Final: []float64{2}, Units: "m/s"})
		rs, _ := source.NewPulse(source.PulseParams{Period: 10, Width: 0.2, Delay: 1, Amplitude: []float64{1}})
		it, _ := control.NewIntegrator(control.IntegratorParams{Limit: true, InputUnits: "m/s", OutputUnits: "m"})
		g.Add("in", in)
		g.Add("reset", rs)
		g.Add("it", it)
		g.Connect("in.value", "it.in")
		g.Connect("reset.value", "it.reset")
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		set := graph.Settings{Dt: 0.01, End: 2, Record: []string{"it.out"}}
		tol := 1e-12
		if adaptive {
			set.Mode, tol = graph.MonolithicAdaptive{Method: integrators.DormandPrince{RTol: 1e-10, ATol: 1e-10}}, 1e-9
		}
		res, err := s.Run(context.Background(), set)
		if err != nil {
			t.Fatal(err)
		}
		ys := res.History.Column("it.out")
		for k, tk := range res.History.Times {
			if w := want(tk); !numtest.Within(ys[k], w, tol) {
				t.Errorf("adaptive %v: t = %v: %v, want %v", adaptive, tk, ys[k], w)
			}
		}
	}
}

// A zero divisor stops a run with a *node.StateError naming the product
// node and its output, wrapping ErrDivideByZero.
func TestProductDivideByZero(t *testing.T) {
	g := graph.New()
	num, _ := source.NewStep(source.StepParams{Time: 0, Final: []float64{1}})
	den, _ := source.NewStep(source.StepParams{Time: 0.05, Initial: []float64{2}, Final: []float64{0}})
	p, _ := control.NewProduct(control.ProductParams{Ops: "*/"})
	lag, _ := control.NewLag(control.FirstOrderParams{})
	g.Add("num", num)
	g.Add("den", den)
	g.Add("ratio", p)
	g.Add("lag", lag)
	g.Connect("num.value", "ratio.in1")
	g.Connect("den.value", "ratio.in2")
	g.Connect("ratio.out", "lag.in")
	s, _ := g.Build()
	_, err := s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 10})
	var se *node.StateError
	if !errors.As(err, &se) || se.Node != "ratio" || se.Field != "out" || !errors.Is(err, control.ErrDivideByZero) {
		t.Fatalf("err = %v, want a StateError for ratio.out wrapping ErrDivideByZero", err)
	}
	if !strings.Contains(err.Error(), "input in2 is 0") {
		t.Errorf("message does not name the divisor: %v", err)
	}
}

// A co-simulation step longer than a hold's period or a transport delay
// is refused with ErrStepTooLong, naming both numbers.
func TestStepTooLong(t *testing.T) {
	for _, c := range []struct {
		n    node.Node
		dt   float64
		want string
	}{
		{must(control.NewZOH(control.HoldParams{SampleTime: 0.1})), 0.2, "longer than the sample period 0.1 s"},
		{must(control.NewUnitDelay(control.HoldParams{SampleTime: 0.1})), 0.2, "longer than the sample period 0.1 s"},
		{must(control.NewTransportDelay(control.TransportDelayParams{Delay: 0.05})), 0.1, "longer than the delay 0.05 s"},
	} {
		g := graph.New()
		u, _ := source.NewSine(source.SineParams{})
		g.Add("u", u)
		g.Add("b", c.n)
		g.Connect("u.value", "b.in")
		s, _ := g.Build()
		_, err := s.Run(context.Background(), graph.Settings{Dt: c.dt, Steps: 3})
		if !errors.Is(err, control.ErrStepTooLong) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want ErrStepTooLong saying %q", c.n.Spec().Type, err, c.want)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// COSIM-ANO-005 (resolved): every sampled block takes every sample
// exactly on its instant in a monolithic run, with every method, however
// many blocks share an instant, the start of the run included. Nine
// blocks sample sin 3t: three zero-order holds and two unit delays every
// 0.1 s from 0, holds every 0.2 s and 0.4 s from 0, a hold every 0.1 s
// from 0.1 and a transport delay (0.25 s, 25 samples); at 0, 0.4 and 0.8
// s eight of them share the instant. Each run — fixed-step RK4 with
// dt = 0.01 s (dividing the periods) and 0.03 s (not: instants fall
// inside steps), backward Euler, and adaptive Dormand–Prince, ESDIRK43
// and BDF — must take all 11·5 + 6 + 3 + 10 + 101 = 175 sample events
// over [0, 1] (the transport delay's every 0.01 s; 167 over [0, 0.99])
// and the holds' and
// delays' outputs at every recorded time t must be sin 3t_k of their last
// instant t_k ≤ t (of the one before for the delays, 0.5 before the
// first): the reference is that closed form; the tolerance 1e-13 admits
// the instants' rounding allowance (8ε·t_k, moving sin 3t by 3·8ε ≈
// 5e-15 at t ≤ 1) and the recording clock's rounding. Before the
// integrators applied simultaneous resets, RK4 stopped with
// ErrSampleSkipped at 0.4 s, and the adaptive run took the shared
// samples on a ladder of time events up to 8e-9 s late, and the one due
// at the start 2e-9 s late.
func TestAnomalyCOSIMANO005(t *testing.T) {
	type blk struct {
		name      string
		ts, off   float64
		unitDelay bool
	}
	blocks := []blk{{"z1", 0.1, 0, false}, {"z2", 0.1, 0, false}, {"z3", 0.1, 0, false}, {"d1", 0.1, 0, true}, {"d2", 0.1, 0, true},
		{"z4", 0.2, 0, false}, {"z5", 0.4, 0, false}, {"z6", 0.1, 0.1, false}}
	build := func() *graph.Sim {
		g := graph.New()
		u, _ := source.NewSine(source.SineParams{Omega: []float64{3}})
		g.Add("u", u)
		for _, b := range blocks {
			p := control.HoldParams{SampleTime: b.ts, Offset: b.off, Initial: []float64{0.5}}
			var n node.Node
			if b.unitDelay {
				n, _ = control.NewUnitDelay(p)
			} else {
				n, _ = control.NewZOH(p)
			}
			g.Add(b.name, n)
			g.Connect("u.value", b.name+".in")
		}
		td, _ := control.NewTransportDelay(control.TransportDelayParams{Delay: 0.25, Samples: 25})
		g.Add("td", td)
		g.Connect("u.value", "td.in")
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	var cols []string
	for _, b := range blocks {
		cols = append(cols, b.name+".out")
	}
	want := func(b blk, tt float64) float64 {
		k := math.Floor((tt-b.off)/b.ts + 1e-9)
		if b.unitDelay {
			k--
		}
		if k < 0 {
			return 0.5
		}
		return math.Sin(3 * (b.off + k*b.ts))
	}
	for _, c := range []struct {
		name string
		set  graph.Settings
	}{
		{"rk4 dt 0.01", graph.Settings{Mode: graph.Monolithic{Method: integrators.RK4{}}, Dt: 0.01, End: 1}},
		{"rk4 dt 0.03", graph.Settings{Mode: graph.Monolithic{Method: integrators.RK4{}}, Dt: 0.03, End: 0.99}},
		{"backward-euler dt 0.01", graph.Settings{Mode: graph.Monolithic{Method: integrators.BackwardEuler{}}, Dt: 0.01, End: 1}},
		{"adaptive dormand-prince", graph.Settings{Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{}}, Dt: 0.01, End: 1}},
		{"adaptive esdirk43", graph.Settings{Mode: graph.MonolithicAdaptive{Method: integrators.ESDIRK43{}}, Dt: 0.01, End: 1}},
		{"adaptive bdf", graph.Settings{Mode: graph.MonolithicAdaptive{Method: integrators.BDF{}}, Dt: 0.01, End: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			set := c.set
			set.Record = cols
			res, err := build().Run(context.Background(), set)
			if err != nil {
				t.Fatal(err)
			}
			events := 11*5 + 6 + 3 + 10 + 101
			if c.set.End == 0.99 {
				events = 10*5 + 5 + 3 + 9 + 100
			}
			if res.Events != events {
				t.Errorf("%d sample events, want %d (every instant of every block)", res.Events, events)
			}
			times := res.History.Times
			worst, at := 0.0, ""
			for bi, b := range blocks {
				y := res.History.Column(cols[bi])
				for n, tt := range times {
					// A NaN error is kept as the worst, and fails below.
					if d := math.Abs(y[n] - want(b, tt)); d > worst || math.IsNaN(d) && !math.IsNaN(worst) {
						worst, at = d, fmt.Sprintf("%s at t = %v: %v, want %v", b.name, tt, y[n], want(b, tt))
					}
				}
			}
			if !numtest.AtMost(worst, 1e-13) {
				t.Errorf("largest error %.3g (%s)", worst, at)
			}
		})
	}
}

// A transfer function started at rest at its initial input u₀ is at
// equilibrium: zero derivatives, and the output H(0)·u₀.
func TestTransferFunctionInitialInput(t *testing.T) {
	tf, err := control.NewTransferFunction(control.TransferFunctionParams{Numerator: []float64{2, 3}, Denominator: []float64{1, 0.8, 4}, InitialInput: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, 2)
	tf.InitialState(x)
	in := tf.Spec().DefaultInputs()
	in.Values[0] = 1.5
	d, y := make([]float64, 2), make([]float64, 1)
	tf.Derivatives(0, x, in, d)
	tf.Outputs(0, x, in, y)
	if d[0] != 0 || d[1] != 0 || !numtest.Within(y[0], 3.0/4*1.5, 1e-15) {
		t.Errorf("derivatives %v, output %v; want 0 and H(0)·u₀ = %v", d, y[0], 3.0/4*1.5)
	}
	if tf.Spec().Feedthrough {
		t.Error("a strictly proper transfer function has feedthrough")
	}
	bi, _ := control.NewTransferFunction(control.TransferFunctionParams{Numerator: []float64{1, 0, 1}, Denominator: []float64{1, 1, 1}})
	if !bi.Spec().Feedthrough {
		t.Error("a biproper transfer function has no feedthrough")
	}
}

// Update is safe for concurrent use on one node with distinct slices
// (the node contract), also when calls alternate step lengths and so
// recompute the cached discretization: every result equals the
// sequential one bit for bit. Run with -race.
func TestLinearConcurrentUpdate(t *testing.T) {
	ss, err := control.NewStateSpace(control.StateSpaceParams{A: []float64{-1, 2, -3, -4}, B: []float64{1, 0.5}, C: []float64{1, 0}, D: []float64{0}})
	if err != nil {
		t.Fatal(err)
	}
	in := ss.Spec().DefaultInputs()
	in.Values[0] = 0.7
	x := []float64{0.3, -0.2}
	dts := []float64{0.01, 0.02, 0.005}
	want := make([][]float64, len(dts))
	for i, dt := range dts {
		want[i] = make([]float64, 2)
		ss.Update(0, dt, x, in, want[i])
	}
	var wg sync.WaitGroup
	errs := make([]string, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dst := make([]float64, 2)
			for k := range 300 {
				i := (k + w) % len(dts)
				ss.Update(0, dts[i], x, in, dst)
				if dst[0] != want[i][0] || dst[1] != want[i][1] {
					errs[w] = "differs"
					return
				}
			}
		}()
	}
	wg.Wait()
	for w, e := range errs {
		if e != "" {
			t.Errorf("worker %d: a concurrent Update %s from the sequential one", w, e)
		}
	}
}

// The integrator's input Jacobian is K wherever the output is free,
// also where the input is 0 (closed form: ẏ = K u, so ∂ẏ/∂u = K); it is
// 0 only where a limit holds the output against the input, or a reset
// holds it.
func TestIntegratorInputJacobian(t *testing.T) {
	it, err := control.NewIntegrator(control.IntegratorParams{Gain: []float64{3}, Limit: true, Lower: []float64{-1}, Upper: []float64{1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		x, u  float64
		reset float64
		want  float64
	}{
		{x: 0, u: 0, want: 3},
		{x: 0, u: 2, want: 3},
		{x: 1, u: 0, want: 3},
		{x: 1, u: 2, want: 0},
		{x: 1, u: -2, want: 3},
		{x: -1, u: -2, want: 0},
		{x: -1, u: 0, want: 3},
		{x: 0, u: 2, reset: 1, want: 0},
	} {
		dU := make([]float64, 2)
		in := node.Inputs{Values: []float64{c.u, c.reset}, Present: []bool{true, c.reset != 0}}
		if err := it.DerivativesJacobian(0, []float64{c.x}, in, nil, dU); err != nil {
			t.Fatal(err)
		}
		if dU[0] != c.want {
			t.Errorf("x = %v, u = %v, reset = %v: ∂ẏ/∂u = %v, want %v", c.x, c.u, c.reset, dU[0], c.want)
		}
	}
}
