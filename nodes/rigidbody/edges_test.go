package rigidbody

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// inertia_matrix is accepted when symmetric to 1e-12 relative to its
// largest entry (a tensor computed elsewhere carries rounding), bound
// included, and the body then uses its symmetric part (I + Iᵀ)/2, the
// nearest symmetric matrix: each off-diagonal pair becomes the mean of
// its two entries. Case 1: diag(1, 1, 1) with I₀₁ = 1e-12, I₁₀ = 0, an
// asymmetry of exactly 1e-12·1 (both are the float64 1e-12): accepted.
// Case 2: the pair (1,2)/(2,1) of a positive definite matrix differing
// by 2⁻⁴⁴ ≈ 5.7e-14 (below the bound, 1e-12·2): both entries become
// their mean, computed here as the node's contract states it.
func TestInertiaMatrixSymmetrization(t *testing.T) {
	p := DefaultParams()
	p.InertiaMatrix = &[9]float64{1, 1e-12, 0, 0, 1, 0, 0, 0, 1}
	if _, err := New(p); err != nil {
		t.Errorf("asymmetry exactly 1e-12 × the largest entry: %v", err)
	}
	a, b := 0.3, 0.3+math.Ldexp(1, -44)
	p.InertiaMatrix = &[9]float64{2, 0.1, 0.05, 0.1, 1.5, a, 0.05, b, 1.8}
	n := mustNew(t, p)
	ib := n.m.Get().ib
	if want := (a + b) / 2; ib[5] != want || ib[7] != want {
		t.Errorf("I₁₂, I₂₁ = %v, %v; want their mean %v", ib[5], ib[7], want)
	}
	if ib[1] != 0.1 || ib[3] != 0.1 || ib[2] != 0.05 || ib[6] != 0.05 {
		t.Errorf("symmetric pairs changed: %v", ib)
	}
}

// Every principal moment is at most the sum of the other two; equality
// (a flat body: a disc's axial moment is the sum of its in-plane ones)
// is accepted up to 1e-12 relative, that bound included: the moments
// (2·(1 + 1e-12), 1, 1) — the float64 product the bound is — build.
func TestTriangleBoundInclusive(t *testing.T) {
	two := 2.0
	p := DefaultParams()
	p.Inertia = [3]float64{two * (1 + 1e-12), 1, 1}
	if _, err := New(p); err != nil {
		t.Errorf("moments %v, on the 1e-12 bound of the triangle inequality: %v", p.Inertia, err)
	}
}

// rates inverts omega on the gimbal: for ω = J(a)·ȧ (the angular
// velocity of free-angle rates ȧ), rates returns ȧ. The least-squares
// formula (JᵀJ)⁻¹Jᵀω is exact there; its 2×2 determinant matters when
// the two free columns are not orthogonal, which happens with ry held
// (free rx, rz: c_x·c_z = −sin ry), here ry = 0.5 and −1.2. Tolerance
// 1e-14 absolute for rates of order 1: rounding of a 2×2 solve with
// condition number 1/cos² ry ≤ 8.
func TestGimbalRatesInvertOmega(t *testing.T) {
	for _, c := range []struct {
		held  int
		value float64
	}{{1, 0.5}, {1, -1.2}, {0, 0.3}, {2, 0.7}} {
		g := newGimbal(c.held, c.value)
		a := vec3{0.4, -0.3, 1.1}
		a[c.held] = c.value
		cols := columns(a)
		ad := [2]float64{0.7, -1.3}
		got := g.rates(cols, g.omega(cols, ad))
		for k := range 2 {
			if !numtest.Within(got[k], ad[k], 1e-14) {
				t.Errorf("held %d = %v: rates(omega(%v)) = %v", c.held, c.value, ad, got)
			}
		}
	}
}

