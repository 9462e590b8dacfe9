package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/cosimgo/cosim/benchmarks"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
)

var (
	maxN = flag.Int("max", 1000000, "largest chain size to run")
	dir  = flag.String("dir", "benchmarks", "directory for REPORT.md and cost-vs-n.png")
	// budget is the wall time one configuration's repetitions aim for.
	budget = flag.Duration("budget", 400*time.Millisecond, "time budget of the repetitions of one configuration")
)

var sizes = []int{10, 100, 1000, 10000, 100000, 1000000}

func main() {
	flag.Parse()
	log.SetFlags(0)
	if w4Main() { // W4 lives in w4.go
		return
	}
	if w4aMain() { // the adaptive W4 comparison with CVODE lives in w4adaptive.go
		return
	}
	if schedMain() { // the scheduler under load lives in sched.go
		return
	}
	if w5Main() { // W5, subsystems against flat, lives in w5.go
		return
	}
	if w6Main() { // W6, control kernels against per-node, lives in w6.go
		return
	}
	if fmiMain() { // the FMI import costs live in fmi.go
		return
	}
	if smallMain() { // the small-graph section alone, in small.go
		return
	}
	var r report
	r.machine()
	for _, n := range sizes {
		if n <= *maxN {
			r.ns = append(r.ns, n)
		}
	}
	r.triad()
	r.grainStudy()
	r.cosim()
	r.monolithic()
	r.adaptive()
	r.bounce()
	r.twoMass()
	runW4()
	runW4A()
	runSched()
	runW5()
	runW6()
	runFMI()
	r.scaling()
	out := r.markdown()
	fmt.Print(out)
	if err := os.WriteFile(filepath.Join(*dir, "REPORT.md"), []byte(out), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := r.plot(filepath.Join(*dir, "cost-vs-n.png")); err != nil {
		log.Fatal(err)
	}
}

type report struct {
	cpu, goVersion string
	cores, procs   int
	ns             []int

	co    []coRow
	mono  []monoRow
	adapt []adaptRow
	grain []grainRow
	bnc   []bounceRow
	two   []twoRow

	triadGBs    float64                // STREAM-style triad bandwidth, GB/s, one core
	triadGBs2   float64                // the same on two goroutines
	builds      []benchmarks.BuildCost // the W1 chain's Build at benchmarks.BuildSizes()
	expHand     float64
	expGraph    float64
	expGraph2   float64
	defaultGran int
}

func (r *report) machine() {
	r.cpu = "unknown"
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				r.cpu = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	r.cores = runtime.NumCPU()
	r.procs = runtime.GOMAXPROCS(0)
	r.goVersion = runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	r.defaultGran = graph.DefaultGrain
}

// repeat runs the functions of one comparison interleaved, each from its
// own fresh start, until the budget is spent (at least twice, at most 30
// rounds), and returns each one's fastest time. Two rounds at least: a
// first run that takes the whole budget (N = 10⁶) also pays for touching
// fresh memory for the first time, the page faults of its buffers, which
// is not the cost per step being compared.
func repeat(fs ...func() time.Duration) []time.Duration {
	best := make([]time.Duration, len(fs))
	start := time.Now()
	for round := 0; round < 30; round++ {
		for i, f := range fs {
			d := f()
			if round == 0 || d < best[i] {
				best[i] = d
			}
		}
		if round >= 1 && time.Since(start) > *budget {
			break
		}
	}
	return best
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

func buildChain(c benchmarks.Chain) *graph.Sim {
	s, err := c.Build()
	must(err)
	return s
}

func nsPer(d time.Duration, steps, n int) float64 {
	return float64(d.Nanoseconds()) / float64(steps) / float64(n)
}

// --- W1 co-simulation ---------------------------------------------------

type coRow struct {
	n                       int
	steps                   int
	hand, fused             float64 // ns per mass-step: HandSIE, HandSIEFused
	g1, g2, g2forced        float64 // ns per mass-step
	perNode                 float64 // ns per mass-step, 1 worker, SetBatching(false)
	identical               bool    // every worker count and the per-node path agree bit for bit
	replays                 bool    // some batched step was replayed per node (it must not be)
	errs                    benchmarks.Errors
	handErrs                benchmarks.Errors
	allocsStep, allocsStep2 float64
	sequential              bool // below DefaultGrain: 2 workers run the 1-worker code
}

func runSim(s *graph.Sim, y0 []float64, steps, workers, grain int) time.Duration {
	must(s.SetState(y0, 0))
	t0 := clock()
	_, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: workers, Grain: grain}, Dt: benchmarks.ChainDt, Steps: steps})
	d := clock() - t0
	must(err)
	return d
}

