package springdamper_test

import (
	"errors"
	"fmt"
	"github.com/google/go-cmp/cmp"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// TestParamErrors: every invalid value is a *node.ParamError naming the
// node, the parameter, the value and the valid range.
func TestParamErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		m     map[string]any
		param string
	}{
		{"stiffness NaN", map[string]any{"stiffness": []float64{1, math.NaN(), 1}}, "stiffness"},
		{"stiffness Inf", map[string]any{"stiffness": []float64{math.Inf(1), 0, 0}}, "stiffness"},
		{"stiffness shape", map[string]any{"stiffness": []float64{1, 2}}, "stiffness"},
		{"stiffness type", map[string]any{"stiffness": "stiff"}, "stiffness"},
		{"damping -Inf", map[string]any{"damping": []float64{0, math.Inf(-1), 0}}, "damping"},
		{"damping shape", map[string]any{"damping": []float64{1, 2, 3, 4}}, "damping"},
		{"offset NaN", map[string]any{"offset": []any{0.0, 0.0, math.NaN()}}, "offset"},
		{"active type", map[string]any{"active": "yes"}, "active"},
		{"show type", map[string]any{"show": 1}, "show"},
		{"draw_size NaN", map[string]any{"draw_size": math.NaN()}, "draw_size"},
		{"draw_size below -1", map[string]any{"draw_size": -2.0}, "draw_size"},
		{"color shape", map[string]any{"color": []float64{1, 0, 0}}, "color"},
		{"color range", map[string]any{"color": []float64{2, 0, 0, 1}}, "color"},
		{"item_number fraction", map[string]any{"item_number": 1.5}, "item_number"},
		{"function type", map[string]any{"spring_force_user_function": func(float64) float64 { return 0 }}, "spring_force_user_function"},
		{"unknown name", map[string]any{"stifness": []float64{1, 1, 1}}, "stifness"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := springdamper.FromMap(tc.m)
			var pe *node.ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *node.ParamError", err)
			}
			if pe.Node != "springdamper" || pe.Param != tc.param || pe.Reason == "" {
				t.Errorf("ParamError = %+v", pe)
			}
			if tc.param != "stifness" && (pe.Value == nil || pe.Valid == "") {
				t.Errorf("ParamError %q lacks the value or the valid range", err)
			}
			t.Log(err)
		})
	}
	// The unknown name suggests the right one.
	_, err := springdamper.FromMap(map[string]any{"stifness": []float64{1, 1, 1}})
	if !strings.Contains(err.Error(), `did you mean "stiffness"`) {
		t.Errorf("unknown name: %v", err)
	}
	// Typed parameters are held to the same rules, all problems at once.
	p := springdamper.DefaultParams()
	p.Stiffness[1] = math.NaN()
	p.Color = [4]float64{0, 0, 0, 7}
	_, err = springdamper.New(p, node.Attachment{}, node.Attachment{})
	var pe *node.ParamError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "stiffness") || !strings.Contains(err.Error(), "color") {
		t.Errorf("New: %v", err)
	}
}

// TestValidParams: negative stiffness and damping are valid (Exudyn
// allows any real), as are a ForceFunc or a plain func literal in a map.
func TestValidParams(t *testing.T) {
	uf := func(t float64, i int, u, v, k, d, off [3]float64) [3]float64 { return u }
	for _, m := range []map[string]any{
		nil,
		{"stiffness": []float64{-1, 0, 1}, "damping": []any{-2, 0, 2}},
		{"spring_force_user_function": uf},
		{"spring_force_user_function": springdamper.ForceFunc(uf), "item_number": 7},
		{"draw_size": 0.1, "color": []float64{0.2, 0.3, 0.4, 1}, "show": false, "active": false},
	} {
		if _, err := springdamper.FromMap(m); err != nil {
			t.Errorf("FromMap(%v): %v", m, err)
		}
	}
}

