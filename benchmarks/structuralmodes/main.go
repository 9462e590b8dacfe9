// Command structuralmodes is the behaviour report of the two-mass
// consumer of MADDENING's generalized-alpha guide: it runs the package
// driver on its problem (modes of 1 and 40 rad/s, dt = 0.1 s, 120 steps) for registered
// Newmark and generalized-alpha at ρ∞ = 1, 0.8, 0.5 and 0, and writes
// REPORT.md and report.json (the MADDENING two-mass guide's table, the counted work and the
// refinement study on the resolved 1 and 3 rad/s problem) into -out, and
// the four-panel figure into -figure. Every number comes from the run.
// README.md says how the work is split with benchmarks/generalizedalpha.
//
// Run it from the module root: go run ./benchmarks/structuralmodes
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"os"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("structuralmodes: ")
	out := flag.String("out", "", "directory for REPORT.md and report.json (default: a new temporary directory)")
	figure := flag.String("figure", "docs/assets/structural-modes.png", "path of the four-panel PNG figure (relative to the working directory; empty: no figure)")
	flag.Parse()
	if err := run(*out, *figure, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run measures, writes the report into out (a new temporary directory
// when empty) and the figure to figure (none when empty), and says where
// on w.
func run(out, figure string, w io.Writer) error {
	if out == "" {
		d, err := os.MkdirTemp("", "structural-modes-")
		if err != nil {
			return err
		}
		out = d
	} else if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	rep, data, err := measure()
	if err != nil {
		return err
	}
	rep.Figure = figure
	if err := writeReport(out, rep); err != nil {
		return err
	}
	fmt.Fprintf(w, "report: %s, %s\n", joinPath(out, "REPORT.md"), joinPath(out, "report.json"))
	if figure != "" {
		if err := drawFigure(figure, data); err != nil {
			return err
		}
		fmt.Fprintf(w, "figure: %s\n", figure)
	}
	return nil
}
