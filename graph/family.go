package graph

import (
	"strconv"

	"github.com/cosimgo/cosim/node"
)

// Families: Build groups nodes that a batch kernel can step together
// (node.Batcher) and compiles their wiring into strided views. See the
// "Execution model" section of doc.go.

// bufKind names the flat buffer a view reads at call time. Views hold no
// slices of the state because the Sim swaps its state buffers (state with
// nextState after a step, state with the integrator's y in System.Func).
type bufKind uint8

const (
	bufState   bufKind = iota // Sim.state: the state being read
	bufOutputs                // Sim.outputs: every node's outputs
	bufPacked                 // engine.packed: compact output columns (compact.go)
	bufConst                  // a constant (an input's default), broadcast
)

// view is a compiled node.Strided: component k of row i is
// buf[off+i*stride+k].
type view struct {
	buf         bufKind
	off, stride int
	c           []float64 // bufConst: the value
}

// famInput is one input of a family's rows: no term (default or absent,
// a constant view), one term (the kernel reads the source directly) or
// several (an additive input: the engine sums the terms, in connection
// order, into worker scratch, block by block).
type famInput struct {
	terms []view
	n     int // components
	sum   int // offset of this input's block in a worker's sum scratch; -1 when not summed
	// readsOutput: a term reads an output, so the input is checked for
	// finiteness where the family reads it.
	readsOutput bool
	// pair: two terms the kernel adds itself (node.BatchPairAdder),
	// passed unsummed in BatchArgs.In and In2 and not checked here.
	pair bool
}

// family is the compiled form of nodes stepped by one batch kernel.
type family struct {
	typ   string // the node type, for the schedule and messages
	batch node.Batch
	upd   node.BatchUpdater   // nil: no state
	out   node.BatchOutputter // nil: no outputs
	der   node.BatchDeriver   // nil: no Derivatives

	rows []int32 // node indices, in row (= node) order

	x0, xs, xn int // state: first offset, stride, per-row size
	y0, ys, yn int // outputs: likewise
	in         []famInput
	outs       []view // per output field, where the kernel writes it
	// outsFull and inFull are outs and in before compactOutputs moved
	// fields to engine.packed (nil when it moved none): the views of
	// Sim.outputs that coupled Runs use (engine.views).
	outsFull []view
	inFull   []famInput
	// outArgs and outArgsFull are outs and outsFull as kernel arguments
	// (compileArgs).
	outArgs, outArgsFull []node.Strided
	present              []bool
	level                int // output level; -1 without outputs

	// need is, per output field, whether an edge reads it; needed lists
	// the per-row output components checked after an evaluation (those
	// that nodes on the per-node path read; see compileNeeds), as
	// [lo, hi) runs within a row.
	need      []bool
	looseRead []bool // per output field: a node on the per-node path reads it
	needed    [][2]int
	// sumSize is the scratch a block of sumBlock rows needs for the
	// summed inputs.
	sumSize int
	// pairs: some input is a pair (famInput.pair), so kernel calls carry
	// BatchArgs.In2.
	pairs bool
	// checksDst: the kernel fails a call whose Dst values are not all
	// finite (node.BatchDstChecker), so the engine does not check them.
	checksDst bool
}

// sumBlock is the number of rows whose summed inputs the engine
// materializes at once, so that the sums stay in L1 between the engine
// writing them and the kernel reading them.
const sumBlock = 128

// famBuilder collects the members of a family while Build scans nodes.
type famBuilder struct {
	f      *family
	first  []int // offsets of the first row: x0, y0, then every term's off
	stride []int // per offset, set by the second row
	seed   node.Batcher
	nodes  []node.Node
}

