package control_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/control"
	"github.com/cosimgo/cosim/nodes/source"
	"github.com/cosimgo/cosim/verification"
)

// batchFamily draws the parameters of member i of a family of one block
// type with signals of nc components.
type batchFamily struct {
	typ    string
	params func(rng *rand.Rand, i, nc int) map[string]any
}

// drawn returns a per-component parameter of nc components, or one value
// for all in one draw of three.
func drawn(rng *rand.Rand, nc int, f func() float64) []float64 {
	if nc == 1 || rng.IntN(3) == 0 {
		return []float64{f()}
	}
	v := make([]float64, nc)
	for i := range v {
		v[i] = f()
	}
	return v
}

// batchFamilies are the kernels' families: parameters drawn per member
// so that every branch of every per-row function is taken by some row
// (limits on and off, every switch criterion, lags and derivatives,
// biproper and strictly proper transfer functions), and, for sum and
// product, signs that differ per row.
func batchFamilies() []batchFamily {
	norm := func(rng *rand.Rand, s float64) func() float64 { return func() float64 { return s * rng.NormFloat64() } }
	pos := func(rng *rand.Rand, lo, s float64) func() float64 {
		return func() float64 { return lo + s*rng.Float64() }
	}
	ops := func(rng *rand.Rand, set string) string {
		var b strings.Builder
		for range 3 {
			b.WriteByte(set[rng.IntN(2)])
		}
		return b.String()
	}
	return []batchFamily{
		{"gain", func(rng *rand.Rand, i, nc int) map[string]any {
			return map[string]any{"size": nc, "gain": drawn(rng, nc, norm(rng, 3))}
		}},
		{"gain", func(rng *rand.Rand, i, nc int) map[string]any { // matrix: nc inputs, 2 outputs
			k := make([]float64, 2*nc)
			for j := range k {
				k[j] = rng.NormFloat64()
			}
			return map[string]any{"size": nc, "outputs": 2, "gain": k}
		}},
		{"sum", func(rng *rand.Rand, i, nc int) map[string]any {
			return map[string]any{"size": nc, "signs": ops(rng, "+-")}
		}},
		{"product", func(rng *rand.Rand, i, nc int) map[string]any {
			return map[string]any{"size": nc, "ops": ops(rng, "*/"), "input_units": "1,1,1"}
		}},
		{"saturation", func(rng *rand.Rand, i, nc int) map[string]any {
			return map[string]any{"size": nc, "lower": drawn(rng, nc, pos(rng, -2, 1.9)), "upper": drawn(rng, nc, pos(rng, 0, 2))}
		}},
		{"deadzone", func(rng *rand.Rand, i, nc int) map[string]any {
			return map[string]any{"size": nc, "lower": drawn(rng, nc, pos(rng, -2, 1.9)), "upper": drawn(rng, nc, pos(rng, 0, 2))}
		}},
		{"switch", func(rng *rand.Rand, i, nc int) map[string]any {
			return map[string]any{"size": nc, "criterion": []string{control.CriterionAtLeast, control.CriterionAbove, control.CriterionNonZero}[i%3],
				"threshold": rng.NormFloat64()}
		}},
		{"lag", func(rng *rand.Rand, i, nc int) map[string]any {
			return map[string]any{"size": nc, "gain": drawn(rng, nc, norm(rng, 2)), "time_constant": drawn(rng, nc, pos(rng, 0.01, 2)),
				"initial": drawn(rng, nc, norm(rng, 1))}
		}},
		{"derivative", func(rng *rand.Rand, i, nc int) map[string]any {
			return map[string]any{"size": nc, "gain": drawn(rng, nc, norm(rng, 2)), "time_constant": drawn(rng, nc, pos(rng, 0.01, 2)),
				"initial_input": drawn(rng, nc, norm(rng, 1))}
		}},
		{"integrator", func(rng *rand.Rand, i, nc int) map[string]any {
			return map[string]any{"size": nc, "gain": drawn(rng, nc, norm(rng, 2)), "limit_output": i%2 == 0,
				"lower": drawn(rng, nc, pos(rng, -1, 0.9)), "upper": drawn(rng, nc, pos(rng, 0.1, 1)), "initial": []float64{0}}
		}},
		{"ratelimiter", func(rng *rand.Rand, i, nc int) map[string]any {
			return map[string]any{"size": nc, "rising": drawn(rng, nc, pos(rng, 0.1, 5)), "falling": drawn(rng, nc, pos(rng, 0.1, 5)),
				"time_constant": drawn(rng, nc, pos(rng, 0.001, 0.5)), "initial": drawn(rng, nc, norm(rng, 1))}
		}},
		{"pid", func(rng *rand.Rand, i, nc int) map[string]any {
			return map[string]any{"size": nc, "kp": drawn(rng, nc, norm(rng, 5)), "ki": drawn(rng, nc, norm(rng, 2)), "kd": drawn(rng, nc, norm(rng, 1)),
				"tf": drawn(rng, nc, pos(rng, 0.005, 0.1)), "setpoint_weight": drawn(rng, nc, pos(rng, 0, 1)),
				"derivative_weight": drawn(rng, nc, pos(rng, 0, 1)), "limit_output": i%3 != 0,
				"lower": drawn(rng, nc, pos(rng, -2, 1.9)), "upper": drawn(rng, nc, pos(rng, 0, 2)), "kb": drawn(rng, nc, pos(rng, 0, 3)),
				"retune_time": drawn(rng, nc, pos(rng, 0.01, 1)), "initial_integral": drawn(rng, nc, norm(rng, 1)),
				"initial_filter_input": drawn(rng, nc, norm(rng, 1))}
		}},
		{"transferfunction", func(rng *rand.Rand, i, nc int) map[string]any { // order nc + 1
			den := []float64{0.5 + rng.Float64()}
			for range nc + 1 {
				den = append(den, 0.1+3*rng.Float64())
			}
			num := make([]float64, 1+rng.IntN(nc+2)) // proper; biproper when nc + 2 coefficients
			for j := range num {
				num[j] = rng.NormFloat64()
			}
			return map[string]any{"numerator": num, "denominator": den}
		}},
		{"statespace", func(rng *rand.Rand, i, nc int) map[string]any { // 2 states, nc inputs, 2 outputs
			v := func(k int) []float64 {
				m := make([]float64, k)
				for j := range m {
					m[j] = rng.NormFloat64()
				}
				return m
			}
			a := v(4)
			a[0], a[3] = -1-rng.Float64(), -2-rng.Float64()
			return map[string]any{"a": a, "b": v(2 * nc), "c": v(4), "d": v(2 * nc), "initial": v(2)}
		}},
	}
}

