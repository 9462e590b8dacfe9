package graph

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cosimgo/cosim/node"
)

// This file wraps a graph as a reusable part of a parent graph (a
// Subsystem) and flattens a graph of subsystems into one graph of path-
// named nodes, which Build then compiles like any other.

// Subsystem is a graph wrapped as one part of a parent graph: a leg, an
// axle, a controller, reused as often as it is added. It declares what the
// parent sees — its input ports (each feeding one or more inner inputs),
// its output ports (each an inner state field or output) and its promoted
// parameters (each an inner node's parameter) — and nothing else of the
// inner graph is reachable by the parent's edges.
//
// A parent adds it with [Graph.AddSubsystem] and wires its ports as
// "name.port", exactly as a node's fields. Subsystems nest to any depth: an
// inner graph may hold subsystems of its own, and a port may name an inner
// subsystem's port ("knee.torque").
//
// Build flattens: every inner node becomes a node of the parent named by
// its full path ("leg2.knee.spring"), every inner edge and every edge
// through a port becomes an edge between full paths, and the engine sees
// only nodes, so identical subsystems form the same batched families as
// the same nodes wired by hand. After Build every inner field is addressed
// by its full path ("leg2.knee.spring.stiffness" as a parameter,
// "leg2.foot.pos" as a state field) by Value, Field, checkpoints,
// sensitivities and recording.
//
// Like a Graph, a Subsystem only records: ExposeInput, ExposeOutput and
// PromoteParam check nothing, and Build (or Ports, or Flatten) reports
// every problem at once with full paths. The inner graph is shared, not
// copied: the same Subsystem added twice shares its node values, so build
// one per use (a function returning a fresh Subsystem) when the parts must
// have their own parameters or state. A Subsystem is not safe for
// concurrent use.
type Subsystem struct {
	g       *Graph
	inputs  []portDecl
	outputs []portDecl
	params  []portDecl
}

// portDecl is one declared port: its name and the inner paths it stands
// for (several for an input that fans out, one otherwise).
type portDecl struct {
	name  string
	inner []string
}

// NewSubsystem wraps the graph g. g is used, not copied: changes to it
// before Build are seen.
func NewSubsystem(g *Graph) *Subsystem { return &Subsystem{g: g} }

// Graph returns the inner graph.
func (s *Subsystem) Graph() *Graph { return s.g }

// ExposeInput declares the input port name, feeding the inner inputs
// ("node.input" or an inner subsystem's "sub.port"): every edge the parent
// connects into "sub.name" is connected into each of them, with its
// transform and combine rule.
func (s *Subsystem) ExposeInput(name string, inner ...string) {
	s.inputs = append(s.inputs, portDecl{name, slices.Clone(inner)})
}

// ExposeOutput declares the output port name, standing for the inner
// state field or output inner ("node.field" or an inner subsystem's
// "sub.port"). A field's former name (node.Field.Formerly) resolves to
// the field, with a deprecation warning, as in an edge.
func (s *Subsystem) ExposeOutput(name, inner string) {
	s.outputs = append(s.outputs, portDecl{name, []string{inner}})
}

// PromoteParam declares the parameter name, standing for the inner
// parameter inner ("node.param" or an inner subsystem's "sub.param").
// SetParams sets it; its range is the inner parameter's.
func (s *Subsystem) PromoteParam(name, inner string) {
	s.params = append(s.params, portDecl{name, []string{inner}})
}

// PortKind says which side of a subsystem a port is on.
type PortKind int

// Port kinds.
const (
	InputPort PortKind = iota
	OutputPort
	ParamPort
)

func (k PortKind) String() string {
	switch k {
	case InputPort:
		return "input"
	case OutputPort:
		return "output"
	case ParamPort:
		return "param"
	}
	return fmt.Sprintf("PortKind(%d)", int(k))
}

