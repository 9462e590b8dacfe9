package springdamper_test

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/rigidbody"
	"github.com/cosimgo/cosim/nodes/rigidbody2d"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

func value(t *testing.T, sim *graph.Sim, path string) []float64 {
	t.Helper()
	v, err := sim.Value(path)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func step(t *testing.T, sim *graph.Sim, dt float64) {
	t.Helper()
	if err := sim.Step(dt); err != nil {
		t.Fatal(err)
	}
}

// TestMomentum: two free mass points joined by a connector keep their
// total linear momentum over 10 000 steps, with and without damping: the
// forces are equal and opposite (Newton's third law), and each step of
// semi-implicit Euler changes m·v by Δt·F exactly up to round-off. The
// deviation is a sum of ≤ 10⁴ round-offs of size ε·m|v| ≈ 2e-16·m|v|,
// so ≤ 2e-12·scale in the worst case; tolerance 1e-11 relative to
// Σ m|v|max.
func TestMomentum(t *testing.T) {
	for _, damping := range [][3]float64{{}, {3, 5, 7}} {
		g := graph.New()
		m0, m1 := 1.5, 4.0
		g.Add("a", newMass(t, m0, [3]float64{0, 0, 0}, [3]float64{1, -2, 0.5}))
		g.Add("b", newMass(t, m1, [3]float64{1, 0.5, -0.3}, [3]float64{-0.2, 0.3, 1}))
		p := springdamper.DefaultParams()
		p.Stiffness, p.Damping, p.Offset = [3]float64{100, 250, 60}, damping, [3]float64{0.8, 0, 0.1}
		if _, err := springdamper.Connect(g, "sd", p, node.Body("a"), node.Body("b")); err != nil {
			t.Fatal(err)
		}
		sim, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		momentum := func() (p [3]float64, scale float64) {
			va, vb := value(t, sim, "a.velocity"), value(t, sim, "b.velocity")
			for i := range 3 {
				p[i] = m0*va[i] + m1*vb[i]
				scale += math.Abs(m0*va[i]) + math.Abs(m1*vb[i])
			}
			return p, scale
		}
		p0, scale := momentum()
		worst, moved := 0.0, 0.0
		for range 10000 {
			step(t, sim, 1e-3)
			pn, s := momentum()
			scale = max(scale, s)
			for i := range 3 {
				worst = max(worst, math.Abs(pn[i]-p0[i]))
			}
			moved = max(moved, math.Abs(value(t, sim, "sd.force")[0]))
		}
		t.Logf("damping %v: max |ΔP| = %.3g over 10000 steps (scale %.3g, max |f_x| %.3g)", damping, worst, scale, moved)
		if !numtest.AtMost(worst, 1e-11*scale) || moved == 0 {
			t.Errorf("damping %v: momentum drifted by %.3g (scale %.3g)", damping, worst, scale)
		}
	}
}

// angularMomentum is Σ x × m v + I_w ω about the world origin for one
// rigid body (inertia diag(ib) in the body frame) and one mass point.
func angularMomentum(t *testing.T, sim *graph.Sim, mBody float64, ib [3]float64, mPoint float64) [3]float64 {
	xb, vb := vec3(value(t, sim, "body.position")), vec3(value(t, sim, "body.velocity"))
	q, w := value(t, sim, "body.orientation"), vec3(value(t, sim, "body.angular_velocity"))
	xp, vp := vec3(value(t, sim, "p.position")), vec3(value(t, sim, "p.velocity"))
	rot := rotation([4]float64{q[0], q[1], q[2], q[3]})
	// I_w ω = R I_b Rᵀ ω.
	var wb, lb, lw [3]float64
	for i := range 3 {
		wb[i] = rot[i]*w[0] + rot[3+i]*w[1] + rot[6+i]*w[2]
	}
	for i := range 3 {
		lb[i] = ib[i] * wb[i]
	}
	for i := range 3 {
		lw[i] = rot[3*i]*lb[0] + rot[3*i+1]*lb[1] + rot[3*i+2]*lb[2]
	}
	c1 := cross(xb, [3]float64{mBody * vb[0], mBody * vb[1], mBody * vb[2]})
	c2 := cross(xp, [3]float64{mPoint * vp[0], mPoint * vp[1], mPoint * vp[2]})
	return [3]float64{c1[0] + c2[0] + lw[0], c1[1] + c2[1] + lw[1], c1[2] + c2[2] + lw[2]}
}

// runAngular joins a 6-DOF rigid body, at a body-fixed point off its
// centre, to a mass point with an isotropic, undamped, zero-offset
// connector (a central force) and returns the largest drift of the total
// angular momentum over steps steps, relative to its initial magnitude.
func runAngular(t *testing.T, ib [3]float64, dt float64, steps int) float64 {
	g := graph.New()
	bp := rigidbody.DefaultParams()
	bp.Mass, bp.Inertia = 2, ib
	bp.InitialVelocity, bp.InitialAngularVelocity = [3]float64{0.3, -0.1, 0.2}, [3]float64{1, -2, 0.5}
	bp.InitialOrientation = [4]float64{0.9, 0.1, -0.3, 0.2}
	g.Add("body", newBody3D(t, bp))
	g.Add("p", newMass(t, 0.7, [3]float64{1, 0.4, -0.5}, [3]float64{-0.5, 0.8, 0.1}))
	p := springdamper.DefaultParams()
	p.Stiffness = [3]float64{80, 80, 80}
	if _, err := springdamper.Connect(g, "sd", p, node.BodyAt("body", [3]float64{0.3, -0.2, 0.1}), node.Body("p")); err != nil {
		t.Fatal(err)
	}
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	l0 := angularMomentum(t, sim, 2, ib, 0.7)
	n0 := math.Sqrt(l0[0]*l0[0] + l0[1]*l0[1] + l0[2]*l0[2])
	worst := 0.0
	for range steps {
		step(t, sim, dt)
		l := angularMomentum(t, sim, 2, ib, 0.7)
		for i := range 3 {
			worst = max(worst, math.Abs(l[i]-l0[i])/n0)
		}
	}
	return worst
}

// TestAngularMomentum: with a body-fixed marker on a 6-DOF rigid body and
// a central connector force, total angular momentum about the origin is
// conserved. Semi-implicit Euler changes Σ x × m v by Δt·Σ x_n × F_n
// exactly, and the body's I ω by Δt·τ_n with τ_n = (R r) × f; the sum is
// Δt·(p_marker − p_point) × f = 0 for f ∥ Δp. With an isotropic body
// (I_w = I·1, no gyroscopic term) the body's update is exact too, so the
// drift is round-off: tolerance 1e-12 over 10⁴ steps. With an anisotropic
// body the body's explicit Euler step of Euler's equations is first order
// (its own scheme, not the connector): the drift is O(Δt) and halves with
// Δt (ratio within [1.8, 2.2]).
func TestAngularMomentum(t *testing.T) {
	iso := runAngular(t, [3]float64{0.5, 0.5, 0.5}, 1e-3, 10000)
	t.Logf("isotropic body: max |ΔL|/|L0| = %.3g over 10000 steps", iso)
	if !numtest.AtMost(iso, 1e-12) {
		t.Errorf("isotropic body: angular momentum drift %.3g", iso)
	}
	a1 := runAngular(t, [3]float64{0.3, 0.5, 0.7}, 1e-3, 2000)
	a2 := runAngular(t, [3]float64{0.3, 0.5, 0.7}, 5e-4, 4000)
	t.Logf("anisotropic body to t = 2 s: drift %.3g (dt 1e-3), %.3g (dt 5e-4), ratio %.3f", a1, a2, a1/a2)
	if ratio := a1 / a2; !(ratio >= 1.8 && ratio <= 2.2) || !numtest.AtMost(a1, 1e-2) {
		t.Errorf("anisotropic body: drift %.3g, %.3g: not first order", a1, a2)
	}
}

// TestChainEigenfrequencies: three mass points between two walls (ground
// markers), joined by four connectors, oscillate in mode j at
// ω_j = 2√(k/m)·sin(jπ/(2(N+1))) (N = 3; the classic fixed-fixed chain).
// The co-simulation is semi-implicit Euler on the whole chain, whose
// discrete frequency is ω_d = (2/Δt)·asin(ω_j Δt/2) ≈ ω_j(1 + (ω_jΔt)²/24):
// the measured frequency (zero crossings of the modal coordinate, with
// linear interpolation, over ≥ 10 periods) must equal ω_d to 1e-7 and ω_j
// within (ω_jΔt)²/24 + 1e-7 (≤ 1.5e-5 for the highest mode at Δt = 1e-3).
func TestChainEigenfrequencies(t *testing.T) {
	const (
		n  = 3
		k  = 100.0
		m  = 1.0
		a  = 0.5 // spacing = rest length (offset)
		dt = 1e-3
		A  = 0.01
	)
	for j := 1; j <= n; j++ {
		g := graph.New()
		names := []string{""}
		for i := 1; i <= n; i++ {
			x := float64(i)*a + A*math.Sin(float64(i*j)*math.Pi/(n+1))
			name := string(rune('a' + i - 1))
			g.Add(name, newMass(t, m, [3]float64{x, 0, 0}, [3]float64{}))
			names = append(names, name)
		}
		names = append(names, "")
		p := springdamper.DefaultParams()
		p.Stiffness, p.Offset = [3]float64{k, k, k}, [3]float64{a, 0, 0}
		for i := 0; i <= n; i++ {
			l0, l1 := [3]float64{}, [3]float64{}
			if i == 0 {
				l0 = [3]float64{0, 0, 0} // the left wall
			}
			if i == n {
				l1 = [3]float64{(n + 1) * a, 0, 0} // the right wall
			}
			if _, err := springdamper.Connect(g, "s"+string(rune('0'+i)), p, node.BodyAt(names[i], l0), node.BodyAt(names[i+1], l1)); err != nil {
				t.Fatal(err)
			}
		}
		sim, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		omega := 2 * math.Sqrt(k/m) * math.Sin(float64(j)*math.Pi/(2*(n+1)))
		modal := func() float64 {
			var q float64
			for i := 1; i <= n; i++ {
				q += (value(t, sim, names[i]+".position")[0] - float64(i)*a) * math.Sin(float64(i*j)*math.Pi/(n+1))
			}
			return q
		}
		steps := int(math.Ceil(12 * 2 * math.Pi / omega / dt))
		var crossings []float64
		prev := modal()
		for s := 1; s <= steps; s++ {
			step(t, sim, dt)
			q := modal()
			if (prev < 0) != (q < 0) {
				crossings = append(crossings, (float64(s-1)+prev/(prev-q))*dt)
			}
			prev = q
		}
		half := (crossings[len(crossings)-1] - crossings[0]) / float64(len(crossings)-1)
		measured := math.Pi / half
		discrete := 2 / dt * math.Asin(omega*dt/2)
		t.Logf("mode %d: ω analytic %.9f, discrete %.9f, measured %.9f (rel. to analytic %.3g, to discrete %.3g, %d crossings)",
			j, omega, discrete, measured, measured/omega-1, measured/discrete-1, len(crossings))
		if !near(measured/discrete, 1, 1e-7) || !numtest.Within(measured/omega, 1, (omega*dt)*(omega*dt)/24+1e-7) {
			t.Errorf("mode %d: measured ω %.9f, analytic %.9f, discrete %.9f", j, measured, omega, discrete)
		}
	}
}

// TestPendulum: a planar rigid body hanging from a stiff connector at a
// point d above its centre of mass swings like a physical pendulum,
// T = 2π√(I_pivot/(m g d)), I_pivot = I_cm + m d², times the finite-
// amplitude factor 1 + θ0²/16. Error budget: the connector's compliance
// lengthens the pendulum by m g/k = 9.8e-6 m (2e-5 of d) and its
// dynamics couple at (ω/ω_c)² ≈ 4e-6; the step's frequency error
// (ωΔt)²/24 is 6e-10; the series truncation θ0⁴ ≈ 1e-7. Tolerance 1e-4
// relative.
func TestPendulum(t *testing.T) {
	const (
		m, icm, d = 1.0, 0.1, 0.5
		g0        = 9.81
		k         = 1e6
		theta0    = 0.02
		dt        = 1e-4
	)
	bp := rigidbody2d.DefaultParams()
	bp.Mass, bp.Inertia, bp.Gravity = m, icm, [2]float64{0, -g0}
	// The pivot, body point (0, d), sits at the world origin: x = −R(θ0)(0, d).
	bp.InitialAngle = theta0
	bp.InitialX, bp.InitialY = d*math.Sin(theta0), -d*math.Cos(theta0)
	gr := graph.New()
	gr.Add("body", newBody2D(t, bp))
	p := springdamper.DefaultParams()
	p.Stiffness = [3]float64{k, k, k}
	if _, err := springdamper.Connect(gr, "pivot", p, node.GroundAt([3]float64{}), node.BodyAt("body", [3]float64{0, d, 0})); err != nil {
		t.Fatal(err)
	}
	sim, err := gr.Build()
	if err != nil {
		t.Fatal(err)
	}
	ipivot := icm + m*d*d
	want := 2 * math.Pi * math.Sqrt(ipivot/(m*g0*d)) * (1 + theta0*theta0/16)
	steps := int(5.5 * want / dt)
	var crossings []float64
	prev := value(t, sim, "body.angle")[0]
	for s := 1; s <= steps; s++ {
		step(t, sim, dt)
		a := value(t, sim, "body.angle")[0]
		if (prev < 0) != (a < 0) {
			crossings = append(crossings, (float64(s-1)+prev/(prev-a))*dt)
		}
		prev = a
	}
	got := 2 * (crossings[len(crossings)-1] - crossings[0]) / float64(len(crossings)-1)
	stretch := value(t, sim, "pivot.distance")[0]
	t.Logf("period %.7f s, physical pendulum %.7f s, relative error %.3g (%d crossings); connector stretch %.3g m", got, want, got/want-1, len(crossings), stretch)
	if !near(got/want, 1, 1e-4) {
		t.Errorf("period %.7f s, want %.7f s", got, want)
	}
}
