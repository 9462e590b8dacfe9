package scene

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// This file builds subsystem nodes: a scene (a file or an inline graph)
// used as one node of a parent scene, through graph.Subsystem.

// SubsystemType is the node type of a subsystem: a node of a scene that
// is itself a scene, given by "scene" (a file) or "graph" (inline).
const SubsystemType = "subsystem"

// MaxDepth bounds how deeply subsystems nest (a scene file that names
// itself, directly or not, is an error before the bound).
const MaxDepth = 32

// Ports declares the ports of a scene used as a subsystem: what its
// parent wires, and the parameters it promotes. Inner paths are the
// scene's own "node.field" (or an inner subsystem's "sub.port").
type Ports struct {
	Inputs  []InputPort  `json:"inputs,omitempty"`
	Outputs []OutputPort `json:"outputs,omitempty"`
	Params  []ParamPort  `json:"params,omitempty"`
}

// InputPort feeds the inner inputs To ("node.input", one or more) with
// every edge the parent connects into "sub.Name".
type InputPort struct {
	Name string   `json:"name"`
	To   []string `json:"to"`
}

// OutputPort exposes the inner state field or output From ("node.field")
// as "sub.Name".
type OutputPort struct {
	Name string `json:"name"`
	From string `json:"from"`
}

// ParamPort promotes the inner parameter Param ("node.param") as the
// subsystem parameter Name.
type ParamPort struct {
	Name  string `json:"name"`
	Param string `json:"param"`
}

// subsystem builds the subsystem node n (at path p, "nodes[3]") with its
// parameters params: its scene, built with the promoted and inner
// parameters as overrides, wrapped as a graph.Subsystem with the scene's
// ports. Every problem is at a path under p.
func (sc *Scene) subsystem(reg *node.Registry, n Node, p string, params map[string]any, chain []string) (*graph.Subsystem, []error) {
	inner, at, chain, errs := sc.innerScene(n, p, chain)
	if inner == nil {
		return nil, errs
	}
	ov := map[string]any{}
	keyOf := map[string]string{} // inner "node.param" → the parent's key that set it
	var promoted []string
	if inner.Ports != nil {
		for _, q := range inner.Ports.Params {
			promoted = append(promoted, q.Name)
		}
	}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if strings.Contains(k, ".") {
			ov[k] = params[k] // an inner parameter by its path
			keyOf[k] = k
			continue
		}
		i := slices.Index(promoted, k)
		if i < 0 {
			errs = append(errs, &Error{Path: p + ".params." + k, Err: fmt.Errorf("no promoted parameter %q (ports.params of %s: %s)%s; an inner parameter is named by its path, node.param",
				k, at, strings.Join(promoted, ", "), node.DidYouMean(k, promoted))})
			continue
		}
		ov[inner.Ports.Params[i].Param] = params[k]
		keyOf[inner.Ports.Params[i].Param] = k
	}
	if len(errs) > 0 {
		return nil, errs
	}
	c := inner.check()
	if n.Graph == nil {
		errs = append(errs, prefixErrors(at, c.errs)...) // an inline graph's are the parent's check's
	}
	if c.fatal {
		return nil, errs
	}
	b, _, berrs := inner.buildIn(reg, ov, c, chain)
	for _, e := range berrs {
		// A problem with a value the parent set (an override naming no
		// inner node, a bad value) is at the parent's parameter, so that
		// a --set that caused it is named.
		if k := inner.overrideKey(e, keyOf); k != "" {
			var se *Error
			errors.As(e, &se)
			errs = append(errs, &Error{Path: p + ".params." + k, Err: se.Err})
			continue
		}
		errs = append(errs, prefixErrors(at, []error{e})...)
	}
	if len(errs) > 0 {
		closeNodes(b.g)
		return nil, errs
	}
	return inner.Ports.wrap(b.g), nil
}

