package verification

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/constant"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/rigidbody"
	"github.com/cosimgo/cosim/nodes/rigidbody2d"
	"github.com/cosimgo/cosim/nodes/spring"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// TestMarkerInverseMass holds every body's node.MarkerMass to its own
// dynamics: with the body at rest (so the marker's acceleration has no
// centripetal or Coriolis part), a unit force along world axis i at the
// marker, turned into the body's inputs by MarkerLoad, must accelerate the
// marker along i by exactly the inverse mass the body states. The marker
// acceleration is read through MarkerKinematics with the velocity fields
// replaced by their derivatives (the marker velocity is linear in them at
// fixed position and orientation), minus the same with no force
// (gravity). Tolerance 1e-12 relative: a few roundings of order-1 values.
func TestMarkerInverseMass(t *testing.T) {
	rb := rigidbody.DefaultParams()
	rb.Mass, rb.Inertia = 2, [3]float64{1, 1.5, 2}
	rb.InitialOrientation = [4]float64{math.Cos(0.3), math.Sin(0.3) * 0.6, 0, math.Sin(0.3) * 0.8}
	rb.Gravity = [3]float64{0, 0, -9.81}
	r2 := rigidbody2d.DefaultParams()
	r2.Mass, r2.Inertia, r2.InitialAngle = 3, 0.7, 0.4
	r2.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	bp := ball.DefaultParams()
	bp.Mass = 4
	bodies := []struct {
		name string
		n    node.Node
	}{
		{"masspoint", must(masspoint.New(masspoint.Params{Mass: 2.5}))},
		{"rigidbody", must(rigidbody.New(rb))},
		{"rigidbody2d", must(rigidbody2d.New(r2))},
		{"ball", must(ball.New(bp))},
	}
	for _, b := range bodies {
		mk := b.n.(node.Marker)
		mm := b.n.(node.MarkerMass)
		s := b.n.Spec()
		x := make([]float64, s.StateLayout.Size())
		b.n.InitialState(x)
		var xm []float64
		var velAt []int // positions in xm of velocity-role fields, with their state offsets
		var velOff []int
		for _, f := range mk.MarkerFields() {
			off := s.StateFieldOffset(f)
			var fd node.Field
			for _, sf := range s.State {
				if sf.Name == f {
					fd = sf
				}
			}
			for j := range fd.Shape.Len() {
				// The rates of the body: velocity-role fields, and a rigid
				// body's angular velocity (no role: it is not the rate of
				// the orientation's coordinates).
				if fd.Role == node.Velocity || f == "angular_velocity" || f == "omega" {
					velAt, velOff = append(velAt, len(xm)), append(velOff, off+j)
				}
				xm = append(xm, x[off+j])
			}
		}
		locals := [][3]float64{{0, 0, 0}, {0.3, -0.2, 0.5}, {1, 0.4, 0}}
		if b.name == "ball" {
			locals = [][3]float64{{0, 0, 1}, {0.6, 0, 0.8}}
		}
		accel := func(local [3]float64, f [3]float64) [3]float64 {
			in := s.DefaultInputs()
			var n int
			for _, l := range mk.MarkerLoads() {
				n += s.Inputs[s.InputLayout.Index(l)].Shape.Len()
			}
			load := make([]float64, n)
			mk.MarkerLoad(xm, local, f, load)
			k := 0
			for _, l := range mk.MarkerLoads() {
				off := s.InputOffset(l)
				for j := range s.Inputs[s.InputLayout.Index(l)].Shape.Len() {
					in.Values[off+j] += load[k]
					k++
				}
			}
			dx := make([]float64, len(x))
			if err := b.n.(node.Deriver).Derivatives(0, x, in, dx); err != nil {
				t.Fatal(err)
			}
			xa := append([]float64(nil), xm...)
			for j, p := range velAt {
				xa[p] = dx[velOff[j]]
			}
			var pos, vel [3]float64
			mk.MarkerKinematics(xa, local, &pos, &vel)
			return vel
		}
		for _, local := range locals {
			var inv [3]float64
			mm.MarkerInverseMass(xm, local, &inv)
			a0 := accel(local, [3]float64{})
			for i := range 3 {
				var f [3]float64
				f[i] = 1
				got := accel(local, f)[i] - a0[i]
				if !numtest.Near(got, inv[i], 1e-12) {
					t.Errorf("%s, local %v, axis %d: unit force accelerates the marker by %v, MarkerInverseMass says %v", b.name, local, i, got, inv[i])
				}
			}
		}
	}
}

