package graph

import (
	"fmt"
	"math"

	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

// The jump of the sensitivities at a located event: the saltation map of
// Sim.Sensitivities (∂t*/∂p from the event function's gradient, then S⁺
// from the reset map's Jacobians), applied in the augmented system's
// Reset.

// Reset applies the graph's reset to the state and the saltation map to S.
func (a *sensSys) Reset(i int, t float64, Y, dst []float64) (integrators.EventAction, error) {
	n := a.n
	yMinus := Y[:n]
	act, err := a.m.Reset(i, t, yMinus, dst[:n])
	if err != nil {
		return act, err
	}
	yPlus := dst[:n]
	gy, gp := make([]float64, n), make([]float64, a.np)
	gt, err := a.eventGrad(i, t, yMinus, gy, gp)
	if err != nil {
		return act, err
	}
	// f⁻ is the flow of the mode before the event: on the near side of
	// the surface (see nearSide).
	yNear, err := a.nearSide(i, t, yMinus, gy)
	if err != nil {
		return act, err
	}
	fm, fpl := make([]float64, n), make([]float64, n)
	if err := a.m.Func(t, yNear, fm); err != nil {
		return act, err
	}
	if err := a.m.Func(t, yPlus, fpl); err != nil {
		return act, err
	}
	Ry, Rp, Rt := make([]float64, n*n), make([]float64, n*a.np), make([]float64, n)
	if err := a.resetJac(i, t, yMinus, Ry, Rp, Rt); err != nil {
		return act, err
	}
	denom, scale := gt, math.Abs(gt)
	for k := range gy {
		denom += gy[k] * fm[k]
		scale += math.Abs(gy[k] * fm[k])
	}
	if !(math.Abs(denom) > 1e-10*scale) || denom == 0 {
		return act, fmt.Errorf("graph: Sensitivities: event %s at t=%s grazes its surface (dg/dt = %g along the trajectory): the event time has no derivative: %w", a.m.EventName(i), node.FormatValue(t), denom, ErrNotDifferentiable)
	}
	// jump = f⁺ − Ry·f⁻ − Rt, entering S⁺ with a minus sign (see
	// Sensitivities).
	jump := make([]float64, n)
	for r := 0; r < n; r++ {
		v := fpl[r] - Rt[r]
		for k := 0; k < n; k++ {
			v -= Ry[r*n+k] * fm[k]
		}
		jump[r] = v
	}
	ev := SensitivityEvent{T: t, Name: a.m.EventName(i), DT: make([]float64, a.np)}
	for j := 0; j < a.np; j++ {
		Sm := Y[n+j*n : n+(j+1)*n]
		Sp := dst[n+j*n : n+(j+1)*n]
		num := gp[j]
		for k := range gy {
			num += gy[k] * Sm[k]
		}
		dtj := -num / denom
		ev.DT[j] = dtj
		for r := 0; r < n; r++ {
			v := Rp[r*a.np+j] - jump[r]*dtj
			for k := 0; k < n; k++ {
				v += Ry[r*n+k] * Sm[k]
			}
			Sp[r] = v
		}
	}
	a.events = append(a.events, ev)
	return act, nil
}

// nearSide returns the state y, at which event i was located, moved
// back across the event's surface to its near side when it lies on the
// surface or beyond it, along ∂g/∂y (gy) by the least distance that
// puts g strictly on the near side; otherwise y itself.
//
// The located state is on the far side of the root or on it (the
// localization stops there; package integrators, "Events"), and a node
// whose Derivatives switch mode on the event's own surface — a limited
// integrator holds its output once it is at a limit with the input
// pushing outward — already reports its post-event mode there: the
// saltation's f⁻ would be the held flow, whose crossing speed ∂g/∂y·f⁻
// is zero, and the event would be refused as grazing although the input
// drives the state through the surface transversally. On the near side
// f is the pre-event mode's. The move is at most the distance of the
// located state from the surface plus a few ulps, within the event
// location's own tolerance, so it adds no error of a larger order. The
// state is kept when the event has no state gradient (a time-driven
// event) or, with direction 0, when g is exactly zero (no side is
// known).
func (a *sensSys) nearSide(i int, t float64, y, gy []float64) ([]float64, error) {
	g := make([]float64, a.m.EventCount())
	if err := a.m.Events(t, y, g); err != nil {
		return nil, err
	}
	gi := g[i]
	var sgn float64 // the sign of g on the near side
	switch a.m.EventDirection(i) {
	case 1:
		sgn = -1
	case -1:
		sgn = 1
	default:
		if gi == 0 {
			return y, nil
		}
		sgn = -math.Copysign(1, gi)
	}
	if sgn*gi > 0 {
		return y, nil
	}
	var norm2, ymax float64
	for k, v := range gy {
		norm2 += v * v
		ymax = math.Max(ymax, math.Abs(y[k]))
	}
	if !(norm2 > 0) || math.IsInf(norm2, 0) {
		return y, nil
	}
	yn := make([]float64, len(y))
	// Distance along gy/|gy|: |g|/|gy| to the surface, plus a margin
	// from a few ulps of the state, doubled until g is on the near side.
	margin := 4 * 0x1p-52 * math.Max(1, ymax)
	for range 64 {
		step := (math.Abs(gi)/math.Sqrt(norm2) + margin) / math.Sqrt(norm2)
		for k := range y {
			yn[k] = y[k] + sgn*step*gy[k]
		}
		if err := a.m.Events(t, yn, g); err != nil {
			return nil, err
		}
		if sgn*g[i] > 0 {
			return yn, nil
		}
		margin *= 2
	}
	return y, nil
}

// eventGrad writes ∂g_i/∂y into gy and ∂g_i/∂p into gp and returns
// ∂g_i/∂t, at the state before the event.
func (a *sensSys) eventGrad(i int, t float64, y, gy, gp []float64) (float64, error) {
	s, n := a.s, a.n
	e := a.m.events()[i]
	c := &s.nodes[e.node]
	if ej, ok := node.As[node.EventJacobian](c.n); ok && a.scalarParams(e.node) {
		nx, nu, npn := c.x1-c.x0, c.u1-c.u0, len(c.spec.Params)
		gx, gu, gpo := make([]float64, nx), make([]float64, nu), make([]float64, npn)
		in, err := a.nodeInputs(c, t, y)
		if err != nil {
			return 0, err
		}
		gt, err := ej.EventValuesJacobian(e.event, t, y[c.x0:c.x1], in, gx, gu, gpo)
		if err != nil {
			return 0, stepError(c.name, "", s.steps, t, err)
		}
		clear(gy)
		clear(gp)
		copy(gy[c.x0:c.x1], gx)
		for j := range a.ps {
			if a.ps[j].node == e.node {
				gp[j] = gpo[a.ps[j].col]
			}
		}
		if anyNonZero(gu) {
			Uy, Ut, Up, err := a.inputSens(c, t, y)
			if err != nil {
				return 0, err
			}
			for q, w := range gu {
				for k := 0; k < n; k++ {
					gy[k] += w * Uy[q*n+k]
				}
				gt += w * Ut[q]
				for j := 0; j < a.np; j++ {
					gp[j] += w * Up[q*a.np+j]
				}
			}
		}
		return gt, nil
	}
	ne := a.m.EventCount()
	var gt float64
	err := a.diffAll(t, y, ne, a.m.Events, func(k int, col []float64) { gy[k] = col[i] },
		func(col []float64) { gt = col[i] }, func(j int, col []float64) { gp[j] = col[i] })
	return gt, err
}

// resetJac writes ∂R/∂y (n×n), ∂R/∂p (n×np) and ∂R/∂t (n) of flat event
// i's reset at the state before it.
func (a *sensSys) resetJac(i int, t float64, y, Ry, Rp, Rt []float64) error {
	s, n, np := a.s, a.n, a.np
	e := a.m.events()[i]
	c := &s.nodes[e.node]
	clear(Ry)
	clear(Rp)
	clear(Rt)
	if rj, ok := node.As[node.ResetJacobian](c.n); ok && a.scalarParams(e.node) {
		nx, nu, npn := int(c.x1)-int(c.x0), int(c.u1)-int(c.u0), len(c.spec.Params)
		Rx, Ru, Rpo, Rto := make([]float64, nx*nx), make([]float64, nx*nu), make([]float64, nx*npn), make([]float64, nx)
		in, err := a.nodeInputs(c, t, y)
		if err != nil {
			return err
		}
		if err := rj.ResetJacobian(e.event, t, y[c.x0:c.x1], in, Rx, Ru, Rpo, Rto); err != nil {
			return stepError(c.name, "", s.steps, t, err)
		}
		for r := 0; r < n; r++ {
			if r < int(c.x0) || r >= int(c.x1) {
				Ry[r*n+r] = 1
			}
		}
		for r := 0; r < nx; r++ {
			R := int(c.x0) + r
			for q := 0; q < nx; q++ {
				Ry[R*n+int(c.x0)+q] = Rx[r*nx+q]
			}
			Rt[R] = Rto[r]
			for j := range a.ps {
				if a.ps[j].node == e.node {
					Rp[R*np+j] = Rpo[r*npn+a.ps[j].col]
				}
			}
		}
		if anyNonZero(Ru) {
			Uy, Ut, Up, err := a.inputSens(c, t, y)
			if err != nil {
				return err
			}
			for r := 0; r < nx; r++ {
				R := int(c.x0) + r
				for q := 0; q < nu; q++ {
					w := Ru[r*nu+q]
					if w == 0 {
						continue
					}
					for k := 0; k < n; k++ {
						Ry[R*n+k] += w * Uy[q*n+k]
					}
					Rt[R] += w * Ut[q]
					for j := 0; j < np; j++ {
						Rp[R*np+j] += w * Up[q*np+j]
					}
				}
			}
		}
		return nil
	}
	rAt := func(t float64, y, out []float64) error {
		copy(out, y)
		_, err := a.m.Reset(i, t, y, out)
		return err
	}
	return a.diffAll(t, y, n, rAt, func(k int, col []float64) {
		for r := 0; r < n; r++ {
			Ry[r*n+k] = col[r]
		}
	}, func(col []float64) { copy(Rt, col) }, func(j int, col []float64) {
		for r := 0; r < n; r++ {
			Rp[r*np+j] = col[r]
		}
	})
}
