package scene

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// Limits keep memory bounded whatever a file says.
const (
	MaxBytes = 16 << 20 // largest scene file read
	MaxNodes = 200_000  // most nodes in one scene
	MaxEdges = 1_000_000
)

// Scene is the decoded JSON form of a scene file. docs/scenes.md documents
// every field.
type Scene struct {
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	Nodes       []Node `json:"nodes"`
	Edges       []Edge `json:"edges,omitempty"`
	Run         Run    `json:"run"`
	Record      Record `json:"record,omitempty"`
}

// Node is one node of a scene: its registered type, unique name and
// parameters (any omitted parameter takes its default).
type Node struct {
	Name   string         `json:"name"`
	Type   string         `json:"type"`
	Params map[string]any `json:"params,omitempty"`
}

// Edge wires "node.field" into "node.input", optionally through one of the
// registered transforms.
type Edge struct {
	From      string     `json:"from"`
	To        string     `json:"to"`
	Transform *Transform `json:"transform,omitempty"`
}

// Transform names a registered transform kind and its arguments:
// {"kind": "scale", "factor": 1000, "from": "kN", "to": "N"},
// {"kind": "component", "index": 2}, {"kind": "embed", "axis": 1, "len": 3}.
// Scenes never execute code: only these kinds exist.
type Transform struct {
	Kind   string  `json:"kind"`
	Factor float64 `json:"factor,omitempty"`
	From   string  `json:"from,omitempty"`
	To     string  `json:"to,omitempty"`
	Index  int     `json:"index,omitempty"`
	Axis   int     `json:"axis,omitempty"`
	Len    int     `json:"len,omitempty"`
}

// TransformKinds are the transform kinds a scene may name.
var TransformKinds = []string{"component", "embed", "scale"}

// Run holds the run settings.
type Run struct {
	Dt      float64 `json:"dt"`
	Steps   int     `json:"steps,omitempty"`
	End     float64 `json:"end,omitempty"`
	Workers int     `json:"workers,omitempty"`
}

// Record says which fields to record and how often.
type Record struct {
	Fields []string `json:"fields,omitempty"`
	Every  int      `json:"every,omitempty"`
}

// Error is a problem at a place in a scene file: a JSON path such as
// "nodes[1].params.elasticity", or a line and column for syntax errors.
type Error struct {
	Path string
	Err  error
}

func (e *Error) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Decode reads a scene file strictly: unknown fields, trailing data,
// oversized input and syntax errors are errors pointing to the place.
// It checks the structure; Build checks it against a registry.
func Decode(r io.Reader) (*Scene, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxBytes {
		return nil, &Error{Path: "scene", Err: fmt.Errorf("file is larger than %d bytes", MaxBytes)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	var sc Scene
	if err := dec.Decode(&sc); err != nil {
		return nil, locate(data, err)
	}
	if dec.More() {
		return nil, &Error{Path: position(data, dec.InputOffset()), Err: errors.New("unexpected data after the scene object")}
	}
	if err := sc.check(); err != nil {
		return nil, err
	}
	for i := range sc.Nodes {
		sc.Nodes[i].Params = normalize(sc.Nodes[i].Params).(map[string]any)
	}
	return &sc, nil
}

// normalize turns json.Number into float64 recursively.
func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return x.String()
		}
		return f
	case map[string]any:
		if x == nil {
			return map[string]any{}
		}
		for k, e := range x {
			x[k] = normalize(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
		return x
	case nil:
		return map[string]any{}
	}
	return v
}

func locate(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return &Error{Path: position(data, se.Offset), Err: fmt.Errorf("invalid JSON: %v", se)}
	case errors.As(err, &te):
		p := te.Field
		if p == "" {
			p = "scene"
		}
		return &Error{Path: p + " (" + position(data, te.Offset) + ")", Err: fmt.Errorf("got JSON %s, want %s", te.Value, te.Type)}
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return &Error{Path: position(data, int64(len(data))), Err: errors.New("the file ends before the scene does (truncated?)")}
	}
	if strings.HasPrefix(err.Error(), "json: unknown field") {
		return &Error{Path: "scene", Err: fmt.Errorf("%v (see docs/scenes.md for the format)", strings.TrimPrefix(err.Error(), "json: "))}
	}
	return &Error{Path: "scene", Err: err}
}

