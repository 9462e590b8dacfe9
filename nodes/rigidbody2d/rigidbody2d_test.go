package rigidbody2d

import (
	"bytes"
	"errors"
	"log/slog"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// TestMain silences the deprecation warning every construction logs on
// slog.Default(); TestDeprecationWarning checks it explicitly.
func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.DiscardHandler))
	os.Exit(m.Run())
}

var quiet = slog.New(slog.DiscardHandler)

func mustNew(t testing.TB, p Params) *Node {
	t.Helper()
	if p.Logger == nil {
		p.Logger = quiet
	}
	n, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// run steps the node from its initial state; force and torque are
// functions of the step's start time t_n (held over the step).
func run(t testing.TB, nd *Node, dt float64, steps int, force func(float64) (float64, float64, float64)) []float64 {
	t.Helper()
	in := nd.Spec().DefaultInputs()
	x, dst := make([]float64, stateLen), make([]float64, stateLen)
	nd.InitialState(x)
	for k := range steps {
		tn := float64(k) * dt
		if force != nil {
			in.Values[inForce], in.Values[inForce+1], in.Values[inTorque] = force(tn)
		}
		if err := nd.Update(tn, dt, x, in, dst); err != nil {
			t.Fatal(err)
		}
		x, dst = dst, x
	}
	return x
}

// TestSeedStep checks one step against numbers computed by hand from MADDENING's
// scheme (v⁺ = v + Δt(F+mg)/m, ω⁺ = ω + Δt τ/I, x⁺ = x + Δt v⁺,
// θ⁺ = θ + Δt ω⁺) with m = 2, I = 0.5, g = (0, −9.81), x = (1, 2),
// θ = 0.3, v = (0.5, −1), ω = 0.2, F = (4, 1), τ = 1, Δt = 0.1:
// a = (2, −9.31), α = 2, v⁺ = (0.7, −1.931), ω⁺ = 0.4, x⁺ = (1.07, 1.8069),
// θ⁺ = 0.34. Tolerance 1e-15: the decimal inputs are rounded to binary and
// each output is two or three rounded operations away from them.
func TestSeedStep(t *testing.T) {
	p := DefaultParams()
	p.Mass, p.Inertia = 2, 0.5
	nd := mustNew(t, p)
	in := nd.Spec().DefaultInputs()
	in.Values[inForce], in.Values[inForce+1], in.Values[inTorque] = 4, 1, 1
	x := []float64{1, 2, 0.3, 0.5, -1, 0.2}
	got := make([]float64, 6)
	if err := nd.Update(0, 0.1, x, in, got); err != nil {
		t.Fatal(err)
	}
	want := []float64{1.07, 1.8069, 0.34, 0.7, -1.931, 0.4}
	for i := range want {
		if !numtest.Near(got[i], want[i], 1e-15) {
			t.Errorf("%s = %v, want %v", nd.Spec().StateLayout.Component(i), got[i], want[i])
		}
	}
}

// TestConstantForce checks 1000 steps against the discrete closed form
// of semi-implicit Euler under a constant acceleration a:
// v_n = v₀ + nΔt a, x_n = x₀ + nΔt v₀ + Δt² a n(n+1)/2 (the same for ω, θ
// with α = τ/I). Tolerance 1e-12: rounding over 1000 additions. It also
// checks the continuous solution: the velocities are exact and the
// position error is exactly ½ a Δt t.
func TestConstantForce(t *testing.T) {
	p := DefaultParams()
	p.Mass, p.Inertia = 4, 0.25
	p.InitialX, p.InitialY, p.InitialVX, p.InitialVY = 1, -1, 0.5, 2
	p.InitialAngle, p.InitialOmega = 0.1, -0.3
	nd := mustNew(t, p)
	const dt, steps = 1e-3, 1000
	x := run(t, nd, dt, steps, func(float64) (float64, float64, float64) { return 2, 6, 0.05 })
	n, tEnd := float64(steps), float64(steps)*dt
	acc := []float64{0.5, 1.5 - 9.81, 0.2} // F/m + g, τ/I
	x0 := []float64{1, -1, 0.1}
	v0 := []float64{0.5, 2, -0.3}
	pos := []int{offX, offX + 1, offAngle}
	vel := []int{offV, offV + 1, offOmega}
	for i, a := range acc {
		wantV := v0[i] + n*dt*a
		wantX := x0[i] + n*dt*v0[i] + dt*dt*a*n*(n+1)/2
		if !numtest.Near(x[vel[i]], wantV, 1e-12) || !numtest.Near(x[pos[i]], wantX, 1e-12) {
			t.Errorf("dof %d: pos %v vel %v, want %v %v", i, x[pos[i]], x[vel[i]], wantX, wantV)
		}
		exact := x0[i] + v0[i]*tEnd + a*tEnd*tEnd/2
		if !numtest.Near(x[pos[i]]-exact, a*dt*tEnd/2, 1e-11) {
			t.Errorf("dof %d: position error %v, want ½aΔt t = %v", i, x[pos[i]]-exact, a*dt*tEnd/2)
		}
	}
}

// TestOrderStudy measures the observed order over a 100/200/400/800 step
// ladder at T = 1, zero gravity, against analytic solutions:
//
//   - constant F = m·a, τ = I·α: velocities exact (error ≤ 1e-12), position
//     and angle error ½aΔtT, observed order 1;
//   - F = m·sin t, τ = I·sin t (state-independent, zero at t₀): exact
//     x = (1 + v₀)t − sin t, v = v₀ + 1 − cos t; position and angle order 2,
//     velocities order 1.
//
// MADDENING's RigidBody2DNode claims order 2 for position and angle under any
// state-independent force; the first case shows that needs F(t₀) = 0. The
// bands [0.95, 1.05] and [1.9, 2.1] allow for the finite ladder.
func TestOrderStudy(t *testing.T) {
	p := DefaultParams()
	p.Mass, p.Inertia, p.Gravity = 2, 0.5, [2]float64{0, 0}
	nd := mustNew(t, p)
	errs := func(force func(float64) (float64, float64, float64), exact func(float64) (x, v float64)) (ex, ev [4]float64) {
		for k, steps := range []int{100, 200, 400, 800} {
			dt := 1 / float64(steps)
			x := run(t, nd, dt, steps, force)
			xe, ve := exact(1)
			ex[k] = math.Max(math.Max(math.Abs(x[offX]-xe), math.Abs(x[offX+1]-xe)), math.Abs(x[offAngle]-xe))
			ev[k] = math.Max(math.Max(math.Abs(x[offV]-ve), math.Abs(x[offV+1]-ve)), math.Abs(x[offOmega]-ve))
		}
		return ex, ev
	}
	order := func(e [4]float64) float64 { return math.Log2(e[2] / e[3]) }

	ex, ev := errs(func(float64) (float64, float64, float64) { return 2 * 3, 2 * 3, 0.5 * 3 },
		func(tt float64) (float64, float64) { return 1.5 * tt * tt, 3 * tt })
	t.Logf("constant force: position/angle errors %.3g, order %.3f; velocity errors %.3g", ex, order(ex), ev)
	if o := order(ex); o < 0.95 || o > 1.05 {
		t.Errorf("constant force: position order %.3f, want 1", o)
	}
	if m := max(ev[0], ev[1], ev[2], ev[3]); m > 1e-12 {
		t.Errorf("constant force: velocity error %g, want exact", m)
	}

	ex, ev = errs(func(tt float64) (float64, float64, float64) { s := math.Sin(tt); return 2 * s, 2 * s, 0.5 * s },
		func(tt float64) (float64, float64) { return tt - math.Sin(tt), 1 - math.Cos(tt) })
	t.Logf("F = m sin t: position/angle errors %.3g, order %.3f; velocity errors %.3g, order %.3f", ex, order(ex), ev, order(ev))
	if o := order(ex); o < 1.9 || o > 2.1 {
		t.Errorf("sin forcing: position order %.3f, want 2", o)
	}
	if o := order(ev); o < 0.95 || o > 1.05 {
		t.Errorf("sin forcing: velocity order %.3f, want 1", o)
	}
}

// TestUpdateIsSemiImplicitEuler ties Metadata.Discretization to the code:
// Update equals semi-implicit Euler applied to Derivatives bit for bit,
// with time-varying inputs.
func TestUpdateIsSemiImplicitEuler(t *testing.T) {
	p := DefaultParams()
	p.Mass, p.Inertia, p.InitialOmega, p.InitialVX = 0.7, 0.3, 1.3, -0.4
	nd := mustNew(t, p)
	if nd.Spec().Meta.Discretization != "semi-implicit-euler" {
		t.Fatal(nd.Spec().Meta.Discretization)
	}
	in := nd.Spec().DefaultInputs()
	x := make([]float64, 6)
	nd.InitialState(x)
	const dt = 0.017
	for k := range 100 {
		tn := float64(k) * dt
		in.Values[0], in.Values[1], in.Values[2] = math.Sin(tn), math.Cos(2*tn), 0.1*math.Cos(tn)
		got, f := make([]float64, 6), make([]float64, 6)
		if err := nd.Update(tn, dt, x, in, got); err != nil {
			t.Fatal(err)
		}
		if err := nd.Derivatives(tn, x, in, f); err != nil {
			t.Fatal(err)
		}
		want := make([]float64, 6)
		for _, j := range []int{offV, offV + 1, offOmega} {
			want[j] = x[j] + dt*f[j]
		}
		want[offX] = x[offX] + dt*want[offV]
		want[offX+1] = x[offX+1] + dt*want[offV+1]
		want[offAngle] = x[offAngle] + dt*want[offOmega]
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("step %d %s: Update %v, SIE on Derivatives %v", k, nd.Spec().StateLayout.Component(j), got[j], want[j])
			}
		}
		x = got
	}
}

