package graph_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// hooked is a mass whose Update calls hook first and, with jitter, adds
// hook's count·1e-9 to its velocity, so that no group iteration can
// converge to a tight tolerance.
type hooked struct {
	*mass
	hook   func() int
	jitter bool
}

func (h hooked) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	n := h.hook()
	err := h.mass.Update(t, dt, x, in, dst)
	if h.jitter {
		dst[1] += 1e-9 * float64(n)
	}
	return err
}

// A step whose own work is unbounded in practice (a multirate node at
// MaxRate substeps, a group iterating towards an unreachable tolerance at
// MaxIterLimit iterations) stops within one substep or iteration of the
// cancellation, not at the end of the step. The mass b counts
// its updates and cancels the context at its 10th; before, the context
// was checked only between steps and b made 10⁶ (or 10⁴) updates. In the
// iterated cases b jitters, so the group cannot converge (with the
// tolerances of 1e-300 it would, to the last bit, in 9 iterations).
func TestCancelInsideStep(t *testing.T) {
	cases := map[string]*coupling.Strategy{
		"multirate": {Rates: map[string]int{"b": coupling.MaxRate}},
		"multirate in a group": {Scheme: coupling.Iterative, Rates: map[string]int{"b": coupling.MaxRate},
			Iteration: coupling.Iteration{ATol: 1e-300, RTol: 1e-300}},
		"iterations": {Scheme: coupling.Iterative,
			Iteration: coupling.Iteration{MaxIter: coupling.MaxIterLimit, ATol: 1e-300, RTol: 1e-300, OnFail: coupling.Accept}},
	}
	for name, st := range cases {
		ctx, cancel := context.WithCancel(context.Background())
		n := 0
		p := moderate
		g := graph.New()
		g.Add("gx", newSource("m", 0))
		g.Add("gv", newSource("m/s", 0))
		g.Add("a", newMass(p.ma, p.xa0))
		g.Add("b", hooked{newMass(p.mb, p.xb0), func() int {
			n++
			if n == 10 {
				cancel()
			}
			return n
		}, st.Scheme == coupling.Iterative})
		g.Add("sg", newSD1(p.kg, p.cg))
		g.Add("s", newSD1(p.k, p.c))
		for _, e := range [][2]string{{"gx.value", "sg.xa"}, {"gv.value", "sg.va"}, {"a.x", "sg.xb"}, {"a.v", "sg.vb"},
			{"a.x", "s.xa"}, {"a.v", "s.va"}, {"b.x", "s.xb"}, {"b.v", "s.vb"}, {"sg.fb", "a.force"}, {"s.fa", "a.force"}, {"s.fb", "b.force"}} {
			g.Connect(e[0], e[1])
		}
		s, err := g.Build()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		res, err := s.Run(ctx, graph.Settings{Mode: graph.CoSimulation{Coupling: st}, Dt: 0.01, Steps: 3})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: Run: %v, want context.Canceled", name, err)
		}
		if n > 11 {
			t.Errorf("%s: b updated %d times, want the run to stop within one substep or iteration of the 10th", name, n)
		}
		if res.Steps != 0 || s.Time() != 0 {
			t.Errorf("%s: %d steps, time %v: the cancelled step must leave the state at its start", name, res.Steps, s.Time())
		}
		cancel()
	}
}