func position(data []byte, off int64) string {
	off = min(off, int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return fmt.Sprintf("line %d, column %d", line, col)
}

func (sc *Scene) check() error {
	var errs []error
	bad := func(path string, f string, a ...any) {
		errs = append(errs, &Error{Path: path, Err: fmt.Errorf(f, a...)})
	}
	if len(sc.Nodes) == 0 {
		bad("nodes", "a scene needs at least one node")
	}
	if len(sc.Nodes) > MaxNodes {
		bad("nodes", "%d nodes is more than the limit of %d", len(sc.Nodes), MaxNodes)
		return errors.Join(errs...)
	}
	if len(sc.Edges) > MaxEdges {
		bad("edges", "%d edges is more than the limit of %d", len(sc.Edges), MaxEdges)
		return errors.Join(errs...)
	}
	seen := map[string]int{}
	for i, n := range sc.Nodes {
		p := fmt.Sprintf("nodes[%d]", i)
		if n.Name == "" {
			bad(p+".name", "missing")
		} else if j, dup := seen[n.Name]; dup {
			bad(p+".name", "%q is already the name of nodes[%d]", n.Name, j)
		} else {
			seen[n.Name] = i
		}
		if n.Type == "" {
			bad(p+".type", "missing")
		}
	}
	for i, e := range sc.Edges {
		p := fmt.Sprintf("edges[%d]", i)
		if e.From == "" {
			bad(p+".from", "missing")
		}
		if e.To == "" {
			bad(p+".to", "missing")
		}
		if e.Transform != nil && !contains(TransformKinds, e.Transform.Kind) {
			bad(p+".transform.kind", "%q is not a transform kind%s", e.Transform.Kind, node.DidYouMean(e.Transform.Kind, TransformKinds))
		}
	}
	r := sc.Run
	if !(r.Dt > 0) || math.IsInf(r.Dt, 0) {
		bad("run.dt", "%v: the step must be finite and positive", r.Dt)
	}
	if r.Steps < 0 {
		bad("run.steps", "%d is negative", r.Steps)
	}
	if r.Steps == 0 && !(r.End > 0) {
		bad("run", "give steps or a positive end time")
	}
	if r.Dt > 0 && r.End/r.Dt > 1e9 || r.Steps > 1e9 {
		bad("run", "more than 1e9 steps")
	}
	if r.Workers < 0 {
		bad("run.workers", "%d is negative", r.Workers)
	}
	if sc.Record.Every < 0 {
		bad("record.every", "%d is negative", sc.Record.Every)
	}
	return errors.Join(errs...)
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Build constructs the graph of the scene from the registry, reporting
// every problem with its JSON path. overrides ("node.param" → value) are
// applied over the scene's parameters.
func (sc *Scene) Build(reg *node.Registry, overrides map[string]any) (*graph.Graph, error) {
	var errs []error
	byName := map[string]int{}
	for i, n := range sc.Nodes {
		byName[n.Name] = i
	}
	params := make([]map[string]any, len(sc.Nodes))
	for i, n := range sc.Nodes {
		params[i] = map[string]any{}
		for k, v := range n.Params {
			params[i][k] = v
		}
	}
	keys := make([]string, 0, len(overrides))
	for k := range overrides {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		nn, pn, ok := strings.Cut(k, ".")
		i, found := byName[nn]
		if !ok || !found {
			names := make([]string, len(sc.Nodes))
			for j, n := range sc.Nodes {
				names[j] = n.Name
			}
			errs = append(errs, &Error{Path: "--set " + k, Err: fmt.Errorf("no node %q in the scene%s", nn, node.DidYouMean(nn, names))})
			continue
		}
		params[i][pn] = overrides[k]
	}
	g := graph.New()
	for i, n := range sc.Nodes {
		nd, err := reg.New(n.Type, params[i])
		if err != nil {
			var ue *node.UnknownTypeError
			p := fmt.Sprintf("nodes[%d]", i)
			if errors.As(err, &ue) {
				p += ".type"
			} else {
				p += ".params"
			}
			errs = append(errs, &Error{Path: p, Err: err})
			continue
		}
		g.Add(n.Name, nd)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	for _, e := range sc.Edges {
		var opts []graph.Option
		if t := e.Transform; t != nil {
			switch t.Kind {
			case "scale":
				opts = append(opts, graph.Via(graph.Scale{Factor: t.Factor, From: t.From, To: t.To}))
			case "component":
				opts = append(opts, graph.Via(graph.Component{Index: t.Index}))
			case "embed":
				opts = append(opts, graph.Via(graph.Embed{Axis: t.Axis, Len: t.Len}))
			}
		}
		g.Connect(e.From, e.To, opts...)
	}
	return g, nil
}

// Settings returns the graph run settings of the scene.
func (sc *Scene) Settings() graph.Settings {
	return graph.Settings{Dt: sc.Run.Dt, Steps: sc.Run.Steps, End: sc.Run.End, Workers: sc.Run.Workers, Record: sc.Record.Fields, Every: sc.Record.Every}
}
