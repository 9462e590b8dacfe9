package main

// W4 stiff chain: implicit integration of large graphs. Everything W4
// needs is in this file; main.go calls runW4 and w4Markdown and nothing
// else. Each configuration runs in a child process (this command with
// -w4-child, or a C peer of benchmarks/peers), so that its peak memory is
// its own: the child's ru_maxrss as wait4 reports it, the same measure for
// cosim and the peers. Every configuration of one N runs once per round,
// interleaved with the others, for -w4-rounds rounds; the report keeps
// each one's fastest round, so the ratios between cosim and the peers are
// taken in the same run under the same load.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cosimgo/cosim/benchmarks"
	"github.com/cosimgo/cosim/integrators"
)

var (
	w4Only   = flag.Bool("w4", false, "run only W4 (stiff chain, implicit with GMRES) and replace its section in REPORT.md")
	w4Max    = flag.Int("w4-max", 100000, "largest W4 chain")
	w4Rounds = flag.Int("w4-rounds", 3, "rounds of W4's configurations at each N (interleaved; the fastest round of each is kept)")
	w4GOGC   = flag.Int("w4-gogc", 25, "GOGC of cosim's W4 children: benchmarks/README's guidance for large runs (Go's default is 100)")
)

const (
	w4Begin = "<!-- W4 begin -->"
	w4End   = "<!-- W4 end -->"
)

// w4Sizes are the chain sizes; w4Steps the steps run at each (the first
// step builds the Jacobian plan and the first matrix; the 20 after it
// include one re-assembly at the default JacobianMaxAge, so the later
// steps carry the amortized assembly cost).
var (
	w4Sizes   = []int{100, 1000, 10000, 100000}
	w4Steps   = 21
	w4Methods = []string{integrators.MethodBackwardEuler, integrators.MethodGeneralizedAlpha}
	w4Solvers = []string{"dense", "gmres+block-jacobi", "gmres+ilu0", "banded"}
	// Dense LU runs at N = 100 only: at N = 1000 the Newton matrix has
	// 6000² entries (288 MB) and one factorization takes about 1000× the
	// N = 100 one (the table gives the estimate).
	w4DenseMax = 100
)

// w4Result is one configuration's measurement: cosim's child's JSON
// (benchmarks.W4Run) or a peer's, which prints the same fields and its
// name (w4.h), with what the parent adds.
type w4Result struct {
	benchmarks.W4Run
	Peer   string `json:"peer,omitempty"` // "" for cosim, else benchmarks.W4Peer.Name
	Lib    string `json:"lib,omitempty"`  // the peer's library and version
	PeakKB int64  `json:"peak_rss_kb"`    // the child's ru_maxrss, set by the parent
	GOGC   int    `json:"gogc,omitempty"` // cosim children: the GOGC they ran with, set by the parent
}

// perStep is the wall time of one later step.
func (r w4Result) perStep() time.Duration {
	return r.Later / time.Duration(max(r.Steps-1, 1))
}

// code names who ran the configuration: "cosim" (with its GOGC when it
// is not the run's) or the peer's library.
func (r w4Result) code() string {
	if r.Peer == "" {
		if r.GOGC != *w4GOGC {
			return fmt.Sprintf("cosim, GOGC=%d", r.GOGC)
		}
		return "cosim"
	}
	return r.Lib
}

// bytesPerState is the peak RSS over the number of states.
func (r w4Result) bytesPerState() float64 { return float64(r.PeakKB) * 1024 / float64(6*r.N) }

// w4Report is the W4 section's data.
type w4Report struct {
	rows      []w4Result
	exponents map[string]float64 // method/solver → fitted exponent over N ≥ 1000
	agree     []string           // GMRES vs dense at N = 100
	cross     []crossRow
	missing   []string // peers not run, and why
	ran       bool
}

type crossRow struct {
	method       string
	n            int
	dense, gmres time.Duration
}

var w4 w4Report

// buildW4Child builds the command that runs one cosim configuration
// (benchmarks/report/w4child) into dir: the peak resident size of a
// process that runs W4 only, as the peers are, and not the report's.
func buildW4Child(dir string) string {
	exe := filepath.Join(dir, "w4child")
	cmd := exec.Command("go", "build", "-o", exe, "github.com/cosimgo/cosim/benchmarks/report/w4child")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	must(cmd.Run())
	return exe
}

