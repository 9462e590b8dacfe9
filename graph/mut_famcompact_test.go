package graph_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// gen is a node with a batch kernel, written for the family and compact
// output tests: one state x, two outputs y = x and z = −x, and two
// additive inputs u
// and w, stepped by x⁺ = x + Δt·(u + 2w). Its type name and batch key are
// chosen per node, so a test lays out families as it likes (nodes of one
// type and key with affine offsets form one family). Its kernel adds the
// two terms of u itself (node.BatchPairAdder) and says so for u only: its
// PairInputs is shorter than its inputs, which the contract allows (it
// reports, per input, whether the kernel takes it as a pair; an input
// past its end is not taken).
type gen struct {
	spec *node.Spec
	key  string
	x0   float64
	// nanAt > 0: from t = nanAt on, the output y is NaN (a node that
	// fails mid-run); sat: the rate u saturates at 1 (if !(u < 1), u = 1),
	// so a NaN u does not reach the state.
	nanAt float64
	sat   bool
}

func newGen(typ, key string, x0 float64) *gen {
	return &gen{key: key, x0: x0, spec: node.NewSpec(node.Spec{
		Type:  typ,
		State: []node.Field{{Name: "x", Units: "m", Description: "position"}},
		Inputs: []node.Input{
			{Name: "u", Units: "m/s", Description: "rate", Combine: node.Additive, Default: []float64{0}},
			{Name: "w", Units: "m/s", Description: "half rate", Combine: node.Additive, Default: []float64{0}},
		},
		Outputs: []node.Field{
			{Name: "y", Units: "m/s", Description: "the state, as a rate"},
			{Name: "z", Units: "m/s", Description: "the state negated, as a rate"},
		},
	})}
}

func (n *gen) Spec() *node.Spec           { return n.spec }
func (n *gen) InitialState(dst []float64) { dst[0] = n.x0 }
func (n *gen) BatchKey() string           { return n.key }
func (n *gen) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = n.step(dt, x[0], in.Values[0], in.Values[1])
	return nil
}
func (n *gen) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0], dst[1] = n.y(t, x[0]), -x[0]
	return nil
}

// step and y are what Update, Outputs and the kernel compute.
func (n *gen) step(dt, x, u, w float64) float64 {
	if n.sat && !(u < 1) {
		u = 1
	}
	return x + dt*(u+2*w)
}

func (n *gen) y(t, x float64) float64 {
	if n.nanAt > 0 && t >= n.nanAt {
		return math.NaN()
	}
	return x
}

func (n *gen) NewBatch(members []node.Node) node.Batch {
	b := genBatch{rows: make([]*gen, len(members))}
	for i, m := range members {
		b.rows[i] = m.(*gen)
	}
	return b
}

// genBatch computes exactly what gen's Update and Outputs compute, row
// by row (u's two terms added first to second, as the per-node gather
// sums them).
type genBatch struct{ rows []*gen }

func (genBatch) PairInputs() []bool { return []bool{true} }
func (b genBatch) Update(a *node.BatchArgs) error {
	for i := a.Lo; i < a.Hi; i++ {
		u := a.In[0].Row(i, 1)[0]
		if a.In2 != nil && a.In2[0].Buf != nil {
			u += a.In2[0].Row(i, 1)[0]
		}
		a.Dst.Row(i, 1)[0] = b.rows[i].step(a.Dt, a.X.Row(i, 1)[0], u, a.In[1].Row(i, 1)[0])
	}
	return nil
}
func (b genBatch) Outputs(a *node.BatchArgs) error {
	for i := a.Lo; i < a.Hi; i++ {
		if a.Needs(0) {
			a.Out[0].Row(i, 1)[0] = b.rows[i].y(a.T, a.X.Row(i, 1)[0])
		}
		if a.Needs(1) {
			a.Out[1].Row(i, 1)[0] = -a.X.Row(i, 1)[0]
		}
	}
	return nil
}

// batchedMatchesPerNode builds the graph twice, runs it batched and per
// node (SetBatching(false), where every node runs its own Update and
// Outputs), records every node's x, and fails unless the runs agree bit
// for bit (the engine's determinism contract: the batched engine computes
// exactly what the per-node path does). It returns the batched Sim's
// families, for the test to check that the layout it meant was formed.
func batchedMatchesPerNode(t *testing.T, build func() *graph.Graph, names []string) []graph.Family {
	t.Helper()
	var rec []string
	for _, n := range names {
		rec = append(rec, n+".x")
	}
	var fams []graph.Family
	run := func(batched bool) [][]float64 {
		s, err := build().Build()
		if err != nil {
			t.Fatal(err)
		}
		s.SetBatching(batched)
		if batched {
			fams = s.Families()
		}
		res, err := s.Run(context.Background(), graph.Settings{Dt: 0.125, Steps: 4, Record: rec})
		if err != nil {
			t.Fatalf("batched=%v: %v", batched, err)
		}
		return res.History.Rows
	}
	want, got := run(false), run(true)
	for r := range want {
		for c := range want[r] {
			if math.Float64bits(got[r][c]) != math.Float64bits(want[r][c]) {
				t.Errorf("row %d, %s: batched %v, per node %v", r, rec[c], got[r][c], want[r][c])
			}
		}
	}
	return fams
}

