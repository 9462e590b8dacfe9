package graph

import (
	"fmt"
	"math"
	"slices"

	"github.com/cosimgo/cosim/node"
)

// The monolithic system's Jacobian ∂f/∂y is assembled by the chain rule
// through the graph, sparsely:
//
//	∂f_i/∂y = A_i·E_i + B_i·∂u_i/∂y,
//	∂u/∂y through edges: state sources are selections, output sources
//	∂y_k/∂y = C_k·E_k + D_k·∂u_k/∂y,
//
// with A_i = ∂f_i/∂x_i and B_i = ∂f_i/∂u_i from the node's
// DerivativesJacobian (node.InputJacobian) and D_k = ∂y_k/∂u_k from a
// connector's analytic OutputsJacobian (node.OutputJacobian) where the
// nodes provide them, and node-local central finite differences of that
// one node where they do not; C_k (outputs with respect to the node's own
// state) is always differenced locally. Transforms are differentiated
// exactly (Scale, Component, Embed) or by central differences (TransformFunc).
//
// Sparsity. The pattern is fixed when the Jacobian is first asked for,
// from the graph alone: a node's local blocks A, B, C, D are taken as
// dense (the node contract declares no finer structure, and an entry that
// is zero at one state — a contact force out of contact — may not be at
// another), and the edges carry that structure: row x_i of f depends on
// node i's own state and on every state component its inputs reach. The
// pattern is therefore exact at graph granularity and conservative
// inside a node — except for the rows of Position-role components, whose
// derivative is their velocity by the node contract (node.Position): those
// rows are the single velocity entry, and every evaluation checks the
// node's own local Jacobian agrees (an error naming the node otherwise). Only the output rows that reach a Derivatives (through
// feedthrough chains) are computed.
//
// Work storage is allocated with the pattern; an evaluation allocates
// nothing and costs O(nnz) plus the nodes' local Jacobians.

// sparseJac is the lazily built assembly plan of a System.
type sparseJac struct {
	nx int

	// Result pattern (CSR of ∂f/∂y), in the integrators' form.
	rowPtr, col []int

	// Output rows: row r of s.outputs has pattern yCol[yPtr[r]:yPtr[r+1]]
	// (empty for rows not needed) and values yVal likewise.
	yPtr []int
	yCol []int32
	yVal []float64
	// needY marks output nodes whose rows are needed.
	needY []bool

	// Input rows: row q of s.inputs has pattern uCol[uPtr[q]:uPtr[q+1]].
	uPtr []int
	uCol []int32
	uVal []float64
	// uFirst[q] is the first gather (absolute index) whose contribution
	// row q keeps: the last gatherSet into q, or the node's first gather.
	uFirst []int

	// posVel[r] is the velocity component of position component r (a
	// Position-role field: its derivative is its Rate field by the node
	// contract), or -1.
	posVel []int32

	// Work.
	acc        []float64 // len nx, zero between uses
	la, lb     []float64 // local blocks (A or C, B or D), sized for the largest node
	tr         []float64 // transform Jacobians of one node's gathers
	trOff      []int     // offset of each gather's block in tr (relative to the node's first)
	fp, fm     []float64
	xs, us     []float64
	blocks     []int
	jacX, jacU []node.InputJacobian // per stateful node (nil: differences)
}

// tStruct reports whether entry (r, j) of a gather's transform Jacobian
// can be non-zero.
func tStruct(g *gather, r, j int) bool {
	switch tr := g.tr.(type) {
	case nil, Scale:
		return r == j
	case Component:
		return r == 0 && j == tr.Index
	case Embed:
		return r == tr.Axis && j == 0
	}
	return true
}

