package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/cosimgo/cosim/calibrate"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/textio"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

const fitArgs = "SCENE --data FILE.csv --free NODE.PARAM[=START][:LO:HI]… [--noise FIELD=SIGMA]… [--weight FIELD=W]… [--method bfgs|lbfgs] [--json] [-o FITTED.json [--accept-unconverged]] [--monolithic] [--set NODE.PARAM=VALUE]…"

// cmdFit fits free parameters of a scene to data (calibrate.Fit).
func cmdFit(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("fit", fitArgs, stderr)
	data := fs.String("data", "", "measured data, CSV with a header t,FIELD,… (FIELD as recorded: ball.position, mass.position[0]); empty cells are missing")
	var free, weights, noise, sets stringList
	fs.Var(&free, "free", "a parameter to fit, `NODE.PARAM[=START][:LO:HI]` (repeatable, required); START defaults to the scene's value; LO or HI may be empty or ±inf")
	fs.Var(&noise, "noise", "the measurement noise of a data column, `FIELD=SIGMA` (a standard deviation in its units; repeatable): the standard errors follow from it, and a residual it does not explain is not converged. Give it for every column, or none")
	fs.Var(&weights, "weight", "the weight of a data column, `FIELD=W` (repeatable; default 1; 1/σ² for noise σ; 0 drops the column)")
	method := fs.String("method", "bfgs", "the optimizer: bfgs or lbfgs (gonum optimize)")
	asJSON := fs.Bool("json", false, "print {\"NODE.PARAM\": {\"value\": …, \"stderr\": …, \"identifiable\": …}, …, \"residual\": …, \"iterations\": …, \"evaluations\": …, \"converged\": …, \"warnings\": […]}")
	fs.Var(&sets, "set", "override a setting, `NODE.PARAM=VALUE` or run.FIELD=VALUE (repeatable)")
	save := fs.String("o", "", "write the scene with the fitted parameters to `FILE` (JSON), when the fit converged")
	acceptUnconverged := fs.Bool("accept-unconverged", false, "exit 0 and write -o even when the fit did not converge (the warnings say why)")
	mono := fs.Bool("monolithic", false, monolithicUsage)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("name exactly one scene file, got %d arguments", len(pos))
	}
	if *data == "" {
		return usagef("name the measurements with --data FILE.csv")
	}
	if len(free) == 0 {
		return usagef("name at least one parameter to fit with --free NODE.PARAM[=START][:LO:HI], e.g. --free ball.elasticity=0.5:0:1")
	}
	params := make([]calibrate.FreeParam, len(free))
	for i, f := range free {
		if params[i], err = parseFree(f); err != nil {
			return err
		}
	}
	if err := checkOutputPath("-o", *save); err != nil {
		return err
	}
	sc, err := loadScene(pos[0], sets)
	if err != nil {
		return err
	}
	if err := prepareOutputs(stderr, append(sceneInputs(pos[0], sc), namedPath{"the --data file", *data}), []namedPath{{"-o", *save}}); err != nil {
		return err
	}
	sim, err := sc.Compile(nodes.Registry(), nil)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	fd, err := textio.Open(*data, maxFitDataBytes, "the data")
	if err != nil {
		return fmt.Errorf("--data %s: %w", *data, err)
	}
	d, err := calibrate.ReadCSV(fd)
	fd.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", *data, err)
	}
	if err := applyWeights(d, weights); err != nil {
		return err
	}
	if err := applyNoise(d, noise); err != nil {
		return err
	}
	opts, err := sensitivityOptions(sc, nil, *mono)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	opts.End, opts.Output, opts.Record = 0, nil, nil
	// The warnings cosim run prints at the start of the scene's run, for
	// the mode the fit's runs use, once (before the first of them).
	ws, stab := modeStartCheck(sim, opts.Mode, opts.Dt, sceneSteps(sc))
	printStartWarnings(stderr, "", ws, stab)
	res, err := calibrate.Fit(context.Background(), &calibrate.Problem{Sim: sim, Free: params, Data: d, Options: opts}, &calibrate.Settings{Method: *method})
	if err != nil {
		return fmt.Errorf("%s: %w%s", pos[0], err, modeHint(opts))
	}
	saved := *save != "" && (res.Converged || *acceptUnconverged)
	if saved {
		if err := saveFitted(sc, sim, params, *save); err != nil {
			return err
		}
	}
	if err := printFit(stdout, pos[0], *data, res, *asJSON, saved, *save); err != nil {
		return err
	}
	if res.Converged {
		return nil
	}
	if *acceptUnconverged {
		fmt.Fprintf(stderr, "cosim fit: warning: the fit did not converge (--accept-unconverged: exit 0): %s\n", strings.Join(res.Warnings, "; "))
		return nil
	}
	msg := "the fit did not converge: " + strings.Join(res.Warnings, "; ")
	if *save != "" {
		msg += "; " + *save + " was not written"
	}
	return errors.New(msg + " (--accept-unconverged exits 0 and writes -o)")
}

