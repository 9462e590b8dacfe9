package graph_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// fdCheck compares the sparse Jacobian with central differences of the
// whole system's right-hand side, entry by entry, and checks that every
// entry the differences find non-zero is in the pattern. Tolerance 1e-5 of
// the largest entry: FD truncation O(h²·f”') at h = 1e-6 plus round-off
// ε·|f|/h (the same as TestSystemJacobian).
func fdCheck(t *testing.T, sys *graph.System, y []float64) {
	t.Helper()
	n := sys.Dim()
	rp, col := sys.JacobianPattern()
	val := make([]float64, len(col))
	if err := sys.SparseJacobian(0.3, y, val); err != nil {
		t.Fatal(err)
	}
	J := make([]float64, n*n)
	in := make([]bool, n*n)
	for i := 0; i < n; i++ {
		for k := rp[i]; k < rp[i+1]; k++ {
			J[i*n+col[k]] = val[k]
			in[i*n+col[k]] = true
		}
	}
	scale := numtest.FiniteScale(t, "the sparse Jacobian", J)
	fp, fm := make([]float64, n), make([]float64, n)
	for j := 0; j < n; j++ {
		yp := append([]float64(nil), y...)
		ym := append([]float64(nil), y...)
		h := 1e-6 * math.Max(1, math.Abs(y[j]))
		yp[j] += h
		ym[j] -= h
		mustFunc(t, sys, 0.3, yp, fp)
		mustFunc(t, sys, 0.3, ym, fm)
		for i := 0; i < n; i++ {
			fd := (fp[i] - fm[i]) / (2 * h)
			if !numtest.Within(fd, J[i*n+j], 1e-5*scale) {
				t.Errorf("∂f[%s]/∂y[%s] = %v assembled, %v by finite differences", sys.Component(i), sys.Component(j), J[i*n+j], fd)
			}
			if fd != 0 && !in[i*n+j] {
				t.Errorf("∂f[%s]/∂y[%s] = %v is outside the pattern", sys.Component(i), sys.Component(j), fd)
			}
		}
	}
}

// TestSparseJacobianMatchesDifferences: on the three-body graph (every
// chain-rule path, analytic connector Jacobians) and on the test chain
// with a TransformFunc transform on one edge (differenced transform), the sparse
// assembly equals differences of the whole system and holds every
// non-zero in its pattern; the pattern is sparse (a chain of 30 masses
// has 3 neighbours per row at most, 2 states each: ≤ 6 entries per row).
func TestSparseJacobianMatchesDifferences(t *testing.T) {
	s := jacGraph(t)
	sys, _ := s.System()
	fdCheck(t, sys, s.State(nil))

	double := graph.TransformFunc{Label: "double", In: node.Scalar, Out: node.Scalar, From: "N", To: "N", F: func(dst, src []float64) { dst[0] = 2 * src[0] * (1 + 0.1*src[0]) }}
	c, err := chainVia(30, double).Build()
	if err != nil {
		t.Fatal(err)
	}
	csys, _ := c.System()
	fdCheck(t, csys, c.State(nil))
	rp, _ := csys.JacobianPattern()
	for i := 0; i+1 < len(rp); i++ {
		if w := rp[i+1] - rp[i]; w > 6 {
			t.Errorf("row %s has %d entries, want ≤ 6", csys.Component(i), w)
		}
	}
	b := csys.Blocks()
	if len(b) != 31 || b[0] != 0 || b[30] != 60 || b[1] != 2 {
		t.Errorf("blocks %v, want every mass's 2 states", b)
	}
}

// TestSparseJacobianDoesNotAllocate: after the first call builds the
// plan, an evaluation allocates nothing (hot path of every Newton
// iteration).
func TestSparseJacobianDoesNotAllocate(t *testing.T) {
	s, err := chain(50).Build()
	if err != nil {
		t.Fatal(err)
	}
	sys, _ := s.System()
	_, col := sys.JacobianPattern()
	val := make([]float64, len(col))
	y := s.State(nil)
	if a := numtest.AllocsPerRun(10, func() { sys.SparseJacobian(0, y, val) }); a != 0 && !raceEnabled {
		t.Errorf("%v allocations per SparseJacobian", a)
	}
}