// allocsPerStep counts the heap allocations of one step of a Run with the
// given workers: the difference between runs of 2k and k steps, divided
// by k, so that the set-up of Run is not counted.
func allocsPerStep(s *graph.Sim, y0 []float64, workers int) float64 {
	count := func(steps int) uint64 {
		var a, b runtime.MemStats
		must(s.SetState(y0, 0))
		runtime.ReadMemStats(&a)
		_, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: workers}, Dt: benchmarks.ChainDt, Steps: steps})
		runtime.ReadMemStats(&b)
		must(err)
		return b.Mallocs - a.Mallocs
	}
	// The runtime allocates now and then on its own (MemStats counts every
	// goroutine), so a difference of two runs can be off by an allocation
	// or two either way: over k = 30 steps that is under 0.1 per step, and
	// allocations in a step's steady state come in whole numbers, so the
	// least magnitude of three tries, rounded, is the count.
	return perStepAllocs(count)
}

func (r *report) cosim() {
	for _, n := range r.ns {
		log.Printf("W1 co-simulation N=%d", n)
		c := benchmarks.Mode1(n)
		y0 := c.InitialState()
		s := buildChain(c)
		steps := benchmarks.ChainSteps
		if n >= 1000000 {
			steps = 100 // seconds per run; the cost per mass-step is what is compared
		}
		row := coRow{n: n, steps: steps}
		var final [4][]float64
		hand := make([]float64, len(y0))
		fused := make([]float64, len(y0))
		perNode := func() time.Duration {
			s.SetBatching(false)
			defer s.SetBatching(true)
			d := runSim(s, y0, steps, 1, 0)
			final[3] = s.State(final[3])
			return d
		}
		fs := []func() time.Duration{
			func() time.Duration {
				copy(hand, y0)
				t0 := clock()
				benchmarks.HandSIE(hand, n, steps, benchmarks.ChainDt)
				return clock() - t0
			},
			func() time.Duration {
				copy(fused, y0)
				t0 := clock()
				benchmarks.HandSIEFused(fused, n, steps, benchmarks.ChainDt)
				return clock() - t0
			},
			perNode,
			func() time.Duration { d := runSim(s, y0, steps, 1, 0); final[0] = s.State(final[0]); return d },
			func() time.Duration { d := runSim(s, y0, steps, 2, 0); final[1] = s.State(final[1]); return d },
			func() time.Duration { d := runSim(s, y0, steps, 2, 1); final[2] = s.State(final[2]); return d },
		}
		sequential := n+1 < graph.DefaultGrain
		switch {
		case sequential: // Run uses one goroutine for 2 workers too: the same code as 1 worker
			fs = []func() time.Duration{fs[0], fs[1], fs[2], fs[3], fs[5]}
		default: // the default already splits every phase: forced is the same run
			fs = fs[:5]
		}
		best := repeat(fs...)
		row.hand, row.fused = nsPer(best[0], steps, n), nsPer(best[1], steps, n)
		row.perNode, row.g1 = nsPer(best[2], steps, n), nsPer(best[3], steps, n)
		if sequential {
			row.g2, row.g2forced, row.sequential = row.g1, nsPer(best[4], steps, n), true
		} else {
			row.g2 = nsPer(best[4], steps, n)
			row.g2forced = row.g2
		}
		row.replays = runReplays(s, y0, steps)
		row.identical = (final[1] == nil || equal(final[0], final[1])) && (final[2] == nil || equal(final[0], final[2])) && equal(final[0], final[3])
		tEnd := float64(steps) * benchmarks.ChainDt
		row.errs = c.Measure(final[0], tEnd)
		row.handErrs = c.Measure(hand, tEnd)
		row.allocsStep = allocsPerStep(s, y0, 1)
		row.allocsStep2 = allocsPerStep(s, y0, 2)
		r.co = append(r.co, row)
	}
}

// runReplays runs the chain once more and reports whether the batched
// engine replayed any step per node (it must not, in a healthy run).
func runReplays(s *graph.Sim, y0 []float64, steps int) bool {
	must(s.SetState(y0, 0))
	res, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: 1}, Dt: benchmarks.ChainDt, Steps: min(steps, 100)})
	must(err)
	return res.Replays > 0
}

// --- memory bandwidth -----------------------------------------------------

