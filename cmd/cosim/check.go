package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

const checkArgs = "SCENE [--dt DT] [--json] [--set NODE.PARAM=VALUE]…"

// cmdCheck prints the coupled-stability analysis of a scene
// (graph.Sim.Stability): for the scene's coupling strategy and the
// alternatives, the spectral radius of the one-step amplification matrix
// at run.dt and the largest stable step. It exits 1 when the scene's own
// strategy is unstable.
func cmdCheck(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("check", checkArgs, stderr)
	var sets stringList
	fs.Var(&sets, "set", "override a setting, `NODE.PARAM=VALUE` or run.FIELD=VALUE (repeatable)")
	dtFlag := new(float64)
	numberVar(fs, dtFlag, "dt", 0, "analyse this step `DT` instead of the scene's run.dt")
	asJSON := fs.Bool("json", false, "print the analysis as JSON")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: cosim check %s\n\n"+
			"Linearises the scene's graph at its initial state and prints, for its coupling scheme and the\n"+
			"alternatives (Jacobi, Gauss–Seidel in node order and reversed, one implicitly iterated group), the\n"+
			"spectral radius of one co-simulation step's amplification operator at run.dt and the largest stable\n"+
			"dt; for a fixed-step monolithic scene, the same for one step of its method. Above %d state values\n"+
			"the radius is a matrix-free estimate (restarted Arnoldi), marked with *; up to %d values one that\n"+
			"decides nothing (undamped oscillators) is replaced by the dense radius. A radius above 1 (above\n"+
			"the physical growth of an unstable system) grows without bound; the scene's scheme is reported\n"+
			"unstable, and check exits 1, when its growth over the run's steps exceeds %d. Adaptive runs are\n"+
			"not analysed: their error estimate chooses stable steps.\n\n", checkArgs, graph.DenseStabilityStates, graph.DenseMaxStates, graph.MaxRunGrowth)
		printFlags(stderr, fs)
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("name exactly one scene file, got %d arguments", len(pos))
	}
	if *dtFlag < 0 || math.IsNaN(*dtFlag) || math.IsInf(*dtFlag, 0) {
		return usagef("--dt %v: the step must be finite and positive", *dtFlag)
	}
	sc, err := loadScene(pos[0], sets)
	if err != nil {
		return err
	}
	dt := sc.Run.Dt
	if *dtFlag > 0 {
		dt = *dtFlag
	}
	steps := checkSteps(sc, dt)
	sim, err := sc.Compile(nodes.Registry(), nil)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	defer sim.Close()
	kind := checkCoSim
	var r *graph.StabilityAnalysis
	if in := sc.Run.Integrator; sc.Run.Monolithic() && in != nil && in.Adaptive {
		kind = checkAdaptive
	} else if sc.Run.Monolithic() && in != nil {
		kind = checkFixed
		m, opts, err := in.Configure()
		if err != nil {
			return fmt.Errorf("%s: run.integrator.method: %w", pos[0], err)
		}
		if r, err = sim.MonolithicStability(m, opts, dt); err != nil {
			return fmt.Errorf("%s: %w", pos[0], err)
		}
	}
	if r == nil {
		st, err := sceneStrategy(sc)
		if err != nil {
			return fmt.Errorf("%s: %w", pos[0], err)
		}
		if r, err = sim.Stability(st, dt); err != nil {
			return fmt.Errorf("%s: %w", pos[0], err)
		}
	}
	r = r.Over(steps)
	if *asJSON {
		if err := writeStabilityJSON(stdout, pos[0], kind, r); err != nil {
			return err
		}
	} else {
		writeStability(stdout, pos[0], sc, kind, r)
	}
	if kind != checkAdaptive && r.Unstable() {
		c, _ := r.Chosen()
		what := "coupling " + c.Strategy
		if kind == checkFixed {
			what = "method " + c.Strategy
		}
		return fmt.Errorf("the scene's %s is unstable at dt = %s s (spectral radius %s; growth over the run's %d steps %s, more than %d)", what, fmt3(r.Dt), strconv.FormatFloat(c.Radius, 'g', 9, 64), r.Steps, fmt3(r.RunGrowth()), graph.MaxRunGrowth)
	}
	return nil
}

