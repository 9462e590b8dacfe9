package control_test

import (
	"testing"

	"github.com/cosimgo/cosim/node"
)

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
	cases := conformanceCases
	for _, name := range reg.Names() {
		cases = append(cases, conformanceCase{name: name + " default", typ: name})
	}
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
