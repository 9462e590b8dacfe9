package integrators

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// chain1D is a first-order test system: n unit masses in a line between
// two walls, joined by springs k·d + κ·d³ and dampers c·ḋ (d the
// elongation), state [x_i, v_i] per mass. It has every capability the
// Krylov path uses: SparseJacobian (analytic), Blocked (one block per
// mass), Jacobian (dense, analytic, for the dense reference) and
// Partitioned.
type chain1D struct {
	n           int
	k, c, kappa float64
	rp, col     []int
}

func newChain1D(n int, k, c, kappa float64) *chain1D {
	ch := &chain1D{n: n, k: k, c: c, kappa: kappa}
	ch.rp = append(ch.rp, 0)
	for i := 0; i < n; i++ {
		// row x_i: column v_i
		ch.col = append(ch.col, 2*i+1)
		ch.rp = append(ch.rp, len(ch.col))
		// row v_i: x and v of i-1, i, i+1
		for j := max(0, i-1); j <= min(n-1, i+1); j++ {
			ch.col = append(ch.col, 2*j, 2*j+1)
		}
		ch.rp = append(ch.rp, len(ch.col))
	}
	return ch
}

func (ch *chain1D) Dim() int { return 2 * ch.n }

// spring returns the force on the right end's mass and its derivative
// with respect to the elongation d.
func (ch *chain1D) spring(d float64) (f, df float64) {
	return -(ch.k*d + ch.kappa*d*d*d), -(ch.k + 3*ch.kappa*d*d)
}

func (ch *chain1D) pos(y []float64, i int) (x, v float64) {
	if i < 0 || i >= ch.n {
		return 0, 0
	}
	return y[2*i], y[2*i+1]
}

func (ch *chain1D) Func(t float64, y, dst []float64) error {
	for i := 0; i < ch.n; i++ {
		x, v := ch.pos(y, i)
		xl, vl := ch.pos(y, i-1)
		xr, vr := ch.pos(y, i+1)
		fl, _ := ch.spring(x - xl)
		fr, _ := ch.spring(xr - x)
		dst[2*i] = v
		dst[2*i+1] = fl - fr - ch.c*(v-vl) + ch.c*(vr-v)
	}
	return nil
}

func (ch *chain1D) Pairs() (pos, vel []int) {
	for i := 0; i < ch.n; i++ {
		pos, vel = append(pos, 2*i), append(vel, 2*i+1)
	}
	return pos, vel
}

func (ch *chain1D) Blocks() []int {
	s := make([]int, ch.n+1)
	for i := range s {
		s[i] = 2 * i
	}
	return s
}

func (ch *chain1D) JacobianPattern() ([]int, []int) { return ch.rp, ch.col }

// entries calls set(row, col, value) for every Jacobian entry.
func (ch *chain1D) entries(y []float64, set func(r, c int, v float64)) {
	for i := 0; i < ch.n; i++ {
		x, _ := ch.pos(y, i)
		xl, _ := ch.pos(y, i-1)
		xr, _ := ch.pos(y, i+1)
		_, dl := ch.spring(x - xl)
		_, dr := ch.spring(xr - x)
		r := 2*i + 1
		set(2*i, 2*i+1, 1)
		set(r, 2*i, dl+dr)
		set(r, 2*i+1, -2*ch.c)
		if i > 0 {
			set(r, 2*(i-1), -dl)
			set(r, 2*(i-1)+1, ch.c)
		}
		if i < ch.n-1 {
			set(r, 2*(i+1), -dr)
			set(r, 2*(i+1)+1, ch.c)
		}
	}
}