// Port describes one declared port of a subsystem, resolved through any
// nesting to the inner nodes it stands for.
type Port struct {
	Name string
	Kind PortKind
	// Inner are the paths inside the subsystem the port stands for, as
	// declared ("spring.x", or "knee.torque" through an inner subsystem).
	Inner []string
	// Leaf are the same as paths of nodes, through every nested
	// subsystem ("knee.spring.x"), relative to this subsystem.
	Leaf []string
	// Shape, Units and Description are the inner field's (an input
	// port's first inner input's). Param is the inner parameter, with its
	// range, and Value its current value in the inner node, for a
	// ParamPort.
	Shape       node.Shape
	Units       string
	Description string
	Param       node.Param
	Value       any
}

// PortError is a problem with a subsystem's port declaration: an inner
// path that names no node, or a field of the wrong kind, or two inner
// inputs of one port that disagree in shape or units.
type PortError struct {
	Subsystem string // full path of the subsystem, "leg2.knee"
	Kind      PortKind
	Port      string
	Err       error // ErrUnknownNode, ErrUnknownField, ErrShape, ErrUnits or ErrDuplicateName
	Detail    string
}

func (e *PortError) Error() string {
	return fmt.Sprintf("subsystem %q %s port %q: %v: %s", e.Subsystem, e.Kind, e.Port, e.Err, e.Detail)
}

func (e *PortError) Unwrap() error { return e.Err }

// Ports resolves and returns the declared ports, inputs then outputs then
// parameters, each in declaration order. Every declaration problem is
// reported at once (a *BuildError of *PortError).
func (s *Subsystem) Ports() ([]Port, error) {
	if s.g == nil {
		return nil, &BuildError{Problems: []error{fmt.Errorf("subsystem: %w: its graph is nil", ErrBadName)}}
	}
	var probs []error
	ports := s.ports("", &probs)
	s.g.checkPorts("", &probs)
	if len(probs) > 0 {
		return nil, &BuildError{Problems: probs}
	}
	return ports, nil
}

// checkPorts checks the port declarations of every subsystem of g, through
// every nesting, appending the problems; at is g's full path.
func (g *Graph) checkPorts(at string, probs *[]error) {
	for _, ns := range g.subs {
		if ns.s == nil || ns.s.g == nil {
			continue
		}
		full := join(at, ns.name)
		ns.s.ports(full, probs)
		ns.s.g.checkPorts(full, probs)
	}
}

// declared reports whether s declares a port of kind k named name.
func (s *Subsystem) declared(k PortKind, name string) bool {
	decls := [...][]portDecl{InputPort: s.inputs, OutputPort: s.outputs, ParamPort: s.params}[k]
	return slices.ContainsFunc(decls, func(d portDecl) bool { return d.name == name })
}

// ports resolves the ports of s, whose full path is at, appending problems.
func (s *Subsystem) ports(at string, probs *[]error) []Port {
	var out []Port
	seen := map[string]PortKind{}
	for _, set := range []struct {
		kind  PortKind
		decls []portDecl
	}{{InputPort, s.inputs}, {OutputPort, s.outputs}, {ParamPort, s.params}} {
		for _, d := range set.decls {
			bad := func(err error, format string, a ...any) {
				*probs = append(*probs, &PortError{Subsystem: at, Kind: set.kind, Port: d.name, Err: err, Detail: fmt.Sprintf(format, a...)})
			}
			key := d.name
			if set.kind == ParamPort {
				key = "param " + d.name // parameters have their own namespace
			}
			if k, dup := seen[key]; dup {
				bad(ErrDuplicateName, "declared twice (already a %s port)", k)
				continue
			}
			seen[key] = set.kind
			if d.name == "" || strings.ContainsAny(d.name, ". \t\n") {
				bad(ErrBadName, "port names must be non-empty, without '.' or spaces")
				continue
			}
			if len(d.inner) == 0 {
				bad(ErrUnknownField, "it names no inner %s", set.kind)
				continue
			}
			p := Port{Name: d.name, Kind: set.kind, Inner: d.inner}
			ok := true
			for i, in := range d.inner {
				r, err := s.g.resolvePort(in, set.kind, at)
				if err != nil {
					// A problem inside a nested subsystem is that
					// subsystem's, reported by its own check.
					var pe *PortError
					if !errors.As(err, &pe) {
						bad(errors.Unwrap(err), "%v", err)
					}
					ok = false
					continue
				}
				if i == 0 {
					p.Shape, p.Units, p.Description, p.Param, p.Value = r.shape, r.units, r.desc, r.param, r.value
				} else if r.shape != p.Shape {
					bad(ErrShape, "inner input %q has shape %v, %q has %v", in, r.shape, d.inner[0], p.Shape)
					ok = false
				} else if r.units != p.Units {
					bad(ErrUnits, "inner input %q is in %q, %q in %q", in, r.units, d.inner[0], p.Units)
					ok = false
				}
				p.Leaf = append(p.Leaf, r.leaf...)
			}
			if ok {
				out = append(out, p)
			}
		}
	}
	return out
}

