package scene

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// FromGraph describes a graph built in Go as a scene, so that it can be
// saved and run from a file. Every node must be node.Tunable (so that its
// parameters can be read back) and every transform one of the registered
// kinds; function-valued parameters and user transforms cannot be saved
// (scenes never carry code) and are reported as errors.
//
// A connector of any type attached to bodies (graph.Graph.AddConnector,
// springdamper.Connect, …) becomes an entry of Connectors, and the edges
// its links made are left out of Edges (Build makes them again). Its ends
// and links are read through node.Attached; a link without its edge is an
// error. Build adds connectors after the
// nodes and before the edges, so a Go graph that connected a plain edge
// into a body's force before a connector's load sums the two in the other
// order: the same value, as addition of two terms commutes; with three or
// more edges into one input the last bit may differ.
func FromGraph(g *graph.Graph, run Run, rec Record) (*Scene, error) {
	if subs := g.SubsystemNames(); len(subs) > 0 {
		return nil, fmt.Errorf("scene: the graph has subsystems (%s): saving them is not supported; save each part's graph on its own", strings.Join(subs, ", "))
	}
	sc := &Scene{Run: run, Record: rec}
	edges := g.Edges()
	owned := make([]bool, len(edges))
	for _, name := range g.Names() {
		n, _ := g.Node(name)
		tn, ok := node.As[node.Tunable](n)
		if !ok {
			return nil, fmt.Errorf("scene: node %q (%s) does not expose its parameters (node.Tunable)", name, n.Spec().Type)
		}
		params := map[string]any{}
		vals := tn.Params()
		keys := make([]string, 0, len(vals))
		for k := range vals {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v := vals[k]
			p, _ := n.Spec().Param(k)
			if p.Kind == node.Function {
				if v != nil {
					return nil, fmt.Errorf("scene: node %q: parameter %q is a Go function; scenes cannot carry code", name, k)
				}
				continue
			}
			jv, err := jsonValue(v)
			if err != nil {
				return nil, fmt.Errorf("scene: node %q: parameter %q: %w", name, k, err)
			}
			params[k] = jv
		}
		if at, ok := node.As[node.Attached](n); ok {
			c, isConn, err := connectorOf(g, name, n.Spec().Type, at, edges, owned)
			if err != nil {
				return nil, err
			}
			if isConn {
				c.Params = params
				sc.Connectors = append(sc.Connectors, c)
				continue
			}
		}
		sc.Nodes = append(sc.Nodes, Node{Name: name, Type: n.Spec().Type, Params: params})
	}
	for i, e := range edges {
		if owned[i] {
			continue
		}
		se := Edge{From: e.From, To: e.To, Repeat: e.Repeated()}
		switch t := e.Transform.(type) {
		case nil:
		case graph.Scale:
			se.Transform = &Transform{Kind: "scale", Factor: t.Factor, From: t.From, To: t.To}
		case graph.Component:
			se.Transform = &Transform{Kind: "component", Index: t.Index}
		case graph.Embed:
			se.Transform = &Transform{Kind: "embed", Axis: t.Axis, Len: t.Len}
		default:
			return nil, fmt.Errorf("scene: edge %s -> %s: transform %s cannot be saved; scenes name only %v", e.From, e.To, e.Transform.Name(), transformKinds)
		}
		sc.Edges = append(sc.Edges, se)
	}
	return sc, nil
}

// jsonValue returns v as Decode would give it back from JSON ([]float64
// becomes []any of float64, int becomes float64), so that a saved scene
// equals the one loaded from its file.
func jsonValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	if out == nil {
		return nil, nil
	}
	return normalize(out), nil
}

// connectorOf describes the connector node name (of type typ, any
// node.Attached) as a Connector when it is attached to a body or has an
// end away from the origin, marking the edges its links made as owned. It
// returns false for a connector between two ground points at the origin,
// which is saved as a node (as its type's default construction builds it).
// A body end is named by the edges of its links, or else by the node of g
// that is the end's body.
func connectorOf(g *graph.Graph, name, typ string, at node.Attached, edges []graph.Edge, owned []bool) (Connector, bool, error) {
	ends, links := at.Attachments()
	bodies := [2]string{node.Ground, node.Ground}
	if _, clash := g.Node(node.Ground); clash {
		bodies = [2]string{"", ""}
	}
	var mine []int
	for _, l := range links {
		port := name + "." + l.Port
		found := false
		for i, e := range edges {
			from, to := e.To, e.From // the body's end of the edge, the connector's end
			if l.Load {
				from, to = e.From, e.To
			}
			if owned[i] || from != port || !strings.HasSuffix(to, "."+l.BodyField) || e.Transform != nil {
				continue
			}
			bodies[l.End] = strings.TrimSuffix(to, "."+l.BodyField)
			mine = append(mine, i)
			found = true
			break
		}
		if !found {
			return Connector{}, false, fmt.Errorf("scene: connector %q (%s): its link %s of body %d has no edge in the graph; attach connectors with graph.Graph.AddConnector, which connects every link", name, typ, l.Port, l.End)
		}
	}
	attached := false
	for k, e := range ends {
		if e.Body == nil {
			continue
		}
		attached = true
		if bodies[k] != node.Ground && bodies[k] != "" {
			continue
		}
		for _, bn := range g.Names() {
			n, _ := g.Node(bn)
			if m, ok := node.As[node.Marker](n); ok && m == e.Body {
				bodies[k] = bn
				break
			}
		}
		if bodies[k] == node.Ground || bodies[k] == "" {
			return Connector{}, false, fmt.Errorf("scene: connector %q (%s): the body of end %d is not a node of the graph", name, typ, k)
		}
	}
	c := Connector{Name: name, Type: typ, Bodies: bodies[:]}
	if ends[0].Local != [3]float64{} || ends[1].Local != [3]float64{} {
		c.Local = [][]float64{ends[0].Local[:], ends[1].Local[:]}
	}
	if !attached && c.Local == nil {
		return Connector{}, false, nil
	}
	for _, i := range mine {
		owned[i] = true
	}
	return c, true, nil
}

// Encode writes the scene as indented JSON.
func (sc *Scene) Encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sc)
}
