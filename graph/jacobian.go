package graph

import (
	"fmt"
	"math"

	"github.com/cosimgo/cosim/node"
)

// Jacobian writes ∂f/∂y of the monolithic system at (t, y) into dst
// (row-major, Dim×Dim), assembled by the chain rule through the graph:
//
//	∂f_i/∂y = A_i·E_i + B_i·∂u_i/∂y,   ∂u/∂y through edges: state sources
//	are selections, output sources ∂y_k/∂y = C_k·E_k + D_k·∂u_k/∂y,
//
// with A_i = ∂f_i/∂x_i and B_i = ∂f_i/∂u_i from the node's
// DerivativesJacobian (node.InputJacobian) and D_k = ∂y_k/∂u_k from a
// connector's analytic OutputsJacobian (node.OutputJacobian, e.g. the
// spring-damper's) where the nodes provide them, and node-local central
// finite differences of that one node where they do not. Transforms are
// differentiated exactly (Scale, Component, Embed) or by finite
// differences (Func). The implicit integrators use it instead of
// differencing the whole system.
//
// It is dense: meant for the small systems dense LU serves.
func (m *System) Jacobian(t float64, y, dst []float64) (err error) {
	s := m.s
	nx := len(s.x)
	if len(y) != nx || len(dst) != nx*nx {
		panic(fmt.Sprintf("graph: System.Jacobian with len(y)=%d, len(dst)=%d, want %d and %d", len(y), len(dst), nx, nx*nx))
	}
	saved, err := m.prepare(t, y)
	defer m.restore(saved)
	if err != nil {
		return err
	}
	cur := int32(-1)
	defer m.recoverAt(&cur, t, &err)
	// dY[j] is row j of ∂y/∂x (outputs), filled level by level.
	dY := make([][]float64, len(s.y))
	for _, level := range s.levels {
		for _, k := range level {
			cur = k
			c := &s.nodes[k]
			dU := m.inputJacobian(c, dY)
			ny, nu := c.y1-c.y0, c.u1-c.u0
			D := make([]float64, ny*nu)
			if c.feedthrough && nu > 0 {
				if oj, ok := node.As[node.OutputJacobian](c.n); ok {
					if err := oj.OutputsJacobian(t, y[c.x0:c.x1], s.inputs(c), D); err != nil {
						return stepError(c.name, "", s.steps, t, err)
					}
				} else if err := m.fdOutputs(c, t, y, true, D); err != nil {
					return err
				}
			}
			nxk := c.x1 - c.x0
			C := make([]float64, ny*nxk)
			if nxk > 0 {
				if err := m.fdOutputs(c, t, y, false, C); err != nil {
					return err
				}
			}
			for r := 0; r < ny; r++ {
				row := make([]float64, nx)
				for q := 0; q < nxk; q++ {
					row[c.x0+q] += C[r*nxk+q]
				}
				for q := 0; q < nu; q++ {
					if d := D[r*nu+q]; d != 0 && dU[q] != nil {
						for j, v := range dU[q] {
							row[j] += d * v
						}
					}
				}
				dY[c.y0+r] = row
			}
		}
	}
	clear(dst)
	for k, i := range s.stateful {
		cur = i
		c := &s.nodes[i]
		nxi, nu := c.x1-c.x0, c.u1-c.u0
		A, B := make([]float64, nxi*nxi), make([]float64, nxi*nu)
		if ij, ok := node.As[node.InputJacobian](c.n); ok {
			if err := ij.DerivativesJacobian(t, y[c.x0:c.x1], s.inputs(c), A, B); err != nil {
				return stepError(c.name, "", s.steps, t, err)
			}
		} else if err := m.fdDerivatives(k, c, t, y, A, B); err != nil {
			return err
		}
		dU := m.inputJacobian(c, dY)
		for r := 0; r < nxi; r++ {
			row := dst[(c.x0+r)*nx : (c.x0+r+1)*nx]
			for q := 0; q < nxi; q++ {
				row[c.x0+q] += A[r*nxi+q]
			}
			for q := 0; q < nu; q++ {
				if b := B[r*nu+q]; b != 0 && dU[q] != nil {
					for j, v := range dU[q] {
						row[j] += b * v
					}
				}
			}
		}
	}
	return nil
}