// triad measures a STREAM-style triad a[i] = b[i] + s·c[i] over three
// arrays of 2^23 values (64 MiB each, far beyond the caches), on one
// goroutine and split over two, and keeps the best of several runs: the
// bandwidth a streaming loop reaches on this machine, 24 bytes per
// element (two loads and a store; write-allocate traffic not counted,
// as STREAM does not count it).
func (r *report) triad() {
	log.Printf("triad")
	const n = 1 << 23
	a, b, c := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range b {
		b[i], c[i] = float64(i), float64(n-i)
	}
	run := func(lo, hi int) {
		x, y, z := a[lo:hi], b[lo:hi], c[lo:hi]
		for i := range x {
			x[i] = y[i] + 3*z[i]
		}
	}
	best := repeat(
		func() time.Duration { t0 := time.Now(); run(0, n); return time.Since(t0) },
		func() time.Duration {
			t0 := time.Now()
			var wg sync.WaitGroup
			wg.Go(func() { run(0, n/2) })
			run(n/2, n)
			wg.Wait()
			return time.Since(t0)
		},
	)
	r.triadGBs = 24 * n / float64(best[0].Nanoseconds())
	r.triadGBs2 = 24 * n / float64(best[1].Nanoseconds())
}

// Bytes a W1 step moves to and from memory per mass at large N, counted
// from the layouts (see the report's text): the hand-written loop reads
// each mass's 6 state values and writes them back in place (the lines
// are already in cache: no write-allocate read); the fused graph step
// reads the state once (the masses re-read it from cache in the same
// block) and writes the next state to a second buffer, each write
// costing a write-allocate read and a write-back. The connectors' loads
// stay in a window in L1 (window mode, from 4 Ki compact output values:
// every N the bandwidth table shows), and equal parameters are read from
// one row (nothing per mass).
const (
	handBytesPerMass  = 2 * 48
	graphBytesPerMass = 48 + 2*48
)

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// --- granularity --------------------------------------------------------

type grainRow struct {
	n       int
	w1, w2  float64 // ns per mass-step, two workers with Grain 1
	speedup float64
}

// grainStudy measures, on sizes around the threshold, whether splitting
// a phase across two workers pays: Grain 1 forces it.
func (r *report) grainStudy() {
	for _, n := range []int{30, 100, 300, 1000, 3000, 10000} {
		if n > *maxN {
			break
		}
		log.Printf("granularity N=%d", n)
		c := benchmarks.Mode1(n)
		y0 := c.InitialState()
		s := buildChain(c)
		steps := 300
		best := repeat(
			func() time.Duration { return runSim(s, y0, steps, 1, 0) },
			func() time.Duration { return runSim(s, y0, steps, 2, 1) },
		)
		w1, w2 := nsPer(best[0], steps, n), nsPer(best[1], steps, n)
		r.grain = append(r.grain, grainRow{n: n, w1: w1, w2: w2, speedup: w1 / w2})
	}
}

// --- W1 monolithic ------------------------------------------------------

type monoRow struct {
	n, steps               int
	rk4Hand, rk4Graph      float64 // ns per mass-step
	dpHand, dpGraph        float64
	rk4Errs, dpErrs        benchmarks.Errors
	rk4Allocs, dpAllocs    float64
	rk4Identical, dpCloseH bool
}

func (r *report) monolithic() {
	rk4, _ := integrators.ByName(integrators.MethodRK4)
	dp, _ := integrators.ByName(integrators.MethodDormandPrince)
	for _, n := range r.ns {
		log.Printf("W1 monolithic N=%d", n)
		c := benchmarks.Mode1(n)
		y0 := c.InitialState()
		s := buildChain(c)
		steps := benchmarks.ChainSteps
		if n*steps > 1e7/2 {
			steps = max(10, int(1e7/2)/n) // keep the largest runs to seconds
		}
		row := monoRow{n: n, steps: steps}
		var gRK4, gDP, hRK4, hDP []float64
		mono := func(m integrators.Method, dst *[]float64) func() time.Duration {
			return func() time.Duration {
				must(s.SetState(y0, 0))
				t0 := clock()
				_, err := s.RunMonolithic(context.Background(), m, nil, graph.Settings{Dt: benchmarks.ChainDt, Steps: steps})
				d := clock() - t0
				must(err)
				*dst = s.State(*dst)
				return d
			}
		}
		// Each method is compared with its hand-written twin on its own:
		// the Sim keeps the stepper of the method it last ran (and
		// re-initialises it after SetState), as a user repeating runs of
		// one method finds it; alternating methods on one Sim would time
		// the allocation of a new stepper at every run.
		bestRK4 := repeat(
			func() time.Duration {
				h := benchmarks.NewHandRK4(n, y0)
				t0 := clock()
				for range steps {
					h.Step(benchmarks.ChainDt)
				}
				d := clock() - t0
				hRK4 = h.State()
				return d
			},
			mono(rk4, &gRK4),
		)
		bestDP := repeat(
			func() time.Duration {
				h := benchmarks.NewHandDP(n, y0)
				t0 := clock()
				for range steps {
					h.Step(benchmarks.ChainDt)
				}
				d := clock() - t0
				_, hDP = h.State()
				return d
			},
			mono(dp, &gDP),
		)
		row.rk4Hand, row.rk4Graph = nsPer(bestRK4[0], steps, n), nsPer(bestRK4[1], steps, n)
		row.dpHand, row.dpGraph = nsPer(bestDP[0], steps, n), nsPer(bestDP[1], steps, n)
		tEnd := float64(steps) * benchmarks.ChainDt
		row.rk4Errs, row.dpErrs = c.Measure(gRK4, tEnd), c.Measure(gDP, tEnd)
		row.rk4Identical, row.dpCloseH = agree(gRK4, hRK4), agree(gDP, hDP)
		row.rk4Allocs = stepperAllocs(s, y0, rk4)
		row.dpAllocs = stepperAllocs(s, y0, dp)
		r.mono = append(r.mono, row)
	}
}

