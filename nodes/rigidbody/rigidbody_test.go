package rigidbody

import (
	"errors"
	"log/slog"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/rigidbody2d"
)

func mustNew(t testing.TB, p Params) *Node {
	t.Helper()
	n, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

type loads func(t float64) (f, tau vec3)

// run steps the node from its initial state and calls each (if not nil)
// with the state after every step.
func run(t testing.TB, nd *Node, dt float64, steps int, ld loads, each func(k int, x []float64)) []float64 {
	t.Helper()
	in := nd.Spec().DefaultInputs()
	x, dst := make([]float64, stateLen), make([]float64, stateLen)
	nd.InitialState(x)
	for k := range steps {
		tn := float64(k) * dt
		if ld != nil {
			f, tau := ld(tn)
			copy(in.Values[inForce:], f[:])
			copy(in.Values[inTorque:], tau[:])
		}
		if err := nd.Update(tn, dt, x, in, dst); err != nil {
			t.Fatal(err)
		}
		x, dst = dst, x
		if each != nil {
			each(k+1, x)
		}
	}
	return x
}

func TestDefaults(t *testing.T) {
	if _, err := node.NewRegistry(Type()); err != nil {
		t.Fatal(err)
	}
	n, err := FromMap(nil)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, stateLen)
	n.InitialState(x)
	want := []float64{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	for i := range want {
		if x[i] != want[i] {
			t.Fatalf("default initial state %v", x)
		}
	}
}

func TestConstraintsText(t *testing.T) {
	c, err := ParseConstraints(" z = 0.5 , rx=0,ry=-1e-3")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.String(); got != "z=0.5,rx=0,ry=-0.001" {
		t.Errorf("String = %q", got)
	}
	if c2, err := ParseConstraints(c.String()); err != nil || c2.String() != c.String() {
		t.Errorf("round trip: %v, %v", c2, err)
	}
	if Planar().String() != "z=0,rx=0,ry=0" {
		t.Error(Planar())
	}
	// The map form and the text form build the same node.
	a, err := FromMap(map[string]any{"constraints": map[string]any{"z": 0, "rx": 0, "ry": 0.0}})
	if err != nil {
		t.Fatal(err)
	}
	if got := a.(*Node).Params().String("constraints"); got != "z=0,rx=0,ry=0" {
		t.Errorf("map form gave %q", got)
	}
}

// A flat body lies on the triangle inequality's edge (a disc: I₃ =
// I₁ + I₂), and a body whose rotations are constrained uses only the
// moments about its free axes: both are valid.
func TestInertiaTriangleEdges(t *testing.T) {
	p := DefaultParams()
	p.Inertia = [3]float64{0.25, 0.25, 0.5} // a disc of radius 1, mass 1
	if _, err := New(p); err != nil {
		t.Errorf("disc: %v", err)
	}
	p.InertiaMatrix = &[9]float64{0.25, 0, 0, 0, 0.375, 0.125, 0, 0.125, 0.375} // the disc turned 45° about x
	if _, err := New(p); err != nil {
		t.Errorf("turned disc: %v", err)
	}
	p.InertiaMatrix = nil
	p.Inertia = [3]float64{1, 1, 5}
	p.Constraints = Planar()
	if _, err := New(p); err != nil {
		t.Errorf("planar body: %v", err)
	}
}

func TestParamErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		param string
		value any
		why   string // a fragment of the message
	}{
		{"mass", 0.0, "out of range"},
		{"mass", -2.0, "out of range"},
		{"mass", nan, "not finite"},
		{"mass", inf, "not finite"},
		{"inertia", []float64{1, 0, 1}, "out of range"},
		{"inertia", []float64{1, -1, 1}, "out of range"},
		{"inertia", []float64{1, nan, 1}, "not finite"},
		{"inertia", []float64{1, 1}, "want 3"},
		// No mass distribution has I₃ > I₁ + I₂ (I₁ + I₂ − I₃ = 2∫z² dm).
		{"inertia", []float64{1, 1, 5}, "violates the triangle inequality: I3 = 5 is more than I1 + I2 = 2"},
		{"inertia_matrix", []float64{1, 0, 0, 0, 1, 0, 0, 0, 5}, "has principal moments that violate the triangle inequality"},
		// diag(1, 1, 5) turned 45° about x: the same moments, found as the
		// tensor's eigenvalues.
		{"inertia_matrix", []float64{1, 0, 0, 0, 3, 2, 0, 2, 3}, "has principal moments that violate the triangle inequality: I1 = 5"},
		{"inertia_matrix", []float64{1, 0.5, 0, 0, 1, 0, 0, 0, 1}, "not symmetric"},
		{"inertia_matrix", []float64{1, 0, 0, 0, -1, 0, 0, 0, 1}, "minor 2"},
		{"inertia_matrix", []float64{1, 2, 0, 2, 1, 0, 0, 0, 1}, "minor 2"},
		{"inertia_matrix", []float64{1, 0, 0, 0, 1, 0, 0, 0, nan}, "not finite"},
		{"inertia_matrix", []float64{1, 0, 0, 0, 1, 0, 0, 0}, "want 9"},
		{"gravity", []float64{0, 0, inf}, "not finite"},
		{"initial_position", []float64{nan, 0, 0}, "not finite"},
		{"initial_orientation", []float64{0, 0, 0, 0}, "zero quaternion"},
		{"initial_orientation", []float64{1, 0, 0, nan}, "not finite"},
		{"initial_orientation", []float64{1, 0, 0}, "want 4"},
		{"initial_velocity", []float64{0, -inf, 0}, "not finite"},
		{"initial_angular_velocity", []float64{0, 0, nan}, "not finite"},
		{"constraints", "w=0", "unknown axis"},
		{"constraints", "z", "want axis=value"},
		{"constraints", "z=", "want a number"},
		{"constraints", "z=abc", "want a number"},
		{"constraints", "z=NaN", "not finite"},
		{"constraints", "z=Inf", "not finite"},
		{"constraints", "z=0,z=1", "twice"},
		{"constraints", "z=0,", "want axis=value"},
		{"constraints", "ry=1.5707963267948966", "gimbal lock"},
		{"constraints", "z=1,ry=-1.5703", "gimbal lock"},
		{"constraints", 5, "want a string"},
		{"constraints", map[string]any{"q": 0}, "unknown axis"},
		{"constraints", map[string]any{"z": "0"}, "want a number"},
		{"constraints", map[string]any{"ry": 4.7124}, "gimbal lock"},
		{"inertai", []float64{1, 1, 1}, "not a parameter"},
	}
	for _, tt := range tests {
		t.Run(tt.param+"="+node.FormatValue(tt.value), func(t *testing.T) {
			_, err := FromMap(map[string]any{tt.param: tt.value})
			var pe *node.ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *node.ParamError", err)
			}
			if pe.Node != TypeName || pe.Param != tt.param || !strings.Contains(err.Error(), tt.why) {
				t.Errorf("error %q, want %s.%s … %s", err, TypeName, tt.param, tt.why)
			}
			if tt.param != "inertai" && pe.Valid == "" {
				t.Errorf("error %q does not say what is valid", err)
			}
			n := mustNew(t, DefaultParams())
			if err := n.SetParams(map[string]any{"mass": 7.0, tt.param: tt.value}); err == nil {
				t.Error("SetParams accepted it")
			}
			if n.Params().Float("mass") != 1 {
				t.Error("a failed SetParams changed mass")
			}
		})
	}
	// The typed constructor.
	p := DefaultParams()
	p.Constraints = Constraints{RY: math.Pi / 2}
	if _, err := New(p); err == nil || !strings.Contains(err.Error(), "gimbal lock") {
		t.Errorf("ry held alone at π/2: %v", err)
	}
	// The limit is |cos ry| ≥ 1e-3: just inside it, and ry = π/2 with rx
	// or rz held too (a hinge), are accepted.
	for _, c := range []Constraints{{RY: math.Pi/2 - 1.001e-3}, {RY: math.Pi / 2, RZ: 0}, {RX: 0}, {RZ: 1}} {
		p.Constraints = c
		if _, err := New(p); err != nil {
			t.Errorf("%v: %v", c, err)
		}
	}
	p = DefaultParams()
	p.InertiaMatrix = &[9]float64{2, 0, 0, 0, 2, 3, 0, 3, 2}
	var pe *node.ParamError
	if _, err := New(p); !errors.As(err, &pe) || pe.Param != "inertia_matrix" {
		t.Errorf("indefinite matrix: %v", err)
	}
}

