package integrators_test

import (
	"fmt"
	"math"

	"github.com/cosimgo/cosim/integrators"
)

// stiff is the linear system y0' = −1000·(y0 − cos t), y1' = y0 − y1,
// with its analytic Jacobian. The fast mode (λ = −1000) makes every
// explicit method unstable at dt = 0.1; backward Euler damps it.
type stiff struct{}

func (stiff) Dim() int { return 2 }
func (stiff) Func(t float64, y, dst []float64) error {
	dst[0] = -1000 * (y[0] - math.Cos(t))
	dst[1] = y[0] - y[1]
	return nil
}
func (stiff) Jacobian(t float64, y, dst []float64) error {
	dst[0], dst[1] = -1000, 0
	dst[2], dst[3] = 1, -1
	return nil
}

// Backward Euler on a stiff linear system at a step 50 times the explicit
// stability limit (|1 + λ·dt| ≤ 1 needs dt ≤ 0.002): the fast component
// relaxes onto cos t in one step and the solve takes two Newton
// iterations per step (the second confirms), each with one Jacobian and
// one LU factorization and solve.
func ExampleBackwardEuler() {
	st, err := integrators.NewStepper(integrators.BackwardEuler{}, stiff{}, nil)
	if err != nil {
		panic(err)
	}
	if err := st.Init(0, []float64{2, 0}); err != nil {
		panic(err)
	}
	for i := 0; i < 10; i++ {
		if err := st.Step(0.1); err != nil {
			panic(err)
		}
	}
	t, y := st.State()
	s := st.Work()
	fmt.Printf("%s (order %d): t = %.1f\n", st.Method(), st.Order(), t)
	fmt.Printf("y0 = %.4f (cos t = %.4f)\n", y[0], math.Cos(t))
	fmt.Printf("steps %d, Newton iterations %d, Jacobians %d, factorizations %d\n", s.Steps, s.NewtonIters, s.JacEvals, s.Factorize)
	// Output:
	// backward-euler (order 1): t = 1.0
	// y0 = 0.5411 (cos t = 0.5403)
	// steps 10, Newton iterations 20, Jacobians 20, factorizations 20
}

// Newmark with explicit parameters: β = 0.3025, γ = 0.6 is unconditionally
// stable (2β ≥ γ ≥ ½) and numerically damped, hence first order (γ ≠ ½);
// β = ¼, γ = ½ is the undamped, second-order average-acceleration rule.
// Both run the oscillator ẍ = −x (x = cos t) as a SecondOrder system with
// a step of one fifth of the period; γ = 0.6 loses amplitude.
func ExampleNewmark() {
	sys := integrators.SecondOrderFunc{NQ: 1, A: func(t float64, q, v, z, a, zdot []float64) error {
		a[0] = -q[0]
		return nil
	}}
	for _, m := range []integrators.Newmark{{Beta: 0.3025, Gamma: 0.6}, {Beta: 0.25, Gamma: 0.5}} {
		r, err := m.NewSecondOrder(sys, nil)
		if err != nil {
			panic(err)
		}
		st := integrators.State{Q: []float64{1}, V: []float64{0}, Z: []float64{}}
		var h integrators.Memory
		dt := 2 * math.Pi / 5
		for i := 0; i < 50; i++ { // ten periods
			res, err := r.Advance(st, h, dt)
			if err != nil {
				panic(err)
			}
			h, st = res.Memory, res.Memory.Latest.State
		}
		amp := math.Hypot(st.Q[0], st.V[0])
		fmt.Printf("β=%v γ=%v: order %d, amplitude after 10 periods %.4f\n", m.Beta, m.Gamma, r.Order(), amp)
	}
	// γ < ½ is unstable and rejected.
	_, err := (integrators.Newmark{Beta: 0.25, Gamma: 0.4}).NewSecondOrder(sys, nil)
	fmt.Println(err != nil)
	// Output:
	// β=0.3025 γ=0.6: order 1, amplitude after 10 periods 0.0577
	// β=0.25 γ=0.5: order 2, amplitude after 10 periods 1.0000
	// true
}