// wrap wraps g as a subsystem with the ports ps declares (none for nil).
func (ps *Ports) wrap(g *graph.Graph) *graph.Subsystem {
	sub := graph.NewSubsystem(g)
	if ps == nil {
		return sub
	}
	for _, q := range ps.Inputs {
		sub.ExposeInput(q.Name, q.To...)
	}
	for _, q := range ps.Outputs {
		sub.ExposeOutput(q.Name, q.From)
	}
	for _, q := range ps.Params {
		sub.PromoteParam(q.Name, q.Param)
	}
	return sub
}

// Subsystem builds the scene as a graph.Subsystem with the ports it
// declares, as a parent scene would use it (cosim describe prints its
// ports and metadata). Its problems, and those of its ports, are
// reported at once.
func (sc *Scene) Subsystem(reg *node.Registry) (*graph.Subsystem, error) {
	c := sc.check()
	if c.fatal {
		return nil, c.err()
	}
	b, _, errs := sc.build(reg, nil, c)
	if errs = append(c.errs, errs...); len(errs) > 0 {
		closeNodes(b.g)
		return nil, joinErrors(errs)
	}
	sub := sc.Ports.wrap(b.g)
	if _, err := sub.Ports(); err != nil {
		closeNodes(b.g)
		return nil, joinErrors(sc.graphProblems(err, b))
	}
	return sub, nil
}

// overrideKey returns the parent's key (in keyOf, by inner "node.param")
// whose value caused the problem e of a build of sc, or "".
func (sc *Scene) overrideKey(e error, keyOf map[string]string) string {
	var se *Error
	if !errors.As(e, &se) {
		return ""
	}
	if k, ok := strings.CutPrefix(se.Path, "--set "); ok {
		return keyOf[k]
	}
	// "nodes[j].params…" or "connectors[j].params…": the part's name.
	var name string
	var j int
	var rest string
	for _, sec := range []string{"nodes", "connectors"} {
		if _, err := fmt.Sscanf(se.Path, sec+"[%d]", &j); err == nil {
			prefix := fmt.Sprintf("%s[%d].params", sec, j)
			r, ok := strings.CutPrefix(se.Path, prefix)
			if !ok {
				return ""
			}
			rest = strings.TrimPrefix(r, ".")
			switch {
			case sec == "nodes" && j < len(sc.Nodes):
				name = sc.Nodes[j].Name
			case sec == "connectors" && j < len(sc.Connectors):
				name = sc.Connectors[j].Name
			}
		}
	}
	if name == "" {
		return ""
	}
	if rest != "" {
		return keyOf[name+"."+rest] // an inner subsystem's parameter
	}
	var pe *node.ParamError
	if errors.As(se.Err, &pe) {
		return keyOf[name+"."+pe.Param]
	}
	return ""
}