// w4Config is one configuration of a W4 round: cosim's (method, solver)
// or a peer's.
type w4Config struct {
	method, solver string
	peer           *benchmarks.W4Peer
	pc             benchmarks.W4PeerConfig
	exe            string // the built peer, or cosim's w4child
	gogc           int    // cosim: the child's GOGC
}

// command returns the child process of c on n masses.
func (c w4Config) command(n, steps int) *exec.Cmd {
	if c.peer != nil {
		return benchmarks.W4PeerCommand(context.Background(), c.exe, c.pc, n, steps)
	}
	cmd := exec.Command(c.exe, fmt.Sprintf("%d,%s,%s,%d", n, c.method, c.solver, steps))
	cmd.Env = append(os.Environ(), fmt.Sprintf("GOGC=%d", c.gogc))
	return cmd
}

// run runs c in a child process and returns its result with the child's
// peak RSS (ru_maxrss, kB on Linux).
func (c w4Config) run(n, steps int) w4Result {
	fail := w4Result{W4Run: benchmarks.W4Run{N: n, Method: c.method, Solver: c.solver, Steps: steps}, GOGC: c.gogc}
	if c.peer != nil {
		fail.Peer, fail.Lib, fail.Method, fail.Solver = c.peer.Name, c.peer.Name, integrators.MethodBackwardEuler, c.pc.Solver
	}
	cmd := c.command(n, steps)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		fail.Failed = "child process: " + err.Error()
		return fail
	}
	var r w4Result
	if err := json.Unmarshal(bytes.TrimSpace(out), &r); err != nil {
		fail.Failed = "child output: " + err.Error()
		return fail
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.PeakKB = ru.Maxrss
	}
	if c.peer == nil {
		r.GOGC = c.gogc
	}
	return r
}

// w4Peers builds the peers into dir and returns their configurations;
// the peers that cannot be built are recorded in w4.missing.
func w4Peers(dir string) []w4Config {
	var cs []w4Config
	all := benchmarks.W4Peers()
	for i := range all {
		p := &all[i]
		exe, err := benchmarks.BuildW4Peer(context.Background(), *p, dir)
		if err != nil {
			if !errors.Is(err, benchmarks.ErrPeerUnavailable) {
				log.Print(err)
			}
			w4.missing = append(w4.missing, err.Error())
			continue
		}
		for _, pc := range p.Configs {
			cs = append(cs, w4Config{method: integrators.MethodBackwardEuler, solver: pc.Solver, peer: p, pc: pc, exe: exe})
		}
	}
	return cs
}

