package springdamper_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// markerKind builds a marker of one kind and fills its input components
// with a random but valid body state.
type markerKind struct {
	name string
	make func(t *testing.T) node.Attachment
	fill func(rng *rand.Rand, x []float64)
}

func r(rng *rand.Rand, s float64) float64 { return s * (2*rng.Float64() - 1) }

func markerKinds() []markerKind {
	fillAll := func(rng *rand.Rand, x []float64) {
		for i := range x {
			x[i] = r(rng, 1)
		}
	}
	return []markerKind{
		{"ground", func(t *testing.T) node.Attachment { return node.GroundAt([3]float64{0.3, -0.2, 0.1}) }, fillAll},
		{"ball", func(t *testing.T) node.Attachment { return node.At(newBall(t), [3]float64{0.6, 0, 0.8}) }, fillAll},
		{"masspoint", func(t *testing.T) node.Attachment {
			return node.At(newMass(t, 1, [3]float64{}, [3]float64{}), [3]float64{})
		}, fillAll},
		{"rigidbody2d", func(t *testing.T) node.Attachment {
			return node.At(newBody2D(t, rigidbodyDefault2D()), [3]float64{0.4, -0.3, 0})
		}, fillAll},
		{"rigidbody", func(t *testing.T) node.Attachment {
			return node.At(newBody3D(t, rigidbodyDefault3D()), [3]float64{0.4, -0.3, 0.2})
		}, func(rng *rand.Rand, x []float64) {
			fillAll(rng, x)
			// A unit quaternion, as the body keeps it (position 3, then 4).
			n := math.Sqrt(x[3]*x[3] + x[4]*x[4] + x[5]*x[5] + x[6]*x[6])
			for i := 3; i < 7; i++ {
				x[i] /= n
			}
		}},
	}
}

// fdJacobian is the central-difference Jacobian of Outputs with the step
// h_j = 1e-6·max(1, |u_j|).
func fdJacobian(t *testing.T, n *springdamper.Node, tt float64, in node.Inputs) []float64 {
	s := n.Spec()
	ny, nu := s.OutputLayout.Size(), s.InputLayout.Size()
	jac := make([]float64, ny*nu)
	yp, ym := make([]float64, ny), make([]float64, ny)
	for j := range nu {
		u := in.Values[j]
		h := 1e-6 * max(1, math.Abs(u))
		in.Values[j] = u + h
		if err := n.Outputs(tt, nil, in, yp); err != nil {
			t.Fatal(err)
		}
		in.Values[j] = u - h
		if err := n.Outputs(tt, nil, in, ym); err != nil {
			t.Fatal(err)
		}
		in.Values[j] = u
		for i := range ny {
			jac[i*nu+j] = (yp[i] - ym[i]) / (2 * h)
		}
	}
	return jac
}

// TestJacobianFD: the analytic output Jacobian matches central finite
// differences for every pair of marker kinds, with and without a user
// function. Tolerance: with h = 1e-6 and outputs of magnitude |y| ≲ 1e3,
// the FD round-off error is ≈ ε|y|/h ≈ 2e-7 and the truncation error
// h²|y”'|/6 ≈ 1e-12·|y”'|; the node's own central differences (for
// J_CSD′, step ε^(1/3)) add ≈ 1e-10·|J|. So |J − J_fd| ≤ 1e-7·max(1, max|J|) (measured: 2.8e-10).
func TestJacobianFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	kinds := markerKinds()
	worst := 0.0
	for _, k0 := range kinds {
		for _, k1 := range kinds {
			for _, withUF := range []bool{false, true} {
				name := k0.name + "-" + k1.name
				if withUF {
					name += "-uf"
				}
				t.Run(name, func(t *testing.T) {
					p := springdamper.DefaultParams()
					p.Stiffness, p.Damping, p.Offset = [3]float64{300, 200, 100}, [3]float64{30, 20, 10}, [3]float64{0.1, -0.2, 0.3}
					if withUF {
						// A nonlinear law: cubic spring and quadratic damper.
						p.ForceFunc = func(tt float64, i int, u, v, k, d, off [3]float64) [3]float64 {
							var f [3]float64
							for c := range 3 {
								f[c] = k[c]*(u[c]+u[c]*u[c]*u[c]) + d[c]*v[c]*math.Abs(v[c]) + math.Sin(tt)*u[(c+1)%3]
							}
							return f
						}
					}
					n, err := springdamper.New(p, k0.make(t), k1.make(t))
					if err != nil {
						t.Fatal(err)
					}
					s := n.Spec()
					in := s.DefaultInputs()
					nu := s.InputLayout.Size()
					// Split the inputs into the markers' ranges for fill.
					n0 := 0
					for _, inp := range s.Inputs {
						if len(inp.Name) > 2 && inp.Name[:2] == "m0" {
							n0 += inp.Shape.Len()
						}
					}
					k0.fill(rng, in.Values[:n0])
					k1.fill(rng, in.Values[n0:nu])
					ny := s.OutputLayout.Size()
					got := make([]float64, ny*nu)
					if err := n.OutputsJacobian(0.7, nil, in, got); err != nil {
						t.Fatal(err)
					}
					want := fdJacobian(t, n, 0.7, in)
					scale := max(1, numtest.FiniteScale(t, "the differenced Jacobian", want))
					for i := range ny {
						for j := range nu {
							e := math.Abs(got[i*nu+j]-want[i*nu+j]) / scale
							worst = max(worst, e)
							if !numtest.Within(got[i*nu+j], want[i*nu+j], 1e-7*scale) {
								t.Errorf("∂%s/∂%s = %.12g, finite differences %.12g", s.OutputLayout.Component(i), s.InputLayout.Component(j), got[i*nu+j], want[i*nu+j])
							}
						}
					}
				})
			}
		}
	}
	t.Logf("largest |J − J_fd|/max(1, max|J|) over all pairs: %.3g", worst)
}

