package spring

import (
	"strings"
	"sync"

	"github.com/cosimgo/cosim/node"
)

// The batch kernel (node.Batcher): a family of springs evaluated in one
// call per row range. Springs between ground points and point-marker
// bodies (masses) take a direct path over the markers' fields that
// writes only the outputs the graph reads; springs with a marker on any
// other body (a rigid body, a planar body, a ball) run their own Outputs
// per row. Either way every row computes the bits the member's Outputs
// computes: the direct path runs the same law.geometry, law.tension,
// law.energy and forceOn0, and fails (min_length) exactly where it does.

var (
	_ node.Batcher        = (*Node)(nil)
	_ node.BatchOutputter = (*batch)(nil)
)

// Marker kinds of the kernel's direct path.
const (
	kindGround = iota // a fixed world point, at rest
	kindPoint         // a point body: its position and velocity fields are inputs
	kindBody          // any other body: the generic path
)

// kind returns marker k's kind. A point marker takes the direct path
// only when its fields are two 3-vectors (position, velocity) and its
// load at most one 3-vector, as a mass point's are.
func (n *Node) kind(k int) int {
	mk := &n.mk[k]
	switch {
	case mk.body == nil:
		return kindGround
	case mk.point && len(mk.fields) == 2 && len(mk.loads) <= 1:
		first := 0
		if k == 1 {
			first = len(n.mk[0].fields)
		}
		if n.spec.Inputs[first].Shape.Len() == 3 && n.spec.Inputs[first+1].Shape.Len() == 3 {
			return kindPoint
		}
	}
	return kindBody
}

// BatchKey names the markers' kinds, bodies' types, marker fields and
// loads: they set the inputs' and outputs' layout and the kernel's path.
func (n *Node) BatchKey() string {
	var b strings.Builder
	for k := range n.mk {
		mk := &n.mk[k]
		b.WriteByte("gpb"[n.kind(k)])
		if mk.body != nil {
			b.WriteString(mk.body.(node.Node).Spec().Type)
			b.WriteByte(':')
			b.WriteString(strings.Join(mk.fields, ","))
			b.WriteByte(';')
			b.WriteString(strings.Join(mk.loads, ","))
		}
		b.WriteByte('|')
	}
	return b.String()
}

// NewBatch keeps the members' force laws as rows (node.Rows) that
// SetParams keeps current, and their ground points, which are fixed
// when a spring is built, in a per-row array.
func (n *Node) NewBatch(members []node.Node) node.Batch {
	b := &batch{
		laws:   node.NewRows(members, func(m node.Node) *node.Published[law] { return &m.(*Node).law }),
		nodes:  make([]*Node, len(members)),
		spec:   n.spec,
		nu:     n.spec.InputLayout.Size(),
		ny:     n.spec.OutputLayout.Size(),
		direct: true,
	}
	in, f := 0, fEnergy+1 // the load output fields follow potential_energy
	for k := range n.mk {
		mk := &n.mk[k]
		b.kind[k] = n.kind(k)
		if b.kind[k] == kindBody {
			b.direct = false
		}
		b.inPos[k], b.inVel[k] = in, in+1
		in += len(mk.fields)
		b.fLoad[k] = -1
		if len(mk.loads) > 0 {
			b.fLoad[k] = f
			f += len(mk.loads)
		}
	}
	if b.kind[0] == kindGround || b.kind[1] == kindGround {
		b.ground = make([][2][3]float64, len(members))
	}
	for i, mn := range members {
		m := mn.(*Node)
		b.nodes[i] = m
		if b.ground != nil {
			b.ground[i] = [2][3]float64{m.mk[0].local, m.mk[1].local}
		}
	}
	b.scratch.New = func() any { s := make([]float64, b.nu+b.ny); return &s }
	return b
}

// Output fields, in Spec().Outputs order; the load fields follow.
const (
	fLength = iota
	fRate
	fTension
	fForce
	fEnergy
)