// compileFamilies groups batchable nodes into families (engine.families,
// inFamily, famOf, rowOf) and compiles their views. It runs first in
// newEngine.
func (e *engine) compileFamilies() {
	s := e.layout
	e.families = e.families[:0]
	e.inFamily = make([]bool, len(s.nodes))
	level := make([]int, len(s.nodes))
	for i := range level {
		level[i] = -1
	}
	for l, ns := range s.levels {
		for _, i := range ns {
			level[i] = l
		}
	}
	open := map[string]*famBuilder{}
	var order []*famBuilder // builders in the order they closed or remain
	var offs []int
	// Per node, the key and the terms are built in scratch reused from
	// node to node (newFamBuilder copies what a family keeps), so that
	// grouping allocates per family, not per node.
	var key []byte
	var terms [][]view
	for i := range s.nodes {
		c := &s.nodes[i]
		b, ok := node.As[node.Batcher](c.n)
		if !ok || b != c.n || c.loop != nil { // decorated nodes and loop members keep the per-node path
			continue
		}
		if terms, ok = e.nodeTerms(c, terms); !ok {
			continue
		}
		key = append(key[:0], c.spec.Type...)
		key = append(key, 0)
		key = append(key, b.BatchKey()...)
		key = append(key, 0)
		key = strconv.AppendInt(key, int64(level[i]), 10)
		for ii := range c.spec.Inputs {
			key = append(key, '|')
			if e.buf.present[int(c.p0)+ii] {
				key = append(key, 'p')
			}
			for _, t := range terms[ii] {
				key = append(key, "xycz"[t.buf])
			}
		}
		offs = offs[:0]
		offs = append(offs, int(c.x0), int(c.y0))
		for _, ts := range terms {
			for _, t := range ts {
				if t.buf != bufConst {
					offs = append(offs, t.off)
				}
			}
		}
		fb := open[string(key)]
		if fb != nil && !fb.accepts(offs) {
			order = append(order, fb)
			fb = nil
		}
		if fb == nil {
			fb = e.newFamBuilder(c, b, terms, level[i], offs)
			open[string(key)] = fb
		} else {
			fb.add(offs)
		}
		fb.f.rows = append(fb.f.rows, int32(i))
		fb.nodes = append(fb.nodes, c.n)
	}
	// Families in the order of their first row, so that phases run them
	// in node order.
	for _, fb := range open {
		order = append(order, fb)
	}
	for _, fb := range order {
		f := fb.f
		if !f.setKernels(fb.seed.NewBatch(fb.nodes)) {
			continue
		}
		if len(fb.stride) > 0 {
			f.xs, f.ys = fb.stride[0], fb.stride[1]
			k := 2
			for ii := range f.in {
				for ti := range f.in[ii].terms {
					if t := &f.in[ii].terms[ti]; t.buf != bufConst {
						t.stride = fb.stride[k]
						k++
					}
				}
			}
		}
		if f.yn > 0 {
			l := s.nodes[f.rows[0]].spec.OutputLayout
			for fi := 0; fi < l.Len(); fi++ {
				f.outs = append(f.outs, view{buf: bufOutputs, off: f.y0 + l.Offset(fi), stride: f.ys})
			}
		}
		for _, r := range f.rows {
			e.inFamily[r] = true
		}
		e.families = append(e.families, f)
	}
	sortFamilies(e.families)
	e.famOf, e.rowOf = make([]int32, len(s.nodes)), make([]int32, len(s.nodes))
	for i := range e.famOf {
		e.famOf[i] = -1
	}
	for k, f := range e.families {
		for r, i := range f.rows {
			e.famOf[i], e.rowOf[i] = int32(k), int32(r)
		}
	}
	e.compileNeeds()
}

// setKernels gives f the batch kernels of its nodes and reads their
// capabilities: an update (node.BatchUpdater), outputs
// (node.BatchOutputter), derivatives (node.BatchDeriver) and inputs the
// kernel adds in pairs (node.BatchPairAdder). It reports false when the
// batch cannot serve the family (its type declares state or outputs the
// batch cannot compute): the nodes then stay on the per-node path.
func (f *family) setKernels(b node.Batch) bool {
	f.batch = b
	f.upd, _ = b.(node.BatchUpdater)
	f.out, _ = b.(node.BatchOutputter)
	f.der, _ = b.(node.BatchDeriver)
	if f.yn > 0 && f.out == nil || f.xn > 0 && f.upd == nil {
		return false
	}
	if dc, ok := b.(node.BatchDstChecker); ok {
		f.checksDst = dc.ChecksDst()
	}
	if pa, ok := b.(node.BatchPairAdder); ok {
		takes := pa.PairInputs()
		for ii := range f.in {
			if ii < len(takes) && takes[ii] && len(f.in[ii].terms) == 2 {
				f.in[ii].pair, f.pairs = true, true
			}
		}
	}
	return true
}