// agree reports agreement to 1e-13 of the chain amplitude.
func agree(a, b []float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-13*benchmarks.ChainAmplitude {
			return false
		}
	}
	return len(a) == len(b)
}

// stepperAllocs counts the allocations per RunMonolithic step: runs of 2k
// and k steps differ by k steps.
func stepperAllocs(s *graph.Sim, y0 []float64, m integrators.Method) float64 {
	count := func(steps int) uint64 {
		var a, b runtime.MemStats
		must(s.SetState(y0, 0))
		runtime.ReadMemStats(&a)
		_, err := s.RunMonolithic(context.Background(), m, nil, graph.Settings{Dt: benchmarks.ChainDt, Steps: steps})
		runtime.ReadMemStats(&b)
		must(err)
		return b.Mallocs - a.Mallocs
	}
	return perStepAllocs(count)
}

// perStepAllocs is the allocations per step from count (the allocations
// of a run of the given steps): the difference of runs of 2k and k steps
// over k, the least in magnitude of three tries, rounded to a whole
// number (see allocsPerStep).
func perStepAllocs(count func(steps int) uint64) float64 {
	const k = 30
	best := math.Inf(1)
	for range 3 {
		d := (float64(count(2*k)) - float64(count(k))) / k
		if math.Abs(d) < math.Abs(best) {
			best = d
		}
	}
	return math.Round(best) + 0 // + 0: no negative zero
}

// --- W1b adaptive -------------------------------------------------------

type adaptRow struct {
	n                   int
	steps, rejected     int
	evals               int
	hand, graph         float64 // ns per mass per right-hand side
	handWall, graphWall time.Duration
	errs                benchmarks.Errors
	sameSteps           bool
}

func (r *report) adaptive() {
	const end = 1.0
	for _, n := range r.ns {
		if n > 1000 {
			break // the modal reference costs O(N²) per mode sum
		}
		log.Printf("W1b adaptive N=%d", n)
		c := benchmarks.AllModes(n)
		y0 := c.InitialState()
		s := buildChain(c)
		row := adaptRow{n: n}
		var got []float64
		var h *benchmarks.HandDP
		var res *graph.Result
		best := repeat(
			func() time.Duration {
				h = benchmarks.NewHandDP(n, y0)
				t0 := clock()
				h.Integrate(end)
				return clock() - t0
			},
			func() time.Duration {
				must(s.SetState(y0, 0))
				t0 := clock()
				var err error
				res, err = s.Integrate(context.Background(), end, integrators.DormandPrince{}, nil)
				d := clock() - t0
				must(err)
				got = s.State(got)
				return d
			},
		)
		row.handWall, row.graphWall = best[0], best[1]
		row.steps, row.rejected, row.evals = res.Steps, res.Rejected, res.Integrator.FuncEvals
		row.sameSteps = res.Steps == h.Steps && res.Rejected == h.Rejected && res.Integrator.FuncEvals == h.Evals
		row.hand = float64(best[0].Nanoseconds()) / float64(h.Evals) / float64(n)
		row.graph = float64(best[1].Nanoseconds()) / float64(res.Integrator.FuncEvals) / float64(n)
		row.errs = c.Measure(got, end)
		r.adapt = append(r.adapt, row)
	}
}

// --- W2 bounce ----------------------------------------------------------

type bounceRow struct {
	name    string
	res     benchmarks.BounceResult
	err     float64
	wall    time.Duration
	errEach []float64
}

func (r *report) bounce() {
	log.Printf("W2 bounce")
	want := benchmarks.BounceImpacts(benchmarks.BounceEnd)
	add := func(name string, run func() (benchmarks.BounceResult, error)) {
		var res benchmarks.BounceResult
		best := repeat(func() time.Duration {
			t0 := time.Now()
			var err error
			res, err = run()
			must(err)
			return time.Since(t0)
		})
		row := bounceRow{name: name, res: res, err: res.MaxImpactError(), wall: best[0]}
		for i, t := range res.Impacts {
			if i < len(want) {
				row.errEach = append(row.errEach, t-want[i])
			}
		}
		r.bnc = append(r.bnc, row)
	}
	for _, tol := range []float64{1e-6, 1e-10} {
		add(fmt.Sprintf("Sim.Integrate, events, tol %g", tol), func() (benchmarks.BounceResult, error) { return benchmarks.BounceAdaptive(tol) })
	}
	for _, dt := range []float64{1e-2, 1e-3, 1e-4} {
		add(fmt.Sprintf("Sim.Run, fixed Δt = %g", dt), func() (benchmarks.BounceResult, error) { return benchmarks.BounceFixed(dt) })
	}
}