// miniExample is the spring-damper mini example of Exudyn's item
// reference ObjectConnectorCartesianSpringDamper (examples/scenes/
// spring-damper.json): a 5 kg mass point hanging from a ground point
// through k = 5000 N/m on every axis and damping [0, 250, 0] N s/m, with a
// constant load [0, −5, 0] N.
func miniExample(t *testing.T) *graph.Graph {
	t.Helper()
	g := graph.New()
	g.Add("mass", must(masspoint.New(masspoint.Params{Mass: 5, InitialPosition: [3]float64{1, 1, 0}})))
	g.Add("load", must(constant.New(constant.Params{Value: [3]float64{0, -5, 0}, Units: "N"})))
	g.Connect("load.value", "mass.force")
	p := springdamper.DefaultParams()
	p.Stiffness, p.Damping = [3]float64{5000, 5000, 5000}, [3]float64{0, 250, 0}
	if _, err := springdamper.Connect(g, "spring", p, node.GroundAt([3]float64{1, 1, 0}), node.Body("mass")); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestStableStepSpringDamper: the connector's stated stable step is the
// damped-oscillator bound of semi-implicit Euler on its stiffest axis,
// (√(c² + 4ω²) − c)/ω² with ω² = k/m = 1000 s⁻² and c = d/m = 50 s⁻¹ on
// y: (√6500 − 50)/1000 = 0.0306226… s (x and z, undamped: 2/√1000 =
// 0.0632 s). The bound is sharp: 2 % below it the run stays bounded over
// 20 s, 2 % above it the displacement grows past 1 m (from 1e-3) within
// 20 s, and at dt = 0.05 s, well above it, the run fails with a
// non-finite value whose error (graph.WithStepHint) names the limit.
func TestStableStepSpringDamper(t *testing.T) {
	want := (math.Sqrt(6500) - 50) / 1000
	s, err := miniExample(t).Build()
	if err != nil {
		t.Fatal(err)
	}
	limits, err := s.StableSteps()
	if err != nil {
		t.Fatal(err)
	}
	if len(limits) != 1 || limits[0].Node != "spring" || !numtest.Near(limits[0].Dt, want, 1e-14) || !strings.Contains(limits[0].Why, "axis y") {
		t.Fatalf("StableSteps = %+v, want one limit of node spring, %v s, on axis y", limits, want)
	}
	if ws, err := s.StepWarnings(0.99 * want); err != nil || len(ws) != 0 {
		t.Errorf("StepWarnings(0.99·limit) = %v, %v; want none", ws, err)
	}
	ws, err := s.StepWarnings(0.05)
	if err != nil || len(ws) != 1 {
		t.Fatalf("StepWarnings(0.05) = %v, %v; want one warning", ws, err)
	}
	msg := ws[0].String()
	for _, w := range []string{"node spring", "dt = 0.05 s", "0.0306 s", "axis y"} {
		if !strings.Contains(msg, w) {
			t.Errorf("warning %q does not contain %q", msg, w)
		}
	}
	// allow lets the growth run on (graph.CoSimulation.AllowGrowth) to the
	// non-finite value this test is about.
	run := func(dt, end float64, allow ...bool) (float64, error) {
		s, err := miniExample(t).Build()
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{AllowGrowth: len(allow) > 0 && allow[0]}, Dt: dt, End: end})
		v, verr := s.Value("mass.position")
		if verr != nil {
			t.Fatal(verr)
		}
		return math.Abs(v[1] - 1), err
	}
	if d, err := run(0.98*want, 20); err != nil || !numtest.AtMost(d, 0.01) {
		t.Errorf("dt = 0.98·limit: |Δp_y| = %v after 20 s (err %v), want bounded (< 0.01 m)", d, err)
	}
	if d, err := run(1.02*want, 20); err == nil && d < 1 {
		t.Errorf("dt = 1.02·limit: |Δp_y| = %v after 20 s, want growth past 1 m", d)
	}
	if _, err := run(0.05, 100); !errors.Is(err, graph.ErrGrowth) {
		t.Errorf("dt = 0.05 s over 100 s: %v, want the growth watch's error first", err)
	}
	_, err = run(0.05, 100, true)
	if err == nil {
		t.Fatal("dt = 0.05 s over 100 s with AllowGrowth: no error, want a non-finite value")
	}
	herr := graph.WithStepHint(err, ws)
	var se *node.StateError
	if !strings.Contains(herr.Error(), "0.0306 s") || !strings.Contains(herr.Error(), "node spring") || !errors.As(herr, &se) {
		t.Errorf("hinted error %q: want the limit, the node and a reachable *node.StateError", herr)
	}
	if got := graph.WithStepHint(err, nil); got != err {
		t.Errorf("WithStepHint without warnings changed the error: %v", got)
	}
}