// TestBatchKernelsMatchMembers holds the kernel of every block type with
// one (each family, with 1 and 3 components) to its members' own
// Update, Outputs and Derivatives with verification.CheckBatch: random
// states, inputs (non-finite ones included), steps (invalid ones
// included), layouts, Need masks and chunkings, then again after
// SetParams on every member (a kernel must see it), and the batch's
// lifetime. The reference is each member's own method on its row; the
// tolerance is zero (bit for bit), since a graph may run either path.
// It lives here, beside verification's test over every node type, so
// that mutation testing of this package sees batch.go exercised.
func TestBatchKernelsMatchMembers(t *testing.T) {
	reg := registry(t)
	for fi, fam := range batchFamilies() {
		for _, nc := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/%d/%d", fam.typ, fi, nc), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(fi), uint64(nc)))
				members := make([]node.Node, 13)
				for i := range members {
					m, err := reg.New(fam.typ, fam.params(rng, i, nc))
					if err != nil {
						t.Fatal(err)
					}
					members[i] = m
				}
				for _, err := range verification.CheckBatch(members, verification.BatchOptions{Seed: uint64(31*fi + nc), Trials: 6}) {
					t.Error(err)
				}
			})
		}
	}
}

// TestBatchUniformRows: a family of equal members reads one row (the
// rows are uniform) until SetParams makes one differ, and the kernel
// follows both; CheckBatch's default perturbation makes rows differ, so
// here the members start equal and one is changed by hand.
func TestBatchUniformRows(t *testing.T) {
	reg := registry(t)
	members := make([]node.Node, 9)
	for i := range members {
		m, err := reg.New("pid", map[string]any{"kp": 2.0, "ki": 1.0, "kd": 0.5})
		if err != nil {
			t.Fatal(err)
		}
		members[i] = m
	}
	errs := verification.CheckBatch(members, verification.BatchOptions{Seed: 5, Trials: 4, Perturb: func(i int, n node.Node) error {
		if i != 4 {
			return nil
		}
		return n.(node.Tunable).SetParams(map[string]any{"kp": -0.0, "ki": 3.0})
	}})
	for _, err := range errs {
		t.Error(err)
	}
}

