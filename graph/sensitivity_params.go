package graph

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cosimgo/cosim/node"
)

// The parameters of Sim.Sensitivities: resolving "node.param", reading
// and setting it through the node's SetParams, the step and differences
// of ∂/∂p where a node states no exact derivative, and the check that no
// parameter moves a node's time events.

// sensParam is one named parameter, resolved.
type sensParam struct {
	name     string // "node.param"
	pname    string
	node     int32
	col      int // index in Spec().Params
	comp     int // component of a Vector parameter, or −1 for a Real one
	tun      node.Tunable
	analytic node.ParamJacobian // nil: difference f over SetParams
	v, h     float64            // the value at the start, the difference step
	buf      []float64          // the node's ∂f/∂p (analytic only)
}

// resolveParam resolves "node.param" to a Real parameter of a Tunable node.
func (s *Sim) resolveParam(name string) (sensParam, error) {
	nn, pn, ok := splitPath(name) // at the last '.': "leg2.knee.spring.stiffness"
	if !ok {
		return sensParam{}, fmt.Errorf("graph: parameter %q: want node.param or node.param[i]", name)
	}
	comp := -1
	if b := strings.IndexByte(pn, '['); b > 0 && strings.HasSuffix(pn, "]") {
		k, err := strconv.Atoi(pn[b+1 : len(pn)-1])
		if err != nil || k < 0 {
			return sensParam{}, fmt.Errorf("graph: parameter %q: bad component index", name)
		}
		comp, pn = k, pn[:b]
	}
	i, ok := s.indexOf(nn)
	if !ok {
		return sensParam{}, fmt.Errorf("graph: parameter %q: no node %q (nodes: %s)", name, nn, strings.Join(s.nodeNames(), ", "))
	}
	c := &s.nodes[i]
	col := -1
	var names []string
	for k, p := range c.spec.Params {
		names = append(names, p.Name)
		if p.Name == pn {
			col = k
		}
	}
	if col < 0 {
		return sensParam{}, fmt.Errorf("graph: parameter %q: node %s (%s) has no parameter %q (parameters: %s)", name, nn, c.spec.Type, pn, strings.Join(names, ", "))
	}
	kind := c.spec.Params[col].Kind
	switch {
	case comp < 0 && kind == node.Vector:
		return sensParam{}, fmt.Errorf("graph: parameter %q is a vector: name one component, %s[i]", name, name)
	case comp >= 0 && kind != node.Vector:
		return sensParam{}, fmt.Errorf("graph: parameter %q: %s is %s, not a vector with components", name, pn, kind)
	case kind != node.Real && kind != node.Vector:
		return sensParam{}, fmt.Errorf("graph: parameter %q is %s, not real: only real parameters (and vector components) have derivatives", name, kind)
	}
	tun, ok := node.As[node.Tunable](c.n)
	if !ok {
		return sensParam{}, fmt.Errorf("graph: parameter %q: node %s (%s) is not Tunable, so its parameters cannot be varied", name, nn, c.spec.Type)
	}
	p := sensParam{name: name, pname: pn, node: int32(i), col: col, comp: comp, tun: tun}
	v, ok := p.get()
	if !ok {
		return sensParam{}, fmt.Errorf("graph: parameter %q has no finite real value", name)
	}
	p.v, p.h = v, fdParamStep(v)
	if comp < 0 && c.x1 > c.x0 && c.out == nil {
		p.analytic, _ = node.As[node.ParamJacobian](c.n)
	}
	return p, nil
}

// get reads the parameter's current value (one component of a vector).
func (p *sensParam) get() (float64, bool) {
	raw := p.tun.Params()[p.pname]
	var v float64
	if p.comp < 0 {
		f, ok := raw.(float64)
		if !ok {
			return 0, false
		}
		v = f
	} else {
		vec, ok := raw.([]float64)
		if !ok || p.comp >= len(vec) {
			return 0, false
		}
		v = vec[p.comp]
	}
	return v, !math.IsNaN(v) && !math.IsInf(v, 0)
}

// fdParamStep is the central-difference step of a parameter of value v:
// relative, 1e-6·|v| (truncation ~1e-12, rounding ~1e-10 relative), and
// 1e-6 for v = 0.
func fdParamStep(v float64) float64 {
	if h := 1e-6 * math.Abs(v); h > 1e-300 {
		return h
	}
	return 1e-6
}