// TestPrincipalSpin: torque-free rotation about a principal axis is
// steady. Analytic: ω stays ω₀ and the body turns about it at |ω₀|. With
// q₀ = identity and ω₀ = (0, 0, 3), ω × I_wω is exactly zero, so ω must
// stay bit-exact and q(t) = (cos(3t/2), 0, 0, sin(3t/2)) (tolerance 1e-12:
// 1000 rounded quaternion products). With a tilted q₀ and ω₀ along the
// body's major axis R₀e₃, ω stays within 1e-12 (rounding only; the major
// axis is stable).
func TestPrincipalSpin(t *testing.T) {
	p := DefaultParams()
	p.Inertia = [3]float64{1, 2, 3}
	p.InitialAngularVelocity = [3]float64{0, 0, 3}
	const dt, steps = 1e-3, 1000
	x := run(t, mustNew(t, p), dt, steps, nil, nil)
	if x[offOmega] != 0 || x[offOmega+1] != 0 || x[offOmega+2] != 3 {
		t.Errorf("ω = %v, want (0, 0, 3) exactly", x[offOmega:])
	}
	want := quat{math.Cos(1.5), 0, 0, math.Sin(1.5)}
	for i := range want {
		if !numtest.Near(x[offQuat+i], want[i], 1e-12) {
			t.Errorf("q = %v, want %v", x[offQuat:offQuat+4], want)
			break
		}
	}

	q0 := qunit(quat{0.9, 0.3, -0.2, 0.25})
	axis := mulMV(rotation(q0), vec3{0, 0, 1})
	p.InitialOrientation = q0
	p.InitialAngularVelocity = [3]float64{2 * axis[0], 2 * axis[1], 2 * axis[2]}
	x = run(t, mustNew(t, p), dt, steps, nil, nil)
	for i := range 3 {
		if !numtest.Near(x[offOmega+i], p.InitialAngularVelocity[i], 1e-12) {
			t.Errorf("tilted spin: ω = %v, want %v", x[offOmega:], p.InitialAngularVelocity)
			break
		}
	}
}

