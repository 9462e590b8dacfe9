package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
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
	// undrawn are the nodes without node.Drawer: name and type.
	undrawn [][2]string
}

type drawnNode struct {
	name string
	typ  string
	// connector is true for a node between two points (node.Attached):
	// renderers show it where bodies hide it.
	connector bool
	drawer    node.Drawer
	spec      *node.Spec
	fields    []string // "name.field" per state field
	inputs    []drawInput
	in        node.Inputs
	x         []float64
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
	// The edges into each input, in the graph's order.
	into := map[string][]graph.Edge{}
	for _, e := range g.Edges() {
		into[e.To] = append(into[e.To], e)
	}
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
			st.undrawn = append(st.undrawn, [2]string{name, spec.Type})
			continue
		}
		_, conn := node.As[node.Attached](n)
		b := drawnNode{name: name, typ: spec.Type, connector: conn, drawer: d, spec: spec, fields: fields,
			in: spec.DefaultInputs(), x: make([]float64, spec.StateLayout.Size())}
		for i, in := range spec.Inputs {
			di := drawInput{off: spec.InputLayout.Offset(i), n: in.Shape.Len(), replacing: in.Combine == node.Replacing, edges: into[name+"."+in.Name]}
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
		if err := st.gather(b); err != nil {
			return nil, err
		}
		out[bi] = b.drawer.Draw(b.x, b.in, &st.set, nil)
	}
	return out, nil
}

