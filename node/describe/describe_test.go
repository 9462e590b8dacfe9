package describe_test

import (
	"encoding/json"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/node/describe"
)

type stub struct {
	node.Stateless
	spec *node.Spec
}

func (s stub) Spec() *node.Spec { return s.spec }

// A Description survives a JSON round trip into Go values.
func TestDescriptionJSONRoundTrip(t *testing.T) {
	s := node.NewSpec(node.Spec{Type: "a",
		State:  []node.Field{{Name: "x", Units: "m", Role: node.Position, Rate: "v"}, {Name: "v", Units: "m/s", Role: node.Velocity}},
		Params: []node.Param{{Name: "a", Kind: node.Real, Default: 1.0}, {Name: "b", Kind: node.Bool, Default: true}, {Name: "c", Kind: node.Vector, Shape: node.Vec(3), Default: []float64{0, 0, 0}}},
		Inputs: []node.Input{{Name: "f", Units: "N", Combine: node.Replacing, Absent: true}},
		Events: []node.Event{{Name: "contact", Direction: -1}},
		Meta:   node.Metadata{Stability: node.Deprecated}})
	d := describe.Of(stub{spec: s})
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var back describe.Description
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.State[0].Role != node.Position || back.Inputs[0].Combine != node.Replacing || back.Inputs[0].Coupling != node.Replacing ||
		back.Metadata.Stability != node.Deprecated || back.Params[2].Kind != node.Vector || back.Events[0].Direction != -1 {
		t.Errorf("round trip lost values: %+v", back)
	}
	var r node.Role
	if err := r.UnmarshalText([]byte("spin")); err == nil {
		t.Error("unknown role accepted")
	}
}
