package integrators

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

func TestByName(t *testing.T) {
	want := map[string]int{
		"forward-euler": 1, "semi-implicit-euler": 1, "heun": 2, "rk4": 4, "dormand-prince": 5,
		"backward-euler": 1, "implicit-trapezoid": 2, "newmark": 2, "generalized-alpha": 2,
		"esdirk43": 4, "esdirk32": 3, "bdf": 5,
	}
	ms := Methods()
	if len(ms) != len(want) {
		t.Fatalf("%d methods, want %d", len(ms), len(want))
	}
	for _, m := range ms {
		got, err := ByName(m.Name())
		if err != nil || got != m || want[m.Name()] != m.Order() {
			t.Errorf("ByName(%q) = %+v, %v; want order %d", m.Name(), got, err, want[m.Name()])
		}
		st, err := m.New(&oscillator{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.Method() != m.Name() || st.Order() != m.Order() {
			t.Errorf("stepper reports %s/%d for %s/%d", st.Method(), st.Order(), m.Name(), m.Order())
		}
	}
	if _, err := ByName("euler"); !errors.Is(err, ErrUnknownMethod) {
		t.Errorf("ByName(euler) error %v", err)
	}
	if m, _ := ByName(MethodGeneralizedAlpha); m.(SecondOrderMethod).Params().RhoInf != DefaultRhoInf {
		t.Errorf("default rho_inf %v", m.(SecondOrderMethod).Params().RhoInf)
	}
	if _, err := (GeneralizedAlpha{RhoInf: 1.5}).New(&oscillator{}, nil); err == nil {
		t.Error("rho_inf 1.5 accepted")
	}
	for _, name := range []string{MethodSemiImplicitEuler, MethodNewmark, MethodGeneralizedAlpha} {
		m, _ := ByName(name)
		if _, err := m.New(expSin, nil); err == nil {
			t.Errorf("%s accepted a System without pairs", name)
		}
		// Pairs from Settings replace the Partitioned capability.
		a, err := m.New(&plainOscillator{}, &DriverOptions{Positions: []int{0}, Velocities: []int{1}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := m.New(&oscillator{}, nil)
		a.Init(0, []float64{1, 0})
		b.Init(0, []float64{1, 0})
		for i := 0; i < 10; i++ {
			a.Step(0.1)
			b.Step(0.1)
		}
		_, ya := a.State()
		_, yb := b.State()
		// oscillator has an analytic Jacobian, plainOscillator not: the
		// Newton solutions agree to the Newton tolerance.
		numtest.ExpectWithin(t, name+" pairs from Settings", ya[0], yb[0], 1e-9)
		if _, err := m.New(&plainOscillator{}, &DriverOptions{Positions: []int{0}, Velocities: []int{0}}); err == nil {
			t.Errorf("%s accepted a repeated index", name)
		}
	}
}

// TestObservedOrder measures the global order of every method on smooth
// problems with analytic solutions: the harmonic oscillator ẍ = −x
// (x = cos t) for all methods and, for the methods that take any
// System, the non-autonomous y' = y·cos t (y = exp(sin t)). p = log2(e(n)/e(2n)) for
// the finest pair, which must meet |p − declared| ≤ 0.1 (the bound
// verification uses for declared orders).
func TestObservedOrder(t *testing.T) {
	cases := []struct {
		name string
		n    int // coarsest step count over [0, 2]; refined ×2, ×4
	}{
		{MethodForwardEuler, 2000},
		{MethodSemiImplicitEuler, 2000},
		{MethodHeun, 200},
		{MethodRK4, 40},
		{MethodDormandPrince, 20},
		{MethodBackwardEuler, 2000},
		{MethodImplicitTrapezoid, 200},
		{MethodNewmark, 200},
		{MethodGeneralizedAlpha, 200},
	}
	const T = 2
	for _, c := range cases {
		m, _ := ByName(c.name)
		var errs, errsF []float64
		for k := 0; k < 3; k++ {
			n := c.n << k
			y := runFixed(t, m, &oscillator{}, []float64{1, 0}, T, n)
			errs = append(errs, math.Max(math.Abs(y[0]-math.Cos(T)), math.Abs(y[1]+math.Sin(T))))
			if !isSecondOrder(m) && m.Name() != MethodSemiImplicitEuler {
				y := runFixed(t, m, expSin, []float64{1}, T, n)
				errsF = append(errsF, math.Abs(y[0]-expSinExact(T, 1)))
			}
		}
		p := observedOrder(errs)
		t.Logf("%-20s oscillator errors %.3e → order %.3f", c.name, errs, p)
		numtest.ExpectWithin(t, c.name+" observed order (oscillator)", p, float64(m.Order()), 0.1)
		if errsF != nil {
			p := observedOrder(errsF)
			t.Logf("%-20s exp(sin t) errors %.3e → order %.3f", c.name, errsF, p)
			numtest.ExpectWithin(t, c.name+" observed order (exp(sin t))", p, float64(m.Order()), 0.1)
		}
	}
}

// TestSemiImplicitEulerDefinition checks the documented update
// v_{n+1} = v_n + dt·f_v(t_n, y_n), x_{n+1} = x_n + dt·v_{n+1} with the
// MADDENING BallNode update (v += g dt; x += v dt), bit for bit, plus an
// "other" component advanced like a velocity.
func TestSemiImplicitEulerDefinition(t *testing.T) {
	const g, dt = -9.81, 0.01
	sys := partFunc{n: 3, pos: []int{1}, vel: []int{0}, f: func(t float64, y, dst []float64) error {
		dst[0] = g    // velocity
		dst[1] = y[0] // position rate = velocity
		dst[2] = t    // other
		return nil
	}}
	st, err := SemiImplicitEuler{}.New(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, x, z := 0.5, 10.0, 0.0
	if err := st.Init(0, []float64{v, x, z}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		tn := float64(i) * dt
		if err := st.Step(dt); err != nil {
			t.Fatal(err)
		}
		v += g * dt
		x += v * dt
		z += dt * tn
		_, y := st.State()
		if y[0] != v || y[1] != x || y[2] != z {
			t.Fatalf("step %d: got %v, want [%v %v %v]", i, y, v, x, z)
		}
	}
	// Position rate ≠ velocity is detected.
	bad := partFunc{n: 2, pos: []int{0}, vel: []int{1}, f: func(t float64, y, dst []float64) error {
		dst[0], dst[1] = 2*y[1], 0
		return nil
	}}
	st, _ = SemiImplicitEuler{}.New(bad, nil)
	st.Init(0, []float64{0, 1})
	err = st.Step(0.1)
	var se *StepError
	if !errors.Is(err, ErrNotPartitioned) || !errors.As(err, &se) || se.Index != 0 {
		t.Errorf("got %v, want ErrNotPartitioned for pair 0", err)
	}
}

type partFunc struct {
	n        int
	pos, vel []int
	f        func(t float64, y, dst []float64) error
}

func (p partFunc) Dim() int                               { return p.n }
func (p partFunc) Func(t float64, y, dst []float64) error { return p.f(t, y, dst) }
func (p partFunc) Pairs() (pos, vel []int)                { return p.pos, p.vel }

// TestFixedStepNoAllocs proves that a fixed explicit step allocates
// nothing (work vectors are allocated by New).
func TestFixedStepNoAllocs(t *testing.T) {
	for _, name := range []string{MethodForwardEuler, MethodSemiImplicitEuler, MethodHeun, MethodRK4, MethodDormandPrince} {
		m, _ := ByName(name)
		st, _ := m.New(&oscillator{}, nil)
		st.Init(0, []float64{1, 0})
		allocs := testing.AllocsPerRun(100, func() {
			if err := st.Step(1e-3); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocs per step", name, allocs)
		}
	}
}

func BenchmarkFixedStep(b *testing.B) {
	for _, name := range []string{MethodForwardEuler, MethodSemiImplicitEuler, MethodHeun, MethodRK4, MethodDormandPrince} {
		b.Run(name, func(b *testing.B) {
			m, _ := ByName(name)
			st, _ := m.New(&oscillator{}, nil)
			st.Init(0, []float64{1, 0})
			b.ReportAllocs()
			for b.Loop() {
				if err := st.Step(1e-6); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestNonFiniteLeavesState: a NaN produced by the right-hand side fails
// the step with a *StepError naming time and component (or, for the
// implicit methods, the Newton failure it causes); the state is the one
// before the failing step.
func TestNonFiniteLeavesState(t *testing.T) {
	sys := SystemFunc{N: 3, F: func(tt float64, y, dst []float64) error {
		dst[0], dst[1], dst[2] = 1, 1, 1
		if tt >= 0.25 {
			dst[2] = math.NaN()
		}
		return nil
	}}
	for _, m := range Methods() {
		if isSecondOrder(m) || m.Name() == MethodSemiImplicitEuler {
			continue
		}
		st, _ := m.New(sys, nil)
		st.Init(0, []float64{0, 0, 0})
		var err error
		var tBefore float64
		var yBefore []float64
		for i := 0; i < 10 && err == nil; i++ {
			tt, y := st.State()
			tBefore, yBefore = tt, append(yBefore[:0], y...)
			err = st.Step(0.1)
		}
		var se *StepError
		if !errors.As(err, &se) || !errors.Is(err, ErrNonFinite) && !errors.Is(err, ErrNewton) {
			t.Errorf("%s: err %v", m.Name(), err)
			continue
		}
		tt, y := st.State()
		if tt != tBefore || y[0] != yBefore[0] || y[2] != yBefore[2] {
			t.Errorf("%s: state after failure t=%v y=%v, want %v %v", m.Name(), tt, y, tBefore, yBefore)
		}
		if se.Status == NonFinite && se.Index != 2 {
			t.Errorf("%s: %v names component %d, want 2", m.Name(), err, se.Index)
		}
		t.Log(err)
	}
}

// TestUserErrorWrapped: an error from Func is wrapped with the time and
// reachable with errors.Is.
func TestUserErrorWrapped(t *testing.T) {
	boom := errors.New("boom")
	sys := SystemFunc{N: 1, F: func(tt float64, y, dst []float64) error {
		if tt > 0.5 {
			return boom
		}
		dst[0] = 1
		return nil
	}}
	st, _ := RK4{}.New(sys, nil)
	st.Init(0, []float64{0})
	var err error
	for err == nil {
		err = st.Step(0.2)
	}
	if !errors.Is(err, boom) || !errors.Is(err, ErrFailure) || TerminationOf(err) != Failure {
		t.Fatalf("err %v", err)
	}
	if tt, y := st.State(); tt != 0.4 || y[0] != 0.4 {
		t.Errorf("state after failure %v %v", tt, y)
	}
}

// TestCheckpointBitIdentical: N steps, checkpoint, restore into a fresh
// stepper, M steps gives bit-identical results to N+M uninterrupted, for
// every fixed-step method (carried derivative, acceleration and clock
// included). A step-size change in the middle exercises the clock.
func TestCheckpointBitIdentical(t *testing.T) {
	const N, M = 7, 9
	dts := func(i int) float64 {
		if i < 5 {
			return 0.1
		}
		return 0.03
	}
	for _, m := range Methods() {
		ref, _ := m.New(&oscillator{}, &DriverOptions{IDs: []int64{7}})
		ref.Init(0.3, []float64{1, 0.2})
		for i := 0; i < N+M; i++ {
			if err := ref.Step(dts(i)); err != nil {
				t.Fatal(err)
			}
		}
		a, _ := m.New(&oscillator{}, &DriverOptions{IDs: []int64{7}})
		a.Init(0.3, []float64{1, 0.2})
		for i := 0; i < N; i++ {
			a.Step(dts(i))
		}
		cp := a.(Checkpointer).Checkpoint()
		b, _ := m.New(&oscillator{}, &DriverOptions{IDs: []int64{7}})
		if err := b.(Checkpointer).Restore(cp); err != nil {
			t.Fatal(err)
		}
		for i := N; i < N+M; i++ {
			if err := b.Step(dts(i)); err != nil {
				t.Fatal(err)
			}
		}
		t1, y1 := ref.State()
		t2, y2 := b.State()
		if t1 != t2 || y1[0] != y2[0] || y1[1] != y2[1] || ref.Work() != b.Work() {
			t.Errorf("%s: restored run (%v %v %+v) differs from uninterrupted (%v %v %+v)", m.Name(), t2, y2, b.Work(), t1, y1, ref.Work())
		}
		// A checkpoint of another method or layout is rejected.
		other, _ := ByName(MethodHeun)
		if m.Name() != MethodHeun {
			o, _ := other.New(&oscillator{}, nil)
			if err := o.(Checkpointer).Restore(cp); !errors.Is(err, ErrStateMismatch) {
				t.Errorf("%s checkpoint restored into heun: %v", m.Name(), err)
			}
		}
	}
}

// TestTimeFromStepCount: 1000 steps of 0.001 land exactly on 1 (t = t0 +
// n·dt), where summing dt would not.
func TestTimeFromStepCount(t *testing.T) {
	st, _ := ForwardEuler{}.New(expSin, nil)
	st.Init(0, []float64{0})
	sum := 0.0
	for i := 0; i < 1000; i++ {
		st.Step(0.001)
		sum += 0.001
	}
	if tt, _ := st.State(); tt != 1 || sum == 1 {
		t.Errorf("t = %v (sum %v)", tt, sum)
	}
}

func ExampleMethods() {
	// Every method, one second of x'' = −x from x = 1 with 100 steps.
	for _, m := range Methods() {
		st, err := m.New(&oscillator{}, nil)
		if err != nil {
			panic(err)
		}
		st.Init(0, []float64{1, 0})
		for i := 0; i < 100; i++ {
			if err := st.Step(0.01); err != nil {
				panic(err)
			}
		}
		tt, y := st.State()
		e := math.Abs(y[0] - math.Cos(1))
		es := fmt.Sprintf("%.0e", e)
		if e < 1e-12 {
			es = "<1e-12"
		}
		fmt.Printf("%-20s order %d  t=%.2f  x=%.6f  error %s\n", m.Name(), m.Order(), tt, y[0], es)
	}
	// Output:
	// forward-euler        order 1  t=1.00  x=0.543039  error 3e-03
	// semi-implicit-euler  order 1  t=1.00  x=0.536091  error 4e-03
	// heun                 order 2  t=1.00  x=0.540288  error 1e-05
	// rk4                  order 4  t=1.00  x=0.540302  error 7e-11
	// dormand-prince       order 5  t=1.00  x=0.540302  error <1e-12
	// backward-euler       order 1  t=1.00  x=0.537636  error 3e-03
	// implicit-trapezoid   order 2  t=1.00  x=0.540309  error 7e-06
	// newmark              order 2  t=1.00  x=0.540309  error 7e-06
	// generalized-alpha    order 2  t=1.00  x=0.540313  error 1e-05
	// esdirk43             order 4  t=1.00  x=0.540302  error 7e-12
	// esdirk32             order 3  t=1.00  x=0.540302  error 1e-08
	// bdf                  order 5  t=1.00  x=0.540302  error 9e-12
}

// TestDistinctSteppersConcurrent: distinct steppers over a stateless
// System may run concurrently (run with -race) and give bit-identical
// results to a sequential run.
func TestDistinctSteppersConcurrent(t *testing.T) {
	run := func(m Method) []float64 {
		st, _ := m.New(spring{k: 4}, nil)
		st.Init(0, []float64{1, 0})
		for i := 0; i < 200; i++ {
			if err := st.Step(0.01); err != nil {
				panic(err)
			}
		}
		_, y := st.State()
		return append([]float64(nil), y...)
	}
	ms := Methods()
	want := make([][]float64, len(ms))
	for i, m := range ms {
		want[i] = run(m)
	}
	got := make([][]float64, 2*len(ms))
	done := make(chan struct{})
	for i := range got {
		go func() {
			defer func() { done <- struct{}{} }()
			got[i] = run(ms[i%len(ms)])
		}()
	}
	for range got {
		<-done
	}
	for i, y := range got {
		w := want[i%len(ms)]
		if y[0] != w[0] || y[1] != w[1] {
			t.Errorf("%s: concurrent %v, sequential %v", ms[i%len(ms)].Name(), y, w)
		}
	}
}

func ExampleByName() {
	// A node whose metadata names "semi-implicit-euler" is checked against
	// the named scheme applied to its derivatives: here a falling ball,
	// y = [x, v], with x' = v paired to its velocity.
	m, err := ByName("semi-implicit-euler")
	if err != nil {
		panic(err)
	}
	st, err := m.New(partFunc{n: 2, pos: []int{0}, vel: []int{1}, f: func(t float64, y, dst []float64) error {
		dst[0], dst[1] = y[1], -9.81
		return nil
	}}, nil)
	if err != nil {
		panic(err)
	}
	st.Init(0, []float64{10, 0})
	for i := 0; i < 10; i++ {
		st.Step(0.01)
	}
	t, y := st.State()
	fmt.Printf("%s (order %d): t=%.2f x=%.6f v=%.4f\n", st.Method(), st.Order(), t, y[0], y[1])
	// Output:
	// semi-implicit-euler (order 1): t=0.10 x=9.946045 v=-0.9810
}
