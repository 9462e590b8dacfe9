package verification

import (
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/rigidbody"
	"github.com/cosimgo/cosim/nodes/spring"
)

// The geometric spring between a point mass and a rigid body's
// off-centre point: its Jacobian through real markers (analytic for the
// mass, the moment arm through the rigid body's marker maps) against the
// checker's finite differences, and parameter injection with the markers
// kept.
func TestConformanceSpringWithBodies(t *testing.T) {
	mp, err := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{2, 0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	rb, err := rigidbody.New(rigidbody.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	fresh := func(over map[string]any) (node.Node, error) {
		p := spring.DefaultParams()
		p.Stiffness, p.Damping, p.RestLength = 150, 2, 0.5
		n, err := spring.New(p, node.At(mp, [3]float64{}), node.At(rb, [3]float64{0.3, -0.2, 0.1}))
		if err != nil {
			return nil, err
		}
		if len(over) > 0 {
			err = n.SetParams(over)
		}
		return n, err
	}
	n, err := fresh(nil)
	if err != nil {
		t.Fatal(err)
	}
	in := loaded(n.Spec())
	q := n.Spec().InputOffset("m1_orientation")
	copy(in.Values[q:q+4], []float64{0.5, 0.5, -0.5, 0.5})
	rep := CheckConformance(n, fresh, nil, in)
	for _, err := range rep.Violations {
		t.Error(err)
	}
	for _, nt := range rep.Notes {
		t.Log("not checked:", nt)
	}
}
