package coupling

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// linearMap is G(u) = A·u + b.
type linearMap struct {
	a [][]float64
	b []float64
}

func (l linearMap) apply(dst, u []float64) {
	for i := range dst {
		s := l.b[i]
		for j, x := range u {
			s += l.a[i][j] * x
		}
		dst[i] = s
	}
}

// iterate runs one step of the accelerated iteration from u0 and returns
// the number of evaluations of G to convergence (|G(u) − u| ≤ 1e-12 +
// 1e-12·|G(u)|), or -1.
func iterate(acc Accelerator, g linearMap, u0 []float64, max int) (int, []float64) {
	n := len(u0)
	u, gu, next := append([]float64(nil), u0...), make([]float64, n), make([]float64, n)
	acc.Begin()
	defer acc.End()
	for k := 1; k <= max; k++ {
		g.apply(gu, u)
		if ok, _ := Converged(u, gu, 1e-12, 1e-12); ok {
			return k, u
		}
		acc.Next(next, u, gu)
		u, next = next, u
	}
	return -1, u
}

// Relaxation: u + ω·(G(u) − u), exactly.
func TestRelaxation(t *testing.T) {
	acc, err := NewAccelerator(Acceleration{Omega: 0.25}, 2)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]float64, 2)
	acc.Next(dst, []float64{1, 2}, []float64{3, -2})
	if dst[0] != 1.5 || dst[1] != 1 {
		t.Errorf("got %v, want [1.5 1]", dst)
	}
	if _, err := NewAccelerator(Acceleration{Omega: math.NaN()}, 1); err == nil {
		t.Error("NaN ω accepted")
	}
}

// On a scalar linear map G(u) = λu + b Aitken's second factor is the
// secant 1/(1 − λ), so the third iterate is the fixed point b/(1 − λ) to
// round-off, even where plain iteration diverges (λ = −5).
func TestAitkenScalar(t *testing.T) {
	g := linearMap{a: [][]float64{{-5}}, b: []float64{3}}
	acc, _ := NewAccelerator(Acceleration{Accel: Aitken}, 1)
	k, u := iterate(acc, g, []float64{0}, 10)
	if k != 3 || !numtest.Within(u[0], 0.5, 1e-15) {
		t.Errorf("converged in %d to %v, want 3 iterations to 0.5", k, u)
	}
	if w := acc.Stats().Omega; !numtest.Within(w, 1.0/6, 1e-15) {
		t.Errorf("ω = %v, want 1/6", w)
	}
	// The next step starts from min(|ω|, ω0) = 1/6.
	acc.Begin()
	if w := acc.Stats().Omega; !numtest.Within(w, 1.0/6, 1e-15) {
		t.Errorf("first ω of the next step = %v, want 1/6", w)
	}
	// Bounds: |ω| ≤ OmegaMax.
	acc, _ = NewAccelerator(Acceleration{Accel: Aitken, OmegaMax: 2}, 1)
	g = linearMap{a: [][]float64{{0.99}}, b: []float64{1}} // secant factor 100
	iterate(acc, g, []float64{0}, 3)
	if w := acc.Stats().Omega; w != 2 {
		t.Errorf("ω = %v, want the bound 2", w)
	}
}

// IQN-ILS solves a linear interface problem of n values in at most n+2
// evaluations of G (n+1 differences span the space), also when plain
// iteration diverges; a random 6×6 A with spectral radius > 1 (seed 1).
func TestIQNILSLinear(t *testing.T) {
	const n = 6
	r := rand.New(rand.NewPCG(1, 2))
	g := linearMap{a: make([][]float64, n), b: make([]float64, n)}
	for i := range g.a {
		g.a[i] = make([]float64, n)
		for j := range g.a[i] {
			g.a[i][j] = 2 * (r.Float64() - 0.5)
		}
		g.b[i] = r.Float64()
	}
	plain, _ := NewAccelerator(Acceleration{}, n)
	if k, _ := iterate(plain, g, make([]float64, n), 200); k != -1 {
		t.Fatalf("plain iteration converged in %d: the test map should make it diverge", k)
	}
	acc, _ := NewAccelerator(Acceleration{Accel: IQNILS}, n)
	k, u := iterate(acc, g, make([]float64, n), 50)
	if k < 0 || k > n+2 {
		t.Fatalf("IQN-ILS: %d iterations, want ≤ %d", k, n+2)
	}
	gu := make([]float64, n)
	g.apply(gu, u)
	if ok, res := Converged(u, gu, 1e-10, 0); !ok {
		t.Errorf("residual %g", res)
	}
	// Reuse: the next step of the same map starts with the previous
	// columns, an exact inverse Jacobian, and converges in two.
	reuse, _ := NewAccelerator(Acceleration{Accel: IQNILS, Reuse: 1}, n)
	k1, _ := iterate(reuse, g, make([]float64, n), 50)
	k2, _ := iterate(reuse, g, []float64{1, 1, 1, 1, 1, 1}, 50)
	t.Logf("IQN-ILS: %d iterations; with reuse %d then %d", k, k1, k2)
	if k2 > 2 {
		t.Errorf("with reuse the second step took %d iterations", k2)
	}
}