// invariants returns the world angular momentum I_w ω and the kinetic
// energy ½ ωᵀ I_w ω, computed independently of the node's step through
// I_w = R I_b Rᵀ.
func invariants(ib mat3, x []float64) (vec3, float64) {
	r := rotation(quat(x[offQuat : offQuat+4]))
	w := vec3(x[offOmega : offOmega+3])
	l := mulMV(r, mulMV(ib, mulMtV(r, w)))
	return l, dot(w, l) / 2
}

// TestTumbling: torque-free tumbling with I_b = diag(1, 2, 3) and
// ω₀ = (1, 0.5, 0.8) (no principal axis). Analytic: world angular
// momentum and kinetic energy are constant. The scheme is 1st order, so
// the maximum drift over T = 5 must shrink about linearly with Δt: over
// Δt = 4e-3, 2e-3, 1e-3 the observed order of each drift must lie in
// [0.9, 1.1], and the quaternion must stay unit to 1e-14.
func TestTumbling(t *testing.T) {
	p := DefaultParams()
	p.Inertia = [3]float64{1, 2, 3}
	p.InitialAngularVelocity = [3]float64{1, 0.5, 0.8}
	p.InitialOrientation = [4]float64{1, 0.2, 0, -0.1}
	nd := mustNew(t, p)
	x0 := make([]float64, stateLen)
	nd.InitialState(x0)
	l0, e0 := invariants(nd.m.Get().ib, x0)
	var dl, de [3]float64
	for j, dt := range []float64{4e-3, 2e-3, 1e-3} {
		run(t, nd, dt, int(math.Round(5/dt)), nil, func(k int, x []float64) {
			l, e := invariants(nd.m.Get().ib, x)
			d := vec3{l[0] - l0[0], l[1] - l0[1], l[2] - l0[2]}
			dl[j] = max(dl[j], math.Sqrt(dot(d, d)/dot(l0, l0)))
			de[j] = max(de[j], math.Abs(e-e0)/e0)
			if qn := qnorm(quat(x[offQuat : offQuat+4])); !numtest.Within(qn, 1, 1e-14) {
				t.Fatalf("|q| = %v at step %d", qn, k)
			}
		})
	}
	t.Logf("relative drift of L: %.3g; of E: %.3g", dl, de)
	for _, d := range [][3]float64{dl, de} {
		for j := range 2 {
			if o := math.Log2(d[j] / d[j+1]); o < 0.9 || o > 1.1 {
				t.Errorf("drift %.3g: observed order %.3f, want 1", d, o)
			}
		}
	}
}

// TestFreeFall: gravity (0, 0, −9.81), initial velocity (1, 0, 4): the
// discrete closed form of semi-implicit Euler, v_n = v₀ + nΔt g,
// x_n = x₀ + nΔt v₀ + Δt² g n(n+1)/2 (tolerance 1e-12, rounding over 1000
// steps), and the continuous solution plus ½ g Δt t. The body does not
// spin.
func TestFreeFall(t *testing.T) {
	p := DefaultParams()
	p.Gravity = [3]float64{0, 0, -9.81}
	p.InitialPosition = [3]float64{0, 1, 50}
	p.InitialVelocity = [3]float64{1, 0, 4}
	const dt, steps = 1e-3, 1000
	x := run(t, mustNew(t, p), dt, steps, nil, nil)
	n, tEnd := float64(steps), float64(steps)*dt
	for i := range 3 {
		g := p.Gravity[i]
		wantV := p.InitialVelocity[i] + n*dt*g
		wantX := p.InitialPosition[i] + n*dt*p.InitialVelocity[i] + dt*dt*g*n*(n+1)/2
		if !numtest.Near(x[offVel+i], wantV, 1e-12) || !numtest.Near(x[offPos+i], wantX, 1e-12) {
			t.Errorf("axis %d: x %v v %v, want %v %v", i, x[offPos+i], x[offVel+i], wantX, wantV)
		}
		exact := p.InitialPosition[i] + p.InitialVelocity[i]*tEnd + g*tEnd*tEnd/2
		if !numtest.Near(x[offPos+i]-exact, g*dt*tEnd/2, 1e-11) {
			t.Errorf("axis %d: error %v, want ½gΔt t = %v", i, x[offPos+i]-exact, g*dt*tEnd/2)
		}
	}
	if x[offQuat] != 1 || x[offOmega+2] != 0 {
		t.Errorf("the body turned: q = %v", x[offQuat:offQuat+4])
	}
}

