package main

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"math"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

//go:embed demo.json
var demoScene []byte

func cmdDemo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("demo", "[-o FILE] [--print]", stderr)
	out := fs.String("o", "", "write the recorded history as CSV to `FILE`")
	print := fs.Bool("print", false, "print the demo's scene file instead of running it: the start of your own scene")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("takes no arguments, got %q", pos)
	}
	if *print {
		_, err := stdout.Write(demoScene)
		return err
	}
	if err := checkOutputPath("-o", *out); err != nil {
		return err
	}
	if f, err := historyFormat("", *out); err != nil || f != "csv" {
		return usagef("-o %s: the demo writes its history as CSV: name the file .csv", *out)
	}
	if err := prepareOutputs(stderr, nil, []namedPath{{"-o", *out}}); err != nil {
		return err
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
		if err := writeAtomic(*out, res.History.WriteCSV); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "history (%d rows) written to %s\n", len(res.History.Times), *out)
	}
	fmt.Fprintln(stdout, "\nNext:")
	fmt.Fprintln(stdout, "  cosim demo --print > my-scene.json      the demo's scene file, to edit (docs/scenes.md)")
	fmt.Fprintln(stdout, "  cosim run my-scene.json --plot ball.png  run a scene file and plot what it records")
	fmt.Fprintln(stdout, "  cosim run examples/scenes/spring-damper.json   more scenes in examples/scenes")
	fmt.Fprintln(stdout, "  cosim nodes                              every node type; cosim describe TYPE for its parameters")
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
