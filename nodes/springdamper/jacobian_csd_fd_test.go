package springdamper_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// lhs is Exudyn's left-hand-side term of the connector in the
// connector's input coordinates: rows of marker 0 hold −J0ᵀ f_SD, rows of
// marker 1 J1ᵀ f_SD, with J_k the body's MarkerJacobian and f_SD the
// Force output, both evaluated at u. JacobianCSD is its derivative.
func lhs(t *testing.T, n *springdamper.Node, u []float64) []float64 {
	t.Helper()
	s := n.Spec()
	y := make([]float64, s.OutputLayout.Size())
	in := s.DefaultInputs()
	copy(in.Values, u)
	if err := n.Outputs(0.3, nil, in, y); err != nil {
		t.Fatal(err)
	}
	f := y[s.OutputOffset("force"):][:3]
	out := make([]float64, len(u))
	for k, m := range ends(n) {
		if m.Body == nil {
			continue
		}
		lo, hi := markerRange(s, k)
		nk := hi - lo
		jp := make([]float64, 3*nk)
		m.Body.MarkerJacobian(u[lo:hi], m.Local, jp)
		sg := float64(2*k - 1)
		for r := range nk {
			for i := range 3 {
				out[lo+r] += sg * jp[i*nk+r] * f[i]
			}
		}
	}
	return out
}

// markerRange is the span of marker k's inputs "m<k>_…" in Inputs.Values.
func markerRange(s *node.Spec, k int) (lo, hi int) {
	lo, hi = -1, -1
	off := 0
	for _, in := range s.Inputs {
		if strings.HasPrefix(in.Name, fmt.Sprintf("m%d_", k)) {
			if lo < 0 {
				lo = off
			}
			hi = off + in.Shape.Len()
		}
		off += in.Shape.Len()
	}
	if lo < 0 {
		return 0, 0
	}
	return lo, hi
}

// columns classifies the input components: rate[c] is the column of the
// rate of a Position-role component c (−1 otherwise) and vel[c] reports a
// Velocity-role component, from the bodies' specs.
func columns(n *springdamper.Node) (rate []int, vel []bool) {
	s := n.Spec()
	nu := s.InputLayout.Size()
	rate, vel = make([]int, nu), make([]bool, nu)
	for c := range rate {
		rate[c] = -1
	}
	for k, m := range ends(n) {
		if m.Body == nil {
			continue
		}
		bs := m.Body.(node.Node).Spec()
		for _, fn := range m.Body.MarkerFields() {
			i := bs.StateLayout.Index(fn)
			if i < 0 {
				continue
			}
			f := bs.State[i]
			off := s.InputOffset(fmt.Sprintf("m%d_%s", k, fn))
			for j := range f.Shape.Len() {
				vel[off+j] = f.Role == node.Velocity
				if f.Role == node.Position && f.Rate != "" {
					rate[off+j] = s.InputOffset(fmt.Sprintf("m%d_%s", k, f.Rate)) + j
				}
			}
		}
	}
	return rate, vel
}

