package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/cosimgo/cosim/anomalies"
	"github.com/cosimgo/cosim/docs"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/node/describe"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/verification"
)

// nodeListing is one entry of "cosim nodes --json" (docs/describe-json.md).
type nodeListing struct {
	Type        string      `json:"type"`
	Algorithm   string      `json:"algorithm"`
	Version     string      `json:"version"`
	Stability   string      `json:"stability"`
	Replacement string      `json:"replacement,omitempty"`
	Order       *node.Order `json:"order"`
	Anomalies   []string    `json:"anomalies"`
	Connector   bool        `json:"connector"`
}

func cmdNodes(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("nodes", "[--json]", stderr)
	asJSON := fs.Bool("json", false, "print the list as a JSON array (docs/describe-json.md)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("takes no arguments, got %q", pos)
	}
	reg := nodes.Registry()
	if *asJSON {
		list := []nodeListing{}
		conns := reg.ConnectorTypes()
		for _, name := range reg.Names() {
			s, _ := reg.Spec(name)
			m := s.Meta
			e := nodeListing{Type: name, Algorithm: m.AlgorithmID, Version: m.Version, Stability: m.Stability.String(),
				Replacement: m.Replacement, Anomalies: append([]string{}, m.Anomalies...), Connector: slices.Contains(conns, name)}
			if m.Discretization != "" {
				o := m.Order
				e.Order = &o
			}
			list = append(list, e)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TYPE\tALGORITHM\tVERSION\tSTABILITY\tORDER\tANOMALIES")
	var notes []string
	for _, name := range reg.Names() {
		s, _ := reg.Spec(name)
		m := s.Meta
		stab := m.Stability.String()
		if m.Stability == node.Deprecated && m.Replacement != "" {
			stab += "*"
			notes = append(notes, fmt.Sprintf("* %s is deprecated: use %s", name, m.Replacement))
		}
		anom := strings.Join(m.Anomalies, ",")
		if anom == "" {
			anom = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", name, m.AlgorithmID, m.Version, stab, orderText(s), anom)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(notes) > 0 {
		fmt.Fprintln(stdout)
	}
	for _, n := range notes {
		fmt.Fprintln(stdout, n)
	}
	return nil
}

func orderText(s *node.Spec) string {
	if s.Meta.Discretization == "" {
		return "none (stateless)"
	}
	return s.Meta.Order.String()
}

func cmdDescribe(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("describe", "TYPE|FILE.fmu|SCENE.json [--json] [--interface co-simulation|model-exchange]", stderr)
	asJSON := fs.Bool("json", false, "print the stable JSON description (docs/describe-json.md)")
	iface := fs.String("interface", "", "for an FMU: the interface whose node to describe (default co-simulation where offered)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("give exactly one node type (see \"cosim nodes\"), one FMU (an .fmu file or an unpacked FMU directory) or one scene file (its ports as a subsystem)")
	}
	if isFMUPath(pos[0]) {
		return describeFMU(pos[0], *iface, *asJSON, stdout)
	}
	if strings.HasSuffix(pos[0], ".json") {
		if *asJSON || *iface != "" {
			return usagef("--json and --interface describe node types and FMUs; a scene's ports are printed as text")
		}
		return describeScene(pos[0], stdout)
	}
	if *iface != "" {
		return usagef("--interface is for an FMU; %q is a node type", pos[0])
	}
	reg := nodes.Registry()
	n, err := reg.New(pos[0], nil)
	if err != nil {
		return err
	}
	d, err := describeNode(n)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	}
	return writeDescription(stdout, d)
}

func writeDescription(w io.Writer, d describe.Description) error {
	m := d.Metadata
	fmt.Fprintf(w, "%s — %s\n", d.Type, m.Summary)
	fmt.Fprintf(w, "package %s\nalgorithm %s, version %s, %s\n", d.Package, m.AlgorithmID, m.Version, m.Stability)
	if m.Replacement != "" {
		fmt.Fprintf(w, "deprecated since %s: use %s\n", m.DeprecatedSince, m.Replacement)
	}
	if m.Discretization != "" {
		fmt.Fprintf(w, "discretization %s; declared order: %s\n", m.Discretization, m.Order)
	}
	if len(d.Caps) > 0 {
		fmt.Fprintf(w, "capabilities: %s\n", strings.Join(d.Caps, ", "))
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	section := func(title, header string) {
		tw.Flush()
		fmt.Fprintf(w, "\n%s\n", title)
		fmt.Fprintln(tw, header)
	}
	if len(d.State) > 0 {
		section("State", "  NAME\tSHAPE\tUNITS\tROLE\tDESCRIPTION")
		for _, f := range d.State {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", f.Name, f.Shape, f.Units, f.Role, f.Description)
		}
	}
	if len(d.Params) > 0 {
		section("Parameters", "  NAME\tKIND\tDEFAULT\tUNITS\tVALID\tDESCRIPTION")
		for _, p := range d.Params {
			def := "-"
			if p.Default != nil {
				def = node.FormatValue(p.Default)
			}
			desc := p.Description
			if len(p.Aliases) > 0 {
				desc += " (also accepted as " + strings.Join(p.Aliases, ", ") + ")"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", p.Name, p.Kind, def, p.Units, p.Valid, desc)
		}
	}
	if len(d.Inputs) > 0 {
		section("Boundary inputs", "  NAME\tSHAPE\tUNITS\tCOMBINE\tDEFAULT\tDESCRIPTION")
		for _, in := range d.Inputs {
			def := node.FormatValue(in.Default)
			switch {
			case in.Absent:
				def = "absent"
			case in.Required:
				def = "required"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", in.Name, in.Shape, in.Units, in.Combine, def, in.Description)
		}
	}
	if len(d.Outputs) > 0 {
		section("Outputs", "  NAME\tSHAPE\tUNITS\tDESCRIPTION")
		for _, f := range d.Outputs {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", f.Name, f.Shape, f.Units, f.Description)
		}
	}
	if len(d.Events) > 0 {
		section("Events", "  NAME\tDIRECTION\tDESCRIPTION")
		for _, e := range d.Events {
			fmt.Fprintf(tw, "  %s\t%+d\t%s\n", e.Name, e.Direction, e.Description)
		}
	}
	tw.Flush()
	list := func(title string, items []string) {
		if len(items) > 0 {
			fmt.Fprintf(w, "\n%s\n", title)
			for _, it := range items {
				fmt.Fprintf(w, "  - %s\n", it)
			}
		}
	}
	list("Equations", m.Equations)
	para := func(title, text string) {
		if text != "" {
			fmt.Fprintf(w, "\n%s\n  %s\n", title, text)
		}
	}
	para("Equation notes", m.EquationNotes)
	para("Discretization notes", m.DiscretizationNotes)
	para("Order note", m.Order.Note)
	if m.Order.TolReason != "" {
		para("Order bound", fmt.Sprintf("|p − %g| ≤ %g: %s", m.Order.Temporal, m.Order.Tol(), m.Order.TolReason))
	}
	list("Assumptions", m.Assumptions)
	list("Limitations", m.Limitations)
	var regimes []string
	for _, r := range m.Regimes {
		regimes = append(regimes, joinNote(r.Param+": "+r.Range, r.Notes))
	}
	list("Validated regimes", regimes)
	list("Stability conditions", m.StabilityConditions)
	var mapping []string
	for _, mp := range m.Mapping {
		mapping = append(mapping, joinNote(mp.Term+" → "+mp.Identifier, mp.Notes))
	}
	list("Implementation mapping", mapping)
	var refs []string
	for _, r := range m.References {
		refs = append(refs, joinNote("["+r.Key+"] "+r.Text, r.Note))
	}
	list("References", refs)
	list("Anomalies", m.Anomalies)
	list("Verification evidence", m.Evidence)
	var changes []string
	for _, c := range m.Changelog {
		changes = append(changes, c.Version+" ("+c.Date+"): "+c.Change)
	}
	list("Changelog", changes)
	return nil
}

// joinNote appends a note in parentheses when there is one.
func joinNote(s, note string) string {
	if note == "" {
		return s
	}
	return s + " (" + note + ")"
}

// describe is the node's Description with the records the command adds in
// Extra: "anomaly_records", the anomaly records of the metadata's anomaly
// IDs, and "verification_evidence", the measurements of its benchmark IDs
// from the verification evidence file (both [] when there are none).
func describeNode(n node.Node) (describe.Description, error) {
	d := describe.Of(n)
	recs := docs.Records(d.Metadata.Anomalies)
	if recs == nil {
		recs = []anomalies.Entry{}
	}
	ev, err := verification.EvidenceFor(d.Metadata.Evidence...)
	if err != nil {
		return d, err
	}
	if ev == nil {
		ev = []verification.Measurement{}
	}
	d.Extra = map[string]any{"anomaly_records": recs, "verification_evidence": ev}
	return d, nil
}