// plan builds the assembly plan: patterns of the needed output rows, of
// every input row of the nodes that need them, and of ∂f/∂y.
func (m *System) plan() *sparseJac {
	if m.sj != nil {
		return m.sj
	}
	s := m.s
	nx := len(s.state)
	p := &sparseJac{nx: nx, acc: make([]float64, nx)}
	mark := make([]int, nx)
	stamp := 0
	var cols []int
	// Which output nodes are needed: those read by a stateful node, and
	// (through feedthrough) by a needed output node.
	p.needY = make([]bool, len(s.nodes))
	needIn := make([]bool, len(s.nodes))
	for _, i := range s.stateful {
		needIn[i] = true
	}
	for li := len(s.levels) - 1; li >= -1; li-- {
		// Mark sources of the gathers into nodes whose inputs are needed;
		// levels are processed from the deepest so marks propagate.
		for ni := range s.nodes {
			c := &s.nodes[ni]
			if !needIn[ni] {
				continue
			}
			for gi := c.g0; gi < c.g1; gi++ {
				g := &s.gathers[gi]
				if g.fromY {
					k := s.outNode(g.src)
					p.needY[k] = true
					if s.nodes[k].feedthrough {
						needIn[k] = true
					}
				}
			}
		}
	}
	// Input-row patterns of every node whose inputs are needed, and
	// output-row patterns of needed output nodes, level by level.
	p.uPtr = make([]int, len(s.inputs)+1)
	p.uFirst = make([]int, len(s.inputs))
	p.yPtr = make([]int, len(s.outputs)+1)
	uRows := make([][]int32, len(s.inputs))
	yRows := make([][]int32, len(s.outputs))
	union := func(add func(func(int))) []int32 {
		stamp++
		cols = cols[:0]
		add(func(j int) {
			if mark[j] != stamp {
				mark[j] = stamp
				cols = append(cols, j)
			}
		})
		slices.Sort(cols)
		out := make([]int32, len(cols))
		for k, v := range cols {
			out[k] = int32(v)
		}
		return out
	}
	inputRows := func(c *cnode) {
		for q := c.u0; q < c.u1; q++ {
			first := c.g0
			for gi := c.g0; gi < c.g1; gi++ {
				g := &s.gathers[gi]
				if g.mode == gatherSet && q >= g.dst && q < g.dst+g.n {
					first = gi
				}
			}
			p.uFirst[q] = first
			uRows[q] = union(func(add func(int)) {
				for gi := first; gi < c.g1; gi++ {
					g := &s.gathers[gi]
					if q < g.dst || q >= g.dst+g.n {
						continue
					}
					r := q - g.dst
					for j := 0; j < g.sn; j++ {
						if !tStruct(g, r, j) {
							continue
						}
						if g.fromY {
							for _, col := range yRows[g.src+j] {
								add(int(col))
							}
						} else {
							add(g.src + j)
						}
					}
				}
			})
		}
	}
	ownAndInputs := func(c *cnode, withInputs bool) []int32 {
		return union(func(add func(int)) {
			for j := c.x0; j < c.x1; j++ {
				add(j)
			}
			if withInputs {
				for q := c.u0; q < c.u1; q++ {
					for _, col := range uRows[q] {
						add(int(col))
					}
				}
			}
		})
	}
	for _, level := range s.levels {
		for _, k := range level {
			c := &s.nodes[k]
			if !p.needY[k] {
				continue
			}
			ft := c.feedthrough && c.u1 > c.u0
			if ft {
				inputRows(c)
			}
			row := ownAndInputs(c, ft)
			for r := c.y0; r < c.y1; r++ {
				yRows[r] = row
			}
		}
	}
	p.rowPtr = make([]int, nx+1)
	fRows := make([][]int32, nx)
	p.posVel = make([]int32, nx)
	for i := range p.posVel {
		p.posVel[i] = -1
	}
	for _, i := range s.stateful {
		c := &s.nodes[i]
		l := c.spec.StateLayout
		for fi := 0; fi < l.Len(); fi++ {
			if f := l.Field(fi); f.Role == node.Position {
				po, vo := c.x0+l.Offset(fi), c.x0+l.Offset(l.Index(f.Rate))
				for k := 0; k < f.Shape.Len(); k++ {
					p.posVel[po+k] = int32(vo + k)
				}
			}
		}
		inputRows(c)
		row := ownAndInputs(c, true)
		for r := c.x0; r < c.x1; r++ {
			if v := p.posVel[r]; v >= 0 {
				fRows[r] = []int32{v}
				continue
			}
			fRows[r] = row
		}
	}
	// Flatten.
	for q, r := range uRows {
		p.uPtr[q+1] = p.uPtr[q] + len(r)
	}
	p.uCol = make([]int32, 0, p.uPtr[len(s.inputs)])
	for _, r := range uRows {
		p.uCol = append(p.uCol, r...)
	}
	p.uVal = make([]float64, len(p.uCol))
	for r, row := range yRows {
		p.yPtr[r+1] = p.yPtr[r] + len(row)
	}
	p.yCol = make([]int32, 0, p.yPtr[len(s.outputs)])
	for _, r := range yRows {
		p.yCol = append(p.yCol, r...)
	}
	p.yVal = make([]float64, len(p.yCol))
	for r, row := range fRows {
		p.rowPtr[r+1] = p.rowPtr[r] + len(row)
	}
	p.col = make([]int, 0, p.rowPtr[nx])
	for _, row := range fRows {
		for _, c := range row {
			p.col = append(p.col, int(c))
		}
	}
	// Work sized for the largest node.
	maxA, maxB, maxT, maxV := 0, 0, 0, 0
	p.trOff = make([]int, len(s.gathers))
	for ni := range s.nodes {
		c := &s.nodes[ni]
		nxi, nu, ny := c.x1-c.x0, c.u1-c.u0, c.y1-c.y0
		maxA = max(maxA, nxi*nxi, ny*nxi)
		maxB = max(maxB, nxi*nu, ny*nu)
		maxV = max(maxV, nxi, nu, ny)
		off := 0
		for gi := c.g0; gi < c.g1; gi++ {
			g := &s.gathers[gi]
			p.trOff[gi] = off
			off += g.n * g.sn
			maxV = max(maxV, g.n, g.sn)
		}
		maxT = max(maxT, off)
	}
	p.la, p.lb, p.tr = make([]float64, maxA), make([]float64, maxB), make([]float64, maxT)
	p.fp, p.fm, p.xs, p.us = make([]float64, maxV), make([]float64, maxV), make([]float64, maxV), make([]float64, maxV)
	p.jacX = make([]node.InputJacobian, len(s.stateful))
	for k, i := range s.stateful {
		p.jacX[k], _ = node.As[node.InputJacobian](s.nodes[i].n)
	}
	p.blocks = append(p.blocks, 0)
	for _, i := range s.stateful {
		if c := &s.nodes[i]; c.x1 > c.x0 {
			p.blocks = append(p.blocks, c.x1)
		}
	}
	if len(p.blocks) == 1 && nx > 0 {
		p.blocks = append(p.blocks, nx)
	}
	m.sj = p
	return p
}

