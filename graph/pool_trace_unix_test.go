//go:build unix

package graph_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/cosimgo/cosim/benchmarks"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/cpuclock"
)

var (
	sharingTrace  = flag.Bool("sharing.trace", false, "TestSharingTrace: print the sharing judge's decisions in W1 runs of 1 and 2 workers")
	sharingN      = flag.Int("sharing.n", 10000, "TestSharingTrace: masses")
	sharingRounds = flag.Int("sharing.rounds", 5, "TestSharingTrace: rounds of 1 and 2 workers")
	sharingLines  = flag.Bool("sharing.lines", false, "TestSharingTrace: one line per decision")
)

// TestSharingTrace is a diagnostic, not a check of timings: with
// -sharing.trace it runs W1 (Sim.Run, 2·10⁷ mass-steps a run, as
// benchmarks/report -sched) with 1 and 2 workers in alternation on one
// Sim and prints, for each round, the wall and CPU times, the speed-up
// and the decisions of the sharing judge in the 2-worker run: windows
// won and lost, spells and the share of rows run shared, which say why a
// run of 2 workers was or was not faster. It checks only that 1 and 2
// workers end in the same bits.
//
//	go test ./graph -run TestSharingTrace -sharing.trace -v [-sharing.n 10000] [-sharing.lines]
func TestSharingTrace(t *testing.T) {
	if !*sharingTrace {
		t.Skip("diagnostic: run with -sharing.trace")
	}
	n := *sharingN
	c := benchmarks.Mode1(n)
	y0 := c.InitialState()
	s, err := c.Build()
	if err != nil {
		t.Fatal(err)
	}
	steps := max(100, 20_000_000/n)
	run := func(w int) (wall, cpu time.Duration, final []float64) {
		if err := s.SetState(y0, 0); err != nil {
			t.Fatal(err)
		}
		c0, t0 := cpuclock.Process(), time.Now()
		if _, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: w}, Dt: benchmarks.ChainDt, Steps: steps}); err != nil {
			t.Fatal(err)
		}
		return time.Since(t0), cpuclock.Process() - c0, s.State(nil)
	}
	s.TraceSharing(true)
	for r := range *sharingRounds {
		d1, c1, f1 := run(1)
		s.SharingLog(false)
		d2, c2, f2 := run(2)
		log, sum := s.SharingLog(*sharingLines)
		for i := range f1 {
			if math.Float64bits(f1[i]) != math.Float64bits(f2[i]) {
				t.Fatalf("round %d: state %d differs between 1 and 2 workers: %v, %v", r, i, f1[i], f2[i])
			}
		}
		fmt.Printf("N = %d round %d: 1 worker %.1f ms (CPU %.1f ms), 2 workers %.1f ms (CPU %.1f ms): %.2fx\n", n, r, ms(d1), ms(c1), ms(d2), ms(c2), float64(d1)/float64(d2))
		fmt.Printf("  judge: %d won, %d lost (%d early), %d measuring, %d spells (longest %v); rows shared %.0f%% (windows %.1f ms, spells %.1f ms); %d jobs held\n%s",
			sum.Won, sum.Lost+sum.LostEarly, sum.LostEarly, sum.Measured, sum.Spells, sum.LongestSpell.Round(time.Millisecond), 100*float64(sum.SharedRows)/float64(max(sum.SharedRows+sum.SoloRows, 1)), ms(sum.Shared), ms(sum.Solo), sum.HeldJobs, log)
	}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
