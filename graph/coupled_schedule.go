package graph

import (
	"fmt"
	"strings"

	"github.com/cosimgo/cosim/coupling"
)

// This file describes a step under a coupling strategy for people: Schedule,
// its stages, and the stages each compiler adds as it builds a plan.

// Stage is one step of a Schedule: an operation on a list of nodes, or a
// loop (iterate, subcycle) over a Body of stages.
type Stage struct {
	Op    string   // "outputs", "update", "iterate" or "subcycle"
	Nodes []string // in evaluation order; nodes of one stage run concurrently
	At    string   // the time the stage evaluates at, e.g. "t_n", "t_n → t_n+dt"
	Note  string   // what the nodes read
	Body  []Stage  // the stages repeated by iterate and subcycle
}

// Schedule is what a step does under a coupling strategy, stage by stage,
// for printing.
type Schedule struct {
	Strategy string
	Stages   []Stage
}

// String renders the schedule, one numbered stage a line.
func (sc *Schedule) String() string {
	var b strings.Builder
	b.WriteString("step t_n → t_n+dt, " + sc.Strategy + "\n")
	var walk func(st []Stage, prefix, indent string)
	walk = func(st []Stage, prefix, indent string) {
		for i, s := range st {
			num := fmt.Sprintf("%s%d", prefix, i+1)
			fmt.Fprintf(&b, "%s%s. %s", indent, num, s.Op)
			if s.At != "" {
				fmt.Fprintf(&b, " at %s", s.At)
			}
			if len(s.Nodes) > 0 {
				fmt.Fprintf(&b, ": %s", strings.Join(s.Nodes, ", "))
			}
			if s.Note != "" {
				fmt.Fprintf(&b, " (%s)", s.Note)
			}
			b.WriteString("\n")
			walk(s.Body, num+".", indent+"   ")
		}
	}
	walk(sc.Stages, "", "  ")
	return b.String()
}

// Schedule describes what one step of a co-simulation does under the
// strategy st (CoSimulation.Coupling; Jacobi when nil), with node names:
// the same plan Run compiles, so it reports the order Run executes.
func (s *Sim) Schedule(st *coupling.Strategy) (*Schedule, error) {
	if st == nil {
		return &Schedule{Strategy: "jacobi (default)", Stages: s.jacobiStages()}, nil
	}
	p, err := s.compileCoupling(st)
	if err != nil {
		return nil, err
	}
	return &p.sched, nil
}

func (s *Sim) names(idx []int32) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = s.nodes[i].name
	}
	return out
}

func (s *Sim) jacobiStages() []Stage {
	var st []Stage
	for _, l := range s.levels {
		st = append(st, Stage{Op: "outputs", At: "t_n", Nodes: s.names(l)})
	}
	if len(s.stateful) > 0 {
		st = append(st, Stage{Op: "update", At: "t_n → t_n+dt", Nodes: s.names(s.stateful), Note: "inputs at t_n"})
	}
	return st
}

// groupStages is what one evaluation of a group's G does, for schedules.
func (s *Sim) groupStages(cg *cgroup, it coupling.Iteration) []Stage {
	var body []Stage
	for k, gc := range cg.classes {
		switch {
		case k == 0 && gc.rate == 1:
			body = append(body, Stage{Op: "update", At: "t_n → t_n+dt", Nodes: s.names(gc.nodes), Note: "from the t_n state; interface inputs held at the iterate u^k, other inputs at t_n"})
		case k == 0:
			seen := "held at the iterate u^k"
			if cg.linear {
				seen = "interpolated to t_n+(j+1)·h between u_n and the iterate u^k"
			}
			sub := []Stage{{Op: "update", At: "t_n+j·h → t_n+(j+1)·h", Nodes: s.names(gc.nodes)}}
			body = append(body, Stage{Op: "subcycle", Nodes: s.names(gc.nodes), Note: fmt.Sprintf("j = 0…%d, h = dt/%d, from the t_n state; interface inputs %s, other inputs at t_n", gc.rate-1, gc.rate, seen), Body: sub})
		default:
			seen := "at their trial end-of-step state"
			if cg.linear {
				seen = "interpolated to t_n+(j+1)·h between t_n and their trial end-of-step state"
			}
			var sub []Stage
			for _, l := range gc.reeval {
				sub = append(sub, Stage{Op: "outputs", At: "t_n+j·h", Nodes: s.names(l)})
			}
			sub = append(sub, Stage{Op: "update", At: "t_n+j·h → t_n+(j+1)·h", Nodes: s.names(gc.nodes)})
			body = append(body, Stage{Op: "subcycle", Nodes: s.names(gc.nodes), Note: fmt.Sprintf("j = 0…%d, h = dt/%d, from the t_n state; slower members %s, faster members and other nodes at t_n", gc.rate-1, gc.rate, seen), Body: sub})
		}
	}
	for _, l := range cg.outLevels {
		body = append(body, Stage{Op: "outputs", At: "t_n+dt", Nodes: s.names(l), Note: "from the trial state"})
	}
	var ifn []string
	for _, sp := range cg.spans {
		c := &s.nodes[sp.node]
		ifn = append(ifn, c.name+"."+c.spec.Inputs[inputIndex(c, sp.u0)].Name)
	}
	return append(body, Stage{Op: "gather", Nodes: ifn, Note: "G(u^k); stop when |G(u)−u| ≤ atol + rtol·|G(u)|, else u^{k+1} by " + it.Acceleration.Accel.String()})
}

// inputIndex is the input of c whose slot starts at the absolute offset off.
func inputIndex(c *cnode, off int) int {
	for ii := range c.spec.Inputs {
		if int(c.u0)+c.spec.InputLayout.Offset(ii) == off {
			return ii
		}
	}
	return -1
}