// TestPlanarEquivalence: with constraints {z: 0, rx: 0, ry: 0} and the
// same time-varying loads F = (sin t, cos 2t, 5) N, τ = (0.3, −0.2,
// 0.1 cos t) N·m (their out-of-plane parts must be ignored), this node
// reproduces the rigidbody2d node's (x, y, angle, v_x, v_y, ω) over 1000
// steps of 0.01 s to 1e-12 (the reference is the other node, run side by
// side). The angle is read from q as 2·atan2(q_z, q_w) and compared modulo
// 2π, and q must equal (cos θ/2, 0, 0, sin θ/2) for the 2D angle θ. The
// plane is held exactly: z, v_z, q_x, q_y, ω_x, ω_y are exactly zero at
// every step.
func TestPlanarEquivalence(t *testing.T) {
	const m, izz, dt, steps = 2.0, 1.3, 0.01, 1000
	p := DefaultParams()
	p.Mass = m
	p.Inertia = [3]float64{0.5, 0.7, izz}
	p.Gravity = [3]float64{0, -9.81, 3} // the z part is held off by the constraint
	p.InitialPosition = [3]float64{0.5, 2, 7}
	p.InitialVelocity = [3]float64{1, 3, -2}
	p.InitialAngularVelocity = [3]float64{0.4, -0.1, 2.5}
	p.InitialOrientation = [4]float64{3 * math.Cos(1), 0, 0, 3 * math.Sin(1)} // normalised: a 2 rad turn about z
	p.Constraints = Planar()
	body := mustNew(t, p)

	p2 := rigidbody2d.DefaultParams()
	p2.Mass, p2.Inertia = m, izz
	p2.InitialX, p2.InitialY, p2.InitialVX, p2.InitialVY, p2.InitialOmega, p2.InitialAngle = 0.5, 2, 1, 3, 2.5, 2
	p2.Logger = slog.New(slog.DiscardHandler)
	flat, err := rigidbody2d.New(p2)
	if err != nil {
		t.Fatal(err)
	}

	in3, in2 := body.Spec().DefaultInputs(), flat.Spec().DefaultInputs()
	x3, d3 := make([]float64, stateLen), make([]float64, stateLen)
	x2, d2 := make([]float64, 6), make([]float64, 6)
	body.InitialState(x3)
	flat.InitialState(x2)
	var worst float64
	for k := range steps {
		tn := float64(k) * dt
		f := vec3{math.Sin(tn), math.Cos(2 * tn), 5}
		tau := vec3{0.3, -0.2, 0.1 * math.Cos(tn)}
		copy(in3.Values[inForce:], f[:])
		copy(in3.Values[inTorque:], tau[:])
		in2.Values[0], in2.Values[1], in2.Values[2] = f[0], f[1], tau[2]
		if err := body.Update(tn, dt, x3, in3, d3); err != nil {
			t.Fatal(err)
		}
		if err := flat.Update(tn, dt, x2, in2, d2); err != nil {
			t.Fatal(err)
		}
		x3, d3, x2, d2 = d3, x3, d2, x2

		if x3[offPos+2] != 0 || x3[offVel+2] != 0 || x3[offQuat+1] != 0 || x3[offQuat+2] != 0 || x3[offOmega] != 0 || x3[offOmega+1] != 0 {
			t.Fatalf("step %d left the plane: %v", k, x3)
		}
		theta := x2[2]
		dAngle := 2*math.Atan2(x3[offQuat+3], x3[offQuat]) - theta
		dAngle -= 2 * math.Pi * math.Round(dAngle/(2*math.Pi))
		diffs := []float64{
			x3[offPos] - x2[0], x3[offPos+1] - x2[1], dAngle,
			x3[offVel] - x2[3], x3[offVel+1] - x2[4], x3[offOmega+2] - x2[5],
			x3[offQuat] - math.Cos(theta/2), x3[offQuat+3] - math.Sin(theta/2),
		}
		for _, d := range diffs {
			worst = max(worst, math.Abs(d))
		}
	}
	t.Logf("after %d steps: 2D angle %.6g rad, position (%.6g, %.6g); largest difference %.3g", steps, x2[2], x2[0], x2[1], worst)
	if !numtest.AtMost(worst, 1e-12) {
		t.Errorf("largest difference from rigidbody2d %.3g > 1e-12", worst)
	}
	if math.Abs(x2[2]) < 4*math.Pi {
		t.Errorf("the test should turn the body more than twice (angle %v) to exercise the angle extraction", x2[2])
	}
}

