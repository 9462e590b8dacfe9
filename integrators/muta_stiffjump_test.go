package integrators

import (
	"errors"
	"math"
	"testing"
)

// manifoldA is y' = −k(t)·(y − cos t) − sin t, whose solution from
// y(0) = 1 is cos t for every k; the stiffness k jumps from 10 to 1e5 at
// tj. The solution does not notice, but a Newton iteration with the
// Jacobian −10 from before the jump diverges after it (its contraction
// factor is about 1e4), and converges at once with a fresh one.
func manifoldA(tj float64) jacSysA {
	k := func(t float64) float64 {
		if t >= tj {
			return 1e5
		}
		return 10
	}
	return jacSysA{n: 1,
		f:   func(t float64, y, d []float64) { d[0] = -k(t)*(y[0]-math.Cos(t)) - math.Sin(t) },
		jac: func(t float64, _, d []float64) { d[0] = -k(t) }}
}

// A fixed-step Stepper whose Newton iteration fails with an old
// Jacobian retries the step once with a fresh one (Stepper Step: a
// Newton failure is an error only "after one retry with a fresh
// Jacobian"), so steps of 1/8 over the jump of manifoldA all succeed
// and end on cos t (to 1e-3: after the jump the stiff manifold pulls the
// solution within about h/k·|y″| of it). The jump is placed just after
// a step's start (the next float), so that the step's first stage and
// the Jacobian of the steps before it see k = 10 and every implicit
// stage after it k = 1e5: just after 1/8 (BDF-3's second step, one of
// its two ESDIRK43 starting steps) and just after 1 (step 9). The work
// counts say what happened: the trial with the old Jacobian is the one
// rejected trial.
func TestFixedStepNewtonRetryFreshJacobianA(t *testing.T) {
	for _, tj := range []float64{math.Nextafter(0.125, 1), math.Nextafter(1, 2)} {
		for _, m := range []Method{BDF{MaxOrder: 3}, BDF{MaxOrder: 1}, ESDIRK43{}, ESDIRK32{}} {
			s, err := m.New(manifoldA(tj), nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Init(0, []float64{1}); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 15; i++ {
				if err := s.Step(0.125); err != nil {
					t.Fatalf("jump at %v, %s: step %d: %v", tj, m.Name(), i+1, err)
				}
			}
			tt, y := s.State()
			if math.Abs(y[0]-math.Cos(tt)) > 1e-3 {
				t.Errorf("jump at %v, %s: y(%v) = %v, want cos t = %v", tj, m.Name(), tt, y[0], math.Cos(tt))
			}
			// One Jacobian at the start and one fresh after the jump, the
			// trial with the old one rejected; with the constant step the
			// Newton matrix is factored only with a new Jacobian, and once
			// more where BDF-3 passes from its ESDIRK43 starting steps
			// (matrix I − γh·J) to BDF (I − h/l₁·J).
			w := s.Work()
			fact := w.JacEvals
			if bdf, ok := m.(BDF); ok && bdf.MaxOrder > 1 {
				fact++
			}
			if w.Rejected != 1 || w.JacEvals != 2 || w.Factorize != fact {
				t.Errorf("jump at %v, %s: %+v, want 1 rejected trial, 2 Jacobians, %d factorizations", tj, m.Name(), w, fact)
			}
		}
	}
}

// An error of the right-hand side in a fixed step is the step's error,
// numbered (StepError.Step is the 1-based step that failed) and counted
// as a rejected trial: f fails from t = 0.25 on, steps of 0.1 from 0, so
// step 3 fails (a starting step of BDF-3 would be steps 1 and 2; BDF-2's
// only starting step is step 1, BDF-3's last is step 2: f failing at
// 0.15 makes step 2 fail there).
func TestFixedStepFuncErrorNumberedA(t *testing.T) {
	bad := errors.New("f failed")
	sys := func(tf float64) SystemFunc {
		return SystemFunc{N: 1, F: func(t float64, y, d []float64) error {
			if t > tf {
				return bad
			}
			d[0] = -y[0]
			return nil
		}}
	}
	for _, c := range []struct {
		m    Method
		tf   float64
		step int
	}{
		{ESDIRK43{}, 0.25, 3}, {ESDIRK32{}, 0.25, 3}, {BDF{MaxOrder: 3}, 0.15, 2}, {BDF{MaxOrder: 3}, 0.25, 3},
	} {
		s, err := c.m.New(sys(c.tf), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Init(0, []float64{1}); err != nil {
			t.Fatal(err)
		}
		var serr error
		for i := 0; i < 5 && serr == nil; i++ {
			serr = s.Step(0.1)
		}
		se := stepErrA(t, serr)
		if w := s.Work(); !errors.Is(serr, bad) || se.Step != c.step || w.Rejected != 1 || w.Steps != c.step-1 {
			t.Errorf("%s, f failing after %v: %+v after %+v, want step %d failing, one rejected trial", c.m.Name(), c.tf, se, w, c.step)
		}
	}
}

// timeJumpA is y' = 0 before t = 1 and 1 from then on, with its time
// event at 1 (TimeEventSystem).
type timeJumpA struct{}

func (timeJumpA) Dim() int { return 1 }
func (timeJumpA) Func(t float64, _, d []float64) error {
	d[0] = 0
	if t >= 1 {
		d[0] = 1
	}
	return nil
}
func (timeJumpA) NextTimeEvent(t float64) float64 {
	if t < 1 {
		return 1
	}
	return math.Inf(1)
}

// A step that ends exactly on a time event at tMax evaluates f only
// below it (TimeEventSystem: the left limit), so y' = 0 up to the jump
// of f at 1 leaves y = 0 exactly when Step(1) lands there; the jump is
// seen from the next step on (y = t − 1 after it, exact for every method
// here).
func TestTimeEventAtTMaxLeftLimitA(t *testing.T) {
	for _, m := range adaptiveImplicitA(StepControl{InitialStep: 2}) {
		d, err := m.NewDriver(timeJumpA{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(0, []float64{0}); err != nil {
			t.Fatal(err)
		}
		rep, err := d.Step(1)
		if err != nil {
			t.Fatal(err)
		}
		_, y := d.State()
		if rep.T1 != 1 || y[0] != 0 {
			t.Errorf("%s: Step(1) ended at %v with y = %v, want 1 with y = 0", m.Name(), rep.T1, y[0])
		}
		rep, err = d.Step(1.5)
		if err != nil {
			t.Fatal(err)
		}
		_, y = d.State()
		if math.Abs(y[0]-(rep.T1-1)) > 1e-12 {
			t.Errorf("%s: y(%v) = %v, want %v", m.Name(), rep.T1, y[0], rep.T1-1)
		}
	}
}

// MaxStep bounds every step of the BDF driver, the step it proposes
// included: y' = −y/10 at loose tolerances wants steps far above 0.05.
func TestBDFMaxStepA(t *testing.T) {
	sys := jacSysA{n: 1, f: func(_ float64, y, d []float64) { d[0] = -y[0] / 10 },
		jac: func(_ float64, _, d []float64) { d[0] = -0.1 }}
	const hmax = 0.05
	d, err := BDF{RTol: 1e-3, ATol: 1e-3, MaxStep: hmax}.NewDriver(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Init(0, []float64{1}); err != nil {
		t.Fatal(err)
	}
	atMax := 0
	for tc := 0.0; tc < 5; {
		rep, err := d.Step(5)
		if err != nil {
			t.Fatal(err)
		}
		tc = rep.T1
		if rep.H > hmax*(1+1e-12) || d.NextStep() > hmax*(1+1e-12) {
			t.Fatalf("step %v, next %v after t = %v: above MaxStep %v", rep.H, d.NextStep(), tc, hmax)
		}
		if rep.H > hmax*(1-1e-12) {
			atMax++
		}
	}
	if atMax < 50 {
		t.Errorf("only %d steps at MaxStep: the bound was not tested", atMax)
	}
}

// The first step from t0 = 2 with an InitialStep (100) larger than the
// way to tMax (6.2) is that way, as computed: StepReport.H = T1 − T0
// exactly (not a rescaling of a longer step, 8.2·(4.2/8.2) = 4.2 − ulp),
// and y' = 1 (which BDF-1 and ESDIRK integrate exactly) gives
// y = 2 + (6.2 − 2) to the bit.
func TestFirstStepCutToTMaxA(t *testing.T) {
	sys := jacSysA{n: 1, f: func(_ float64, _, d []float64) { d[0] = 1 }, jac: func(_ float64, _, d []float64) { d[0] = 0 }}
	for _, m := range adaptiveImplicitA(StepControl{InitialStep: 100}) {
		d, err := m.NewDriver(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(2, []float64{2}); err != nil {
			t.Fatal(err)
		}
		rep, err := d.Step(6.2)
		if err != nil {
			t.Fatal(err)
		}
		_, y := d.State()
		t0, tMax := 2.0, 6.2
		if h := tMax - t0; rep.T1 != tMax || rep.H != h || y[0] != t0+h {
			t.Errorf("%s: step [%v, %.17g] of %.17g, y = %.17g; want T1 = 6.2, H = %.17g, y = %.17g", m.Name(), rep.T0, rep.T1, rep.H, y[0], h, t0+h)
		}
	}
}

// The adaptive BDF driver retries a Newton iteration that failed with an
// old Jacobian at the same step with a fresh one before it counts a
// convergence failure: over the stiffness jump of manifoldA (k from 10
// to 1e5 at tj) a run to t = 3 at RTol 1e-6, ATol 1e-8 evaluates two
// Jacobians, the first and the fresh one after the jump, and its
// rejected trials are the error test's (measured: 7 and 5; a driver
// that shrank the step instead of retrying rejects 17 and 25 trials and
// takes twice the steps).
func TestBDFDriverRetriesFreshJacobianA(t *testing.T) {
	for _, tj := range []float64{1, 0.3} {
		d, err := BDF{RTol: 1e-6, ATol: 1e-8}.NewDriver(manifoldA(tj), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(0, []float64{1}); err != nil {
			t.Fatal(err)
		}
		for tc := 0.0; tc < 3; {
			rep, err := d.Step(3)
			if err != nil {
				t.Fatal(err)
			}
			tc = rep.T1
		}
		_, y := d.State()
		if w := d.Work(); w.JacEvals != 2 || w.Rejected > 8 || math.Abs(y[0]-math.Cos(3)) > 1e-5 {
			t.Errorf("jump at %v: y(3) = %v (cos 3 = %v) after %+v, want 2 Jacobians and at most 8 rejections", tj, y[0], math.Cos(3), w)
		}
	}
}
