package spring_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/spring"
)

func params(k, c, l0 float64) spring.Params {
	p := spring.DefaultParams()
	p.Stiffness, p.Damping, p.RestLength = k, c, l0
	return p
}

// A 3-4-5 geometry: marker 1 at (3, 4, 0) from marker 0 at the origin,
// moving with (1, 2, 0). ℓ = 5, u = (0.6, 0.8, 0), ℓ̇ = 0.6 + 1.6 = 2.2,
// f = 10·(5 − 2) + 0.5·2.2 = 31.1, force on marker 0 = f u =
// (18.66, 24.88, 0), V = ½·10·9 = 45 (hand computation; exact in binary
// up to the rounding of the products, tolerance 1e-13).
func TestOutputsClosedForm(t *testing.T) {
	m1, _ := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{3, 4, 0}, InitialVelocity: [3]float64{1, 2, 0}})
	s, err := spring.New(params(10, 0.5, 2), node.GroundAt([3]float64{}), node.At(m1, [3]float64{}))
	if err != nil {
		t.Fatal(err)
	}
	spec := s.Spec()
	in := spec.DefaultInputs()
	copy(in.Values, []float64{3, 4, 0, 1, 2, 0})
	dst := make([]float64, spec.OutputLayout.Size())
	if err := s.Outputs(0, nil, in, dst); err != nil {
		t.Fatal(err)
	}
	want := map[string][]float64{
		"length": {5}, "length_rate": {2.2}, "tension": {31.1}, "force": {18.66, 24.88, 0}, "potential_energy": {45},
		"m1_force": {-18.66, -24.88, 0},
	}
	for name, w := range want {
		o := spec.OutputOffset(name)
		for i, v := range w {
			if !numtest.Within(dst[o+i], v, 1e-13*math.Max(1, math.Abs(v))) {
				t.Errorf("%s[%d] = %v, want %v", name, i, dst[o+i], v)
			}
		}
	}
	if a := testing.AllocsPerRun(100, func() { _ = s.Outputs(0, nil, in, dst) }); a != 0 {
		t.Errorf("Outputs allocates %v times", a)
	}
}

// The analytic Jacobian (the outer-product form) matches central
// differences of Outputs, with the step ε^(1/3)·max(1, |u|): the
// difference error is about 1e-10 relative, so the tolerance is 1e-7
// relative to the Jacobian's largest entry. Two moving masses, and a mass
// and the ground, in tension, compression and at rest length.
func TestJacobianMatchesFiniteDifferences(t *testing.T) {
	for _, c := range []struct {
		name   string
		l0     float64
		ground bool
	}{{"tension", 1, false}, {"compression", 9, false}, {"ground", 2.5, true}} {
		m0, _ := masspoint.New(masspoint.Params{Mass: 1})
		m1, _ := masspoint.New(masspoint.Params{Mass: 2, InitialPosition: [3]float64{1, 2, 2}})
		mk0 := node.At(m0, [3]float64{})
		if c.ground {
			mk0 = node.GroundAt([3]float64{-0.5, 0.25, 1})
		}
		s, err := spring.New(params(7, 0.3, c.l0), mk0, node.At(m1, [3]float64{}))
		if err != nil {
			t.Fatal(err)
		}
		spec := s.Spec()
		ny, nu := spec.OutputLayout.Size(), spec.InputLayout.Size()
		in := spec.DefaultInputs()
		vals := []float64{1.1, 2.3, 1.7, 0.4, -0.9, 0.2, 0.1, -0.2, 0.3, 0.5, 0.6, -0.7}
		copy(in.Values, vals[len(vals)-nu:])
		jac := make([]float64, ny*nu)
		if err := s.OutputsJacobian(0, nil, in, jac); err != nil {
			t.Fatal(err)
		}
		yp, ym := make([]float64, ny), make([]float64, ny)
		scale, worst := numtest.FiniteScale(t, c.name+": the analytic Jacobian", jac), 0.0
		for j := range nu {
			u0 := in.Values[j]
			h := math.Cbrt(0x1p-52) * math.Max(1, math.Abs(u0))
			in.Values[j] = u0 + h
			s.Outputs(0, nil, in, yp)
			in.Values[j] = u0 - h
			s.Outputs(0, nil, in, ym)
			in.Values[j] = u0
			for i := range ny {
				fd := (yp[i] - ym[i]) / (2 * h)
				worst = math.Max(worst, math.Abs(fd-jac[i*nu+j]))
			}
		}
		t.Logf("%s: max |analytic − FD| = %.2g (scale %.3g)", c.name, worst, scale)
		if !numtest.AtMost(worst, 1e-7*scale) {
			t.Errorf("%s: Jacobian differs from central differences by %.3g (scale %.3g)", c.name, worst, scale)
		}
	}
}