// outNode returns the node whose outputs hold s.outputs[r].
func (s *Sim) outNode(r int) int {
	i, _ := slices.BinarySearchFunc(s.nodes, r, func(c cnode, r int) int {
		switch {
		case c.y1 <= r:
			return -1
		case c.y0 > r:
			return 1
		}
		return 0
	})
	return i
}

// JacobianPattern returns the sparsity pattern of ∂f/∂y (CSR, columns
// ascending), built from the graph on the first call (see the comment at
// the top of jacobian.go). It implements integrators.SparseJacobian.
func (m *System) JacobianPattern() (rowPtr, col []int) {
	p := m.plan()
	return p.rowPtr, p.col
}

// Blocks returns the state offset of every stateful node and the state
// size: the block partition of the block-Jacobi preconditioner. It
// implements integrators.Blocked.
func (m *System) Blocks() []int { return m.plan().blocks }

// SparseJacobian writes the values of ∂f/∂y at (t, y) in the order of
// JacobianPattern into val. It does not allocate. A panic in node code
// is returned as a *node.StateError naming the node.
func (m *System) SparseJacobian(t float64, y, val []float64) (err error) {
	s := m.s
	p := m.plan()
	if len(y) != len(s.state) || len(val) != len(p.col) {
		panic(fmt.Sprintf("graph: System.SparseJacobian with len(y)=%d, len(val)=%d, want %d and %d", len(y), len(val), len(s.state), len(p.col)))
	}
	saved, err := m.prepare(t, y)
	defer m.restore(saved)
	if err != nil {
		return err
	}
	cur := int32(-1)
	defer m.recoverAt(&cur, t, &err)
	for _, level := range s.levels {
		for _, k := range level {
			if !p.needY[k] {
				continue
			}
			cur = k
			if err := m.outputRows(p, &s.nodes[k], t, y); err != nil {
				return err
			}
		}
	}
	for k, i := range s.stateful {
		cur = i
		if err := m.stateRows(p, k, &s.nodes[i], t, y, val); err != nil {
			return err
		}
	}
	return nil
}