// loopGraph is n feedback loops of kernel-bearing blocks: a sine
// reference into a PID whose output is saturated, filtered by a strictly
// proper transfer function and measured through a lag (which breaks the
// algebraic loop), with a gain and an integrator on the side.
func loopGraph(t *testing.T, n int) (*graph.Graph, []node.Node) {
	t.Helper()
	reg := registry(t)
	g := graph.New()
	var tuned []node.Node
	add := func(name, typ string, p map[string]any) node.Node {
		b, err := reg.New(typ, p)
		if err != nil {
			t.Fatal(err)
		}
		g.Add(name, b)
		return b
	}
	for i := range n {
		pre := fmt.Sprintf("l%d_", i)
		ref, err := source.NewSine(source.SineParams{Amplitude: []float64{1}, Omega: []float64{2 + 0.1*float64(i)}})
		if err != nil {
			t.Fatal(err)
		}
		g.Add(pre+"ref", ref)
		tuned = append(tuned,
			add(pre+"pid", "pid", map[string]any{"kp": 3.0, "ki": 2.0, "kd": 0.2, "limit_output": true, "lower": -2.0, "upper": 2.0}),
			add(pre+"tf", "transferfunction", map[string]any{"numerator": []float64{2}, "denominator": []float64{1, 1.5, 2}}))
		add(pre+"sat", "saturation", map[string]any{"lower": -1.5, "upper": 1.5})
		add(pre+"sensor", "lag", map[string]any{"time_constant": 0.02})
		add(pre+"gain", "gain", map[string]any{"gain": 0.5})
		add(pre+"int", "integrator", map[string]any{"limit_output": true, "lower": -0.2, "upper": 0.2})
		g.Connect(pre+"ref.value", pre+"pid.reference")
		g.Connect(pre+"sensor.out", pre+"pid.measurement")
		g.Connect(pre+"pid.out", pre+"sat.in")
		g.Connect(pre+"sat.out", pre+"tf.in")
		g.Connect(pre+"tf.out", pre+"sensor.in")
		g.Connect(pre+"tf.out", pre+"gain.in")
		g.Connect(pre+"gain.out", pre+"int.in")
	}
	return g, tuned
}

// TestBatchSeesSetParamsMidRun: a graph of control loops stepped by the
// batched engine (the blocks in families) and on the per-node path
// (SetBatching(false), the reference) ends in the same bits, in
// co-simulation and in a monolithic RK4 run (the Derivatives kernels),
// including when SetParams changes a PID's gains and a transfer
// function's numerator between two runs of the same Sim: the kernels
// read the members' published parameters, so they see the change as
// the per-node path does. The change is real: the state differs from a
// run without it.
func TestBatchSeesSetParamsMidRun(t *testing.T) {
	const n = 12
	rk4, err := integrators.ByName("rk4")
	if err != nil {
		t.Fatal(err)
	}
	for _, mono := range []bool{false, true} {
		run := func(batching, tune bool) ([]float64, *graph.Sim) {
			g, tuned := loopGraph(t, n)
			s, err := g.Build()
			if err != nil {
				t.Fatal(err)
			}
			s.SetBatching(batching)
			step := func() {
				var err error
				if mono {
					_, err = s.RunMonolithic(context.Background(), rk4, nil, graph.Settings{Dt: 1e-3, Steps: 300})
				} else {
					_, err = s.Run(context.Background(), graph.Settings{Dt: 1e-3, Steps: 300})
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			step()
			if tune {
				for i, b := range tuned {
					p := map[string]any{"kp": 5.0 + float64(i), "ki": -1.0}
					if i%2 == 1 {
						p = map[string]any{"numerator": []float64{1 + 0.1*float64(i)}}
					}
					if err := b.(node.Tunable).SetParams(p); err != nil {
						t.Fatal(err)
					}
				}
			}
			step()
			return s.State(nil), s
		}
		got, s := run(true, true)
		fams := map[string]int{}
		for _, f := range s.Families() {
			fams[f.Type] += len(f.Nodes)
		}
		for _, typ := range []string{"pid", "transferfunction", "saturation", "lag", "gain", "integrator"} {
			if fams[typ] != n {
				t.Errorf("monolithic %v: %d %s blocks in families, want %d", mono, fams[typ], typ, n)
			}
		}
		want, _ := run(false, true)
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("monolithic %v: state[%d] = %v batched, %v per node", mono, i, got[i], want[i])
			}
		}
		if untuned, _ := run(true, false); slices.Equal(untuned, got) {
			t.Errorf("monolithic %v: SetParams changed nothing", mono)
		}
	}
}

