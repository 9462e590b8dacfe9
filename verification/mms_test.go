package verification

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/nodes/rigidbody2d"
)

// The observed-order bound: |p − declared| ≤ orderTol over the finest
// pair of the 100/200/400/800 ladder. The asymptotic range is reached
// there for these smooth, O(1) manufactured solutions: the next term of
// the error expansion changes p by O(dt) ≈ 1e-3.
const orderTol = 0.1

func mustNew(typ string, params map[string]any) func() (node.Node, error) {
	reg := nodes.Registry()
	return func() (node.Node, error) { return reg.New(typ, params) }
}

func declared(t *testing.T, newNode func() (node.Node, error)) float64 {
	t.Helper()
	n, err := newNode()
	if err != nil {
		t.Fatal(err)
	}
	return n.Spec().Meta.Order.Temporal
}

func recordOrder(t *testing.T, id, subject, quantity string, p, want float64, method string) {
	t.Helper()
	record(t, Measurement{ID: id, Subject: subject, Quantity: quantity, Value: p, Reference: want,
		Bound: fmt.Sprintf("|p − %s| ≤ %s", fmtG(want), fmtG(orderTol)), Method: method,
		Pass: math.Abs(p-want) <= orderTol})
}

// MADD-VER-010: the ball in the collision-free regime (no table). The
// ball has no force input, so the manufactured acceleration x*” = −cos t
// of x* = cos t is injected as a time-varying gravity with SetParams
// before each step (the seed's method).
func TestMMSBall(t *testing.T) {
	newBall := mustNew("ball", map[string]any{"initial_position": 1.0, "initial_velocity": 0.0})
	m := Manufactured{
		New:   newBall,
		Exact: func(t float64, dst []float64) { dst[0], dst[1] = math.Cos(t), -math.Sin(t) },
		Force: func(n node.Node, t float64, x []float64, in *node.Inputs) error {
			return n.(node.Tunable).SetParams(map[string]any{"gravity": -math.Cos(t)})
		},
		T: 1,
	}
	st, err := m.Run()
	if err != nil {
		t.Fatal(err)
	}
	recordOrder(t, "MADD-VER-010", "ball", "observed temporal order (joint max norm)", st.Joint(), declared(t, newBall),
		"MMS, x* = cos t injected as gravity(t_n) = −cos t_n, no table, T = 1, ladder 100/200/400/800, float64, finest pair")
}

// COSIM-VER-201: the point mass, forcing m·x*” through its additive
// force input, gravity zero.
func TestMMSMassPoint(t *testing.T) {
	const mass = 2.0
	newMP := mustNew("masspoint", map[string]any{"mass": mass, "initial_position": []float64{0, 1, 1}, "initial_velocity": []float64{1, 0, 0}})
	m := Manufactured{
		New: newMP,
		Exact: func(t float64, d []float64) {
			copy(d, []float64{math.Sin(t), math.Cos(2 * t), 1 + t*t, math.Cos(t), -2 * math.Sin(2*t), 2 * t})
		},
		Force: func(n node.Node, t float64, x []float64, in *node.Inputs) error {
			copy(in.Values, []float64{-mass * math.Sin(t), -4 * mass * math.Cos(2*t), 2 * mass})
			return nil
		},
		T: 1,
	}
	st, err := m.Run()
	if err != nil {
		t.Fatal(err)
	}
	recordOrder(t, "COSIM-VER-201", "masspoint", "observed temporal order (joint max norm)", st.Joint(), declared(t, newMP),
		"MMS, x* = (sin t, cos 2t, 1 + t²), force m·x*''(t_n) through the additive force input, T = 1, ladder 100–800")
}

