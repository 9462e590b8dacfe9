package rigidbody

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// gimbalCases are the three single held rotations the tests run, with the
// outer free axis (a fixed world axis, its angle cyclic) of each.
var gimbalCases = []struct {
	name  string
	axis  Axis
	value float64
	outer vec3 // the outer free axis: e_z for rx or ry held, R_z(rz)·e_y for rz held
}{
	{"rx", RX, 0.3, vec3{0, 0, 1}},
	{"ry", RY, -0.4, vec3{0, 0, 1}},
	{"rz", RZ, 0.7, vec3{-math.Sin(0.7), math.Cos(0.7), 0}},
}

// zyxRead reads (rx, ry, rz) from q with the textbook Z-Y-X formulas,
// independently of the node (ry in [−π/2, π/2]).
func zyxRead(q []float64) vec3 {
	w, x, y, z := q[0], q[1], q[2], q[3]
	return vec3{
		math.Atan2(2*(w*x+y*z), 1-2*(x*x+y*y)),
		math.Asin(max(-1, min(1, 2*(w*y-z*x)))),
		math.Atan2(2*(w*z+x*y), 1-2*(y*y+z*z)),
	}
}

// wrapPi is d modulo π, in [−π/2, π/2].
func wrapPi(d float64) float64 { return d - math.Pi*math.Round(d/math.Pi) }

// TestGimbalHeldAngle: one held rotation stays at its value, whatever the
// torque. For each of rx = 0.3, ry = −0.4, rz = 0.7 held, a body with a
// full (non-diagonal) inertia matrix is driven for 20 000 steps of 1 ms by
// an arbitrary torque τ(t) = (3 sin 1.3t, 2 cos 0.7t + 1, −4 sin 2.1t + 1)
// N·m and a force. Checked at every step, independently of the node's own
// angle formulas:
//
//   - the constraint residual, a quantity that is zero exactly on the
//     gimbal — rz held: −sin rz·R₁₁ + cos rz·R₂₁ (the (2,1) entry of
//     R_z(rz)ᵀR = R_y R_x); rx held: cos rx·R₃₂ − sin rx·R₃₃ (the (3,2) entry
//     of R·R_x(rx)ᵀ = R_z R_y); ry held: R₃₁ + sin ry — is below 1e-12;
//   - the held angle read back from q with the textbook Z-Y-X formulas
//     equals the value to 1e-12 wherever that reading is regular
//     (|cos ry| > 0.1). For rx or rz held the body tumbles through
//     |ry| = π/2 (the test asserts it does), where the Z-Y-X reading
//     switches to its other branch (rx + π, π − ry, rz + π): the held angle
//     is then compared modulo π. ry held alone never leaves |ry| < π/2.
//
// Translations are free; |q| stays 1 to 1e-14.
func TestGimbalHeldAngle(t *testing.T) {
	for _, c := range gimbalCases {
		t.Run(c.name, func(t *testing.T) {
			p := DefaultParams()
			p.InertiaMatrix = &[9]float64{2, 0.3, -0.1, 0.3, 1.5, 0.2, -0.1, 0.2, 1}
			p.InitialOrientation = [4]float64{1, 0.2, -0.3, 0.1}
			p.InitialAngularVelocity = [3]float64{1, -0.5, 2}
			p.Constraints = Constraints{c.axis: c.value}
			nd := mustNew(t, p)
			if got := nd.Spec().Meta.Discretization; got != DiscretizationGimbal {
				t.Fatalf("Discretization %q, want %q", got, DiscretizationGimbal)
			}
			s, co := math.Sincos(c.value)
			k := int(c.axis - RX)
			worstRes, worstAngle, minCos := 0.0, 0.0, 1.0
			branches := [2]int{}
			ld := func(tn float64) (vec3, vec3) {
				return vec3{1, -2, 0.5}, vec3{3 * math.Sin(1.3*tn), 2*math.Cos(0.7*tn) + 1, -4*math.Sin(2.1*tn) + 1}
			}
			run(t, nd, 1e-3, 20000, ld, func(step int, x []float64) {
				q := x[offQuat : offQuat+4]
				if qn := qnorm(quat(q)); !numtest.Within(qn, 1, 1e-14) {
					t.Fatalf("step %d: |q| = %v", step, qn)
				}
				r := rotation(quat(q))
				var res float64
				switch c.axis {
				case RZ:
					res = -s*r[0] + co*r[3]
				case RX:
					res = co*r[7] - s*r[8]
				case RY:
					res = r[6] + s
				}
				worstRes = max(worstRes, math.Abs(res))
				a := zyxRead(q)
				cy := math.Cos(a[1])
				minCos = min(minCos, cy)
				if cy <= 0.1 {
					return
				}
				d := a[k] - c.value
				d -= 2 * math.Pi * math.Round(d/(2*math.Pi))
				if math.Abs(d) < 1 {
					branches[0]++
				} else {
					branches[1]++
					d = wrapPi(d)
				}
				worstAngle = max(worstAngle, math.Abs(d))
			})
			t.Logf("held %s = %v: residual %.3g, held angle error %.3g; smallest cos ry %.3g; Z-Y-X branches direct/other %v",
				c.name, c.value, worstRes, worstAngle, minCos, branches)
			if !numtest.AtMost(worstRes, 1e-12) || !numtest.AtMost(worstAngle, 1e-12) {
				t.Errorf("held %s: residual %.3g, angle error %.3g, want ≤ 1e-12", c.name, worstRes, worstAngle)
			}
			if c.axis != RY && (minCos > 0.05 || branches[1] == 0) {
				t.Errorf("the test should drive the body through |ry| = π/2 (smallest cos ry %.3g, branches %v)", minCos, branches)
			}
		})
	}
}

