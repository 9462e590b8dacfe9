package main

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

//go:embed demo.json
var demoScene []byte

func cmdDemo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("demo", "[-o FILE]", stderr)
	out := fs.String("o", "", "write the recorded history as CSV to `FILE`")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("takes no arguments, got %q", pos)
	}
	sc, err := scene.Decode(bytes.NewReader(demoScene))
	if err != nil {
		return err
	}
	g, err := sc.Build(nodes.Registry(), nil)
	if err != nil {
		return err
	}
	sim, err := g.Build()
	if err != nil {
		return err
	}
	res, err := sim.Run(context.Background(), sc.Settings())
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %s\n\n", sc.Name, sc.Description)
	summarizeBounces(stdout, res)
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		if err := res.History.WriteCSV(f); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "history (%d rows) written to %s\n", len(res.History.Times), *out)
	}
	fmt.Fprintln(stdout, "\nNext: the scenes in examples/scenes, and \"cosim nodes\" for every node type.")
	return nil
}

// summarizeBounces finds bounces in a recorded ball history (velocity
// jumping from falling to rising) and the apex height after each.
func summarizeBounces(w io.Writer, res *graph.Result) {
	h := res.History
	x, v := h.Column("ball.position"), h.Column("ball.velocity")
	var bounces []int
	for i := 1; i < len(v); i++ {
		if v[i-1] < 0 && v[i] > 0 {
			bounces = append(bounces, i)
		}
	}
	fmt.Fprintf(w, "steps %d, final time %.4g s, wall time %v, %d node updates\n", res.Steps, res.Time, res.Wall.Round(1e3), res.NodeUpdates)
	fmt.Fprintf(w, "bounces: %d; final height %.6g m, velocity %.6g m/s\n", len(bounces), x[len(x)-1], v[len(v)-1])
	if len(bounces) == 0 {
		return
	}
	fmt.Fprintln(w, "\nbounce  time (s)   apex after (m)  apex ratio (e² = 0.81)")
	prev := math.NaN()
	if len(x) > 0 {
		prev = x[0]
	}
	for k, b := range bounces {
		end := len(x)
		if k+1 < len(bounces) {
			end = bounces[k+1]
		}
		apex := x[b]
		for _, xi := range x[b:end] {
			apex = max(apex, xi)
		}
		fmt.Fprintf(w, "%6d  %8.4f   %14.6f  %10.4f\n", k+1, h.Times[b], apex, apex/prev)
		prev = apex
	}
}
