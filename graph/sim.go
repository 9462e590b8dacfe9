package graph

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cosimgo/cosim/node"
)

// Sim is a compiled graph: nodes with every name resolved to offsets into
// flat state, output and input buffers, ready to step. A Sim is not safe
// for concurrent use; it runs its own workers inside Run.
//
// Its parts: the layout (the compiled graph, fixed at Build), the buffers
// (the values every path reads and writes), the batched engine (which
// owns the families and the workers), the clock, and what a Run or the
// steppers it keeps need between calls.
type Sim struct {
	layout
	buffers
	engine *engine // the batched engine (engine.go)

	index     map[string]int // node names, during Build only (then byName)
	byName    []int32        // node indices sorted by name, from the end of Build
	nameCache *nameCache     // during Build only

	t0    float64 // time of step 0 of the current base
	dt    float64 // step of the current base (0: none yet)
	n     int     // steps since t0
	steps int     // steps since Build

	// The current Run's context (nil outside one), checked inside long
	// steps, and its CoSimulation.OnGroupStep.
	ctx         context.Context
	done        <-chan struct{}
	onGroupStep func(GroupStep)

	plan     *coupledPlan // the compiled CoSimulation.Coupling during a Run; nil otherwise
	lastPlan *coupledPlan // the last coupled Run's plan, kept for its groups' cross-step memory (coupled_memory.go)

	// lastRun is the identity (runIdentity) of the last run started, or
	// of the checkpoint restored since; resumeRun that of a checkpoint
	// restored and not yet continued (runident.go).
	lastRun, resumeRun string

	mono *monoState // the monolithic stepper of the last monolithic Run, kept to resume
	// spare is a stepper set aside because the state moved on without
	// it (SetState, a co-simulation run): a run with the same method and
	// options re-initialises it rather than allocating another (a
	// million-mass chain's RK4 stages are 336 MB).
	spare *monoState

	// limSrc lists, per output level, the nodes whose outputs the step
	// limiters read (limiterSources); nil until first needed.
	limSrc  [][]int32
	lims    []limRef // the nodes stating a stable step (limiters); nil until first needed
	limFams []limFam // the families among them whose kernel bounds them in one call (limiters)

	replays int // batched steps or evaluations replayed per node

	stab *stabilityState // the stability analyses and growth watch (growth.go)
}

// layout is the compiled graph, fixed at Build: every node with its
// ranges in the buffers, the gathers that carry values along the edges,
// and the orders in which nodes run. The Sim and its engine read it;
// nothing writes it after Build.
type layout struct {
	nodes    []cnode
	gathers  []gather   // in node order, then edge order (cnode.g0, g1)
	trs      []gatherTr // the transforms of the gathers that have one (gather.tr32)
	levels   [][]int32  // nodes with outputs, by feedthrough depth
	stateful []int32    // nodes with state, in node order
	// loops are the algebraic loops solved at every output evaluation
	// (loop.go); nil: none.
	loops *loopState
}

// buffers are a Sim's flat values, shared by the per-node path and the
// engine. Every node owns fixed ranges of them (cnode).
type buffers struct {
	// state is the state being read: the state at t_n between steps, an
	// evaluation's y inside System.Func, a coupling strategy's view of
	// the state inside a coupled step. nextState is where a step writes
	// the state at t_{n+1}; the two are swapped after the step.
	state, nextState []float64
	outputs          []float64 // every node's outputs
	inputs           []float64 // every node's inputs, gathered before it runs
	present          []bool    // per input slot: node.Inputs.Present
	transformScratch []float64 // where an additive edge's transform writes before the sum
	// outputsFresh says that outputs hold the outputs of the current
	// state (after Value or a recorded row), so a step need not evaluate
	// them again on the per-node path.
	outputsFresh bool
}

// Time is the current simulation time, t0 + n·dt.
func (s *Sim) Time() float64 { return s.t0 + float64(s.n)*s.dt }

// StepCount is the number of steps taken since Build.
func (s *Sim) StepCount() int { return s.steps }

// Names returns the node names in the order they were added, as
// Graph.Names does for the graph the Sim was built from.
func (s *Sim) Names() []string { return s.nodeNames() }