// Jacobian writes ∂f/∂y at (t, y) into dst (row-major, Dim×Dim) for the
// dense solver: the sparse assembly scattered. It implements
// integrators.Jacobian.
func (m *System) Jacobian(t float64, y, dst []float64) error {
	nx := len(m.s.state)
	if len(y) != nx || len(dst) != nx*nx {
		panic(fmt.Sprintf("graph: System.Jacobian with len(y)=%d, len(dst)=%d, want %d and %d", len(y), len(dst), nx, nx*nx))
	}
	p := m.plan()
	if cap(m.jval) < len(p.col) {
		m.jval = make([]float64, len(p.col))
	}
	val := m.jval[:len(p.col)]
	if err := m.SparseJacobian(t, y, val); err != nil {
		return err
	}
	clear(dst)
	for i := 0; i < nx; i++ {
		for k := p.rowPtr[i]; k < p.rowPtr[i+1]; k++ {
			dst[i*nx+p.col[k]] = val[k]
		}
	}
	return nil
}

// transforms writes the Jacobian of every gather into c (n × sn each)
// into p.tr.
func (m *System) transforms(p *sparseJac, c *cnode) {
	s := m.s
	for gi := c.g0; gi < c.g1; gi++ {
		g := &s.gathers[gi]
		T := p.tr[p.trOff[gi] : p.trOff[gi]+g.n*g.sn]
		clear(T)
		switch tr := g.tr.(type) {
		case nil:
			for r := 0; r < g.n; r++ {
				T[r*g.sn+r] = 1
			}
		case Scale:
			for r := 0; r < g.n; r++ {
				T[r*g.sn+r] = tr.Factor
			}
		case Component:
			T[tr.Index] = 1
		case Embed:
			T[tr.Axis*g.sn] = 1
		default:
			buf := s.state
			if g.fromY {
				buf = s.outputs
			}
			src := p.us[:g.sn]
			copy(src, buf[g.src:g.src+g.sn])
			op, om := p.fp[:g.n], p.fm[:g.n]
			for j := range src {
				h := fdStep(src[j])
				v := src[j]
				src[j] = v + h
				tr.Apply(op, src)
				src[j] = v - h
				tr.Apply(om, src)
				src[j] = v
				for r := 0; r < g.n; r++ {
					T[r*g.sn+j] = (op[r] - om[r]) / (2 * h)
				}
			}
		}
	}
}

// inputRowValues fills the values of c's input rows: Σ over the
// effective gathers of T·(source rows).
func (m *System) inputRowValues(p *sparseJac, c *cnode) {
	s := m.s
	m.transforms(p, c)
	for q := c.u0; q < c.u1; q++ {
		for gi := p.uFirst[q]; gi < c.g1; gi++ {
			g := &s.gathers[gi]
			if q < g.dst || q >= g.dst+g.n {
				continue
			}
			r := q - g.dst
			T := p.tr[p.trOff[gi]+r*g.sn : p.trOff[gi]+(r+1)*g.sn]
			for j, w := range T {
				if w == 0 {
					continue
				}
				if g.fromY {
					sr := g.src + j
					for k := p.yPtr[sr]; k < p.yPtr[sr+1]; k++ {
						p.acc[p.yCol[k]] += w * p.yVal[k]
					}
				} else {
					p.acc[g.src+j] += w
				}
			}
		}
		for k := p.uPtr[q]; k < p.uPtr[q+1]; k++ {
			col := p.uCol[k]
			p.uVal[k] = p.acc[col]
			p.acc[col] = 0
		}
	}
}