// gather reads b's state and inputs from the sim into b.x and b.in.
func (st *stage) gather(b *drawnNode) error {
	b.x = b.x[:0]
	for _, f := range b.fields {
		v, err := st.sim.Value(f)
		if err != nil {
			return err
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
				return fmt.Errorf("%s: %w", e.To, err)
			}
			val := src
			if e.Transform != nil {
				e.Transform.Apply(tmp, src)
				val = tmp
			}
			if len(val) != di.n {
				return fmt.Errorf("%s: edge from %s gives %d values, the input has %d", e.To, e.From, len(val), di.n)
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
	return nil
}

// A component is one number of the state: component k of the state field
// Field ("node.field"), of N components.
type component struct {
	Field string
	K, N  int
}

// String is the component's history column: "node.field" for a scalar
// field, "node.field[k]" otherwise.
func (c component) String() string {
	if c.N == 1 {
		return c.Field
	}
	return fmt.Sprintf("%s[%d]", c.Field, c.K)
}

// needs returns, for every drawn node in st.bodies order, the state
// components its drawing depends on: every component of each state field
// one of whose components changes what it draws at the sim's current
// state. They are found by changing each
// candidate and drawing again — the node's own state, and the state
// fields its inputs come from (through each edge; through an output, the
// source node's state components that change that output) — so no node
// has to declare them and the answer cannot drift from what Draw reads.
// The sim's state is left as it was.
func (st *stage) needs() ([][]component, error) {
	out := make([][]component, len(st.bodies))
	for bi := range st.bodies {
		b := &st.bodies[bi]
		if err := st.gather(b); err != nil {
			return nil, err
		}
		base := b.drawer.Draw(b.x, b.in, &st.set, nil)
		changes := func(v []float64, i int) bool {
			old := v[i]
			v[i] = nudge(old)
			got := b.drawer.Draw(b.x, b.in, &st.set, nil)
			v[i] = old
			return !slices.Equal(got, base)
		}
		// A field is needed whole when any component is: whether a
		// component matters can depend on the state (at the identity
		// orientation, a marker on the body's x axis does not move when
		// the quaternion's x component changes; at another it does).
		seen := map[string]bool{}
		add := func(c component) {
			if !seen[c.Field] {
				seen[c.Field] = true
				for k := range c.N {
					out[bi] = append(out[bi], component{c.Field, k, c.N})
				}
			}
		}
		i := 0
		for _, f := range b.fields {
			n := len(mustValue(st.sim, f))
			for k := range n {
				if changes(b.x, i) {
					add(component{f, k, n})
				}
				i++
			}
		}
		for _, di := range b.inputs {
			for j := range di.n {
				if len(di.edges) == 0 || !changes(b.in.Values, di.off+j) {
					continue
				}
				for _, e := range di.edges {
					cs, err := st.sources(e, j, di.n)
					if err != nil {
						return nil, err
					}
					for _, c := range cs {
						add(c)
					}
				}
			}
		}
	}
	return out, nil
}

// sources returns the state components that component j (of n) of edge
// e's value depends on: the matching component of a state field copied
// as it is, every component of a state field through a transform, and
// for an output the components of its node's state that change it.
func (st *stage) sources(e graph.Edge, j, n int) ([]component, error) {
	field, comp := e.From, -1
	if i := strings.IndexByte(field, '['); i >= 0 {
		if k, err := strconv.Atoi(strings.TrimSuffix(field[i+1:], "]")); err == nil {
			field, comp = field[:i], k
		}
	}
	if slices.Contains(st.stateFields, field) {
		fn := len(mustValue(st.sim, field))
		switch {
		case comp >= 0:
			return []component{{field, comp, fn}}, nil
		case e.Transform == nil && fn == n:
			return []component{{field, j, fn}}, nil
		}
		var all []component
		for k := range fn {
			all = append(all, component{field, k, fn})
		}
		return all, nil
	}
	// An output: change each state component of its node and watch it.
	name, _, _ := strings.Cut(field, ".")
	base, err := st.sim.Value(e.From)
	if err != nil {
		return nil, err
	}
	var out []component
	for _, f := range st.stateFields {
		if !strings.HasPrefix(f, name+".") {
			continue
		}
		v := mustValue(st.sim, f)
		for k := range v {
			old := v[k]
			v[k] = nudge(old)
			if err := st.sim.SetValue(f, v...); err != nil {
				return nil, err
			}
			got, err := st.sim.Value(e.From)
			v[k] = old
			if rerr := st.sim.SetValue(f, v...); err == nil {
				err = rerr
			}
			if err != nil {
				// The output cannot be computed with this change (a spring's
				// markers made to coincide): it depends on the component.
				out = append(out, component{f, k, len(v)})
				continue
			}
			if !slices.Equal(got, base) {
				out = append(out, component{f, k, len(v)})
			}
		}
	}
	return out, nil
}

// nudge changes v by a part in a thousand of its size (at least 1e-3).
func nudge(v float64) float64 { return v + 1e-3*math.Max(1, math.Abs(v)) }

// mustValue reads a field the stage resolved when it was built.
func mustValue(sim *graph.Sim, f string) []float64 {
	v, err := sim.Value(f)
	if err != nil {
		panic(fmt.Sprintf("cosim: stage field %s: %v", f, err))
	}
	return v
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

// fitSizes shrinks the default sizes of bodies and springs
// (DrawSettings.BodySize and ConnectorSize, used by nodes whose draw_size
// is −1) for a crowded scene: to at most half the median distance between
// neighbouring bodies at the sim's current state, so that bodies of the
// default size do not swallow each other (a chain of 20 000 masses a
// micrometre apart would otherwise draw 20 000 overlapping spheres 0.1 m
// across). Sizes the user set (not the defaults) are kept.
func (st *stage) fitSizes() error {
	def := node.DefaultDrawSettings()
	if st.set.BodySize != def.BodySize || st.set.ConnectorSize != def.ConnectorSize {
		return nil
	}
	prims, err := st.draw()
	if err != nil {
		return err
	}
	var pts [][3]float64
	for bi, ps := range prims {
		if !st.bodies[bi].connector && len(ps) > 0 && (ps[0].Kind == node.Sphere || ps[0].Kind == node.Box) {
			pts = append(pts, ps[0].P)
		}
	}
	nn := medianNeighbourDistance(pts)
	if !(nn > 0) || 0.5*nn >= st.set.BodySize {
		return nil
	}
	k := 0.5 * nn / st.set.BodySize
	st.set.BodySize *= k
	st.set.ConnectorSize *= k
	return nil
}

// medianNeighbourDistance is the median over points of the distance to
// the nearest other point, found among the 8 neighbours on each side in
// the order along the axis of widest spread (exact for points on a line,
// an estimate otherwise, which is all a drawing size needs); 0 for fewer
// than two points.
func medianNeighbourDistance(pts [][3]float64) float64 {
	if len(pts) < 2 {
		return 0
	}
	axis, spread := 0, -1.0
	for k := range 3 {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, p := range pts {
			lo, hi = math.Min(lo, p[k]), math.Max(hi, p[k])
		}
		if hi-lo > spread {
			axis, spread = k, hi-lo
		}
	}
	sorted := slices.Clone(pts)
	slices.SortStableFunc(sorted, func(a, b [3]float64) int { return cmpFloat(a[axis], b[axis]) })
	d := make([]float64, len(sorted))
	for i, p := range sorted {
		best := math.Inf(1)
		for j := max(0, i-8); j <= min(len(sorted)-1, i+8); j++ {
			if j != i {
				q := sorted[j]
				best = math.Min(best, math.Sqrt((p[0]-q[0])*(p[0]-q[0])+(p[1]-q[1])*(p[1]-q[1])+(p[2]-q[2])*(p[2]-q[2])))
			}
		}
		d[i] = best
	}
	slices.Sort(d)
	return d[len(d)/2]
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
