package graph

import (
	"errors"
	"fmt"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/node"
)

// Nodes whose model keeps state outside the graph's state vector
// (node.HiddenState: an imported FMU) take part in checkpoints with a
// snapshot of that state, and are asked before a coupling strategy steps
// them again from the start of a step.

// saveHidden returns node n's snapshot, adding its error (naming the
// node) to errs.
func saveHidden(name string, n node.Node, errs error) ([]byte, error) {
	hs, ok := node.As[node.HiddenState](n)
	if !ok {
		return nil, errs
	}
	data, err := hs.SaveHidden()
	if err != nil {
		return nil, errors.Join(errs, fmt.Errorf("graph: checkpoint: node %s: %w", name, err))
	}
	return data, errs
}

// hiddenDiff says how a checkpoint's snapshot of a node's hidden state
// does not fit the node.
func hiddenDiff(where string, n node.Node, data []byte) []string {
	_, ok := node.As[node.HiddenState](n)
	switch {
	case ok && data == nil:
		return []string{where + " keeps hidden state (node.HiddenState), and the checkpoint has no snapshot of it"}
	case !ok && data != nil:
		return []string{where + ": the checkpoint has a snapshot of hidden state, which the node does not keep"}
	}
	return nil
}

// restoreHidden puts every node's snapshot back; when one fails, those
// restored already are put back as they were (when they can save it), so
// that a failed Restore changes nothing where it can.
func (s *Sim) restoreHidden(c *Checkpoint) error {
	type undo struct {
		hs   node.HiddenState
		data []byte
	}
	var done []undo
	for i, nc := range c.Nodes {
		hs, ok := node.As[node.HiddenState](s.nodes[i].n)
		if !ok {
			continue
		}
		before, _ := hs.SaveHidden()
		if err := hs.RestoreHidden(nc.Hidden); err != nil {
			for k := len(done) - 1; k >= 0; k-- {
				if done[k].data != nil {
					done[k].hs.RestoreHidden(done[k].data)
				}
			}
			return fmt.Errorf("graph: restore: node %s: %w", nc.Name, err)
		}
		done = append(done, undo{hs, before})
	}
	return nil
}

// allowRestep asks every stateful member of an iterated group whose
// model keeps hidden state whether it can be stepped again from the start
// of a step, as the group iteration does; the error names the strategy,
// the group and the node.
func (s *Sim) allowRestep(st *coupling.Strategy, p *coupledPlan) error {
	for _, g := range p.groups {
		for _, i := range g.stateful {
			c := &s.nodes[i]
			hs, ok := node.As[node.HiddenState](c.n)
			if !ok {
				continue
			}
			if err := hs.AllowRestep(); err != nil {
				return fmt.Errorf("graph: coupling %s steps the nodes of group %q again from the start of each step until they converge, and node %s (%s) cannot be: %w", st.Name(), g.name, c.name, c.spec.Type, err)
			}
		}
	}
	return nil
}