// nodeTerms returns, per input of c, the sources of its edges as views
// with stride 0, or false when an edge carries a transform (such nodes
// keep the per-node path). It reuses terms' memory; an unconnected
// input's constant view has c nil when its value is zeros (newFamBuilder
// allocates them).
func (e *engine) nodeTerms(c *cnode, terms [][]view) ([][]view, bool) {
	s := e.layout
	if cap(terms) < len(c.spec.Inputs) {
		terms = append(terms[:cap(terms)], make([][]view, len(c.spec.Inputs)-cap(terms))...)
	}
	terms = terms[:len(c.spec.Inputs)]
	for ii := range terms {
		terms[ii] = terms[ii][:0]
	}
	for gi := c.g0; gi < c.g1; gi++ {
		g := &s.gathers[gi]
		if g.hasTr() || g.n() != g.sn() {
			return terms, false
		}
		ii := inputIndex(c, g.dst())
		v := view{buf: bufState, off: g.src()}
		if g.fromY {
			v.buf = bufOutputs
		}
		terms[ii] = append(terms[ii], v)
	}
	for ii, in := range c.spec.Inputs {
		if len(terms[ii]) == 0 {
			val := in.Default
			if !e.buf.present[int(c.p0)+ii] {
				val = nil
			}
			terms[ii] = append(terms[ii], view{buf: bufConst, c: val})
		}
	}
	return terms, true
}

func (e *engine) newFamBuilder(c *cnode, b node.Batcher, terms [][]view, level int, offs []int) *famBuilder {
	f := &family{
		typ: c.spec.Type, x0: int(c.x0), xn: int(c.x1) - int(c.x0), y0: int(c.y0), yn: int(c.y1) - int(c.y0),
		level: level, present: make([]bool, len(c.spec.Inputs)),
	}
	copy(f.present, e.buf.present[c.p0:c.p1])
	if f.yn == 0 {
		f.level = -1
	}
	for ii, in := range c.spec.Inputs {
		fi := famInput{terms: append([]view(nil), terms[ii]...), n: in.Shape.Len(), sum: -1}
		for ti := range fi.terms {
			if t := &fi.terms[ti]; t.buf == bufConst && t.c == nil {
				t.c = make([]float64, fi.n)
			}
		}
		if len(fi.terms) > 1 {
			fi.sum = f.sumSize
			f.sumSize += sumBlock * fi.n
		}
		f.in = append(f.in, fi)
	}
	return &famBuilder{f: f, first: append([]int(nil), offs...), seed: b}
}

// accepts reports whether a node with offsets offs continues the family:
// every offset affine in the row index.
func (fb *famBuilder) accepts(offs []int) bool {
	if len(offs) != len(fb.first) {
		return false
	}
	k := len(fb.f.rows)
	if k == 1 {
		// The second row sets the strides; rows must not overlap.
		if fb.f.xn > 0 && offs[0]-fb.first[0] < fb.f.xn {
			return false
		}
		if fb.f.yn > 0 && offs[1]-fb.first[1] < fb.f.yn {
			return false
		}
		// Kernels walk rows forwards (node.Strided: Stride ≥ 0).
		for j, o := range offs {
			if o < fb.first[j] {
				return false
			}
		}
		return true
	}
	for j, o := range offs {
		if o != fb.first[j]+k*fb.stride[j] {
			return false
		}
	}
	return true
}

func (fb *famBuilder) add(offs []int) {
	if len(fb.f.rows) == 1 {
		fb.stride = make([]int, len(offs))
		for j, o := range offs {
			fb.stride[j] = o - fb.first[j]
		}
	}
}

func sortFamilies(fs []*family) {
	// Insertion by first row keeps this allocation-free and stable; the
	// number of families is small.
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && fs[j].rows[0] < fs[j-1].rows[0]; j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
}

