package main

// W6: control blocks with their batch kernels against the same blocks
// stepped node by node (benchmarks.PIDLoops, benchmarks.ControlFamily).

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/cosimgo/cosim/benchmarks"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/nodes"
)

var w6Only = flag.Bool("w6", false, "run only W6 (control blocks with and without their batch kernels) and replace its section in REPORT.md")

const (
	w6Begin = "<!-- W6 begin -->"
	w6End   = "<!-- W6 end -->"
	w6N     = 1000
	w6Steps = 200
)

// w6Row is one comparison: ns per step of every block (or loop) without
// and with the kernels, whether the two end in the same bits, and the
// allocations per step with the kernels.
type w6Row struct {
	name          string
	without, with float64
	identical     bool
	allocs        float64
}

// w6 holds W6's measurements: the loops first, then one row per type.
var w6 struct {
	ran  bool
	rows []w6Row
}

// w6Compare steps the two Sims alternately (repeat), from the same start,
// so that the ratio is taken under the same load.
func w6Compare(name string, without, with *graph.Sim) w6Row {
	y0 := with.State(nil)
	run := func(s *graph.Sim) func() time.Duration {
		return func() time.Duration {
			must(s.SetState(y0, 0))
			t0 := time.Now()
			_, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: 1}, Dt: benchmarks.LoopDt, Steps: w6Steps})
			must(err)
			return time.Since(t0)
		}
	}
	best := repeat(run(without), run(with))
	return w6Row{
		name:    name,
		without: float64(best[0].Nanoseconds()) / w6Steps / w6N,
		with:    float64(best[1].Nanoseconds()) / w6Steps / w6N,
		// Both last ran the same steps from y0.
		identical: equal(without.State(nil), with.State(nil)),
		allocs:    allocsPerStep(with, y0, 1),
	}
}

func runW6() {
	w6.rows = w6.rows[:0]
	without, err := benchmarks.PIDLoops(w6N, false)
	must(err)
	with, err := benchmarks.PIDLoops(w6N, true)
	must(err)
	w6.rows = append(w6.rows, w6Compare("W6 loops (lag, pid, saturation)", without, with))
	reg := nodes.Registry()
	for _, c := range benchmarks.ControlBlockTypes() {
		without, err := benchmarks.ControlFamily(reg, c.Name, w6N, false)
		must(err)
		with, err := benchmarks.ControlFamily(reg, c.Name, w6N, true)
		must(err)
		w6.rows = append(w6.rows, w6Compare(c.Name, without, with))
	}
	w6.ran = true
}

func w6Markdown(b *strings.Builder) {
	w := func(f string, a ...any) { fmt.Fprintf(b, f, a...) }
	w("%s\n## W6 control blocks, with and without their batch kernels (%d of each, %d steps of 1 ms)\n\n", w6Begin, w6N, w6Steps)
	if !w6.ran {
		w("Not measured in this run (go run ./benchmarks/report -w6).\n\n%s\n", w6End)
		return
	}
	w("First row: %d PID position loops (benchmarks.PIDLoops: the PID mass-spring scene with a sensor lag and a saturating actuator, all three-component), the control blocks with their kernels against the same blocks wrapped so that the graph steps them one by one (the plant keeps its kernels in both); ns per loop-step. Other rows: %d blocks of one type (benchmarks.ControlFamily: one sine source per input feeding every block, a lag reading each output, which keep their kernels in both); ns per block-step, sources and lag included. 1 worker, fastest of interleaved repetitions. *bit-identical*: both end in the same state. A ratio below 1 is time saved; package nodes/control's doc says which kernels are kept and why.\n\n", w6N, w6N)
	w("| graph | without kernel | with kernel | ratio | bit-identical | allocs/step |\n|---|---:|---:|---:|---|---:|\n")
	for _, r := range w6.rows {
		w("| %s | %.0f | %.0f | %.2f | %v | %.0f |\n", r.name, r.without, r.with, r.with/r.without, r.identical, r.allocs)
	}
	w("\n%s\n", w6End)
}

// w6Main handles -w6; it reports whether main should stop.
func w6Main() bool {
	if !*w6Only {
		return false
	}
	runW6()
	var b strings.Builder
	w6Markdown(&b)
	fmt.Print(b.String())
	must(splice(filepath.Join(*dir, "REPORT.md"), w6Begin, w6End, b.String()))
	return true
}
