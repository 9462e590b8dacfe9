package integrators

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// TestNewmarkDeclaredOrder: Newmark{Beta: β, Gamma: γ} declares order 2 only for γ = ½
// and 1 otherwise, and the observed global order on the oscillator ẍ = −x
// over [0, 2] (x = cos t) matches the declaration within 0.1, the
// tolerance of TestObservedOrder. For γ ≠ ½ the velocity update has the
// local error (γ−½)·dt²·ȧ (Hughes, The Finite Element Method, §9.1.2),
// hence first order: Newmark{Beta: 0.3025, Gamma: 0.6}, the audit's case, measures
// ≈ 1.00. Both the first-order adapter and the second-order runner report
// the declared order.
func TestNewmarkDeclaredOrder(t *testing.T) {
	const T = 2
	cases := []struct {
		beta, gamma float64
		order       int
		n           int // coarsest step count, refined ×2, ×4
	}{
		{0.25, 0.5, 2, 200},
		{1.0 / 6, 0.5, 2, 200}, // linear acceleration, conditionally stable (ω·dt ≤ √12)
		{0.3025, 0.6, 1, 2000}, // (γ+½)²/4 = 0.3025: maximal high-frequency dissipation for γ = 0.6
		{0.5, 0.75, 1, 2000},
	}
	for _, c := range cases {
		m := Newmark{Beta: c.beta, Gamma: c.gamma}
		name := label(m)
		if m.Order() != c.order {
			t.Errorf("%s: declared order %d, want %d", name, m.Order(), c.order)
		}
		st, err := m.New(&oscillator{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.Order() != c.order {
			t.Errorf("%s: stepper order %d, want %d", name, st.Order(), c.order)
		}
		r, err := m.NewSecondOrder(SecondOrderFunc{NQ: 1, A: func(t float64, q, v, z, a, zdot []float64) error {
			a[0] = -q[0]
			return nil
		}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Order() != c.order {
			t.Errorf("%s: second-order runner order %d, want %d", name, r.Order(), c.order)
		}
		var errs []float64
		for k := 0; k < 3; k++ {
			y := runFixed(t, m, &oscillator{}, []float64{1, 0}, T, c.n<<k)
			errs = append(errs, math.Max(math.Abs(y[0]-math.Cos(T)), math.Abs(y[1]+math.Sin(T))))
		}
		p := observedOrder(errs)
		t.Logf("%-28s errors %.3e → observed order %.3f, declared %d", name, errs, p, m.Order())
		numtest.ExpectWithin(t, name+" observed order", p, float64(m.Order()), 0.1)
	}
}

// TestNewmarkRejectsUnstableGamma: γ < ½ (negative numerical damping,
// unstable at every step size) and non-finite or non-positive parameters
// are rejected by both constructors with an error naming the problem.
func TestNewmarkRejectsUnstableGamma(t *testing.T) {
	for _, c := range []struct {
		beta, gamma float64
		want        string
	}{
		{0.25, 0.4, "unstable"},
		{0.25, -0.1, "unstable"}, // (γ = 0 is the zero value: the default ½)
		{0.25, math.NaN(), "finite"},
		{0.25, math.Inf(1), "finite"},
		{-0.1, 0.5, "β > 0"}, // (β = 0 is the zero value: the default ¼)
		{math.Inf(1), 0.5, "β > 0"},
	} {
		m := Newmark{Beta: c.beta, Gamma: c.gamma}
		_, err := m.New(&oscillator{}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Newmark{Beta: %v, Gamma: %v}.New: err %v, want one mentioning %q", c.beta, c.gamma, err, c.want)
		}
		_, err = m.NewSecondOrder(SecondOrderFunc{NQ: 1, A: func(t float64, q, v, z, a, zdot []float64) error { return nil }}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Newmark{Beta: %v, Gamma: %v}.NewSecondOrder: err %v, want one mentioning %q", c.beta, c.gamma, err, c.want)
		}
	}
	// The conditionally stable range (γ ≥ ½, 2β < γ) is accepted.
	if _, err := (Newmark{Beta: 1.0 / 6, Gamma: 0.5}).New(&oscillator{}, nil); err != nil {
		t.Errorf("linear-acceleration Newmark rejected: %v", err)
	}
}

// TestCheckpointCorruptTime: a checkpoint whose T, Clock.Base, Clock.N or
// Clock.DT was edited, or whose time is not finite, is rejected by Restore
// of every fixed-step stepper (and of a fixed-step Adaptive) with a
// *StateMismatchError naming "time" or "clock"; the genuine checkpoint restores.
func TestCheckpointCorruptTime(t *testing.T) {
	edits := []struct {
		name  string
		field string
		edit  func(c *StepperState)
	}{
		{"T edited", "time", func(c *StepperState) { c.T += 0.25 }},
		{"Base edited", "time", func(c *StepperState) { c.Clock.Base += 0.25 }},
		{"N edited", "time", func(c *StepperState) { c.Clock.N++ }},
		{"DT edited", "time", func(c *StepperState) { c.Clock.DT *= 2 }},
		{"T NaN", "time", func(c *StepperState) { c.T = math.NaN() }},
		{"T +Inf", "time", func(c *StepperState) { c.T = math.Inf(1) }},
		{"Base NaN", "clock", func(c *StepperState) { c.Clock.Base = math.NaN() }},
		{"DT negative", "clock", func(c *StepperState) { c.Clock.DT = -c.Clock.DT }},
		{"N negative", "clock", func(c *StepperState) { c.Clock.N = -3 }},
		{"DT zero with steps", "clock", func(c *StepperState) { c.Clock.DT = 0 }},
	}
	type cpr interface {
		Checkpoint() StepperState
		Restore(StepperState) error
	}
	fresh := map[string]func() cpr{}
	for _, m := range Methods() {
		m := m
		fresh[m.Name()] = func() cpr {
			st, err := m.New(&oscillator{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return st.(cpr)
		}
	}
	fresh["adaptive (fixed step)"] = func() cpr {
		a, err := newAdaptiveS(&oscillator{}, &settings{FixedStep: 0.1})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	for name, mk := range fresh {
		var cp StepperState
		if a, ok := mk().(*Adaptive); ok {
			if err := a.Init(0.3, []float64{1, 0.2}); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 3; i++ {
				if _, err := a.Step(10); err != nil {
					t.Fatal(err)
				}
			}
			cp = a.Checkpoint()
		} else {
			st := mk().(Stepper)
			st.Init(0.3, []float64{1, 0.2})
			for i := 0; i < 3; i++ {
				if err := st.Step(0.1); err != nil {
					t.Fatal(err)
				}
			}
			cp = st.(cpr).Checkpoint()
		}
		if cp.Clock.N == 0 {
			t.Fatalf("%s: checkpoint clock %+v has no steps; the test needs some", name, cp.Clock)
		}
		if err := mk().Restore(cp); err != nil {
			t.Errorf("%s: genuine checkpoint rejected: %v", name, err)
		}
		for _, e := range edits {
			c := cp
			c.Y = append([]float64(nil), cp.Y...)
			e.edit(&c)
			err := mk().Restore(c)
			var he *StateMismatchError
			if !errors.As(err, &he) || he.Field != e.field || !errors.Is(err, ErrStateMismatch) {
				t.Errorf("%s: %s: Restore returned %v, want a *StateMismatchError on %q", name, e.name, err, e.field)
				continue
			}
			if e.name == "T edited" {
				t.Logf("%s: %v", name, err)
			}
		}
	}
}

// TestCheckpointDimMessage: a wrong Dim is reported with the checkpoint's
// Dim, not len(Y) (the old message read "dim is 2, stepper has 2"), and a
// Y of the wrong length is reported as such.
func TestCheckpointDimMessage(t *testing.T) {
	m, _ := ByName(MethodRK4)
	st, _ := m.New(&oscillator{}, nil)
	st.Init(0, []float64{1, 0})
	st.Step(0.1)
	cp := st.(Checkpointer).Checkpoint()

	c := cp
	c.Dim = 12
	err := st.(Checkpointer).Restore(c)
	var he *StateMismatchError
	if !errors.As(err, &he) || he.Field != "dim" || he.Got != "12" || he.Want != "2" {
		t.Errorf("Dim 12: %v (%+v), want dim is 12, stepper has 2", err, he)
	} else if want := "dim is 12, stepper has 2"; !strings.Contains(err.Error(), want) {
		t.Errorf("Dim 12: message %q does not contain %q", err, want)
	}

	c = cp
	c.Y = []float64{1, 0, 0}
	err = st.(Checkpointer).Restore(c)
	if !errors.As(err, &he) || he.Field != "len(y)" || he.Got != "3" || he.Want != "2" {
		t.Errorf("len(Y) 3: %v, want len(y) is 3, stepper has 2", err)
	}
}