// Coincident markers at t0 are a build-time error; reaching them during
// a run is an error naming the node, "length" and the time.
func TestCoincidentMarkers(t *testing.T) {
	m0, _ := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{1, 1, 1}})
	m1, _ := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{1, 1, 1}})
	if _, err := spring.New(params(1, 0, 1), node.At(m0, [3]float64{}), node.At(m1, [3]float64{})); !errors.Is(err, spring.ErrCoincident) {
		t.Errorf("coincident at t0: %v", err)
	}
	g := graph.New()
	g.Add("a", m0)
	if _, err := spring.Connect(g, "s", params(1, 0, 1), node.Body("a"), node.GroundAt([3]float64{1, 1, 1})); !errors.Is(err, spring.ErrCoincident) || !strings.Contains(err.Error(), `connector "s"`) {
		t.Errorf("Connect, coincident at t0: %v", err)
	}

	// Two masses flying head-on through each other: the run stops at the
	// step where they come within min_length.
	a, _ := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{-1, 0, 0}, InitialVelocity: [3]float64{1, 0, 0}})
	b, _ := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{1, 0, 0}, InitialVelocity: [3]float64{-1, 0, 0}})
	g = graph.New()
	g.Add("a", a)
	g.Add("b", b)
	if _, err := spring.Connect(g, "s", params(0, 0, 0), node.Body("a"), node.Body("b")); err != nil {
		t.Fatal(err)
	}
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	_, err = sim.Run(context.Background(), graph.Settings{Dt: 0.25, Steps: 8})
	var se *node.StateError
	if !errors.Is(err, spring.ErrCoincident) || !errors.As(err, &se) || se.Node != "s" || se.Field != "length" || se.Time != 1 {
		t.Errorf("run through coincidence: %v", err)
	}
}

// Connect wires the spring's edges; an end given as a Go value or naming
// a body the graph lacks is refused.
func TestConnect(t *testing.T) {
	m, _ := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{0, -1, 0}})
	g := graph.New()
	g.Add("m1", m)
	if _, err := spring.Connect(g, "s", params(100, 0, 1), node.Body("m1"), node.GroundAt([3]float64{0, 0, 0})); err != nil {
		t.Fatal(err)
	}
	var edges []string
	for _, e := range g.Edges() {
		edges = append(edges, e.From+"→"+e.To)
	}
	want := "m1.position→s.m0_position m1.velocity→s.m0_velocity s.m0_force→m1.force"
	if got := strings.Join(edges, " "); got != want {
		t.Errorf("edges %q, want %q", got, want)
	}
	if _, err := spring.Connect(g, "t", params(1, 0, 0), node.At(m, [3]float64{}), node.Body("m1")); err == nil || !strings.Contains(err.Error(), "node.BodyAt") {
		t.Errorf("an end given as a Go value: %v", err)
	}
	if _, err := spring.Connect(g, "t", params(1, 0, 0), node.Body("m2"), node.Body("m1")); err == nil || !strings.Contains(err.Error(), "m1") {
		t.Errorf("unknown body: %v", err)
	}
}

// TestLoadOutputDescriptions: the load outputs say which sign of the
// force each marker receives (+f u on marker 0, −f u on marker 1, as
// TestOutputsClosedForm checks in numbers), since a user wiring them
// reads that in the generated guide.
func TestLoadOutputDescriptions(t *testing.T) {
	m0, _ := masspoint.New(masspoint.Params{Mass: 1})
	m1, _ := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{1, 0, 0}})
	s, err := spring.New(params(1, 0, 1), node.At(m0, [3]float64{}), node.At(m1, [3]float64{}))
	if err != nil {
		t.Fatal(err)
	}
	for name, sign := range map[string]string{"m0_force": "+f u", "m1_force": "−f u"} {
		i := s.Spec().OutputLayout.Index(name)
		if i < 0 {
			t.Fatalf("no output %q", name)
		}
		if d := s.Spec().Outputs[i].Description; !strings.Contains(d, "(force "+sign+" at the marker)") {
			t.Errorf("%s: description %q, want it to name the force %s", name, d, sign)
		}
	}
}