// TestMonolithicGMRESAgreesWithDense: RunMonolithic with GMRES (both
// preconditioners, assembled and matrix-free) reaches the dense-LU states
// of backward Euler and generalized-alpha on the test chain, to 100×
// NewtonTol of the state's scale (each of 50 steps stops its Newton
// iteration within NewtonTol·(1+|x|) of the root, |x| ≈ 30).
func TestMonolithicGMRESAgreesWithDense(t *testing.T) {
	for _, name := range []string{integrators.MethodBackwardEuler, integrators.MethodGeneralizedAlpha} {
		m, _ := integrators.ByName(name)
		run := func(l integrators.LinearOptions) ([]float64, integrators.Work) {
			sim, err := chain(30).Build()
			if err != nil {
				t.Fatal(err)
			}
			res, err := sim.RunMonolithic(context.Background(), withLinear(m, l), nil, graph.Settings{Dt: 0.01, Steps: 50})
			if err != nil {
				t.Fatal(err)
			}
			return sim.State(nil), res.Integrator.Work
		}
		ref, _ := run(integrators.LinearOptions{Solver: integrators.LinearDense})
		for _, s := range []integrators.LinearOptions{
			{Solver: integrators.LinearGMRES},
			{Solver: integrators.LinearGMRES, Preconditioner: integrators.PrecondILU0},
			{Solver: integrators.LinearGMRES, MatrixFree: true},
		} {
			got, st := run(s)
			d := 0.0
			for i := range got {
				d = math.Max(d, math.Abs(got[i]-ref[i]))
			}
			if !numtest.AtMost(d, 100*1e-10*31) {
				t.Errorf("%s %v/%v matrix-free %v: max |Δy| = %.3g against dense", name, s.Solver, s.Preconditioner, s.MatrixFree, d)
			}
			if st.LinearIters == 0 {
				t.Errorf("%s: GMRES did not run: %+v", name, st)
			}
		}
	}
}

// liar is a mass whose position rate is not its velocity, against its
// Position role.
type liar struct{ *mass }

func (l liar) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0], dst[1] = 2*x[1], in.Values[0]/l.m
	return nil
}

// TestPositionRowContract: the Jacobian takes a Position component's row
// from the node contract (its rate is its velocity) and checks the node's
// own derivatives agree: a node that breaks it is an error naming the
// node and the field, not a silently wrong Jacobian.
func TestPositionRowContract(t *testing.T) {
	g := graph.New()
	g.Add("m", liar{newMass(1, 0.5)})
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	sys, _ := s.System()
	_, col := sys.JacobianPattern()
	err = sys.SparseJacobian(0, []float64{0.5, 0.1}, make([]float64, len(col)))
	var se *node.StateError
	if !errors.As(err, &se) || se.Node != "m" || !strings.Contains(se.Field, "x") || !strings.Contains(err.Error(), "must be 1") {
		t.Errorf("err = %v", err)
	}
}

// TestMonolithicGMRESStepDoesNotAllocate: after the first steps (plan,
// first assembly), a backward-Euler step through the graph with GMRES
// allocates nothing: the difference between runs of 2k and k steps.
func TestMonolithicGMRESStepDoesNotAllocate(t *testing.T) {
	s, err := chain(40).Build()
	if err != nil {
		t.Fatal(err)
	}
	m := integrators.BackwardEuler{Linear: integrators.LinearOptions{Solver: integrators.LinearGMRES, Preconditioner: integrators.PrecondILU0, JacobianMaxAge: 10000}}
	run := func(k int) {
		if _, err := s.RunMonolithic(context.Background(), m, nil, graph.Settings{Dt: 1e-3, Steps: k}); err != nil {
			t.Fatal(err)
		}
	}
	run(5)
	const k = 10
	a1 := numtest.AllocsPerRun(3, func() { run(k) })
	a2 := numtest.AllocsPerRun(3, func() { run(2 * k) })
	if per := (a2 - a1) / k; per > 0 && !raceEnabled {
		t.Errorf("%v allocations per step", per)
	}
}

// TestMonolithicGMRESCheckpointResumes: a GMRES run (its Newton matrix
// reused across steps) checkpointed to JSON, restored into a fresh Sim
// and continued, ends bit-identical to the uninterrupted run: the
// checkpoint carries where the matrix was assembled.
func TestMonolithicGMRESCheckpointResumes(t *testing.T) {
	m := integrators.GeneralizedAlpha{RhoInf: 0.5, Linear: integrators.LinearOptions{Solver: integrators.LinearGMRES, Preconditioner: integrators.PrecondBlockJacobi}}
	run := func(s *graph.Sim, k int) {
		t.Helper()
		if _, err := s.RunMonolithic(context.Background(), m, nil, graph.Settings{Dt: 1e-2, Steps: k}); err != nil {
			t.Fatal(err)
		}
	}
	a := jacGraph(t) // nonlinear (a rigid body): the matrix depends on where it was assembled
	run(a, 7)
	var buf strings.Builder
	if err := a.Checkpoint().Encode(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"jac":{`) { // the schema key (docs/checkpoint-format.md)
		t.Fatal("the checkpoint does not record the Newton matrix's point")
	}
	cp, err := graph.DecodeCheckpoint(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	b := jacGraph(t)
	if err := b.Restore(cp); err != nil {
		t.Fatal(err)
	}
	run(a, 9)
	run(b, 9)
	ya, yb := a.State(nil), b.State(nil)
	for i := range ya {
		if math.Float64bits(ya[i]) != math.Float64bits(yb[i]) {
			t.Fatalf("component %d: %v uninterrupted, %v resumed", i, ya[i], yb[i])
		}
	}
}

// withLinear returns the implicit method m with linear-solver options l.
func withLinear(m integrators.Method, l integrators.LinearOptions) integrators.Method {
	nm := m.(integrators.NewtonMethod)
	n, _ := nm.Solver()
	return nm.WithSolver(n, l)
}
