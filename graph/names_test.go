package graph_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/nodes/constant"
)

// After Build a Sim resolves node names through its indices sorted by name
// (Build itself used the Graph's map): every name added, in any order,
// still finds its own node, and names that are not there (prefixes,
// extensions, neighbours in the sort order) find none. Reference: the
// node values Add was given.
func TestSimNamesAfterBuild(t *testing.T) {
	const n = 500
	rng := rand.New(rand.NewPCG(1, 2))
	names := make([]string, n)
	for i, k := range rng.Perm(n) {
		names[i] = fmt.Sprintf("c%d", k*7)
	}
	g := graph.New()
	for _, name := range names {
		c, err := constant.New(constant.DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		g.Add(name, c)
	}
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	got := s.Names()
	for i, name := range names {
		nd, ok := s.Node(name)
		if !ok {
			t.Fatalf("Node(%q): not found", name)
		}
		if want, _ := g.Node(name); nd != want {
			t.Errorf("Node(%q) is not the node added under that name", name)
		}
		if got[i] != name {
			t.Errorf("Names()[%d] = %q, want %q (the order of Add)", i, got[i], name)
		}
	}
	for _, name := range []string{"", "c", "c1", "c00", "c7x", "b", "d", "c3499", "c3500"} {
		if _, ok := s.Node(name); ok {
			t.Errorf("Node(%q) found a node; the graph has none of that name", name)
		}
	}
}
