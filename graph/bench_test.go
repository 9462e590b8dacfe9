package graph_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/table"
)

// ballGraph is n balls dropped from staggered heights onto one shared table.
func ballGraph(tb testing.TB, n int) *graph.Sim {
	g := graph.New()
	tab, err := table.New(table.DefaultParams())
	if err != nil {
		tb.Fatal(err)
	}
	g.Add("table", tab)
	for i := 0; i < n; i++ {
		p := ball.DefaultParams()
		p.InitialPosition = 1 + float64(i%100)/100
		b, err := ball.New(p)
		if err != nil {
			tb.Fatal(err)
		}
		name := fmt.Sprintf("ball%d", i)
		g.Add(name, b)
		g.Connect("table.position", name+".table_position")
	}
	s, err := g.Build()
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkStep measures one co-simulation step of n balls on a table.
// ns/op divided by n is the cost of one node update, framework included;
// allocs/op must be 0.
func BenchmarkStep(b *testing.B) {
	for _, n := range []int{1, 1000, 100000} {
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("balls=%d/workers=%d", n, w), func(b *testing.B) {
				s := ballGraph(b, n)
				b.ReportAllocs()
				b.ResetTimer()
				res, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: w}, Dt: 1e-4, Steps: b.N})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/update")
				_ = res
			})
		}
	}
}

// The ball graph steps without allocating, and bit-identically for any
// worker count.
func TestBallGraph(t *testing.T) {
	s := ballGraph(t, 3000)
	if a := numtest.AllocsPerRun(20, func() { s.Step(1e-3) }); a != 0 {
		t.Errorf("Step allocates %v", a)
	}
	ref := s.State(nil)
	for _, w := range []int{1, 2, 8} {
		s := ballGraph(t, 3000)
		if _, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: w, Grain: 64}, Dt: 1e-3, Steps: 21}); err != nil {
			t.Fatal(err)
		}
		got := s.State(nil)
		for i := range ref {
			if got[i] != ref[i] {
				t.Fatalf("workers=%d: state[%d] differs", w, i)
			}
		}
	}
}
