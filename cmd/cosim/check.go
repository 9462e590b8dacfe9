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
	dtFlag := fs.Float64("dt", 0, "analyse this step `DT` instead of the scene's run.dt")
	asJSON := fs.Bool("json", false, "print the analysis as JSON")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: cosim check %s\n\n"+
			"Linearises the scene's graph at its initial state and prints, for its coupling scheme and the\n"+
			"alternatives (Jacobi, Gauss–Seidel in node order and reversed, one implicitly iterated group), the\n"+
			"spectral radius of one co-simulation step's amplification matrix at run.dt and the largest stable\n"+
			"dt. A radius above 1 (above the physical growth of an unstable system) means the run grows without\n"+
			"bound. Exits 1 when the scene's own scheme is unstable.\n\n", checkArgs)
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
	st, err := sceneStrategy(sc)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	sim, err := sc.Compile(nodes.Registry(), nil)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	defer sim.Close()
	r, err := sim.Stability(st, dt)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	mono := sc.Run.Monolithic()
	if *asJSON {
		if err := writeStabilityJSON(stdout, pos[0], mono, r); err != nil {
			return err
		}
	} else {
		writeStability(stdout, pos[0], sc, mono, r)
	}
	if !mono && r.Unstable() {
		c, _ := r.Chosen()
		return fmt.Errorf("the scene's coupling %s is unstable at dt = %s s (spectral radius %s)", c.Strategy, fmt3(r.Dt), strconv.FormatFloat(c.Radius, 'g', 9, 64))
	}
	return nil
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
func writeStability(w io.Writer, path string, sc *scene.Scene, mono bool, r *graph.StabilityAnalysis) {
	name := sc.Name
	if name == "" {
		name = path
	}
	fmt.Fprintf(w, "%s: coupled stability at dt = %s s, linearised at t = %s (%d state values)\n", name, fmt3(r.Dt), fmt3(r.Time), r.States)
	if mono {
		fmt.Fprintln(w, "the scene runs monolithically (run.mode); the table is for co-simulating it")
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
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scheme\tspectral radius\tstable at dt\tlargest stable dt")
	for _, s := range r.Schemes {
		label := s.Strategy
		if s.Chosen && !mono {
			label += " (the scene's)"
		}
		rad := strconv.FormatFloat(s.Radius, 'g', 9, 64)
		if math.IsInf(s.Radius, 1) {
			rad = "∞ (" + s.Note + ")"
		}
		stable := "no"
		if s.Stable {
			stable = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", label, rad, stable, maxDtText(s, r.Dt))
	}
	tw.Flush()
	if !mono && r.Unstable() {
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
	Note     string   `json:"note,omitempty"`
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

func writeStabilityJSON(w io.Writer, path string, mono bool, r *graph.StabilityAnalysis) error {
	out := stabilityJSON{Scene: path, Monolithic: mono, Dt: r.Dt, Time: r.Time, States: r.States, Growth: knownOrNil(r.Growth, r.GrowthKnown),
		Bound: r.Bound, Tolerance: graph.StabilityTol, Skipped: r.Skipped, Schemes: []schemeJSON{}, Unstable: !mono && r.Unstable()}
	if out.Unstable {
		out.Warning = r.Warning()
	}
	for _, s := range r.Schemes {
		out.Schemes = append(out.Schemes, schemeJSON{Strategy: s.Strategy, Chosen: s.Chosen && !mono, Radius: finiteOrNil(s.Radius),
			Stable: s.Stable, MaxDt: knownOrNil(s.MaxDt, s.Searched), AtLeast: s.AtLeast, Note: s.Note})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// printStabilityWarning warns, before a co-simulation run, when the
// scene's coupling scheme is unstable at run.dt (graph.Sim.CheckStability).
func printStabilityWarning(sc *scene.Scene, sim *graph.Sim, w io.Writer) {
	st, err := sceneStrategy(sc)
	if err != nil {
		return // Simulate reports it
	}
	r, err := sim.CheckStability(st, sc.Run.Dt)
	if err == nil && r.Unstable() {
		fmt.Fprintf(w, "cosim: warning: %s\n", r.Warning())
	}
}