// TestDefault: the registry's default node (two ground markers at the
// origin) builds, runs in a graph and outputs zeros.
func TestDefault(t *testing.T) {
	r, err := node.NewRegistry(springdamper.Type())
	if err != nil {
		t.Fatal(err)
	}
	n, err := r.New("springdamper", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := n.Spec()
	if len(s.Inputs) != 0 || !s.Feedthrough {
		t.Errorf("inputs %v, feedthrough %v", s.Inputs, s.Feedthrough)
	}
	if got := s.OutputLayout.Names(); fmt.Sprint(got) != "[displacement distance velocity force potential_energy]" {
		t.Errorf("outputs %v", got)
	}
	g := graph.New()
	g.Add("sd", n)
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Run(t.Context(), graph.Settings{Dt: 0.01, Steps: 3}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"displacement", "distance", "velocity", "force", "potential_energy"} {
		v, err := sim.Value("sd." + f)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range v {
			if x != 0 {
				t.Errorf("%s = %v, want zeros", f, v)
			}
		}
	}
}

// closedForm is Exudyn's force law and energy, written out here
// independently of the package.
func closedForm(k, d, off, p0, v0, p1, v1 [3]float64) (f [3]float64, e float64) {
	for i := range 3 {
		dp, dv := p1[i]-p0[i], v1[i]-v0[i]
		f[i] = k[i]*(dp-off[i]) + d[i]*dv
		e += 0.5 * k[i] * (dp - off[i]) * (dp - off[i])
	}
	return f, e
}

// TestForceClosedForm: for prescribed marker values the outputs are Exudyn's
// closed form to round-off (the same arithmetic, so ≤ 1 ulp of
// scale), and the loads are +f on marker 0, −f on marker 1.
func TestForceClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	r3 := func(s float64) [3]float64 {
		return [3]float64{s * (2*rng.Float64() - 1), s * (2*rng.Float64() - 1), s * (2*rng.Float64() - 1)}
	}
	for trial := range 20 {
		p := springdamper.DefaultParams()
		p.Stiffness, p.Damping, p.Offset = r3(1e4), r3(100), r3(0.1)
		if trial == 0 {
			p.Stiffness[0] = -p.Stiffness[0] // negative stiffness is valid
		}
		// Ground–ground: the positions are the markers' Local points.
		g0, g1 := r3(2), r3(2)
		n, err := springdamper.New(p, node.GroundAt(g0), node.GroundAt(g1))
		if err != nil {
			t.Fatal(err)
		}
		y := make([]float64, n.Spec().OutputLayout.Size())
		if err := n.Outputs(0, nil, n.Spec().DefaultInputs(), y); err != nil {
			t.Fatal(err)
		}
		f, e := closedForm(p.Stiffness, p.Damping, p.Offset, g0, [3]float64{}, g1, [3]float64{})
		checkOutputs(t, y, g0, g1, [3]float64{}, [3]float64{}, f, e)

		// Two mass points with prescribed inputs (position, velocity).
		a, b := newMass(t, 1, [3]float64{}, [3]float64{}), newMass(t, 2, [3]float64{}, [3]float64{})
		n, err = springdamper.New(p, node.At(a, [3]float64{}), node.At(b, [3]float64{}))
		if err != nil {
			t.Fatal(err)
		}
		p0, v0, p1, v1 := r3(3), r3(5), r3(3), r3(5)
		in := n.Spec().DefaultInputs()
		copy(in.Values, append(append(append(p0[:], v0[:]...), p1[:]...), v1[:]...))
		y = make([]float64, n.Spec().OutputLayout.Size())
		if err := n.Outputs(0, nil, in, y); err != nil {
			t.Fatal(err)
		}
		f, e = closedForm(p.Stiffness, p.Damping, p.Offset, p0, v0, p1, v1)
		checkOutputs(t, y, p0, p1, v0, v1, f, e)
		s := n.Spec()
		m0, m1 := y[s.OutputOffset("m0_force"):][:3], y[s.OutputOffset("m1_force"):][:3]
		for i := range 3 {
			if m0[i] != f[i] || m1[i] != -f[i] {
				t.Errorf("loads m0 %v m1 %v, want +f, −f with f = %v", m0, m1, f)
			}
		}
		if got, err := n.PotentialEnergy(vec3(y[0:3])); err != nil || got != y[10] {
			t.Errorf("PotentialEnergy() = %v, %v; output %v", got, err, y[10])
		}
	}
}

func checkOutputs(t *testing.T, y []float64, p0, p1, v0, v1, f [3]float64, e float64) {
	t.Helper()
	const tol = 1e-15 // same operations: round-off only
	var l float64
	for i := range 3 {
		dp, dv := p1[i]-p0[i], v1[i]-v0[i]
		l += dp * dp
		if !near(y[i], dp, tol) || !near(y[4+i], dv, tol) || !near(y[7+i], f[i], tol) {
			t.Errorf("component %d: Displacement %v Velocity %v Force %v, want %v %v %v", i, y[i], y[4+i], y[7+i], dp, dv, f[i])
		}
	}
	if !near(y[3], math.Sqrt(l), tol) || !near(y[10], e, 1e-14) {
		t.Errorf("Distance %v, PotentialEnergy %v, want %v, %v", y[3], y[10], math.Sqrt(l), e)
	}
}