// TestHinge: constraints {rx: 0.3, rz: −0.5} leave a hinge about the
// world axis n = R_z(−0.5)e_y with angle ry. Analytic: under a constant
// torque τ, I_n·d²ry/dt² = n·τ with I_n = (R_x(0.3)ᵀe_y)ᵀ I_b (R_x(0.3)ᵀe_y),
// so semi-implicit Euler gives the discrete closed form
// ry_n = nΔt²α(n+1)/2 (α = n·τ/I_n); the held angles must stay put. Checked
// by reading rx, ry, rz back from q with the Z-Y-X formulas (tolerance
// 1e-12; the angle stays below π/2 so the formulas are regular).
func TestHinge(t *testing.T) {
	p := DefaultParams()
	p.Inertia = [3]float64{1, 2, 3}
	p.Constraints = Constraints{RX: 0.3, RZ: -0.5, X: 1}
	p.InitialPosition = [3]float64{5, 0, 0}
	nd := mustNew(t, p)
	tau := vec3{0.2, 0.4, -0.7}
	const dt, steps = 1e-3, 1000
	x := run(t, nd, dt, steps, func(float64) (vec3, vec3) { return vec3{1, 1, 1}, tau }, nil)

	c, s := math.Cos(0.3), math.Sin(0.3)
	u := vec3{0, c, -s} // R_x(0.3)ᵀ e_y
	in := u[1]*u[1]*2 + u[2]*u[2]*3
	n := vec3{math.Sin(0.5), math.Cos(0.5), 0} // R_z(−0.5) e_y
	alpha := dot(n, tau) / in
	nn := float64(steps)
	wantRY := dt * dt * alpha * nn * (nn + 1) / 2

	q := quat(x[offQuat : offQuat+4])
	w, qx, qy, qz := q[0], q[1], q[2], q[3]
	rx := math.Atan2(2*(w*qx+qy*qz), 1-2*(qx*qx+qy*qy))
	ry := math.Asin(2 * (w*qy - qz*qx))
	rz := math.Atan2(2*(w*qz+qx*qy), 1-2*(qy*qy+qz*qz))
	if !numtest.Near(rx, 0.3, 1e-12) || !numtest.Near(rz, -0.5, 1e-12) || !numtest.Near(ry, wantRY, 1e-12) {
		t.Errorf("angles (%v, %v, %v), want (0.3, %v, −0.5)", rx, ry, rz, wantRY)
	}
	if x[offPos] != 1 || x[offVel] != 0 {
		t.Errorf("held x: %v, v_x %v", x[offPos], x[offVel])
	}
	wn := nn * dt * alpha
	for i := range 3 {
		if !numtest.Near(x[offOmega+i], n[i]*wn, 1e-12) {
			t.Errorf("ω = %v, want %v·n", x[offOmega:], wn)
			break
		}
	}
}

// TestFixedOrientation: all three rotations held: q is exactly the Z-Y-X
// orientation and ω exactly zero whatever the torque.
func TestFixedOrientation(t *testing.T) {
	p := DefaultParams()
	p.Constraints = Constraints{RX: 0.1, RY: 0.2, RZ: 0.3}
	p.InitialAngularVelocity = [3]float64{1, 2, 3}
	nd := mustNew(t, p)
	want := qmul(qaxis(2, 0.3), qmul(qaxis(1, 0.2), qaxis(0, 0.1)))
	x := run(t, nd, 0.01, 100, func(float64) (vec3, vec3) { return vec3{}, vec3{5, -5, 5} }, nil)
	if quat(x[offQuat:offQuat+4]) != want || x[offOmega] != 0 || x[offOmega+1] != 0 || x[offOmega+2] != 0 {
		t.Errorf("q = %v, ω = %v; want %v, 0", x[offQuat:offQuat+4], x[offOmega:], want)
	}
}

