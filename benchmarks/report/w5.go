package main

// W5: wheel-suspension corners as subsystems against the same nodes
// wired flat (benchmarks.Corners).

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cosimgo/cosim/benchmarks"
	"github.com/cosimgo/cosim/graph"
)

var w5Only = flag.Bool("w5", false, "run only W5 (subsystems against the same nodes wired flat) and replace its section in REPORT.md")

const (
	w5Begin = "<!-- W5 begin -->"
	w5End   = "<!-- W5 end -->"
	w5N     = 100
)

// w5 holds W5's measurements.
var w5 struct {
	ran              bool
	flat, nested     float64 // ns per step of all corners, 1 worker
	allocFlat, alloc float64 // allocations per step
	identical        bool    // the two end in the same bits
	famFlat, famSub  int     // families found
}

// runW5 measures W5: the two graphs stepped alternately (repeat), so the
// ratio is taken under the same load.
func runW5() {
	flat, err := benchmarks.Corners(w5N, false)
	must(err)
	nested, err := benchmarks.Corners(w5N, true)
	must(err)
	y0 := flat.State(nil)
	run := func(s *graph.Sim) func() time.Duration {
		return func() time.Duration {
			must(s.SetState(y0, 0))
			t0 := time.Now()
			_, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: 1}, Dt: benchmarks.CornerDt, Steps: benchmarks.CornerSteps})
			must(err)
			return time.Since(t0)
		}
	}
	best := repeat(run(flat), run(nested))
	w5.flat = float64(best[0].Nanoseconds()) / benchmarks.CornerSteps
	w5.nested = float64(best[1].Nanoseconds()) / benchmarks.CornerSteps
	w5.identical = equal(flat.State(nil), nested.State(nil))
	w5.allocFlat = allocsPerStep(flat, y0, 1)
	w5.alloc = allocsPerStep(nested, y0, 1)
	w5.famFlat, w5.famSub = len(flat.Families()), len(nested.Families())
	w5.ran = true
}

func w5Markdown(b *strings.Builder) {
	w := func(f string, a ...any) { fmt.Fprintf(b, f, a...) }
	w("%s\n## W5 subsystems (%d wheel-suspension corners, semi-implicit Euler, %d steps of 1 ms)\n\n", w5Begin, w5N, benchmarks.CornerSteps)
	if !w5.ran {
		w("Not measured in this run (go run ./benchmarks/report -w5).\n\n%s\n", w5End)
		return
	}
	w("Each corner is a wheel and a body (masspoint) with a tire and a suspension (springdamper): %d graph.Subsystem values added to one graph against the same %d nodes wired flat by hand, in the same order. Build flattens subsystems, so both compile to the same families and run the same arithmetic; the target is that composing costs nothing (ratio ≤ 1.05, the timing noise allowed elsewhere in this report). ns per step of all corners, 1 worker, fastest of interleaved repetitions.\n\n", w5N, 4*w5N)
	ok := "met"
	if w5.nested/w5.flat > 1.05 {
		ok = "**not met**"
	}
	w("| flat | subsystems | ratio | target ≤ 1.05 | bit-identical | families flat / subsystems | allocs/step flat / subsystems |\n|---|---|---|---|---|---|---|\n")
	w("| %.0f | %.0f | %.3f | %s | %v | %d / %d | %.0f / %.0f |\n\n%s\n", w5.flat, w5.nested, w5.nested/w5.flat, ok, w5.identical, w5.famFlat, w5.famSub, w5.allocFlat, w5.alloc, w5End)
}

// splice replaces the section between the markers begin and end of the
// report at path by section (which holds the markers), or inserts it
// before the Scaling section, or appends it.
func splice(path, begin, end, section string) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(old)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i >= 0 && j > i {
		s = s[:i] + strings.TrimSuffix(section, "\n") + s[j+len(end):]
	} else if k := strings.Index(s, "\n## Scaling"); k >= 0 {
		s = s[:k+1] + section + "\n" + s[k+1:]
	} else {
		s = strings.TrimRight(s, "\n") + "\n\n" + section
	}
	return os.WriteFile(path, []byte(s), 0o644)
}

// w5Main handles -w5; it reports whether main should stop.
func w5Main() bool {
	if !*w5Only {
		return false
	}
	runW5()
	var b strings.Builder
	w5Markdown(&b)
	fmt.Print(b.String())
	must(splice(filepath.Join(*dir, "REPORT.md"), w5Begin, w5End, b.String()))
	return true
}
