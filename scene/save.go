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
	"github.com/cosimgo/cosim/nodes/spring"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// FromGraph describes a graph built in Go as a scene, so that it can be
// saved and run from a file. Every node must be node.Tunable (so that its
// parameters can be read back) and every transform one of the registered
// kinds; function-valued parameters and user transforms cannot be saved
// (scenes never carry code) and are reported as errors.
//
// A connector attached to bodies (springdamper.Connect) becomes an entry
// of Connectors, and the edges Connect made for it are left out of Edges
// (Build makes them again). Its marker points are read through a
// Markers() [2]springdamper.Marker method; a connector without one whose
// markers cannot be told is an error. Build adds connectors after the
// nodes and before the edges, so a Go graph that connected a plain edge
// into a body's force before a connector's load sums the two in the other
// order: the same value, as addition of two terms commutes; with three or
// more edges into one input the last bit may differ.
func FromGraph(g *graph.Graph, run Run, rec Record) (*Scene, error) {
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
		if n.Spec().Type == spring.TypeName {
			c, err := springConnectorOf(g, name, n, edges, owned)
			if err != nil {
				return nil, err
			}
			c.Params = params
			sc.Connectors = append(sc.Connectors, c)
			continue
		}
		if n.Spec().Type == springdamper.TypeName {
			c, isConn, err := connectorOf(g, name, n, edges, owned)
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
		se := Edge{From: e.From, To: e.To}
		switch t := e.Transform.(type) {
		case nil:
		case graph.Scale:
			se.Transform = &Transform{Kind: "scale", Factor: t.Factor, From: t.From, To: t.To}
		case graph.Component:
			se.Transform = &Transform{Kind: "component", Index: t.Index}
		case graph.Embed:
			se.Transform = &Transform{Kind: "embed", Axis: t.Axis, Len: t.Len}
		default:
			return nil, fmt.Errorf("scene: edge %s -> %s: transform %s cannot be saved; scenes name only %v", e.From, e.To, e.Transform.Name(), TransformKinds)
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

// markerLister is how FromGraph reads a connector's marker points
// (springdamper.Node.Markers, or a wrapper's).
type markerLister interface {
	Markers() [2]springdamper.Marker
}

// connectorOf describes the springdamper node name as a Connector when it
// is attached to bodies or has marker points away from the origin, marking
// the edges Connect made for it as owned. It returns false for a plain
// ground–ground connector at the origin, which is saved as a node.
func connectorOf(g *graph.Graph, name string, n node.Node, edges []graph.Edge, owned []bool) (Connector, bool, error) {
	bodies := [2]string{Ground, Ground}
	if _, clash := g.Node(Ground); clash {
		bodies = [2]string{"", ""}
	}
	attached := false
	var mine []int
	for i, e := range edges {
		for k := range 2 {
			prefix := fmt.Sprintf("%s.m%d_", name, k)
			switch {
			case strings.HasPrefix(e.To, prefix):
				bodies[k], _, _ = strings.Cut(e.From, ".")
			case strings.HasPrefix(e.From, prefix):
				bodies[k], _, _ = strings.Cut(e.To, ".")
			default:
				continue
			}
			attached = true
			mine = append(mine, i)
		}
	}
	ml, ok := node.As[markerLister](n)
	if !ok {
		if attached || !atOrigin(n) {
			return Connector{}, false, fmt.Errorf("scene: connector %q: its marker points cannot be read back (it has no Markers method), so it cannot be saved; describe it in the scene's connectors section instead", name)
		}
		return Connector{}, false, nil
	}
	ms := ml.Markers()
	c := Connector{Name: name, Type: springdamper.TypeName, Bodies: bodies[:]}
	if ms[0].Local != [3]float64{} || ms[1].Local != [3]float64{} {
		c.Local = [][]float64{ms[0].Local[:], ms[1].Local[:]}
	}
	if !attached && c.Local == nil {
		return Connector{}, false, nil
	}
	for _, i := range mine {
		owned[i] = true
	}
	return c, true, nil
}

// atOrigin reports whether a connector without body markers behaves as
// FromMap's (both ground points at the origin): its Displacement output,
// the difference of the two world points, is zero. Any two equal ground
// points give the same outputs as two at the origin.
func atOrigin(n node.Node) bool {
	out, ok := node.As[node.Outputter](n)
	s := n.Spec()
	if !ok || s.InputLayout.Size() != 0 {
		return false
	}
	y := make([]float64, s.OutputLayout.Size())
	if err := out.Outputs(0, nil, s.DefaultInputs(), y); err != nil {
		return false
	}
	off := s.OutputOffset("Displacement")
	return y[off] == 0 && y[off+1] == 0 && y[off+2] == 0
}

// Encode writes the scene as indented JSON.
func (sc *Scene) Encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sc)
}
