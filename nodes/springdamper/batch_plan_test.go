package springdamper_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// checkPlannedRows is checkKernelRows through the batch's Plan
// (node.BatchPlanner), as a graph compiles a call: each chunk's call is
// planned on its layout with every buffer replaced by another of the same
// length (Plan may keep the layout, never a buffer), then the compiled
// kernel runs on the chunk's own buffers. compiled says whether Plan
// must compile the non-empty chunks: a nil kernel means the graph calls
// Outputs. An empty chunk may get nil or a kernel that writes nothing
// and does not fail (or panic).
func checkPlannedRows(t *testing.T, members []node.Node, in, out []node.Strided, need []bool, bufs [][]float64, chunks [][2]int, compiled bool) {
	t.Helper()
	other := map[*float64][]float64{}
	swap := func(vs []node.Strided) []node.Strided {
		r := make([]node.Strided, len(vs))
		for i, v := range vs {
			if len(v.Buf) > 0 {
				b, ok := other[&v.Buf[0]]
				if !ok {
					b = make([]float64, len(v.Buf))
					other[&v.Buf[0]] = b
				}
				v.Buf = b
			}
			r[i] = v
		}
		return r
	}
	checkRows(t, members, in, out, need, bufs, chunks, func(bt node.Batch, a *node.BatchArgs) (err error) {
		pa := *a
		pa.In, pa.Out = swap(a.In), swap(a.Out)
		k := bt.(node.BatchPlanner).Plan(node.PhaseOutputs, &pa)
		if k == nil {
			if compiled && a.Lo < a.Hi {
				t.Errorf("rows [%d, %d): Plan compiled nothing; want a kernel for this call site", a.Lo, a.Hi)
			}
			return bt.(node.BatchOutputter).Outputs(a)
		}
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("the compiled kernel panicked: %v", r)
			}
		}()
		return k(a)
	})
}

// The compiled calls of a chain's step (Plan: only the connectors'
// loads read) give the bits of the members' own Outputs and write only
// the rows of their call, on the two layouts Plan compiles — the chain
// of masses (both markers' fields one window of the bodies' state, both
// loads one window) and the walls (one ground marker, at either end) —
// over chunks that start after row 0, a chunk of one row (whose window
// is the row's full width) and empty chunks. The views are as in
// TestBatchKernelChunks, with eight rows of padding after each buffer.
// Other call sites are not compiled (Plan returns nil and the graph
// runs Outputs): another phase, a call that needs more than the loads,
// a chain whose marker 1 comes first.
func TestBatchPlanCompiledCalls(t *testing.T) {
	const n = 6
	chunks := [][2]int{{1, 2}, {2, 2}, {2, 4}, {4, 5}, {0, 0}} // rows 0 and 5 are not asked for
	rng := rand.New(rand.NewPCG(53, 59))
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
	chain := func(t *testing.T, members []node.Node) (in, out []node.Strided, need []bool, loads []float64) {
		spec := members[0].Spec()
		body := random(6 * (n + 9))
		loads = make([]float64, 6*(n+8))
		in = []node.Strided{{Buf: body, Off: 0, Stride: 6}, {Buf: body, Off: 3, Stride: 6}, {Buf: body, Off: 6, Stride: 6}, {Buf: body, Off: 9, Stride: 6}}
		out, need, _ = outputsNeeding(spec, n)
		fl0, fl1 := len(spec.Outputs)-2, len(spec.Outputs)-1
		out[fl0], out[fl1] = node.Strided{Buf: loads, Off: 0, Stride: 6}, node.Strided{Buf: loads, Off: 3, Stride: 6}
		need[fl0], need[fl1] = true, true
		return in, out, need, loads
	}
	t.Run("chain", func(t *testing.T) {
		members := family(t, "point", "point")
		in, out, need, loads := chain(t, members)
		checkPlannedRows(t, members, in, out, need, [][]float64{loads}, chunks, true)
	})
	for _, c := range []struct{ m0, m1 string }{{"ground", "point"}, {"point", "ground"}} {
		t.Run("walls "+c.m0+"-"+c.m1, func(t *testing.T) {
			members := family(t, c.m0, c.m1)
			spec := members[0].Spec()
			in := []node.Strided{{Buf: random(3 * (n + 8)), Stride: 3}, {Buf: random(5 * (n + 8)), Off: 2, Stride: 5}}
			// The point's load, the last output (a ground marker has none).
			out, need, bufs := outputsNeeding(spec, n+4, spec.Outputs[len(spec.Outputs)-1].Name)
			checkPlannedRows(t, members, in, out, need, bufs, chunks, true)
		})
	}
	t.Run("not compiled", func(t *testing.T) {
		members := family(t, "point", "point")
		bt := members[0].(node.Batcher).NewBatch(members).(node.BatchPlanner)
		in, out, need, _ := chain(t, members)
		a := &node.BatchArgs{Lo: 1, Hi: 4, In: in, Out: out, Need: need}
		if bt.Plan(node.PhaseOutputs, a) == nil {
			t.Fatal("the chain's loads: Plan compiled nothing")
		}
		if bt.Plan(node.PhaseUpdate, a) != nil || bt.Plan(node.PhaseDerivatives, a) != nil {
			t.Error("Plan compiled an Update or Derivatives call of a stateless connector")
		}
		every := *a
		every.Need = nil
		if bt.Plan(node.PhaseOutputs, &every) != nil {
			t.Error("Plan compiled a call that needs every output; only the loads-only calls are compiled")
		}
		rev := *a
		rev.In = []node.Strided{in[2], in[3], in[0], in[1]}
		if bt.Plan(node.PhaseOutputs, &rev) != nil {
			t.Error("Plan compiled a chain whose marker 1 comes before marker 0 in the state (no chain window)")
		}
	})
}
