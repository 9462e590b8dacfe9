package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// A stage turns the state of a compiled scene into what cosim view and
// cosim render draw: for every node with the node.Drawer capability, its
// primitives at the simulation's current state. A connector's inputs (its
// bodies' marker fields) are gathered from the scene's edges as the graph
// gathers them: replacing inputs take their edge, additive ones sum their
// edges in order, unconnected ones keep their default or are absent, and
// edge transforms apply.
type stage struct {
	sim    *graph.Sim
	set    node.DrawSettings
	bodies []drawnNode
	// stateFields are every node's state fields, "node.field", in node
	// order: what a frame must record to be redrawn.
	stateFields []string
}

type drawnNode struct {
	name   string
	typ    string
	drawer node.Drawer
	spec   *node.Spec
	fields []string // "name.field" per state field
	inputs []drawInput
	in     node.Inputs
	x      []float64
}

type drawInput struct {
	off, n    int
	replacing bool
	edges     []graph.Edge
}

// newStage builds the stage of sc, whose compiled graph is sim.
func newStage(sc *scene.Scene, sim *graph.Sim, set node.DrawSettings) (*stage, error) {
	if err := set.Check(); err != nil {
		return nil, err
	}
	g, err := sc.Build(nodes.Registry(), nil)
	if err != nil {
		return nil, err
	}
	edges := g.Edges()
	st := &stage{sim: sim, set: set}
	for _, name := range sim.Names() {
		n, _ := sim.Node(name)
		spec := n.Spec()
		var fields []string
		for _, f := range spec.State {
			fields = append(fields, name+"."+f.Name)
		}
		st.stateFields = append(st.stateFields, fields...)
		d, ok := node.As[node.Drawer](n)
		if !ok {
			continue
		}
		b := drawnNode{name: name, typ: spec.Type, drawer: d, spec: spec, fields: fields,
			in: spec.DefaultInputs(), x: make([]float64, spec.StateLayout.Size())}
		for i, in := range spec.Inputs {
			di := drawInput{off: spec.InputLayout.Offset(i), n: in.Shape.Len(), replacing: in.Combine == node.Replacing}
			for _, e := range edges {
				if e.To == name+"."+in.Name {
					di.edges = append(di.edges, e)
				}
			}
			b.inputs = append(b.inputs, di)
		}
		st.bodies = append(st.bodies, b)
	}
	return st, nil
}

// draw returns the primitives of every drawn node at the sim's current
// state, one slice per node in st.bodies order.
func (st *stage) draw() ([][]node.Primitive, error) {
	out := make([][]node.Primitive, len(st.bodies))
	for bi := range st.bodies {
		b := &st.bodies[bi]
		b.x = b.x[:0]
		for _, f := range b.fields {
			v, err := st.sim.Value(f)
			if err != nil {
				return nil, err
			}
			b.x = append(b.x, v...)
		}
		for i, di := range b.inputs {
			if len(di.edges) == 0 {
				continue // the default, or absent
			}
			dst := b.in.Values[di.off : di.off+di.n]
			clear(dst)
			b.in.Present[i] = true
			tmp := make([]float64, di.n)
			for _, e := range di.edges {
				src, err := st.sim.Value(e.From)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", e.To, err)
				}
				val := src
				if e.Transform != nil {
					e.Transform.Apply(tmp, src)
					val = tmp
				}
				if len(val) != di.n {
					return nil, fmt.Errorf("%s: edge from %s gives %d values, the input has %d", e.To, e.From, len(val), di.n)
				}
				for k := range dst {
					if di.replacing {
						dst[k] = val[k]
					} else {
						dst[k] += val[k]
					}
				}
			}
		}
		out[bi] = b.drawer.Draw(b.x, b.in, &st.set, nil)
	}
	return out, nil
}

// setFromRow installs a recorded row into the sim: every state field,
// or every component of one, that idx ("node.field" or "node.field[k]" →
// index into row) has. Components missing from the history keep their
// current values (the initial state, as nothing else sets them).
func (st *stage) setFromRow(t float64, row []float64, idx map[string]int) error {
	for _, f := range st.stateFields {
		v, err := st.sim.Value(f)
		if err != nil {
			return err
		}
		any := false
		for k := range v {
			if j, ok := componentColumn(f, k, len(v), idx); ok {
				v[k], any = row[j], true
			}
		}
		if !any {
			continue
		}
		if err := st.sim.SetValue(f, v...); err != nil {
			return fmt.Errorf("t = %s: %w", fmtTime(t), err)
		}
	}
	return nil
}

// missing lists the state fields (or components) a history with columns
// idx lacks.
func (st *stage) missing(idx map[string]int) []string {
	var out []string
	for _, f := range st.stateFields {
		v, err := st.sim.Value(f)
		if err != nil {
			continue
		}
		var comps []string
		for k := range v {
			if _, ok := componentColumn(f, k, len(v), idx); !ok {
				comps = append(comps, fmt.Sprintf("%s[%d]", f, k))
			}
		}
		switch {
		case len(comps) == len(v):
			out = append(out, f)
		default:
			out = append(out, comps...)
		}
	}
	return out
}

// componentColumn finds component k of field f (n components) among the
// columns.
func componentColumn(f string, k, n int, idx map[string]int) (int, bool) {
	if n == 1 {
		if j, ok := idx[f]; ok {
			return j, true
		}
	}
	j, ok := idx[fmt.Sprintf("%s[%d]", f, k)]
	return j, ok
}

func columnIndex(cols []string) map[string]int {
	idx := make(map[string]int, len(cols))
	for j, c := range cols {
		idx[c] = j
	}
	return idx
}

// viewRecord returns the scene's recorded fields with every state field
// added (once), so that each recorded row can be redrawn.
func viewRecord(sc *scene.Scene, stateFields []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range append(append([]string(nil), sc.Record.Fields...), stateFields...) {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

// frameEvery returns the record stride that gives at most maxFrames
// frames (plus the initial one) for a scene of the given steps.
func frameEvery(steps, maxFrames int) int {
	if maxFrames <= 0 || steps <= maxFrames {
		return 1
	}
	return (steps + maxFrames - 1) / maxFrames
}

// sceneSteps is the number of steps of the scene's run.
func sceneSteps(sc *scene.Scene) int {
	if sc.Run.Steps > 0 {
		return sc.Run.Steps
	}
	return int(math.Round(sc.Run.End / sc.Run.Dt))
}

// advance runs sim forward by k steps of the scene's mode (or, adaptive,
// to time tEnd), continuing the run the previous call left: co-simulation
// keeps its coupling memory and monolithic runs their stepper. It runs
// the scene's own settings (scene.Scene.Settings) with one graph.Sim.Run,
// so fixed-step runs are bit-identical to one scene.Simulate; an adaptive
// run is cut at every frame time, so its steps differ from one
// uninterrupted run within its tolerances.
func advance(ctx context.Context, sc *scene.Scene, sim *graph.Sim, k int, tEnd float64) error {
	set := sc.Settings()
	set.Record, set.RecordEvery, set.End, set.Steps = nil, 0, 0, k
	if m, ok := set.Mode.(graph.MonolithicAdaptive); ok {
		set.End, set.Steps = tEnd, 0
		if m.Options != nil {
			m.Options.Output = nil
		}
	}
	_, err := sim.Run(ctx, set)
	return err
}

// errNoDrawable is returned when a scene has nothing to draw.
var errNoDrawable = errors.New("no node of the scene draws itself (node.Drawer)")

func bodyList(st *stage) string {
	var names []string
	for _, b := range st.bodies {
		names = append(names, b.name)
	}
	return strings.Join(names, ", ")
}