// SparseJacobian writes the entries of entries() in pattern order,
// without a closure (allocation-free, for TestKrylovStepDoesNotAllocate).
func (ch *chain1D) SparseJacobian(t float64, y, val []float64) error {
	clear(val)
	add := func(r, c int, v float64) {
		for k := ch.rp[r]; k < ch.rp[r+1]; k++ {
			if ch.col[k] == c {
				val[k] += v
				return
			}
		}
		panic("entry outside the pattern")
	}
	for i := 0; i < ch.n; i++ {
		x, _ := ch.pos(y, i)
		xl, _ := ch.pos(y, i-1)
		xr, _ := ch.pos(y, i+1)
		_, dl := ch.spring(x - xl)
		_, dr := ch.spring(xr - x)
		r := 2*i + 1
		add(2*i, 2*i+1, 1)
		add(r, 2*i, dl+dr)
		add(r, 2*i+1, -2*ch.c)
		if i > 0 {
			add(r, 2*(i-1), -dl)
			add(r, 2*(i-1)+1, ch.c)
		}
		if i < ch.n-1 {
			add(r, 2*(i+1), -dr)
			add(r, 2*(i+1)+1, ch.c)
		}
	}
	return nil
}

func (ch *chain1D) Jacobian(t float64, y, dst []float64) error {
	clear(dst)
	n := ch.Dim()
	ch.entries(y, func(r, c int, v float64) { dst[r*n+c] += v })
	return nil
}

// initial is the first mode of the linear chain with amplitude a.
func (ch *chain1D) initial(a float64) []float64 {
	y := make([]float64, ch.Dim())
	for i := 0; i < ch.n; i++ {
		y[2*i] = a * math.Sin(math.Pi*float64(i+1)/float64(ch.n+1))
	}
	return y
}

func runSteps(t *testing.T, m Method, sys System, s *settings, y0 []float64, dt float64, steps int) ([]float64, Work) {
	t.Helper()
	st, err := newS(m, sys, s)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Init(0, y0); err != nil {
		t.Fatal(err)
	}
	for range steps {
		if err := st.Step(dt); err != nil {
			t.Fatal(err)
		}
	}
	_, y := st.State()
	return append([]float64(nil), y...), st.Work()
}

// TestKrylovAgreesWithDense: every implicit method with GMRES (each
// preconditioner, assembled and matrix-free) reaches the same states as
// dense LU on a stiff nonlinear chain, to the Newton tolerance. The
// reference is the dense-LU run of the same method (an independent
// linear solver on the same equations); the tolerance is 20·NewtonTol
// relative to the amplitude: both runs stop their Newton iterations at
// max|Δx| ≤ NewtonTol·(1+max|x|), so each step's result differs from the
// exact root by about that much, accumulated over 20 steps.
func TestKrylovAgreesWithDense(t *testing.T) {
	ch := newChain1D(40, 1e7, 10, 1e9)
	y0 := ch.initial(0.01)
	methods := []Method{catalog[5], catalog[6], Newmark{Beta: 0.25, Gamma: 0.5}, GeneralizedAlpha{RhoInf: 0.5}}
	const tol = 1e-10
	for _, m := range methods {
		ref, rs := runSteps(t, m, ch, &settings{LinearSolver: LinearDense, NewtonTol: tol}, y0, 1e-3, 20)
		if rs.LinearIters != 0 || rs.Factorize != rs.NewtonIters {
			t.Errorf("%s dense: stats %+v", m.Name(), rs)
		}
		type cfg struct {
			lin LinearSolver
			pc  Preconditioner
			mf  bool
		}
		var cfgs []cfg
		for _, pc := range []Preconditioner{PrecondBlockJacobi, PrecondILU0, PrecondNone} {
			for _, mf := range []bool{false, true} {
				cfgs = append(cfgs, cfg{LinearGMRES, pc, mf})
			}
		}
		cfgs = append(cfgs, cfg{lin: LinearBanded})
		for _, cf := range cfgs {
			{
				pc, mf := cf.pc, cf.mf
				s := &settings{LinearSolver: cf.lin, Preconditioner: pc, MatrixFree: mf, NewtonTol: tol}
				y, st := runSteps(t, m, ch, s, y0, 1e-3, 20)
				d := 0.0
				for i := range y {
					d = math.Max(d, math.Abs(y[i]-ref[i]))
				}
				name := m.Name() + "/" + pc.String()
				if cf.lin == LinearBanded {
					name = m.Name() + "/banded"
				}
				if mf {
					name += "/matrix-free"
				}
				if !numtest.AtMost(d, 20*tol*(1+0.01)) {
					t.Errorf("%s: max |Δy| = %.3g against dense", name, d)
				}
				if (st.LinearIters == 0) != (cf.lin == LinearBanded) || st.LinearSolves != st.NewtonIters {
					t.Errorf("%s: stats %+v", name, st)
				}
				if mf && pc == PrecondNone && st.JacEvals != 0 {
					t.Errorf("%s: matrix-free without preconditioner formed %d Jacobians", name, st.JacEvals)
				}
				t.Logf("%s: Δ %.2g, Newton %d, GMRES %d, RHS %d, Jacobians %d, setups %d", name, d, st.NewtonIters, st.LinearIters, st.FuncEvals, st.JacEvals, st.Factorize)
			}
		}
	}
}