// checkKind is what cosim check analyses: the scene's co-simulation, its
// fixed-step monolithic method, or (an adaptive run, whose error control
// keeps the steps stable) the co-simulation alternatives only.
type checkKind int

const (
	checkCoSim checkKind = iota
	checkFixed
	checkAdaptive
)

// checkSteps is the number of steps of the scene's run at step dt (the
// scene's run.steps when dt is its own), over which the analysis is
// judged (graph.StabilityAnalysis.Over).
func checkSteps(sc *scene.Scene, dt float64) int {
	if dt == sc.Run.Dt {
		return sceneSteps(sc)
	}
	return int(math.Round(sc.EndTime() / dt))
}

// sceneStrategy is the coupling strategy a scene co-simulates with: nil
// (Jacobi) without a coupling section.
func sceneStrategy(sc *scene.Scene) (*coupling.Strategy, error) {
	if sc.Run.Coupling == nil || sc.Run.Monolithic() {
		return nil, nil
	}
	return sc.Run.Coupling.Strategy()
}

// writeStability prints the analysis as a table: one row per scheme, the
// scene's own first.
func writeStability(w io.Writer, path string, sc *scene.Scene, kind checkKind, r *graph.StabilityAnalysis) {
	name := sc.Name
	if name == "" {
		name = path
	}
	what := "coupled stability"
	if kind == checkFixed {
		what = "stability of monolithic " + r.Method
	}
	fmt.Fprintf(w, "%s: %s at dt = %s s, linearised at t = %s (%d state values)\n", name, what, fmt3(r.Dt), fmt3(r.Time), r.States)
	if kind == checkAdaptive {
		fmt.Fprintln(w, "the scene runs adaptively (run.integrator.adaptive): its error estimate chooses the steps and keeps them stable, so it is not analysed; the table is for co-simulating it")
	}
	if r.Skipped != "" {
		fmt.Fprintf(w, "not analysed: %s\n", r.Skipped)
		return
	}
	if !r.GrowthKnown {
		fmt.Fprintln(w, "physical growth rate: unknown (a node has no Derivatives); a stable scheme's spectral radius is at most 1")
	} else {
		fmt.Fprintf(w, "physical growth rate max Re λ(∂f/∂x) = %s/s; a stable scheme's spectral radius is at most %s (tolerance %s)\n",
			fmt3(r.Growth), strconv.FormatFloat(r.Bound, 'g', 9, 64), fmt3(graph.StabilityTol))
	}
	if r.Steps > 0 {
		fmt.Fprintf(w, "a radius above it warns when its growth over the run's %d steps, (radius/bound)^%d, exceeds %d\n", r.Steps, r.Steps, graph.MaxRunGrowth)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "scheme"
	if kind == checkFixed {
		head = "method"
	}
	fmt.Fprintf(tw, "%s\tspectral radius\tstable at dt\tlargest stable dt\n", head)
	estimated := false
	for _, s := range r.Schemes {
		label := s.Strategy
		if s.Chosen && kind != checkAdaptive {
			label += " (the scene's)"
		}
		rad := strconv.FormatFloat(s.Radius, 'g', 9, 64)
		if math.IsInf(s.Radius, 1) {
			rad = "∞ (" + s.Note + ")"
		} else if s.Estimated {
			rad += " *"
			estimated = true
		}
		stable := "no"
		if s.Stable {
			stable = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", label, rad, stable, maxDtText(s, r.Dt))
	}
	tw.Flush()
	if estimated {
		fmt.Fprintf(w, "* matrix-free estimate (restarted Arnoldi, Krylov dimension %d, at most %d cycles) above %d state values; Ritz residuals:", graph.KrylovDim, graph.KrylovCycles, graph.DenseStabilityStates)
		for _, s := range r.Schemes {
			if s.Estimated {
				fmt.Fprintf(w, " %s %s", s.Strategy, fmt3(s.Residual))
			}
		}
		fmt.Fprintln(w)
	}
	if kind != checkAdaptive && r.Unstable() {
		fmt.Fprintf(w, "\nwarning: %s\n", r.Warning())
	}
}

// maxDtText formats a scheme's largest stable step.
func maxDtText(s graph.SchemeStability, dt float64) string {
	switch {
	case !s.Searched:
		return "—"
	case s.MaxDt == 0:
		return "none ≥ " + fmt3(dt/(1<<20)) + " s"
	case s.AtLeast:
		return "≥ " + fmt3(s.MaxDt) + " s"
	}
	return fmt3(s.MaxDt) + " s"
}

func fmt3(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }

// stabilityJSON is the --json form; non-finite numbers are null.
type stabilityJSON struct {
	Scene      string       `json:"scene"`
	Monolithic bool         `json:"monolithic,omitempty"`
	Adaptive   bool         `json:"adaptive,omitempty"`
	Method     string       `json:"method,omitempty"`
	Steps      int          `json:"steps"`
	RunGrowth  *float64     `json:"run_growth"`
	Dt         float64      `json:"dt"`
	Time       float64      `json:"time"`
	States     int          `json:"states"`
	Growth     *float64     `json:"growth"`
	Bound      float64      `json:"bound"`
	Tolerance  float64      `json:"tolerance"`
	Skipped    string       `json:"skipped,omitempty"`
	Schemes    []schemeJSON `json:"schemes"`
	Unstable   bool         `json:"unstable"`
	Warning    string       `json:"warning,omitempty"`
}

type schemeJSON struct {
	Strategy string   `json:"strategy"`
	Chosen   bool     `json:"chosen"`
	Radius   *float64 `json:"radius"`
	Stable   bool     `json:"stable"`
	MaxDt    *float64 `json:"max_stable_dt"`
	AtLeast  bool     `json:"at_least,omitempty"`
	// Estimated marks a matrix-free estimate, Residual its Ritz residual.
	Estimated bool    `json:"estimated,omitempty"`
	Residual  float64 `json:"residual,omitempty"`
	Note      string  `json:"note,omitempty"`
}

func finiteOrNil(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func knownOrNil(v float64, known bool) *float64 {
	if !known {
		return nil
	}
	return &v
}

func writeStabilityJSON(w io.Writer, path string, kind checkKind, r *graph.StabilityAnalysis) error {
	mono := kind != checkCoSim
	out := stabilityJSON{Scene: path, Monolithic: mono, Adaptive: kind == checkAdaptive, Method: r.Method, Steps: r.Steps, Dt: r.Dt, Time: r.Time, States: r.States, Growth: knownOrNil(r.Growth, r.GrowthKnown),
		Bound: r.Bound, Tolerance: graph.StabilityTol, Skipped: r.Skipped, Schemes: []schemeJSON{}, Unstable: kind != checkAdaptive && r.Unstable()}
	if _, ok := r.Chosen(); ok && r.Steps > 0 {
		out.RunGrowth = finiteOrNil(r.RunGrowth())
	}
	if out.Unstable {
		out.Warning = r.Warning()
	}
	for _, s := range r.Schemes {
		out.Schemes = append(out.Schemes, schemeJSON{Strategy: s.Strategy, Chosen: s.Chosen && kind != checkAdaptive, Radius: finiteOrNil(s.Radius),
			Stable: s.Stable, MaxDt: knownOrNil(s.MaxDt, s.Searched), AtLeast: s.AtLeast, Estimated: s.Estimated, Residual: s.Residual, Note: s.Note})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