// inputJacobian returns ∂u_c/∂x row by row (nil rows are zero): for each
// gather into c's inputs, the transform's Jacobian times the source's
// rows (a selection for state sources, dY for outputs).
func (m *System) inputJacobian(c *cnode, dY [][]float64) [][]float64 {
	s := m.s
	nx := len(s.x)
	dU := make([][]float64, c.u1-c.u0)
	for gi := c.g0; gi < c.g1; gi++ {
		g := &s.gathers[gi]
		srcRow := func(j int) []float64 {
			if g.fromY {
				return dY[g.src+j]
			}
			r := make([]float64, nx)
			r[g.src+j] = 1
			return r
		}
		T := transformJacobian(g, s)
		for r := 0; r < g.n; r++ {
			q := g.dst - c.u0 + r
			if g.mode == gatherSet {
				dU[q] = nil
			}
			for j := 0; j < g.sn; j++ {
				w := T[r*g.sn+j]
				if w == 0 {
					continue
				}
				sr := srcRow(j)
				if sr == nil {
					continue
				}
				if dU[q] == nil {
					dU[q] = make([]float64, nx)
				}
				for col, v := range sr {
					dU[q][col] += w * v
				}
			}
		}
	}
	return dU
}

// transformJacobian is ∂out/∂src of a gather's transform, n×sn.
func transformJacobian(g *gather, s *Sim) []float64 {
	T := make([]float64, g.n*g.sn)
	switch tr := g.tr.(type) {
	case nil:
		for r := 0; r < g.n; r++ {
			T[r*g.sn+r] = 1
		}
	case Scale:
		for r := 0; r < g.n; r++ {
			T[r*g.sn+r] = tr.Factor
		}
	case Component:
		T[tr.Index] = 1
	case Embed:
		T[tr.Axis*g.sn] = 1
	default:
		buf := s.x
		if g.fromY {
			buf = s.y
		}
		src := append([]float64(nil), buf[g.src:g.src+g.sn]...)
		op, om := make([]float64, g.n), make([]float64, g.n)
		for j := range src {
			h := fdStep(src[j])
			v := src[j]
			src[j] = v + h
			tr.Apply(op, src)
			src[j] = v - h
			tr.Apply(om, src)
			src[j] = v
			for r := 0; r < g.n; r++ {
				T[r*g.sn+j] = (op[r] - om[r]) / (2 * h)
			}
		}
	}
	return T
}

func fdStep(v float64) float64 { return 1e-6 * math.Max(1, math.Abs(v)) }

// fdOutputs differentiates c's Outputs by central differences of its
// inputs (wrtInputs) or of its own state, into dst (ny × nu or ny × nx_c).
func (m *System) fdOutputs(c *cnode, t float64, y []float64, wrtInputs bool, dst []float64) error {
	s := m.s
	ny := c.y1 - c.y0
	yp, ym := make([]float64, ny), make([]float64, ny)
	in := s.inputs(c)
	u := append([]float64(nil), in.Values...)
	in.Values = u
	x := append([]float64(nil), y[c.x0:c.x1]...)
	vec := x
	if wrtInputs {
		vec = u
	}
	cols := len(vec)
	for j := range vec {
		h := fdStep(vec[j])
		v := vec[j]
		vec[j] = v + h
		if err := c.out.Outputs(t, x, in, yp); err != nil {
			return stepError(c.name, "", s.steps, t, err)
		}
		vec[j] = v - h
		if err := c.out.Outputs(t, x, in, ym); err != nil {
			return stepError(c.name, "", s.steps, t, err)
		}
		vec[j] = v
		for r := 0; r < ny; r++ {
			dst[r*cols+j] = (yp[r] - ym[r]) / (2 * h)
		}
	}
	return nil
}

// fdDerivatives differentiates stateful node k's Derivatives by central
// differences of its own state (A) and inputs (B).
func (m *System) fdDerivatives(k int, c *cnode, t float64, y []float64, A, B []float64) error {
	s := m.s
	nxi := c.x1 - c.x0
	fp, fm := make([]float64, nxi), make([]float64, nxi)
	in := s.inputs(c)
	u := append([]float64(nil), in.Values...)
	in.Values = u
	x := append([]float64(nil), y[c.x0:c.x1]...)
	for pass, vec := range [][]float64{x, u} {
		dst, cols := A, nxi
		if pass == 1 {
			dst, cols = B, len(u)
		}
		for j := range vec {
			h := fdStep(vec[j])
			v := vec[j]
			vec[j] = v + h
			if err := m.derivs[k].Derivatives(t, x, in, fp); err != nil {
				return stepError(c.name, "", s.steps, t, err)
			}
			vec[j] = v - h
			if err := m.derivs[k].Derivatives(t, x, in, fm); err != nil {
				return stepError(c.name, "", s.steps, t, err)
			}
			vec[j] = v
			for r := 0; r < nxi; r++ {
				dst[r*cols+j] = (fp[r] - fm[r]) / (2 * h)
			}
		}
	}
	return nil
}
