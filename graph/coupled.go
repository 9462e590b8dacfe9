package graph

import (
	"errors"
	"fmt"

	"github.com/cosimgo/cosim/coupling"
)

// Coupled runs (CoSimulation.Coupling not nil) compile a coupling.Strategy
// into an execution plan, names resolved to node indices and every buffer
// sized, and execute it; the default path never reaches them. Read top
// down:
//
//   - coupled.go: the errors, statistics and plan types;
//   - coupled_compile.go: the three compilers (Gauss–Seidel, multirate
//     Jacobi, iterated groups), built on
//   - coupled_analysis.go: the data-flow facts they need;
//   - coupled_schedule.go: the Schedule the compilers describe, for
//     printing;
//   - coupled_step.go: the executors, one macro step at a time;
//   - coupled_iterate.go: the fixed-point iteration of one group;
//   - coupled_memory.go: the cross-step memory a checkpoint keeps.

// Errors of coupled runs, for errors.Is.
var (
	// ErrOverlap: a node is in two iterated groups.
	ErrOverlap = errors.New("coupling groups overlap")
	// ErrCouplingName: a strategy names a node the graph does not have,
	// or one that cannot take the role (a stateless node in an update
	// order or with a rate).
	ErrCouplingName = errors.New("bad node in coupling strategy")
)

// ConvergenceError reports a group iteration that did not converge
// within its limit under the coupling.Stop policy. The state is the one
// at the start of the failing step. errors.Is(err, coupling.ErrNotConverged)
// holds.
type ConvergenceError struct {
	Group      string
	Step       int     // the failing step
	Time       float64 // its start time
	Iterations int
	Residual   float64 // max |G(u)_i − u_i| of the last iterate
}

func (e *ConvergenceError) Error() string {
	return fmt.Sprintf("graph: coupling group %q: step %d at t=%v: not converged after %d iterations (residual %v)", e.Group, e.Step, e.Time, e.Iterations, e.Residual)
}

func (e *ConvergenceError) Unwrap() error { return coupling.ErrNotConverged }

// CouplingStats describes a Run with CoSimulation.Coupling.
type CouplingStats struct {
	// Strategy is the strategy's name (coupling.Strategy.Name).
	Strategy string
	// Updates counts the calls of Update per node during the Run, by node
	// name (stateless nodes are absent). A subcycling node counts each
	// substep; a group member each iteration.
	Updates map[string]int64
	// Groups has the statistics of every iterated group, in strategy
	// order.
	Groups []GroupStats
}

// GroupStats describes the iteration of one group over a Run. An
// iteration is one evaluation of G (one update of every member).
type GroupStats struct {
	Name           string
	Steps          int     // steps iterated
	Iterations     int64   // total over the Run
	MaxIterations  int     // most in one step
	LastIterations int     // in the last step
	LastResidual   float64 // max |G(u)_i − u_i| of the last accepted iterate
	NonConverged   int     // steps accepted without convergence (coupling.Accept)
	Fallbacks      int     // IQN-ILS iterations that fell back to relaxation
	Interface      int     // number of interface values iterated
}

const (
	planMultirate = iota // Jacobi is multirate with one class of rate 1
	planGaussSeidel
	planIterative
)

type coupledPlan struct {
	kind    int
	name    string
	key     string    // the strategy's text (coupling.Strategy.String), its identity
	xv      []float64 // the state view nodes read within a step
	updates []int64   // Update calls per node
	sched   Schedule

	// Gauss–Seidel
	stages []gsStage

	// multirate / Jacobi; with iterative, the classes of the nodes outside
	// groups
	classes []rateClass
	linear  bool

	// iterative
	groups []*cgroup

	// Cross-step memory kept between Runs (coupled_memory.go).
	failed   bool // a step failed during the Run: the memory is not kept
	restored bool // restored from a checkpoint and not yet continued
	stamp    clockStamp
}

type gsStage struct {
	reeval []outBatch // output nodes to re-evaluate first, in order
	nodes  []int32
	units  *unitList // nodes, compiled for the batched engine
}

// outBatch is a set of independent output nodes evaluated together, at
// t_n or (end) at t_n+dt.
type outBatch struct {
	nodes []int32
	end   bool
	units *unitList
}

type rateClass struct {
	rate        int
	nodes       []int32
	units       *unitList
	reeval      [][]int32 // upstream output nodes, re-evaluated every substep
	reevalUnits []*unitList
	slower      []int32 // stateful nodes of slower classes (interpolated)
}

// ispan is one interface input of a group: a range of Sim.inputs and the
// gathers that fill it.
type ispan struct {
	node   int32
	u0, u1 int
	g0, g1 int
}

type cgroup struct {
	name      string
	members   []int32
	stateful  []int32
	classes   []gclass // stateful members by rate, ascending; classes[0] reads the interface
	linear    bool
	outLevels [][]int32
	saveNodes []int32 // output nodes the iteration overwrites: restored after it
	ysave     []float64
	spans     []ispan
	it        coupling.Iteration
	acc       coupling.Accelerator
	u, g      []float64 // iterate and its image
	next      []float64
	ui        []float64 // the interface interpolated for a substep of classes[0]
	now, prev []float64 // interface at t_n and t_{n−1}
	havePrev  bool
	stats     GroupStats
	fallback0 int // the accelerator's fallbacks when the Run started
}

// gclass is the members of one rate in a group. The first class reads
// the interface iterate; the others re-read their upstream outputs from
// the view of every substep.
type gclass struct {
	rate   int
	nodes  []int32
	slower []int32   // members of slower classes (seen at the iterate's end-of-step state)
	reeval [][]int32 // output nodes upstream of the class (not for classes[0])
}
