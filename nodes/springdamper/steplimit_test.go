package springdamper_test

import (
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// springStep is the stability bound of semi-implicit Euler for
// ẍ = −ω²x − cẋ, written out here independently of node.SpringStableStep:
// the step h with h²ω² + 2hc = 4, h = (√(c² + 4ω²) − c)/ω² (2/c when
// ω² = 0).
func springStep(omega2, c float64) float64 {
	if omega2 == 0 {
		return 2 / c
	}
	return (math.Sqrt(c*c+4*omega2) - c) / omega2
}

// wallMass is a connector from a wall at the origin to a point mass m at
// rest at (1, 2, 3), and its inputs.
func wallMass(t *testing.T, p springdamper.Params, m float64) (*springdamper.Node, node.Inputs) {
	t.Helper()
	n, err := springdamper.New(p, node.GroundAt([3]float64{}), node.At(newMass(t, m, [3]float64{1, 2, 3}, [3]float64{}), [3]float64{}))
	if err != nil {
		t.Fatal(err)
	}
	in := n.Spec().DefaultInputs()
	copy(in.Values[n.Spec().InputOffset("m1_position"):], []float64{1, 2, 3})
	return n, in
}

// StableStepAt of a connector from a wall to a point mass m: along each
// axis one oscillator with ω² = k_i/m and c = d_i/m (the wall adds no
// inverse mass), and the bound is the smallest axis's springStep. The
// law k = (200, 50, 100) N/m, d = (1, 0, 4) N s/m on m = 2 kg gives
// x: ω² = 100, c = 0.5 → 0.19506 s; y: ω² = 25, c = 0 → 0.4 s;
// z: ω² = 50, c = 2 → 0.24566 s: axis x sets it, and the message names
// that axis with its k, d and the effective mass μ = m. Tolerance 1e-14
// relative: the same closed form, evaluated on the same exact products
// (m = 2: 1/m and k/m are exact), differs by rounding at most.
func TestStableStepWallMass(t *testing.T) {
	p := springdamper.DefaultParams()
	p.Stiffness, p.Damping = [3]float64{200, 50, 100}, [3]float64{1, 0, 4}
	n, in := wallMass(t, p, 2)
	want := springStep(100, 0.5)
	got := n.StableStepAt(0, nil, in)
	if !near(got.Dt, want, 1e-14) {
		t.Errorf("StableStepAt = %.17g, want %.17g", got.Dt, want)
	}
	if dt := n.StableDtAt(0, nil, in); dt != got.Dt {
		t.Errorf("StableDtAt = %v, StableStepAt's Dt %v", dt, got.Dt)
	}
	for _, s := range []string{"axis x:", "k = " + node.FormatValue(200.0) + " N/m", "d = " + node.FormatValue(1.0) + " N s/m", "μ = " + node.FormatValue(2.0) + " kg"} {
		if !strings.Contains(got.Why, s) {
			t.Errorf("Why = %q, want it to contain %q", got.Why, s)
		}
	}
	// The y axis alone: no damping, springStep = 2/ω.
	p.Stiffness, p.Damping = [3]float64{0, 50, 0}, [3]float64{}
	n, in = wallMass(t, p, 2)
	if got := n.StableStepAt(0, nil, in); !near(got.Dt, 0.4, 1e-14) || !strings.HasPrefix(got.Why, "axis y:") {
		t.Errorf("k = (0, 50, 0): StableStepAt = %+v, want 0.4 s on axis y", got)
	}
}

// Equal laws on every axis of a point mass give every axis the same
// bound; the message then names the first of them, x (the axes are
// compared in order and a later axis replaces the bound only when it is
// smaller), so that the same model always prints the same message.
func TestStableStepTieNamesFirstAxis(t *testing.T) {
	p := springdamper.DefaultParams()
	p.Stiffness, p.Damping = [3]float64{100, 100, 100}, [3]float64{1, 1, 1}
	n, in := wallMass(t, p, 4)
	got := n.StableStepAt(0, nil, in)
	if want := springStep(25, 0.25); !near(got.Dt, want, 1e-14) || !strings.HasPrefix(got.Why, "axis x:") {
		t.Errorf("isotropic law: StableStepAt = %+v, want %.17g on axis x", got, want)
	}
}

// StableStepAt returns exactly node.NoStepLimit() (Dt = +Inf and no
// message) when there is no bound, as its documentation lists: an
// inactive connector, a user force function (stiffness unknown), no
// pushed body (between two walls: no inverse mass on any axis), and no
// spring or damper on any axis.
func TestStableStepNoLimit(t *testing.T) {
	inactive := springdamper.DefaultParams()
	inactive.Active = false
	user := springdamper.DefaultParams()
	user.ForceFunc = func(_ float64, _ int, dp, dv, k, d, off [3]float64) [3]float64 { return dp }
	free := springdamper.DefaultParams()
	free.Stiffness, free.Damping = [3]float64{}, [3]float64{}
	for _, c := range []struct {
		name string
		p    springdamper.Params
	}{{"inactive", inactive}, {"user force", user}, {"no spring, no damper", free}} {
		n, in := wallMass(t, c.p, 2)
		if got := n.StableStepAt(0, nil, in); got != node.NoStepLimit() {
			t.Errorf("%s: StableStepAt = %+v, want node.NoStepLimit()", c.name, got)
		}
	}
	walls, err := springdamper.New(springdamper.DefaultParams(), node.GroundAt([3]float64{}), node.GroundAt([3]float64{1, 0, 0}))
	if err != nil {
		t.Fatal(err)
	}
	if got := walls.StableStepAt(0, nil, walls.Spec().DefaultInputs()); got != node.NoStepLimit() {
		t.Errorf("between two walls: StableStepAt = %+v, want node.NoStepLimit()", got)
	}
}
