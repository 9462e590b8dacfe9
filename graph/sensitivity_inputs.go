package graph

import (
	"math"

	"github.com/cosimgo/cosim/node"
)

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
		var side sideValues
		var f0 []float64 // f at (t, y), for switchedRows, computed once when needed
		for k, j := range js {
			buf := make([]float64, n+nu)
			side.reset(n)
			rec := func(t float64, y, out []float64) error {
				if err := eval(t, y, out); err != nil {
					return err
				}
				cur, _ := a.ps[j].get()
				side.keep(cur-a.ps[j].v, out[:n])
				return nil
			}
			if err := a.diff(paramDir(j, nil), t, y, rec, buf); err != nil {
				return err
			}
			copy(a.fp[j*n:(j+1)*n], buf[:n])
			du[k] = buf[n:]
			if err := a.switchedRows(j, t, y, du[k], &side, &f0); err != nil {
				return err
			}
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

// sideValues keeps f on each side of a central parameter difference.
type sideValues struct {
	plus, minus []float64
	h           float64
	havePlus    bool
	haveMinus   bool
}

func (v *sideValues) reset(n int) {
	if len(v.plus) != n {
		v.plus, v.minus = make([]float64, n), make([]float64, n)
	}
	v.havePlus, v.haveMinus, v.h = false, false, 0
}

// keep records f at the parameter step eps (the first of each sign).
func (v *sideValues) keep(eps float64, f []float64) {
	switch {
	case eps > 0 && !v.havePlus:
		copy(v.plus, f)
		v.havePlus, v.h = true, eps
	case eps < 0 && !v.haveMinus:
		copy(v.minus, f)
		v.haveMinus = true
	}
}

// switchedRows checks the rows of ∂f/∂p_j that keep their central
// difference (those the chain rule through the inputs does not replace:
// the parameter's own node, and nodes without node.InputJacobian or
// whose inputs do not move with p_j) for a switch of the node's mode
// inside the difference step, and replaces such a row by the one-sided
// derivative of the mode in force at p_j.
//
// A node whose Derivatives switch mode on a parameter at the very point
// differentiated — a limited integrator held at its limit b, x = b
// exactly, is held for b − h (x beyond the limit) but free for b + h —
// gives a central difference that is half the jump over h (K·u/(2h),
// ~1e6 for h = 1e-6), the same failure as the resting ball's table
// height (above). At such a point the one-sided differences disagree,
// and halving the step does not bring them together: the side across
// the switch grows like 1/h, while the side on which the mode at p_j
// extends converges. The row takes that side's second-order one-sided
// difference (steps h and 2h). When neither side converges, or both do
// to different values (a kink: the modes agree in f but not in its
// derivative, and f alone cannot tell which is in force), the row has
// no derivative and the run is refused with a *SwitchError naming the
// node, the row, the parameter and the time.
func (a *sensSys) switchedRows(j int, t float64, y, du []float64, side *sideValues, f0p *[]float64) error {
	if !side.havePlus || !side.haveMinus {
		return nil // one-sided already (at a bound of the range)
	}
	s, n := a.s, a.n
	col := a.fp[j*n : (j+1)*n]
	f0 := *f0p
	h := side.h
	for _, i := range s.stateful {
		c := &s.nodes[i]
		if i != a.ps[j].node {
			if _, ok := node.As[node.InputJacobian](c.n); ok && c.u1 > c.u0 && anyNonZero(du[c.u0:c.u1]) {
				continue // replaced by the chain rule
			}
		}
		for r := int(c.x0); r < int(c.x1); r++ {
			if f0 == nil {
				f0 = make([]float64, n)
				if err := a.m.Func(t, y, f0); err != nil { // the loops at z*: ε = 0
					return err
				}
				*f0p = f0
			}
			dp, dm := (side.plus[r]-f0[r])/h, (f0[r]-side.minus[r])/h
			noise := 1e3 * 0x1p-52 * (math.Abs(f0[r]) + math.Abs(side.plus[r]) + math.Abs(side.minus[r])) / h
			if math.Abs(dp-dm) <= 1e-2*(math.Abs(dp)+math.Abs(dm))+noise {
				continue
			}
			d, err := a.modeSide(j, t, y, c, r, f0[r], dp, dm, h)
			if err != nil {
				return err
			}
			col[r] = d
		}
	}
	return nil
}

// modeSide is the one-sided derivative of row r of f with respect to
// parameter j on the side where the mode at p_j extends (switchedRows):
// the differences at h/16 tell which side converges.
func (a *sensSys) modeSide(j int, t float64, y []float64, c *cnode, r int, f0, dp, dm, h float64) (float64, error) {
	n := a.n
	f := make([]float64, n)
	at := func(eps float64) (float64, error) {
		v := a.ps[j].v
		st := a.s.loops
		defer func() {
			if st != nil {
				st.eps = 0
			}
			_ = a.set(j, v)
		}()
		if err := a.set(j, v+eps); err != nil {
			return 0, err
		}
		if st != nil {
			st.eps = eps // the loops along the tangent diff set
		}
		if err := a.m.Func(t, y, f); err != nil {
			return 0, err
		}
		return f[r], nil
	}
	q := h / 16
	fp, err := at(q)
	if err != nil {
		return 0, err
	}
	fm, err := at(-q)
	if err != nil {
		return 0, err
	}
	dp2, dm2 := (fp-f0)/q, (f0-fm)/q
	// A side across a jump grows like 1/h (16 times here); a side within
	// the mode changes by its O(h) truncation.
	conv := func(d, d2 float64) bool {
		return math.Abs(d2-d) <= 0.5*math.Abs(d)+1e-8*math.Abs(d2)+1e3*0x1p-52*math.Abs(f0)/q
	}
	cp, cm := conv(dp, dp2), conv(dm, dm2)
	if cp != cm {
		sgn := 1.0
		if cm {
			sgn = -1
		}
		f1, err := at(sgn * h)
		if err != nil {
			return 0, err
		}
		f2, err := at(sgn * 2 * h)
		if err != nil {
			return 0, err
		}
		return sgn * (-3*f0 + 4*f1 - f2) / (2 * h), nil
	}
	k := r - int(c.x0)
	return 0, &SwitchError{Node: c.name, Function: "Derivatives", Of: c.spec.StateLayout.Component(k), Wrt: "parameter " + a.ps[j].name, Time: t}
}