// TestInactive: an inactive connector outputs zero force, loads and
// energy, and never calls the user function; the kinematic outputs stay.
func TestInactive(t *testing.T) {
	a, b := newMass(t, 1, [3]float64{}, [3]float64{}), newMass(t, 1, [3]float64{}, [3]float64{})
	for _, withUF := range []bool{false, true} {
		p := springdamper.DefaultParams()
		p.Stiffness, p.Damping, p.Offset, p.Active = [3]float64{10, 20, 30}, [3]float64{1, 2, 3}, [3]float64{0.1, 0, 0}, false
		called := false
		if withUF {
			p.ForceFunc = func(float64, int, [3]float64, [3]float64, [3]float64, [3]float64, [3]float64) [3]float64 {
				called = true
				return [3]float64{1, 1, 1}
			}
		}
		n, err := springdamper.New(p, node.At(a, [3]float64{}), node.At(b, [3]float64{}))
		if err != nil {
			t.Fatal(err)
		}
		in := n.Spec().DefaultInputs()
		copy(in.Values, []float64{0, 0, 0, 1, 1, 1, 1, 2, 3, 0, 0, 0})
		y := make([]float64, n.Spec().OutputLayout.Size())
		if err := n.Outputs(0, nil, in, y); err != nil {
			t.Fatal(err)
		}
		s := n.Spec()
		for _, name := range []string{"force", "m0_force", "m1_force"} {
			if v := y[s.OutputOffset(name):][:3]; v[0] != 0 || v[1] != 0 || v[2] != 0 {
				t.Errorf("uf %v: %s = %v, want zero", withUF, name, v)
			}
		}
		if !withUF && y[s.OutputOffset("potential_energy")] != 0 {
			t.Errorf("PotentialEnergy = %v, want 0", y[10])
		}
		if y[0] != 1 || y[4] != -1 {
			t.Errorf("kinematic outputs %v", y[:7])
		}
		if called {
			t.Error("the user function was called on an inactive connector")
		}
	}
}

// TestUserFunction: the user function replaces the law and receives Exudyn's
// arguments; the node then has no PotentialEnergy, and asking for
// it is an error that says so (method) or a graph error (output).
func TestUserFunction(t *testing.T) {
	type args struct {
		t                  float64
		item               int
		u, v, k, d, offset [3]float64
	}
	var got args
	p := springdamper.DefaultParams()
	p.Stiffness, p.Damping, p.Offset, p.ItemNumber = [3]float64{5000, 5000, 5000}, [3]float64{0, 250, 0}, [3]float64{0.1, 0.2, 0.3}, 42
	// Exudyn's example UFforce: u_i·k_i.
	p.ForceFunc = func(t float64, item int, u, v, k, d, off [3]float64) [3]float64 {
		got = args{t, item, u, v, k, d, off}
		return [3]float64{u[0] * k[0], u[1] * k[1], u[2] * k[2]}
	}
	a, b := newMass(t, 1, [3]float64{}, [3]float64{}), newMass(t, 1, [3]float64{}, [3]float64{})
	n, err := springdamper.New(p, node.At(a, [3]float64{}), node.At(b, [3]float64{}))
	if err != nil {
		t.Fatal(err)
	}
	in := n.Spec().DefaultInputs()
	copy(in.Values, []float64{1, 2, 3, 4, 5, 6, 1.5, 2, 2, 4, 5, 8})
	y := make([]float64, n.Spec().OutputLayout.Size())
	if err := n.Outputs(0.25, nil, in, y); err != nil {
		t.Fatal(err)
	}
	want := args{0.25, 42, [3]float64{0.5, 0, -1}, [3]float64{0, 0, 2}, p.Stiffness, p.Damping, p.Offset}
	if got != want {
		t.Errorf("user function got %+v, want %+v", got, want)
	}
	s := n.Spec()
	if f := y[s.OutputOffset("force"):][:3]; f[0] != 2500 || f[1] != 0 || f[2] != -5000 {
		t.Errorf("Force = %v, want the user function's [2500 0 -5000]", f)
	}
	if s.OutputLayout.Index("potential_energy") >= 0 {
		t.Error("PotentialEnergy is an output despite the user function")
	}
	if _, err := n.PotentialEnergy([3]float64{1, 0, 0}); !errors.Is(err, springdamper.ErrPotentialEnergy) {
		t.Errorf("PotentialEnergy: err = %v", err)
	}
	for _, name := range []string{"potential_energy", "PotentialEnergy"} {
		if r := n.MissingFieldReason(name); !strings.Contains(r, "user_function") {
			t.Errorf("MissingFieldReason(%q) = %q", name, r)
		}
	}

	// In a graph: reading, recording or wiring the energy fails.
	g := graph.New()
	g.Add("a", a)
	g.Add("b", b)
	if _, err := springdamper.Connect(g, "sd", p, node.Body("a"), node.Body("b")); err != nil {
		t.Fatal(err)
	}
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	_, err = sim.Value("sd.potential_energy")
	if !errors.Is(err, graph.ErrUnknownField) {
		t.Errorf("Value(PotentialEnergy): err = %v, want ErrUnknownField", err)
	}
	t.Logf("the error a user gets: %v", err)
	if _, err := sim.Run(t.Context(), graph.Settings{Dt: 1e-3, Steps: 1, Record: []string{"sd.potential_energy"}}); err == nil {
		t.Error("recording PotentialEnergy succeeded")
	}

	// A non-finite user force is an error naming the node's function.
	p.ForceFunc = func(float64, int, [3]float64, [3]float64, [3]float64, [3]float64, [3]float64) [3]float64 {
		return [3]float64{math.NaN(), 0, 0}
	}
	n, _ = springdamper.New(p, node.GroundAt([3]float64{}), node.GroundAt([3]float64{}))
	if err := n.Outputs(0, nil, n.Spec().DefaultInputs(), y[:n.Spec().OutputLayout.Size()]); !errors.Is(err, node.ErrNonFinite) {
		t.Errorf("NaN user force: err = %v", err)
	}
}

