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
