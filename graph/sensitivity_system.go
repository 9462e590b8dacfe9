package graph

import (
	"errors"
	"fmt"

	"github.com/cosimgo/cosim/node"
)

// The augmented system of Sim.Sensitivities: Y = [y, S_1 … S_np] with
// S_j' = ∂f/∂y·S_j + ∂f/∂p_j, stepped by the integrator like any system;
// its Jacobian and event functions are the graph's, and the input
// sensitivities (∂u/∂y, ∂u/∂t, ∂u/∂p) that event and reset derivatives
// need.

// stateJacobian is how the sensitivities read ∂f/∂y: System.Jacobian
// (dense, row-major n×n), or any other assembly with the same contract.
type stateJacobian interface {
	Jacobian(t float64, y, dst []float64) error
}

// sparseJacobian is the optional sparse assembly of ∂f/∂y: a CSR pattern
// (columns ascending) fixed for the System's life, and the values in its
// order. When the System has it, (∂f/∂y)·S costs O(nnz) per column of S
// instead of O(n²), and no dense n×n matrix is formed except for an
// implicit method's Newton matrix.
type sparseJacobian interface {
	JacobianPattern() (rowPtr, col []int)
	SparseJacobian(t float64, y, val []float64) error
}

// useJacobian picks the sparse assembly of jac when it has one.
func (a *sensSys) useJacobian(jac stateJacobian) {
	a.jac = jac
	if sj, ok := jac.(sparseJacobian); ok {
		a.sj = sj
		a.rowPtr, a.col = sj.JacobianPattern()
		a.val = make([]float64, len(a.col))
	} else {
		a.J = make([]float64, a.n*a.n)
	}
}

// stateJac assembles ∂f/∂y at (t, y), sparse or dense.
func (a *sensSys) stateJac(t float64, y []float64) error {
	if a.sj != nil {
		return a.sj.SparseJacobian(t, y, a.val)
	}
	return a.jac.Jacobian(t, y, a.J)
}

// mulJ writes (∂f/∂y)·S + fp into d, from the last stateJac.
func (a *sensSys) mulJ(S, fp, d []float64) {
	n := a.n
	if a.sj != nil {
		for i := 0; i < n; i++ {
			var sum float64
			for p := a.rowPtr[i]; p < a.rowPtr[i+1]; p++ {
				sum += a.val[p] * S[a.col[p]]
			}
			d[i] = sum + fp[i]
		}
		return
	}
	for i := 0; i < n; i++ {
		row := a.J[i*n : (i+1)*n]
		var sum float64
		for k, v := range row {
			if v != 0 {
				sum += v * S[k]
			}
		}
		d[i] = sum + fp[i]
	}
}

// sensSys is the augmented system [y, S] (S column-major after y: Y[n +
// j·n + i] = ∂y_i/∂p_j) that the integrators step. It implements
// integrators.System, Jacobian, Partitioned, EventSystem and
// TimeEventSystem.
type sensSys struct {
	s      *Sim
	m      *System
	jac    stateJacobian
	sj     sparseJacobian // nil: dense J
	rowPtr []int
	col    []int
	val    []float64 // sparse values of ∂f/∂y
	ps     []sensParam
	n, np  int
	J      []float64 // dense ∂f/∂y, n×n (nil with a sparse assembly until needed)
	fp     []float64 // np columns of n
	events []SensitivityEvent
	// solveLoops makes parameter differences solve the loops on each
	// side instead of freezing them (loop_sensitivity.go): the method the
	// frozen loops replace, kept for tests that compare the two.
	solveLoops bool
	// frozenLoops are the loops in their output order while they are
	// frozen at (frozenT, frozenY) (withFrozenLoops), nil otherwise.
	frozenLoops []*loopSolver
	frozenT     float64
	frozenY     []float64
}

