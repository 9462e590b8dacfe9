package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/cosimgo/cosim/anomalies"
)

func cmdAnomalies(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("anomalies", "[--json] [--status open|resolved|wont-fix]", stderr)
	asJSON := fs.Bool("json", false, "print the records as JSON (the fields are documented in docs/describe-json.md)")
	status := fs.String("status", "", "show only records with this `status`: open, resolved or wont-fix")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("takes no arguments, got %q; filter with --status", pos)
	}
	var st anomalies.Resolution
	if *status != "" {
		if st, err = anomalies.ParseResolution(*status); err != nil {
			return usagef("--status %q is not a status; use open, resolved or wont-fix", *status)
		}
	}
	recs := anomalies.Filter(st)
	if *asJSON {
		return anomalies.WriteJSON(stdout, recs)
	}
	if len(recs) == 0 {
		fmt.Fprintf(stdout, "no %s anomalies\n", st)
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSEVERITY\tSTATUS\tCOMPONENTS\tTITLE")
	for _, r := range recs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Severity, r.Status, strings.Join(r.Components, ","), r.Title)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "\nEach record names its pinning test; see docs/anomalies.md or --json for descriptions and workarounds.")
	return nil
}
