package integrators_test

import (
	"fmt"
	"math"

	"github.com/cosimgo/cosim/integrators"
)

// oscillate runs method name on the harmonic oscillator x' = v, v' = −x
// from x = 1, v = 0 (exact x = cos t), with ten steps of 0.1 to t = 1, and
// prints x(1) and its error against cos 1: one line that shows the
// method's accuracy and cost at a glance. Position and velocity are
// paired in the DriverOptions, as semi-implicit Euler and generalized-alpha
// need; the other methods ignore the pairing.
func oscillate(name string) {
	m, err := integrators.ByName(name)
	if err != nil {
		panic(err)
	}
	sys := integrators.SystemFunc{N: 2, F: func(t float64, y, dst []float64) error {
		dst[0], dst[1] = y[1], -y[0]
		return nil
	}}
	st, err := integrators.NewStepper(m, sys, &integrators.DriverOptions{Positions: []int{0}, Velocities: []int{1}})
	if err != nil {
		panic(err)
	}
	if err := st.Init(0, []float64{1, 0}); err != nil {
		panic(err)
	}
	for i := 0; i < 10; i++ {
		if err := st.Step(0.1); err != nil {
			panic(err)
		}
	}
	_, y := st.State()
	fmt.Printf("%s (order %d): x(1) = %.6f, error %.1e, %d evaluations\n", st.Method(), st.Order(), y[0], math.Abs(y[0]-math.Cos(1)), st.Work().FuncEvals)
}

func ExampleNewStepper_forwardEuler() {
	oscillate(integrators.MethodForwardEuler)
	// Output:
	// forward-euler (order 1): x(1) = 0.570790, error 3.0e-02, 10 evaluations
}

func ExampleNewStepper_semiImplicitEuler() {
	oscillate(integrators.MethodSemiImplicitEuler)
	// Output:
	// semi-implicit-euler (order 1): x(1) = 0.497814, error 4.2e-02, 10 evaluations
}

func ExampleNewStepper_heun() {
	oscillate(integrators.MethodHeun)
	// Output:
	// heun (order 2): x(1) = 0.538971, error 1.3e-03, 20 evaluations
}

func ExampleNewStepper_rk4() {
	oscillate(integrators.MethodRK4)
	// Output:
	// rk4 (order 4): x(1) = 0.540303, error 6.6e-07, 40 evaluations
}

func ExampleNewStepper_implicitTrapezoid() {
	oscillate(integrators.MethodImplicitTrapezoid)
	// Output:
	// implicit-trapezoid (order 2): x(1) = 0.541002, error 7.0e-04, 71 evaluations
}

func ExampleNewStepper_dormandPrince() {
	oscillate(integrators.MethodDormandPrince)
	// Output:
	// dormand-prince (order 5): x(1) = 0.540302, error 1.9e-09, 61 evaluations
}

func ExampleNewStepper_generalizedAlpha() {
	oscillate(integrators.MethodGeneralizedAlpha)
	// Output:
	// generalized-alpha (order 2): x(1) = 0.541326, error 1.0e-03, 43 evaluations
}
