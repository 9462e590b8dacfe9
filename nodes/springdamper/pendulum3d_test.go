package springdamper_test

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/rigidbody"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// TestPendulum3D: a 6-DOF rigid body hanging from a stiff connector at a
// body point d above its centre of mass swings like a physical pendulum,
// T = 2π√(I_pivot/(m g d)), I_pivot = I_cm + m d², times the finite-
// amplitude factor 1 + θ0²/16 — the same reference as TestPendulum for the
// planar body, with the same error budget: the connector's compliance
// lengthens the pendulum by m g/k = 9.8e-6 m (2e-5 of d) and couples at
// (ω/ω_c)² ≈ 4e-6; the step's frequency error (ωΔt)²/24 is 6e-10; the
// series truncation θ0⁴ ≈ 1e-7. Tolerance 1e-4 relative. Three bodies:
//
//   - planar, constraints {z: 0, rx: 0, ry: 0} (the rigidbody2d
//     replacement), swinging about z;
//   - free (no constraints), swinging about z: the motion starts in the
//     x-y plane with principal axes along the world axes, so it stays
//     there (checked: the out-of-plane position and rotation stay below
//     1e-12);
//   - a gimbal, constraints {rz: 0} (one held rotation), swinging about x
//     in the y-z plane with I_cm = I_xx.
//
// The swing angle is read from the quaternion, 2·atan2(q_axis, q_w), and
// the period from its zero crossings over 5.5 periods.
func TestPendulum3D(t *testing.T) {
	const (
		m, d   = 1.0, 0.5
		g0     = 9.81
		k      = 1e6
		theta0 = 0.02
		dt     = 1e-4
	)
	cases := []struct {
		name        string
		constraints rigidbody.Constraints
		axis        int // world axis the body swings about: 0 x, 2 z
		inertia     [3]float64
	}{
		{"planar", rigidbody.Planar(), 2, [3]float64{0.3, 0.2, 0.1}},
		{"free", nil, 2, [3]float64{0.3, 0.2, 0.1}},
		{"gimbal rz=0", rigidbody.Constraints{rigidbody.RZ: 0}, 0, [3]float64{0.1, 0.3, 0.2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			icm := c.inertia[c.axis]
			bp := rigidbody.DefaultParams()
			bp.Mass, bp.Inertia, bp.Gravity = m, c.inertia, [3]float64{0, -g0, 0}
			bp.Constraints = c.constraints
			// Turned by θ0 about the swing axis; the pivot, body point
			// (0, d, 0), sits at the world origin: x = −R(θ0)(0, d, 0).
			s, co := math.Sincos(theta0 / 2)
			bp.InitialOrientation = [4]float64{co, 0, 0, 0}
			bp.InitialOrientation[1+c.axis] = s
			if c.axis == 2 {
				bp.InitialPosition = [3]float64{d * math.Sin(theta0), -d * math.Cos(theta0), 0}
			} else {
				bp.InitialPosition = [3]float64{0, -d * math.Cos(theta0), -d * math.Sin(theta0)}
			}
			gr := graph.New()
			gr.Add("body", newBody3D(t, bp))
			p := springdamper.DefaultParams()
			p.Stiffness = [3]float64{k, k, k}
			if _, err := springdamper.Connect(gr, "pivot", p, node.GroundAt([3]float64{}), node.BodyAt("body", [3]float64{0, d, 0})); err != nil {
				t.Fatal(err)
			}
			sim, err := gr.Build()
			if err != nil {
				t.Fatal(err)
			}
			// The pivot starts at the origin: the spring is relaxed, and
			// sags by m g/k once the body hangs from it.
			if dist := value(t, sim, "pivot.distance")[0]; !numtest.AtMost(dist, 1e-15) {
				t.Fatalf("the pivot starts %.3g m from the body point", dist)
			}
			angle := func() float64 {
				q := value(t, sim, "body.orientation")
				return 2 * math.Atan2(q[1+c.axis], q[0])
			}
			ipivot := icm + m*d*d
			want := 2 * math.Pi * math.Sqrt(ipivot/(m*g0*d)) * (1 + theta0*theta0/16)
			steps := int(5.5 * want / dt)
			var crossings []float64
			prev := angle()
			outOfPlane := 0.0
			for n := 1; n <= steps; n++ {
				step(t, sim, dt)
				a := angle()
				if (prev < 0) != (a < 0) {
					crossings = append(crossings, (float64(n-1)+prev/(prev-a))*dt)
				}
				prev = a
				if c.name == "free" {
					x, q, w := value(t, sim, "body.position"), value(t, sim, "body.orientation"), value(t, sim, "body.angular_velocity")
					outOfPlane = max(outOfPlane, math.Abs(x[2]), math.Abs(q[1]), math.Abs(q[2]), math.Abs(w[0]), math.Abs(w[1]))
				}
			}
			got := 2 * (crossings[len(crossings)-1] - crossings[0]) / float64(len(crossings)-1)
			stretch := value(t, sim, "pivot.distance")[0]
			t.Logf("period %.7f s, physical pendulum %.7f s, relative error %.3g (%d crossings); connector stretch %.3g m; out of plane %.3g",
				got, want, got/want-1, len(crossings), stretch, outOfPlane)
			if !near(got/want, 1, 1e-4) {
				t.Errorf("period %.7f s, want %.7f s", got, want)
			}
			if !numtest.AtMost(outOfPlane, 1e-12) {
				t.Errorf("the free body left the x-y plane by %.3g", outOfPlane)
			}
		})
	}
}
