package scene

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// FromGraph describes a graph built in Go as a scene, so that it can be
// saved and run from a file. Every node must be node.Tunable (so that its
// parameters can be read back) and every transform one of the registered
// kinds; function-valued parameters and user transforms cannot be saved
// (scenes never carry code) and are reported as errors.
func FromGraph(g *graph.Graph, run Run, rec Record) (*Scene, error) {
	sc := &Scene{Run: run, Record: rec}
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
			params[k] = v
		}
		sc.Nodes = append(sc.Nodes, Node{Name: name, Type: n.Spec().Type, Params: params})
	}
	for _, e := range g.Edges() {
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

// Encode writes the scene as indented JSON.
func (sc *Scene) Encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sc)
}
