package control_test

import (
	"slices"
	"testing"

	"github.com/cosimgo/cosim/node"
)

// allocCases are conformanceCases and every type's defaults.
func allocCases(reg *node.Registry) []conformanceCase {
	cases := slices.Clone(conformanceCases)
	for _, name := range reg.Names() {
		cases = append(cases, conformanceCase{name: name + " default", typ: name})
	}
	return cases
}

// The per-step methods of every block allocate nothing: Update, Outputs,
// Derivatives, the Jacobians, the event values and the time events, on
// every configuration of conformanceCases and the registry's defaults.
// (The transfer-function and state-space Update computes its
// discretization on the first step of each length; the warm-up call
// pays for it.)
func TestNoAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	reg := registry(t)
	cases := allocCases(reg)
	for _, c := range cases {
		n, err := reg.New(c.typ, c.params)
		if err != nil {
			t.Fatal(err)
		}
		s := n.Spec()
		nx, nu, ny := s.StateLayout.Size(), s.InputLayout.Size(), s.OutputLayout.Size()
		x, dst := make([]float64, nx), make([]float64, nx)
		n.InitialState(x)
		in := s.DefaultInputs()
		for j := range in.Values {
			in.Values[j] = 0.1 * float64(j+1)
		}
		y, jx, ju, jy := make([]float64, ny), make([]float64, nx*nx), make([]float64, nx*nu), make([]float64, ny*nu)
		ev := make([]float64, len(s.Events))
		type call struct {
			name string
			f    func()
		}
		calls := []call{{"Update", func() { n.Update(0.05, 1e-3, x, in, dst) }}}
		if o, ok := n.(node.Outputter); ok {
			calls = append(calls, call{"Outputs", func() { o.Outputs(0.05, x, in, y) }})
		}
		if d, ok := n.(node.Deriver); ok {
			calls = append(calls, call{"Derivatives", func() { d.Derivatives(0.05, x, in, dst) }})
		}
		if j, ok := n.(node.InputJacobian); ok {
			calls = append(calls, call{"DerivativesJacobian", func() { j.DerivativesJacobian(0.05, x, in, jx, ju) }})
		}
		if j, ok := n.(node.OutputJacobian); ok {
			calls = append(calls, call{"OutputsJacobian", func() { j.OutputsJacobian(0.05, x, in, jy) }})
		}
		if e, ok := n.(node.Eventer); ok {
			calls = append(calls, call{"EventValues", func() { e.EventValues(0.05, x, in, ev) }})
		}
		if te, ok := n.(node.TimeEventer); ok {
			calls = append(calls, call{"TimeEvents", func() { te.TimeEvents(0.05) }})
		}
		for _, call := range calls {
			call.f() // warm-up
			if a := testing.AllocsPerRun(100, call.f); a != 0 {
				t.Errorf("%s: %s allocates %v times per call", c.name, call.name, a)
			}
		}
	}
}

// The batch kernels allocate nothing either: Update, Outputs and
// Derivatives of a family of five members of every configuration above
// that has a kernel, after a warm-up call (the linear blocks'
// discretization).
func TestBatchKernelsAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	reg := registry(t)
	cases := allocCases(reg)
	const rows = 5
	kernels := 0
	for _, c := range cases {
		members := make([]node.Node, rows)
		for i := range members {
			n, err := reg.New(c.typ, c.params)
			if err != nil {
				t.Fatal(err)
			}
			members[i] = n
		}
		bt, ok := members[0].(node.Batcher)
		if !ok {
			continue
		}
		kernels++
		b := bt.NewBatch(members)
		s := members[0].Spec()
		nx, ny := s.StateLayout.Size(), s.OutputLayout.Size()
		a := &node.BatchArgs{T: 0.05, Dt: 1e-3, Lo: 0, Hi: rows,
			X: node.Strided{Buf: make([]float64, rows*nx), Stride: nx}, Dst: node.Strided{Buf: make([]float64, rows*nx), Stride: nx}}
		for i, m := range members {
			m.InitialState(a.X.Row(i, nx))
		}
		in := s.DefaultInputs()
		a.Present = in.Present
		for _, f := range s.Inputs {
			k := f.Shape.Len()
			v := make([]float64, rows*k)
			for j := range v {
				v[j] = 0.1 * float64(j+1)
			}
			a.In = append(a.In, node.Strided{Buf: v, Stride: k})
		}
		for f := range s.Outputs {
			a.Out = append(a.Out, node.Strided{Buf: make([]float64, rows*ny), Off: s.OutputLayout.Offset(f), Stride: ny})
		}
		var calls []func() error
		if u, ok := b.(node.BatchUpdater); ok {
			calls = append(calls, func() error { return u.Update(a) })
		}
		if o, ok := b.(node.BatchOutputter); ok {
			calls = append(calls, func() error { return o.Outputs(a) })
		}
		if d, ok := b.(node.BatchDeriver); ok {
			calls = append(calls, func() error { return d.Derivatives(a) })
		}
		for k, call := range calls {
			if err := call(); err != nil { // warm-up
				t.Fatalf("%s: kernel call %d: %v", c.name, k, err)
			}
			if n := testing.AllocsPerRun(100, func() { call() }); n != 0 {
				t.Errorf("%s: kernel call %d (Update, Outputs, Derivatives in that order, those it has) allocates %v times", c.name, k, n)
			}
		}
	}
	if kernels < 13 {
		t.Errorf("%d configurations with a kernel; every block type but the sampled ones has one", kernels)
	}
}
