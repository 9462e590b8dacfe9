package springdamper_test

import (
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// wideBody is a body whose marker carries many values: a point (position
// and velocity, the last six marker values) after a field of blob values
// the marker ignores, and a load input of bulk values after its force.
// It tests the connector at the limit of its packed indices.
type wideBody struct {
	spec       *node.Spec
	blob, bulk int
}

func newWideBody(blob, bulk int) *wideBody {
	return &wideBody{blob: blob, bulk: bulk, spec: node.NewSpec(node.Spec{
		Type: "wide",
		State: []node.Field{
			{Name: "blob", Shape: node.Vec(blob), Description: "values the marker carries but ignores"},
			{Name: "position", Shape: node.Vec(3), Units: "m", Role: node.Position, Rate: "velocity", Description: "position"},
			{Name: "velocity", Shape: node.Vec(3), Units: "m/s", Role: node.Velocity, Description: "velocity"},
		},
		Inputs: []node.Input{
			{Name: "force", Shape: node.Vec(3), Units: "N", Combine: node.Additive, Default: make([]float64, 3), Description: "force"},
			{Name: "bulk", Shape: node.Vec(bulk), Units: "N", Combine: node.Additive, Default: make([]float64, bulk), Description: "a load the marker leaves zero"},
		},
	})}
}

func (b *wideBody) Spec() *node.Spec           { return b.spec }
func (b *wideBody) InitialState(dst []float64) { clear(dst) }
func (b *wideBody) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	copy(dst, x)
	return nil
}
func (b *wideBody) MarkerFields() []string { return []string{"blob", "position", "velocity"} }
func (b *wideBody) MarkerLoads() []string  { return []string{"force", "bulk"} }
func (b *wideBody) MarkerKinematics(x []float64, local [3]float64, pos, vel *[3]float64) {
	copy(pos[:], x[b.blob:b.blob+3])
	copy(vel[:], x[b.blob+3:b.blob+6])
}
func (b *wideBody) MarkerLoad(x []float64, local [3]float64, f [3]float64, dst []float64) {
	clear(dst)
	copy(dst, f[:])
}
func (b *wideBody) MarkerJacobian(x []float64, local [3]float64, dst []float64) {
	clear(dst)
	n := len(x)
	for i := range 3 {
		dst[i*n+b.blob+i] = 1
	}
}

// The connector packs its markers' first input and output indices into
// 16 bits and refuses (panics on) a body layout past them. The largest
// index the packing holds, 65535, must still be accepted: marker 0 on a
// wide body with 65535 marker values (so marker 1's fields start at input
// 65535) and 65524 load values (marker 1's load starts at output 11 +
// 65524 = 65535, after displacement, distance, velocity, force and
// potential energy), marker 1 on a point mass. The connector then pulls
// the mass towards the wide body's point like any other: with k = 10 N/m
// on x and the mass 2 m further along x, the load on the mass is
// −k·Δp = −20 N (Outputs' −f on marker 1).
func TestWidestMarkerIndices(t *testing.T) {
	const blob, bulk = 65535 - 6, 65524 - 3
	p := springdamper.DefaultParams()
	p.Stiffness, p.Damping = [3]float64{10, 0, 0}, [3]float64{}
	m := newMass(t, 1, [3]float64{}, [3]float64{})
	n, err := springdamper.New(p, node.At(newWideBody(blob, bulk), [3]float64{}), node.At(m, [3]float64{}))
	if err != nil {
		t.Fatal(err)
	}
	s := n.Spec()
	if got := s.InputOffset("m1_position"); got != 65535 {
		t.Fatalf("m1_position at input %d, want 65535 (the test's premise)", got)
	}
	if got := s.OutputOffset("m1_force"); got != 65535 {
		t.Fatalf("m1_force at output %d, want 65535 (the test's premise)", got)
	}
	in := s.DefaultInputs()
	in.Values[s.InputOffset("m1_position")] = 2
	dst := make([]float64, s.OutputLayout.Size())
	if err := n.Outputs(0, nil, in, dst); err != nil {
		t.Fatal(err)
	}
	if got := dst[s.OutputOffset("m1_force")]; got != -20 {
		t.Errorf("load on the mass = %v N, want −20 N", got)
	}
}