// printFit prints the result: JSON, or a summary line and a table of the
// estimates followed by the warnings.
func printFit(stdout io.Writer, scenePath, dataPath string, res *calibrate.Result, asJSON, saved bool, save string) error {
	if asJSON {
		return writeFitJSON(stdout, res)
	}
	stop := "converged"
	if !res.Converged {
		stop = "NOT converged"
	}
	if res.Stop != "" {
		stop += "; the optimizer stopped with " + res.Stop
	}
	fmt.Fprintf(stdout, "%s fitted to %s: %d values, residual Σw·r² = %s (rms %s), %d iterations, %d evaluations (%s)\n",
		scenePath, dataPath, res.N, fmtG(res.Residual), fmtG(res.RMS), res.Iterations, res.Evaluations, stop)
	if !math.IsNaN(res.PValue) {
		fmt.Fprintf(stdout, "noise test: χ² upper tail P = %.3g for the stated noise\n", res.PValue)
	}
	if len(res.Jumping) > 0 {
		fmt.Fprintf(stdout, "%s jump at the model's events: values between a model event and the data's jump are compared across it (%d at the estimates)\n", strings.Join(res.Jumping, ", "), res.AcrossEvents)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PARAMETER\tESTIMATE\tSTD. ERROR\t")
	for _, e := range res.Params {
		note := ""
		switch {
		case !e.Identifiable:
			note = "not identifiable from these data: the value is meaningless"
		case e.AtBound:
			note = "at a bound: the standard error understates the uncertainty"
		}
		se := fmtG(e.StdErr)
		if math.IsInf(e.StdErr, 1) {
			se = "∞"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Name, fmtG(e.Value), se, note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stdout, "warning: %s\n", w)
	}
	if saved {
		fmt.Fprintf(stdout, "scene with the fitted parameters written to %s\n", save)
	}
	return nil
}

// saveFitted writes the scene with the free parameters set to the values
// the Sim holds after the fit (whole vectors for vector components).
func saveFitted(sc *scene.Scene, sim *graph.Sim, params []calibrate.FreeParam, path string) error {
	set := map[string]any{}
	for _, p := range params {
		key := p.Name
		if b := strings.IndexByte(key, '['); b > 0 {
			key = key[:b]
		}
		nn, pn := splitNodeField(key) // at the last '.': "leg2.knee.spring.stiffness"
		n, ok := sim.Node(nn)
		if !ok {
			return fmt.Errorf("no node %q", nn)
		}
		tun, ok := node.As[node.Tunable](n)
		if !ok {
			return fmt.Errorf("node %s is not Tunable", nn)
		}
		set[key] = tun.Params()[pn]
	}
	fitted, err := sc.With(set)
	if err != nil {
		return err
	}
	return writeAtomic(path, fitted.Encode)
}

// parseFree reads NODE.PARAM[=START][:LO:HI].
func parseFree(s string) (calibrate.FreeParam, error) {
	bad := func(why string) (calibrate.FreeParam, error) {
		return calibrate.FreeParam{}, usagef("--free %q: %s; write NODE.PARAM[=START][:LO:HI], e.g. ball.elasticity=0.5:0:1 or ball.gravity", s, why)
	}
	head, bounds, hasBounds := strings.Cut(s, ":")
	name, start, hasStart := strings.Cut(head, "=")
	p := calibrate.FreeParam{Name: strings.TrimSpace(name)}
	if p.Name == "" || !strings.Contains(p.Name, ".") {
		return bad("no NODE.PARAM")
	}
	num := func(v string, def float64) (float64, bool) {
		v = strings.TrimSpace(v)
		if v == "" {
			return def, true
		}
		x, err := textio.ParseNumber(v)
		return x, err == nil && !math.IsNaN(x)
	}
	if hasStart {
		x, ok := num(start, math.NaN())
		if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
			return bad("START is not a finite number")
		}
		p.Start = &x
	}
	if hasBounds {
		lo, hi, ok := strings.Cut(bounds, ":")
		if !ok {
			return bad("bounds need both LO and HI (either may be empty)")
		}
		var ok1, ok2 bool
		p.Lo, ok1 = num(lo, math.Inf(-1))
		p.Hi, ok2 = num(hi, math.Inf(1))
		if !ok1 || !ok2 || !(p.Lo < p.Hi) {
			return bad("LO and HI must be numbers with LO < HI")
		}
	}
	return p, nil
}