// portRef is an inner path resolved to its leaf node paths and its field.
type portRef struct {
	leaf   []string // relative to the graph it was resolved in
	shape  node.Shape
	units  string
	desc   string
	param  node.Param
	value  any
	nested bool // through an inner subsystem
}

// portErr is the error of a path that does not resolve.
type portErr struct {
	err    error
	detail string
}

func (e *portErr) Error() string { return e.detail }
func (e *portErr) Unwrap() error { return e.err }

// resolvePort resolves the path p ("node.field" or "sub.port") of graph g
// as a port of kind k. at is g's full path, for the problems of nested
// subsystems.
func (g *Graph) resolvePort(p string, k PortKind, at string) (portRef, error) {
	nn, fn, ok := strings.Cut(p, ".")
	if !ok || nn == "" || fn == "" {
		return portRef{}, &portErr{ErrUnknownField, fmt.Sprintf("%q is not of the form node.field", p)}
	}
	if sub, ok := g.Subsystem(nn); ok {
		if sub == nil || sub.g == nil {
			// Reported by Flatten as the subsystem's own problem.
			return portRef{}, &PortError{Subsystem: join(at, nn), Kind: k, Port: fn, Err: ErrBadName, Detail: "the subsystem or its graph is nil"}
		}
		var probs []error
		ports := sub.ports(join(at, nn), &probs)
		if len(probs) > 0 && sub.declared(k, fn) {
			// The port is declared but does not resolve: the problem is
			// the nested subsystem's own, reported by its check.
			return portRef{}, &PortError{Subsystem: join(at, nn), Kind: k, Port: fn, Err: ErrUnknownField}
		}
		for _, q := range ports {
			if q.Name == fn && q.Kind == k {
				r := portRef{shape: q.Shape, units: q.Units, desc: q.Description, param: q.Param, value: q.Value, nested: true}
				for _, l := range q.Leaf {
					r.leaf = append(r.leaf, nn+"."+l)
				}
				return r, nil
			}
		}
		decls := [...][]portDecl{InputPort: sub.inputs, OutputPort: sub.outputs, ParamPort: sub.params}[k]
		names := make([]string, len(decls))
		for i, d := range decls {
			names[i] = d.name
		}
		return portRef{}, &portErr{ErrUnknownField, fmt.Sprintf("subsystem %q has no %s port %q%s", nn, k, fn, node.DidYouMean(fn, names))}
	}
	n, ok := g.Node(nn)
	if !ok || n == nil {
		return portRef{}, &portErr{ErrUnknownNode, fmt.Sprintf("no node or subsystem %q%s", nn, node.DidYouMean(nn, g.partNames()))}
	}
	spec := n.Spec()
	r := portRef{leaf: []string{p}}
	switch k {
	case InputPort:
		i := spec.InputLayout.Index(fn)
		if i < 0 {
			return portRef{}, &portErr{ErrUnknownField, fmt.Sprintf("node %q (%s) has no input %q%s", nn, spec.Type, fn, node.DidYouMean(fn, spec.InputLayout.Names()))}
		}
		in := spec.Inputs[i]
		r.shape, r.units, r.desc = in.Shape, in.Units, in.Description
	case OutputPort:
		if cur, ok := spec.Renamed(fn); ok {
			// A former field name (node.Field.Formerly) resolves as it
			// does in an edge, a scene or a checkpoint: to the renamed
			// field, with the deprecation warning; the port stands for
			// the field by its current name.
			spec.WarnRenamed(join(at, nn), fn)
			fn = cur
			r.leaf = []string{nn + "." + cur}
		}
		var f node.Field
		if i := spec.StateLayout.Index(fn); i >= 0 {
			f = spec.State[i]
		} else if i := spec.OutputLayout.Index(fn); i >= 0 {
			f = spec.Outputs[i]
		} else {
			names := append(spec.StateLayout.Names(), spec.OutputLayout.Names()...)
			return portRef{}, &portErr{ErrUnknownField, fmt.Sprintf("node %q (%s) has no state field or output %q%s", nn, spec.Type, fn, node.DidYouMean(fn, names))}
		}
		r.shape, r.units, r.desc = f.Shape, f.Units, f.Description
	case ParamPort:
		prm, ok := spec.Param(fn)
		if !ok {
			return portRef{}, &portErr{ErrUnknownField, fmt.Sprintf("node %q (%s) has no parameter %q%s", nn, spec.Type, fn, node.DidYouMean(fn, spec.ParamNames()))}
		}
		t, ok := node.As[node.Tunable](n)
		if !ok {
			return portRef{}, &portErr{ErrUnknownField, fmt.Sprintf("node %q (%s) cannot change its parameters after construction (not node.Tunable)", nn, spec.Type)}
		}
		r.shape, r.units, r.desc, r.param, r.value = prm.Shape, prm.Units, prm.Description, prm, t.Params()[fn]
	}
	return r, nil
}