// TestDeprecationWarning captures the warning every construction logs.
func TestDeprecationWarning(t *testing.T) {
	var buf bytes.Buffer
	p := DefaultParams()
	p.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	for range 2 {
		if _, err := New(p); err != nil {
			t.Fatal(err)
		}
	}
	out := buf.String()
	if c := strings.Count(out, "level=WARN"); c != 2 {
		t.Errorf("%d warnings for 2 constructions:\n%s", c, out)
	}
	for _, want := range []string{"rigidbody2d is deprecated", "rigidbody with constraints {z: 0, rx: 0, ry: 0}", "algorithm_id=MADD-NODE-004", "deprecated_since=0.1.0"} {
		if !strings.Contains(out, want) {
			t.Errorf("warning lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(nd(t).Spec().Meta.Replacement, "rigidbody with constraints {z: 0, rx: 0, ry: 0}") {
		t.Error("Metadata.Replacement does not name the replacement")
	}

	// A failed construction logs nothing.
	buf.Reset()
	p.Mass = 0
	if _, err := New(p); err == nil {
		t.Fatal("zero mass accepted")
	}
	if buf.Len() != 0 {
		t.Errorf("failed construction logged %q", buf.String())
	}

	// FromMap (and so building from a registry) logs on slog.Default();
	// listing the registry does not construct, so it does not warn.
	buf.Reset()
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	defer slog.SetDefault(old)
	reg, err := node.NewRegistry(Type())
	if err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 0 {
		t.Errorf("listing the registry logged %q", buf.String())
	}
	if _, err := reg.New(TypeName, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := FromMap(map[string]any{"mass": 2}); err != nil {
		t.Fatal(err)
	}
	if c := strings.Count(buf.String(), DeprecationMessage); c != 2 {
		t.Errorf("registry New + FromMap logged %d warnings on slog.Default, want 2:\n%s", c, buf.String())
	}
}

func nd(t *testing.T) *Node { return mustNew(t, DefaultParams()) }

func TestParamErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	type tc struct {
		param string
		value any
	}
	var cases []tc
	for _, name := range []string{"mass", "inertia"} {
		for _, v := range []any{0.0, -1.0, nan, inf, -inf, "1"} {
			cases = append(cases, tc{name, v})
		}
	}
	for _, name := range []string{"initial_x", "initial_y", "initial_vx", "initial_vy", "initial_angle", "initial_omega"} {
		for _, v := range []any{nan, inf, -inf, []float64{1, 2}} {
			cases = append(cases, tc{name, v})
		}
	}
	for _, v := range []any{[]float64{nan, 0}, []float64{0, inf}, []float64{0, -9.81, 0}, 9.81} {
		cases = append(cases, tc{"gravity", v})
	}
	cases = append(cases, tc{"intertia", 1.0})
	for _, c := range cases {
		t.Run(c.param+"="+node.FormatValue(c.value), func(t *testing.T) {
			_, err := FromMap(map[string]any{c.param: c.value})
			var pe *node.ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *node.ParamError", err)
			}
			if pe.Node != TypeName || pe.Param != c.param {
				t.Errorf("error names %s.%s", pe.Node, pe.Param)
			}
			if c.param != "intertia" && pe.Valid == "" {
				t.Errorf("error %q lacks the valid range", err)
			}
			n := nd(t)
			if err := n.SetParams(map[string]any{"mass": 5.0, c.param: c.value}); err == nil {
				t.Error("SetParams accepted it")
			}
			if n.Params().Float("mass") != 1 {
				t.Error("failed SetParams changed mass")
			}
		})
	}
	for _, p := range []Params{{Mass: 0, Inertia: 1}, {Mass: 1, Inertia: 0}, {Mass: nan, Inertia: 1}, {Mass: 1, Inertia: nan}} {
		p.Logger = quiet
		var pe *node.ParamError
		if _, err := New(p); !errors.As(err, &pe) {
			t.Errorf("New(mass %v, inertia %v) = %v, want *node.ParamError", p.Mass, p.Inertia, err)
		}
	}
}

// TestDerivatives: with m = 2, I = 4, g = (1, −10) after SetParams,
// F = (2, 6), τ = 2: dv/dt = (2, −7), dω/dt = 0.5, exact in binary.
func TestDerivatives(t *testing.T) {
	n := nd(t)
	if err := n.SetParams(map[string]any{"mass": 2, "inertia": 4, "gravity": []float64{1, -10}}); err != nil {
		t.Fatal(err)
	}
	in := n.Spec().DefaultInputs()
	copy(in.Values, []float64{2, 6, 2})
	x := []float64{9, 9, 9, 0.5, -0.25, 3}
	dst := make([]float64, 6)
	if err := n.Derivatives(0, x, in, dst); err != nil {
		t.Fatal(err)
	}
	want := []float64{0.5, -0.25, 3, 2, -7, 0.5}
	for i := range want {
		if dst[i] != want[i] {
			t.Fatalf("Derivatives = %v, want %v", dst, want)
		}
	}
	for _, dt := range []float64{math.NaN(), math.Inf(-1)} {
		if err := n.Update(0, dt, x, in, dst); !errors.Is(err, node.ErrNonFinite) {
			t.Errorf("dt = %v: %v", dt, err)
		}
	}
}

// TestMarker: at θ = π/2 the body point r = (1, 0.5) sits at R r =
// (−0.5, 1) from the centre; with ω = 2 its velocity adds ω ẑ × R r =
// (−2, −1); a force f = (3, 4, 7) gives torque r_x f_y − r_y f_x = −5.
// Tolerance 1e-15 (cos π/2 is 6e-17, not 0). The Jacobian is checked
// against central differences (h = 1e-6, tolerance 1e-8: truncation h²).
func TestMarker(t *testing.T) {
	var mk node.Marker = nd(t)
	x := []float64{1, 2, math.Pi / 2, 0.1, 0.2, 2}
	local := [3]float64{1, 0.5, 99}
	var pos, vel [3]float64
	mk.MarkerKinematics(x, local, &pos, &vel)
	for i, w := range [3]float64{0.5, 3, 0} {
		if !numtest.Near(pos[i], w, 1e-15) {
			t.Errorf("pos = %v", pos)
		}
	}
	for i, w := range [3]float64{0.1 - 2, 0.2 - 1, 0} {
		if !numtest.Near(vel[i], w, 1e-15) {
			t.Errorf("vel = %v", vel)
		}
	}
	load := make([]float64, 3)
	mk.MarkerLoad(x, local, [3]float64{3, 4, 7}, load)
	if load[0] != 3 || load[1] != 4 || !numtest.Near(load[2], -5, 1e-15) {
		t.Errorf("MarkerLoad = %v", load)
	}
	if got := mk.MarkerLoads(); len(got) != 2 || got[0] != "force" || got[1] != "torque" {
		t.Errorf("MarkerLoads = %v", got)
	}
	jac := make([]float64, 18)
	x[2] = 0.7
	mk.MarkerJacobian(x, local, jac)
	const h = 1e-6
	for j := range 6 {
		xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
		xp[j] += h
		xm[j] -= h
		var pp, pm, vp, vm [3]float64
		mk.MarkerKinematics(xp, local, &pp, &vp)
		mk.MarkerKinematics(xm, local, &pm, &vm)
		for i := range 3 {
			if fd := (pp[i] - pm[i]) / (2 * h); !numtest.Near(jac[i*6+j], fd, 1e-8) {
				t.Errorf("∂pos[%d]/∂x[%d] = %v, finite difference %v", i, j, jac[i*6+j], fd)
			}
			// The contract: ∂vel/∂(v, ω) is J restricted to (x, y, θ).
			if j >= 3 {
				if fd := (vp[i] - vm[i]) / (2 * h); !numtest.Near(jac[i*6+j-3], fd, 1e-8) {
					t.Errorf("∂vel[%d]/∂x[%d] = %v, J gives %v", i, j, fd, jac[i*6+j-3])
				}
			}
		}
	}
}

func BenchmarkUpdate(b *testing.B) {
	n := mustNew(b, DefaultParams())
	in := n.Spec().DefaultInputs()
	x, dst := make([]float64, stateLen), make([]float64, stateLen)
	b.ReportAllocs()
	for b.Loop() {
		if err := n.Update(0, 1e-3, x, in, dst); err != nil {
			b.Fatal(err)
		}
		x, dst = dst, x
	}
}

// TestMarkerGeneralAngle repeats TestMarker's closed forms at an angle and
// a body point where no factor is 0 or ±1 (TestMarker's π/2 and r_x = 1
// hide a multiplication by 1 turned into a division): θ = 0.6,
// r = (2, −3). The world offset R(θ)r = (c·2 + s·3, s·2 − c·3) is written
// here from math.Cos and math.Sin, independently of the node's rotate;
// with ω = 1.5 the velocity adds ω ẑ × R r = ω(−r_y^w, r_x^w); the
// inverse effective mass (m = 2, I = 0.5) is 1/m + (r_y^w)²/I along x and
// 1/m + (r_x^w)²/I along y (see TestMarkerInverseMass). Tolerance 1e-14
// relative: a few rounded products of order-one numbers.
func TestMarkerGeneralAngle(t *testing.T) {
	p := DefaultParams()
	p.Mass, p.Inertia = 2, 0.5
	n := mustNew(t, p)
	const th, w = 0.6, 1.5
	x := []float64{1, 2, th, 0.1, 0.2, w}
	local := [3]float64{2, -3, 0}
	c, s := math.Cos(th), math.Sin(th)
	rx, ry := c*2+s*3, s*2-c*3
	var pos, vel, inv [3]float64
	n.MarkerKinematics(x, local, &pos, &vel)
	n.MarkerInverseMass(x, local, &inv)
	checks := []struct {
		name      string
		got, want float64
	}{
		{"pos x", pos[0], 1 + rx}, {"pos y", pos[1], 2 + ry}, {"pos z", pos[2], 0},
		{"vel x", vel[0], 0.1 - w*ry}, {"vel y", vel[1], 0.2 + w*rx}, {"vel z", vel[2], 0},
		{"inverse mass x", inv[0], 0.5 + ry*ry/0.5}, {"inverse mass y", inv[1], 0.5 + rx*rx/0.5}, {"inverse mass z", inv[2], 0},
	}
	for _, k := range checks {
		if !numtest.Near(k.got, k.want, 1e-14) {
			t.Errorf("%s = %v, want %v", k.name, k.got, k.want)
		}
	}
	load := make([]float64, 3)
	n.MarkerLoad(x, local, [3]float64{3, 4, 7}, load)
	if !numtest.Near(load[2], rx*4-ry*3, 1e-14) {
		t.Errorf("torque = %v, want %v", load[2], rx*4-ry*3)
	}
}
