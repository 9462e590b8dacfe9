package graph

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// Parameter derivatives through algebraic loops, by the implicit-function
// theorem on the converged loop.
//
// Sim.Sensitivities differences with respect to a parameter what it has
// no exact derivative of (∂f/∂p of a node without node.ParamJacobian,
// the inputs an event or reset map reads, a recorded output). Done
// naively, each side of the difference solves every loop again, and the
// solve's error (within AbsTol + RelTol·|F|, 1e-10 relative by default)
// is divided by the step h = 1e-6·|p|: up to 1e-4 relative, ~1e-6 seen
// for a nonlinear loop whose Newton iteration stops just inside its
// tolerance, and worse with looser loop settings.
//
// Instead the loops are frozen. At (t, y) every loop is solved once,
// which gives its tear variables z* and the Newton matrix ∂F/∂z there
// (the chain rule through the members' OutputsJacobians, or differences
// as for the solve; loop.go). Along a direction — the parameter p_j
// moving by ε, the state by ε·dy (dy nil: the state fixed; the recorded
// outputs move it along S_j) — the loop's equation z = F(z, ε) gives
//
//	dz/dε = (I − ∂F/∂z)⁻¹ · ∂F/∂ε,
//
// where ∂F/∂ε, at fixed z, is the central difference of one pass of the
// members with the tear variables held at z*: a composition of the
// nodes' output functions (each member's own output derivative with
// respect to the parameter at fixed inputs, and what reaches the loop
// from upstream), with no loop solve in it. (The node contract has no
// exact derivative of Outputs with respect to a parameter, so that part
// is always differenced.) Loops are treated in the order of their output
// levels, so a loop downstream of another sees the upstream one move
// with it. Every difference along the direction is then taken with each
// loop's tear variables set to z* + ε·dz/dε instead of solved: the
// members evaluated once at those values, the tear nodes' outputs set to
// them. The result is the exact derivative of a smooth function of ε,
// up to the O(h²) truncation and the rounding over h of the differences
// (~1e-10 relative), and it carries the loop's solve error only through
// the point z* it is evaluated at (the residual times second
// derivatives), never divided by h.
//
// Derivatives with respect to the state by differences (the event and
// reset maps' ∂/∂y of a node without EventJacobian/ResetJacobian) still
// solve the loop on each side; the monolithic Jacobian ∂f/∂y itself is
// exact (loop_jacobian.go).

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

// freezeLoops computes every loop's tangent along the direction
// (state ε·dy, parameter j by ε) at (t, y) and puts the loops in frozen
// mode; the returned function ends it. Without loops it does nothing.
// dParam sets ε for each evaluation it makes.
func (a *sensSys) freezeLoops(t float64, y, dy []float64, j int) (release func(), err error) {
	s := a.s
	st := s.loops
	if st == nil {
		return func() {}, nil
	}
	order := s.loopOrder()
	// Solve at (t, y): z* and the LU of I − ∂F/∂z for every loop.
	if err := func() (err error) {
		saved, err := a.m.prepare(t, y)
		defer a.m.restore(saved)
		if err != nil {
			return err
		}
		cur := int32(-1)
		defer a.m.recoverAt(&cur, t, &err)
		for _, L := range order {
			n := len(L.idx)
			if L.freeze == nil {
				L.freeze = &loopFreeze{zStar: make([]float64, n), dz: make([]float64, n), zt: make([]float64, n),
					dF: make([]float64, n), M: make([]float64, n*n), ipiv: make([]int, n)}
			}
			fz := L.freeze
			copy(fz.zStar, L.z)
			clear(fz.dz)
			if err := s.loopJacobian(L, t, &cur); err != nil {
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
	}(); err != nil {
		return nil, err
	}
	st.frozen, st.eps = true, 0
	release = func() { st.frozen, st.eps = false, 0 }
	var yt []float64
	if dy != nil {
		yt = make([]float64, len(y))
	}
	for _, L := range order {
		fz := L.freeze
		eval := func(out []float64) error {
			yy := y
			if dy != nil {
				for i := range yt {
					yt[i] = y[i] + st.eps*dy[i]
				}
				yy = yt
			}
			saved, err := a.m.prepare(t, yy)
			defer a.m.restore(saved)
			if err != nil {
				return err
			}
			copy(out, L.f)
			return nil
		}
		if err := a.dParam(j, eval, fz.dF); err != nil {
			release()
			return nil, err
		}
		n := len(fz.dz)
		copy(fz.dz, fz.dF)
		lapack64.Getrs(blas.NoTrans, blas64.General{Rows: n, Cols: n, Stride: n, Data: fz.M},
			blas64.General{Rows: n, Cols: 1, Stride: 1, Data: fz.dz}, fz.ipiv)
	}
	return release, nil
}

// dParamAt is dParam for an eval at (t, y + ε·dy) that goes through the
// graph's outputs: with loops frozen along the direction.
func (a *sensSys) dParamAt(j int, t float64, y, dy []float64, eval func(out []float64) error, dst []float64) error {
	if a.solveLoops {
		return a.dParam(j, eval, dst)
	}
	release, err := a.freezeLoops(t, y, dy, j)
	if err != nil {
		return err
	}
	defer release()
	return a.dParam(j, eval, dst)
}