func newSensSys(s *Sim, m *System, params []string) (*sensSys, error) {
	a := &sensSys{s: s, m: m, jac: m, n: len(s.state), np: len(params)}
	var errs []error
	seen := map[string]bool{}
	for _, name := range params {
		p, err := s.resolveParam(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if seen[name] {
			errs = append(errs, fmt.Errorf("graph: Sensitivities: parameter %s named twice", name))
			continue
		}
		seen[name] = true
		a.ps = append(a.ps, p)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	a.fp = make([]float64, a.n*a.np)
	return a, nil
}

// initial returns [y0, S0]: the nodes' initial states and their
// parameter derivatives.
func (a *sensSys) initial(t0 float64) ([]float64, error) {
	s, n := a.s, a.n
	Y := make([]float64, n*(1+a.np))
	for i := range s.nodes {
		c := &s.nodes[i]
		if c.x1 > c.x0 {
			c.n.InitialState(Y[c.x0:c.x1])
		}
	}
	if k := nonFinite(Y[:n]); k >= 0 {
		return nil, fmt.Errorf("graph: Sensitivities: initial state %s is not finite", s.componentName(k))
	}
	for j := range a.ps {
		p := &a.ps[j]
		c := &s.nodes[p.node]
		nx := int(c.x1) - int(c.x0)
		if nx == 0 {
			continue
		}
		col := Y[n+j*n+int(c.x0) : n+j*n+int(c.x1)]
		if ij, ok := node.As[node.InitialStateJacobian](c.n); ok && p.comp < 0 {
			np := len(c.spec.Params)
			buf := make([]float64, nx*np)
			ij.InitialStateParamJacobian(buf)
			for r := 0; r < nx; r++ {
				col[r] = buf[r*np+p.col]
			}
			continue
		}
		if err := a.dParam(j, func(_ float64, out []float64) error { c.n.InitialState(out); return nil }, col); err != nil {
			return nil, err
		}
	}
	return Y, nil
}

// Dim is n·(1 + number of parameters).
func (a *sensSys) Dim() int { return a.n * (1 + a.np) }

// Func writes [f, (∂f/∂y)·S + ∂f/∂p].
func (a *sensSys) Func(t float64, Y, dst []float64) error {
	n := a.n
	y := Y[:n]
	if err := a.m.Func(t, y, dst[:n]); err != nil {
		return err
	}
	if err := a.stateJac(t, y); err != nil {
		return err
	}
	if err := a.paramDerivs(t, y); err != nil {
		return err
	}
	for j := 0; j < a.np; j++ {
		a.mulJ(Y[n+j*n:n+(j+1)*n], a.fp[j*n:(j+1)*n], dst[n+j*n:n+(j+1)*n])
	}
	return nil
}

// paramDerivs fills a.fp with ∂f/∂p at (t, y).
func (a *sensSys) paramDerivs(t float64, y []float64) error {
	n := a.n
	var other []int
	for j := range a.ps {
		p := &a.ps[j]
		col := a.fp[j*n : (j+1)*n]
		clear(col)
		if p.analytic != nil {
			if err := a.analyticParam(p, t, y, col); err != nil {
				return err
			}
			continue
		}
		other = append(other, j)
	}
	if len(other) == 0 {
		return nil
	}
	// Through the inputs of nodes that declare their Jacobian
	// (sensitivity_inputs.go), differences of f for the rest.
	return a.inputParamDerivs(t, y, other)
}

// analyticParam writes node p.node's ∂f/∂p column into its rows of col.
func (a *sensSys) analyticParam(p *sensParam, t float64, y, col []float64) error {
	s := a.s
	c := &s.nodes[p.node]
	nx, np := int(c.x1)-int(c.x0), len(c.spec.Params)
	if len(p.buf) != nx*np {
		p.buf = make([]float64, nx*np)
	}
	buf := p.buf
	return a.at(t, y, func(cur *int32) error {
		*cur = p.node
		if err := p.analytic.DerivativesParamJacobian(t, y[c.x0:c.x1], s.inputsOf(c), buf); err != nil {
			return stepError(c.name, "", s.steps, t, err)
		}
		for r := 0; r < nx; r++ {
			col[int(c.x0)+r] = buf[r*np+p.col]
		}
		return nil
	})
}

// Jacobian is block diagonal, ∂f/∂y in every block: it omits the
// derivative of (∂f/∂y)·S with respect to y, so an implicit method's
// Newton iteration solves the state exactly and, once it has converged,
// the linear sensitivity equations exactly (a staggered corrector).
func (a *sensSys) Jacobian(t float64, Y, dst []float64) error {
	n, N := a.n, a.Dim()
	if a.J == nil {
		a.J = make([]float64, n*n)
	}
	if err := a.jac.Jacobian(t, Y[:n], a.J); err != nil {
		return err
	}
	clear(dst)
	for b := 0; b <= a.np; b++ {
		for i := 0; i < n; i++ {
			copy(dst[(b*n+i)*N+b*n:(b*n+i)*N+b*n+n], a.J[i*n:(i+1)*n])
		}
	}
	return nil
}

// Pairs are the graph's position/velocity pairs, in y and in every
// column of S (the sensitivity of a position's rate is the velocity's).
func (a *sensSys) Pairs() (pos, vel []int) {
	p, v := a.m.Pairs()
	for b := 0; b <= a.np; b++ {
		for i := range p {
			pos = append(pos, b*a.n+p[i])
			vel = append(vel, b*a.n+v[i])
		}
	}
	return pos, vel
}

// NextTimeEvent is the graph's.
func (a *sensSys) NextTimeEvent(t float64) float64 { return a.m.NextTimeEvent(t) }

// EventCount is the graph's.
func (a *sensSys) EventCount() int { return a.m.EventCount() }

// EventDirection is the graph's.
func (a *sensSys) EventDirection(i int) int { return a.m.EventDirection(i) }

// Events are the graph's event functions of the state part.
func (a *sensSys) Events(t float64, Y, dst []float64) error { return a.m.Events(t, Y[:a.n], dst) }

// inputSens differences node c's gathered inputs with respect to the
// graph state (Uy, nu×n), time (Ut) and parameters (Up, nu×np), with
// the loops frozen at (t, y) (loop_sensitivity.go).
func (a *sensSys) inputSens(c *cnode, t float64, y []float64) (Uy, Ut, Up []float64, err error) {
	s, n := a.s, a.n
	nu := int(c.u1) - int(c.u0)
	Uy, Ut, Up = make([]float64, nu*n), make([]float64, nu), make([]float64, nu*a.np)
	if nu == 0 {
		return
	}
	uAt := func(t float64, y, out []float64) error {
		return a.at(t, y, func(*int32) error {
			if c.feedthrough {
				if err := s.gatherSafe(c, t); err != nil {
					return err
				}
			}
			copy(out, s.inputs[c.u0:c.u1])
			return nil
		})
	}
	err = a.diffAll(t, y, nu, uAt, func(k int, col []float64) {
		for q := 0; q < nu; q++ {
			Uy[q*n+k] = col[q]
		}
	}, func(col []float64) { copy(Ut, col) }, func(j int, col []float64) {
		for q := 0; q < nu; q++ {
			Up[q*a.np+j] = col[q]
		}
	})
	return
}

// diffAll differentiates eval (a vector of length m) at (t, y) along
// every state component, the time and every parameter, the loops frozen
// at (t, y) (loop_sensitivity.go), handing each column to byY (state
// component k), byT and byP (parameter j) in that order. The column is
// reused: copy what is kept.
func (a *sensSys) diffAll(t float64, y []float64, m int, eval func(t float64, y, out []float64) error, byY func(k int, col []float64), byT func(col []float64), byP func(j int, col []float64)) error {
	col := make([]float64, m)
	return a.withFrozenLoops(t, y, func() error {
		if err := stateDirs(y, func(k int, d sensDir) error {
			if err := a.diff(d, t, y, eval, col); err != nil {
				return err
			}
			byY(k, col)
			return nil
		}); err != nil {
			return err
		}
		if err := a.diff(timeDir(t), t, y, eval, col); err != nil {
			return err
		}
		byT(col)
		for j := range a.ps {
			if err := a.diff(paramDir(j, nil), t, y, eval, col); err != nil {
				return err
			}
			byP(j, col)
		}
		return nil
	})
}

// nodeInputs returns node c's inputs at (t, y), copied.
func (a *sensSys) nodeInputs(c *cnode, t float64, y []float64) (in node.Inputs, err error) {
	err = a.at(t, y, func(*int32) error {
		if c.feedthrough {
			if err := a.s.gatherSafe(c, t); err != nil {
				return err
			}
		}
		v := a.s.inputsOf(c)
		in = node.Inputs{Values: append([]float64(nil), v.Values...), Present: append([]bool(nil), v.Present...)}
		return nil
	})
	return in, err
}
