package graph

import "github.com/cosimgo/cosim/node"

// This file differentiates the right-hand side with respect to a
// parameter whose node has no analytic ∂f/∂p (a stateless node's
// parameter, the table's height) by the chain rule through the inputs of
// every node that declares its Jacobian (node.InputJacobian):
// ∂f_c/∂p = (∂f_c/∂u_c)·(∂u_c/∂p), with ∂u_c/∂p by central differences of
// the gathered inputs and ∂f_c/∂u_c the node's own. Differencing f_c
// itself would cross the node's mode switches: a ball resting on the
// table has f = 0 while the table is above it, but a table lowered by the
// difference step leaves it in free fall, so the difference of f is
// −g/(2h) (≈ 5e6 for h = 1e-6) where the resting mode's derivative is 0,
// and the sensitivity of a resting ball grew without bound. The node's
// declared Jacobian belongs to the mode it is in. Rows of nodes without
// it, and of the parameter's own node, keep the difference of f.

// inputParamDerivs fills the columns col (one of n per parameter listed
// in js, of a.fp) of the parameters js, none analytic.
func (a *sensSys) inputParamDerivs(t float64, y []float64, js []int) error {
	s, n := a.s, a.n
	nu := len(s.inputs)
	du := make([][]float64, len(js)) // ∂u/∂p_j, all inputs
	eval := func(t float64, y, out []float64) error {
		if err := a.m.Func(t, y, out[:n]); err != nil {
			return err
		}
		return a.gatherAll(t, y, out[n:])
	}
	if err := a.withFrozenLoops(t, y, func() error {
		for k, j := range js {
			buf := make([]float64, n+nu)
			if err := a.diff(paramDir(j, nil), t, y, eval, buf); err != nil {
				return err
			}
			copy(a.fp[j*n:(j+1)*n], buf[:n])
			du[k] = buf[n:]
		}
		return nil
	}); err != nil {
		return err
	}
	var dstU []float64
	return a.at(t, y, func(cur *int32) error {
		for _, i := range s.stateful {
			c := &s.nodes[i]
			ij, ok := node.As[node.InputJacobian](c.n)
			if !ok || c.u1 == c.u0 {
				continue
			}
			used := false
			for k, j := range js {
				if a.ps[j].node != i && anyNonZero(du[k][c.u0:c.u1]) {
					used = true
				}
			}
			if !used {
				continue
			}
			*cur = i
			if c.feedthrough {
				if err := s.gatherSafe(c, t); err != nil {
					return err
				}
			}
			nx, ncu := int(c.x1)-int(c.x0), int(c.u1)-int(c.u0)
			if cap(dstU) < nx*ncu {
				dstU = make([]float64, nx*ncu)
			}
			dstU = dstU[:nx*ncu]
			if err := ij.DerivativesJacobian(t, y[c.x0:c.x1], s.inputsOf(c), nil, dstU); err != nil {
				return stepError(c.name, "", s.steps, t, err)
			}
			for k, j := range js {
				if a.ps[j].node == i {
					continue // its own parameter may enter f directly
				}
				d := du[k][c.u0:c.u1]
				col := a.fp[j*n : (j+1)*n]
				for r := 0; r < nx; r++ {
					var sum float64
					for q, v := range d {
						if v != 0 {
							sum += dstU[r*ncu+q] * v
						}
					}
					col[int(c.x0)+r] = sum
				}
			}
		}
		return nil
	})
}

// gatherAll writes every stateful node's gathered inputs at (t, y) into
// dst (len(s.inputs), in s.inputs's layout); inputs of other nodes are left as
// prepare leaves them.
func (a *sensSys) gatherAll(t float64, y, dst []float64) error {
	s := a.s
	return a.at(t, y, func(*int32) error {
		for _, i := range s.stateful {
			if c := &s.nodes[i]; c.feedthrough {
				if err := s.gatherSafe(c, t); err != nil {
					return err
				}
			}
		}
		copy(dst, s.inputs)
		return nil
	})
}
