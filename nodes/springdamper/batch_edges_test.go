package springdamper_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/springdamper"
	"github.com/cosimgo/cosim/verification"
)

// edgeSentinel marks output slots the kernel must not write: a NaN with a
// payload no computation produces.
var edgeSentinel = math.Float64frombits(0x7ff8_0000_5eed_0001)

// checkKernelRows runs the family's batch Outputs once per chunk [lo, hi)
// of chunks (empty chunks included) with the inputs in, the output
// views out and the mask need, on buffers bufs (the buffers the needed
// views point into, filled with edgeSentinel first), and compares every
// buffer bit for bit with what the members' own Outputs give: each
// needed field of each row a chunk covers holds its member's value, every
// other slot of bufs (rows no chunk covers, gaps between rows, padding
// after the last row) keeps the sentinel. node.Batch requires the
// kernel's values to be the members' bits (a graph may run either path)
// and a call to write only its own rows.
func checkKernelRows(t *testing.T, members []node.Node, in, out []node.Strided, need []bool, bufs [][]float64, chunks [][2]int) {
	t.Helper()
	checkRows(t, members, in, out, need, bufs, chunks, func(bt node.Batch, a *node.BatchArgs) error {
		return bt.(node.BatchOutputter).Outputs(a)
	})
}

// checkRows is checkKernelRows with the call of the kernel on a chunk
// given: the batch's Outputs, or the kernel its Plan compiled for the
// chunk (checkPlannedRows).
func checkRows(t *testing.T, members []node.Node, in, out []node.Strided, need []bool, bufs [][]float64, chunks [][2]int, call func(bt node.Batch, a *node.BatchArgs) error) {
	t.Helper()
	spec := members[0].Spec()
	for _, b := range bufs {
		for i := range b {
			b[i] = edgeSentinel
		}
	}
	want := make([][]float64, len(bufs))
	for k, b := range bufs {
		want[k] = append([]float64(nil), b...)
	}
	bufOf := func(v node.Strided) int {
		for k, b := range bufs {
			if len(b) > 0 && len(v.Buf) > 0 && &b[0] == &v.Buf[0] {
				return k
			}
		}
		t.Fatalf("an output view of a needed field is in none of the checked buffers")
		return -1
	}
	bt := members[0].(node.Batcher).NewBatch(members)
	for _, c := range chunks {
		a := &node.BatchArgs{T: 0.25, Lo: c[0], Hi: c[1], In: in, Out: out, Need: need}
		if err := call(bt, a); err != nil {
			t.Fatalf("rows [%d, %d): %v", c[0], c[1], err)
		}
		for i := c[0]; i < c[1]; i++ {
			ref := memberOutputs(t, members[i], in, i)
			for f, fld := range spec.Outputs {
				if !need[f] {
					continue
				}
				v := out[f]
				w := want[bufOf(v)]
				copy(w[v.Off+i*v.Stride:], ref[spec.OutputLayout.Offset(f):spec.OutputLayout.Offset(f)+fld.Shape.Len()])
			}
		}
	}
	for k, b := range bufs {
		for j := range b {
			if math.Float64bits(b[j]) != math.Float64bits(want[k][j]) {
				t.Errorf("buffer %d, slot %d: kernel %v (%#x), want %v (%#x)", k, j, b[j], math.Float64bits(b[j]), want[k][j], math.Float64bits(want[k][j]))
			}
		}
	}
}