// A gimbal step keeps the orientation quaternion in the hemisphere of
// the one before (q and −q are the same rotation: DiscretizationGimbal
// rebuilds q from the angles, which read modulo 2π may give −q; the step
// then takes −q(a⁺)), so that a recorded orientation never jumps sign.
// The states are the half-turns about x, y and z and the identity, each
// with both signs (q = ±e_i exactly: one of the two is the sign the
// angles rebuild, the other is not), spinning about the half-turn's axis
// (or about z at the identity) both ways at 1 rad/s, on a gimbal that
// allows it (rz = 0 held for x, rx = π held for y — the half-turn about
// y is R_z(π)·R_x(π) —, rx = 0 for z and the identity). After one step
// of 1 ms, q⁺·q must be positive (it is cos(0.5 ms) ≈ 1 on the right
// side, ≈ −1 on the wrong one).
func TestGimbalStepKeepsHemisphere(t *testing.T) {
	for _, c := range []struct {
		name  string
		held  Axis
		value float64
		e     int  // the quaternion component of the half-turn (0: identity)
		spin  vec3 // the spin axis, world frame
	}{
		{"x", RZ, 0, 1, vec3{1, 0, 0}},
		{"y", RX, math.Pi, 2, vec3{0, 1, 0}},
		{"z", RX, 0, 3, vec3{0, 0, 1}},
		{"identity", RX, 0, 0, vec3{0, 0, 1}},
	} {
		for _, sq := range []float64{1, -1} {
			for _, sw := range []float64{1, -1} {
				p := DefaultParams()
				p.Constraints = Constraints{c.held: c.value}
				n := mustNew(t, p)
				x, dst := make([]float64, stateLen), make([]float64, stateLen)
				n.InitialState(x)
				clear(x[offQuat : offQuat+4])
				x[offQuat+c.e] = sq
				for i := range 3 {
					x[offOmega+i] = sw * c.spin[i]
				}
				if err := n.Update(0, 1e-3, x, n.Spec().DefaultInputs(), dst); err != nil {
					t.Fatal(err)
				}
				if d := dot4(dst[offQuat:offQuat+4], quat(x[offQuat:offQuat+4])); !(d > 0.99) {
					t.Errorf("%s, q = %v, ω = %v: q⁺ = %v, q⁺·q = %v, want ≈ 1", c.name, x[offQuat:offQuat+4], x[offOmega:offOmega+3], dst[offQuat:offQuat+4], d)
				}
			}
		}
	}
}

// angles reads back the free angles quat(a) was built from, on every
// branch of the held angle: rx, ry or rz held, including ry held beyond
// ±π/2 (cos ry < 0, where R₃₂ = cos ry·sin rx and R₃₃ = cos ry·cos rx
// both change sign, so rx is read from their negatives; likewise rz).
// The free angles are compared modulo 2π; tolerance 1e-12 rad, rounding
// of the rotation matrix and atan2 for angles of order 1.
func TestGimbalAnglesRoundTrip(t *testing.T) {
	for _, c := range []struct {
		held  int
		value float64
	}{{1, 2.5}, {1, -2.0}, {1, 0.4}, {0, 2.8}, {2, -2.2}} {
		g := newGimbal(c.held, c.value)
		for _, a := range []vec3{{0.4, -0.3, 1.1}, {-2.9, 0.2, 3.0}, {1.7, 1.0, -0.6}} {
			if c.held != 1 && math.Abs(a[1]) >= math.Pi/2 {
				continue
			}
			a[c.held] = c.value
			got := g.angles(g.quat(a))
			for i := range 3 {
				if d := math.Remainder(got[i]-a[i], 2*math.Pi); math.Abs(d) > 1e-12 {
					t.Errorf("held %d = %v: angles(quat(%v)) = %v", c.held, c.value, a, got)
					break
				}
			}
		}
	}
}

// A hinge (two held rotations) turns about one world axis n: Derivatives
// gives dω/dt = n·(n·τ)/I_n (its documentation), I_n the moment about
// the hinge axis. With ry = 0.3 and rz = 0.5 held, the free axis is
// rx's, n = R_z(rz)·R_y(ry)·e_x = (cos rz cos ry, sin rz cos ry,
// −sin ry) — every component non-zero — and I_n = I₁ = 2 (the body's x
// axis). τ = (1, 2, 3) N m. Reference: that closed form evaluated here;
// tolerance 1e-14 relative, rounding of n.
func TestHingeAngularAcceleration(t *testing.T) {
	p := DefaultParams()
	p.Inertia = [3]float64{2, 3, 4}
	p.Constraints = Constraints{RY: 0.3, RZ: 0.5}
	n := mustNew(t, p)
	x, dst := make([]float64, stateLen), make([]float64, stateLen)
	n.InitialState(x)
	in := n.Spec().DefaultInputs()
	tau := vec3{1, 2, 3}
	copy(in.Values[inTorque:], tau[:])
	if err := n.Derivatives(0, x, in, dst); err != nil {
		t.Fatal(err)
	}
	axis := vec3{math.Cos(0.5) * math.Cos(0.3), math.Sin(0.5) * math.Cos(0.3), -math.Sin(0.3)}
	an := (axis[0]*tau[0] + axis[1]*tau[1] + axis[2]*tau[2]) / 2
	for i := range 3 {
		if want := axis[i] * an; !numtest.Within(dst[offOmega+i], want, 1e-14*math.Abs(an)) {
			t.Errorf("dω/dt = %v, want n·(n·τ)/I_n = %v", dst[offOmega:offOmega+3], [3]float64{axis[0] * an, axis[1] * an, axis[2] * an})
			break
		}
	}
}
