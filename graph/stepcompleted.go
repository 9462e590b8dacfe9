package graph

import "github.com/cosimgo/cosim/node"

// completers are the nodes of a System told of accepted steps
// (node.StepCompleter), stateful ones only, in node order.
type completers struct {
	nodes []int32
	sc    []node.StepCompleter
}

// completed tells every node.StepCompleter node that the integrator
// accepted a step ending at t with flat state y: the graph's outputs and
// inputs are evaluated at (t, y) first, so each node sees its inputs at
// the accepted point. A graph without such nodes pays one length check.
// It does not allocate after its first call.
func (m *System) completed(t float64, y []float64) (err error) {
	if m.cmp == nil {
		m.cmp = &completers{}
		for _, i := range m.s.stateful {
			if sc, ok := node.As[node.StepCompleter](m.s.nodes[i].n); ok {
				m.cmp.nodes = append(m.cmp.nodes, i)
				m.cmp.sc = append(m.cmp.sc, sc)
			}
		}
	}
	if len(m.cmp.nodes) == 0 {
		return nil
	}
	saved, err := m.prepare(t, y)
	defer m.restore(saved)
	if err != nil {
		return err
	}
	s := m.s
	cur := int32(-1)
	defer m.recoverAt(&cur, t, &err)
	for k, i := range m.cmp.nodes {
		cur = i
		c := &s.nodes[i]
		if err := m.cmp.sc[k].CompletedStep(t, y[c.x0:c.x1], s.inputsOf(c)); err != nil {
			return stepError(c.name, "", s.steps, t, err)
		}
	}
	return nil
}
