package control_test

import (
	"context"
	"fmt"
	"math"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/nodes/control"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/source"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// A 2 × 3 matrix gain: y = K u, K given row by row.
func ExampleGain() {
	k, _ := control.NewGain(control.GainParams{Size: 3, Outputs: 2, Gain: []float64{1, 2, 3, 0, -1, 0.5}})
	in := k.Spec().DefaultInputs()
	copy(in.Values, []float64{1, 1, 2})
	y := make([]float64, 2)
	k.Outputs(0, nil, in, y)
	fmt.Println(y)
	// Output: [9 0]
}

// The comparator of a loop: reference minus measurement, in metres.
func ExampleSum() {
	e, _ := control.NewSum(control.SumParams{Signs: "+-", Units: "m"})
	in := e.Spec().DefaultInputs()
	in.Values[0], in.Values[1] = 1.0, 0.25
	y := make([]float64, 1)
	e.Outputs(0, nil, in, y)
	fmt.Println(e.Spec().Inputs[0].Name, e.Spec().Inputs[1].Name, "->", y[0])
	// Output: in1 in2 -> 0.75
}

// A PID position controller on a 1 kg mass held by a spring (k = 4 N/m,
// c = 0.4 N s/m): the reference steps to 1 m and the integral action
// removes the offset a spring leaves under proportional control.
func ExamplePID() {
	g := graph.New()
	m, _ := masspoint.New(masspoint.Params{Mass: 1})
	g.Add("mass", m)
	sp := springdamper.DefaultParams()
	sp.Stiffness, sp.Damping = [3]float64{4, 4, 4}, [3]float64{0.4, 0.4, 0.4}
	springdamper.Connect(g, "spring", sp, "", [3]float64{}, "mass", [3]float64{})
	ref, _ := source.NewStep(source.StepParams{Time: 0, Final: []float64{1, 0, 0}, Units: "m"})
	g.Add("ref", ref)
	pid, _ := control.NewPID(control.PIDParams{Kp: []float64{20}, Ki: []float64{10}, Kd: []float64{4}, Tf: []float64{0.01},
		DerivativeWeight: []float64{0}, Size: 3, InputUnits: "m", OutputUnits: "N"})
	g.Add("pid", pid)
	g.Connect("ref.value", "pid.reference")
	g.Connect("mass.position", "pid.measurement")
	g.Connect("pid.out", "mass.force")
	s, _ := g.Build()
	s.Run(context.Background(), graph.Settings{Mode: graph.MonolithicAdaptive{}, End: 30})
	x, _ := s.Value("mass.position[0]")
	f, _ := s.Value("pid.out[0]")
	fmt.Printf("x(30) = %.4f m, force %.3f N (the spring's k·x)\n", x[0], f[0])
	// Output: x(30) = 1.0000 m, force 4.000 N (the spring's k·x)
}

// A second-order transfer function's step response, by co-simulation:
// Update is exact for the held step, so y(1 s) matches the closed form
// 1 − e^{−t}(cos 2t + ½ sin 2t) of 5/(s² + 2s + 5) to rounding.
func ExampleTransferFunction() {
	tf, _ := control.NewTransferFunction(control.TransferFunctionParams{Numerator: []float64{5}, Denominator: []float64{1, 2, 5}})
	u, _ := source.NewStep(source.StepParams{Time: 0})
	g := graph.New()
	g.Add("u", u)
	g.Add("h", tf)
	g.Connect("u.value", "h.in")
	s, _ := g.Build()
	s.Run(context.Background(), graph.Settings{Dt: 0.05, End: 1})
	y, _ := s.Value("h.out")
	want := 1 - math.Exp(-1)*(math.Cos(2)+0.5*math.Sin(2))
	fmt.Printf("y(1) = %.12f, closed form %.12f\n", y[0], want)
	// Output: y(1) = 0.985835951055, closed form 0.985835951055
}

// A state-space system with feedthrough: D ≠ 0 makes the output read the
// input at once, and the spec says so.
func ExampleStateSpace() {
	ss, _ := control.NewStateSpace(control.StateSpaceParams{A: []float64{-2}, B: []float64{1}, C: []float64{3}, D: []float64{0.5}})
	fmt.Println("feedthrough:", ss.Spec().Feedthrough, "states:", ss.Spec().StateLayout.Size())
	// Output: feedthrough: true states: 1
}

// A zero-order hold sampling a ramp every 0.25 s, in an adaptive run:
// the sample instants are time events, so the held values are the ramp's
// values on the instants.
func ExampleZOH() {
	ramp, _ := source.NewRamp(source.RampParams{Slope: []float64{2}})
	z, _ := control.NewZOH(control.HoldParams{SampleTime: 0.25})
	g := graph.New()
	g.Add("u", ramp)
	g.Add("zoh", z)
	g.Connect("u.value", "zoh.in")
	s, _ := g.Build()
	res, _ := s.Run(context.Background(), graph.Settings{Mode: graph.MonolithicAdaptive{}, Dt: 0.2, End: 1, Record: []string{"zoh.out"}})
	for i, t := range res.History.Times {
		fmt.Printf("t = %.1f: %.6f\n", t, res.History.Rows[i][0])
	}
	// Output:
	// t = 0.0: 0.000000
	// t = 0.2: 0.000000
	// t = 0.4: 0.500000
	// t = 0.6: 1.000000
	// t = 0.8: 1.500000
	// t = 1.0: 2.000000
}

// A unit delay: the output on [t_k, t_{k+1}) is the input at t_{k−1}.
func ExampleUnitDelay() {
	ramp, _ := source.NewRamp(source.RampParams{Slope: []float64{1}})
	d, _ := control.NewUnitDelay(control.HoldParams{SampleTime: 0.5, Initial: []float64{-1}})
	g := graph.New()
	g.Add("u", ramp)
	g.Add("z", d)
	g.Connect("u.value", "z.in")
	s, _ := g.Build()
	res, _ := s.Run(context.Background(), graph.Settings{Dt: 0.25, End: 2, Record: []string{"z.out"}, RecordEvery: 2})
	for i, t := range res.History.Times {
		fmt.Printf("t = %.1f: %g\n", t, res.History.Rows[i][0])
	}
	// Output:
	// t = 0.0: -1
	// t = 0.5: 0
	// t = 1.0: 0.5
	// t = 1.5: 1
	// t = 2.0: 1.5
}

// A transport delay of 0.3 s on a sine: at t = 1 s the output is the
// input at 0.7 s, to the linear interpolation's error (h = T/N =
// 0.003 s: at most h²/8 ≈ 1e-6 for this sine).
func ExampleTransportDelay() {
	u, _ := source.NewSine(source.SineParams{})
	d, _ := control.NewTransportDelay(control.TransportDelayParams{Delay: 0.3})
	g := graph.New()
	g.Add("u", u)
	g.Add("d", d)
	g.Connect("u.value", "d.in")
	s, _ := g.Build()
	s.Run(context.Background(), graph.Settings{Mode: graph.MonolithicAdaptive{}, End: 1})
	y, _ := s.Value("d.out")
	fmt.Printf("y(1) = %.5f, sin(0.7) = %.5f\n", y[0], math.Sin(0.7))
	// Output: y(1) = 0.64422, sin(0.7) = 0.64422
}

// A limited integrator stops at its upper limit and leaves it as soon
// as the input turns back.
func ExampleIntegrator() {
	it, _ := control.NewIntegrator(control.IntegratorParams{Limit: true, Upper: []float64{0.5}})
	x := []float64{0}
	in := it.Spec().DefaultInputs()
	in.Values[0] = 1
	next := make([]float64, 1)
	for range 8 {
		it.Update(0, 0.1, x, in, next)
		x[0] = next[0]
	}
	up := x[0]
	in.Values[0] = -1
	it.Update(0, 0.1, x, in, next)
	fmt.Printf("%.1f then %.1f\n", up, next[0])
	// Output: 0.5 then 0.4
}

// A first-order lag's step response is exact at every co-simulation
// step: y = K(1 − e^{−t/T}).
func ExampleLag() {
	lag, _ := control.NewLag(control.FirstOrderParams{Gain: []float64{2}, TimeConstant: []float64{0.5}})
	x, next := []float64{0}, []float64{0}
	in := lag.Spec().DefaultInputs()
	in.Values[0] = 1
	for range 10 {
		lag.Update(0, 0.1, x, in, next)
		x[0] = next[0]
	}
	fmt.Printf("%.12f %.12f\n", x[0], 2*(1-math.Exp(-1/0.5)))
	// Output: 1.729329433527 1.729329433527
}

// A rate limiter takes a step of 1 as a ramp at 2 per second: 0.2 after
// 0.1 s, whatever the step length.
func ExampleRateLimiter() {
	r, _ := control.NewRateLimiter(control.RateLimiterParams{Rising: []float64{2}})
	in := r.Spec().DefaultInputs()
	in.Values[0] = 1
	one, ten := []float64{0}, []float64{0}
	r.Update(0, 0.1, []float64{0}, in, one)
	x := []float64{0}
	for range 10 {
		r.Update(0, 0.01, x, in, ten)
		x[0] = ten[0]
	}
	fmt.Printf("%.12f %.12f\n", one[0], x[0])
	// Output: 0.200000000000 0.200000000000
}

// An actuator's range: the saturation passes values inside [−1, 1] and
// clips the others; the Jacobian is 1 inside and 0 outside.
func ExampleSaturation() {
	sat, _ := control.NewSaturation(control.LimitParams{Size: 3})
	in := sat.Spec().DefaultInputs()
	copy(in.Values, []float64{-3, 0.5, 2})
	y := make([]float64, 3)
	sat.Outputs(0, nil, in, y)
	fmt.Println(y)
	// Output: [-1 0.5 1]
}

// Dormand–Prince with tight tolerances meets the second-order closed
// form of a biproper transfer function too (its feedthrough included).
func ExampleTransferFunction_adaptive() {
	tf, _ := control.NewTransferFunction(control.TransferFunctionParams{Numerator: []float64{1, 0, 5}, Denominator: []float64{1, 2, 5}})
	u, _ := source.NewStep(source.StepParams{Time: 0})
	g := graph.New()
	g.Add("u", u)
	g.Add("h", tf)
	g.Connect("u.value", "h.in")
	s, _ := g.Build()
	s.Run(context.Background(), graph.Settings{End: 1, Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{RTol: 1e-12, ATol: 1e-12}}})
	y, _ := s.Value("h.out")
	// (s² + 5)/(s² + 2s + 5) = 1 − 2s/(s² + 2s + 5): the step response is
	// 1 − e^{−t} sin 2t.
	fmt.Printf("%.9f %.9f\n", y[0], 1-math.Exp(-1)*math.Sin(2))
	// Output: 0.665488171 0.665488171
}