// runW4 measures W4.
func runW4() {
	w4.ran = true
	w4.exponents = map[string]float64{}
	dir, err := os.MkdirTemp("", "cosim-w4-peers")
	must(err)
	defer os.RemoveAll(dir)
	peers := w4Peers(dir)
	child := buildW4Child(dir)
	largest := 0
	for _, n := range w4Sizes {
		if n <= *w4Max {
			largest = n
		}
	}
	for _, n := range w4Sizes {
		if n > *w4Max {
			continue
		}
		var cs []w4Config
		for _, m := range w4Methods {
			for _, sv := range w4Solvers {
				if sv != "dense" || n <= w4DenseMax {
					cs = append(cs, w4Config{method: m, solver: sv, gogc: *w4GOGC, exe: child})
				}
			}
		}
		if n == largest && *w4GOGC != 100 {
			// The memory at Go's default GC, for the record.
			cs = append(cs, w4Config{method: integrators.MethodBackwardEuler, solver: "gmres+ilu0", gogc: 100, exe: child})
		}
		cs = append(cs, peers...)
		best := make([]w4Result, len(cs))
		for round := 0; round < max(*w4Rounds, 1); round++ {
			for i, c := range cs {
				log.Printf("W4 N=%d round %d: %s %s %s", n, round+1, c.method, c.solver, c.exe)
				r := c.run(n, w4Steps)
				if round == 0 || best[i].Failed != "" || r.Failed == "" && r.perStep() < best[i].perStep() {
					best[i] = r
				}
			}
		}
		w4.rows = append(w4.rows, best...)
	}
	// GMRES against dense where both ran.
	for _, m := range w4Methods {
		var dense *w4Result
		for i := range w4.rows {
			if r := &w4.rows[i]; r.Peer == "" && r.Method == m && r.Solver == "dense" && r.State != nil {
				dense = r
			}
		}
		if dense == nil {
			continue
		}
		for _, r := range w4.rows {
			if r.Peer != "" || r.Method != m || r.N != dense.N || r.Solver == "dense" || r.State == nil {
				continue
			}
			d := 0.0
			for i := range r.State {
				d = math.Max(d, math.Abs(r.State[i]-dense.State[i]))
			}
			w4.agree = append(w4.agree, fmt.Sprintf("%s %s: max |Δy| = %.2g against dense", m, r.Solver, d))
		}
	}
	// Fitted exponents of the later-step cost over N ≥ 1000.
	for _, m := range w4Methods {
		for _, sv := range w4Solvers[1:] {
			var ns []int
			var per []float64
			for _, r := range w4.rows {
				if r.Peer == "" && r.GOGC == *w4GOGC && r.Method == m && r.Solver == sv && r.Failed == "" {
					ns = append(ns, r.N)
					per = append(per, r.perStep().Seconds()/float64(r.N))
				}
			}
			w4.exponents[m+" "+sv] = fitExponent(ns, per)
			var cpu []float64
			for _, r := range w4.rows {
				if r.Peer == "" && r.GOGC == *w4GOGC && r.Method == m && r.Solver == sv && r.Failed == "" {
					cpu = append(cpu, (r.LaterCPU/time.Duration(max(r.Steps-1, 1))).Seconds()/float64(r.N))
				}
			}
			w4.exponents["cpu "+m+" "+sv] = fitExponent(ns, cpu)
		}
	}
	// The LinearAuto crossover: dense against GMRES + block-Jacobi on
	// small chains, in this process (best of three).
	for _, m := range w4Methods {
		meth, err := integrators.ByName(m)
		must(err)
		for _, n := range []int{1, 2, 4, 8, 16} {
			row := crossRow{method: m, n: n}
			for k, sv := range []string{"dense", "gmres+block-jacobi"} {
				best := time.Duration(math.MaxInt64)
				for range 3 {
					r, err := benchmarks.RunStiff(n, meth.(integrators.NewtonMethod), sv, 50, false)
					must(err)
					best = min(best, r.PerStep())
				}
				if k == 0 {
					row.dense = best
				} else {
					row.gmres = best
				}
			}
			w4.cross = append(w4.cross, row)
		}
	}
}

