package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

const sensitivityArgs = "SCENE --wrt NODE.PARAM… [-y FIELD]… [--json] [-o FILE] [--monolithic] [--set NODE.PARAM=VALUE]…"

// cmdSensitivity prints ∂y/∂p at the scene's end time (graph.Sim.Sensitivities).
func cmdSensitivity(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sensitivity", sensitivityArgs, stderr)
	var wrt, ys, sets stringList
	fs.Var(&wrt, "wrt", "a real parameter `NODE.PARAM` (or NODE.PARAM[i] of a vector) to differentiate with respect to (repeatable, required)")
	fs.Var(&ys, "y", "a `FIELD` to differentiate, node.field or node.field[i] (repeatable); default: the scene's recorded fields, else every state field")
	asJSON := fs.Bool("json", false, "print {\"t\": end, \"FIELD\": {\"PARAM\": derivative, …}, …} instead of a table")
	out := fs.String("o", "", "write the sensitivity history to `FILE` as CSV (\"-\" for stdout)")
	fs.Var(&sets, "set", "override a setting, `NODE.PARAM=VALUE` or run.FIELD=VALUE (repeatable)")
	mono := fs.Bool("monolithic", false, monolithicUsage)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("name exactly one scene file, got %d arguments (try examples/scenes/bouncing-ball-events.json)", len(pos))
	}
	if len(wrt) == 0 {
		return usagef("name at least one parameter with --wrt NODE.PARAM, e.g. --wrt ball.elasticity")
	}
	if err := checkOutputPath("-o", *out); err != nil {
		return err
	}
	sc, err := loadScene(pos[0], sets)
	if err != nil {
		return err
	}
	if err := prepareOutputs(stderr, sceneInputs(pos[0], sc), []namedPath{{"-o", *out}}); err != nil {
		return err
	}
	sim, err := sc.Compile(nodes.Registry(), nil)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	fields := []string(ys)
	if len(fields) == 0 {
		fields = sc.Record.Fields
	}
	opts, err := sensitivityOptions(sc, fields, *mono)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	res, err := sim.Sensitivities(context.Background(), wrt, opts)
	if err != nil {
		return fmt.Errorf("%s: %w%s", pos[0], err, modeHint(opts))
	}
	if len(res.Times) == 0 {
		return fmt.Errorf("%s: the run recorded no rows", pos[0])
	}
	table := stdout
	if *out == "-" {
		table = stderr
	}
	if *out != "" {
		if err := writeTo(*out, stdout, res.WriteCSV); err != nil {
			return err
		}
	}
	last := len(res.Times) - 1
	if *asJSON {
		return writeSensitivityJSON(table, res, last)
	}
	fmt.Fprintf(table, "%s: ∂y/∂p at t = %s (%s, %d steps, %d rejected, %d events)\n", pos[0], fmtTime(res.Times[last]), res.Method, res.Work.Steps, res.Work.Rejected, len(res.Events))
	tw := tabwriter.NewWriter(table, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "FIELD\tVALUE\t")
	for _, p := range res.Params {
		fmt.Fprintf(tw, "∂/∂%s\t", p)
	}
	fmt.Fprintln(tw)
	for k, c := range res.Columns {
		fmt.Fprintf(tw, "%s\t%s\t", c, fmtG(res.Values[last][k]))
		for j := range res.Params {
			fmt.Fprintf(tw, "%s\t", fmtG(res.D[last][k*len(res.Params)+j]))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, e := range res.Events {
		var parts []string
		for j, p := range res.Params {
			parts = append(parts, fmt.Sprintf("∂t/∂%s = %s", p, fmtG(e.DT[j])))
		}
		fmt.Fprintf(table, "event %s at t = %s: %s\n", e.Name, fmtTime(e.T), strings.Join(parts, ", "))
	}
	if *out != "" && *out != "-" {
		fmt.Fprintf(table, "sensitivity history: %d rows written to %s\n", len(res.Times), *out)
	}
	return nil
}

// monolithicUsage documents --monolithic.
const monolithicUsage = "differentiate a co-simulation scene's model as one system with adaptive Dormand–Prince (rtol 1e-10, atol 1e-12) and located events, ignoring its coupling scheme"

// modeHint tells how to differentiate a co-simulation scene.
func modeHint(opts *graph.SensitivityOptions) string {
	if _, co := opts.Mode.(graph.CoSimulation); !co {
		return ""
	}
	return "\nthe scene runs in co-simulation; add --monolithic to differentiate its model as one system with adaptive Dormand–Prince and located events"
}

// fmtG prints a value with 10 significant digits for tables.
func fmtG(x float64) string { return fmt.Sprintf("%.10g", x) }

// writeSensitivityJSON prints {"t": T, "field": {"param": d, …}, …} with
// the fields in the result's order.
func writeSensitivityJSON(w io.Writer, res *graph.Sensitivity, i int) error {
	var b strings.Builder
	b.WriteString("{\n  \"t\": ")
	b.Write(appendJSONFloat(nil, res.Times[i]))
	np := len(res.Params)
	for k, c := range res.Columns {
		key, _ := json.Marshal(c)
		fmt.Fprintf(&b, ",\n  %s: {", key)
		for j, p := range res.Params {
			pk, _ := json.Marshal(p)
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s: %s", pk, appendJSONFloat(nil, res.D[i][k*np+j]))
		}
		b.WriteString("}")
	}
	b.WriteString("\n}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTo writes with write into path, or stdout for "-".
func writeTo(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "-" {
		return write(stdout)
	}
	return writeAtomic(path, write)
}

// sensitivityOptions translates a scene's run settings into the options
// of Sim.Sensitivities: an adaptive monolithic scene samples its dense
// output on the scene's record times (or every Every·Dt), a fixed-step
// monolithic scene steps its method with Dt, and a co-simulation scene
// asks for co-simulation sensitivities, which graph rejects with the
// reason, unless monolithic asks to differentiate its model with adaptive
// Dormand–Prince instead.
func sensitivityOptions(sc *scene.Scene, fields []string, monolithic bool) (*graph.SensitivityOptions, error) {
	end := sc.EndTime()
	opts := &graph.SensitivityOptions{End: end, Record: fields, Dt: sc.Run.Dt, RecordEvery: sc.Record.Every}
	in := sc.Run.Integrator
	if !sc.Run.Monolithic() || in == nil {
		if !monolithic {
			opts.Mode = graph.CoSimulation{}
			return opts, nil
		}
		in = &scene.IntegrationMethod{Method: integrators.MethodDormandPrince, Adaptive: true, RTol: 1e-10, ATol: 1e-12}
	}
	m, o, err := in.Configure()
	if err != nil {
		return nil, err
	}
	if in.Adaptive {
		am, ok := m.(integrators.AdaptiveMethod)
		if !ok {
			return nil, fmt.Errorf("run.integrator.adaptive: %s has no error control", m.Name())
		}
		opts.Mode = graph.MonolithicAdaptive{Method: am, Options: o}
		opts.Dt = 0 // the adaptive driver chooses the steps
		opts.Output = sc.Record.Times
		if len(opts.Output) == 0 && sc.Run.Dt > 0 {
			every := float64(max(sc.Record.Every, 1))
			n := int(math.Floor(end/(every*sc.Run.Dt) + 1e-9))
			for k := 0; k <= n; k++ {
				opts.Output = append(opts.Output, min(float64(k)*every*sc.Run.Dt, end))
			}
		}
		return opts, nil
	}
	opts.Mode = graph.Monolithic{Method: m, Options: o}
	return opts, nil
}
