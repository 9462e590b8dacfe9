package graph_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/benchmarks"
	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
)

// Coupling strategies run their Gauss–Seidel stages and rate classes on
// families (a stage's rows of a family are contiguous row ranges of its
// kernel), iterated groups per node. Every strategy gives the bits of
// the per-node path, for 1 and 2 workers, with no step replayed.
func TestCouplingOnFamiliesBitIdentical(t *testing.T) {
	const n = 12
	var half, odd, even []string
	for i := 1; i <= n; i++ {
		if i <= n/2 {
			half = append(half, fmt.Sprintf("m%d", i))
		}
		if i%2 == 1 {
			odd = append(odd, fmt.Sprintf("m%d", i))
		} else {
			even = append(even, fmt.Sprintf("m%d", i))
		}
	}
	strategies := []string{
		"jacobi",
		"gauss-seidel,order=" + strings.Join(odd, "+") + "/" + strings.Join(even, "+"),
		"jacobi,rate.m3=4,rate.m4=4,rate.m9=2,interp=linear",
		"iterative,group.g=m5+m6+s5,maxiter=20",
		"aitken,group.g=m2+m3+s2,rate.m10=3",
	}
	for _, text := range strategies {
		st, err := coupling.ParseStrategy(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		run := func(batched bool, workers int) ([]float64, int) {
			s, err := benchmarks.Mode1(n).Build()
			if err != nil {
				t.Fatal(err)
			}
			s.SetBatching(batched)
			res, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Coupling: &st, Workers: workers, Grain: 1}, Dt: benchmarks.ChainDt, Steps: 40})
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			return s.State(nil), res.Replays
		}
		want, _ := run(false, 1)
		for _, w := range []int{1, 2} {
			got, replays := run(true, w)
			if replays != 0 {
				t.Errorf("%s, %d workers: %d steps replayed per node", text, w, replays)
			}
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%s, %d workers: state[%d] batched %v, per node %v", text, w, i, got[i], want[i])
				}
			}
		}
	}
}