// TestGMRESSolvesRandomSystem: GMRES(m) with each preconditioner solves a
// random diagonally dominant nonsymmetric sparse system to its
// tolerance; the residual is checked independently, ‖b − A·x‖ ≤ tol·‖b‖.
func TestGMRESSolvesRandomSystem(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 200
	A := testMatrix(n, func(i int, row []float64) {
		for range 4 {
			row[rng.IntN(n)] = rng.Float64()*2 - 1
		}
		row[i] = 5 + rng.Float64()
	})
	b := make([]float64, n)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	blocks, strided := make([]int, n), make([]int, n)
	for i := range blocks {
		blocks[i] = i / 4        // contiguous blocks, read in place
		strided[i] = i % (n / 4) // the same sizes scattered: gathered and scattered
	}
	for _, pc := range []precond{nil, newBlockJacobi(blocks), newBlockJacobi(strided), newILU0(n)} {
		if pc != nil {
			if err := pc.setup(A); err != nil {
				t.Fatal(err)
			}
		}
		// Each preconditioner with the plain product, with the product
		// fused with the first dot product, and with the solution left
		// in the solver (x nil, lazy).
		for variant := range 3 {
			g := newGMRES(n, 5) // small restart: exercises restarts
			x := make([]float64, n)
			op := func(v, dst []float64) error { A.MulVec(v, dst); return nil }
			var its int
			var err error
			switch variant {
			case 0:
				its, _, err = g.solve(op, nil, pc, b, x, -1, 1e-10, 1000, false)
			case 1:
				its, _, err = g.solve(op, A.mulVecDot, pc, b, x, norm2(b), 1e-10, 1000, false)
			case 2:
				its, _, err = g.solve(op, A.mulVecDot, pc, b, nil, -1, 1e-10, 1000, true)
				a, v := g.solution()
				for i := range x {
					x[i] = a * v[i]
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			ax := make([]float64, n)
			A.MulVec(x, ax)
			for i := range ax {
				ax[i] = b[i] - ax[i]
			}
			if r := norm2(ax) / norm2(b); r > 1e-10*(1+1e-6) {
				t.Errorf("preconditioner %T, variant %d: relative residual %.3g after %d iterations", pc, variant, r, its)
			}
			t.Logf("preconditioner %T, variant %d: %d iterations", pc, variant, its)
		}
	}
}

// TestGMRESScaleInvariant: GMRES solves A·x = s·b for s from 1e-200 to
// 1e200 with the iterations of s = 1 and x/s equal to s = 1's to 1e-13
// relative: the first iteration, run on b without normalizing it, must not
// let its products underflow or overflow (a chain that has decayed to
// 1e-160 m has Newton residuals of that size).
func TestGMRESScaleInvariant(t *testing.T) {
	n := 60
	A := testMatrix(n, func(i int, row []float64) {
		for j := max(0, i-2); j <= min(n-1, i+2); j++ {
			row[j] = -1 + 0.1*float64(j-i)
		}
		row[i] = 4
	})
	f := newILU0(n)
	if err := f.setup(A); err != nil {
		t.Fatal(err)
	}
	b := make([]float64, n)
	for i := range b {
		b[i] = math.Sin(float64(i))
	}
	op := func(v, dst []float64) error { A.MulVec(v, dst); return nil }
	solve := func(s float64, pc precond) ([]float64, int) {
		bs := make([]float64, n)
		for i := range b {
			bs[i] = s * b[i]
		}
		g := newGMRES(n, 30)
		its, _, err := g.solve(op, A.mulVecDot, pc, bs, nil, -1, 1e-12, 2000, true)
		if err != nil {
			t.Fatalf("scale %g: %v", s, err)
		}
		a, v := g.solution()
		x := make([]float64, n)
		for i := range x {
			x[i] = a * v[i] / s
		}
		return x, its
	}
	for _, pc := range []precond{f, nil} {
		ref, its0 := solve(1, pc)
		for _, s := range []float64{1e-200, 1e-160, 1e-100, 1e100, 1e160, 1e200} {
			x, its := solve(s, pc)
			if its != its0 {
				t.Errorf("%T scale %g: %d iterations, %d at scale 1", pc, s, its, its0)
			}
			for i := range x {
				if !numtest.Within(x[i], ref[i], 1e-13*(1+math.Abs(ref[i]))) {
					t.Fatalf("%T scale %g: x[%d]/s = %v, %v at scale 1", pc, s, i, x[i], ref[i])
				}
			}
		}
	}
}

// TestILU0TridiagonalIsExact: on a tridiagonal matrix LU has no fill, so
// ILU(0) is the exact LU and preconditioned GMRES converges in one
// iteration (Saad §10.3: ILU(0) = LU when the factors need no fill).
func TestILU0TridiagonalIsExact(t *testing.T) {
	n := 50
	A := testMatrix(n, func(i int, row []float64) {
		for j := max(0, i-1); j <= min(n-1, i+1); j++ {
			row[j] = -1
		}
		row[i] = 2.5
	})
	f := newILU0(n)
	if err := f.setup(A); err != nil {
		t.Fatal(err)
	}
	b := make([]float64, n)
	b[0], b[n-1] = 1, 2
	x := make([]float64, n)
	its, _, err := newGMRES(n, 30).solve(func(v, dst []float64) error { A.MulVec(v, dst); return nil }, nil, f, b, x, -1, 1e-12, 100, false)
	if err != nil || its != 1 {
		t.Errorf("iterations %d, err %v; want 1", its, err)
	}
	// The same solve leaving its one-iteration solution as scale·vector
	// (what the Newton update reads): the same x to round-off, 1e-14
	// relative (x = y_0·P⁻¹v_0 formed two ways), with nothing written
	// into a solution buffer.
	g := newGMRES(n, 30)
	its, _, err = g.solve(func(v, dst []float64) error { A.MulVec(v, dst); return nil }, A.mulVecDot, f, b, nil, norm2(b), 1e-12, 100, true)
	if err != nil || its != 1 || !g.lazyDone || g.x != nil {
		t.Fatalf("lazy: iterations %d, err %v, lazy %v, buffer %v", its, err, g.lazyDone, g.x != nil)
	}
	a, v := g.solution()
	for i := range x {
		if d := math.Abs(a*v[i] - x[i]); !numtest.AtMost(d, 1e-14*(1+math.Abs(x[i]))) {
			t.Fatalf("lazy x[%d] = %v, written %v", i, a*v[i], x[i])
		}
	}
}

// singularSys is x' = 0·x: with backward Euler A = I, fine; but with a
// zero block in A = I − dt·J where J = I/dt the block is singular.
type singularSys struct{ n int }

func (s singularSys) Dim() int { return s.n }
func (s singularSys) Func(t float64, y, dst []float64) error {
	for i, v := range y {
		dst[i] = v / 0.1
	}
	return nil
}
func (s singularSys) JacobianPattern() ([]int, []int) {
	rp, col := []int{0}, []int{}
	for i := 0; i < s.n; i++ {
		col = append(col, i)
		rp = append(rp, len(col))
	}
	return rp, col
}
func (s singularSys) SparseJacobian(t float64, y, val []float64) error {
	for i := range val {
		val[i] = 1 / 0.1
	}
	return nil
}

// stuck is y' = R·y with R a rotation by 90° scaled so that backward
// Euler's matrix I − dt·R is the rotation itself, on which GMRES(1)
// makes no progress (r·A·r = 0).
type stuck struct{}

func (stuck) Dim() int { return 2 }
func (stuck) Func(t float64, y, dst []float64) error {
	// I − dt·J = [[0, 1], [−1, 0]] with dt = 1: J = [[1, −1], [1, 1]].
	dst[0] = y[0] - y[1] + 1
	dst[1] = y[0] + y[1] + 1
	return nil
}

// divergent is y' = y − atan(y − 5) with dt = 1: backward Euler's residual
// from y = 0 is atan(x − 5), on which Newton from 5 away diverges.
type divergent struct{}

func (divergent) Dim() int { return 1 }
func (divergent) Func(t float64, y, dst []float64) error {
	dst[0] = y[0] - math.Atan(y[0]-5)
	return nil
}

// TestLinearFailures: a singular preconditioner block, GMRES stagnation
// and its iteration limit, and Newton divergence end the step with a
// StepError naming the status, step, time and residual — never a hang.
func TestLinearFailures(t *testing.T) {
	be := catalog[5]
	step := func(sys System, s *settings, dt float64) *StepError {
		t.Helper()
		st, err := newS(be, sys, s)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Init(0, make([]float64, sys.Dim())); err != nil {
			t.Fatal(err)
		}
		err = st.Step(dt)
		var se *StepError
		if !errors.As(err, &se) {
			t.Fatalf("err %v, want a StepError", err)
		}
		t.Log(err)
		if se.Step != 1 || se.T != dt || !strings.Contains(err.Error(), "step 1 at t=") {
			t.Errorf("step %d, t %v: %v", se.Step, se.T, err)
		}
		return se
	}
	se := step(singularSys{4}, &settings{LinearSolver: LinearGMRES}, 0.1)
	if se.Status != LinearFailure || !errors.Is(se, ErrLinear) || !strings.Contains(se.Error(), "singular") {
		t.Errorf("singular block: %v", se)
	}
	y0 := []float64{0, 0}
	_ = y0
	se = step(stuck{}, &settings{LinearSolver: LinearGMRES, Preconditioner: PrecondNone, KrylovRestart: 1, MatrixFree: true}, 1)
	if se.Status != LinearFailure || !strings.Contains(se.Error(), "stagnated") || !(se.Residual > 0) {
		t.Errorf("stagnation: %v", se)
	}
	se = step(stuck{}, &settings{LinearSolver: LinearGMRES, Preconditioner: PrecondNone, KrylovMaxIter: 1, MatrixFree: true}, 1)
	if se.Status != LinearFailure || !strings.Contains(se.Error(), "iteration limit") {
		t.Errorf("iteration limit: %v", se)
	}
	for _, lin := range []LinearSolver{LinearDense, LinearGMRES} {
		se = step(divergent{}, &settings{LinearSolver: lin, Preconditioner: PrecondNone, NewtonMaxIter: 50}, 1)
		// With GMRES the inexact first iterations take another path; the
		// iterate runs off to where atan' underflows and the Newton
		// matrix is singular: a breakdown, reported as such.
		diverged := se.Status == NewtonFailure && strings.Contains(se.Error(), "diverged")
		brokeDown := lin == LinearGMRES && se.Status == LinearFailure && strings.Contains(se.Error(), "breakdown")
		if !(diverged || brokeDown) || !(se.Residual > 1) || se.Iter >= 50 {
			t.Errorf("%v divergence: %v", lin, se)
		}
	}
}

// TestLinearSettingsChecked: unknown enum values and out-of-range Krylov
// settings are errors from Method.New, and names parse both ways.
func TestLinearSettingsChecked(t *testing.T) {
	for _, s := range []*settings{{LinearSolver: 7}, {Preconditioner: -1}, {Forcing: 9}, {KrylovTol: 2}, {KrylovRestart: -1}} {
		if _, err := newS(catalog[5], oscillatorSys(), s); err == nil {
			t.Errorf("%+v accepted", *s)
		}
	}
	for _, name := range LinearSolverNames() {
		if l, err := ParseLinearSolver(name); err != nil || l.String() != name {
			t.Errorf("%s: %v %v", name, l, err)
		}
	}
	if _, err := ParsePreconditioner("jacobi"); err == nil || !strings.Contains(err.Error(), "block-jacobi, ilu0, none") {
		t.Errorf("error %v does not list the valid names", err)
	}
}

func oscillatorSys() System { return &oscillator{} }

// TestKrylovCheckpointBitIdentical: with GMRES the Newton matrix is
// reused across steps; a checkpoint records where it was assembled, so a
// fresh stepper restored from it continues bit for bit like the
// uninterrupted one (the Checkpointer promise), for backward Euler and
// generalized-alpha.
func TestKrylovCheckpointBitIdentical(t *testing.T) {
	ch := newChain1D(20, 1e7, 10, 1e9)
	for _, m := range []Method{catalog[5], catalog[6], GeneralizedAlpha{RhoInf: 0.5}} {
		s := &settings{LinearSolver: LinearGMRES, Preconditioner: PrecondILU0}
		a, _ := newS(m, ch, s)
		a.Init(0, ch.initial(0.01))
		for range 7 {
			if err := a.Step(1e-3); err != nil {
				t.Fatal(err)
			}
		}
		cp := a.(Checkpointer).Checkpoint()
		if cp.Jac == nil {
			t.Fatalf("%s: no Jacobian point in the checkpoint", m.Name())
		}
		b, _ := newS(m, ch, s)
		if err := b.(Checkpointer).Restore(cp); err != nil {
			t.Fatal(err)
		}
		for k := range 10 {
			if err := a.Step(1e-3); err != nil {
				t.Fatal(err)
			}
			if err := b.Step(1e-3); err != nil {
				t.Fatal(err)
			}
			_, ya := a.State()
			_, yb := b.State()
			for i := range ya {
				if math.Float64bits(ya[i]) != math.Float64bits(yb[i]) {
					t.Fatalf("%s: step %d component %d: %v uninterrupted, %v restored", m.Name(), k, i, ya[i], yb[i])
				}
			}
		}
	}
}

// TestBandLUMatchesDense: the banded LU solves a random banded system
// whose pivots need row interchanges (small diagonal) as gonum's dense LU
// does, to 1e-12 relative (both backward stable with partial pivoting;
// the matrix is well conditioned by construction).
func TestBandLUMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	n, kl, ku := 60, 3, 2
	dense := make([]float64, n*n)
	A := testMatrix(n, func(i int, row []float64) {
		for j := max(0, i-kl); j <= min(n-1, i+ku); j++ {
			v := rng.Float64()*2 - 1
			if j == i {
				v *= 0.01 // forces pivoting
			}
			row[j] = v
			dense[i*n+j] = v
		}
	})
	b := newBandLU(n)
	if err := b.setup(A); err != nil {
		t.Fatal(err)
	}
	if b.kl != kl || b.ku != ku {
		t.Fatalf("bandwidths %d, %d; want %d, %d", b.kl, b.ku, kl, ku)
	}
	rhs := make([]float64, n)
	for i := range rhs {
		rhs[i] = rng.NormFloat64()
	}
	x := append([]float64(nil), rhs...)
	b.solve(x)
	ls := newLinSolver(n)
	copy(ls.jd, dense)
	for i, v := range rhs {
		ls.r[i] = -v // linSolver solves J·dx = −r
	}
	var st Work
	if !ls.solve(&st) {
		t.Fatal("dense LU failed")
	}
	for i := range x {
		if !numtest.Within(x[i], ls.dx[i], 1e-12*(1+math.Abs(ls.dx[i]))) {
			t.Fatalf("x[%d] = %v banded, %v dense", i, x[i], ls.dx[i])
		}
	}
}

// TestKrylovStepDoesNotAllocate: a GMRES step (matrix reused, sparse
// product or matrix-free) allocates nothing: the per-step hot path rule.
func TestKrylovStepDoesNotAllocate(t *testing.T) {
	ch := newChain1D(30, 1e7, 10, 0)
	for _, m := range []Method{catalog[5], GeneralizedAlpha{RhoInf: 0.5}} {
		for _, s := range []*settings{
			{LinearSolver: LinearGMRES, Preconditioner: PrecondILU0, JacobianMaxAge: 1000},
			{LinearSolver: LinearGMRES, Preconditioner: PrecondBlockJacobi, MatrixFree: true, JacobianMaxAge: 1000},
			{LinearSolver: LinearBanded, JacobianMaxAge: 1000},
		} {
			st, _ := newS(m, ch, s)
			st.Init(0, ch.initial(0.01))
			for range 3 {
				if err := st.Step(1e-3); err != nil {
					t.Fatal(err)
				}
			}
			if a := testing.AllocsPerRun(20, func() { st.Step(1e-3) }); a != 0 {
				t.Errorf("%s %v/%v: %v allocations per step", m.Name(), s.LinearSolver, s.Preconditioner, a)
			}
		}
	}
}

// testMatrix assembles an n×n spMatrix whose row i is what fill writes
// into a zeroed dense row (its non-zeros and the diagonal are stored).
func testMatrix(n int, fill func(i int, row []float64)) *spMatrix {
	a := newSpMatrix(n)
	a.reset()
	row := make([]float64, n)
	for i := 0; i < n; i++ {
		clear(row)
		fill(i, row)
		if err := a.addDense(i, row); err != nil {
			panic(err)
		}
	}
	return a
}

// BenchmarkSparseKernels times the kernels of a GMRES iteration on the
// Newton matrix of a chain of 1000 point masses with true sparsity (as the
// graph's W4 chain assembles it): the product, the ILU(0) application and
// its set-up.
func BenchmarkSparseKernels(b *testing.B) {
	const masses = 1000
	n := 6 * masses
	A := testMatrix(n, func(i int, row []float64) {
		m, d := i/6, i%6
		if d < 3 { // position row: x' = v
			row[i], row[i+3] = 1, -1e-3
			return
		}
		for _, o := range []int{-6, 0, 6} {
			if j := i + o; j >= 0 && j < n {
				row[j-3], row[j] = -1e4, -1e-2
			}
		}
		row[i-3], row[i] = 2e4, 1.02
		_ = m
	})
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = float64(i%7) - 3
	}
	f := newILU0(n)
	if err := f.setup(A); err != nil {
		b.Fatal(err)
	}
	b.Run("mulvec", func(b *testing.B) {
		for b.Loop() {
			A.MulVec(x, y)
		}
	})
	b.Run("ilu0-apply", func(b *testing.B) {
		for b.Loop() {
			f.apply(x, y)
		}
	})
	b.Run("ilu0-setup", func(b *testing.B) {
		for b.Loop() {
			f.setup(A)
		}
	})
}
