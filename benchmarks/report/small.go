package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Small graphs: the ratios of the one-worker graph runs to the
// hand-written loops at N = 10 and 100, where the fixed cost of an
// evaluation (the kernel calls and their framing) is most of the cost.
// The full report writes this section from its own W1 and W1b rows;
// -small measures those rows alone and replaces the section.

var (
	smallOnly = flag.Bool("small", false, "run only the small-graph section (W1 co-simulation, RK4, Dormand–Prince and adaptive W1b at N = 10 and 100, one worker, against the hand-written loops) and replace it in REPORT.md")
	cpuClock  = flag.Bool("cpu-clock", false, "with -small: time the one-worker runs and the hand-written loops by the CPU time of the report's thread instead of wall time (steadier on a shared machine; Linux)")
)

const (
	smallBegin = "<!-- small begin -->"
	smallEnd   = "<!-- small end -->"
	// smallMax is the largest N of the section.
	smallMax = 100
)

// smallMain handles -small; it reports whether main should stop.
func smallMain() bool {
	if !*smallOnly {
		return false
	}
	var r report
	r.machine()
	for _, n := range sizes {
		if n <= smallMax {
			r.ns = append(r.ns, n)
		}
	}
	cpu := *cpuClock && useThreadClock()
	r.cosim()
	r.monolithic()
	r.adaptive()
	var b strings.Builder
	r.smallMarkdown(&b, true)
	if cpu {
		// The section says which clock it used.
		s := strings.Replace(b.String(), smallWallNote, smallCPUNote, 1)
		b.Reset()
		b.WriteString(s)
	}
	fmt.Print(b.String())
	path := filepath.Join(*dir, "REPORT.md")
	old, err := os.ReadFile(path)
	must(err)
	if k := strings.Index(string(old), "\n## W2 bounce"); k >= 0 && !strings.Contains(string(old), smallBegin) {
		// A report written before this section existed: put it where the
		// full report writes it, after the W1b table.
		must(os.WriteFile(path, []byte(string(old[:k+1])+b.String()+string(old[k+1:])), 0o644))
		return true
	}
	must(splice(path, smallBegin, smallEnd, b.String()))
	return true
}

const (
	smallWallNote = "Wall time, the fastest of interleaved repetitions, as in the tables above."
	smallCPUNote  = "CPU time of the report's thread (-cpu-clock), the fastest of interleaved repetitions: the machine was shared, and a run's wall time there includes the time other processes held its core."
)

// smallMarkdown writes the small-graph section from r's rows with
// N ≤ smallMax. alone says that -small measured it on its own (the rest
// of the report comes from another run).
func (r *report) smallMarkdown(b *strings.Builder, alone bool) {
	w := func(f string, a ...any) { fmt.Fprintf(b, f, a...) }
	w("%s\n## Small graphs: the fixed cost of an evaluation\n\n", smallBegin)
	from := ", from the rows above"
	if alone {
		from = ""
	}
	w("Graph against hand-written loop, one worker%s: W1 co-simulation against HandSIE, fixed-step RK4 and Dormand–Prince against HandRK4 and HandDP, adaptive W1b against HandDP.Integrate. Targets: ≤ 1.5× at N = 10 in every mode, ≤ 1.2× from N = 100. benchmarks/README.md (\"Small graphs\") has where the nanoseconds of an evaluation go.\n\n", from)
	if alone {
		w("Measured alone (`go run ./benchmarks/report -small`) on %s, %s, after the rest of this report (whose W1 and W1b tables come from an earlier full run); load average at the start %s on %d cores. %s\n\n", r.cpu, time.Now().UTC().Format("2006-01-02"), loadAvg(), r.cores, smallWallNote)
	}
	w("| N | co-simulation | RK4 | Dormand–Prince | adaptive W1b | target | status |\n|---|---|---|---|---|---|---|\n")
	for k, n := range r.ns {
		if n > smallMax || k >= len(r.co) || k >= len(r.mono) {
			break
		}
		c, m := r.co[k], r.mono[k]
		worst := max(c.g1/c.hand, m.rk4Graph/m.rk4Hand, m.dpGraph/m.dpHand)
		ad := "—"
		if k < len(r.adapt) {
			a := r.adapt[k]
			ad = fmt.Sprintf("%.2f", a.graph/a.hand)
			worst = max(worst, a.graph/a.hand)
		}
		target := 1.2
		if n < 100 {
			target = 1.5
		}
		w("| %d | %.2f | %.2f | %.2f | %s | ≤ %.1f | %s |\n", n, c.g1/c.hand, m.rk4Graph/m.rk4Hand, m.dpGraph/m.dpHand, ad, target, metWord(worst <= target))
	}
	w("\n%s\n\n", smallEnd)
}

// smallWorst returns the worst ratio to the hand-written loop over every
// mode at N = 10 (below 100) and from N = 100 up to smallMax, from r's rows.
func (r *report) smallWorst() (at10, at100 float64) {
	for k, n := range r.ns {
		if n > smallMax || k >= len(r.co) || k >= len(r.mono) {
			break
		}
		c, m := r.co[k], r.mono[k]
		worst := max(c.g1/c.hand, m.rk4Graph/m.rk4Hand, m.dpGraph/m.dpHand)
		if k < len(r.adapt) {
			worst = max(worst, r.adapt[k].graph/r.adapt[k].hand)
		}
		if n < 100 {
			at10 = max(at10, worst)
		} else {
			at100 = max(at100, worst)
		}
	}
	return at10, at100
}

// loadAvg is the one-minute load average (Linux), or "unknown".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "unknown"
}
