package graph_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
)

// Field.At panics when i is outside [0, Len()), a programmer error, rather
// than reading the value stored next to the field: m.p[1] has Len 1, and
// At(1) would read m.p[2].
func TestFieldAtOutOfRange(t *testing.T) {
	f, err := decayVectorSim(t, 3).Field("m.p[1]")
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{-1, 1} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "outside [0, 1)") {
					t.Errorf("At(%d): recovered %v, want a panic naming [0, 1)", i, r)
				}
			}()
			v, err := f.At(i)
			t.Errorf("At(%d) = %v, %v; want a panic", i, v, err)
		}()
	}
}

// A BuildError's message counts its problems in the singular for one
// ("graph: 1 problem") and the plural otherwise, then lists them.
func TestBuildErrorCount(t *testing.T) {
	for _, c := range []struct {
		edges int
		want  string
	}{
		{1, "graph: 1 problem\n\t"},
		{2, "graph: 2 problems\n\t"},
	} {
		g := graph.New()
		g.Add("m", decayVector(1))
		for k := range c.edges {
			g.Connect(fmt.Sprintf("ghost%d.x", k), "m.nothing")
		}
		_, err := g.Build()
		var be *graph.BuildError
		if !errors.As(err, &be) || len(be.Problems) != c.edges || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%d bad edges: %v; want %d problems, a message starting %q", c.edges, err, c.edges, c.want)
		}
	}
}

// Under a name added twice (a problem Build reports), Node returns the
// node added first, whatever was looked up before: here after a lookup
// of the node added between the two, which leaves the second "a" next
// to the last answer.
func TestNodeDuplicateNameFirst(t *testing.T) {
	first, between, second := decayVector(1), decayVector(2), decayVector(3)
	g := graph.New()
	g.Add("a", first)
	g.Add("b", between)
	g.Add("a", second)
	for _, name := range []string{"a", "b", "a"} {
		n, ok := g.Node(name)
		want := map[string]any{"a": first, "b": between}[name]
		if !ok || n != want {
			t.Errorf("Node(%q) = %p, %v; want %p", name, n, ok, want)
		}
	}
	if _, err := g.Build(); !errors.Is(err, graph.ErrDuplicateName) {
		t.Errorf("Build: %v, want ErrDuplicateName", err)
	}
}

// Graphs of a million nodes are built one Add at a time, so the node list
// grows geometrically: adding 4096 nodes allocates a few dozen times
// (the list doubling, the name index growing), not once per node (bound
// 1024, a quarter of the nodes).
func TestAddGrowsGeometrically(t *testing.T) {
	const n = 4096
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("n%d", i)
	}
	nd := decayVector(1)
	allocs := testing.AllocsPerRun(1, func() {
		g := graph.New()
		for _, name := range names {
			g.Add(name, nd)
		}
	})
	if allocs > n/4 {
		t.Errorf("adding %d nodes: %v allocations, want at most %d", n, allocs, n/4)
	}
}
