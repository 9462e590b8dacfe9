package rigidbody

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// rotatedInertia returns Q·diag(d)·Qᵀ for Q = R(qr), symmetric by
// construction (each off-diagonal pair is computed once), as a
// row-major inertia_matrix.
func rotatedInertia(qr quat, d vec3) [9]float64 {
	q := rotation(qr)
	var m [9]float64
	for i := range 3 {
		for j := 0; j <= i; j++ {
			var s float64
			for k := range 3 {
				s += q[3*i+k] * d[k] * q[3*j+k]
			}
			m[3*i+j], m[3*j+i] = s, s
		}
	}
	return m
}

// The rotation of the body frame used below: a generic one (no axis
// aligned), so that every off-diagonal entry of the inertia is non-zero.
var (
	tiltQ    = qunit(quat{0.8, 0.3, -0.4, 0.35})
	diag123  = vec3{1, 2, 3}
	omega0   = vec3{1, 0.5, 0.8}
	orient0  = quat{1, 0.2, 0, -0.1}
	tumbleT  = 5.0
	tumbleDT = []float64{4e-3, 2e-3, 1e-3}
)

// TestTumblingInertiaMatrix: torque-free tumbling of a body with the
// non-diagonal SPD inertia_matrix I_b = Q diag(1, 2, 3) Qᵀ (Q a generic
// rotation: all off-diagonal entries are non-zero) and ω₀ = (1, 0.5, 0.8)
// (no principal axis). Analytic: the world angular momentum
// L = R I_b Rᵀ ω and the kinetic energy ½ ωᵀ L are constant; they are
// computed here from the test's own I_b, not the node's. As for the
// diagonal body (TestTumbling), the scheme is 1st order: over
// Δt = 4e-3, 2e-3, 1e-3 and T = 5 the observed order of the maximum
// relative drift of L and of E must lie in [0.9, 1.1], and |q| must stay
// 1 to 1e-14. The drift at Δt = 1e-3 must also be small in absolute
// terms: below 1e-2 relative for L and E (measured 7.3e-4 for L,
// 1.4e-3 for E).
func TestTumblingInertiaMatrix(t *testing.T) {
	ib := rotatedInertia(tiltQ, diag123)
	for i := range 3 {
		for j := range 3 {
			if i != j && math.Abs(ib[3*i+j]) < 0.05 {
				t.Fatalf("I_b[%d][%d] = %v: the test wants a clearly non-diagonal inertia", i, j, ib[3*i+j])
			}
		}
	}
	p := DefaultParams()
	p.InertiaMatrix = &ib
	p.InitialAngularVelocity = omega0
	p.InitialOrientation = orient0
	nd := mustNew(t, p)
	x0 := make([]float64, stateLen)
	nd.InitialState(x0)
	l0, e0 := invariants(mat3(ib), x0)
	var dl, de [3]float64
	for j, dt := range tumbleDT {
		run(t, nd, dt, int(math.Round(tumbleT/dt)), nil, func(k int, x []float64) {
			l, e := invariants(mat3(ib), x)
			d := vec3{l[0] - l0[0], l[1] - l0[1], l[2] - l0[2]}
			dl[j] = max(dl[j], math.Sqrt(dot(d, d)/dot(l0, l0)))
			de[j] = max(de[j], math.Abs(e-e0)/e0)
			if qn := qnorm(quat(x[offQuat : offQuat+4])); !numtest.Within(qn, 1, 1e-14) {
				t.Fatalf("Δt = %v: |q| = %v at step %d", dt, qn, k)
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
		if d[2] > 1e-2 {
			t.Errorf("drift at Δt = 1e-3: %.3g, want below 1e-2", d[2])
		}
	}
}

// TestInertiaMatrixIsRotatedDiagonal: a body with inertia_matrix
// Q diag(1, 2, 3) Qᵀ, started at q_B = Q q_A Q* with ω_B = Q ω_A, is the
// diagonal body (inertia (1, 2, 3), q_A, ω_A) with the whole world turned
// by Q: Euler's equations in the world frame and the step (world-frame
// ω, q ← exp(½Δt ω) ⊗ q) are covariant under a global rotation, so
// ω_B(t) = Q ω_A(t) and q_B(t) = Q q_A(t) Q* at every step. Tolerance
// 1e-12 (absolute, the values are of order 1) over 5000 steps of
// Δt = 1e-3: only rounding separates the two runs (measured 1.7e-13
// and 5.7e-14).
//
// It also checks the other reading of a non-diagonal inertia, a relabelled
// body frame: the same body described in a frame turned by Qᵀ, i.e.
// inertia_matrix Q diag Qᵀ, orientation q_A ⊗ Q* and the same world ω,
// moves exactly as the diagonal body: ω(t) equal and
// q(t) = q_A(t) ⊗ Q*, to the same tolerance.
func TestInertiaMatrixIsRotatedDiagonal(t *testing.T) {
	const dt, steps, tol = 1e-3, 5000, 1e-12
	ib := rotatedInertia(tiltQ, diag123)
	q := rotation(tiltQ)

	pa := DefaultParams()
	pa.Inertia = diag123
	pa.InitialOrientation = qunit(orient0)
	pa.InitialAngularVelocity = omega0
	var trajA [][]float64
	run(t, mustNew(t, pa), dt, steps, nil, func(k int, x []float64) {
		trajA = append(trajA, append([]float64(nil), x...))
	})

	check := func(name string, pb Params, wantQ func(qa quat) quat, wantW func(wa vec3) vec3) {
		t.Helper()
		worst := 0.0
		run(t, mustNew(t, pb), dt, steps, nil, func(k int, x []float64) {
			xa := trajA[k-1]
			wq := wantQ(quat(xa[offQuat : offQuat+4]))
			ww := wantW(vec3(xa[offOmega : offOmega+3]))
			// q and −q are the same rotation: compare with the sign
			// that makes them closest.
			s := 1.0
			if dot4(x[offQuat:offQuat+4], wq) < 0 {
				s = -1
			}
			e := 0.0
			for i := range 4 {
				e = max(e, math.Abs(x[offQuat+i]-s*wq[i]))
			}
			for i := range 3 {
				e = max(e, math.Abs(x[offOmega+i]-ww[i]))
			}
			worst = max(worst, e)
			if e > tol && worst == e {
				t.Errorf("%s: step %d: q = %v, ω = %v; want q = %v, ω = %v (|Δ| = %.3g)",
					name, k, x[offQuat:offQuat+4], x[offOmega:offOmega+3], wq, ww, e)
			}
		})
		t.Logf("%s: largest deviation over %d steps: %.3g", name, steps, worst)
	}

	// The world turned by Q.
	pb := DefaultParams()
	pb.InertiaMatrix = &ib
	pb.InitialOrientation = qmul(qmul(tiltQ, quat(pa.InitialOrientation)), qconj(tiltQ))
	pb.InitialAngularVelocity = mulMV(q, omega0)
	check("world turned by Q", pb,
		func(qa quat) quat { return qmul(qmul(tiltQ, qa), qconj(tiltQ)) },
		func(wa vec3) vec3 { return mulMV(q, wa) })

	// The body frame relabelled by Qᵀ.
	pc := DefaultParams()
	pc.InertiaMatrix = &ib
	pc.InitialOrientation = qmul(quat(pa.InitialOrientation), qconj(tiltQ))
	pc.InitialAngularVelocity = omega0
	check("body frame relabelled", pc,
		func(qa quat) quat { return qmul(qa, qconj(tiltQ)) },
		func(wa vec3) vec3 { return wa })
}

// TestPrincipalMoments: the eigenvalues of Q·diag(d)·Qᵀ are d, whatever
// the rotation Q, so principalMoments of rotatedInertia(q, d) must return
// d sorted from the largest to the smallest, or the diagonal itself when
// Q is the identity (the early return for a diagonal tensor). The cases
// cover distinct moments, a flat body on the triangle-inequality edge
// (I3 = I1 + I2) and a repeated pair (a symmetric top).
//
// Tolerance: 1e-12 times the largest moment for every moment, repeated
// or not: a backward-stable symmetric eigensolver is accurate to a few
// roundings of the tensor's norm, and building the rotated tensor adds a
// few roundings of the same size. (The closed form used before split a
// repeated pair by about 1e-8 relative and needed 1e-7 there.)
func TestPrincipalMoments(t *testing.T) {
	rots := []quat{tiltQ, qunit(quat{0.3, -0.7, 0.2, 0.6}), qunit(quat{1, 0, 0, 0})}
	moments := []struct {
		d vec3
	}{{vec3{1, 2, 3}}, {vec3{0.5, 4, 4.2}}, {vec3{7, 0.01, 6.995}}, {vec3{2, 2, 3}}, {vec3{1, 1, 2}}, {vec3{2, 2, 1}}}
	for _, qr := range rots {
		for _, c := range moments {
			d := c.d
			ib := mat3(rotatedInertia(qr, d))
			e := principalMoments(ib)
			got, want := e[:], []float64{d[0], d[1], d[2]}
			if ib[1] != 0 || ib[2] != 0 || ib[5] != 0 {
				slices.SortFunc(want, func(a, b float64) int { return cmp.Compare(b, a) })
			}
			scale := max(want[0], want[1], want[2])
			for i := range 3 {
				tol := 1e-12 * scale
				if !numtest.Within(got[i], want[i], tol) {
					t.Errorf("q %v, d %v: principal moments %v, want %v (tolerance %g)", qr, d, got, want, tol)
				}
			}
			if tr := got[0] + got[1] + got[2]; !numtest.Within(tr, d[0]+d[1]+d[2], 1e-12*scale) {
				t.Errorf("q %v, d %v: sum of the moments %v, want the trace %v", qr, d, tr, d[0]+d[1]+d[2])
			}
		}
	}
}

// TestInverseSPD: inverseSPD accepts a symmetric positive definite
// matrix and returns its inverse (checked as M·M⁻¹ = 1 to 1e-14, the
// rounding of a well-conditioned 3 × 3 product), and rejects one whose
// leading principal minor k is not positive, naming k and the minor.
// The SPD case has unequal diagonal entries coupled off the diagonal
// (m00 = 1, m11 = 100, m01 = 0.5: minor 2 = 99.75), so that each minor
// is tested as the determinant it is; the singular case has minor 2
// exactly 0 (rows 1 and 2 agree on the leading block), which is not
// positive.
func TestInverseSPD(t *testing.T) {
	m := mat3{1, 0.5, 0, 0.5, 100, 0, 0, 0, 100}
	inv, bad, _ := inverseSPD(m)
	if bad != 0 {
		t.Fatalf("SPD matrix %v rejected at minor %d", m, bad)
	}
	for i := range 3 {
		for j := range 3 {
			var s float64
			for k := range 3 {
				s += m[3*i+k] * inv[3*k+j]
			}
			want := 0.0
			if i == j {
				want = 1
			}
			if !numtest.Within(s, want, 1e-14) {
				t.Errorf("(M·M⁻¹)[%d][%d] = %v, want %v", i, j, s, want)
			}
		}
	}
	cases := []struct {
		m     mat3
		bad   int
		minor float64
	}{
		{mat3{1, 1, 0, 1, 1, 0, 0, 0, 1}, 2, 0},
		{mat3{0, 0, 0, 0, 1, 0, 0, 0, 1}, 1, 0},
		{mat3{-2, 0, 0, 0, 1, 0, 0, 0, 1}, 1, -2},
		{mat3{1, 0, 0, 0, 1, 0, 0, 0, -3}, 3, -3},
	}
	for _, c := range cases {
		if _, bad, minor := inverseSPD(c.m); bad != c.bad || minor != c.minor {
			t.Errorf("%v: rejected at minor %d (value %v), want minor %d (value %v)", c.m, bad, minor, c.bad, c.minor)
		}
	}
}

// TestInertiaMatrixSymmetryTolerance: Params.InertiaMatrix must be
// symmetric to 1e-12 relative to its largest entry, and is then
// symmetrized. With entries of order 100 (Q·diag(100, 200, 300)·Qᵀ) a
// difference of 1e-11 between the two entries of one off-diagonal pair
// (1e-13 relative) is accepted, and a difference of 1e-6 (1e-8
// relative) is rejected as not symmetric, for each of the three pairs.
func TestInertiaMatrixSymmetryTolerance(t *testing.T) {
	base := rotatedInertia(tiltQ, vec3{100, 200, 300})
	for _, pair := range [][2]int{{1, 3}, {2, 6}, {5, 7}} {
		for _, c := range []struct {
			delta float64
			ok    bool
		}{{1e-11, true}, {1e-6, false}} {
			im := base
			im[pair[1]] += c.delta
			p := DefaultParams()
			p.InertiaMatrix = &im
			_, err := New(p)
			if c.ok && err != nil {
				t.Errorf("entries %v differing by %g: %v", pair, c.delta, err)
			}
			if !c.ok && (err == nil || !strings.Contains(err.Error(), "not symmetric")) {
				t.Errorf("entries %v differing by %g: error %v, want \"not symmetric\"", pair, c.delta, err)
			}
		}
	}
}

// A thin rod (two equal moments, the third near zero) given as a rotated
// inertia_matrix is accepted exactly when the same moments given as
// inertia are: each moment is at most the sum of the other two, with
// I1 = I2 + 1e-9·I1 to spare, which the triangle test's 1e-12 margin
// must see through any rotation. The closed form used before split the
// repeated pair by 3–7e-9 relative and refused R diag(1, 1, 1e-9) Rᵀ.
func TestThinRodInertiaMatrix(t *testing.T) {
	for _, q := range []quat{tiltQ, qunit(quat{0.3, 0.5, -0.2, 0.7}), qunit(quat{0.3, -0.7, 0.2, 0.6})} {
		for _, thin := range []float64{1e-9, 1e-10, 1e-12} {
			rod := rotatedInertia(q, vec3{1, 1, thin})
			p := DefaultParams()
			p.InertiaMatrix = &rod
			if _, err := New(p); err != nil {
				t.Errorf("rod R diag(1, 1, %g) Rᵀ, q %v: %v", thin, q, err)
			}
			p = DefaultParams()
			p.Inertia = [3]float64{1, 1, thin}
			if _, err := New(p); err != nil {
				t.Errorf("rod diag(1, 1, %g) as inertia: %v", thin, err)
			}
		}
		// Beyond the edge: a moment above the sum of the others by more
		// than the margin is still refused through the rotation.
		bad := rotatedInertia(q, vec3{1, 0.5, 0.5 * (1 - 1e-6)})
		p := DefaultParams()
		p.InertiaMatrix = &bad
		if _, err := New(p); err == nil || !strings.Contains(err.Error(), "triangle inequality") {
			t.Errorf("R diag(1, 0.5, 0.5(1 − 1e-6)) Rᵀ, q %v: err %v, want the triangle inequality", q, err)
		}
	}
}

// The principal moments of Q·diag(d)·Qᵀ are d for every rotation Q: over
// 2 000 pseudo-random rotations and moment triples — distinct, with a
// repeated pair, all equal, spanning 1e-9 to 1, and negative ones (the
// eigenvalue routine does not assume positive moments; the parameter
// check refuses them before) — principalMoments returns d sorted from
// the largest, each within 1e-12 of the largest magnitude (rounding of
// the rotated tensor and of the rotations).
func TestPrincipalMomentsRandomRotations(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range 2000 {
		q := qunit(quat{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()})
		d := vec3{rng.Float64(), rng.Float64(), rng.Float64()}
		switch k % 5 {
		case 1:
			d[1] = d[0]
		case 2:
			d[2] = 1e-9 * d[2]
		case 3:
			d[1], d[2] = d[0], d[0]
		case 4:
			d[1] = -d[1]
		}
		ib := mat3(rotatedInertia(q, d))
		got := principalMoments(ib)
		want := []float64{d[0], d[1], d[2]}
		if ib[1] != 0 || ib[2] != 0 || ib[5] != 0 {
			slices.SortFunc(want, func(a, b float64) int { return cmp.Compare(b, a) })
		}
		scale := max(math.Abs(d[0]), math.Abs(d[1]), math.Abs(d[2]))
		for i := range 3 {
			if !numtest.Within(got[i], want[i], 1e-12*scale) {
				t.Fatalf("case %d: q %v, d %v: principal moments %v, want %v", k, q, d, got, want)
			}
		}
	}
}