// kinetic returns ½ωᵀI_wω and the momentum about the fixed world axis
// e, eᵀI_wω, computed through I_w = R I_b Rᵀ independently of the step.
func kinetic(ib mat3, x []float64, e vec3) (float64, float64) {
	l, en := invariants(ib, x)
	return en, dot(e, l)
}

// TestGimbalEnergy: torque-free motion on a gimbal conserves the kinetic
// energy (the constraint is workless: dT/dt = ω·τ = 0) and the momentum
// about the outer free axis, whose angle is cyclic (T does not depend on
// it). Body: I_b = diag(1, 2, 3), q₀ and ω₀ generic (ω₀ is projected onto
// the gimbal). The scheme is semi-implicit Euler in the free angles'
// rates, first order: the largest drift of each invariant over T = 5 s
// must shrink linearly with Δt, observed order in [0.9, 1.1] over
// Δt = 4, 2, 1 ms, and stay below 1e-2 at 1 ms.
func TestGimbalEnergy(t *testing.T) {
	for _, c := range gimbalCases {
		t.Run(c.name, func(t *testing.T) {
			p := DefaultParams()
			p.Inertia = [3]float64{1, 2, 3}
			p.InitialOrientation = [4]float64{1, 0.2, -0.3, 0.1}
			p.InitialAngularVelocity = [3]float64{1, 0.5, 0.8}
			p.Constraints = Constraints{c.axis: c.value}
			nd := mustNew(t, p)
			x0 := make([]float64, stateLen)
			nd.InitialState(x0)
			e0, p0 := kinetic(nd.m.Get().ib, x0, c.outer)
			if e0 < 0.1 || math.Abs(p0) < 0.1 {
				t.Fatalf("degenerate start: T = %v, p = %v", e0, p0)
			}
			var de, dp [3]float64
			for j, dt := range []float64{4e-3, 2e-3, 1e-3} {
				run(t, nd, dt, int(math.Round(5/dt)), nil, func(k int, x []float64) {
					e, pm := kinetic(nd.m.Get().ib, x, c.outer)
					de[j] = max(de[j], math.Abs(e-e0)/e0)
					dp[j] = max(dp[j], math.Abs(pm-p0)/math.Abs(p0))
				})
			}
			t.Logf("held %s: relative drift of T %.3g, of the outer momentum %.3g (Δt = 4, 2, 1 ms)", c.name, de, dp)
			for _, d := range [][3]float64{de, dp} {
				for j := range 2 {
					if o := math.Log2(d[j] / d[j+1]); o < 0.9 || o > 1.1 {
						t.Errorf("drift %.3g: observed order %.3f, want 1", d, o)
					}
				}
				if d[2] > 1e-2 {
					t.Errorf("drift %.3g at Δt = 1 ms", d[2])
				}
			}
		})
	}
}