// MADD-VER-011: the planar rigid body, with a manufactured planar
// trajectory and orientation injected as force and torque, gravity zero.
// The joint order is 1 (the declared order). Position and angle alone
// converge at 2 when the manufactured acceleration vanishes at t0 — the
// leading position error of semi-implicit Euler is ½·a(t0)·Δt·T (see
// DiscretizationNotes) — and at 1 otherwise; both are measured.
func TestMMSRigidBody2D(t *testing.T) {
	const mass, inertia = 1.5, 0.7
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	mk := func(x0, y0, vx0, vy0, th0, om0 float64) func() (node.Node, error) {
		return func() (node.Node, error) {
			return rigidbody2d.New(rigidbody2d.Params{Mass: mass, Inertia: inertia, InitialX: x0, InitialY: y0,
				InitialVX: vx0, InitialVY: vy0, InitialAngle: th0, InitialOmega: om0, Logger: quiet})
		}
	}
	// (a) accelerations vanishing at t0: x* = sin t, y* = sin 2t, θ* = sin 3t.
	zero := Manufactured{
		New: mk(0, 0, 1, 2, 0, 3),
		Exact: func(t float64, d []float64) {
			copy(d, []float64{math.Sin(t), math.Sin(2 * t), math.Sin(3 * t), math.Cos(t), 2 * math.Cos(2*t), 3 * math.Cos(3*t)})
		},
		Force: func(n node.Node, t float64, x []float64, in *node.Inputs) error {
			copy(in.Values, []float64{-mass * math.Sin(t), -4 * mass * math.Sin(2*t), -9 * inertia * math.Sin(3*t)})
			return nil
		},
		T: 1,
	}
	// (b) general: x* = cos t, y* = cos 2t, θ* = cos 3t (a(t0) ≠ 0).
	general := zero
	general.New = mk(1, 1, 0, 0, 1, 0)
	general.Exact = func(t float64, d []float64) {
		copy(d, []float64{math.Cos(t), math.Cos(2 * t), math.Cos(3 * t), -math.Sin(t), -2 * math.Sin(2*t), -3 * math.Sin(3*t)})
	}
	general.Force = func(n node.Node, t float64, x []float64, in *node.Inputs) error {
		copy(in.Values, []float64{-mass * math.Cos(t), -4 * mass * math.Cos(2*t), -9 * inertia * math.Cos(3*t)})
		return nil
	}
	want := declared(t, zero.New)
	sz, err := zero.Run()
	if err != nil {
		t.Fatal(err)
	}
	sg, err := general.Run()
	if err != nil {
		t.Fatal(err)
	}
	const method = "MMS, force m·x*'' and torque I·θ*'' through the additive inputs, gravity zero, T = 1, ladder 100–800, float64, finest pair"
	recordOrder(t, "MADD-VER-011", "rigidbody2d", "observed temporal order (joint max norm)", sg.Joint(), want, method+"; x* = (cos t, cos 2t), θ* = cos 3t")
	recordOrder(t, "MADD-VER-011", "rigidbody2d", "observed order of position, acceleration zero at t0", math.Min(sz.Field("x"), sz.Field("angle")), 2,
		method+"; x* = (sin t, sin 2t), θ* = sin 3t (the seed's order-2 regime); minimum of x and angle")
	recordOrder(t, "MADD-VER-011", "rigidbody2d", "observed order of position, acceleration nonzero at t0", math.Max(sg.Field("x"), sg.Field("angle")), 1,
		method+"; x* = (cos t, cos 2t), θ* = cos 3t: the position error is ½·a(t0)·Δt·T, first order; maximum of x and angle")
}

// COSIM-VER-202: the 6-DOF rigid body rotating about a fixed axis n that
// is not principal (inertia diag(1, 2, 3)), θ(t) = sin t, while its centre
// of mass follows x* = (sin t, cos t, t²/2). The torque that makes it a
// solution is τ = I_w·ω̇ + ω × (I_w·ω) with I_w = R·I_b·Rᵀ (Euler's
// equations in the world frame), evaluated at t_n from the manufactured
// solution.
func TestMMSRigidBody(t *testing.T) {
	const mass = 1.5
	ib := [3]float64{1, 2, 3}
	nrm := math.Sqrt(14)
	ax := [3]float64{1 / nrm, 2 / nrm, 3 / nrm}
	quat := func(th float64) [4]float64 {
		s := math.Sin(th / 2)
		return [4]float64{math.Cos(th / 2), s * ax[0], s * ax[1], s * ax[2]}
	}
	newRB := mustNew("rigidbody", map[string]any{
		"mass": mass, "inertia": ib[:], "initial_position": []float64{0, 1, 0},
		"initial_velocity": []float64{1, 0, 0}, "initial_angular_velocity": []float64{ax[0], ax[1], ax[2]},
	})
	m := Manufactured{
		New: newRB,
		Exact: func(t float64, d []float64) {
			q := quat(math.Sin(t))
			w := math.Cos(t)
			copy(d, []float64{math.Sin(t), math.Cos(t), t * t / 2, q[0], q[1], q[2], q[3],
				math.Cos(t), -math.Sin(t), t, w * ax[0], w * ax[1], w * ax[2]})
		},
		Force: func(n node.Node, t float64, x []float64, in *node.Inputs) error {
			th, w, wd := math.Sin(t), math.Cos(t), -math.Sin(t)
			r := rotation(quat(th))
			// I_w = R I_b Rᵀ
			var iw [3][3]float64
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					for k := 0; k < 3; k++ {
						iw[i][j] += r[i][k] * ib[k] * r[j][k]
					}
				}
			}
			om := [3]float64{w * ax[0], w * ax[1], w * ax[2]}
			var iwO, iwD [3]float64
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					iwO[i] += iw[i][j] * om[j]
					iwD[i] += iw[i][j] * wd * ax[j]
				}
			}
			tau := [3]float64{
				iwD[0] + om[1]*iwO[2] - om[2]*iwO[1],
				iwD[1] + om[2]*iwO[0] - om[0]*iwO[2],
				iwD[2] + om[0]*iwO[1] - om[1]*iwO[0],
			}
			copy(in.Values, []float64{-mass * math.Sin(t), -mass * math.Cos(t), mass, tau[0], tau[1], tau[2]})
			return nil
		},
		T: 1,
	}
	st, err := m.Run()
	if err != nil {
		t.Fatal(err)
	}
	recordOrder(t, "COSIM-VER-202", "rigidbody", "observed temporal order (joint max norm)", st.Joint(), declared(t, newRB),
		"MMS, rotation θ = sin t about the fixed non-principal axis (1,2,3)/√14 with inertia diag(1,2,3), x* = (sin t, cos t, t²/2); force m·x*'' and torque I_w·ω̇ + ω×(I_w·ω) through the additive inputs, T = 1, ladder 100–800")
}

// rotation is the rotation matrix of a unit quaternion (w, x, y, z).
func rotation(q [4]float64) [3][3]float64 {
	w, x, y, z := q[0], q[1], q[2], q[3]
	return [3][3]float64{
		{1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y)},
		{2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x)},
		{2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y)},
	}
}