// TestJacobianCSDFiniteDifferences checks Exudyn's 4-block matrix
// directly against central finite differences of the left-hand-side term
// −J0ᵀ f_SD, J1ᵀ f_SD (see lhs), with the step h_j = 1e-6·max(1, |u_j|),
// as far as JacobianCSD's documentation says it is exact:
//
//   - point mass and ball markers (velocity fields are the rates of the
//     position fields, marker velocity J_pos·q̇), with damping and with a
//     nonlinear user function: J_CSD(f_ODE2, f_ODE2_t) on a position
//     column q_c = f_ODE2·∂lhs/∂q_c + f_ODE2_t·∂lhs/∂q̇_c, the columns of
//     the velocity fields zero (Exudyn's item reference folds them onto the positions);
//   - the 6-DOF rigid body (quaternion, world angular velocity: neither
//     condition holds) only for its position dependence without damping,
//     where it is exact including J_CSD′ (the moment arm R r turning
//     with the quaternion): J_CSD(f_ODE2, ·) = f_ODE2·∂lhs/∂u. With
//     damping Exudyn's item reference drops ∂Δv/∂q = [ω]×∂(R r)/∂q, and ω is not a
//     rate, so nothing is asserted there.
//
// Tolerance |J − J_fd| ≤ 1e-7·max(1, max|J_fd|): the difference quotient
// has round-off ε·|lhs|/h ≈ 2e-16·1e3/1e-6 = 2e-7 absolute for |lhs| ≲
// 1e3 (relative to max|J| ≳ 100: ≈ 2e-9), and truncation h²·|lhs”'|/6 ≈
// 1e-12·|lhs”'| (lhs is at most cubic in u); JacobianCSD's own central
// differences (J_CSD′, the user function; step ε^(1/3)) add ≈ 1e-10
// relative. The worst case is logged.
func TestJacobianCSDFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	byName := map[string]markerKind{}
	for _, k := range markerKinds() {
		byName[k.name] = k
	}
	type pair struct {
		m0, m1 string
		rigid  bool // a rigidbody marker: d = 0, no user function
	}
	pairs := []pair{
		{"masspoint", "ground", false}, {"ground", "masspoint", false}, {"masspoint", "masspoint", false},
		{"ball", "ground", false}, {"ground", "ball", false}, {"ball", "masspoint", false}, {"masspoint", "ball", false},
		{"rigidbody", "ground", true}, {"ground", "rigidbody", true}, {"rigidbody", "masspoint", true},
		{"ball", "rigidbody", true}, {"rigidbody", "rigidbody", true},
	}
	// (2.5, 0): the rigid bodies, checked only without f_ODE2_t, see
	// J_CSD′ scaled by an f_ODE2 other than 1.
	factors := [][2]float64{{1, 0}, {0, 1}, {0.7, 1.3}, {2.5, 0}}
	worst := 0.0
	for _, pr := range pairs {
		for _, withUF := range []bool{false, true} {
			if withUF && pr.rigid {
				continue
			}
			name := pr.m0 + "-" + pr.m1
			if withUF {
				name += "-uf"
			}
			t.Run(name, func(t *testing.T) {
				p := springdamper.DefaultParams()
				p.Stiffness, p.Offset = [3]float64{300, 200, 100}, [3]float64{0.1, -0.2, 0.3}
				if !pr.rigid {
					p.Damping = [3]float64{30, 20, 10}
				}
				if withUF {
					p.ForceFunc = func(tt float64, i int, u, v, k, d, off [3]float64) [3]float64 {
						var f [3]float64
						for c := range 3 {
							f[c] = k[c]*(u[c]+u[c]*u[c]*u[c]) + d[c]*v[c]*math.Abs(v[c]) + math.Sin(tt)*u[(c+1)%3]
						}
						return f
					}
				}
				k0, k1 := byName[pr.m0], byName[pr.m1]
				n, err := springdamper.New(p, k0.make(t), k1.make(t))
				if err != nil {
					t.Fatal(err)
				}
				s := n.Spec()
				nu := s.InputLayout.Size()
				in := s.DefaultInputs()
				u := in.Values
				lo0, hi0 := markerRange(s, 0)
				lo1, hi1 := markerRange(s, 1)
				k0.fill(rng, u[lo0:hi0])
				k1.fill(rng, u[lo1:hi1])

				// fd[r*nu+c] = ∂lhs_r/∂u_c.
				fd := make([]float64, nu*nu)
				up := append([]float64(nil), u...)
				for c := range nu {
					h := 1e-6 * max(1, math.Abs(u[c]))
					up[c] = u[c] + h
					lp := lhs(t, n, up)
					up[c] = u[c] - h
					lm := lhs(t, n, up)
					up[c] = u[c]
					for r := range nu {
						fd[r*nu+c] = (lp[r] - lm[r]) / (2 * h)
					}
				}
				scale := max(1, numtest.FiniteScale(t, "the differenced Jacobian", fd))
				rate, vel := columns(n)
				for _, fc := range factors {
					if pr.rigid && fc[1] != 0 {
						continue // not exact for the rigid body (see above)
					}
					got := make([]float64, nu*nu)
					if err := n.JacobianCSD(fc[0], fc[1], 0.3, in, got); err != nil {
						t.Fatal(err)
					}
					for r := range nu {
						for c := range nu {
							var want float64
							switch {
							case vel[c]:
								want = 0
							case rate[c] >= 0:
								want = fc[0]*fd[r*nu+c] + fc[1]*fd[r*nu+rate[c]]
							default: // orientation, angular_velocity (rigid, d = 0)
								want = fc[0] * fd[r*nu+c]
							}
							e := math.Abs(got[r*nu+c]-want) / scale
							worst = max(worst, e)
							if !numtest.Within(got[r*nu+c], want, 1e-7*scale) {
								t.Errorf("f_ODE2 = %g, f_ODE2_t = %g: J_CSD[%s, %s] = %.12g, finite differences %.12g",
									fc[0], fc[1], s.InputLayout.Component(r), s.InputLayout.Component(c), got[r*nu+c], want)
							}
						}
					}
				}
			})
		}
	}
	t.Logf("largest |J_CSD − J_fd|/max(1, max|J_fd|): %.3g", worst)
}

// ends are the connector's two ends, as built.
func ends(n *springdamper.Node) [2]node.Attachment {
	e, _ := n.Attachments()
	return e
}
