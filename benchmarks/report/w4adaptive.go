package main

// W4 adaptive: cosim's adaptive implicit methods against CVODE's BDF on
// the stiff chain, to t = 21 ms at RTol 1e-6, ATol 1e-9. Everything the
// comparison needs is in this file; main.go calls w4aMain, runW4A and
// w4aMarkdown and nothing else. Every run is a child process (cosim:
// this command with -w4a-child; CVODE: benchmarks/peers/cvode_w4.c,
// compiled here with gcc against libsundials-dev), so that peak memory
// is each run's own, and the rounds interleave the two codes so that the
// load of a shared machine falls on both alike.

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cosimgo/cosim/benchmarks"
	"github.com/cosimgo/cosim/integrators"
)

var (
	w4aOnly   = flag.Bool("w4a", false, "run only the adaptive W4 comparison with CVODE and replace its section in REPORT.md")
	w4aMax    = flag.Int("w4a-max", 100000, "largest chain of the adaptive W4 comparison")
	w4aRounds = flag.Int("w4a-rounds", 3, "interleaved rounds of the adaptive W4 comparison (the fastest of each is kept)")
	w4aChild  = flag.String("w4a-child", "", "internal: run one adaptive W4 configuration N,method,solver and print its result as JSON")
)

const (
	w4aBegin = "<!-- W4 adaptive begin -->"
	w4aEnd   = "<!-- W4 adaptive end -->"
	w4aRTol  = 1e-6
	w4aATol  = 1e-9
)

// w4aSizes are the chain sizes; w4aConfigs the cosim configurations.
var (
	w4aSizes   = []int{100, 1000, 10000, 100000}
	w4aConfigs = []struct{ method, solver string }{
		{integrators.MethodBDF, "banded"},
		{integrators.MethodBDF, "gmres+ilu0"},
		{integrators.MethodESDIRK43, "banded"},
	}
)

// w4aRun is one run of either code (the child's JSON, or CVODE's).
type w4aRun struct {
	N       int     `json:"n"`
	Code    string  `json:"code"` // "cvode" or the cosim method
	Solver  string  `json:"solver"`
	T       float64 `json:"t"`
	Steps   int     `json:"steps"`
	RHS     int     `json:"rhs"`    // right-hand-side evaluations
	RHSLS   int     `json:"rhs_ls"` // of them for finite-difference Jacobians (CVODE's nfeLS; cosim: 0)
	Jac     int     `json:"jac"`    // Jacobian evaluations
	Setups  int     `json:"setups"` // factorizations / preconditioner set-ups
	Newton  int     `json:"newton"`
	Krylov  int     `json:"krylov,omitempty"`
	Fails   int     `json:"err_fails"`
	ErrS    float64 `json:"err_state"`
	ErrM    float64 `json:"err_motion"`
	WallNs  float64 `json:"wall_ns"`
	CPUNs   float64 `json:"cpu_ns"`
	PeakKB  int64   `json:"peak_rss_kb"`
	Failed  string  `json:"failed,omitempty"`
	rounds  int
	minWall time.Duration
	minCPU  time.Duration
}

func (r w4aRun) work() int { return r.RHS + r.RHSLS + r.Jac }

type w4aReport struct {
	ran      bool
	cvodeErr string // why CVODE could not run, or ""
	cvodeBin string
	rows     map[string]*w4aRun // key: N/code/solver
	order    []string
	// The load average when the measurement started and ended: above the
	// number of cores, wall times are inflated by other work.
	loadStart, loadEnd string
}

var w4a w4aReport