// --- W3 two-mass --------------------------------------------------------

type twoRow struct {
	run     benchmarks.TwoMassRun
	perStep float64 // ns
}

func (r *report) twoMass() {
	log.Printf("W3 two-mass")
	for _, m := range []integrators.SecondOrderMethod{integrators.Newmark{Beta: 0.25, Gamma: 0.5}, integrators.GeneralizedAlpha{RhoInf: 0.5}} {
		var run benchmarks.TwoMassRun
		best := repeat(func() time.Duration {
			t0 := time.Now()
			var err error
			run, err = benchmarks.TwoMass(m)
			must(err)
			return time.Since(t0)
		})
		r.two = append(r.two, twoRow{run: run, perStep: float64(best[0].Nanoseconds()) / benchmarks.TwoMassSteps})
	}
}

// --- scaling ------------------------------------------------------------

// fitExponent is the least-squares slope of log(cost per step) against
// log N over the rows with N ≥ 1000.
func fitExponent(ns []int, perMass []float64) float64 {
	var sx, sy, sxx, sxy, k float64
	for i, n := range ns {
		if n < 1000 {
			continue
		}
		x, y := math.Log(float64(n)), math.Log(perMass[i]*float64(n))
		sx, sy, sxx, sxy, k = sx+x, sy+y, sxx+x*x, sxy+x*y, k+1
	}
	if k < 2 {
		return math.NaN()
	}
	return (k*sxy - sx*sy) / (k*sxx - sx*sx)
}

func (r *report) scaling() {
	var ns []int
	var h, g1, g2 []float64
	for _, row := range r.co {
		ns = append(ns, row.n)
		h, g1, g2 = append(h, row.hand), append(g1, row.g1), append(g2, row.g2)
	}
	r.expHand, r.expGraph, r.expGraph2 = fitExponent(ns, h), fitExponent(ns, g1), fitExponent(ns, g2)
	for _, n := range benchmarks.BuildSizes() {
		log.Printf("build N=%d", n)
		_, c, err := benchmarks.MeasureBuild(n)
		if err != nil {
			log.Fatal(err)
		}
		r.builds = append(r.builds, c)
	}
}

// --- output -------------------------------------------------------------