// combine accumulates row r of own·E + in·(∂u/∂y) of node c into acc:
// own is rows × nxi (row-major), in rows × nu.
func (p *sparseJac) combine(c *cnode, r int, own, in []float64) {
	nxi, nu := c.x1-c.x0, c.u1-c.u0
	for q := 0; q < nxi; q++ {
		p.acc[c.x0+q] += own[r*nxi+q]
	}
	for q := 0; q < nu; q++ {
		w := in[r*nu+q]
		if w == 0 {
			continue
		}
		row := c.u0 + q
		for k := p.uPtr[row]; k < p.uPtr[row+1]; k++ {
			p.acc[p.uCol[k]] += w * p.uVal[k]
		}
	}
}

// outputRows computes the rows of output node c: C·E + D·∂u/∂y.
func (m *System) outputRows(p *sparseJac, c *cnode, t float64, y []float64) error {
	s := m.s
	ny, nu, nxk := c.y1-c.y0, c.u1-c.u0, c.x1-c.x0
	ft := c.feedthrough && nu > 0
	D := p.lb[:ny*nu]
	clear(D)
	if ft {
		m.inputRowValues(p, c)
		if oj, ok := node.As[node.OutputJacobian](c.n); ok {
			if err := oj.OutputsJacobian(t, y[c.x0:c.x1], s.inputsOf(c), D); err != nil {
				return stepError(c.name, "", s.steps, t, err)
			}
		} else if err := m.fdOutputs(p, c, t, y, true, D); err != nil {
			return err
		}
	}
	C := p.la[:ny*nxk]
	if nxk > 0 {
		if err := m.fdOutputs(p, c, t, y, false, C); err != nil {
			return err
		}
	}
	if !ft {
		D = p.lb[:ny*nu] // zero
	}
	for r := 0; r < ny; r++ {
		row := c.y0 + r
		if ft {
			p.combine(c, r, C, D)
		} else {
			for q := 0; q < nxk; q++ {
				p.acc[c.x0+q] += C[r*nxk+q]
			}
		}
		for k := p.yPtr[row]; k < p.yPtr[row+1]; k++ {
			col := p.yCol[k]
			p.yVal[k] = p.acc[col]
			p.acc[col] = 0
		}
	}
	return nil
}

// stateRows computes the rows of stateful node c (index k in
// s.stateful) of ∂f/∂y into val: A·E + B·∂u/∂y.
func (m *System) stateRows(p *sparseJac, k int, c *cnode, t float64, y, val []float64) error {
	s := m.s
	nxi, nu := c.x1-c.x0, c.u1-c.u0
	A, B := p.la[:nxi*nxi], p.lb[:nxi*nu]
	clear(A)
	clear(B)
	m.inputRowValues(p, c)
	if ij := p.jacX[k]; ij != nil {
		if err := ij.DerivativesJacobian(t, y[c.x0:c.x1], s.inputsOf(c), A, B); err != nil {
			return stepError(c.name, "", s.steps, t, err)
		}
	} else if err := m.fdDerivatives(p, k, c, t, y, A, B); err != nil {
		return err
	}
	for r := 0; r < nxi; r++ {
		row := c.x0 + r
		if v := p.posVel[row]; v >= 0 {
			// d/dt position = velocity (node.Position): the row is one
			// entry, checked against what the node computed.
			if err := positionRow(c, r, int(v)-c.x0, A, B); err != nil {
				return stepError(c.name, "d/dt "+c.spec.StateLayout.Component(r), s.steps, t, err)
			}
			val[p.rowPtr[row]] = A[r*nxi+int(v)-c.x0]
			continue
		}
		p.combine(c, r, A, B)
		for q := p.rowPtr[row]; q < p.rowPtr[row+1]; q++ {
			col := p.col[q]
			val[q] = p.acc[col]
			p.acc[col] = 0
		}
	}
	return nil
}

