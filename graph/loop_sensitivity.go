package graph

import (
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// Differences through algebraic loops, by the implicit-function theorem
// on the converged loop.
//
// Sim.Sensitivities differences what it has no exact derivative of:
// with respect to a parameter (∂f/∂p of a node without
// node.ParamJacobian, the inputs an event or reset map reads, a recorded
// output moved along S), and with respect to the state and the time
// (the event function and reset map of a node without
// node.EventJacobian/node.ResetJacobian, and the inputs an event or reset
// reads). Done naively, each side of the difference solves every loop
// again, and the solve's error (within AbsTol + RelTol·|F|, 1e-10
// relative by default) is divided by the step h (1e-6 relative): up to
// 1e-4 relative, ~1e-6 seen for a nonlinear loop whose Newton iteration
// stops just inside its tolerance, and worse with looser loop settings.
//
// Instead the loops are frozen (withFrozenLoops). At the point (t, y)
// every loop is solved once, which gives its tear variables z* and the
// Newton matrix ∂F/∂z there (the chain rule through the members'
// OutputsJacobians, or differences as for the solve; loop.go), and
// I − ∂F/∂z is factored. Along a direction (sensDir) — the time moving
// by ε·dt, the state by ε·dy, a parameter by ε — the loop's equation
// z = F(z, ε) gives
//
//	dz/dε = (I − ∂F/∂z)⁻¹ · ∂F/∂ε,
//
// where ∂F/∂ε, at fixed z, is the central difference of one pass of the
// members with the tear variables held at z*: a composition of the
// nodes' output functions (each member's own output derivative along the
// direction at fixed inputs, and what reaches the loop from upstream),
// with no loop solve in it. (The node contract has no exact derivative
// of Outputs with respect to a parameter, so that part is always
// differenced.) Loops are treated in the order of their output levels,
// so a loop downstream of another sees the upstream one move with it.
// Every difference along the direction is then taken with each loop's
// tear variables set to z* + ε·dz/dε instead of solved: the members
// evaluated once at those values, the tear nodes' outputs set to them.
// The result is the exact derivative of a smooth function of ε, up to
// the O(h²) truncation and the rounding over h of the differences
// (~1e-10 relative), and it carries the loop's solve error only through
// the point z* it is evaluated at (the residual times second
// derivatives), never divided by h. One solve and one factorization at
// (t, y) serve every direction differenced there (the n state
// directions, the time and the parameters of an event's gradient); each
// direction costs two passes of the members and a back substitution.
//
// The monolithic Jacobian ∂f/∂y itself is exact (loop_jacobian.go), not
// differenced.

// loopFreeze is a loop's frozen mode: the tear variables z* at the
// point of the derivative, their tangent dz/dε, and the LU of I − ∂F/∂z.
type loopFreeze struct {
	zStar, dz, zt, dF []float64
	M                 []float64
	ipiv              []int
}

// frozenOutputs is loopOutputs in frozen mode: the members evaluated
// once at z = z* + ε·dz, the tear outputs set to z.
func (s *Sim) frozenOutputs(L *loopSolver, t float64, cur *int32) error {
	fz, eps := L.freeze, L.st.eps
	for k := range fz.zt {
		fz.zt[k] = fz.zStar[k] + eps*fz.dz[k]
	}
	if err := s.loopEval(L, t, fz.zt, L.f, cur); err != nil {
		return err
	}
	for k, o := range L.idx {
		s.outputs[o] = fz.zt[k]
	}
	return nil
}

// loopOrder returns the loops in the order of their output levels.
func (s *Sim) loopOrder() []*loopSolver {
	var out []*loopSolver
	for _, lv := range s.levels {
		for _, i := range lv {
			if c := &s.nodes[i]; c.loop != nil && c.loopLead {
				out = append(out, c.loop)
			}
		}
	}
	return out
}

// sensDir is a direction of differentiation at a point (t, y): the
// parameter j (−1: none) moves by ε, the state by ε·dy (nil: fixed) and
// the time by ε·dt. h is the difference step of a direction without a
// parameter; a parameter's is its own (sensParam.h, with one-sided
// steps near a bound of its range, dParam).
type sensDir struct {
	j  int
	dy []float64
	dt float64
	h  float64
}

// paramDir is the direction of parameter j, the state moving along dy
// (nil: fixed) with it.
func paramDir(j int, dy []float64) sensDir { return sensDir{j: j, dy: dy} }

// timeDir is the direction of the time at t.
func timeDir(t float64) sensDir { return sensDir{j: -1, dt: 1, h: fdStep(t)} }

// stateDirs calls fn with the direction of each state component k of y
// (dy = e_k, step fdStep(y_k)).
func stateDirs(y []float64, fn func(k int, d sensDir) error) error {
	e := make([]float64, len(y))
	for k := range y {
		e[k] = 1
		err := fn(k, sensDir{j: -1, dy: e, h: fdStep(y[k])})
		e[k] = 0
		if err != nil {
			return err
		}
	}
	return nil
}

// at runs body with the graph prepared at (t, y) (System.prepare: the
// outputs evaluated, the inputs of stateful nodes without feedthrough
// gathered), then restores the Sim's state; a panic in node code becomes
// an error naming the node body last put in *cur (−1: none). It is the
// preamble of every evaluation the sensitivities make off the hot path.
// (System's own per-step methods repeat it inline: a function value
// taking &cur would make cur escape, an allocation per call.)
func (a *sensSys) at(t float64, y []float64, body func(cur *int32) error) (err error) {
	saved, err := a.m.prepare(t, y)
	defer a.m.restore(saved)
	if err != nil {
		return err
	}
	cur := int32(-1)
	defer a.m.recoverAt(&cur, t, &err)
	return body(&cur)
}

// withFrozenLoops solves every loop at (t, y) once, factors I − ∂F/∂z
// there, and runs body with the loops frozen: every diff at (t, y)
// inside body moves each loop along its tangent for the direction
// instead of solving it. Without loops, with solveLoops (the method the
// frozen loops replace, for tests that compare the two), or when the
// loops are already frozen at (t, y), it just runs body.
func (a *sensSys) withFrozenLoops(t float64, y []float64, body func() error) error {
	s := a.s
	st := s.loops
	if st == nil || a.solveLoops {
		return body()
	}
	if st.frozen {
		if t != a.frozenT || !slices.Equal(y, a.frozenY) {
			panic("graph: sensitivities: loops frozen at two points at once")
		}
		return body()
	}
	order := s.loopOrder()
	err := a.at(t, y, func(cur *int32) error {
		for _, L := range order {
			n := len(L.idx)
			if L.freeze == nil {
				L.freeze = &loopFreeze{zStar: make([]float64, n), dz: make([]float64, n), zt: make([]float64, n),
					dF: make([]float64, n), M: make([]float64, n*n), ipiv: make([]int, n)}
			}
			fz := L.freeze
			copy(fz.zStar, L.z)
			clear(fz.dz)
			if err := s.loopJacobian(L, t, cur); err != nil {
				return err
			}
			for k := range fz.M {
				fz.M[k] = -L.J[k]
			}
			for k := range n {
				fz.M[k*n+k]++
			}
			if !lapack64.Getrf(blas64.General{Rows: n, Cols: n, Stride: n, Data: fz.M}, fz.ipiv) {
				return L.singular(s, t) // as for ∂f/∂y (loop_jacobian.go)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	st.frozen, st.eps, a.frozenT, a.frozenY = true, 0, t, y
	a.frozenLoops = order
	defer func() { st.frozen, st.eps, a.frozenLoops, a.frozenY = false, 0, nil, nil }()
	return body()
}

// tangent sets every frozen loop's dz/dε along d at (t, y): the central
// difference of one pass of its members at fixed tear variables (the
// loops before it moving along their tangents), solved with the LU of
// I − ∂F/∂z.
func (a *sensSys) tangent(d sensDir, t float64, y []float64) error {
	for _, L := range a.frozenLoops {
		clear(L.freeze.dz)
	}
	for _, L := range a.frozenLoops {
		fz := L.freeze
		pass := func(t float64, y, out []float64) error {
			return a.at(t, y, func(*int32) error { copy(out, L.f); return nil })
		}
		if err := a.diffRaw(d, t, y, pass, fz.dF); err != nil {
			return err
		}
		n := len(fz.dz)
		copy(fz.dz, fz.dF)
		lapack64.Getrs(blas.NoTrans, blas64.General{Rows: n, Cols: n, Stride: n, Data: fz.M},
			blas64.General{Rows: n, Cols: 1, Stride: 1, Data: fz.dz}, fz.ipiv)
	}
	return nil
}

// diff differentiates eval along d at (t, y): eval(t + ε·d.dt, y +
// ε·d.dy, out) at the difference steps ε, with parameter d.j at its
// value + ε. Inside withFrozenLoops at (t, y) the loops move along d's
// tangent; otherwise every evaluation solves them.
func (a *sensSys) diff(d sensDir, t float64, y []float64, eval func(t float64, y, out []float64) error, dst []float64) error {
	if st := a.s.loops; st != nil && st.frozen {
		if err := a.tangent(d, t, y); err != nil {
			return err
		}
	}
	return a.diffRaw(d, t, y, eval, dst)
}

// diffRaw is diff with the loops as they are: central differences, or
// for a parameter those of dParam (one-sided near a bound of its range).
func (a *sensSys) diffRaw(d sensDir, t float64, y []float64, eval func(t float64, y, out []float64) error, dst []float64) error {
	st := a.s.loops
	defer func() {
		if st != nil {
			st.eps = 0
		}
	}()
	var yt []float64
	if d.dy != nil {
		yt = make([]float64, len(y))
	}
	at := func(eps float64, out []float64) error {
		tt, yy := t+eps*d.dt, y
		if d.dy != nil {
			for i := range yt {
				yt[i] = y[i] + eps*d.dy[i]
			}
			yy = yt
		}
		if st != nil {
			st.eps = eps // frozen loops move with ε
		}
		return eval(tt, yy, out)
	}
	if d.j >= 0 {
		return a.dParam(d.j, at, dst)
	}
	f1, f2 := make([]float64, len(dst)), make([]float64, len(dst))
	if err := at(d.h, f1); err != nil {
		return err
	}
	if err := at(-d.h, f2); err != nil {
		return err
	}
	for i := range dst {
		dst[i] = (f1[i] - f2[i]) / (2 * d.h)
	}
	return nil
}