// The filter drops dependent columns: G moves u along e1 only
// (G(u) = (cos u_1, 0, 0) from u = 0), so every difference is parallel to
// the newest and the older ones are dropped; the iteration still
// converges, to the root of cos x = x.
func TestIQNILSFilter(t *testing.T) {
	acc, _ := NewAccelerator(Acceleration{Accel: IQNILS}, 3)
	acc.Begin()
	u, g, next := make([]float64, 3), make([]float64, 3), make([]float64, 3)
	k := 1
	for ; k < 50; k++ {
		g[0] = math.Cos(u[0])
		if ok, _ := Converged(u, g, 1e-14, 0); ok {
			break
		}
		acc.Next(next, u, g)
		u, next = next, u
	}
	st := acc.Stats()
	t.Logf("%d iterations to %v, stats %+v", k, u[0], st)
	if st.Dropped == 0 || st.Columns != 1 || !numtest.Within(u[0], 0.7390851332151607, 1e-14) {
		t.Errorf("%d iterations to %v, stats %+v", k, u[0], st)
	}
}

// A least-squares step that is not finite falls back to relaxation with
// ω0 and is counted.
func TestIQNILSFallback(t *testing.T) {
	acc, _ := NewAccelerator(Acceleration{Accel: IQNILS, Omega: 0.5}, 2)
	acc.Begin()
	dst := make([]float64, 2)
	acc.Next(dst, []float64{0, 0}, []float64{1, 1}) // no columns: relaxation
	if dst[0] != 0.5 {
		t.Fatalf("first iterate %v", dst)
	}
	acc.Next(dst, []float64{0.5, 0.5}, []float64{math.Inf(1), 1})
	if st := acc.Stats(); st.Fallbacks != 1 {
		t.Errorf("stats %+v, want one fallback", st)
	}
}

func TestConvergedAndPredict(t *testing.T) {
	ok, r := Converged([]float64{1, 100}, []float64{1 + 1e-9, 100 + 1e-7}, 1e-8, 1e-8)
	if !ok || !numtest.Within(r, 1e-7, 1e-13) {
		t.Errorf("ok %v r %v", ok, r)
	}
	if ok, r := Converged([]float64{0}, []float64{math.NaN()}, 1, 1); ok || !math.IsNaN(r) {
		t.Errorf("NaN: ok %v r %v", ok, r)
	}
	dst := make([]float64, 2)
	LinearPredictor.Predict(dst, []float64{2, 3}, []float64{1, 1})
	if dst[0] != 3 || dst[1] != 5 {
		t.Errorf("linear %v", dst)
	}
	LinearPredictor.Predict(dst, []float64{2, 3}, nil)
	if dst[0] != 2 || dst[1] != 3 {
		t.Errorf("linear without history %v", dst)
	}
}

// The allocation-free accelerators do not allocate per iteration.
func TestAccelAllocs(t *testing.T) {
	for _, m := range []Accel{Relaxation, Aitken} {
		acc, _ := NewAccelerator(Acceleration{Accel: m}, 4)
		u, g, d := []float64{1, 2, 3, 4}, []float64{2, 3, 4, 5}, make([]float64, 4)
		if a := testing.AllocsPerRun(100, func() { acc.Next(d, u, g) }); a != 0 {
			t.Errorf("%s: %v allocations per iteration", m, a)
		}
	}
}

// SaveState and RestoreState carry an accelerator's memory to a fresh one:
// the next step is bit-identical (the linear map of TestIQNILSLinear and
// the scalar one of TestAitkenScalar); states of another method or
// dimension are rejected.
func TestAccelStateRoundTrip(t *testing.T) {
	g := linearMap{a: [][]float64{{0.5, -2}, {1, 0.3}}, b: []float64{1, 2}}
	for _, a := range []Acceleration{{Accel: Aitken}, {Accel: IQNILS, Reuse: 2}, {Accel: Relaxation, Omega: 0.2}} {
		acc, _ := NewAccelerator(a, 2)
		iterate(acc, g, []float64{0, 0}, 50)
		st := acc.(StateSaver).SaveState()
		fresh, _ := NewAccelerator(a, 2)
		if err := fresh.(StateSaver).RestoreState(st); err != nil {
			t.Fatal(err)
		}
		k1, u1 := iterate(acc, g, []float64{3, 1}, 50)
		k2, u2 := iterate(fresh, g, []float64{3, 1}, 50)
		if k1 != k2 || math.Float64bits(u1[0]) != math.Float64bits(u2[0]) || math.Float64bits(u1[1]) != math.Float64bits(u2[1]) {
			t.Errorf("%s: %d iterations to %v, restored %d to %v", a.Accel, k1, u1, k2, u2)
		}
		other, _ := NewAccelerator(Acceleration{Accel: IQNILS}, 3)
		if a.Accel != IQNILS {
			other, _ = NewAccelerator(Acceleration{Accel: IQNILS}, 2)
		}
		if err := other.(StateSaver).RestoreState(st); err == nil {
			t.Errorf("%s: state restored into %+v", a.Accel, other.Stats())
		}
	}
}