// TestSetParams: overrides change the force; invalid values change
// nothing; the user function cannot be added afterwards.
func TestSetParams(t *testing.T) {
	n, err := springdamper.New(springdamper.DefaultParams(), node.GroundAt([3]float64{}), node.GroundAt([3]float64{1, 0, 0}))
	if err != nil {
		t.Fatal(err)
	}
	if err := n.SetParams(map[string]any{"stiffness": []float64{3, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	if f, _ := n.Force(0, [3]float64{1, 0, 0}, [3]float64{}); f[0] != 3 {
		t.Errorf("force after SetParams = %v", f)
	}
	if err := n.SetParams(map[string]any{"stiffness": []float64{5, 0, 0}, "damping": math.NaN()}); err == nil {
		t.Error("invalid SetParams accepted")
	}
	if got := n.Params()["stiffness"].([]float64); got[0] != 3 {
		t.Errorf("a failed SetParams changed stiffness to %v", got)
	}
	uf := springdamper.ForceFunc(func(float64, int, [3]float64, [3]float64, [3]float64, [3]float64, [3]float64) [3]float64 {
		return [3]float64{}
	})
	var pe *node.ParamError
	if err := n.SetParams(map[string]any{"spring_force_user_function": uf}); !errors.As(err, &pe) {
		t.Errorf("adding a user function: err = %v", err)
	}
}

// TestConnectErrors: Connect names what is wrong.
func TestConnectErrors(t *testing.T) {
	g := graph.New()
	g.Add("mass", newMass(t, 1, [3]float64{}, [3]float64{}))
	g.Add("load", newSource("N", [3]float64{}))
	p := springdamper.DefaultParams()
	_, err := springdamper.Connect(g, "sd", p, node.Body("mas"), node.GroundAt([3]float64{}))
	if err == nil || !strings.Contains(err.Error(), `did you mean "mass"`) {
		t.Errorf("unknown body: %v", err)
	}
	_, err = springdamper.Connect(g, "sd", p, node.Body("load"), node.Body("mass"))
	if !errors.Is(err, springdamper.ErrNotMarker) || !strings.Contains(err.Error(), `"load"`) {
		t.Errorf("non-marker body: %v", err)
	}
	g.Add("ground", newSource("m", [3]float64{}))
	if _, err = springdamper.Connect(g, "sd", p, node.Body("ground"), node.Body("mass")); err == nil {
		t.Error(`"ground" with a node named ground accepted`)
	}
	t.Log(err)
}

// TestConnectEdges: the helper wires every marker field in and every
// load out, the ball's scalar force input included.
func TestConnectEdges(t *testing.T) {
	g := graph.New()
	g.Add("body", newBody2D(t, rigidbodyDefault2D()))
	g.Add("ball", newBall(t))
	if _, err := springdamper.Connect(g, "sd", springdamper.DefaultParams(), node.BodyAt("ball", [3]float64{0, 1, 0}), node.BodyAt("body", [3]float64{0.5, 0, 0})); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range g.Edges() {
		got = append(got, e.From+" -> "+e.To)
	}
	want := "[ball.position -> sd.m0_position ball.velocity -> sd.m0_velocity sd.m0_force -> ball.force body.x -> sd.m1_x body.angle -> sd.m1_angle body.v -> sd.m1_v body.omega -> sd.m1_omega sd.m1_force -> body.force sd.m1_torque -> body.torque]"
	if fmt.Sprint(got) != want {
		t.Errorf("edges\n got %v\nwant %s", got, want)
	}
	if _, err := g.Build(); err != nil {
		t.Fatal(err)
	}
}

// TestOutputsAllocs: the per-step path allocates nothing.
func TestOutputsAllocs(t *testing.T) {
	n, in := benchNode(t)
	y := make([]float64, n.Spec().OutputLayout.Size())
	if a := testing.AllocsPerRun(100, func() { _ = n.Outputs(0, nil, in, y) }); a != 0 {
		t.Errorf("Outputs allocates %v times", a)
	}
}

func benchNode(t testing.TB) (*springdamper.Node, node.Inputs) {
	p := springdamper.DefaultParams()
	p.Stiffness, p.Damping = [3]float64{100, 200, 300}, [3]float64{1, 2, 3}
	body := newBody3D(t, rigidbodyDefault3D())
	n, err := springdamper.New(p, node.At(newMass(t, 1, [3]float64{}, [3]float64{}), [3]float64{}), node.At(body, [3]float64{0.1, 0.2, 0.3}))
	if err != nil {
		t.Fatal(err)
	}
	in := n.Spec().DefaultInputs()
	for i := range in.Values {
		in.Values[i] = 0.1 * float64(i+1)
	}
	return n, in
}

func BenchmarkOutputs(b *testing.B) {
	n, in := benchNode(b)
	y := make([]float64, n.Spec().OutputLayout.Size())
	b.ReportAllocs()
	for b.Loop() {
		if err := n.Outputs(0, nil, in, y); err != nil {
			b.Fatal(err)
		}
	}
}

// TestConcurrentOutputs: Outputs and OutputsJacobian on one node from
// several goroutines with distinct slices give the serial results (run
// with -race).
func TestConcurrentOutputs(t *testing.T) {
	n, in := benchNode(t)
	s := n.Spec()
	ny, nu := s.OutputLayout.Size(), s.InputLayout.Size()
	want := make([]float64, ny)
	if err := n.Outputs(0, nil, in, want); err != nil {
		t.Fatal(err)
	}
	done := make(chan []float64)
	for range 4 {
		go func() {
			y, j := make([]float64, ny), make([]float64, ny*nu)
			for range 50 {
				_ = n.Outputs(0, nil, in, y)
				_ = n.OutputsJacobian(0, nil, in, j)
			}
			done <- y
		}()
	}
	for range 4 {
		if got := <-done; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("concurrent Outputs %v, serial %v", got, want)
		}
	}
}

// TestDefaultParamsAreSpecDefaults: DefaultParams documents the same
// defaults as the spec (Exudyn's: zero stiffness, damping and offset,
// active, shown, draw_size −1, color (−1, −1, −1, −1)), so a connector
// built from DefaultParams and one built from an empty parameter map
// report the same parameters. The reference is the spec's own defaults,
// which the registry applies to the empty map.
func TestDefaultParamsAreSpecDefaults(t *testing.T) {
	typed, err := springdamper.New(springdamper.DefaultParams(), node.GroundAt([3]float64{}), node.GroundAt([3]float64{}))
	if err != nil {
		t.Fatal(err)
	}
	r, err := node.NewRegistry(springdamper.Type())
	if err != nil {
		t.Fatal(err)
	}
	untyped, err := r.New("springdamper", nil)
	if err != nil {
		t.Fatal(err)
	}
	got, want := typed.Params(), untyped.(node.Tunable).Params()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DefaultParams differ from the spec defaults (-spec +DefaultParams):\n%s", diff)
	}
}