// positionRow checks that row r of a node's local Jacobian (A, B) is the
// one a Position-role component must have: 1 at its velocity vq, zero
// elsewhere, to 1e-6 (central differences of x' = v are exact to about
// ε·|v|/h ≈ 1e-10).
func positionRow(c *cnode, r, vq int, A, B []float64) error {
	nxi, nu := c.x1-c.x0, c.u1-c.u0
	for q := 0; q < nxi; q++ {
		want := 0.0
		if q == vq {
			want = 1
		}
		if math.Abs(A[r*nxi+q]-want) > 1e-6 {
			return fmt.Errorf("∂/∂%s is %g, but a position's rate is its velocity (node.Position) so it must be %g", c.spec.StateLayout.Component(q), A[r*nxi+q], want)
		}
	}
	for q := 0; q < nu; q++ {
		if math.Abs(B[r*nu+q]) > 1e-6 {
			return fmt.Errorf("∂/∂input %s is %g, but a position's rate is its velocity (node.Position) so it must be 0", c.spec.InputLayout.Component(q), B[r*nu+q])
		}
	}
	return nil
}

func fdStep(v float64) float64 { return 1e-6 * math.Max(1, math.Abs(v)) }

// fdOutputs differentiates c's Outputs by central differences of its
// inputs (wrtInputs) or of its own state, into dst (ny × nu or ny × nx_c).
// It does not allocate.
func (m *System) fdOutputs(p *sparseJac, c *cnode, t float64, y []float64, wrtInputs bool, dst []float64) error {
	s := m.s
	ny := c.y1 - c.y0
	yp, ym := p.fp[:ny], p.fm[:ny]
	in := s.inputsOf(c)
	u := p.us[:len(in.Values)]
	copy(u, in.Values)
	in.Values = u
	x := p.xs[:c.x1-c.x0]
	copy(x, y[c.x0:c.x1])
	vec := x
	if wrtInputs {
		vec = u
	}
	cols := len(vec)
	for j := range vec {
		h := fdStep(vec[j])
		v := vec[j]
		vec[j] = v + h
		if err := c.out.Outputs(t, x, in, yp); err != nil {
			return stepError(c.name, "", s.steps, t, err)
		}
		vec[j] = v - h
		if err := c.out.Outputs(t, x, in, ym); err != nil {
			return stepError(c.name, "", s.steps, t, err)
		}
		vec[j] = v
		for r := 0; r < ny; r++ {
			dst[r*cols+j] = (yp[r] - ym[r]) / (2 * h)
		}
	}
	return nil
}

// fdDerivatives differentiates stateful node k's Derivatives by central
// differences of its own state (A) and inputs (B). It does not allocate.
func (m *System) fdDerivatives(p *sparseJac, k int, c *cnode, t float64, y []float64, A, B []float64) error {
	s := m.s
	nxi := c.x1 - c.x0
	fp, fm := p.fp[:nxi], p.fm[:nxi]
	in := s.inputsOf(c)
	u := p.us[:len(in.Values)]
	copy(u, in.Values)
	in.Values = u
	x := p.xs[:nxi]
	copy(x, y[c.x0:c.x1])
	for pass := 0; pass < 2; pass++ {
		vec, dst, cols := x, A, nxi
		if pass == 1 {
			vec, dst, cols = u, B, len(u)
		}
		for j := range vec {
			h := fdStep(vec[j])
			v := vec[j]
			vec[j] = v + h
			if err := m.derivs[k].Derivatives(t, x, in, fp); err != nil {
				return stepError(c.name, "", s.steps, t, err)
			}
			vec[j] = v - h
			if err := m.derivs[k].Derivatives(t, x, in, fm); err != nil {
				return stepError(c.name, "", s.steps, t, err)
			}
			vec[j] = v
			for r := 0; r < nxi; r++ {
				dst[r*cols+j] = (fp[r] - fm[r]) / (2 * h)
			}
		}
	}
	return nil
}