func (r *report) markdown() string {
	var b strings.Builder
	w := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	w("<!-- Code generated by go run ./benchmarks/report; DO NOT EDIT. -->\n\n")
	w("# cosim performance report\n\n")
	w("Generated by `go run ./benchmarks/report` (flags: -max %d). The workloads and their exact solutions are described in package `benchmarks` (doc.go); how to run the Go benchmarks, benchstat and the profile are in README.md.\n\n", *maxN)
	w("## Machine\n\n")
	w("| CPU | cores | GOMAXPROCS | Go |\n|---|---|---|---|\n| %s | %d | %d | %s |\n\n", r.cpu, r.cores, r.procs, r.goVersion)
	w("The machine is shared with other work: every timing is the fastest of interleaved repetitions (budget %v per comparison), so a ratio compares runs made under the same load. Absolute numbers move by ±30 %% from run to run; the ratios move less.\n\n", *budget)

	r.targets(&b)

	w("## W1 chain-N, co-simulation (semi-implicit Euler, 1000 steps of 1 ms; 100 at N = 10⁶)\n\n")
	w("ns per mass-step (one mass and one connector advanced by one step). *hand*: benchmarks.HandSIE, the hand-written loop the targets compare with; *fused*: benchmarks.HandSIEFused, the same arithmetic with every value in registers (the floor); *per node*: Sim.Run with SetBatching(false), the per-node engine kept as the reference; *graph 1w/2w*: Sim.Run (batched) with 1 and 2 workers at the default Grain (%d); *2w forced*: Grain 1, every phase split. *bit-identical*: 1 and 2 workers, forced or not, and the per-node path end in the same bits, with no step replayed. Errors of the graph run against the damped modal solution at the end: *motion* relative to how far the chain moved, *state* relative to the amplitude.\n\n", r.defaultGran)
	w("| N | hand | fused | per node | graph 1w | ratio to hand | ratio to fused | graph 2w | speed-up | 2w forced | speed-up forced | bit-identical | error (motion) | error (state) | allocs/step 1w | allocs/step 2w |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range r.co {
		g2, sp := fmt.Sprintf("%.1f", c.g2), fmt.Sprintf("**%.2f**", c.g1/c.g2)
		if c.sequential {
			g2, sp = "= 1w", "1 (sequential below Grain)"
		}
		w("| %d | %.1f | %.1f | %.1f | %.1f | **%.2f** | %.2f | %s | %s | %.1f | %.2f | %v | %.2e | %.2e | %g | %g |\n",
			c.n, c.hand, c.fused, c.perNode, c.g1, c.g1/c.hand, c.g1/c.fused, g2, sp, c.g2forced, c.g1/c.g2forced, c.identical && !c.replays, c.errs.Motion, c.errs.State, c.allocsStep, c.allocsStep2)
	}
	w("\nThe error of semi-implicit Euler is first order: for the slow modes of long chains it is Δt/t = 1e-3 of the motion, as the table shows; the hand-written loop has the same error (the graph matches it bit for bit on amd64, tested).\n\n")
	w("### Memory bandwidth\n\n")
	w("A STREAM-style triad (a[i] = b[i] + 3·c[i] over three 64 MiB arrays, 24 bytes per element) reaches %.1f GB/s on one goroutine and %.1f GB/s on two in this run. A W1 step moves, per mass, about %d bytes to and from memory in the hand-written loop (the state read and written back in place) and about %d in the graph's fused step (the state read once — the masses re-read it from cache in the same block —, the next state written to a second buffer, each write with its write-allocate read; the connectors' loads stay in a small window in L1, and equal parameters are read from one row). At the sizes that do not fit in the caches these give:\n\n", r.triadGBs, r.triadGBs2, handBytesPerMass, graphBytesPerMass)
	w("| N | hand GB/s | graph 1w GB/s | graph 2w GB/s | graph 2w / triad (2 goroutines) |\n|---|---|---|---|---|\n")
	for _, c := range r.co {
		if c.n < 100000 {
			continue
		}
		w("| %d | %.1f | %.1f | %.1f | %.0f %% |\n", c.n, handBytesPerMass/c.hand, graphBytesPerMass/c.g1, graphBytesPerMass/c.g2, 100*graphBytesPerMass/c.g2/r.triadGBs2)
	}
	w("\n")

	w("### Granularity: when do two workers pay?\n\n")
	w("300 steps with one worker against two workers with Grain 1 (every phase split, whatever its size). A phase of the chain has N+1 connector evaluations or N mass updates.\n\n")
	w("| N | 1 worker (ns/mass-step) | 2 workers, Grain 1 | speed-up |\n|---|---|---|---|\n")
	for _, g := range r.grain {
		w("| %d | %.1f | %.1f | %.2f |\n", g.n, g.w1, g.w2, g.speedup)
	}
	w("\ngraph.DefaultGrain = %d node evaluations per phase: phases smaller than that run on the calling goroutine.\n\n", r.defaultGran)

	w("## W1 chain-N, monolithic (fixed step through Sim.RunMonolithic)\n\n")
	w("ns per mass-step; *hand*: the same method over flat arrays (benchmarks.HandRK4, HandDP with the integrators' tableau and combinations). Errors against the modal solution at the end of the run, relative to the amplitude; the graph agrees with the hand-written method to 1e-13 of the amplitude (*agrees*).\n\n")
	w("| N | steps | RK4 hand | RK4 graph | ratio | DP hand | DP graph | ratio | RK4 error | DP error | agrees | allocs/step RK4 | allocs/step DP |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, m := range r.mono {
		w("| %d | %d | %.1f | %.1f | **%.1f** | %.1f | %.1f | **%.1f** | %.2e | %.2e | %v | %g | %g |\n",
			m.n, m.steps, m.rk4Hand, m.rk4Graph, m.rk4Graph/m.rk4Hand, m.dpHand, m.dpGraph, m.dpGraph/m.dpHand, m.rk4Errs.State, m.dpErrs.State, m.rk4Identical && m.dpCloseH, m.rk4Allocs, m.dpAllocs)
	}
	w("\n## W1b all modes, adaptive Dormand–Prince (Sim.Integrate, RTol 1e-6, ATol 1e-9, to t = 1 s)\n\n")
	w("Initial displacement Σ_j (0.01/j)·sin(jπi/(N+1)), every mode. *hand*: benchmarks.HandDP.Integrate, the same controller; *same steps*: both took the same accepted and rejected steps and evaluations. Cost in ns per mass per right-hand-side evaluation; error relative to the amplitude.\n\n")
	w("| N | steps | rejected | RHS evals | hand | graph | ratio | wall hand | wall graph | same steps | error (state) |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, a := range r.adapt {
		w("| %d | %d | %d | %d | %.1f | %.1f | **%.1f** | %v | %v | %v | %.2e |\n", a.n, a.steps, a.rejected, a.evals, a.hand, a.graph, a.graph/a.hand, a.handWall.Round(time.Microsecond), a.graphWall.Round(time.Microsecond), a.sameSteps, a.errs.State)
	}
	w("\n")
	r.smallMarkdown(&b, false)
	w("## W2 bounce (h0 = 10 m, e = 0.9, 10 s)\n\n")
	w("Analytic impacts %s s.\n\n", fmtList(benchmarks.BounceImpacts(benchmarks.BounceEnd), "%.7f"))
	w("| run | impacts found | impact errors (s) | max error (s) | steps | evaluations | wall |\n|---|---|---|---|---|---|---|\n")
	for _, x := range r.bnc {
		w("| %s | %d | %s | %.2e | %d | %d | %v |\n", x.name, len(x.res.Impacts), fmtList(x.errEach, "%+.1e"), x.err, x.res.Steps, x.res.Evals, x.wall.Round(time.Microsecond))
	}
	w("\nFixed-step co-simulation resolves contact at the end of the step that crosses the table, so each impact is late or early by up to a step, and the first-order energy error of each flight moves the later impacts further. Event localization finds the crossing of the dense output to the event tolerance.\n\n")
	w("## W3 two-mass (two-mass problem, dt = 0.1 s, 120 steps)\n\n")
	w("Cost only: the accuracy table (energy retained, phase lag) belongs to benchmarks/structuralmodes. Runs through Method.NewSecondOrder with the analytic acceleration Jacobian, carrying the history between steps (each Advance returns fresh history slices).\n\n")
	w("| method | steps | RHS evals | per step | Newton iterations | per step | LU factorizations | ns per step |\n|---|---|---|---|---|---|---|---|\n")
	for _, t := range r.two {
		s := t.run.Stats
		w("| %s | %d | %d | %.2f | %d | %.2f | %d | %.0f |\n", t.run.Method, s.Steps, s.FuncEvals, t.run.RHSPerStep(), s.NewtonIters, t.run.NewtonPerStep(), s.Factorize, t.perStep)
	}
	if len(r.two) == 2 {
		w("\nGeneralized-alpha ρ∞ = 0.5 costs %.2f× Newmark per step here.\n", r.two[1].perStep/r.two[0].perStep)
	}
	w("\n")
	w4Markdown(&b)
	w("\n")
	w4aMarkdown(&b)
	w("\n")
	schedMarkdown(&b)
	w5Markdown(&b)
	w6Markdown(&b)
	fmiMarkdown(&b)
	w("\n## Scaling\n\n")
	w("Fitted exponent of the time per step against N over N ≥ 1000 (1 = linear): hand-written %.3f, graph 1 worker %.3f, graph 2 workers %.3f.\n\n", r.expHand, r.expGraph, r.expGraph2)
	w("Build of the N = … chain (Chain.Build: nodes, wiring, graph.Build; CPU is the process's user and system time over the build, garbage collection included, which the machine's load does not inflate as it does wall time):\n\n")
	w("| N | nodes | edges | wall | CPU | live heap per node | allocations per node |\n|---|---|---|---|---|---|---|\n")
	for _, c := range r.builds {
		w("| %d | %d | %d | %v | %v | %.0f B | %.1f |\n", c.N, c.Nodes, c.Edges, c.Wall.Round(time.Millisecond), c.CPU.Round(time.Millisecond), c.BytesPerNode(), c.AllocsPerNode())
	}
	w("\n")
	w("![cost per step against N](cost-vs-n.png)\n")
	return b.String()
}