// memberOutputs is member m's own Outputs on row i of the input views.
func memberOutputs(t *testing.T, m node.Node, in []node.Strided, i int) []float64 {
	t.Helper()
	spec := m.Spec()
	vals := make([]float64, 0, spec.InputLayout.Size())
	for f, v := range in {
		vals = append(vals, v.Row(i, spec.Inputs[f].Shape.Len())...)
	}
	mi := node.Inputs{Values: vals, Present: make([]bool, len(spec.Inputs))}
	for k := range mi.Present {
		mi.Present[k] = true
	}
	dst := make([]float64, spec.OutputLayout.Size())
	if err := m.(node.Outputter).Outputs(0.25, nil, mi, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// outputsNeeding returns the output views of spec for a call that needs
// only the fields named (each in a buffer of its own, rows of stride
// len+2: a gap of two values after each row, padding of four rows after
// the last) and those buffers; the other fields share a scratch buffer
// that is not checked.
func outputsNeeding(spec *node.Spec, rows int, names ...string) (out []node.Strided, need []bool, bufs [][]float64) {
	ny := spec.OutputLayout.Size()
	scratch := make([]float64, ny*(rows+4))
	out, need = make([]node.Strided, len(spec.Outputs)), make([]bool, len(spec.Outputs))
	for f := range spec.Outputs {
		out[f] = node.Strided{Buf: scratch, Off: spec.OutputLayout.Offset(f), Stride: ny}
	}
	for _, name := range names {
		f := spec.OutputLayout.Index(name)
		l := spec.Outputs[f].Shape.Len()
		b := make([]float64, (l+2)*(rows+4))
		out[f], need[f] = node.Strided{Buf: b, Off: 1, Stride: l + 2}, true
		bufs = append(bufs, b)
	}
	return out, need, bufs
}

// A mass at rest exactly at the origin, tied to a wall at the origin
// with no rest offset: its position and velocity may be −0 (a state
// written as −0, a velocity reversed from 0 by a restitution law
// v' = −e·v). The connector's force is then k·(−0 − 0) + d·(−0 − 0) =
// −0, and the wall connector's load on the mass −f = +0; the batch
// kernel's ground path must give those bits too, not +0 for the force
// (which w + 0 instead of w − 0 for the ground's zero velocity would give:
// −0 + 0 = +0): the load is an output a run records (a CSV prints −0 and
// 0 differently) and the graph runs either path for the same model. The
// rows alternate this rest state with random states, in families with
// the wall at marker 0, at marker 1 and at both ends of a chain
// (mirrored rows); only the mass's load is needed, so the kernel takes
// its wall path (groundLoads). Reference: each member's own Outputs, bit
// for bit, as node.Batch requires.
func TestBatchKernelWallSignedZero(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, c := range []struct {
		name   string
		wall   int  // the ground marker of even rows
		mirror bool // odd rows have the wall at the other end
	}{{"wall-mass", 0, false}, {"mass-wall", 1, false}, {"both walls", 0, true}} {
		t.Run(c.name, func(t *testing.T) {
			const n = 6
			rng := rand.New(rand.NewPCG(29, uint64(c.wall)))
			members := make([]node.Node, n)
			for i := range members {
				p := springdamper.DefaultParams()
				p.Stiffness, p.Damping, p.Offset = [3]float64{100, 80, 60}, [3]float64{3, 2, 1}, [3]float64{}
				m, err := masspoint.New(masspoint.Params{Mass: 1 + float64(i)})
				if err != nil {
					t.Fatal(err)
				}
				ends := [2]node.Attachment{node.GroundAt([3]float64{}), node.At(m, [3]float64{})}
				if wall := c.wall ^ b2i(c.mirror && i%2 == 1); wall == 1 {
					ends[0], ends[1] = ends[1], ends[0]
				}
				members[i], err = springdamper.New(p, ends[0], ends[1])
				if err != nil {
					t.Fatal(err)
				}
			}
			spec := members[0].Spec()
			pos, vel := make([]float64, 3*n), make([]float64, 3*n)
			for i := range n {
				for j := range 3 {
					if i%2 == 0 {
						pos[3*i+j], vel[3*i+j] = negZero, negZero
					} else {
						pos[3*i+j], vel[3*i+j] = rng.NormFloat64(), rng.NormFloat64()
					}
				}
			}
			in := []node.Strided{{Buf: pos, Stride: 3}, {Buf: vel, Stride: 3}}
			load := spec.Outputs[len(spec.Outputs)-1].Name
			out, need, bufs := outputsNeeding(spec, n, load)
			checkKernelRows(t, members, in, out, need, bufs, [][2]int{{0, 2}, {2, 2}, {2, n}})
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// The kernel over chunks of rows, as a graph's workers call it, on each
// of its direct paths: the chain of masses (every marker field a window
// of one state buffer, the two loads one window: chainLoads), masses
// with separate buffers (loadsOnly), walls (groundLoads) and every
// output read (the general loop). A call covers rows [Lo, Hi) only —
// rows before and after keep what they held — and an empty call (Lo =
// Hi, a worker given no rows) writes nothing and does not fail. A chunk
// of one row is included: the chain path checks its rows' span once and
// must check the one row's full window. Reference: the members' own
// Outputs, bit for bit (node.Batch).
func TestBatchKernelChunks(t *testing.T) {
	const n = 6
	chunks := [][2]int{{1, 2}, {2, 2}, {2, 4}, {4, 5}} // rows 0 and 5 are not asked for
	rng := rand.New(rand.NewPCG(31, 37))
	random := func(l int) []float64 {
		v := make([]float64, l)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	family := func(t *testing.T, m0, m1 string) []node.Node {
		members := make([]node.Node, n)
		for i := range members {
			p := springdamper.DefaultParams()
			p.Stiffness, p.Damping, p.Offset = [3]float64{100 + float64(i), 80, 60}, [3]float64{3, 2, 1 + float64(i)}, rv3(rng, 0.1)
			m, err := springdamper.New(p, batchMarkers[m0](t, rng), batchMarkers[m1](t, rng))
			if err != nil {
				t.Fatal(err)
			}
			members[i] = m
		}
		return members
	}
	t.Run("chain", func(t *testing.T) {
		members := family(t, "point", "point")
		spec := members[0].Spec()
		// Point i's position and velocity are row i of body; connector i
		// joins points i and i+1; its two loads are row i of loads. Four
		// padding rows after each buffer's last row.
		body, loads := random(6*(n+5)), make([]float64, 6*(n+4))
		in := []node.Strided{{Buf: body, Off: 0, Stride: 6}, {Buf: body, Off: 3, Stride: 6}, {Buf: body, Off: 6, Stride: 6}, {Buf: body, Off: 9, Stride: 6}}
		out, need, _ := outputsNeeding(spec, n)
		fl0, fl1 := len(spec.Outputs)-2, len(spec.Outputs)-1
		out[fl0], out[fl1] = node.Strided{Buf: loads, Off: 0, Stride: 6}, node.Strided{Buf: loads, Off: 3, Stride: 6}
		need[fl0], need[fl1] = true, true
		checkKernelRows(t, members, in, out, need, [][]float64{loads}, chunks)
	})
	t.Run("masses apart", func(t *testing.T) {
		members := family(t, "point", "point")
		spec := members[0].Spec()
		in := []node.Strided{{Buf: random(3 * n), Stride: 3}, {Buf: random(4 * n), Off: 1, Stride: 4}, {Buf: random(3 * n), Stride: 3}, {Buf: random(3 * n), Stride: 3}}
		out, need, bufs := outputsNeeding(spec, n, spec.Outputs[len(spec.Outputs)-2].Name, spec.Outputs[len(spec.Outputs)-1].Name)
		checkKernelRows(t, members, in, out, need, bufs, chunks)
	})
	t.Run("walls", func(t *testing.T) {
		members := family(t, "ground", "point")
		spec := members[0].Spec()
		in := []node.Strided{{Buf: random(3 * n), Stride: 3}, {Buf: random(5 * n), Off: 2, Stride: 5}}
		out, need, bufs := outputsNeeding(spec, n, spec.Outputs[len(spec.Outputs)-1].Name)
		checkKernelRows(t, members, in, out, need, bufs, chunks)
	})
	t.Run("every output", func(t *testing.T) {
		members := family(t, "ground", "point")
		spec := members[0].Spec()
		in := []node.Strided{{Buf: random(3 * n), Stride: 3}, {Buf: random(3 * n), Stride: 3}}
		var names []string
		for _, f := range spec.Outputs {
			names = append(names, f.Name)
		}
		out, need, bufs := outputsNeeding(spec, n, names...)
		checkKernelRows(t, members, in, out, need, bufs, chunks)
	})
	t.Run("StableDt", func(t *testing.T) {
		members := family(t, "ground", "point")
		in := []node.Strided{{Buf: random(3 * n), Stride: 3}, {Buf: random(3 * n), Stride: 3}}
		bt := members[0].(node.Batcher).NewBatch(members).(node.BatchStepBounder)
		// node.BatchStepBounder: +Inf when no row is left.
		if got := bt.StableDt(&node.BatchArgs{Lo: 3, Hi: 3, In: in}); !math.IsInf(got, 1) {
			t.Errorf("StableDt over no rows = %v, want +Inf", got)
		}
	})
}

// configMass is a point mass whose marker is reached through the general
// node.Marker methods (PointMarker false) and whose effective inverse
// mass depends on its configuration, as a mechanism's does (a slider
// driven through a linkage): 1/m·(1 + x₀² + v₂²), x₀ the first marker
// field's first value (position x), v₂ the last field's last value
// (velocity z). node.MarkerMass passes the body its marker fields; a
// kernel that handed it stale values for either field would compute
// another bound.
type configMass struct{ *masspoint.Node }

func (c *configMass) PointMarker() bool { return false }

func (c *configMass) MarkerInverseMass(x []float64, local [3]float64, dst *[3]float64) {
	c.Node.MarkerInverseMass(x, local, dst)
	s := 1 + x[0]*x[0] + x[5]*x[5]
	for i := range dst {
		dst[i] *= s
	}
}

// The batch kernel's StableDt for connectors to bodies of the general
// path whose inverse mass depends on their state (configMass), one body
// per row, all at their centre (local 0), with masses differing from row
// to row: the kernel must ask each row's own body with that row's marker
// fields (it reuses an answer only for the same body at the same point).
// verification.CheckBatch compares it bit for bit with the members' own
// StableDtAt, with drawn inputs; it also checks Outputs on the general
// path.
func TestBatchKernelConfigurationDependentMass(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 43))
	members := make([]node.Node, 6)
	for i := range members {
		m, err := masspoint.New(masspoint.Params{Mass: 0.5 + float64(i)})
		if err != nil {
			t.Fatal(err)
		}
		p := springdamper.DefaultParams()
		p.Stiffness, p.Damping = rv3(rng, 100), rv3(rng, 10)
		for j := range 3 {
			p.Stiffness[j], p.Damping[j] = math.Abs(p.Stiffness[j]), math.Abs(p.Damping[j])
		}
		n, err := springdamper.New(p, node.GroundAt(rv3(rng, 1)), node.At(&configMass{m}, [3]float64{}))
		if err != nil {
			t.Fatal(err)
		}
		members[i] = n
	}
	for _, err := range verification.CheckBatch(members, verification.BatchOptions{Seed: 47}) {
		t.Error(err)
	}
}

// BatchKey groups connectors that one kernel may evaluate together. A
// body of the masspoint type that is not a node.PointMarker (configMass:
// same spec, same marker fields and loads) is read through the Marker
// methods, a masspoint directly: their connectors must not share a key,
// or a family would mix the two paths (the direct path reads the fields
// as position and velocity and ignores the body's own kinematics).
func TestBatchKeySeparatesPointAndGeneralMarkers(t *testing.T) {
	p := springdamper.DefaultParams()
	m1, err := masspoint.New(masspoint.Params{Mass: 1})
	if err != nil {
		t.Fatal(err)
	}
	m2, err := masspoint.New(masspoint.Params{Mass: 1})
	if err != nil {
		t.Fatal(err)
	}
	point, err := springdamper.New(p, node.GroundAt([3]float64{}), node.At(m1, [3]float64{}))
	if err != nil {
		t.Fatal(err)
	}
	general, err := springdamper.New(p, node.GroundAt([3]float64{}), node.At(&configMass{m2}, [3]float64{}))
	if err != nil {
		t.Fatal(err)
	}
	if point.BatchKey() == general.BatchKey() {
		t.Errorf("a masspoint marker and a general marker of the same body type share BatchKey %q", point.BatchKey())
	}
}