// innerScene returns the scene of subsystem node n at path p, the path
// its problems are reported under ("nodes[3].graph" inline,
// "nodes[3].scene(leg.json)" from a file) and the chain of scenes above
// it, itself included.
func (sc *Scene) innerScene(n Node, p string, chain []string) (*Scene, string, []string, []error) {
	if len(chain) >= MaxDepth {
		return nil, "", nil, []error{&Error{Path: p, Err: fmt.Errorf("subsystems nest more than %d deep", MaxDepth)}}
	}
	if n.Graph != nil {
		inner := *n.Graph
		inner.Dir = sc.Dir
		return &inner, p + ".graph", append(slices.Clip(chain), p), nil
	}
	at := fmt.Sprintf("%s.scene(%s)", p, n.Scene)
	path := n.Scene
	if !filepath.IsAbs(path) {
		path = filepath.Join(sc.Dir, path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	if slices.Contains(chain, abs) {
		return nil, "", nil, []error{&Error{Path: p + ".scene", Err: fmt.Errorf("%q contains itself (through %s)", n.Scene, strings.Join(chain, " → "))}}
	}
	inner, err := DecodeFile(path)
	if inner == nil {
		if err == nil {
			err = errors.New("no scene")
		}
		return nil, "", nil, prefixErrors(at, []error{err})
	}
	// Decode's problems are reported by the caller's check of inner.
	return inner, at, append(slices.Clip(chain), abs), nil
}

// prefixErrors puts errs under the path at: a scene Error's path p
// becomes "at.p" ("at line 3, column 4" for a position alone), any other
// error is at at. Joined errors are taken apart.
func prefixErrors(at string, errs []error) []error {
	var out []error
	for _, e := range errs {
		se, ok := e.(*Error)
		if !ok {
			if j, ok := e.(interface{ Unwrap() []error }); ok {
				out = append(out, prefixErrors(at, j.Unwrap())...)
				continue
			}
			out = append(out, &Error{Path: at, Err: e})
			continue
		}
		sep := "."
		if strings.HasPrefix(se.Path, "line ") {
			sep = " at "
		}
		out = append(out, &Error{Path: at + sep + se.Path, Err: se.Err})
	}
	return out
}

// checkSubsystem checks the structure of node n at path p: a subsystem
// has exactly one of scene and graph, other nodes neither; an inline
// graph is checked as a scene, its problems under p.graph.
func (n Node) checkSubsystem(p string) []error {
	var errs []error
	bad := func(path, f string, a ...any) { errs = append(errs, &Error{Path: path, Err: fmt.Errorf(f, a...)}) }
	if n.Type != SubsystemType {
		if n.Scene != "" {
			bad(p+".scene", "only a node of type %q has a scene", SubsystemType)
		}
		if n.Graph != nil {
			bad(p+".graph", "only a node of type %q has a graph", SubsystemType)
		}
		return errs
	}
	switch {
	case n.Scene == "" && n.Graph == nil:
		bad(p, "a subsystem needs \"scene\" (a scene file) or \"graph\" (a scene inline)")
	case n.Scene != "" && n.Graph != nil:
		bad(p, "a subsystem has \"scene\" or \"graph\", not both")
	case n.Graph != nil:
		inner := *n.Graph
		if inner.Ports == nil {
			bad(p+".graph.ports", "missing: an inline graph declares the ports its parent wires ({} for none)")
			inner.Ports = &Ports{} // a part all the same: its run is not checked
		}
		errs = append(errs, prefixErrors(p+".graph", inner.check().errs)...)
	}
	return errs
}

// isPart reports whether the scene is a part only (ports and no run):
// its run section is not checked.
func (sc *Scene) isPart() bool { return sc.Ports != nil && sc.Run == (Run{}) }

// checkPorts checks the port declarations' form: names, and inner paths
// of the form node.field. Whether they resolve is checked when the scene
// is built (graph.PortError).
func (ps *Ports) check() []error {
	if ps == nil {
		return nil
	}
	var errs []error
	bad := func(path, f string, a ...any) { errs = append(errs, &Error{Path: path, Err: fmt.Errorf(f, a...)}) }
	name := func(p, n string) {
		if n == "" || strings.ContainsAny(n, ". \t\n[]") {
			bad(p+".name", "%q: port names are non-empty, without '.', '[', ']' or spaces", n)
		}
	}
	inner := func(p, f string) {
		if a, b, ok := strings.Cut(f, "."); !ok || a == "" || b == "" {
			bad(p, "%q is not of the form node.field", f)
		}
	}
	for i, q := range ps.Inputs {
		p := fmt.Sprintf("ports.inputs[%d]", i)
		name(p, q.Name)
		if len(q.To) == 0 {
			bad(p+".to", "missing: the inner inputs the port feeds")
		}
		for k, t := range q.To {
			inner(fmt.Sprintf("%s.to[%d]", p, k), t)
		}
	}
	for i, q := range ps.Outputs {
		p := fmt.Sprintf("ports.outputs[%d]", i)
		name(p, q.Name)
		inner(p+".from", q.From)
	}
	for i, q := range ps.Params {
		p := fmt.Sprintf("ports.params[%d]", i)
		name(p, q.Name)
		inner(p+".param", q.Param)
	}
	return errs
}

// nodeAt finds the node at path (relative to g, through subsystems:
// "leg1.knee.spring").
func nodeAt(g *graph.Graph, path string) (node.Node, bool) {
	head, rest, nested := strings.Cut(path, ".")
	if !nested {
		return g.Node(path)
	}
	sub, ok := g.Subsystem(head)
	if !ok {
		return nil, false
	}
	return nodeAt(sub.Graph(), rest)
}