// Node returns the named node.
func (s *Sim) Node(name string) (node.Node, bool) {
	i, ok := s.indexOf(name)
	if !ok {
		return nil, false
	}
	return s.nodes[i].n, true
}

// StateSize is the length of the flat state vector.
func (s *Sim) StateSize() int { return len(s.state) }

// State copies the flat state vector (all nodes, in node order) into dst
// and returns it; dst is grown when too short.
func (s *Sim) State(dst []float64) []float64 {
	if cap(dst) < len(s.state) {
		dst = make([]float64, len(s.state))
	}
	dst = dst[:len(s.state)]
	copy(dst, s.state)
	return dst
}

// SetState replaces the flat state vector and the time.
func (s *Sim) SetState(x []float64, t float64) error {
	if len(x) != len(s.state) {
		return fmt.Errorf("graph: state has %d values, the graph has %d", len(x), len(s.state))
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("graph: state value %s is not finite", s.componentName(i))
		}
	}
	if math.IsNaN(t) || math.IsInf(t, 0) {
		return fmt.Errorf("graph: SetState: time %v is not finite", t)
	}
	copy(s.state, x)
	s.t0, s.n, s.outputsFresh = t, 0, false
	return nil
}

// componentName names the j-th value of the flat state, "node.field[k]".
func (s *Sim) componentName(j int) string {
	if name, field := s.locate(j); name != "" {
		return name + "." + field
	}
	return "#" + strconv.Itoa(j)
}

// Value returns a copy of the current value of "node.field" (a state field
// or an output; outputs are evaluated at the current state if needed) or
// of one component, "node.field[i]".
func (s *Sim) Value(path string) ([]float64, error) {
	r, err := s.resolvePath(path)
	if err != nil {
		return nil, err
	}
	if r.fromY && !s.outputsFresh {
		if err := s.outputsPerNode(s.Time()); err != nil {
			return nil, err
		}
		s.outputsFresh = true
	}
	buf := s.state
	if r.fromY {
		buf = s.outputs
	}
	return append([]float64(nil), buf[r.off:r.off+r.n]...), nil
}

// SetValue sets the state field "node.field" (or one component) to v.
func (s *Sim) SetValue(path string, v ...float64) error {
	r, err := s.resolvePath(path)
	if err != nil {
		return err
	}
	if r.fromY {
		return fmt.Errorf("graph: %s is an output; only state fields can be set", path)
	}
	if len(v) != r.n {
		return fmt.Errorf("graph: %s has %d values, got %d", path, r.n, len(v))
	}
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("graph: %s: value %d (%v) is not finite", path, i, x)
		}
	}
	copy(s.state[r.off:r.off+r.n], v)
	s.outputsFresh = false
	return nil
}

type pathRef struct {
	name  string
	off   int
	n     int
	fromY bool
}

// resolvePath resolves "node.field" or "node.field[i]" for reading.
func (s *Sim) resolvePath(path string) (pathRef, error) {
	comp := -1
	p := path
	shown := node.Elide(path)
	if i := strings.IndexByte(p, '['); i > 0 && strings.HasSuffix(p, "]") {
		k, err := strconv.Atoi(p[i+1 : len(p)-1])
		if err != nil || k < 0 {
			return pathRef{}, fmt.Errorf("graph: %s: bad component index", node.Quote(path))
		}
		comp, p = k, p[:i]
	}
	var errs []error
	ref, ok := s.resolveSource(p, func(err error, f string, a ...any) {
		errs = append(errs, fmt.Errorf("graph: %s: %w: %s", shown, err, node.ElideTo(fmt.Sprintf(f, a...), 300)))
	})
	if !ok {
		return pathRef{}, errs[0]
	}
	r := pathRef{name: path, off: ref.off, n: ref.field.Shape.Len(), fromY: ref.fromY}
	if comp >= 0 {
		if comp >= r.n {
			return pathRef{}, fmt.Errorf("graph: %q: component %d of a %s field", path, comp, ref.field.Shape)
		}
		r.off += comp
		r.n = 1
	}
	return r, nil
}