func fmtList(xs []float64, f string) string {
	var parts []string
	for _, x := range xs {
		parts = append(parts, fmt.Sprintf(f, x))
	}
	return strings.Join(parts, ", ")
}

// targets writes the summary of the performance targets, met or not.
func (r *report) targets(out io.Writer) {
	w := func(f string, a ...any) { fmt.Fprintf(out, f, a...) }
	yes := metWord
	w("## Targets\n\n| target | measured | status |\n|---|---|---|\n")
	worstCo, worstFused, okAlloc, okIdent := 0.0, 0.0, true, true
	for _, c := range r.co {
		if c.n >= 1000 && c.n <= 100000 {
			worstCo = math.Max(worstCo, c.g1/c.hand)
			worstFused = math.Max(worstFused, c.g1/c.fused)
		}
		okAlloc = okAlloc && c.allocsStep == 0 && c.allocsStep2 == 0
		okIdent = okIdent && c.identical && !c.replays
	}
	w("| W1 co-simulation, 1 worker, ≤ 1.5× HandSIE at N = 1 000, 10 000, 100 000 | worst ratio %.2f | %s |\n", worstCo, yes(worstCo <= 1.5))
	w("| the same against the fused single-pass loop (HandSIEFused) | worst ratio %.2f | stated |\n", worstFused)
	worstMono := 0.0
	for _, m := range r.mono {
		if m.n >= 1000 {
			worstMono = math.Max(worstMono, math.Max(m.rk4Graph/m.rk4Hand, m.dpGraph/m.dpHand))
		}
		okAlloc = okAlloc && m.rk4Allocs == 0 && m.dpAllocs == 0
	}
	w("| monolithic RK4 and Dormand–Prince ≤ 1.5× HandRK4/HandDP at N ≥ 1 000 | worst ratio %.2f | %s |\n", worstMono, yes(worstMono <= 1.5))
	worstAd := 0.0
	for _, a := range r.adapt {
		worstAd = math.Max(worstAd, a.graph/a.hand)
	}
	w("| adaptive W1b ≤ 1.5× HandDP.Integrate | worst ratio %.2f | %s |\n", worstAd, yes(worstAd <= 1.5))
	if s10, s100 := r.smallWorst(); s10 > 0 && s100 > 0 {
		w("| small graphs, every mode (co-simulation, RK4, Dormand–Prince, adaptive W1b): ≤ 1.5× the hand-written loop at N = 10, ≤ 1.2× at N = 100 | worst ratio %.2f at N = 10, %.2f at N = 100 | %s |\n", s10, s100, yes(s10 <= 1.5 && s100 <= 1.2))
	}
	w("| 0 allocs per step (co-simulation 1 and 2 workers, fixed-step monolithic), every N | see tables | %s |\n", yes(okAlloc))
	slowest, worstBig := math.Inf(1), math.Inf(1)
	for _, c := range r.co {
		if c.sequential {
			continue // the same code as one worker
		}
		slowest = math.Min(slowest, c.g1/c.g2)
		if c.n >= 10000 {
			worstBig = math.Min(worstBig, c.g1/c.g2)
		}
	}
	w("| 2 workers never slower than 1 (default Grain) | lowest speed-up %.2f where phases are split; below Grain (%d) 2 workers run the 1-worker code | %s |\n", slowest, r.defaultGran, yes(slowest >= 0.95))
	w("| 2 workers ≥ 1.5× one worker at N ≥ 10 000 | lowest %.2f× | %s |\n", worstBig, yes(worstBig >= 1.5))
	w("| bit-identical for any worker count and between the batched and per-node paths | every N | %s |\n", yes(okIdent))
	w("| W1 cost per mass-step flat from 1 000 to %d (fitted exponent ≤ 1.05) | exponent %.3f (graph, 1 worker; the hand-written loop's in the same run: %.3f) | %s |\n", r.ns[len(r.ns)-1], r.expGraph, r.expHand, yes(r.expGraph <= 1.05))
	w("\n(The never-slower criterion allows 5 %% for timing noise.)\n\n")
	w("benchmarks/README.md has the profile of a W1 step after the batched engine and what bounds what remains.\n\n")
}

