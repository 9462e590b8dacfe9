package graph

import (
	"math"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/cosimgo/cosim/node"
)

// TestEdgesRoundTrip connects edges of every kind a user can write and
// checks that Edges gives each back exactly as connected, in order: the
// Graph stores them compactly (edgeRec), by node and field parts.
func TestEdgesRoundTrip(t *testing.T) {
	g := New()
	g.Add("a", nil)
	g.Add("leg.knee", nil) // a flattened name, with a '.'
	want := []Edge{
		{From: "a.x", To: "b.u"},            // b not added yet
		{From: "leg.knee.force", To: "a.f"}, // the node part has a '.'
		{From: "nodot", To: ".x"},           // not of the form node.field
		{From: "a.", To: "a.x.y"},           // empty field; a field part after the last '.'
		{From: "a.x", To: "b.u", Transform: Scale{Factor: 2}},
		{From: "a.x", To: "b.u", Combine: node.Replacing, declared: true},
		{From: "a.x", To: "b.u", Combine: node.Combine(math.MaxInt64), declared: true},
		{From: "a.x", To: "b.u", Combine: node.Combine(math.MinInt32), declared: true},
		{From: "a.x", To: "b.u", repeat: true},
		{From: "", To: ""},
	}
	for _, e := range want {
		var opts []Option
		if e.Transform != nil {
			opts = append(opts, Via(e.Transform))
		}
		if e.declared {
			opts = append(opts, CombineAs(e.Combine))
		}
		if e.repeat {
			opts = append(opts, Repeat())
		}
		g.Connect(e.From, e.To, opts...)
	}
	g.Add("b", nil)
	g.connectParts("b", "y", "a", "u")  // as AddConnector stores a link
	g.connectParts("b", "y.z", "", "u") // parts that would not split back: stored as paths
	want = append(want, Edge{From: "b.y", To: "a.u"}, Edge{From: "b.y.z", To: ".u"})
	if d := cmp.Diff(want, g.Edges(), cmp.AllowUnexported(Edge{})); d != "" {
		t.Errorf("Edges (-connected +stored):\n%s", d)
	}
	if g.NumEdges() != len(want) {
		t.Errorf("NumEdges = %d, want %d", g.NumEdges(), len(want))
	}
}

// TestRecordSizes pins the sizes the memory profile in benchmarks/README
// counts on: a Graph's edge record, a Sim's node record and gather.
func TestRecordSizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"edgeRec", unsafe.Sizeof(edgeRec{}), 28},
		{"cnode", unsafe.Sizeof(cnode{}), 112},
		{"gather", unsafe.Sizeof(gather{}), 24},
	} {
		if c.got != c.want {
			t.Errorf("%s is %d bytes, want %d", c.name, c.got, c.want)
		}
	}
}
