package springdamper

import (
	"math"
	"reflect"
	"sync"
	"unsafe"

	"github.com/cosimgo/cosim/node"
)

// The batch kernel (node.Batcher): a family of connectors evaluated in
// one call per row range. Connectors between ground and PointMarker
// bodies (the masses of a chain) with the linear force law take a direct
// path over scalars that computes only the outputs the graph reads;
// connectors on other bodies (rigid bodies) or with a user force function
// run their own Outputs per row. Either way every row computes the bits
// the member's Outputs computes: the direct path uses the same
// model.linear and model.energyOf.

var (
	_ node.Batcher          = (*Node)(nil)
	_ node.BatchOutputter   = (*batch)(nil)
	_ node.BatchStepBounder = (*batch)(nil)
)

// BatchKey distinguishes the marker kinds, which markers can be pushed,
// the user force function, and the bodies' types and marker fields (they
// set the inputs' layout). A connector with one ground marker has the key
// of its mirror image (sig.batchKey): the walls at both ends of a chain
// are one family.
func (n *Node) BatchKey() string {
	return n.sig.keys[b2i(n.hot[0].kind == kindPoint)][b2i(n.hot[1].kind == kindPoint)]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// NewBatch keeps the members' force laws as rows (node.Rows) that
// SetParams keeps current, and their ground points, which are fixed when
// a connector is built, in a per-row array.
func (n *Node) NewBatch(members []node.Node) node.Batch {
	b := &batch{
		models: node.NewUniformRows(members, func(m node.Node) *node.Published[model] { return &m.(*Node).m }, (*model).sameLinear),
		nodes:  make([]*Node, len(members)),
		hasPE:  n.sig.hasPE,
		ny:     n.sig.spec.OutputLayout.Size(),
		nu:     n.sig.spec.InputLayout.Size(),
	}
	b.direct = n.m.Get().uf == nil
	in := 0
	for k := range n.hot {
		h := &n.hot[k]
		b.kind[k], b.push[k] = int32(h.kind), h.pushable
		if h.kind == kindBody {
			b.direct = false
		}
		b.inPos[k], b.inVel[k] = in, in+1
		in += len(n.mk[k].fields)
	}
	if n.kindOf(kindGround) {
		b.ground = make([][2][3]float64, len(members))
	}
	for i, mn := range members {
		m := mn.(*Node)
		b.nodes[i] = m
		if b.ground != nil {
			b.ground[i] = [2][3]float64{m.mk[0].local, m.mk[1].local}
		}
		if m.hot[0].kind != n.hot[0].kind {
			// The mirror image of row 0 (equal keys: the ground at the
			// other end); see mirror.
			if b.mirror == nil {
				b.mirror = make([]bool, len(members))
			}
			b.mirror[i] = true
		}
	}
	// Output fields: displacement, distance, velocity, force,
	// [potential_energy], then the loads of marker 0 and of marker 1.
	f := 4
	if b.hasPE {
		b.fPE = f
		f++
	}
	for k := range b.push {
		if b.push[k] {
			b.fLoad[k] = f
			f += len(n.mk[k].loads)
		}
	}
	b.scratch.New = func() any { s := make([]float64, b.nu+b.ny+3); return &s }
	return b
}

func (n *Node) kindOf(kind uint8) bool { return n.hot[0].kind == kind || n.hot[1].kind == kind }

type batch struct {
	// models are the members' force laws. They are uniform while every
	// row has row 0's linear force law (and none a user function): the
	// direct path then reads that one row, and a chain of equal
	// connectors moves no parameter bytes per row.
	models *node.Rows[model]
	nodes  []*Node
	ground [][2][3]float64 // per row, the markers' ground points; nil without ground markers
	// mirror is, per row, whether the row's connector is the mirror
	// image of row 0's: one ground marker, at the other end (the two
	// walls of a chain share a BatchKey). Such a row's body marker has
	// row 0's inputs and load field — the layouts are equal — but the
	// other index, so its differences and its load change sign. nil when
	// no row is mirrored.
	mirror []bool
	direct bool // ground and point markers, linear law

	kind         [2]int32
	push         [2]bool
	inPos, inVel [2]int // a point marker's position and velocity inputs
	fLoad        [2]int // its output field
	hasPE        bool
	fPE          int
	ny, nu       int

	// scratch is a row's inputs (nu) and outputs (ny) on the generic
	// path, and 3 values for a body's MarkerInverseMass (StableDt).
	scratch sync.Pool // *[]float64

	// What StableDt reads, filled by boundRows on its first call.
	boundOnce sync.Once
	noBound   bool
	sameBody  bool // the bodies' types are comparable: StableDt reuses a body's answer
	mass      [][2]node.MarkerMass
	locals    [][2][3]float64 // nil: every marker's local point is zero
	markerIn  [2]markerIn
}

// sameLinear reports whether m and o have the same linear force law and
// neither a user force function (whose item and closure rows differ).
func (m *model) sameLinear(o *model) bool {
	return m.uf == nil && o.uf == nil && m.k == o.k && m.d == o.d && m.off == o.off && m.active == o.active
}

func (b *batch) Outputs(a *node.BatchArgs) error {
	if !b.direct {
		return b.generic(a)
	}
	needDisp, needDist, needVel, needForce := a.Needs(0), a.Needs(1), a.Needs(2), a.Needs(3)
	needPE := b.hasPE && a.Needs(b.fPE)
	load0 := b.push[0] && a.Needs(b.fLoad[0])
	load1 := b.push[1] && a.Needs(b.fLoad[1])
	pointPoint := b.kind[0] == kindPoint && b.kind[1] == kindPoint
	if !needDisp && !needDist && !needVel && !needForce && !needPE {
		switch {
		case pointPoint:
			b.loadsOnly(a, load0, load1)
			return nil
		case b.kind[0] == kindGround && b.kind[1] == kindPoint:
			b.groundLoads(a, 0, load1)
			return nil
		case b.kind[0] == kindPoint && b.kind[1] == kindGround:
			b.groundLoads(a, 1, load0)
			return nil
		}
	}
	if b.mirror != nil {
		// The loop below reads the markers by row 0's kinds; mirrored
		// rows take the members' own Outputs when more than the loads is
		// read (a chain's step reads only the loads).
		return b.generic(a)
	}
	if a.Lo >= a.Hi {
		return nil
	}
	var p0, v0, p1, v1 node.Strided
	if pointPoint {
		p0, v0, p1, v1 = a.In[b.inPos[0]], a.In[b.inVel[0]], a.In[b.inPos[1]], a.In[b.inVel[1]]
	}
	mp, msz := b.models.Walk(a.Lo, a.Hi)
	for i := a.Lo; i < a.Hi; i++ {
		m := (*model)(unsafe.Add(mp, uintptr(i-a.Lo)*msz))
		var p0x, p0y, p0z, v0x, v0y, v0z, p1x, p1y, p1z, v1x, v1y, v1z float64
		if pointPoint {
			// Both markers on point bodies (a chain): read the four
			// fields straight from the bodies' state.
			q := (*[3]float64)(p0.Buf[p0.Off+i*p0.Stride:])
			p0x, p0y, p0z = q[0], q[1], q[2]
			q = (*[3]float64)(v0.Buf[v0.Off+i*v0.Stride:])
			v0x, v0y, v0z = q[0], q[1], q[2]
			q = (*[3]float64)(p1.Buf[p1.Off+i*p1.Stride:])
			p1x, p1y, p1z = q[0], q[1], q[2]
			q = (*[3]float64)(v1.Buf[v1.Off+i*v1.Stride:])
			v1x, v1y, v1z = q[0], q[1], q[2]
		} else {
			p0x, p0y, p0z, v0x, v0y, v0z = b.marker(a, 0, i)
			p1x, p1y, p1z, v1x, v1y, v1z = b.marker(a, 1, i)
		}
		dpx, dpy, dpz := p1x-p0x, p1y-p0y, p1z-p0z
		dvx, dvy, dvz := v1x-v0x, v1y-v0y, v1z-v0z
		var fx, fy, fz float64
		if m.active {
			fx, fy, fz = m.linear(dpx, dpy, dpz, dvx, dvy, dvz)
		}
		if needDisp {
			put3(a.Out[0], i, dpx, dpy, dpz)
		}
		if needDist {
			a.Out[1].Buf[a.Out[1].Off+i*a.Out[1].Stride] = math.Sqrt(dpx*dpx + dpy*dpy + dpz*dpz)
		}
		if needVel {
			put3(a.Out[2], i, dvx, dvy, dvz)
		}
		if needForce {
			put3(a.Out[3], i, fx, fy, fz)
		}
		if needPE {
			o := a.Out[b.fPE]
			o.Buf[o.Off+i*o.Stride] = m.energyOf(dpx, dpy, dpz)
		}
		if load0 {
			put3(a.Out[b.fLoad[0]], i, fx, fy, fz)
		}
		if load1 {
			put3(a.Out[b.fLoad[1]], i, -fx, -fy, -fz)
		}
	}
	return nil
}

// loadsOnly is Outputs for two point markers when only the loads are
// read (a chain of masses). When the four marker fields are windows of
// one buffer at fixed distances (the bodies' states in the flat state)
// and the two loads likewise (the connector's outputs), each row is two
// 6-value windows in and one out, walked by offsets; otherwise each
// view is read on its own.
func (b *batch) loadsOnly(a *node.BatchArgs, load0, load1 bool) {
	in := a.In
	p0, v0, p1, v1 := in[b.inPos[0]], in[b.inVel[0]], in[b.inPos[1]], in[b.inVel[1]]
	var l0, l1 node.Strided
	if load0 {
		l0 = a.Out[b.fLoad[0]]
	}
	if load1 {
		l1 = a.Out[b.fLoad[1]]
	}
	if load0 && load1 {
		if d := p0.Shift(p1); d > 0 && p0.Shift(v0) == 3 && p1.Shift(v1) == 3 && l0.Shift(l1) == 3 {
			b.chainLoads(a, p0, d, l0)
			return
		}
	}
	if a.Lo >= a.Hi {
		return
	}
	mp, msz := b.models.Walk(a.Lo, a.Hi)
	for i := a.Lo; i < a.Hi; i++ {
		m := (*model)(unsafe.Add(mp, uintptr(i-a.Lo)*msz))
		q0, w0 := (*[3]float64)(p0.Buf[p0.Off+i*p0.Stride:]), (*[3]float64)(v0.Buf[v0.Off+i*v0.Stride:])
		q1, w1 := (*[3]float64)(p1.Buf[p1.Off+i*p1.Stride:]), (*[3]float64)(v1.Buf[v1.Off+i*v1.Stride:])
		dpx, dpy, dpz := q1[0]-q0[0], q1[1]-q0[1], q1[2]-q0[2]
		dvx, dvy, dvz := w1[0]-w0[0], w1[1]-w0[1], w1[2]-w0[2]
		var fx, fy, fz float64
		if m.active {
			fx, fy, fz = m.linear(dpx, dpy, dpz, dvx, dvy, dvz)
		}
		if load0 {
			put3(l0, i, fx, fy, fz)
		}
		if load1 {
			put3(l1, i, -fx, -fy, -fz)
		}
	}
}

var _ node.BatchPlanner = (*batch)(nil)

// Plan compiles Outputs for a call site that reads only the loads of a
// chain's connectors (both point markers, their fields one window of the
// bodies' state, both loads one window: chainRows) or of its walls (one
// ground marker: groundRows) — the calls of a chain's step. The path
// selection (Needs, the markers' kinds, Shift) and the rows' extents are
// taken here once; a call checks each buffer's length and runs the
// method's own loop, so the bits are the method's. Any other call site
// gets nil and runs Outputs.
func (b *batch) Plan(ph node.BatchPhase, a *node.BatchArgs) node.BatchKernel {
	if ph != node.PhaseOutputs || !b.direct || a.Lo >= a.Hi {
		return nil
	}
	if a.Needs(0) || a.Needs(1) || a.Needs(2) || a.Needs(3) || b.hasPE && a.Needs(b.fPE) {
		return nil
	}
	lo, hi := a.Lo, a.Hi
	load0, load1 := b.push[0] && a.Needs(b.fLoad[0]), b.push[1] && a.Needs(b.fLoad[1])
	switch {
	case b.kind[0] == kindPoint && b.kind[1] == kindPoint:
		if !load0 || !load1 {
			return nil
		}
		ip, il := b.inPos[0], b.fLoad[0]
		p0, v0, p1, v1 := a.In[ip], a.In[b.inVel[0]], a.In[b.inPos[1]], a.In[b.inVel[1]]
		l0, l1 := a.Out[il], a.Out[b.fLoad[1]]
		d := p0.Shift(p1)
		if d <= 0 || p0.Shift(v0) != 3 || p1.Shift(v1) != 3 || l0.Shift(l1) != 3 {
			return nil
		}
		x0, x1 := p0.Extent(lo, hi, d+6)
		y0, y1 := l0.Extent(lo, hi, 6)
		xs, ys, dx := uintptr(p0.Stride)*8, uintptr(l0.Stride)*8, uintptr(d)*8
		return func(a *node.BatchArgs) error {
			xp := unsafe.Pointer(&a.In[ip].Buf[x0:x1][0])
			yp := unsafe.Pointer(&a.Out[il].Buf[y0:y1][0])
			mp, msz := b.models.Walk(lo, hi)
			chainRows(mp, msz, hi-lo, xp, xs, dx, yp, ys)
			return nil
		}
	case b.kind[0] == kindGround && b.kind[1] == kindPoint, b.kind[0] == kindPoint && b.kind[1] == kindGround:
		g := 0 // the ground marker
		if b.kind[1] == kindGround {
			g = 1
		}
		k := 1 - g // the point marker
		if k == 0 && !load0 || k == 1 && !load1 {
			// The point's load is not read: Outputs returns at once.
			return func(*node.BatchArgs) error { return nil }
		}
		ip, iv, il := b.inPos[k], b.inVel[k], b.fLoad[k]
		p, v, l := a.In[ip], a.In[iv], a.Out[il]
		p0, p1 := p.Extent(lo, hi, 3)
		v0, v1 := v.Extent(lo, hi, 3)
		l0, l1 := l.Extent(lo, hi, 3)
		ps, vs, ls := uintptr(p.Stride)*8, uintptr(v.Stride)*8, uintptr(l.Stride)*8
		return func(a *node.BatchArgs) error {
			pp := unsafe.Pointer(&a.In[ip].Buf[p0:p1][0])
			vp := unsafe.Pointer(&a.In[iv].Buf[v0:v1][0])
			lp := unsafe.Pointer(&a.Out[il].Buf[l0:l1][0])
			b.groundRows(lo, hi, g, pp, ps, vp, vs, lp, ls)
			return nil
		}
	}
	return nil
}

// chainLoads is loadsOnly when marker 0's position and velocity are the
// 6-value window of row i of body, marker 1's the window d values
// further, and the two loads the 6-value window of row i of out.
func (b *batch) chainLoads(a *node.BatchArgs, body node.Strided, d int, out node.Strided) {
	if a.Lo >= a.Hi {
		return
	}
	// Each view's rows are checked once (Span); rows are then addressed
	// with unsafe.Add, as in masspoint's kernel.
	xp := unsafe.Pointer(&body.Span(a.Lo, a.Hi, d+6)[0])
	yp := unsafe.Pointer(&out.Span(a.Lo, a.Hi, 6)[0])
	mp, msz := b.models.Walk(a.Lo, a.Hi)
	chainRows(mp, msz, a.Hi-a.Lo, xp, uintptr(body.Stride)*8, uintptr(d)*8, yp, uintptr(out.Stride)*8)
}

// chainRows is chainLoads' loop over n rows: models from mp (row stride
// msz bytes), the bodies' windows from xp (stride xs bytes, marker 1's dx
// bytes after marker 0's), the loads' windows from yp (stride ys bytes).
// The compiled call (Plan) runs it too, so both compute the same bits.
func chainRows(mp unsafe.Pointer, msz uintptr, n int, xp unsafe.Pointer, xs, dx uintptr, yp unsafe.Pointer, ys uintptr) {
	for k := range n {
		u := uintptr(k)
		m := (*model)(unsafe.Add(mp, u*msz))
		r := unsafe.Add(xp, u*xs)
		w0, w1 := (*[6]float64)(r), (*[6]float64)(unsafe.Add(r, dx))
		dpx, dpy, dpz := w1[0]-w0[0], w1[1]-w0[1], w1[2]-w0[2]
		dvx, dvy, dvz := w1[3]-w0[3], w1[4]-w0[4], w1[5]-w0[5]
		var fx, fy, fz float64
		if m.active {
			fx, fy, fz = m.linear(dpx, dpy, dpz, dvx, dvy, dvz)
		}
		l := (*[6]float64)(unsafe.Add(yp, u*ys))
		l[0], l[1], l[2] = fx, fy, fz
		l[3], l[4], l[5] = -fx, -fy, -fz
	}
}

// groundLoads is Outputs for a ground marker (marker g) and a point
// marker when only the point's load is read, if anything (the connectors
// at a chain's walls): the arithmetic of the direct path — the ground's
// point at rest, the differences marker 1 minus marker 0 — without its
// per-row branches and re-slicing.
func (b *batch) groundLoads(a *node.BatchArgs, g int, load bool) {
	if !load || a.Lo >= a.Hi {
		return
	}
	k := 1 - g // the point marker
	p, v, l := a.In[b.inPos[k]], a.In[b.inVel[k]], a.Out[b.fLoad[k]]
	pp := unsafe.Pointer(&p.Span(a.Lo, a.Hi, 3)[0])
	vp := unsafe.Pointer(&v.Span(a.Lo, a.Hi, 3)[0])
	lp := unsafe.Pointer(&l.Span(a.Lo, a.Hi, 3)[0])
	b.groundRows(a.Lo, a.Hi, g, pp, uintptr(p.Stride)*8, vp, uintptr(v.Stride)*8, lp, uintptr(l.Stride)*8)
}

// groundRows is groundLoads' loop over rows [lo, hi): the point marker's
// position, velocity and load from pp, vp and lp (row strides ps, vs and
// ls bytes). The compiled call (Plan) runs it too, so both compute the
// same bits.
func (b *batch) groundRows(lo, hi, g int, pp unsafe.Pointer, ps uintptr, vp unsafe.Pointer, vs uintptr, lp unsafe.Pointer, ls uintptr) {
	mp, msz := b.models.Walk(lo, hi)
	ground := b.ground[lo:hi]
	var mirror []bool
	if b.mirror != nil {
		mirror = b.mirror[lo:hi:hi]
	}
	g0 := g
	for r := range ground {
		u := uintptr(r)
		m := (*model)(unsafe.Add(mp, u*msz))
		q, w := (*[3]float64)(unsafe.Add(pp, u*ps)), (*[3]float64)(unsafe.Add(vp, u*vs))
		if mirror != nil {
			// A mirrored row (the other wall) reads the same input and
			// load fields; its ground is at the other end.
			g = g0 ^ int(b2i(mirror[r]))
		}
		gp := &ground[r][g]
		var fx, fy, fz float64
		if g == 0 {
			dpx, dpy, dpz := q[0]-gp[0], q[1]-gp[1], q[2]-gp[2]
			dvx, dvy, dvz := w[0]-0, w[1]-0, w[2]-0
			if m.active {
				fx, fy, fz = m.linear(dpx, dpy, dpz, dvx, dvy, dvz)
			}
			// Marker 1's load, −f.
			o := (*[3]float64)(unsafe.Add(lp, u*ls))
			o[0], o[1], o[2] = -fx, -fy, -fz
			continue
		}
		dpx, dpy, dpz := gp[0]-q[0], gp[1]-q[1], gp[2]-q[2]
		dvx, dvy, dvz := 0-w[0], 0-w[1], 0-w[2]
		if m.active {
			fx, fy, fz = m.linear(dpx, dpy, dpz, dvx, dvy, dvz)
		}
		// Marker 0's load, f.
		o := (*[3]float64)(unsafe.Add(lp, u*ls))
		o[0], o[1], o[2] = fx, fy, fz
	}
}

// put3 writes a 3-vector into row i of v.
func put3(v node.Strided, i int, x, y, z float64) {
	q := (*[3]float64)(v.Buf[v.Off+i*v.Stride:])
	q[0], q[1], q[2] = x, y, z
}

// marker returns row i's marker k position and velocity on the direct
// path: its ground point at rest, or its point body's fields.
func (b *batch) marker(a *node.BatchArgs, k, i int) (px, py, pz, vx, vy, vz float64) {
	if b.kind[k] == kindGround {
		g := &b.ground[i][k]
		return g[0], g[1], g[2], 0, 0, 0
	}
	p := a.In[b.inPos[k]].Row(i, 3)
	v := a.In[b.inVel[k]].Row(i, 3)
	return p[0], p[1], p[2], v[0], v[1], v[2]
}

// StableDt is the smallest of the rows' StableDtAt (node.BatchStepBounder),
// computed as StableDtAt computes it — each row's marker fields copied
// from the views, its markers' inverse masses summed (addInverse), the
// law's bound of them — from per-row arrays (boundRows) rather than the
// members, whose structs a long chain would otherwise fetch from memory
// one by one. Rows with equal laws and equal summed inverse masses have
// equal bounds, so a uniform batch computes the bound again only when the
// inverse masses change from one row to the next (a chain of equal
// masses computes it once).
func (b *batch) StableDt(a *node.BatchArgs) float64 {
	b.boundOnce.Do(b.boundRows)
	best := math.Inf(1)
	if b.noBound || a.Lo >= a.Hi {
		return best
	}
	sp := b.scratch.Get().(*[]float64)
	defer b.scratch.Put(sp)
	u := *sp
	inv := (*[3]float64)(u[b.nu+b.ny:])
	var lastW [3]float64
	var lastDt float64
	memo := false
	// The last body asked, at which local point, and its answer: in a
	// chain, row i's second body is row i+1's first. The same body at the
	// same point has the same marker fields (its state), so the same
	// inverse mass.
	var lastMM node.MarkerMass
	var lastLocal, lastInv [3]float64
	mp, msz := b.models.Walk(a.Lo, a.Hi)
	for i := a.Lo; i < a.Hi; i++ {
		m := (*model)(unsafe.Add(mp, uintptr(i-a.Lo)*msz))
		if !m.active || m.uf != nil {
			continue
		}
		var w [3]float64
		for k := range b.mass[i] {
			mm := b.mass[i][k]
			if mm == nil {
				continue
			}
			var local [3]float64
			if b.locals != nil {
				local = b.locals[i][k]
			}
			if !b.sameBody || mm != lastMM || local != lastLocal {
				f := &b.markerIn[k]
				if b.mirror != nil && b.mirror[i] {
					// Row 0's other marker has this row's marker k
					// fields (see mirror).
					f = &b.markerIn[1-k]
				}
				for _, ii := range f.inputs {
					o, n := f.offs[ii], f.lens[ii]
					copy(u[o:o+n], a.In[ii].Row(i, n))
				}
				markerInverse(mm, u[f.in0:f.in1], local, inv)
				lastMM, lastLocal, lastInv = mm, local, *inv
			}
			addInverse(&w, &lastInv)
		}
		if !memo || !b.models.Uniform() || w != lastW {
			lastDt, _ = m.boundOf(w)
			lastW, memo = w, true
		}
		best = min(best, lastDt)
	}
	return best
}

// markerIn is where a marker's fields are in the node's inputs: the
// input fields that hold them and, per input field, its offset and
// length in Inputs.Values; [in0, in1) is the marker's span there.
type markerIn struct {
	inputs     []int
	offs, lens []int
	in0, in1   int
}

// boundRows fills the per-row arrays StableDt reads, once: each pushed
// body's node.MarkerMass (nil for a ground marker or a body that is not
// pushed), the markers' local points when some is not zero, and where
// the marker fields are. noBound: a pushed body has no MarkerMass, so no
// member states a bound (the bodies' types are part of BatchKey).
func (b *batch) boundRows() {
	n0 := b.nodes[0]
	spec := n0.sig.spec
	for k := range n0.mk {
		mk := &n0.mk[k]
		f := &b.markerIn[k]
		f.in0, f.in1 = mk.in0, mk.in1
		f.offs, f.lens = make([]int, len(spec.Inputs)), make([]int, len(spec.Inputs))
		for ii := range spec.Inputs {
			o, l := spec.InputLayout.Offset(ii), spec.Inputs[ii].Shape.Len()
			f.offs[ii], f.lens[ii] = o, l
			if o >= mk.in0 && o+l <= mk.in1 {
				f.inputs = append(f.inputs, ii)
			}
		}
	}
	b.mass = make([][2]node.MarkerMass, len(b.nodes))
	for i, n := range b.nodes {
		for k := range n.mk {
			mk := &n.mk[k]
			mm, pushed, ok := mk.massOf()
			if !pushed {
				continue
			}
			if !ok {
				b.noBound, b.mass = true, nil
				return
			}
			b.mass[i][k] = mm
			if mk.local != ([3]float64{}) && b.locals == nil {
				b.locals = make([][2][3]float64, len(b.nodes))
			}
		}
	}
	if b.locals != nil {
		for i, n := range b.nodes {
			b.locals[i] = [2][3]float64{n.mk[0].local, n.mk[1].local}
		}
	}
	// Bodies are compared (StableDt) only when their types allow ==
	// (a body held by value with a slice would panic); every row has
	// the same body types, which are part of BatchKey.
	b.sameBody = true
	for _, mm := range b.mass[0] {
		if mm != nil && !reflect.TypeOf(mm).Comparable() {
			b.sameBody = false
		}
	}
}

// generic evaluates each row with the member's own Outputs, its inputs
// copied from the views into scratch.
func (b *batch) generic(a *node.BatchArgs) error {
	sp := b.scratch.Get().(*[]float64)
	defer b.scratch.Put(sp)
	u := *sp
	spec := b.nodes[0].sig.spec
	for i := a.Lo; i < a.Hi; i++ {
		for ii := range spec.Inputs {
			o := spec.InputLayout.Offset(ii)
			n := spec.Inputs[ii].Shape.Len()
			copy(u[o:o+n], a.In[ii].Row(i, n))
		}
		y := u[b.nu : b.nu+b.ny]
		if err := b.nodes[i].Outputs(a.T, nil, node.Inputs{Values: u[:b.nu], Present: a.Present}, y); err != nil {
			return err
		}
		for fi := range spec.Outputs {
			o := spec.OutputLayout.Offset(fi)
			n := spec.Outputs[fi].Shape.Len()
			copy(a.Out[fi].Row(i, n), y[o:o+n])
		}
	}
	return nil
}
