package graph_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/cosimgo/cosim/graph"
)

// TestBuildEdgeOrder: Build resolves endpoints through a cache of recent
// nodes before its name map; the result must not depend on
// the order edges arrive in. The chain's edges are connected in a random
// order (edges into one additive input keep their relative order, which
// sets the sum's bits) and the run must match the chain connected in
// order bit for bit, over 50 steps.
func TestBuildEdgeOrder(t *testing.T) {
	const n = 40
	ref := chain(n)
	shuffled := graph.New()
	for _, name := range ref.Names() {
		nd, _ := ref.Node(name)
		shuffled.Add(name, nd)
	}
	edges := ref.Edges()
	perm := rand.New(rand.NewPCG(1, 2)).Perm(len(edges))
	byInput := map[string][]graph.Edge{} // per destination, the edges in connection order
	for _, e := range edges {
		byInput[e.To] = append(byInput[e.To], e)
	}
	for _, i := range perm {
		to := edges[i].To
		e := byInput[to][0]
		byInput[to] = byInput[to][1:]
		var opts []graph.Option
		if e.Transform != nil {
			opts = append(opts, graph.Via(e.Transform))
		}
		shuffled.Connect(e.From, e.To, opts...)
	}
	run := func(g *graph.Graph) []float64 {
		t.Helper()
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: 1}, Dt: 1e-3, Steps: 50}); err != nil {
			t.Fatal(err)
		}
		return s.State(nil)
	}
	a, b := run(ref), run(shuffled)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("state[%d] = %v with shuffled edges, %v in order", i, b[i], a[i])
		}
	}
}

// TestBuildEdgesWithoutNodes: edges whose nodes are all invalid are
// reported, not a panic of the name cache.
func TestBuildEdgesWithoutNodes(t *testing.T) {
	g := graph.New()
	g.Add("bad.name", newMass(1, 0))
	g.Connect("bad.name.x", "other.force")
	_, err := g.Build()
	if !errors.Is(err, graph.ErrBadName) || !errors.Is(err, graph.ErrUnknownNode) {
		t.Fatalf("err = %v, want ErrBadName and ErrUnknownNode", err)
	}
}