// An iterated group whose members read nothing from one another has an
// interface of no values (graph builds its accelerator with n = 0): every
// accelerator accepts n = 0 and iterates it, over several steps of
// several iterates (IQN-ILS then has no room for a column), without
// panicking and without columns or fallbacks.
func TestEmptyInterface(t *testing.T) {
	for _, m := range []Accel{Relaxation, Aitken, IQNILS} {
		acc, err := NewAccelerator(Acceleration{Accel: m}, 0)
		if err != nil {
			t.Fatalf("%s: NewAccelerator(n = 0): %v", m, err)
		}
		for range 2 {
			acc.Begin()
			for range 3 {
				acc.Next([]float64{}, []float64{}, []float64{})
			}
			acc.End()
		}
		if st := acc.Stats(); st.Accel != m || st.Columns != 0 || st.Fallbacks != 0 || st.Dropped != 0 {
			t.Errorf("%s: stats %+v after two steps of an empty interface", m, st)
		}
	}
}

// Aitken bounds its factor to |ω| ≤ OmegaMax, so a factor clamped to the
// bound (the secant factor 100 of G(u) = 0.99u + 1, bounded to 2, as in
// TestAitkenScalar; −100 of G(u) = 1.01u + 1, bounded to −2) is a state
// the accelerator reaches: saved, it restores into an accelerator with
// the same bound. A factor beyond the bound is rejected.
func TestAitkenStateAtBound(t *testing.T) {
	for _, c := range []struct {
		lambda, want float64
	}{{0.99, 2}, {1.01, -2}} {
		acc, _ := NewAccelerator(Acceleration{Accel: Aitken, OmegaMax: 2}, 1)
		iterate(acc, linearMap{a: [][]float64{{c.lambda}}, b: []float64{1}}, []float64{0}, 3)
		st := acc.(StateSaver).SaveState()
		if st.Omega != c.want {
			t.Fatalf("λ = %v: saved ω = %v, want the bound %v", c.lambda, st.Omega, c.want)
		}
		fresh, _ := NewAccelerator(Acceleration{Accel: Aitken, OmegaMax: 2}, 1)
		if err := fresh.(StateSaver).RestoreState(st); err != nil {
			t.Errorf("λ = %v: state with ω at the bound rejected: %v", c.lambda, err)
		} else if got := fresh.Stats().Omega; got != c.want {
			t.Errorf("λ = %v: restored ω = %v, want %v", c.lambda, got, c.want)
		}
		st.Omega = 2 * c.want
		if err := fresh.(StateSaver).RestoreState(st); err == nil {
			t.Errorf("λ = %v: ω = %v beyond the bound 2 accepted", c.lambda, st.Omega)
		}
	}
}

// IQN-ILS states from step 0 are valid: a fresh accelerator's (no step
// begun) and that of one iterated without Begin (one fixed-point solve,
// no time windows), whose columns carry the tag 0. Each restores into a
// fresh accelerator, which then iterates bit for bit as the original
// (the contract of StateSaver).
func TestIQNILSStateFromStepZero(t *testing.T) {
	a := Acceleration{Accel: IQNILS, Reuse: 1}
	fresh, _ := NewAccelerator(a, 2)
	st := fresh.(StateSaver).SaveState()
	other, _ := NewAccelerator(a, 2)
	if err := other.(StateSaver).RestoreState(st); err != nil {
		t.Errorf("state of a fresh accelerator (step %d) rejected: %v", st.Step, err)
	}

	g := linearMap{a: [][]float64{{0.5, -2}, {1, 0.3}}, b: []float64{1, 2}}
	acc, _ := NewAccelerator(a, 2)
	u, gu, next := []float64{0, 0}, make([]float64, 2), make([]float64, 2)
	for range 3 {
		g.apply(gu, u)
		acc.Next(next, u, gu)
		u, next = next, u
	}
	st = acc.(StateSaver).SaveState()
	if st.Step != 0 || len(st.Tags) != 2 || st.Tags[0] != 0 || st.Tags[1] != 0 {
		t.Fatalf("state after three iterates without Begin: step %d, tags %v; want step 0, tags [0 0]", st.Step, st.Tags)
	}
	restored, _ := NewAccelerator(a, 2)
	if err := restored.(StateSaver).RestoreState(st); err != nil {
		t.Fatalf("state with columns of step 0 rejected: %v", err)
	}
	k1, u1 := iterate(acc, g, []float64{3, 1}, 50)
	k2, u2 := iterate(restored, g, []float64{3, 1}, 50)
	if k1 != k2 || math.Float64bits(u1[0]) != math.Float64bits(u2[0]) || math.Float64bits(u1[1]) != math.Float64bits(u2[1]) {
		t.Errorf("%d iterations to %v, restored %d to %v", k1, u1, k2, u2)
	}
}