// TestStableStepSpring: the geometric spring states the same bound along
// its line: a 2 kg mass on k = 800 N/m to ground, undamped, has
// ω² = 400 s⁻² and the bound 2/ω = 0.1 s; between two masses of 2 kg
// the effective mass is 1 kg and the bound 2/√800 = 0.0707 s.
func TestStableStepSpring(t *testing.T) {
	for _, c := range []struct {
		name  string
		two   bool
		limit float64
	}{{"to ground", false, 0.1}, {"between masses", true, 2 / math.Sqrt(800)}} {
		g := graph.New()
		g.Add("a", must(masspoint.New(masspoint.Params{Mass: 2, InitialPosition: [3]float64{0, 0, 1}})))
		other := ""
		if c.two {
			g.Add("b", must(masspoint.New(masspoint.Params{Mass: 2})))
			other = "b"
		}
		p := spring.DefaultParams()
		p.Stiffness, p.RestLength = 800, 0.5
		if _, err := spring.Connect(g, "s", p, node.BodyAt(other, [3]float64{}), node.Body("a")); err != nil {
			t.Fatal(err)
		}
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		limits, err := s.StableSteps()
		if err != nil || len(limits) != 1 || !numtest.Near(limits[0].Dt, c.limit, 1e-14) {
			t.Errorf("%s: StableSteps = %+v, %v; want %v s", c.name, limits, err, c.limit)
		}
	}
}

// TestStableStepDeclared: every registered node type's StableStep
// statement is consistent (node.StableStep.Validate), says Computed
// exactly when the type implements node.StepLimiter (so the guide's claim
// that graphs evaluate the bound is true), and every stateful type states
// one: its step is either bounded by a formula or stable at every step.
func TestStableStepDeclared(t *testing.T) {
	reg := nodes.Registry()
	for _, name := range reg.Names() {
		n, err := reg.New(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		st := n.Spec().Meta.StableStep
		if err := st.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		_, limiter := node.As[node.StepLimiter](n)
		if computed := st != nil && st.Computed; computed != limiter {
			t.Errorf("%s: StableStep.Computed = %v, but implements node.StepLimiter = %v", name, computed, limiter)
		}
		if n.Spec().StateLayout.Size() > 0 && st == nil {
			t.Errorf("%s has state but states no StableStep", name)
		}
	}
}