// plot draws the time per step against N, log-log.
func (r *report) plot(path string) error {
	p := plot.New()
	p.Title.Text = "W1 chain: time per step against N"
	p.X.Label.Text = "N (masses)"
	p.Y.Label.Text = "time per step (ns)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	type series struct {
		name string
		pts  plotter.XYs
	}
	var ss []series
	add := func(name string, xs []int, ys []float64) {
		var pts plotter.XYs
		for i, x := range xs {
			pts = append(pts, plotter.XY{X: float64(x), Y: ys[i] * float64(x)})
		}
		ss = append(ss, series{name, pts})
	}
	var ns []int
	var h, g1, g2 []float64
	for _, c := range r.co {
		ns = append(ns, c.n)
		h, g1, g2 = append(h, c.hand), append(g1, c.g1), append(g2, c.g2)
	}
	add("co-sim hand-written", ns, h)
	add("co-sim graph, 1 worker", ns, g1)
	add("co-sim graph, 2 workers", ns, g2)
	var mn []int
	var rh, rg, dg []float64
	for _, m := range r.mono {
		mn = append(mn, m.n)
		rh, rg, dg = append(rh, m.rk4Hand), append(rg, m.rk4Graph), append(dg, m.dpGraph)
	}
	add("RK4 hand-written", mn, rh)
	add("RK4 graph", mn, rg)
	add("Dormand-Prince graph", mn, dg)
	for i, s := range ss {
		l, sc, err := plotter.NewLinePoints(s.pts)
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(i)
		sc.Color = plotutil.Color(i)
		sc.Shape = draw.CircleGlyph{}
		if i >= 3 {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(l, sc)
		p.Legend.Add(s.name, l, sc)
	}
	p.Add(plotter.NewGrid())
	return p.Save(7*vg.Inch, 5*vg.Inch, path)
}