// w4Markdown writes the W4 section, between its markers.
func w4Markdown(b *strings.Builder) {
	w := func(f string, a ...any) { fmt.Fprintf(b, f, a...) }
	w("%s\n## W4 stiff chain, implicit (k = 1e7 N/m, c = 10 N·s/m, dt = 1 ms)\n\n", w4Begin)
	if !w4.ran {
		w("Not measured in this run (go run ./benchmarks/report -w4).\n\n%s\n", w4End)
		return
	}
	w("N masspoints between two walls joined by N+1 springdampers, k = 1e7 N/m and c = 10 N·s/m on every axis, first mode (A = 0.01 m), dt = 1 ms: the fastest mode has ω·dt ≈ 6.3, where every explicit method is unstable. Monolithic (Sim.RunMonolithic) backward Euler and generalized-alpha ρ∞ = 0.5, %d steps, Newton tolerance 1e-10, Eisenstat–Walker forcing (KrylovTol 1e-6), GMRES(30); the Jacobian is the graph's sparse assembly (masspoint's and springdamper's analytic local Jacobians), reused for up to 20 steps. ", w4Steps)
	w("The peers are the same problem written in C against PETSc (TS BEULER, GMRES(30) with ILU(0) or point-block Jacobi over the 6 states of a mass, on an AIJ matrix of the Jacobian's non-zeros) and SUNDIALS ARKODE (backward Euler as a one-stage DIRK, band LU), built from benchmarks/peers with gcc -O2 and run with cosim's Newton test (max|Δx| ≤ 1e-10·(1 + max|x|) after each update, the residual playing no part), predictor, forcing terms and Jacobian reuse (a new Newton matrix every 20 steps); each C file's header says how. ")
	w("Each configuration runs in its own process, once per round for %d rounds interleaved with the others of the same N, and the table keeps its fastest round, so every ratio below is taken in this run under the same load. *peak RSS* is the process's ru_maxrss (Build or set-up included), *B/state* that over the 6N states. cosim's configurations run in benchmarks/report/w4child, a program that runs W4 only (benchmarks.RunW4), as each peer is a program of its own; they run with GOGC=%d, the guidance of benchmarks/README for large runs (a step allocates nothing, so the collector works only during Build and the first assembly, and a low GOGC keeps the peak near the live heap); the row marked GOGC=100 is Go's default, at the largest N, for the record. *first step* includes building the Jacobian plan, the first assembly and the preconditioner; *per step* is the mean of the %d steps after it (one re-assembly among them). *CPU per step* is the process's user + system time over those steps (all threads, the garbage collector's included): on a shared machine it says what the step costs when wall time is inflated by other work. Newton and linear iterations, evaluations of f and Jacobians are over those later steps. Errors against the damped modal solution at t = %d ms: *state* relative to the amplitude, *motion* relative to how far the chain moved.\n\n", max(*w4Rounds, 1), *w4GOGC, w4Steps-1, w4Steps)
	if len(w4.missing) > 0 {
		w("**Peers not run**: %s.\n\n", strings.Join(w4.missing, "; "))
	}
	w("| N | states | code | method | solver | build | first step | per step | CPU per step | Newton / step | linear its / step | f / step | Jacobians | peak RSS | B/state | error (state) | error (motion) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	var dense100 time.Duration
	for _, r := range w4.rows {
		if r.Failed != "" {
			w("| %d | %d | %s | %s | %s | | | **failed**: %s | | | | | | | | | |\n", r.N, 6*r.N, r.code(), r.Method, r.Solver, r.Failed)
			continue
		}
		if r.Peer == "" && r.Solver == "dense" && r.Method == integrators.MethodBackwardEuler {
			dense100 = r.perStep()
		}
		k := float64(max(r.Steps-1, 1))
		w("| %d | %d | %s | %s | %s | %v | %v | **%v** | %v | %.2f | %.2f | %.2f | %d | %.0f MB | %.0f | %.2e | %.2e |\n", r.N, 6*r.N, r.code(), r.Method, r.Solver,
			r.Build.Round(time.Millisecond), r.First.Round(time.Microsecond), r.perStep().Round(time.Microsecond), (r.LaterCPU / time.Duration(max(r.Steps-1, 1))).Round(time.Microsecond),
			float64(r.Stats.NewtonIters)/k, float64(r.Stats.LinearIters)/k, float64(r.Stats.FuncEvals)/k, r.Stats.JacEvals, float64(r.PeakKB)/1024, r.bytesPerState(), r.Err.State, r.Err.Motion)
	}
	if dense100 > 0 {
		w("\nDense LU was run at N = %d only: at N = 1000 its matrix has 6000² entries (288 MB) and LU costs (1000/%d)³ = 1000× more per factorization, about %v per step by that scaling.\n", w4DenseMax, w4DenseMax, (dense100 * 1000).Round(time.Second))
	}
	w4PeerRatios(w)
	w("\n**GMRES against dense** (same method, N = %d, after %d steps; both stop Newton at max|Δx| ≤ 1e-10·(1 + max|x|)): %s.\n\n", w4DenseMax, w4Steps, strings.Join(w4.agree, "; "))
	w("**Cost per step against N** (fitted exponent of the per-step time over N ≥ 1000, target ≤ 1.1), wall time / CPU time:")
	for _, m := range w4Methods {
		for _, sv := range w4Solvers[1:] {
			w(" %s %s %.3f / %.3f;", m, sv, w4.exponents[m+" "+sv], w4.exponents["cpu "+m+" "+sv])
		}
	}
	w(" (Measured on a machine shared with other work: two runs of this command gave exponents differing by up to 0.22. The cost per mass-step also steps up between N = 1000, whose 6 000-state matrices fit in the caches, and N ≥ 10 000, where every sparse sweep streams from memory.)")
	w("\n\n**LinearAuto threshold** (integrators.AutoDenseMax = %d unknowns): per step over 50 steps, best of three, dense LU against GMRES + block-Jacobi on small chains (6 states per mass).\n\n| method | masses | states | dense | GMRES + block-Jacobi |\n|---|---|---|---|---|\n", integrators.AutoDenseMax)
	for _, c := range w4.cross {
		w("| %s | %d | %d | %v | %v |\n", c.method, c.n, 6*c.n, c.dense.Round(time.Microsecond/10), c.gmres.Round(time.Microsecond/10))
	}
	w("\nDense LU forms and factors the Jacobian at every Newton iteration; GMRES reuses its matrix and preconditioner while Newton converges fast, which is why it wins from the smallest chains on this linear problem. Auto keeps dense LU up to %d unknowns, where both cost well under a millisecond and dense LU is the exact Newton iteration.\n\n%s\n", integrators.AutoDenseMax, w4End)
}

// w4Find returns the row of (peer, method, solver) at n, or nil.
func w4Find(n int, peer, method, solver string) *w4Result {
	for i := range w4.rows {
		if r := &w4.rows[i]; r.N == n && r.Peer == peer && r.Method == method && r.Solver == solver && r.Failed == "" && (peer != "" || r.GOGC == *w4GOGC) {
			return r
		}
	}
	return nil
}

// w4PeerRatios writes the comparison with the peers and the targets:
// cosim's backward Euler per step and peak memory over the peer's, for
// every pair of the same algorithm, and every cosim solver against
// PETSc's GMRES + ILU(0).
func w4PeerRatios(w func(string, ...any)) {
	be := integrators.MethodBackwardEuler
	type pair struct{ cosim, peer, peerSolver string }
	pairs := []pair{{"gmres+ilu0", "petsc", "gmres+ilu0"}, {"banded", "petsc", "gmres+ilu0"}, {"gmres+block-jacobi", "petsc", "gmres+ilu0"},
		{"gmres+block-jacobi", "petsc", "gmres+pbjacobi"}, {"banded", "arkode", "banded"}}
	var lines []string
	for _, n := range w4Sizes {
		for _, p := range pairs {
			c, q := w4Find(n, "", be, p.cosim), w4Find(n, p.peer, be, p.peerSolver)
			if c == nil || q == nil {
				continue
			}
			lines = append(lines, fmt.Sprintf("| %d | %s | %s %s | %.2f× | %.2f× | %.0f / %.0f | %.2e / %.2e |", n, p.cosim, q.Lib, p.peerSolver,
				float64(c.perStep())/float64(q.perStep()), float64(c.LaterCPU)/float64(max(q.LaterCPU, 1)), c.bytesPerState(), q.bytesPerState(), c.Err.State, q.Err.State))
		}
	}
	if len(lines) == 0 {
		return
	}
	w("\n**cosim against the peers** (backward Euler, this run; per step: wall time of the fastest round; CPU: user + system over the same steps; error at t = %d ms, state, cosim / peer):\n\n| N | cosim solver | peer | per step, cosim / peer | CPU, cosim / peer | B/state, cosim / peer | error, cosim / peer |\n|---|---|---|---|---|---|---|\n%s\n", w4Steps, strings.Join(lines, "\n"))
	w("\n**Targets** (cosim backward Euler GMRES + ILU(0) against PETSc's GMRES(30) + ILU(0)): per step ≤ 1.0× PETSc at N = 10³, 10⁴, 10⁵; peak memory ≤ 400 bytes per state at N = 10⁵.")
	for _, n := range []int{1000, 10000, 100000} {
		c, q := w4Find(n, "", be, "gmres+ilu0"), w4Find(n, "petsc", be, "gmres+ilu0")
		if c == nil || q == nil {
			w(" N = %d: not measured;", n)
			continue
		}
		ratio := float64(c.perStep()) / float64(q.perStep())
		w(" N = %d: %.2f× (%s);", n, ratio, metWord(ratio <= 1))
	}
	if c := w4Find(100000, "", be, "gmres+ilu0"); c != nil {
		w(" peak at N = 100 000: %.0f B/state (%s).", c.bytesPerState(), metWord(c.bytesPerState() <= 400))
	}
	w("\n")
}

func metWord(ok bool) string {
	if ok {
		return "met"
	}
	return "**not met**"
}

func okWord(ok bool) string {
	if ok {
		return "met, <"
	}
	return "**not met**, ≥"
}

// w4Splice replaces the W4 section of the report at path (or appends it).
func w4Splice(path string) error {
	var b strings.Builder
	w4Markdown(&b)
	return splice(path, w4Begin, w4End, b.String())
}

// w4Main handles -w4; it reports whether main should stop.
func w4Main() bool {
	switch {
	case *w4Only:
		runW4()
		var b strings.Builder
		w4Markdown(&b)
		fmt.Print(b.String())
		must(w4Splice(filepath.Join(*dir, "REPORT.md")))
		return true
	}
	return false
}