// TestFamilyShortPairInputs: a family whose kernel's PairInputs lists
// fewer inputs than its Spec (here u only, of u and w) takes u as a pair
// when u has two terms and sums w itself; Build must not read past the
// list, and the batched run gives the per-node bits. Sources s1 and s2
// (type "src") feed both rows' u; s3 feeds their w. The closed form,
// with every source constant (nothing feeds them): each g's x grows by
// Δt·(s1 + s2 + 2·s3) per step.
func TestFamilyShortPairInputs(t *testing.T) {
	build := func() *graph.Graph {
		g := graph.New()
		g.Add("s1", newGen("src1", "", 1))
		g.Add("s2", newGen("src2", "", 2))
		g.Add("s3", newGen("src3", "", 3))
		g.Add("g1", newGen("gen", "", 0))
		g.Add("g2", newGen("gen", "", 0.5))
		for _, d := range []string{"g1", "g2"} {
			g.Connect("s1.y", d+".u")
			g.Connect("s2.y", d+".u")
			g.Connect("s3.y", d+".w")
		}
		return g
	}
	names := []string{"s1", "s2", "s3", "g1", "g2"}
	fams := batchedMatchesPerNode(t, build, names)
	if !hasFamily(fams, "gen", "g1", "g2") {
		t.Fatalf("families %v: want g1 and g2 in one family", fams)
	}
	s, err := build().Build()
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), graph.Settings{Dt: 0.125, Steps: 4, Record: []string{"g1.x", "g2.x"}})
	if err != nil {
		t.Fatal(err)
	}
	last := res.History.Rows[len(res.History.Rows)-1]
	// 4 steps of 0.125 s at rate 1 + 2 + 2·3 = 9: +4.5, exact in binary.
	if last[0] != 4.5 || last[1] != 5 {
		t.Errorf("g1.x, g2.x after 4 steps = %v, want [4.5 5] (x0 + 4·0.125·9)", last)
	}
}

func hasFamily(fams []graph.Family, typ string, nodes ...string) bool {
	for _, f := range fams {
		if f.Type == typ && fmt.Sprint(f.Nodes) == fmt.Sprint(nodes) {
			return true
		}
	}
	return false
}

// TestCompactWriterNotAffine: compactOutputs moves an output field to
// the compact columns only if its writer family's rows stay affine
// there. Family a (a1, a2, a3; one value of state and two of output each, so
// their outputs sit 4 apart in Sim.outputs) is interleaved with b1,
// whose output a family reads (it moves), and c1, whose output nobody
// reads (it stays): in the compact columns a's rows would sit at 0, 2, 3,
// not affine, so a's output must stay in Sim.outputs (the compact
// columns hold b1.y alone). Each row of a is
// read by a reader of its own batch key (r1, r2, r3: one-row families,
// trivially affine), so only the writer's check can see it. Expected:
// the batched run's bits equal the per-node run's, and r_i.x grows by
// Δt·a_i.x per step (a's x is constant: nothing feeds it).
func TestCompactWriterNotAffine(t *testing.T) {
	build := func() *graph.Graph { return writerNotAffine(0) }
	names := []string{"a1", "b1", "a2", "c1", "a3", "rb", "r1", "r2", "r3"}
	fams := batchedMatchesPerNode(t, build, names)
	if !hasFamily(fams, "a", "a1", "a2", "a3") {
		t.Fatalf("families %v: want a1, a2, a3 in one family", fams)
	}
	s, err := build().Build()
	if err != nil {
		t.Fatal(err)
	}
	if got := s.CompactLen(); got != 1 {
		t.Errorf("compact columns hold %d values, want 1 (b1.y only)", got)
	}
}