// kernelAgrees runs the kernel of members and the members' own Update,
// Outputs and Derivatives at the inputs in (row i's packed as its
// node.Inputs.Values, every input present) from their initial states,
// and reports every difference in bits or in failing.
func kernelAgrees(t *testing.T, members []node.Node, in [][]float64) {
	t.Helper()
	s := members[0].Spec()
	nx, ny, rows := s.StateLayout.Size(), s.OutputLayout.Size(), len(members)
	b := members[0].(node.Batcher).NewBatch(members)
	a := &node.BatchArgs{T: 0.1, Dt: 0.01, Lo: 0, Hi: rows,
		X: node.Strided{Buf: make([]float64, rows*nx), Stride: nx}, Dst: node.Strided{Buf: make([]float64, rows*nx), Stride: nx},
		Out: []node.Strided{{Buf: make([]float64, rows*ny), Stride: ny}}}
	for i, m := range members {
		m.InitialState(a.X.Row(i, nx))
	}
	off := 0
	for _, f := range s.Inputs {
		k := f.Shape.Len()
		v := make([]float64, rows*k)
		for i := range rows {
			copy(v[i*k:], in[i][off:off+k])
		}
		a.In = append(a.In, node.Strided{Buf: v, Stride: k})
		a.Present = append(a.Present, true)
		off += k
	}
	type method struct {
		name   string
		kernel func() error
		member func(m node.Node, x []float64, in node.Inputs, dst []float64) error
		dst    node.Strided
		n      int
	}
	var ms []method
	if u, ok := b.(node.BatchUpdater); ok {
		ms = append(ms, method{"Update", func() error { return u.Update(a) },
			func(m node.Node, x []float64, in node.Inputs, dst []float64) error {
				return m.Update(a.T, a.Dt, x, in, dst)
			}, a.Dst, nx})
	}
	if o, ok := b.(node.BatchOutputter); ok {
		ms = append(ms, method{"Outputs", func() error { return o.Outputs(a) },
			func(m node.Node, x []float64, in node.Inputs, dst []float64) error {
				return m.(node.Outputter).Outputs(a.T, x, in, dst)
			}, a.Out[0], ny})
	}
	if d, ok := b.(node.BatchDeriver); ok {
		ms = append(ms, method{"Derivatives", func() error { return d.Derivatives(a) },
			func(m node.Node, x []float64, in node.Inputs, dst []float64) error {
				return m.(node.Deriver).Derivatives(a.T, x, in, dst)
			}, a.Dst, nx})
	}
	for _, meth := range ms {
		kerr := meth.kernel()
		var merr error
		for i, m := range members {
			want := make([]float64, meth.n)
			nin := m.Spec().DefaultInputs()
			copy(nin.Values, in[i])
			for j := range nin.Present {
				nin.Present[j] = true
			}
			if err := meth.member(m, a.X.Row(i, nx), nin, want); err != nil {
				merr = err
				continue
			}
			if kerr != nil {
				continue
			}
			got := meth.dst.Row(i, meth.n)
			for k := range want {
				if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
					t.Errorf("%s row %d [%d]: kernel %v, member %v", meth.name, i, k, got[k], want[k])
				}
			}
		}
		if (kerr != nil) != (merr != nil) {
			t.Errorf("%s: kernel error %v, member error %v", meth.name, kerr, merr)
		}
	}
}

// Edge cases random draws do not reach: an integrator's reset input
// exactly at the threshold (reset) and just below it (not), on one row
// each; a product whose first input, a divisor, is exactly 0 on one row
// (the kernel must fail as the member does) and not on another.
func TestBatchEdgeCases(t *testing.T) {
	reg := registry(t)
	build := func(typ string, p map[string]any, n int) []node.Node {
		out := make([]node.Node, n)
		for i := range out {
			m, err := reg.New(typ, p)
			if err != nil {
				t.Fatal(err)
			}
			out[i] = m
		}
		return out
	}
	below := math.Nextafter(control.ResetThreshold, 0)
	ints := build("integrator", map[string]any{"gain": 2.0, "initial": 0.25}, 2)
	kernelAgrees(t, ints, [][]float64{{1, control.ResetThreshold}, {1, below}})
	kernelAgrees(t, build("product", map[string]any{"ops": "/*", "input_units": "1,1"}, 2), [][]float64{{2, 3}, {-1, 4}})
	kernelAgrees(t, build("product", map[string]any{"ops": "/*", "input_units": "1,1"}, 2), [][]float64{{2, 3}, {0, 4}})
	kernelAgrees(t, build("switch", map[string]any{"threshold": 0.5}, 2), [][]float64{{1, 0.5, 2}, {1, below, 2}})
}
