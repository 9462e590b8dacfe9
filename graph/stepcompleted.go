package graph

import (
	"errors"
	"fmt"

	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

// completers are the nodes of a System told of accepted steps
// (node.StepCompleter), stateful ones only, in node order, with the
// buffer their state changes are written into.
type completers struct {
	nodes []int32
	sc    []node.StepCompleter
	y     []float64 // the flat state after the changes (len Dim)
}

// completion is what the nodes said of an accepted step: y, when not
// nil, is the flat state after the nodes that changed theirs (a step
// event), which the integrator must restart from; stop, when not nil,
// is the error wrapping node.ErrStop with which a node asked to end the
// run there.
type completion struct {
	y    []float64
	by   string // the first node that changed its state
	stop error
}

// completed tells every node.StepCompleter node that the integrator
// accepted a step ending at t with flat state y: the graph's outputs and
// inputs are evaluated at (t, y) first, so each node sees its inputs at
// the accepted point, and every node is told (one that changes its state
// does not change what the later ones see). A graph without such nodes
// pays one length check. It does not allocate after its first call.
func (m *System) completed(t float64, y []float64) (c completion, err error) {
	if m.cmp == nil {
		m.cmp = &completers{}
		for _, i := range m.s.stateful {
			if sc, ok := node.As[node.StepCompleter](m.s.nodes[i].n); ok {
				m.cmp.nodes = append(m.cmp.nodes, i)
				m.cmp.sc = append(m.cmp.sc, sc)
			}
		}
		if len(m.cmp.nodes) > 0 {
			m.cmp.y = make([]float64, len(y))
		}
	}
	if len(m.cmp.nodes) == 0 {
		return completion{}, nil
	}
	saved, err := m.prepare(t, y)
	defer m.restore(saved)
	if err != nil {
		return completion{}, err
	}
	s := m.s
	cur := int32(-1)
	defer m.recoverAt(&cur, t, &err)
	dst := m.cmp.y
	copy(dst, y)
	changed := false
	for k, i := range m.cmp.nodes {
		cur = i
		n := &s.nodes[i]
		ch, err := m.cmp.sc[k].CompletedStep(t, y[n.x0:n.x1], s.inputsOf(n), dst[n.x0:n.x1])
		if ch && !changed {
			c.by = n.name
		}
		changed = changed || ch
		switch {
		case err == nil:
		case errors.Is(err, node.ErrStop):
			if c.stop == nil {
				c.stop = stepError(n.name, "", s.steps, t, err)
			}
		default:
			return completion{}, stepError(n.name, "", s.steps, t, err)
		}
	}
	if changed {
		c.y = dst
	}
	return c, nil
}

// restart puts the kept integrator at (t, y), its current time, after
// nodes changed their state at the step it accepted last (a step event):
// the method starts again from y as after Init — its memory of the
// trajectory before t (the carried derivative or FSAL stage, a multistep
// history, the step-size controller) is rebuilt from the new state and
// its events are armed there, as an importer re-initializes its solver
// after an FMU's event update — while its work counts and a fixed-step
// method's step-count clock carry on, so that the run's statistics and
// its times are those of one run.
func (m *monoState) restart(y []float64) error {
	var cp integrators.Checkpointer
	var init func(float64, []float64) error
	if m.adaptive {
		cp, init = m.ad, m.ad.Init
	} else {
		c, ok := m.st.(integrators.Checkpointer)
		if !ok {
			return fmt.Errorf("graph: method %s cannot restart after a step event: its stepper cannot checkpoint its state (integrators.Checkpointer), which a restart that keeps the run's clock needs", m.method.Name())
		}
		cp, init = c, m.st.Init
	}
	old := cp.Checkpoint()
	if err := init(old.T, y); err != nil {
		return err
	}
	fresh := cp.Checkpoint()
	fresh.Work = addWork(old.Work, fresh.Work)
	fresh.Clock, fresh.T = old.Clock, old.T
	return cp.Restore(fresh)
}

// addWork returns the work counted in a and b together (the counts
// before a restart and those of the restart's Init).
func addWork(a, b integrators.Work) integrators.Work {
	return a.Sub(integrators.Work{}.Sub(b))
}

// sensCompleted tells the StepCompleter nodes of a sensitivity run's
// accepted step ending at t with state y (the first n components of the
// augmented state) and reports whether one asked to stop; a node that
// changes its state there is refused, since the jump of the
// sensitivities at a step event is not implemented.
func (m *System) sensCompleted(t float64, y []float64) (stop bool, err error) {
	c, err := m.completed(t, y)
	if err != nil {
		return false, err
	}
	if c.y != nil {
		return false, fmt.Errorf("graph: Sensitivities: node %s changed its state at the end of the step accepted at t=%s (a step event), and the jump of the sensitivities there is not implemented: %w", c.by, node.FormatValue(t), ErrNotDifferentiable)
	}
	return c.stop != nil, nil
}