// w4aChildMain runs one cosim configuration and prints it.
func w4aChildMain(spec string) {
	parts := strings.Split(spec, ",")
	if len(parts) != 3 {
		log.Fatalf("-w4a-child %q: want N,method,solver", spec)
	}
	n, err := strconv.Atoi(parts[0])
	must(err)
	m, err := integrators.ByName(parts[1])
	must(err)
	am, ok := m.(integrators.AdaptiveMethod)
	if !ok {
		log.Fatalf("-w4a-child: %s is not adaptive", parts[1])
	}
	am = am.WithControl(integrators.StepControl{RTol: w4aRTol, ATol: w4aATol})
	out := w4aRun{N: n, Code: am.Name(), Solver: parts[2]}
	r, err := benchmarks.RunStiffAdaptive(n, am, parts[2], benchmarks.StiffAdaptiveEnd, false)
	if err != nil {
		out.Failed = err.Error()
	}
	w := r.Work
	out.T, out.Steps, out.RHS, out.Jac, out.Setups, out.Newton, out.Krylov, out.Fails = r.T, w.Steps, w.FuncEvals, w.JacEvals, w.Factorize, w.NewtonIters, w.LinearIters, w.Rejected
	out.ErrS, out.ErrM, out.WallNs, out.CPUNs = r.Errors.State, r.Errors.Motion, float64(r.Wall.Nanoseconds()), float64(r.CPU.Nanoseconds())
	js, err := json.Marshal(out)
	must(err)
	fmt.Println(string(js))
}

// buildCVODE compiles the peer into a temporary directory.
func buildCVODE() (string, error) {
	src := filepath.Join(*dir, "peers", "cvode_w4.c")
	if _, err := os.Stat(src); err != nil {
		return "", fmt.Errorf("the peer's source %s is missing: %w", src, err)
	}
	if _, err := os.Stat("/usr/include/cvode/cvode.h"); err != nil {
		return "", errors.New("libsundials-dev is not installed (no /usr/include/cvode/cvode.h)")
	}
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		return "", errors.New("gcc is not installed")
	}
	tmp, err := os.MkdirTemp("", "cosim-cvode")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(tmp, "cvode_w4")
	cmd := exec.Command(gcc, "-O2", "-o", bin, src, "-lsundials_cvode", "-lsundials_nvecserial",
		"-lsundials_sunmatrixband", "-lsundials_sunlinsolband", "-lm")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("gcc: %v: %s", err, bytes.TrimSpace(out))
	}
	return bin, nil
}

// w4aRunChild runs one configuration in a child process.
func w4aRunChild(n int, code, solver string) w4aRun {
	var cmd *exec.Cmd
	if code == "cvode" {
		cmd = exec.Command(w4a.cvodeBin, strconv.Itoa(n), fmt.Sprint(w4aRTol), fmt.Sprint(w4aATol), fmt.Sprint(benchmarks.StiffAdaptiveEnd), "1")
	} else {
		exe, err := os.Executable()
		must(err)
		cmd = exec.Command(exe, "-w4a-child", fmt.Sprintf("%d,%s,%s", n, code, solver))
	}
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	r := w4aRun{N: n, Code: code, Solver: solver}
	if err != nil {
		r.Failed = "child process: " + err.Error()
		return r
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), &r); err != nil {
		r.Failed = "child output: " + err.Error()
		return r
	}
	r.Code, r.Solver = code, solver
	// Peak memory as the W4 section measures it, the same for both codes:
	// the child's ru_maxrss as wait4 reports it (kB on Linux).
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.PeakKB = ru.Maxrss
	}
	return r
}

// runW4A measures the comparison: rounds × (CVODE, then every cosim
// configuration) at every size, keeping each configuration's fastest
// round and its counts (the same in every round: the codes are
// deterministic).
func runW4A() {
	w4a = w4aReport{ran: true, rows: map[string]*w4aRun{}, loadStart: loadAverage()}
	defer func() { w4a.loadEnd = loadAverage() }()
	if bin, err := buildCVODE(); err != nil {
		w4a.cvodeErr = err.Error()
	} else {
		w4a.cvodeBin = bin
		defer os.RemoveAll(filepath.Dir(bin))
	}
	type cfg struct{ code, solver string }
	var cfgs []cfg
	if w4a.cvodeBin != "" {
		cfgs = append(cfgs, cfg{"cvode", "band"})
	}
	for _, c := range w4aConfigs {
		cfgs = append(cfgs, cfg{c.method, c.solver})
	}
	for round := 0; round < max(*w4aRounds, 1); round++ {
		for _, n := range w4aSizes {
			if n > *w4aMax {
				continue
			}
			for _, c := range cfgs {
				log.Printf("W4 adaptive N=%d %s %s (round %d)", n, c.code, c.solver, round+1)
				r := w4aRunChild(n, c.code, c.solver)
				key := fmt.Sprintf("%d/%s/%s", n, c.code, c.solver)
				prev := w4a.rows[key]
				wall, cpu := time.Duration(r.WallNs), time.Duration(r.CPUNs)
				if prev == nil {
					r.rounds, r.minWall, r.minCPU = 1, wall, cpu
					w4a.rows[key] = &r
					w4a.order = append(w4a.order, key)
					continue
				}
				prev.rounds++
				if r.Failed == "" && prev.Failed != "" {
					r.rounds = prev.rounds
					r.minWall, r.minCPU = wall, cpu
					*prev = r
				} else if r.Failed == "" {
					prev.minWall, prev.minCPU = min(prev.minWall, wall), min(prev.minCPU, cpu)
				}
			}
		}
	}
}