// compileNeeds marks, per family, the output fields an edge reads, and
// lists their components for the check after each evaluation.
//
// Values read by families are checked where they are read (block checks
// every input a family takes from outputs), so the check after an output
// evaluation covers only the components that nodes on the per-node path
// read: their plain-copy gathers trust an output to be checked at its
// source.
func (e *engine) compileNeeds() {
	s := e.layout
	read := make([]bool, len(e.buf.outputs))   // read by any edge: computed
	unsafe := make([]bool, len(e.buf.outputs)) // read by a loose node: checked at the source
	// The rows of a stateful family whose kernel has no Derivatives,
	// when the nodes have them (a System can be made), gather their
	// inputs node by node in a derivatives evaluation (System.looseDerivs,
	// derivNodes): they read Sim.outputs as loose nodes do.
	gathers := make([]bool, len(s.nodes))
	for ni := range gathers {
		gathers[ni] = !e.inFamily[ni]
	}
	for _, f := range e.families {
		if _, ok := node.As[node.Deriver](s.nodes[f.rows[0]].n); ok && f.xn > 0 && f.der == nil {
			for _, r := range f.rows {
				gathers[r] = true
			}
		}
	}
	for ni := range s.nodes {
		c := &s.nodes[ni]
		for gi := c.g0; gi < c.g1; gi++ {
			if g := &s.gathers[gi]; g.fromY {
				for k := g.src(); k < g.src()+g.sn(); k++ {
					read[k] = true
					unsafe[k] = unsafe[k] || gathers[ni]
				}
			}
		}
	}
	for _, f := range e.families {
		for ii := range f.in {
			for _, t := range f.in[ii].terms {
				f.in[ii].readsOutput = f.in[ii].readsOutput || t.buf == bufOutputs
			}
		}
	}
	for _, f := range e.families {
		if f.yn == 0 {
			continue
		}
		c := &s.nodes[f.rows[0]]
		l := c.spec.OutputLayout
		f.need = make([]bool, l.Len())
		f.looseRead = make([]bool, l.Len())
		f.needed = f.needed[:0]
		for fi := range f.need {
			o, n := l.Offset(fi), l.Field(fi).Shape.Len()
			check := false
			for _, r := range f.rows {
				rc := &s.nodes[r]
				for k := 0; k < n; k++ {
					f.need[fi] = f.need[fi] || read[int(rc.y0)+o+k]
					check = check || unsafe[int(rc.y0)+o+k]
				}
			}
			f.looseRead[fi] = check
			if !check {
				continue
			}
			if m := len(f.needed); m > 0 && f.needed[m-1][1] == o {
				f.needed[m-1][1] = o + n
			} else {
				f.needed = append(f.needed, [2]int{o, o + n})
			}
		}
	}
}

// compileLoose lists the nodes the batched engine leaves to the per-node
// path, per output level and among the stateful nodes.
func (e *engine) compileLoose() {
	s := e.layout
	e.looseLevels = make([][]int32, len(s.levels))
	for l, ns := range s.levels {
		for _, i := range ns {
			if !e.inFamily[i] {
				e.looseLevels[l] = append(e.looseLevels[l], i)
			}
		}
	}
	e.looseStateful = e.looseStateful[:0]
	for _, i := range s.stateful {
		if !e.inFamily[i] {
			e.looseStateful = append(e.looseStateful, i)
		}
	}
}

// compileArgs builds each family's output views as kernel arguments
// (family.outArgs, outArgsFull), once: they point into Sim.outputs and
// engine.packed, which live as long as the Sim.
func (e *engine) compileArgs() {
	for _, f := range e.families {
		f.outArgs = e.strided(f.outs)
		if f.outsFull != nil {
			f.outArgsFull = e.strided(f.outsFull)
		}
	}
}

func (e *engine) strided(vs []view) []node.Strided {
	out := make([]node.Strided, len(vs))
	for i := range vs {
		v := &vs[i]
		out[i] = node.Strided{Buf: e.buffer(v), Off: v.off, Stride: v.stride}
	}
	return out
}

// staggered returns two buffers of n values from one allocation, the
// second starting half a page plus a cache line after a page boundary
// relative to the first: two equal-length buffers allocated apart start
// at the same offset within a page, and a kernel that reads row i of one
// while writing row i of the other then suffers 4K aliasing (loads
// wrongly predicted to depend on earlier stores), which cost ~3× in the
// batched-engine prototype.
func staggered(n int) (a, b []float64) {
	const page = 4096 / 8
	gap := (page - n%page + page/2 + 8) % page
	buf := make([]float64, 2*n+gap)
	return buf[:n:n], buf[n+gap : 2*n+gap : 2*n+gap]
}

// Family describes one family of the batched engine (see doc.go).
type Family struct {
	Type  string   // the node type
	Nodes []string // its members, in row order
}

// Families lists the families Build formed, in the order of their first
// member. Nodes in none of them run on the per-node path.
func (s *Sim) Families() []Family {
	out := make([]Family, len(s.engine.families))
	for k, f := range s.engine.families {
		out[k].Type = f.typ
		for _, r := range f.rows {
			out[k].Nodes = append(out[k].Nodes, s.nodes[r].name)
		}
	}
	return out
}

// SetBatching turns the batched engine on (the default) or off. Off,
// every node runs on the per-node path through its own Update, Outputs
// and Derivatives; the results are bit-identical either way, which the
// tests check, and the per-node path is the reference when a batched
// step fails. It must not be called during a Run.
func (s *Sim) SetBatching(on bool) { s.engine.off = !on }