type batch struct {
	laws   *node.Rows[law]
	ground [][2][3]float64 // per row, the markers' ground points; nil without ground markers
	nodes  []*Node
	spec   *node.Spec
	nu, ny int
	direct bool // no marker on a body other than a point body

	kind         [2]int
	inPos, inVel [2]int // a point marker's position and velocity inputs
	fLoad        [2]int // a point marker's load output field; -1: none

	scratch sync.Pool // *[]float64 of nu+ny: one row's inputs and outputs on the generic path
}

// Outputs evaluates rows [Lo, Hi): the direct path for ground and point
// markers, the members' own Outputs otherwise.
func (b *batch) Outputs(a *node.BatchArgs) error {
	if !b.direct {
		return b.generic(a)
	}
	needLen, needRate, needTension := a.Needs(fLength), a.Needs(fRate), a.Needs(fTension)
	needForce, needEnergy := a.Needs(fForce), a.Needs(fEnergy)
	load0 := b.fLoad[0] >= 0 && a.Needs(b.fLoad[0])
	load1 := b.fLoad[1] >= 0 && a.Needs(b.fLoad[1])
	for i := a.Lo; i < a.Hi; i++ {
		m := b.laws.At(i)
		p0, v0 := b.marker(a, 0, i)
		p1, v1 := b.marker(a, 1, i)
		g, err := m.geometry(a.T, p0, v0, p1, v1)
		if err != nil {
			return err
		}
		s, f := m.tension(&g)
		if needLen {
			put1(a.Out[fLength], i, g.l)
		}
		if needRate {
			put1(a.Out[fRate], i, g.rate)
		}
		if needTension {
			put1(a.Out[fTension], i, f)
		}
		if needEnergy {
			put1(a.Out[fEnergy], i, m.energy(s))
		}
		if !needForce && !load0 && !load1 {
			continue
		}
		fv := forceOn0(&g, f)
		if needForce {
			put3(a.Out[fForce], i, fv)
		}
		if load0 {
			put3(a.Out[b.fLoad[0]], i, fv)
		}
		if load1 {
			put3(a.Out[b.fLoad[1]], i, [3]float64{-fv[0], -fv[1], -fv[2]})
		}
	}
	return nil
}

// marker returns row i's marker k position and velocity on the direct
// path: its ground point at rest, or its point body's fields.
func (b *batch) marker(a *node.BatchArgs, k, i int) (pos, vel [3]float64) {
	if b.kind[k] == kindGround {
		return b.ground[i][k], [3]float64{}
	}
	p, v := a.In[b.inPos[k]], a.In[b.inVel[k]]
	return *(*[3]float64)(p.Buf[p.Off+i*p.Stride:]), *(*[3]float64)(v.Buf[v.Off+i*v.Stride:])
}

// put1 writes a scalar into row i of v.
func put1(v node.Strided, i int, x float64) { v.Buf[v.Off+i*v.Stride] = x }

// put3 writes a 3-vector into row i of v.
func put3(v node.Strided, i int, x [3]float64) { *(*[3]float64)(v.Buf[v.Off+i*v.Stride:]) = x }

// generic evaluates each row with the member's own Outputs, its inputs
// copied from the views into scratch, and copies the outputs it needs
// out. It fails where a member's Outputs fails.
func (b *batch) generic(a *node.BatchArgs) error {
	sp := b.scratch.Get().(*[]float64)
	defer b.scratch.Put(sp)
	u, y := (*sp)[:b.nu], (*sp)[b.nu:]
	spec := b.spec
	for i := a.Lo; i < a.Hi; i++ {
		for ii := range spec.Inputs {
			o := spec.InputLayout.Offset(ii)
			n := spec.Inputs[ii].Shape.Len()
			copy(u[o:o+n], a.In[ii].Row(i, n))
		}
		if err := b.nodes[i].Outputs(a.T, nil, node.Inputs{Values: u, Present: a.Present}, y); err != nil {
			return err
		}
		for fi := range spec.Outputs {
			if !a.Needs(fi) {
				continue
			}
			o := spec.OutputLayout.Offset(fi)
			n := spec.Outputs[fi].Shape.Len()
			copy(a.Out[fi].Row(i, n), y[o:o+n])
		}
	}
	return nil
}