// w4aMarkdown writes the section between its markers.
func w4aMarkdown(b *strings.Builder) {
	w := func(f string, a ...any) { fmt.Fprintf(b, f, a...) }
	w("%s\n## W4 adaptive: cosim's adaptive implicit methods against CVODE (to t = 21 ms, RTol 1e-6, ATol 1e-9)\n\n", w4aBegin)
	if !w4a.ran {
		w("Not measured in this run (go run ./benchmarks/report -w4a).\n\n%s\n", w4aEnd)
		return
	}
	w("The W4 chain (N masses, k = 1e7 N/m, c = 10 N·s/m, from rest in its first mode) integrated from 0 to 21 ms with error control at RTol = 1e-6 and ATol = 1e-9, by cosim's `graph.Sim.Run` in the mode `graph.MonolithicAdaptive` (benchmarks.RunStiffAdaptive) and by CVODE (SUNDIALS, Debian's libsundials-dev) through the peer benchmarks/peers/cvode_w4.c: its variable-order BDF with Newton iteration, the direct band solver and an analytic band Jacobian, on cosim's state layout. ")
	w("**Counted alike**: *RHS* is every evaluation of the right-hand side — cosim's `Work.FuncEvals` (every call of the graph's `System.Func`: Newton iterations, the first f, the initial-step estimate), CVODE's `CVodeGetNumRhsEvals` (the same kinds) plus `CVodeGetNumLinRhsEvals` (right-hand sides spent on difference-quotient Jacobians: 0 here, the Jacobian is analytic, as cosim's graph Jacobian is); *Jac* is cosim's `Work.JacEvals` (evaluations of the graph's Jacobian, handed row by row through `System.JacobianRows`) and CVODE's `CVodeGetNumJacEvals`; *setups* are factorizations of the Newton matrix (banded LU, or ILU(0) set-ups for GMRES) and CVODE's `CVodeGetNumLinSolvSetups`. ")
	w("*Wall* is, for cosim, the whole `Sim.Run` call (building the System and its Jacobian assembly plan, the driver, the integration; graph.Build excluded) and, for CVODE, `CVodeCreate` to the last `CVode` return (the band matrix and solver included; the initial vector excluded); each is the fastest of %d rounds, the rounds interleaving the two codes on the same machine. *CPU* is the process's CPU time (user + system, every thread: cosim's garbage collector included) over the same span, fastest of the rounds: on a loaded machine it says what the run costs when wall time is inflated by other work. *Peak RSS* is the child process's ru_maxrss as wait4 reports it, the same measure for both codes (and for the W4 section). Errors are against the damped modal solution at 21 ms: *state* relative to the amplitude, *motion* relative to how far the chain moved.\n\n", *w4aRounds)
	w("Load average when the measurement started: %s; when it ended: %s.\n\n", w4a.loadStart, w4a.loadEnd)
	if w4a.cvodeErr != "" {
		w("**CVODE was not run**: %s. The cosim rows stand alone; install libsundials-dev and gcc and run the report again for the comparison.\n\n", w4a.cvodeErr)
	}
	w("| N | code | solver | steps | RHS | Jac | RHS + Jac | vs CVODE | setups | Newton | error (state) | vs CVODE | wall | vs CVODE | CPU | vs CVODE | peak RSS |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	cv := func(n int) *w4aRun { return w4a.rows[fmt.Sprintf("%d/cvode/band", n)] }
	for _, key := range w4a.order {
		r := w4a.rows[key]
		name := r.Code
		if r.Code == "cvode" {
			name = "CVODE BDF"
		}
		if r.Failed != "" {
			w("| %d | %s | %s | **failed**: %s |  |  |  |  |  |  |  |  |  |  |  |  |  |\n", r.N, name, r.Solver, r.Failed)
			continue
		}
		ratio := func(a, b float64) string {
			if b == 0 || r.Code == "cvode" {
				return ""
			}
			return fmt.Sprintf("%.2f×", a/b)
		}
		var wr, er, cr, pr string
		if c := cv(r.N); c != nil && c.Failed == "" {
			cr = ratio(float64(r.work()), float64(c.work()))
			er = ratio(r.ErrS, c.ErrS)
			wr = ratio(float64(r.minWall), float64(c.minWall))
			pr = ratio(float64(r.minCPU), float64(c.minCPU))
		}
		w("| %d | %s | %s | %d | %d | %d | %d | %s | %d | %d | %.2e | %s | %v | %s | %v | %s | %.0f MB |\n", r.N, name, r.Solver, r.Steps, r.RHS+r.RHSLS, r.Jac, r.work(), cr,
			r.Setups, r.Newton, r.ErrS, er, r.minWall.Round(10*time.Microsecond), wr, r.minCPU.Round(10*time.Microsecond), pr, float64(r.PeakKB)/1024)
	}
	w("\n**Targets** (BDF against CVODE's BDF at each N: error within a factor 2, RHS + Jac ≤ 1.5×, wall ≤ 1×): ")
	var notes []string
	for _, n := range w4aSizes {
		c := cv(n)
		if c == nil || c.Failed != "" {
			continue
		}
		for _, sv := range []string{"banded", "gmres+ilu0"} {
			r := w4a.rows[fmt.Sprintf("%d/%s/%s", n, integrators.MethodBDF, sv)]
			if r == nil || r.Failed != "" {
				continue
			}
			e, k, t := r.ErrS/c.ErrS, float64(r.work())/float64(c.work()), float64(r.minWall)/float64(c.minWall)
			p := float64(r.minCPU) / float64(c.minCPU)
			notes = append(notes, fmt.Sprintf("N = %d %s: error %.2f× (%s), work %.2f× (%s), wall %.2f× (%s; CPU %.2f×)", n, sv,
				e, metWord(e <= 2), k, metWord(k <= 1.5), t, metWord(t <= 1), p))
		}
	}
	if len(notes) == 0 {
		w("not measured (no CVODE run).")
	} else {
		w("%s.", strings.Join(notes, "; "))
	}
	w(" A smaller error than CVODE's counts as met: the target is not to be less accurate for the same work.")
	w(" Measured on a machine shared with other work: wall times vary between runs; the counts do not.\n\n%s\n", w4aEnd)
}

// w4aSplice replaces the section in the report at path (or appends it
// after the W4 section).
func w4aSplice(path string) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var b strings.Builder
	w4aMarkdown(&b)
	s := string(old)
	i, j := strings.Index(s, w4aBegin), strings.Index(s, w4aEnd)
	switch {
	case i >= 0 && j > i:
		s = s[:i] + strings.TrimSuffix(b.String(), "\n") + s[j+len(w4aEnd):]
	case strings.Contains(s, w4End):
		k := strings.Index(s, w4End) + len(w4End)
		s = s[:k] + "\n\n" + strings.TrimSuffix(b.String(), "\n") + s[k:]
	default:
		s = strings.TrimRight(s, "\n") + "\n\n" + b.String()
	}
	return os.WriteFile(path, []byte(s), 0o644)
}

// w4aMain handles -w4a-child and -w4a; it reports whether main should
// stop.
func w4aMain() bool {
	switch {
	case *w4aChild != "":
		w4aChildMain(*w4aChild)
		return true
	case *w4aOnly:
		runW4A()
		var b strings.Builder
		w4aMarkdown(&b)
		fmt.Print(b.String())
		must(w4aSplice(filepath.Join(*dir, "REPORT.md")))
		return true
	}
	return false
}
