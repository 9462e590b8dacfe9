package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// describeScene prints what a parent scene sees of the scene file at
// path used as a subsystem: its ports (inputs, outputs, promoted
// parameters with their units, shapes and ranges, each with the inner
// field it stands for) and the metadata derived from its nodes.
func describeScene(path string, w io.Writer) error {
	sc, err := scene.DecodeFile(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	sub, err := sc.Subsystem(nodes.Registry())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer closeGraph(sub.Graph())
	ports, err := sub.Ports()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	m := sub.Meta()
	name := sc.Name
	if name == "" {
		name = path
	}
	fmt.Fprintf(w, "%s — a scene of %d %s, used as a node of type %q with \"scene\": %q\n", name, m.Nodes, plural(m.Nodes, "node", "nodes"), scene.SubsystemType, path)
	if m.OrderFrom != "" {
		fmt.Fprintf(w, "declared order: %s (the lowest of its nodes', from %s)\n", m.Order, m.OrderFrom)
	} else {
		fmt.Fprintln(w, "declared order: none (no node declares one)")
	}
	if len(m.Anomalies) > 0 {
		var as []string
		for _, a := range m.Anomalies {
			as = append(as, a.ID+" ("+a.Node+")")
		}
		fmt.Fprintf(w, "known anomalies: %s\n", strings.Join(as, ", "))
	}
	if len(ports) == 0 {
		fmt.Fprintln(w, "\nNo ports: the scene declares none (\"ports\" in docs/scenes.md); its fields are still addressed by path, NAME.node.field.")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, k := range []graph.PortKind{graph.InputPort, graph.OutputPort, graph.ParamPort} {
		var rows []graph.Port
		for _, p := range ports {
			if p.Kind == k {
				rows = append(rows, p)
			}
		}
		if len(rows) == 0 {
			continue
		}
		tw.Flush()
		switch k {
		case graph.InputPort:
			fmt.Fprintln(w, "\nInput ports (wire into NAME.port)")
			fmt.Fprintln(tw, "  NAME\tSHAPE\tUNITS\tFEEDS\tDESCRIPTION")
		case graph.OutputPort:
			fmt.Fprintln(w, "\nOutput ports (wire from NAME.port)")
			fmt.Fprintln(tw, "  NAME\tSHAPE\tUNITS\tFROM\tDESCRIPTION")
		case graph.ParamPort:
			fmt.Fprintln(w, "\nPromoted parameters (\"params\" of the subsystem node, or --set NAME.param)")
			fmt.Fprintln(tw, "  NAME\tKIND\tVALUE\tUNITS\tVALID\tSETS\tDESCRIPTION")
		}
		for _, p := range rows {
			if k == graph.ParamPort {
				def := "-"
				if p.Value != nil {
					def = node.FormatValue(p.Value)
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.Name, p.Param.Kind, def, p.Units, p.Param.Valid(), strings.Join(p.Inner, ", "), p.Description)
				continue
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", p.Name, p.Shape, p.Units, strings.Join(p.Inner, ", "), p.Description)
		}
	}
	return tw.Flush()
}

// closeGraph releases the resources of the nodes of g and of its
// subsystems (an FMU's instance).
func closeGraph(g *graph.Graph) {
	flat, err := g.Flatten()
	if err != nil {
		return
	}
	for _, n := range flat.Names() {
		nd, _ := flat.Node(n)
		if c, ok := node.As[io.Closer](nd); ok {
			c.Close()
		}
	}
}