// TestJacobianCSD ties Exudyn's 4-block matrix to the output Jacobian
// for bodies whose load coordinates are their position coordinates (mass
// point: force ↔ position; planar body: force, torque ↔ x, y, θ), where
// f_LHS = −load: J_CSD(1, 0) = −∂load/∂q (with d = 0: Exudyn's item reference drops
// ∂v/∂q) and J_CSD(0, 1) = −∂load/∂q̇, the rates sitting 3 components
// after their positions in both bodies. It includes the J_CSD′ term: the
// planar body's torque depends on θ.
func TestJacobianCSD(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, damped := range []bool{false, true} {
		p := springdamper.DefaultParams()
		p.Stiffness, p.Offset = [3]float64{300, 200, 100}, [3]float64{0.1, -0.2, 0.3}
		if damped {
			p.Damping = [3]float64{30, 20, 10}
		}
		n, err := springdamper.New(p, node.At(newMass(t, 1, [3]float64{}, [3]float64{}), [3]float64{}),
			node.At(newBody2D(t, rigidbodyDefault2D()), [3]float64{0.4, -0.3, 0}))
		if err != nil {
			t.Fatal(err)
		}
		s := n.Spec()
		in := s.DefaultInputs()
		for i := range in.Values {
			in.Values[i] = r(rng, 1)
		}
		ny, nu := s.OutputLayout.Size(), s.InputLayout.Size()
		jy := make([]float64, ny*nu)
		if err := n.OutputsJacobian(0, nil, in, jy); err != nil {
			t.Fatal(err)
		}
		csd := make([]float64, nu*nu)
		fo, fot := 1.0, 0.0
		if damped {
			fo, fot = 0, 1
		}
		if err := n.JacobianCSD(fo, fot, 0, in, csd); err != nil {
			t.Fatal(err)
		}
		// (row in the inputs, row in the outputs) for the q rows of each marker.
		type pair struct{ q, y int }
		var rows []pair
		for i := range 3 {
			rows = append(rows, pair{i, s.OutputOffset("m0_force") + i})
		}
		rows = append(rows, pair{6, s.OutputOffset("m1_force")}, pair{7, s.OutputOffset("m1_force") + 1}, pair{8, s.OutputOffset("m1_torque")})
		cols := []int{0, 1, 2, 6, 7, 8} // q columns of both markers
		for _, rw := range rows {
			for _, c := range cols {
				yc := c
				if damped {
					yc = c + 3 // ∂/∂q̇
				}
				got, want := csd[rw.q*nu+c], -jy[rw.y*nu+yc]
				if !near(got, want, 1e-8) {
					t.Errorf("damped %v: J_CSD[%s, %s] = %.12g, want −∂load/∂%s = %.12g", damped, s.InputLayout.Component(rw.q), s.InputLayout.Component(c), got, s.InputLayout.Component(yc), want)
				}
			}
		}
	}
}