// writerNotAffine is TestCompactWriterNotAffine's graph; with nanAt > 0,
// a2's output y turns NaN from t = nanAt on, and r2 saturates its rate
// (a NaN rate then does not reach its state).
func writerNotAffine(nanAt float64) *graph.Graph {
	g := graph.New()
	g.Add("a1", newGen("a", "", 1))
	g.Add("b1", newGen("b", "", 10))
	a2 := newGen("a", "", 2)
	a2.nanAt = nanAt
	g.Add("a2", a2)
	g.Add("c1", newGen("c", "", 20))
	g.Add("a3", newGen("a", "", 3))
	g.Add("rb", newGen("r", "b", 0))
	for i := 1; i <= 3; i++ {
		r := fmt.Sprintf("r%d", i)
		rn := newGen("r", r, 0)
		rn.sat = i == 2 && nanAt > 0
		g.Add(r, rn)
		g.Connect(fmt.Sprintf("a%d.y", i), r+".u")
	}
	g.Connect("b1.y", "rb.u")
	return g
}

// TestNonFiniteOutputReadByFamily: a non-finite output is an error
// naming its node, field and time (the per-node path checks every output
// it evaluates), and the batched engine must report the same: an output
// that only families read is checked where a family reads it, then the
// step is replayed per node to name it. Here a2.y (left in Sim.outputs,
// see TestCompactWriterNotAffine) turns NaN at t = 0.25 and its reader r2
// saturates its rate, so the NaN never reaches a state: only the check at
// the read can see it. Both runs must fail with the same error, a
// node.StateError for a2's output y at t = 0.25.
func TestNonFiniteOutputReadByFamily(t *testing.T) {
	run := func(batched bool) error {
		s, err := writerNotAffine(0.25).Build()
		if err != nil {
			t.Fatal(err)
		}
		s.SetBatching(batched)
		_, err = s.Run(context.Background(), graph.Settings{Dt: 0.125, Steps: 4})
		return err
	}
	want, got := run(false), run(true)
	var se *node.StateError
	if !errors.As(want, &se) || !errors.Is(want, node.ErrNonFinite) || !strings.Contains(want.Error(), "a2") {
		t.Fatalf("per node: %v; want a non-finite StateError naming a2", want)
	}
	if got == nil || got.Error() != want.Error() {
		t.Errorf("batched: %v; want the per-node error %v", got, want)
	}
}

// TestCompactReaderNotAffine: the reader's side of the same rule. a1, a2
// and a3 are one-row families (each its own batch key, so their own
// rows are trivially affine) whose second output field z (offsets 1, 5,
// 9 in Sim.outputs, two values per node) one family r (r1, r2, r3) reads
// with a stride of 4. b1's z, read by the family rb, sits between a1's
// and a2's; c1's, read by nobody, between a2's and a3's. In the compact
// columns the reader's rows would sit at 0, 2, 3: not affine, so every
// source field of that input (a1.z, a2.z, a3.z; a1 is the first family)
// must stay in Sim.outputs, leaving b1.z alone in the compact columns.
// Expected: the batched run's bits equal the per-node run's (r_i.x falls
// by Δt·a_i.x per step: its rate is a_i.z = −a_i.x).
func TestCompactReaderNotAffine(t *testing.T) {
	build := func() *graph.Graph {
		g := graph.New()
		g.Add("a1", newGen("a", "1", 1))
		g.Add("b1", newGen("b", "", 10))
		g.Add("a2", newGen("a", "2", 2))
		g.Add("c1", newGen("c", "", 20))
		g.Add("a3", newGen("a", "3", 3))
		g.Add("rb", newGen("rb", "", 0))
		for i := 1; i <= 3; i++ {
			r := fmt.Sprintf("r%d", i)
			g.Add(r, newGen("r", "", 0))
			g.Connect(fmt.Sprintf("a%d.z", i), r+".u")
		}
		g.Connect("b1.z", "rb.u")
		return g
	}
	names := []string{"a1", "b1", "a2", "c1", "a3", "rb", "r1", "r2", "r3"}
	fams := batchedMatchesPerNode(t, build, names)
	if !hasFamily(fams, "r", "r1", "r2", "r3") || !hasFamily(fams, "a", "a1") {
		t.Fatalf("families %v: want r1, r2, r3 in one family and a1 in its own", fams)
	}
	s, err := build().Build()
	if err != nil {
		t.Fatal(err)
	}
	if got := s.CompactLen(); got != 1 {
		t.Errorf("compact columns hold %d values, want 1 (b1.z only)", got)
	}
	res, err := s.Run(context.Background(), graph.Settings{Dt: 0.125, Steps: 4, Record: []string{"r1.x", "r2.x", "r3.x"}})
	if err != nil {
		t.Fatal(err)
	}
	// 4 steps of 0.125 s at rate −a_i.x: −0.5·a_i.x, exact in binary.
	if last := res.History.Rows[len(res.History.Rows)-1]; last[0] != -0.5 || last[1] != -1 || last[2] != -1.5 {
		t.Errorf("r1.x, r2.x, r3.x after 4 steps = %v, want [-0.5 -1 -1.5]", last)
	}
}