func (a *sensSys) set(j int, v float64) error {
	p := &a.ps[j]
	if p.comp < 0 {
		return p.tun.SetParams(map[string]any{p.pname: v})
	}
	vec, ok := p.tun.Params()[p.pname].([]float64)
	if !ok {
		return fmt.Errorf("graph: parameter %s is no longer a vector", p.name)
	}
	vec = append([]float64(nil), vec...)
	vec[p.comp] = v
	return p.tun.SetParams(map[string]any{p.pname: vec})
}

// restoreParams puts every parameter back to its value at the start.
func (a *sensSys) restoreParams() {
	for j := range a.ps {
		_ = a.set(j, a.ps[j].v)
	}
}

// dParam differentiates eval (a vector of len(dst)) with respect to
// parameter j: central differences, or second-order one-sided ones when a
// step leaves the parameter's valid range. eval is called with the
// parameter set to its value + eps.
func (a *sensSys) dParam(j int, eval func(eps float64, out []float64) error, dst []float64) (err error) {
	p := &a.ps[j]
	v, h := p.v, p.h
	defer func() {
		if rerr := a.set(j, v); rerr != nil && err == nil {
			err = rerr
		}
	}()
	n := len(dst)
	f1, f2 := make([]float64, n), make([]float64, n)
	at := func(x float64, out []float64) (bool, error) {
		if a.set(j, x) != nil {
			return false, nil
		}
		return true, eval(x-v, out)
	}
	okP, err := at(v+h, f1)
	if err != nil {
		return err
	}
	okM, err := at(v-h, f2)
	if err != nil {
		return err
	}
	switch {
	case okP && okM:
		for i := range dst {
			dst[i] = (f1[i] - f2[i]) / (2 * h)
		}
		return nil
	case okP || okM:
		sgn := 1.0
		if !okP {
			sgn, f1, f2 = -1, f2, f1 // swapped, not shared: f2 takes the step 2h next
		}
		f0 := make([]float64, n)
		if _, err := at(v, f0); err != nil {
			return err
		}
		ok, err := at(v+2*sgn*h, f2)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("graph: Sensitivities: parameter %s = %v: no valid difference step of %v on either side", p.name, v, h)
		}
		for i := range dst {
			dst[i] = sgn * (-3*f0[i] + 4*f1[i] - f2[i]) / (2 * h)
		}
		return nil
	}
	return fmt.Errorf("graph: Sensitivities: parameter %s = %v: no valid difference step of %v on either side", p.name, v, h)
}

// checkTimeEvents rejects parameters that move their node's time events
// within [t0, end]: S would jump at those times, which is not implemented.
func (a *sensSys) checkTimeEvents(t0, end float64) error {
	list := func(te node.TimeEventer) []float64 {
		var out []float64
		t := t0
		for len(out) < 10000 {
			_, _, next := te.TimeEvents(t)
			if !(next <= end) {
				break
			}
			out = append(out, next)
			t = next
		}
		return out
	}
	for j := range a.ps {
		p := &a.ps[j]
		te, ok := node.As[node.TimeEventer](a.s.nodes[p.node].n)
		if !ok {
			continue
		}
		base := list(te)
		moved := false
		for _, x := range []float64{p.v + p.h, p.v - p.h} {
			if a.set(j, x) != nil {
				continue
			}
			got := list(te)
			if len(got) != len(base) {
				moved = true
			}
			for k := range got {
				if k < len(base) && got[k] != base[k] {
					moved = true
				}
			}
		}
		if err := a.set(j, p.v); err != nil {
			return err
		}
		if moved {
			return fmt.Errorf("graph: Sensitivities: parameter %s moves the time events of node %s, and the jump of the sensitivities at a parameter-dependent switching time is not implemented: %w", p.name, a.s.nodes[p.node].name, ErrNotDifferentiable)
		}
	}
	return nil
}

// scalarParams reports that none of the named parameters is a component
// of a vector parameter of node i: the analytic event and reset
// Jacobians have one column per Spec().Params entry, so a component is
// differenced through the whole graph instead.
func (a *sensSys) scalarParams(i int32) bool {
	for j := range a.ps {
		if a.ps[j].node == i && a.ps[j].comp >= 0 {
			return false
		}
	}
	return true
}

func anyNonZero(v []float64) bool {
	for _, x := range v {
		if x != 0 {
			return true
		}
	}
	return false
}