// eulerR is R_z(a₂)R_y(a₁)R_x(a₀) from the elementary matrices, written
// independently of the node's quaternions.
func eulerR(a vec3) mat3 {
	mul := func(p, q mat3) mat3 {
		var r mat3
		for i := range 3 {
			for j := range 3 {
				for k := range 3 {
					r[3*i+j] += p[3*i+k] * q[3*k+j]
				}
			}
		}
		return r
	}
	sx, cx := math.Sincos(a[0])
	sy, cy := math.Sincos(a[1])
	sz, cz := math.Sincos(a[2])
	rx := mat3{1, 0, 0, 0, cx, -sx, 0, sx, cx}
	ry := mat3{cy, 0, sy, 0, 1, 0, -sy, 0, cy}
	rz := mat3{cz, -sz, 0, sz, cz, 0, 0, 0, 1}
	return mul(rz, mul(ry, rx))
}

// axisFD is the world axis c_k = vee(∂R/∂a_k · Rᵀ) by central differences
// of eulerR (h = 1e-6: error about 1e-10).
func axisFD(a vec3, k int) vec3 {
	const h = 1e-6
	ap, am := a, a
	ap[k] += h
	am[k] -= h
	rp, rm, r := eulerR(ap), eulerR(am), eulerR(a)
	var w mat3 // (Rp − Rm)/2h · Rᵀ
	for i := range 3 {
		for j := range 3 {
			for l := range 3 {
				w[3*i+j] += (rp[3*i+l] - rm[3*i+l]) / (2 * h) * r[3*j+l]
			}
		}
	}
	return vec3{w[7], w[2], w[3]}
}

