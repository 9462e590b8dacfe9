package main

import (
	"flag"
	"fmt"
	"log"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cosimgo/cosim/benchmarks"
	"github.com/cosimgo/cosim/internal/cpuclock"
)

// The scheduler section: W1 co-simulation with two workers against one,
// on an idle machine and beside a CPU-bound process that holds a core
// (`yes > /dev/null`), the condition in which spinning workers used to
// wait for a goroutine whose thread was not running. Each run's wall
// time and the process's CPU time (all threads) are measured: beside a
// busy core, two workers that keep to one core's worth of CPU are running
// their phases alone (graph/pool.go, sharing).

var schedOnly = flag.Bool("sched", false, "run only the scheduler comparison (two workers against one, idle and beside a CPU-bound process) and replace its section in REPORT.md")

const (
	schedBegin = "<!-- scheduler begin -->"
	schedEnd   = "<!-- scheduler end -->"
	// schedRounds interleaved runs of 1 and 2 workers per N and
	// condition; the median of each is kept (under load the fastest
	// round would flatter whichever run the other process happened to
	// leave alone).
	schedRounds = 7
	// schedWork is the mass-steps of one run: long enough for the
	// scheduler's adaptation windows to play their part many times.
	schedWork = 20_000_000
)

var schedSizes = []int{1000, 10000, 100000}

type schedRow struct {
	n, steps int
	one, two float64 // ns per mass-step, median of the rounds
	// cpuOne, cpuTwo: the process's CPU time per mass-step (every
	// thread), median of the rounds; negative where not measured.
	cpuOne, cpuTwo float64
	identical      bool    // 1 and 2 workers end in the same bits
	minRatio       float64 // the worst round's speed-up
	roundsDone     int
}

type schedResult struct {
	ran        bool
	burner     string // why the busy condition could not run, if it could not
	idle, busy []schedRow
}

var sched schedResult

// runSched measures both conditions.
func runSched() {
	sched = schedResult{ran: true}
	sched.idle = schedMeasure("idle")
	burn := exec.Command("yes") // output to /dev/null (Stdout nil)
	if err := burn.Start(); err != nil {
		sched.burner = fmt.Sprintf("could not start `yes` (%v): the busy condition was not measured", err)
		return
	}
	time.Sleep(300 * time.Millisecond) // let it take its core
	sched.busy = schedMeasure("beside yes")
	burn.Process.Kill()
	burn.Wait()
}

func schedMeasure(cond string) []schedRow {
	var rows []schedRow
	for _, n := range schedSizes {
		if n > *maxN {
			continue
		}
		log.Printf("scheduler N=%d (%s)", n, cond)
		c := benchmarks.Mode1(n)
		y0 := c.InitialState()
		s := buildChain(c)
		steps := max(100, schedWork/n)
		var d1, d2, c1, c2 []time.Duration
		var f1, f2 []float64
		for range schedRounds {
			c := cpuclock.Process()
			d1 = append(d1, runSim(s, y0, steps, 1, 0))
			c1 = append(c1, cpuclock.Process()-c)
			f1 = s.State(f1)
			c = cpuclock.Process()
			d2 = append(d2, runSim(s, y0, steps, 2, 0))
			c2 = append(c2, cpuclock.Process()-c)
			f2 = s.State(f2)
		}
		row := schedRow{n: n, steps: steps, identical: equal(f1, f2), roundsDone: schedRounds, minRatio: 1e9}
		for i := range d1 {
			row.minRatio = min(row.minRatio, float64(d1[i])/float64(d2[i]))
		}
		row.one = nsPer(median(d1), steps, n)
		row.two = nsPer(median(d2), steps, n)
		row.cpuOne, row.cpuTwo = -1, -1
		if cpuclock.Process() >= 0 {
			row.cpuOne = nsPer(median(c1), steps, n)
			row.cpuTwo = nsPer(median(c2), steps, n)
		}
		rows = append(rows, row)
	}
	return rows
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func schedMarkdown(b *strings.Builder) {
	w := func(f string, a ...any) { fmt.Fprintf(b, f, a...) }
	w("%s\n## Two workers against one, idle and beside a busy core\n\n", schedBegin)
	if !sched.ran {
		w("Not measured in this run (go run ./benchmarks/report -sched).\n\n%s\n", schedEnd)
		return
	}
	w("W1 co-simulation (Sim.Run, default Grain), %d mass-steps per run, 1 and 2 workers interleaved over %d rounds, the median of each kept; first on the machine as it is, then beside `yes > /dev/null`, a CPU-bound process that holds one of the cores (started by the report). A shared phase is split into one or two parts per worker, claimed by whichever goroutine is running; the caller, its parts done, polls for the others' about one part's time and then sleeps, giving its core to a worker descheduled in the middle of a part; and the pool times windows of shared phases against the time per row of phases run alone, and runs phases on the caller's single-goroutine path, the workers parked, in spells that double while sharing keeps losing, each at most 64 times what the window before it lost against running alone, so that testing sharing costs under 2%% beside a busy core and the pool shares again within tens of milliseconds once the core frees up; the stability check at the start of a run, whose trial steps are spaced by its own arithmetic, is not judged (graph/pool.go, sharing). Nothing is configured: the condition is detected as the run goes. *CPU* is the process's CPU time per mass-step over the run, every thread counted (one core's worth when the phases run alone); *worst round* is the lowest speed-up of a single round. *bit-identical*: 1 and 2 workers end in the same bits.\n\n", schedWork, schedRounds)
	w("| N | condition | 1 worker (ns/mass-step) | 2 workers | speed-up | worst round | CPU, 1 worker | CPU, 2 workers | bit-identical |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, part := range []struct {
		name string
		rows []schedRow
	}{{"idle", sched.idle}, {"beside yes", sched.busy}} {
		for _, r := range part.rows {
			w("| %d | %s | %.2f | %.2f | %.2f× | %.2f× | %s | %s | %s |\n", r.n, part.name, r.one, r.two, r.one/r.two, r.minRatio, cpuCell(r.cpuOne), cpuCell(r.cpuTwo), yesNo(r.identical))
		}
	}
	if sched.burner != "" {
		w("\n%s\n", sched.burner)
	}
	busyOK, idleOK := len(sched.busy) > 0, true
	worstBusy, worstIdle := 1e9, 1e9
	for _, r := range sched.busy {
		worstBusy = min(worstBusy, r.one/r.two)
		busyOK = busyOK && r.one/r.two >= 0.95
	}
	for _, r := range sched.idle {
		if r.n >= 10000 {
			worstIdle = min(worstIdle, r.one/r.two)
			idleOK = idleOK && r.one/r.two >= 1.5
		}
	}
	w("\n**Targets**: beside a busy core, two workers ≥ 0.95× one worker at every N: lowest %.2f× (%s); idle, two workers ≥ 1.5× one at N ≥ 10 000: lowest %.2f× (%s). The machine's other work is not controlled: an \"idle\" run on a shared machine is only as idle as its neighbours.\n\n%s\n", worstBusy, metWord(busyOK), worstIdle, metWord(idleOK), schedEnd)
}

// cpuCell prints a CPU time per mass-step, or "–" where not measured.
func cpuCell(ns float64) string {
	if ns < 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", ns)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

// schedMain handles -sched; it reports whether main should stop.
func schedMain() bool {
	if !*schedOnly {
		return false
	}
	runSched()
	var b strings.Builder
	schedMarkdown(&b)
	fmt.Print(b.String())
	must(splice(filepath.Join(*dir, "REPORT.md"), schedBegin, schedEnd, b.String()))
	return true
}