// TestUpdateScheme ties Metadata.Discretization to the code: position,
// velocity and angular velocity equal semi-implicit Euler on Derivatives
// bit for bit; the orientation equals exp(½Δt ω⁺) ⊗ q normalised (built
// here from the axis-angle formula, tolerance 1e-15), and (q⁺ − q)/Δt
// tends to Derivatives' dq/dt (error ≤ 10·Δt for Δt = 1e-6).
func TestUpdateScheme(t *testing.T) {
	if spec.Meta.Discretization != "semi-implicit-euler-lie" {
		t.Fatal(spec.Meta.Discretization)
	}
	p := DefaultParams()
	p.Inertia = [3]float64{1, 2, 3}
	p.InitialOrientation = [4]float64{0.8, 0.1, -0.4, 0.3}
	p.InitialAngularVelocity = [3]float64{0.7, -1.2, 0.4}
	p.InitialVelocity = [3]float64{1, 2, 3}
	p.Gravity = [3]float64{0, 0, -9.81}
	nd := mustNew(t, p)
	in := nd.Spec().DefaultInputs()
	copy(in.Values, []float64{0.3, -0.6, 2, 0.1, 0.2, -0.3})
	x := make([]float64, stateLen)
	nd.InitialState(x)
	for _, dt := range []float64{0.01, 1e-6} {
		got, f := make([]float64, stateLen), make([]float64, stateLen)
		if err := nd.Update(0, dt, x, in, got); err != nil {
			t.Fatal(err)
		}
		if err := nd.Derivatives(0, x, in, f); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			wantV := x[offVel+i] + dt*f[offVel+i]
			wantW := x[offOmega+i] + dt*f[offOmega+i]
			wantX := x[offPos+i] + dt*wantV
			if got[offVel+i] != wantV || got[offOmega+i] != wantW || got[offPos+i] != wantX {
				t.Errorf("dt %v component %d: Update (%v %v %v), SIE (%v %v %v)", dt, i, got[offPos+i], got[offVel+i], got[offOmega+i], wantX, wantV, wantW)
			}
		}
		w1 := vec3(got[offOmega : offOmega+3])
		ang := math.Sqrt(dot(w1, w1)) * dt
		ax := vec3{w1[0] * dt / ang, w1[1] * dt / ang, w1[2] * dt / ang}
		dq := quat{math.Cos(ang / 2), math.Sin(ang/2) * ax[0], math.Sin(ang/2) * ax[1], math.Sin(ang/2) * ax[2]}
		want := qunit(qmul(dq, quat(x[offQuat:offQuat+4])))
		for i := range 4 {
			if !numtest.Near(got[offQuat+i], want[i], 1e-15) {
				t.Errorf("dt %v: q⁺ = %v, want %v", dt, got[offQuat:offQuat+4], want)
				break
			}
			if dt == 1e-6 {
				if d := (got[offQuat+i] - x[offQuat+i]) / dt; !numtest.Within(d, f[offQuat+i], 10*dt) {
					t.Errorf("(q⁺−q)/Δt = %v, dq/dt = %v", d, f[offQuat+i])
				}
			}
		}
	}
}