// TestGimbalEquations ties Derivatives to the constrained Euler equations
// with the free axes computed independently (central differences of the
// elementary rotation matrices), at a generic state on each gimbal reached
// by 500 loaded steps: with J = [c_a₁ c_a₂],
//
//   - ω = J·ȧ for some ȧ: the state's ω has no component normal to the
//     free axes (≤ 1e-9 of |ω|);
//   - Jᵀ(I_w ω̇ + ω × I_w ω − τ) = 0 (≤ 1e-8: the difference step of J);
//   - the normal component of ω̇ is that of J̇ȧ, the rate at which the free
//     axes turn, d/ds J(a + s ȧ)·ȧ at s = 0, by central differences
//     (≤ 1e-6, nested differences).
//
// Together these fix ω̇ (M = JᵀI_wJ is invertible), so Derivatives is the
// projected Euler equation and nothing else.
func TestGimbalEquations(t *testing.T) {
	for _, c := range gimbalCases {
		t.Run(c.name, func(t *testing.T) {
			p := DefaultParams()
			p.Inertia = [3]float64{1, 2, 3}
			p.InitialOrientation = [4]float64{0.9, 0.1, -0.4, 0.3}
			p.InitialAngularVelocity = [3]float64{0.7, -1.2, 0.4}
			p.Constraints = Constraints{c.axis: c.value}
			nd := mustNew(t, p)
			tau := vec3{0.4, -0.9, 0.6}
			x := run(t, nd, 1e-3, 500, func(float64) (vec3, vec3) { return vec3{}, tau }, nil)
			in := nd.Spec().DefaultInputs()
			copy(in.Values[inTorque:], tau[:])
			f := make([]float64, stateLen)
			if err := nd.Derivatives(0, x, in, f); err != nil {
				t.Fatal(err)
			}
			q := x[offQuat : offQuat+4]
			w := vec3(x[offOmega : offOmega+3])
			wd := vec3(f[offOmega : offOmega+3])
			// The angles: the test reads them from q on the branch that
			// holds the held value (the body stays regular here).
			a := zyxRead(q)
			k := int(c.axis - RX)
			if !numtest.Within(a[k], c.value, 1e-12) {
				t.Fatalf("angles %v do not hold %s = %v", a, c.name, c.value)
			}
			var free []int
			for i := range 3 {
				if i != k {
					free = append(free, i)
				}
			}
			j0, j1 := axisFD(a, free[0]), axisFD(a, free[1])
			nrm := cross(j0, j1)
			nn := math.Sqrt(dot(nrm, nrm))
			nrm = vec3{nrm[0] / nn, nrm[1] / nn, nrm[2] / nn}
			if d := dot(nrm, w); !numtest.Within(d, 0, 1e-9*math.Sqrt(dot(w, w))) {
				t.Errorf("ω has a component %.3g normal to the free axes", d)
			}
			// ȧ from ω: least squares on the independent columns.
			g00, g01, g11 := dot(j0, j0), dot(j0, j1), dot(j1, j1)
			r0, r1 := dot(j0, w), dot(j1, w)
			det := g00*g11 - g01*g01
			ad := [2]float64{(g11*r0 - g01*r1) / det, (g00*r1 - g01*r0) / det}

			r := rotation(quat(q))
			iw := func(v vec3) vec3 { return mulMV(r, mulMV(nd.m.Get().ib, mulMtV(r, v))) }
			iwd, gyro := iw(wd), cross(w, iw(w))
			res := vec3{iwd[0] + gyro[0] - tau[0], iwd[1] + gyro[1] - tau[1], iwd[2] + gyro[2] - tau[2]}
			if e0, e1 := dot(j0, res), dot(j1, res); !numtest.Within(e0, 0, 1e-8) || !numtest.Within(e1, 0, 1e-8) {
				t.Errorf("Jᵀ(I_w ω̇ + ω × I_w ω − τ) = (%.3g, %.3g), want 0", e0, e1)
			}
			// J̇ȧ by central differences along a(s) = a + s·ȧ.
			const h = 1e-4
			jdot := func(sgn float64) vec3 {
				as := a
				as[free[0]] += sgn * h * ad[0]
				as[free[1]] += sgn * h * ad[1]
				c0, c1 := axisFD(as, free[0]), axisFD(as, free[1])
				return vec3{ad[0]*c0[0] + ad[1]*c1[0], ad[0]*c0[1] + ad[1]*c1[1], ad[0]*c0[2] + ad[1]*c1[2]}
			}
			jp, jm := jdot(1), jdot(-1)
			jd := vec3{(jp[0] - jm[0]) / (2 * h), (jp[1] - jm[1]) / (2 * h), (jp[2] - jm[2]) / (2 * h)}
			if d := dot(nrm, wd) - dot(nrm, jd); !numtest.Within(d, 0, 1e-6) {
				t.Errorf("normal component of ω̇ %.12g, of J̇ȧ %.12g", dot(nrm, wd), dot(nrm, jd))
			}
		})
	}
}