// applyWeights sets the data's column weights from FIELD=W flags.
func applyWeights(d *calibrate.Data, ws []string) error {
	if len(ws) == 0 {
		return nil
	}
	d.Weights = make([]float64, len(d.Columns))
	for k := range d.Weights {
		d.Weights[k] = 1
	}
	for _, w := range ws {
		f, v, ok := strings.Cut(w, "=")
		x, err := textio.ParseNumber(strings.TrimSpace(v))
		if !ok || err != nil || !(x >= 0) || math.IsInf(x, 0) {
			return usagef("--weight %q: write FIELD=W with a finite W ≥ 0", w)
		}
		k := -1
		for i, c := range d.Columns {
			if c == strings.TrimSpace(f) {
				k = i
			}
		}
		if k < 0 {
			return usagef("--weight %q: the data have no column %q (columns: %s)", w, f, strings.Join(d.Columns, ", "))
		}
		d.Weights[k] = x
	}
	return nil
}

// applyNoise sets the data's noise from FIELD=SIGMA flags: every column
// needs one, except a column --weight drops (weight 0, noise +Inf); any
// other --weight is refused, since the weight of noise σ is 1/σ².
func applyNoise(d *calibrate.Data, ns []string) error {
	if len(ns) == 0 {
		return nil
	}
	d.Sigma = make([]float64, len(d.Columns))
	for _, n := range ns {
		f, v, ok := strings.Cut(n, "=")
		x, err := textio.ParseNumber(strings.TrimSpace(v))
		if !ok || err != nil || !(x > 0) || math.IsInf(x, 0) {
			return usagef("--noise %q: write FIELD=SIGMA with a finite SIGMA > 0", n)
		}
		k := slices.Index(d.Columns, strings.TrimSpace(f))
		if k < 0 {
			return usagef("--noise %q: the data have no column %q (columns: %s)", n, f, strings.Join(d.Columns, ", "))
		}
		d.Sigma[k] = x
	}
	for k, c := range d.Columns {
		switch w := 1.0; {
		case d.Weights != nil && d.Weights[k] == 0:
			d.Sigma[k] = math.Inf(1) // dropped
		case d.Weights != nil && d.Weights[k] != w:
			return usagef("--weight %s=%s and --noise: the weight of noise σ is 1/σ²; give --noise, and --weight only to drop a column (=0)", c, fmtF(d.Weights[k]))
		case d.Sigma[k] == 0:
			return usagef("--noise: the column %s has no noise; give --noise for every column (or drop it with --weight %s=0)", c, c)
		}
	}
	d.Weights = nil
	return nil
}

// status is the optimizer's status, or why it stopped early.
func status(res *calibrate.Result) string {
	if res.Stop != "" {
		return "stopped: " + res.Stop
	}
	return res.Status.String()
}

// writeFitJSON prints the estimates keyed by parameter, with the fit's
// residual, iterations and evaluations; an infinite standard error is
// null.
func writeFitJSON(w io.Writer, res *calibrate.Result) error {
	num := func(x float64) string {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return "null"
		}
		return string(appendJSONFloat(nil, x))
	}
	var b strings.Builder
	b.WriteString("{\n")
	for _, e := range res.Params {
		key, _ := json.Marshal(e.Name)
		fmt.Fprintf(&b, "  %s: {\"value\": %s, \"stderr\": %s, \"identifiable\": %t, \"at_bound\": %t},\n", key, num(e.Value), num(e.StdErr), e.Identifiable, e.AtBound)
	}
	strs := func(list []string) string {
		if list == nil {
			list = []string{}
		}
		out, _ := json.Marshal(list)
		return string(out)
	}
	fmt.Fprintf(&b, "  \"residual\": %s,\n  \"rms\": %s,\n  \"n\": %d,\n  \"iterations\": %d,\n  \"evaluations\": %d,\n  \"converged\": %t,\n  \"status\": %q,\n",
		num(res.Residual), num(res.RMS), res.N, res.Iterations, res.Evaluations, res.Converged, status(res))
	fmt.Fprintf(&b, "  \"p_value\": %s,\n  \"jumping\": %s,\n  \"across_events\": %d,\n  \"polished\": %t,\n  \"warnings\": %s\n}\n",
		num(res.PValue), strs(res.Jumping), res.AcrossEvents, res.Polished, strs(res.Warnings))
	_, err := io.WriteString(w, b.String())
	return err
}