// TestDerivativesHonoursSetParams: after SetParams the right-hand side uses
// the new mass and inertia: F = (2, 0, 0) on m = 4 gives 0.5; τ = (0, 0, 6)
// on I₃ = 3 at rest with q = identity gives dω/dt = (0, 0, 2), exact.
func TestDerivativesHonoursSetParams(t *testing.T) {
	nd := mustNew(t, DefaultParams())
	if err := nd.SetParams(map[string]any{"mass": 4, "inertia": []any{1, 2, 3}}); err != nil {
		t.Fatal(err)
	}
	in := nd.Spec().DefaultInputs()
	in.Values[inForce], in.Values[inTorque+2] = 2, 6
	x := make([]float64, stateLen)
	nd.InitialState(x)
	f := make([]float64, stateLen)
	if err := nd.Derivatives(0, x, in, f); err != nil {
		t.Fatal(err)
	}
	if f[offVel] != 0.5 || f[offOmega] != 0 || f[offOmega+1] != 0 || f[offOmega+2] != 2 {
		t.Errorf("Derivatives = %v", f)
	}
	// With a full inertia matrix diag(1, 2, 3) rotated by 90° about x (so
	// the body z axis is world −y), the same result comes from a torque
	// about y: τ = (0, −6, 0) gives dω/dt = (0, −2, 0).
	if err := nd.SetParams(map[string]any{"inertia_matrix": []float64{1, 0, 0, 0, 2, 0, 0, 0, 3}, "initial_orientation": []float64{1, 1, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	nd.InitialState(x)
	in.Values[inTorque+1], in.Values[inTorque+2] = -6, 0
	if err := nd.Derivatives(0, x, in, f); err != nil {
		t.Fatal(err)
	}
	if !numtest.Near(f[offOmega], 0, 1e-15) || !numtest.Near(f[offOmega+1], -2, 1e-15) || !numtest.Near(f[offOmega+2], 0, 1e-15) {
		t.Errorf("rotated body: dω/dt = %v, want (0, −2, 0)", f[offOmega:])
	}
	for _, dt := range []float64{math.NaN(), math.Inf(1)} {
		if err := nd.Update(0, dt, x, in, f); !errors.Is(err, node.ErrNonFinite) {
			t.Errorf("dt = %v: %v", dt, err)
		}
	}
}

// TestMarker: for q = 90° about z and r = (1, 0, 0) the point is at
// x + (0, 1, 0); with ω = (0, 0, 2) its velocity adds (−2, 0, 0); a force
// (0, 0, 3) at it gives the torque (R r) × f = (3, 0, 0). Tolerance 1e-15
// (sin and cos of π/4). The position Jacobian and the velocity Jacobian
// are checked against central differences of MarkerKinematics over all 13
// inputs at a generic, non-unit q (h = 1e-6, tolerance 1e-8: truncation
// is O(h²) and rounding O(1e-16/h)).
func TestMarker(t *testing.T) {
	nd := mustNew(t, DefaultParams())
	var mk node.Marker = nd
	h := math.Sqrt(0.5)
	x := []float64{1, 2, 3, h, 0, 0, h, 0.5, 0, 0, 0, 0, 2}
	var pos, vel [3]float64
	mk.MarkerKinematics(x, [3]float64{1, 0, 0}, &pos, &vel)
	for i, w := range []float64{1, 3, 3} {
		if !numtest.Near(pos[i], w, 1e-15) {
			t.Errorf("pos = %v", pos)
		}
	}
	for i, w := range []float64{-1.5, 0, 0} {
		if !numtest.Near(vel[i], w, 1e-15) {
			t.Errorf("vel = %v", vel)
		}
	}
	load := make([]float64, 6)
	mk.MarkerLoad(x, [3]float64{1, 0, 0}, [3]float64{0, 0, 3}, load)
	for i, w := range []float64{0, 0, 3, 3, 0, 0} {
		if !numtest.Near(load[i], w, 1e-15) {
			t.Errorf("MarkerLoad = %v", load)
		}
	}
	if got := mk.MarkerFields(); strings.Join(got, ",") != "position,orientation,velocity,angular_velocity" {
		t.Errorf("MarkerFields = %v", got)
	}
	if got := mk.MarkerLoads(); strings.Join(got, ",") != "force,torque" {
		t.Errorf("MarkerLoads = %v", got)
	}

	x = []float64{0.3, -1, 2, 0.9, 0.35, -0.4, 0.2, 1, 2, 3, 0.7, -0.5, 1.1}
	local := [3]float64{0.4, -0.7, 1.2}
	jp, jv := make([]float64, 3*stateLen), make([]float64, 3*stateLen)
	mk.MarkerJacobian(x, local, jp)
	nd.MarkerVelocityJacobian(x, local, jv)
	const eps = 1e-6
	for j := range stateLen {
		xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
		xp[j] += eps
		xm[j] -= eps
		var pp, pm, vp, vm [3]float64
		mk.MarkerKinematics(xp, local, &pp, &vp)
		mk.MarkerKinematics(xm, local, &pm, &vm)
		for i := range 3 {
			if fd := (pp[i] - pm[i]) / (2 * eps); !numtest.Near(jp[i*stateLen+j], fd, 1e-8) {
				t.Errorf("∂pos[%d]/∂x[%d] = %v, finite difference %v", i, j, jp[i*stateLen+j], fd)
			}
			if fd := (vp[i] - vm[i]) / (2 * eps); !numtest.Near(jv[i*stateLen+j], fd, 1e-8) {
				t.Errorf("∂vel[%d]/∂x[%d] = %v, finite difference %v", i, j, jv[i*stateLen+j], fd)
			}
		}
	}
}

func benchmarkUpdate(b *testing.B, p Params) {
	nd := mustNew(b, p)
	in := nd.Spec().DefaultInputs()
	in.Values[inTorque] = 0.1
	x, dst := make([]float64, stateLen), make([]float64, stateLen)
	nd.InitialState(x)
	b.ReportAllocs()
	for b.Loop() {
		if err := nd.Update(0, 1e-3, x, in, dst); err != nil {
			b.Fatal(err)
		}
		x, dst = dst, x
	}
}

func BenchmarkUpdate(b *testing.B) {
	b.Run("free", func(b *testing.B) {
		p := DefaultParams()
		p.Inertia = [3]float64{1, 2, 3}
		p.InitialAngularVelocity = [3]float64{1, 0.5, 0.8}
		benchmarkUpdate(b, p)
	})
	b.Run("planar", func(b *testing.B) {
		p := DefaultParams()
		p.Constraints = Planar()
		p.InitialAngularVelocity = [3]float64{0, 0, 1}
		benchmarkUpdate(b, p)
	})
}

// TestDerivativesUnequalMoments: at ω = 0 the Newton–Euler rates reduce
// to closed forms with no gyroscopic term: ṗ = v, v̇ = F/m + g, q̇ = 0 and,
// with the identity orientation, ω̇_i = τ_i / I_i. Unequal moments
// (2, 3, 4), a mass of 2 and a velocity with three distinct components
// make every component's own divisor and source visible (a default unit
// inertia would hide 1/I turned into I). Tolerance 1e-15: one rounded
// division per rate.
func TestDerivativesUnequalMoments(t *testing.T) {
	n := mustNew(t, Params{Mass: 2, Inertia: [3]float64{2, 3, 4}, Gravity: [3]float64{0, 0, -9.81}, InitialOrientation: [4]float64{1, 0, 0, 0}})
	in := n.Spec().DefaultInputs()
	copy(in.Values[inForce:], []float64{2, 4, 6})
	copy(in.Values[inTorque:], []float64{1, 1, 1})
	x := make([]float64, stateLen)
	n.InitialState(x)
	copy(x[offPos:], []float64{5, 6, 7})
	copy(x[offVel:], []float64{1, 2, 3})
	dst := make([]float64, stateLen)
	if err := n.Derivatives(0, x, in, dst); err != nil {
		t.Fatal(err)
	}
	want := [stateLen]float64{}
	copy(want[offPos:], []float64{1, 2, 3})
	copy(want[offVel:], []float64{1, 2, 3 - 9.81})
	copy(want[offOmega:], []float64{1.0 / 2, 1.0 / 3, 1.0 / 4})
	for i := range stateLen {
		if !numtest.Within(dst[i], want[i], 1e-15) {
			t.Errorf("rate[%d] = %v, want %v (all %v)", i, dst[i], want[i], dst)
		}
	}
}

// TestHeldTranslationInitialState: the Constraints contract says a held
// coordinate replaces the initial one and its rate is zero. Holding y at
// 2 and z at −1 with InitialPosition (1, 5, 6) and InitialVelocity
// (1, 2, 3) must start at position (1, 2, −1) and velocity (1, 0, 0),
// and leave the orientation as given (a unit quaternion with no zero
// component, so an entry written at a wrong offset shows). Exact: the
// values are copied.
func TestHeldTranslationInitialState(t *testing.T) {
	q := [4]float64{0.5, 0.5, -0.5, 0.5}
	n := mustNew(t, Params{Mass: 1, Inertia: [3]float64{1, 1, 1}, InitialPosition: [3]float64{1, 5, 6}, InitialVelocity: [3]float64{1, 2, 3},
		InitialOrientation: q, Constraints: Constraints{Y: 2, Z: -1}})
	x := make([]float64, stateLen)
	n.InitialState(x)
	want := [stateLen]float64{}
	copy(want[offPos:], []float64{1, 2, -1})
	copy(want[offQuat:], q[:])
	copy(want[offVel:], []float64{1, 0, 0})
	if [stateLen]float64(x) != want {
		t.Errorf("initial state %v, want %v", x, want)
	}
}

// TestMarkerJacobianOverwrites: MarkerJacobian writes the whole 3 × 13
// matrix ∂pos/∂x, so the entries that are zero by the formula (∂pos_i/
// ∂pos_j for i ≠ j, and every velocity and angular-velocity column: the
// marker's position does not depend on them) must be zero even when the
// caller's buffer holds old values (here NaN), as a connector reusing
// its buffer across steps has.
func TestMarkerJacobianOverwrites(t *testing.T) {
	n := mustNew(t, Params{Mass: 1, Inertia: [3]float64{1, 1, 1}, InitialOrientation: [4]float64{1, 0, 0, 0}})
	x := make([]float64, stateLen)
	n.InitialState(x)
	qr := qunit(quat{0.8, 0.3, -0.4, 0.35})
	copy(x[offQuat:], qr[:])
	dst := make([]float64, 3*stateLen)
	for i := range dst {
		dst[i] = math.NaN()
	}
	n.MarkerJacobian(x, [3]float64{0.3, -0.2, 0.5}, dst)
	for i := range 3 {
		for j := range stateLen {
			v := dst[i*stateLen+j]
			switch {
			case j < 3 && j == i && v != 1:
				t.Errorf("∂pos[%d]/∂pos[%d] = %v, want 1", i, j, v)
			case j < 3 && j != i && v != 0, j >= offVel && v != 0:
				t.Errorf("∂pos[%d]/∂x[%d] = %v, want 0", i, j, v)
			case math.IsNaN(v):
				t.Errorf("∂pos[%d]/∂x[%d] left unwritten", i, j)
			}
		}
	}
}

// TestConstraintsStringRoundTrips: String gives the shortest exact
// representation of each held value, so parsing it back gives the same
// constraints bit for bit (values with 17 significant digits).
func TestConstraintsStringRoundTrips(t *testing.T) {
	c := Constraints{X: 0.1234567890123456, RZ: -2.718281828459045, Z: 1e-7}
	s := c.String()
	back, err := ParseConstraints(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(c) {
		t.Fatalf("%q parses to %v, want %v", s, back, c)
	}
	for a, v := range c {
		if back[a] != v {
			t.Errorf("%q: %s = %v, want %v", s, a, back[a], v)
		}
	}
}