// TestGimbalUpdate ties Update to Derivatives and to the scheme its
// instance's Metadata names: the translation is semi-implicit Euler on
// Derivatives bit for bit; (q⁺ − q)/Δt and (ω⁺ − ω)/Δt tend to
// Derivatives' dq/dt and dω/dt (error ≤ 10·Δt at Δt = 1e-6, first
// order); a free, hinged or fixed body's Spec names Discretization, a
// gimbal's DiscretizationGimbal, and both specs have the same layouts.
func TestGimbalUpdate(t *testing.T) {
	for _, c := range []Constraints{nil, {RX: 0, RY: 0}, {RX: 0, RY: 0, RZ: 0}, Planar()} {
		if got := mustNew(t, Params{Mass: 1, Inertia: [3]float64{1, 1, 1}, InitialOrientation: [4]float64{1, 0, 0, 0}, Constraints: c}).Spec(); got.Meta.Discretization != Discretization {
			t.Errorf("constraints %q: Discretization %q", c, got.Meta.Discretization)
		}
	}
	if gimbalSpec.StateLayout.Size() != spec.StateLayout.Size() || gimbalSpec.InputLayout.Size() != spec.InputLayout.Size() {
		t.Error("the gimbal spec's layouts differ")
	}
	for _, c := range gimbalCases {
		t.Run(c.name, func(t *testing.T) {
			p := DefaultParams()
			p.Inertia = [3]float64{1, 2, 3}
			p.InitialOrientation = [4]float64{0.8, 0.1, -0.4, 0.3}
			p.InitialAngularVelocity = [3]float64{0.7, -1.2, 0.4}
			p.InitialVelocity = [3]float64{1, 2, 3}
			p.Gravity = [3]float64{0, 0, -9.81}
			p.Constraints = Constraints{c.axis: c.value, X: 0.5}
			nd := mustNew(t, p)
			in := nd.Spec().DefaultInputs()
			copy(in.Values, []float64{0.3, -0.6, 2, 0.1, 0.2, -0.3})
			x := make([]float64, stateLen)
			nd.InitialState(x)
			const dt = 1e-6
			got, f := make([]float64, stateLen), make([]float64, stateLen)
			if err := nd.Update(0, dt, x, in, got); err != nil {
				t.Fatal(err)
			}
			if err := nd.Derivatives(0, x, in, f); err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				wantV := x[offVel+i] + dt*f[offVel+i]
				if got[offVel+i] != wantV || got[offPos+i] != x[offPos+i]+dt*wantV {
					t.Errorf("translation %d: (%v, %v)", i, got[offPos+i], got[offVel+i])
				}
			}
			if got[offPos] != 0.5 || got[offVel] != 0 {
				t.Errorf("held x: %v, %v", got[offPos], got[offVel])
			}
			for _, j := range []int{offQuat, offQuat + 1, offQuat + 2, offQuat + 3, offOmega, offOmega + 1, offOmega + 2} {
				if d := (got[j] - x[j]) / dt; !numtest.Within(d, f[j], 10*dt*math.Max(1, math.Abs(f[j]))) {
					t.Errorf("component %d: (x⁺ − x)/Δt = %v, Derivatives %v", j, d, f[j])
				}
			}
		})
	}
}

// TestGimbalInitialState: the initial state is on the gimbal: the held
// angle at its value, the free angles InitialOrientation's own Z-Y-X
// angles (1e-12), and ω the least-squares projection of the initial
// angular velocity onto the free axes (its normal part removed, its
// in-plane part kept, 1e-12).
func TestGimbalInitialState(t *testing.T) {
	q0 := qunit(quat{0.9, 0.1, -0.4, 0.3})
	a0 := zyxRead(q0[:])
	w0 := vec3{0.7, -1.2, 0.4}
	for _, c := range gimbalCases {
		p := DefaultParams()
		p.InitialOrientation, p.InitialAngularVelocity = q0, w0
		p.Constraints = Constraints{c.axis: c.value}
		x := make([]float64, stateLen)
		mustNew(t, p).InitialState(x)
		k := int(c.axis - RX)
		a := zyxRead(x[offQuat : offQuat+4])
		for i := range 3 {
			want := a0[i]
			if i == k {
				want = c.value
			}
			if !numtest.Near(a[i], want, 1e-12) {
				t.Errorf("held %s: initial angles %v, want %v with %s = %v", c.name, a, a0, c.name, c.value)
			}
		}
		var free []int
		for i := range 3 {
			if i != k {
				free = append(free, i)
			}
		}
		j0, j1 := axisFD(a, free[0]), axisFD(a, free[1])
		nrm := cross(j0, j1)
		w := vec3(x[offOmega : offOmega+3])
		nn := dot(nrm, nrm)
		// w0 minus its normal part.
		want := vec3{w0[0] - dot(nrm, w0)/nn*nrm[0], w0[1] - dot(nrm, w0)/nn*nrm[1], w0[2] - dot(nrm, w0)/nn*nrm[2]}
		for i := range 3 {
			if !numtest.Near(w[i], want[i], 1e-9) {
				t.Errorf("held %s: initial ω %v, want %v", c.name, w, want)
				break
			}
		}
	}
}
