package verification

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/source"
)

// driven builds a 2 kg point mass at rest at the origin pushed along x by
// src (an Outputter of one 3-vector in N). hide hides src's time events.
func driven(t *testing.T, src node.Node, hide bool) *graph.Sim {
	t.Helper()
	m, _ := masspoint.New(masspoint.Params{Mass: 2})
	g := graph.New()
	if hide {
		src = hiddenEvents{src, src.(node.Outputter)}
	}
	g.Add("f", src)
	g.Add("m", m)
	g.Connect("f.value", "m.force")
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// hiddenEvents is a source without its TimeEvents.
type hiddenEvents struct {
	node.Node
	node.Outputter
}

func xv(t *testing.T, s *graph.Sim) (float64, float64) {
	x, err := s.Value("m.position[0]")
	if err != nil {
		t.Fatal(err)
	}
	v, _ := s.Value("m.velocity[0]")
	return x[0], v[0]
}

// COSIM-VER-103 (1): a sine force F = A sin ωt (A = 4 N, ω = 3 rad/s) on
// a 2 kg mass from rest; analytic solution v = (A/mω)(1 − cos ωt),
// x = (A/mω)(t − sin(ωt)/ω). The source is exact, so the error is the
// integration's: co-simulation (semi-implicit Euler, force sampled at
// each step's start) converges with order 1, monolithic RK4 with order
// 4. Observed order over Δt = 10 → 5 ms (co-simulation) and 100 → 50 ms
// (RK4) at t = 5 s, in the max of the x and v errors, within 0.2 of the
// declared order.
func TestSineDrivenMassOrders(t *testing.T) {
	const A, w, m, end = 4.0, 3.0, 2.0, 5.0
	wantX := A / (m * w) * (end - math.Sin(w*end)/w)
	wantV := A / (m * w) * (1 - math.Cos(w*end))
	errAt := func(mono bool, dt float64) float64 {
		sine, _ := source.NewSine(source.SineParams{Amplitude: []float64{A, 0, 0}, Omega: []float64{w}, Units: "N"})
		s := driven(t, sine, false)
		var err error
		if mono {
			rk4, _ := integrators.ByName("rk4")
			_, err = s.RunMonolithic(context.Background(), rk4, nil, graph.Settings{Dt: dt, End: end})
		} else {
			_, err = s.Run(context.Background(), graph.Settings{Dt: dt, End: end})
		}
		if err != nil {
			t.Fatal(err)
		}
		x, v := xv(t, s)
		return math.Max(math.Abs(x-wantX), math.Abs(v-wantV))
	}
	for _, c := range []struct {
		name   string
		mono   bool
		dt     float64
		target float64
	}{{"co-simulation (semi-implicit Euler)", false, 0.01, 1}, {"monolithic rk4", true, 0.1, 4}} {
		e1, e2 := errAt(c.mono, c.dt), errAt(c.mono, c.dt/2)
		p := math.Log2(e1 / e2)
		record(t, Measurement{ID: "COSIM-VER-103", Subject: "sine", Quantity: c.name + ": observed order, sine-driven mass",
			Value: p, Reference: c.target, Bound: "|p − order| ≤ 0.2", Pass: math.Abs(p-c.target) <= 0.2,
			Method: fmt.Sprintf("2 kg mass from rest, F = 4 sin(3t) N from a sine source, errors at t = 5 s %.3g (Δt = %g s) and %.3g (Δt = %g s); reference: the closed-form solution", e1, c.dt, e2, c.dt/2)})
	}
}

// COSIM-VER-103 (2): discontinuous sources declared as time events.
// Adaptive Dormand–Prince (graph.Sim.Integrate, default tolerances) ends
// a step exactly on each event, so a mass driven by a step, a ramp or a
// pulse train — piecewise polynomial solutions of degree ≤ 3, which
// Dormand–Prince integrates exactly — is exact to round-off (bound 1e-12
// on x, v of order 10). The same sources with their events hidden are
// stepped over: their error is recorded for contrast.
func TestSourceTimeEvents(t *testing.T) {
	const end = 4.0
	step := func() node.Node {
		n, _ := source.NewStep(source.StepParams{Time: 1.0 / 3, Final: []float64{4, 0, 0}, Units: "N"})
		return n
	}
	ramp := func() node.Node {
		n, _ := source.NewRamp(source.RampParams{Start: 0.7, Slope: []float64{3, 0, 0}, Units: "N"})
		return n
	}
	pulse := func() node.Node {
		n, _ := source.NewPulse(source.PulseParams{Period: 0.7, Width: 0.2, Delay: 0.15, Amplitude: []float64{2, 0, 0}, Units: "N"})
		return n
	}
	// Closed forms for m = 2 kg from rest at the origin.
	stepXV := func(t float64) (float64, float64) { d := t - 1.0/3; return d * d, 2 * d }              // a = 2 m/s²
	rampXV := func(t float64) (float64, float64) { d := t - 0.7; return d * d * d / 4, 0.75 * d * d } // a = 1.5 (t − t₀)
	pulseXV := func(t float64) (float64, float64) {
		var x, v float64 // a = 1 m/s² during each pulse
		for k := 0; ; k++ {
			r := 0.15 + float64(k)*0.7
			if r >= t {
				break
			}
			d := math.Min(t-r, 0.2)
			x += d*d/2 + d*(t-r-d)
			v += d
		}
		return x, v
	}
	for _, c := range []struct {
		name string
		mk   func() node.Node
		want func(float64) (float64, float64)
	}{{"step", step, stepXV}, {"ramp", ramp, rampXV}, {"pulse", pulse, pulseXV}} {
		wx, wv := c.want(end)
		var errs [2]float64
		for h, hide := range []bool{false, true} {
			s := driven(t, c.mk(), hide)
			if _, err := s.Integrate(context.Background(), end, integrators.DormandPrince{}, nil); err != nil {
				t.Fatal(err)
			}
			x, v := xv(t, s)
			errs[h] = math.Max(math.Abs(x-wx), math.Abs(v-wv))
		}
		method := "2 kg mass from rest driven by the source, graph.Sim.Integrate (adaptive Dormand–Prince, RTol 1e-6, ATol 1e-9) to 4 s; reference: the closed-form piecewise-polynomial solution"
		record(t, Measurement{ID: "COSIM-VER-103", Subject: c.name, Quantity: "time events declared: max |error| of x, v at 4 s",
			Value: errs[0], Reference: 0, Bound: "≤ 1e-12 (round-off)", Method: method, Pass: errs[0] <= 1e-12})
		record(t, Measurement{ID: "COSIM-VER-103", Subject: c.name, Quantity: "contrast, time events hidden: max |error| of x, v at 4 s",
			Value: errs[1], Reference: 0, Bound: "≥ 1e-9 (stepped over)", Method: method + "; the same source without its TimeEvents", Pass: errs[1] >= 1e-9})
	}
}

// COSIM-VER-107: the lookup table. (1) Interpolation orders: sampling f
// on [0, 1] at spacing h = 1/16 and 1/64, the max error (10 001 points)
// falls as h for hold, h² for linear, h³ for PCHIP on monotone data
// (f = eᵗ) and h² for PCHIP across an extremum (f = sin 3t). (2) A mass
// driven by a piecewise-linear force table under Integrate: every
// breakpoint is a time event, so the solution (piecewise cubic) is exact
// to round-off.
func TestLookupVerification(t *testing.T) {
	sin3 := func(x float64) float64 { return math.Sin(3 * x) }
	maxErr := func(interp string, f func(float64) float64, m int) float64 {
		ts, vs := make([]float64, m+1), make([]float64, m+1)
		for j := range ts {
			ts[j] = float64(j) / float64(m)
			vs[j] = f(ts[j])
		}
		l, err := source.NewLookup(source.LookupParams{Times: ts, Values: vs, Interpolation: interp})
		if err != nil {
			t.Fatal(err)
		}
		var e float64
		y := make([]float64, 1)
		for i := 0; i <= 10000; i++ {
			tm := float64(i) / 10000
			l.Outputs(tm, nil, node.Inputs{}, y)
			e = math.Max(e, math.Abs(y[0]-f(tm)))
		}
		return e
	}
	for _, c := range []struct {
		label, interp string
		f             func(float64) float64
		order         float64
	}{
		{"hold, sin 3t", source.InterpolationHold, sin3, 1},
		{"linear, sin 3t", source.InterpolationLinear, sin3, 2},
		{"pchip, monotone eᵗ", source.InterpolationPCHIP, math.Exp, 3},
		{"pchip across an extremum, sin 3t", source.InterpolationPCHIP, sin3, 2},
	} {
		e1, e2 := maxErr(c.interp, c.f, 16), maxErr(c.interp, c.f, 64)
		p := math.Log2(e1/e2) / 2
		record(t, Measurement{ID: "COSIM-VER-107", Subject: "lookup", Quantity: "interpolation order: " + c.label,
			Value: p, Reference: c.order, Bound: "|p − order| ≤ 0.3", Pass: math.Abs(p-c.order) <= 0.3,
			Method: fmt.Sprintf("max error over 10 001 points at h = 1/16 (%.3g) and 1/64 (%.3g); reference: the interpolant's order", e1, e2)})
	}

	// Force table 0 → 6 N over [0, 1] s, down to 2 N at 2.5 s, held after.
	lk, err := source.NewLookup(source.LookupParams{Times: []float64{0, 1, 2.5}, Values: []float64{0, 0, 0, 6, 0, 0, 2, 0, 0}, Units: "N"})
	if err != nil {
		t.Fatal(err)
	}
	// a = F/2: 3t on [0, 1]; 3 − (4/3)(t − 1) on [1, 2.5]; 1 after.
	v1, x1 := 1.5, 0.5
	d := 1.5
	v2 := v1 + 3*d - (2.0/3)*d*d
	x2 := x1 + v1*d + 1.5*d*d - (2.0/9)*d*d*d
	const end = 4.0
	wantV := v2 + 1*(end-2.5)
	wantX := x2 + v2*(end-2.5) + 0.5*(end-2.5)*(end-2.5)
	var errs [2]float64
	for h, hide := range []bool{false, true} {
		s := driven(t, lk, hide)
		if _, err := s.Integrate(context.Background(), end, integrators.DormandPrince{}, nil); err != nil {
			t.Fatal(err)
		}
		x, v := xv(t, s)
		errs[h] = math.Max(math.Abs(x-wantX), math.Abs(v-wantV))
	}
	record(t, Measurement{ID: "COSIM-VER-107", Subject: "lookup", Quantity: "breakpoints as time events: max |error| of x, v at 4 s",
		Value: errs[0], Reference: 0, Bound: "≤ 1e-12 (round-off)", Pass: errs[0] <= 1e-12,
		Method: fmt.Sprintf("2 kg mass driven by a linear force table (0, 6, 2 N at 0, 1, 2.5 s, held after), graph.Sim.Integrate to 4 s; reference: the piecewise-cubic closed form; hidden breakpoints: error %.3g", errs[1])})
}
