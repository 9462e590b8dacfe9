package table_test

import (
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/table"
)

// TestDraw: a horizontal plane at the table's height, TableSizes body
// sizes wide by default, in the ground color.
func TestDraw(t *testing.T) {
	n, err := table.New(table.Params{Position: -0.5})
	if err != nil {
		t.Fatal(err)
	}
	set := node.DefaultDrawSettings()
	got := n.Draw(nil, node.Inputs{}, &set, nil)
	a := table.TableSizes * set.BodySize
	if len(got) != 1 || got[0].Kind != node.Plane || got[0].P != [3]float64{0, -0.5, 0} || got[0].Size != [3]float64{a, 0, a} || got[0].Color != set.GroundColor {
		t.Errorf("%+v", got)
	}
}