// join is the full path of part name in the graph at path at.
func join(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

// SetParams sets promoted parameters by their port names: each value is
// handed to the inner node's SetParams (node.Tunable). Every name is
// checked first, and nothing changes when one is unknown; an inner node
// validates its own values (and changes nothing of its own when one is
// invalid). The same rule as for nodes holds: never while a Sim built
// from the graph is stepping.
func (s *Subsystem) SetParams(p map[string]any) error {
	ports, err := s.Ports()
	if err != nil {
		return err
	}
	byName := map[string]Port{}
	var names []string
	for _, q := range ports {
		if q.Kind == ParamPort {
			byName[q.Name] = q
			names = append(names, q.Name)
		}
	}
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var errs []error
	for _, k := range keys {
		if _, ok := byName[k]; !ok {
			errs = append(errs, fmt.Errorf("subsystem parameter %q: %w: no such promoted parameter%s", k, ErrUnknownField, node.DidYouMean(k, names)))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, k := range keys {
		leaf := byName[k].Leaf[0]
		i := strings.LastIndexByte(leaf, '.')
		n, _ := s.g.lookup(leaf[:i])
		t, _ := node.As[node.Tunable](n)
		if err := t.SetParams(map[string]any{leaf[i+1:]: p[k]}); err != nil {
			errs = append(errs, fmt.Errorf("subsystem parameter %q (%s): %w", k, leaf, err))
		}
	}
	return errors.Join(errs...)
}

// lookup finds a node by its path relative to g, through subsystems
// ("knee.spring").
func (g *Graph) lookup(path string) (node.Node, bool) {
	head, rest, nested := strings.Cut(path, ".")
	if !nested {
		return g.Node(path)
	}
	sub, ok := g.Subsystem(head)
	if !ok {
		return nil, false
	}
	return sub.g.lookup(rest)
}

// SubsystemMeta is what a subsystem states about itself, derived from its
// nodes' metadata.
type SubsystemMeta struct {
	// Order is the lowest declared temporal order of the inner nodes that
	// declare one (the accuracy of the whole is that of its least
	// accurate part); OrderFrom is the path of the node that sets it, ""
	// when no inner node declares an order.
	Order     node.Order
	OrderFrom string
	// Anomalies are the union of the inner nodes' known anomalies, each
	// naming the node it comes from, in node order.
	Anomalies []InnerAnomaly
	// Nodes is the number of nodes the subsystem flattens to.
	Nodes int
}

// InnerAnomaly is one known anomaly of an inner node.
type InnerAnomaly struct {
	ID   string // e.g. "MADD-ANO-011"
	Node string // path of the node relative to the subsystem, "knee.spring"
}

// Meta derives the subsystem's metadata from its nodes, through every
// nesting.
func (s *Subsystem) Meta() SubsystemMeta {
	var m SubsystemMeta
	if s.g == nil {
		return m
	}
	s.g.walk("", func(path string, n node.Node) {
		m.Nodes++
		if n == nil {
			return
		}
		meta := n.Spec().Meta
		for _, id := range meta.Anomalies {
			m.Anomalies = append(m.Anomalies, InnerAnomaly{ID: id, Node: path})
		}
		if o := meta.Order; o.Temporal > 0 && (m.OrderFrom == "" || o.Temporal < m.Order.Temporal) {
			m.Order, m.OrderFrom = o, path
		}
	})
	return m
}

// walk calls f for every node of g and of its subsystems, in the order
// the flattened graph holds them, with its path relative to g (prefixed
// by at).
func (g *Graph) walk(at string, f func(path string, n node.Node)) {
	si := 0
	for i := 0; i <= len(g.nodes); i++ {
		for ; si < len(g.subs) && g.subs[si].at == i; si++ {
			if ns := g.subs[si]; ns.s != nil && ns.s.g != nil {
				ns.s.g.walk(join(at, ns.name), f)
			}
		}
		if i < len(g.nodes) {
			f(join(at, g.nodes[i].name), g.nodes[i].n)
		}
	}
}

// namedSub is a subsystem added to a graph: at is the number of nodes
// added before it, which places its nodes in the flattened order.
type namedSub struct {
	name string
	s    *Subsystem
	at   int
}

// AddSubsystem adds the subsystem s under name, unique among the graph's
// nodes and subsystems. Its ports are wired as "name.port". Problems are
// reported by Build.
func (g *Graph) AddSubsystem(name string, s *Subsystem) {
	g.subs = append(g.subs, namedSub{name: name, s: s, at: len(g.nodes)})
}

// Subsystem returns the subsystem added under name.
func (g *Graph) Subsystem(name string) (*Subsystem, bool) {
	for i := range g.subs {
		if g.subs[i].name == name {
			return g.subs[i].s, true
		}
	}
	return nil, false
}

// SubsystemNames returns the names of the graph's subsystems in the order
// they were added.
func (g *Graph) SubsystemNames() []string {
	out := make([]string, len(g.subs))
	for i, s := range g.subs {
		out[i] = s.name
	}
	return out
}

// partNames are the names of g's nodes and subsystems, for suggestions.
func (g *Graph) partNames() []string { return append(g.Names(), g.SubsystemNames()...) }

// Flatten returns the graph with every subsystem replaced by its nodes,
// named by their full paths ("leg2.knee.spring"), and every edge through
// a port replaced by edges between full paths. A graph without
// subsystems is returned as is. Build flattens first; Flatten is for
// tools that need the flat graph itself (drawing, saving). Problems with
// names and port declarations are reported at once in a *BuildError
// (*PortError, *EdgeError); wiring problems between the flattened nodes
// are Build's.
func (g *Graph) Flatten() (*Graph, error) {
	if len(g.subs) == 0 {
		return g, nil
	}
	flat, probs := g.flatten()
	if len(probs) > 0 {
		return nil, &BuildError{Problems: probs}
	}
	return flat, nil
}

// flatten returns the flattened graph, without the parts that have
// problems, and the problems.
func (g *Graph) flatten() (*Graph, []error) {
	f := &flattener{out: New()}
	f.out.flat = true
	f.graph(g, "")
	return f.out, f.probs
}

// flattener accumulates the flattened graph and the problems found.
type flattener struct {
	out   *Graph
	probs []error
}

// graph appends g's nodes and edges, under the path at, to the output.
func (f *flattener) graph(g *Graph, at string) {
	// Names: nodes and subsystems share one namespace, checked here for
	// every level (the flat graph's names contain '.').
	seen := map[string]bool{}
	for _, nn := range g.nodes {
		seen[nn.name] = true
	}
	for _, s := range g.subs {
		full := join(at, s.name)
		switch {
		case s.name == "" || strings.ContainsAny(s.name, ". \t\n"):
			f.probs = append(f.probs, fmt.Errorf("subsystem %q: %w: names must be non-empty, without '.' or spaces", full, ErrBadName))
		case s.s == nil || s.s.g == nil:
			f.probs = append(f.probs, fmt.Errorf("subsystem %q: %w: the subsystem or its graph is nil", full, ErrBadName))
		case seen[s.name]:
			f.probs = append(f.probs, fmt.Errorf("subsystem %q: %w (a node or subsystem of that name was added already)", full, ErrDuplicateName))
		}
		seen[s.name] = true
	}
	si := 0
	for i := 0; i <= len(g.nodes); i++ {
		for ; si < len(g.subs) && g.subs[si].at == i; si++ {
			s := g.subs[si]
			if s.s == nil || s.s.g == nil {
				continue
			}
			full := join(at, s.name)
			s.s.ports(full, &f.probs) // every declaration checked, used or not
			f.graph(s.s.g, full)
		}
		if i < len(g.nodes) {
			nn := g.nodes[i]
			if nn.name == "" || strings.ContainsAny(nn.name, ". \t\n") { // the flattened graph allows '.': check here, at every level
				f.probs = append(f.probs, fmt.Errorf("node %q: %w: names must be non-empty, without '.' or spaces", join(at, nn.name), ErrBadName))
				continue
			}
			f.out.Add(join(at, nn.name), nn.n)
		}
	}
	for i := range g.edges {
		e := g.edge(i)
		bad := func(err error, format string, a ...any) {
			f.probs = append(f.probs, &EdgeError{Edge: join(at, e.From) + " -> " + join(at, e.To), Err: err, Detail: fmt.Sprintf(format, a...)})
		}
		from, ok := f.end(g, e.From, OutputPort, at, bad)
		if !ok {
			continue
		}
		to, ok := f.end(g, e.To, InputPort, at, bad)
		if !ok {
			continue
		}
		for _, t := range to {
			f.out.addEdge(Edge{From: from[0], To: t, Transform: e.Transform, Combine: e.Combine, declared: e.declared, repeat: e.repeat})
		}
	}
}

// end resolves one end of an edge of g to full paths: a node's field as
// is, a subsystem's port to the leaf fields it stands for.
func (f *flattener) end(g *Graph, p string, k PortKind, at string, bad func(error, string, ...any)) ([]string, bool) {
	nn, _, ok := strings.Cut(p, ".")
	if !ok {
		return []string{join(at, p)}, true // Build reports the malformed path
	}
	if _, isSub := g.Subsystem(nn); !isSub {
		return []string{join(at, p)}, true
	}
	r, err := g.resolvePort(p, k, at)
	if err != nil {
		var pe *PortError
		if !errors.As(err, &pe) { // a declaration problem is reported once, by ports
			bad(errors.Unwrap(err), "%v", err)
		}
		return nil, false
	}
	out := make([]string, len(r.leaf))
	for i, l := range r.leaf {
		out[i] = join(at, l)
	}
	return out, true
}
