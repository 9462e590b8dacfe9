package scene

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// This file compiles a checked scene into a graph (Build) and a runnable
// Sim (Compile), leaving out the parts with problems so that the problems
// of the rest are found too, and locating every graph problem at its place
// in the scene.

// Build constructs the graph of the scene from the registry, reporting
// every problem with its JSON path: the scene's structural problems (as
// Decode reports them), unknown node types, bad parameters, connectors
// that cannot attach, and recorded fields the nodes do not have, all at
// once. overrides ("node.param" → value, where node names a node or a
// connector) are applied over the scene's parameters; Scene.With also sets
// run settings. The graph has the nodes in file order, then the
// connectors, each followed by its edges to its bodies, then the edges:
// edges into one additive input sum in that order.
func (sc *Scene) Build(reg *node.Registry, overrides map[string]any) (*graph.Graph, error) {
	c := sc.check()
	if c.fatal {
		return nil, c.err()
	}
	g, _, errs := sc.build(reg, overrides, c)
	if errs = append(c.errs, errs...); len(errs) > 0 {
		closeNodes(g.g)
		return nil, joinErrors(errs)
	}
	flat, err := g.g.Flatten()
	if err != nil {
		closeNodes(g.g)
		return nil, joinErrors(sc.graphProblems(err, g))
	}
	return flat, nil
}

// origin says which part of the scene an edge of the built graph comes
// from: edges[i] or connectors[i].
type origin struct {
	path string
	from string // the edge's From and To, for matching build errors
	to   string
}

// built is a graph built from a scene, possibly with parts left out.
type built struct {
	g       *graph.Graph
	origins []origin
	// skipped are the inputs ("node.input") of edges left out because
	// their other end or the edge itself has a problem reported already;
	// wiring problems of these inputs are consequences, not reported.
	skipped map[string]bool
}

// build builds the graph of the scene, leaving out the nodes, connectors
// and edges with problems (those c reports, and those it finds) so that
// the problems of the rest are found too. It returns every problem it
// finds; c's are the caller's to report.
func (sc *Scene) build(reg *node.Registry, overrides map[string]any, c checked) (*built, []origin, []error) {
	return sc.buildIn(reg, overrides, c, nil)
}

// buildIn is build for a scene used as a subsystem inside the scenes
// chain (their files' absolute paths, or paths in the parent for inline
// graphs), to refuse a file that contains itself.
func (sc *Scene) buildIn(reg *node.Registry, overrides map[string]any, c checked, chain []string) (*built, []origin, []error) {
	var errs []error
	byName := map[string]int{}
	var names []string
	for i, n := range sc.Nodes {
		byName[n.Name] = i
		names = append(names, n.Name)
	}
	for i, c := range sc.Connectors {
		byName[c.Name] = len(sc.Nodes) + i
		names = append(names, c.Name)
	}
	params := make([]map[string]any, len(sc.Nodes)+len(sc.Connectors))
	for i := range params {
		src := map[string]any(nil)
		if i < len(sc.Nodes) {
			src = sc.Nodes[i].Params
		} else {
			src = sc.Connectors[i-len(sc.Nodes)].Params
		}
		params[i] = map[string]any{}
		for k, v := range src {
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
			errs = append(errs, &Error{Path: "--set " + k, Err: fmt.Errorf("no node %q in the scene%s; write node.param, or run.… for run settings", nn, node.DidYouMean(nn, names))})
			continue
		}
		params[i][pn] = overrides[k]
	}
	// failed are the names of nodes and connectors left out.
	failed := map[string]bool{}
	g := graph.New()
	g.SetLoopSettings(sc.Loops.Settings())
	for i, n := range sc.Nodes {
		p := fmt.Sprintf("nodes[%d]", i)
		if c.skip[p] {
			failed[n.Name] = true
			continue
		}
		if err := resolveTable(sc.Dir, n.Type, params[i]); err != nil {
			errs = append(errs, &Error{Path: p + ".params.file", Err: err})
			failed[n.Name] = true
			continue
		}
		if n.Type == SubsystemType {
			sub, serrs := sc.subsystem(reg, n, p, params[i], chain)
			if len(serrs) > 0 {
				errs = append(errs, serrs...)
				failed[n.Name] = true
				continue
			}
			g.AddSubsystem(n.Name, sub)
			continue
		}
		resolvePaths(sc.Dir, reg.Paths(n.Type), params[i])
		nd, err := reg.New(n.Type, params[i])
		if err != nil {
			var ue *node.UnknownTypeError
			if errors.As(err, &ue) {
				p += ".type"
			} else {
				p += ".params"
			}
			errs = append(errs, atPath(p, err)...)
			failed[n.Name] = true
			continue
		}
		g.Add(n.Name, nd)
	}
	b := &built{g: g, skipped: map[string]bool{}}
	type edgeRange struct {
		path     string
		from, to int
	}
	var added []edgeRange
	for i, cn := range sc.Connectors {
		p := fmt.Sprintf("connectors[%d]", i)
		if c.skip[p] || len(cn.Bodies) == 2 && (failed[cn.Bodies[0]] || failed[cn.Bodies[1]]) {
			failed[cn.Name] = true
			continue
		}
		// A body the scene does not have is named against the scene's
		// nodes (the graph holds only those that built).
		if k := slices.IndexFunc(cn.Bodies, func(b string) bool { _, ok := byName[b]; return b != node.Ground && !ok }); k >= 0 && len(cn.Bodies) == 2 {
			errs = append(errs, &Error{Path: fmt.Sprintf("%s.bodies[%d]", p, k), Err: &node.EndError{Type: cn.Type, Connector: cn.Name, End: k,
				Err: fmt.Errorf("no node %q in the scene%s", cn.Bodies[k], node.DidYouMean(cn.Bodies[k], sceneNodes(sc)))}})
			failed[cn.Name] = true
			continue
		}
		before := g.NumEdges()
		if err := connect(g, reg, cn, params[len(sc.Nodes)+i]); err != nil {
			errs = append(errs, atPath(p+err.path, err.err)...)
			failed[cn.Name] = true
			continue
		}
		added = append(added, edgeRange{p, before, g.NumEdges()})
	}
	// One copy of the edge list for every connector's origins (a copy
	// per connector made 20 000-connector scenes quadratic).
	if len(added) > 0 {
		all := g.Edges()
		for _, r := range added {
			for _, e := range all[r.from:r.to] {
				b.origins = append(b.origins, origin{path: r.path, from: e.From, to: e.To})
			}
		}
	}
	owner := func(field string) string {
		nn, _, _ := strings.Cut(field, ".")
		return nn
	}
	// The same edge twice would add its value twice into an additive
	// input (a connector's force counted double), silently; a scale
	// transform does not make it another edge (a scale-1 edge beside a
	// plain one doubles the value just the same), a component or embed
	// transform of another component or axis does. "repeat": true says
	// the repetition is meant. Replacing inputs take one edge (Build
	// reports more).
	type edgeKey struct {
		from, to string
		part     int // component index, embed axis, or -1
		embed    bool
	}
	keyOf := func(from, to string, t *Transform) edgeKey {
		k := edgeKey{from: from, to: to, part: -1}
		if t != nil {
			switch t.Kind {
			case "component":
				k.part = t.Index
			case "embed":
				k.part, k.embed = t.Axis, true
			}
		}
		return k
	}
	made := map[edgeKey]string{}
	for _, o := range b.origins {
		made[keyOf(o.from, o.to, nil)] = o.path
	}
	for i, e := range sc.Edges {
		p := fmt.Sprintf("edges[%d]", i)
		if c.skip[p] || failed[owner(e.From)] || failed[owner(e.To)] {
			b.skipped[e.To] = true
			continue
		}
		k := keyOf(e.From, e.To, e.Transform)
		if q, dup := made[k]; dup && !e.Repeat && additiveInput(g, e.To) {
			what := "the same edge as " + q
			if strings.HasPrefix(q, "connectors[") {
				what = "an edge " + q + " makes already (a connector wires itself to its bodies)"
			}
			if e.Transform != nil && e.Transform.Kind == "scale" {
				what += ", through a scale transform"
			}
			errs = append(errs, &Error{Path: p, Err: fmt.Errorf("%s -> %s is %s: into an additive input it would count twice; remove one, or add \"repeat\": true to this edge if the value is meant to count twice", e.From, e.To, what)})
			b.skipped[e.To] = true
			continue
		}
		made[k] = p
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
		if e.Repeat {
			opts = append(opts, graph.Repeat())
		}
		g.Connect(e.From, e.To, opts...)
		b.origins = append(b.origins, origin{path: p, from: e.From, to: e.To})
	}
	for i, f := range sc.Record.Fields {
		p := fmt.Sprintf("record.fields[%d]", i)
		nn, fn, comp, err := splitField(f)
		if head, _, _ := strings.Cut(nn, "."); err != nil || failed[head] {
			continue // reported by check, or its node's problem is
		}
		if err := recordable(g, names, nn, fn, comp); err != nil {
			errs = append(errs, &Error{Path: p, Err: fmt.Errorf("%q: %w", f, err)})
		}
	}
	return b, b.origins, errs
}

// atPath returns err as scene Errors at path: one for each error a joined
// error holds (every parameter problem of a node), so that each line of
// the report names its place.
func atPath(path string, err error) []error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{&Error{Path: path, Err: err}}
	}
	var out []error
	for _, e := range j.Unwrap() {
		out = append(out, atPath(path, e)...)
	}
	return out
}

// sceneNodes are the names of the scene's nodes.
func sceneNodes(sc *Scene) []string {
	names := make([]string, len(sc.Nodes))
	for i, n := range sc.Nodes {
		names[i] = n.Name
	}
	return names
}

// resolvePaths makes the file-path parameters of a node type
// (node.Type.Paths: an FMU's "path") relative to the scene's directory.
func resolvePaths(dir string, names []string, params map[string]any) {
	for _, name := range names {
		if p, ok := params[name].(string); ok && p != "" && !filepath.IsAbs(p) {
			params[name] = filepath.Join(dir, p)
		}
	}
}

// closeNodes closes the nodes of g that hold resources outside Go memory
// (io.Closer: an imported FMU).
func closeNodes(g *graph.Graph) {
	if g == nil {
		return
	}
	for _, name := range g.Names() {
		n, _ := g.Node(name)
		if c, ok := node.As[io.Closer](n); ok {
			c.Close()
		}
	}
	for _, name := range g.SubsystemNames() {
		sub, _ := g.Subsystem(name)
		closeNodes(sub.Graph())
	}
}

// recordable reports whether component comp (-1: all) of the state field
// or output fn of node nn of g can be recorded.
func recordable(g *graph.Graph, names []string, nn, fn string, comp int) error {
	n, ok := nodeAt(g, nn)
	if sub, isSub := g.Subsystem(nn); isSub {
		return fmt.Errorf("%q is a subsystem: record an inner field by its path, %s.node.field (its parts: %s)", nn, nn, strings.Join(append(sub.Graph().Names(), sub.Graph().SubsystemNames()...), ", "))
	}
	if !ok {
		return fmt.Errorf("no node %q in the scene%s", nn, node.DidYouMean(nn, names))
	}
	s := n.Spec()
	if cur, ok := s.Renamed(fn); ok { // a former field name (node.Field.Formerly)
		s.WarnRenamed(nn, fn)
		fn = cur
	}
	var shape node.Shape
	si, oi := s.StateLayout.Index(fn), s.OutputLayout.Index(fn)
	switch {
	case si >= 0:
		shape = s.State[si].Shape
	case oi >= 0:
		shape = s.Outputs[oi].Shape
	case s.InputLayout.Index(fn) >= 0:
		return fmt.Errorf("%q is an input of node %q (%s); record a state field or output", fn, nn, s.Type)
	default:
		fields := append(s.StateLayout.Names(), s.OutputLayout.Names()...)
		return fmt.Errorf("node %q (%s) has no state field or output %q%s", nn, s.Type, fn, node.DidYouMean(fn, fields))
	}
	if comp >= shape.Len() {
		return fmt.Errorf("component %d of a %s field", comp, shape)
	}
	return nil
}

// pathError is an error at a path relative to a connector.
type pathError struct {
	path string
	err  error
}

// connect adds connector c, of any connector type of reg, with its
// resolved parameters to g.
func connect(g *graph.Graph, reg *node.Registry, c Connector, params map[string]any) *pathError {
	if len(c.Bodies) != 2 || len(c.Local) != 0 && len(c.Local) != 2 {
		return &pathError{".bodies", fmt.Errorf("a connector needs 2 bodies and 0 or 2 local points, has %d and %d", len(c.Bodies), len(c.Local))}
	}
	conn, err := reg.Connector(c.Type, params)
	if err != nil {
		var ue *node.UnknownTypeError
		var ne *node.NotConnectorError
		if errors.As(err, &ue) || errors.As(err, &ne) {
			known := reg.ConnectorTypes()
			return &pathError{".type", fmt.Errorf("%q is not a connector type; scenes attach %s%s (put other node types under nodes)", c.Type, strings.Join(known, ", "), node.DidYouMean(c.Type, known))}
		}
		return &pathError{".params", err}
	}
	var local [2][3]float64
	for k, l := range c.Local {
		copy(local[k][:], l)
	}
	if _, err := g.AddConnector(c.Name, conn, c.Bodies[0], local[0], c.Bodies[1], local[1]); err != nil {
		var ee *node.EndError
		var pe *node.ParamError
		switch {
		case errors.As(err, &ee):
			return &pathError{fmt.Sprintf(".bodies[%d]", ee.End), err}
		case errors.As(err, &pe):
			return &pathError{".params", err}
		}
		return &pathError{"", err}
	}
	return nil
}

// Compile builds the scene's graph (Build) and compiles it (graph.Build),
// reporting every problem at once: those Build reports, and every wiring
// problem at the place in the scene it comes from (edges[i],
// connectors[i] or nodes[i]).
func (sc *Scene) Compile(reg *node.Registry, overrides map[string]any) (*graph.Sim, error) {
	c := sc.check()
	if c.fatal {
		return nil, c.err()
	}
	sim, _, errs := sc.compile(reg, overrides, c)
	if errs = append(c.errs, errs...); len(errs) > 0 {
		return nil, joinErrors(errs)
	}
	return sim, nil
}

// compile builds and compiles the graph, returning the build and wiring
// problems; wiring problems that follow from parts left out are dropped.
// c's problems are the caller's to report.
func (sc *Scene) compile(reg *node.Registry, overrides map[string]any, c checked) (*graph.Sim, []origin, []error) {
	b, origins, errs := sc.build(reg, overrides, c)
	if len(b.g.Names()) == 0 && len(b.g.SubsystemNames()) == 0 {
		return nil, origins, sc.relabel(errs)
	}
	sim, err := b.g.Build()
	if err != nil || len(errs) > 0 || len(c.errs) > 0 {
		// Nothing half-loaded: nodes holding resources (an FMU's
		// instance) are released when the scene does not compile.
		defer closeNodes(b.g)
	}
	if err != nil {
		errs = append(errs, sc.graphProblems(err, b)...)
	}
	if len(errs) > 0 || len(c.errs) > 0 {
		return nil, origins, sc.relabel(errs)
	}
	return sim, origins, nil
}

// graphProblems places the problems of a graph build (or flatten) in the
// scene; wiring problems that follow from parts left out are dropped.
func (sc *Scene) graphProblems(err error, b *built) []error {
	var be *graph.BuildError
	if !errors.As(err, &be) {
		return []error{&Error{Path: "scene", Err: err}}
	}
	var errs []error
	for _, prob := range be.Problems {
		var ee *graph.EdgeError
		if errors.As(prob, &ee) && b.skipped[ee.Edge] {
			continue
		}
		errs = append(errs, &Error{Path: sc.locateProblem(prob, b.origins), Err: prob})
	}
	return errs
}

// relabel names the --set flags (Scene.SetBy) in the problems they caused
// (relabelSets).
func (sc *Scene) relabel(errs []error) []error {
	for i, e := range errs {
		if j := relabelSets(e, sc.SetBy); j != nil {
			if u, ok := j.(interface{ Unwrap() []error }); ok && len(u.Unwrap()) == 1 {
				j = u.Unwrap()[0]
			}
			errs[i] = j
		}
	}
	return errs
}

// locateProblem finds the place in the scene of a graph build problem.
func (sc *Scene) locateProblem(prob error, origins []origin) string {
	var ee *graph.EdgeError
	if errors.As(prob, &ee) {
		// An edge, "from -> to".
		for _, o := range origins {
			if ee.Edge == o.from+" -> "+o.to {
				return o.path
			}
		}
		// An input, "node.input": the first edge into it, else the node.
		for _, o := range origins {
			if ee.Edge == o.to {
				return o.path
			}
		}
		nn, _, _ := strings.Cut(ee.Edge, ".")
		if p := sc.nodePath(nn); p != "" {
			return p
		}
	}
	var pe *graph.PortError
	if errors.As(prob, &pe) {
		nn, _, _ := strings.Cut(pe.Subsystem, ".")
		if p := sc.nodePath(nn); p != "" {
			return p
		}
	}
	var le *graph.LoopError
	if errors.As(prob, &le) && len(le.Members) > 0 {
		for _, o := range origins {
			if strings.HasPrefix(o.to, le.Members[0]+".") {
				return o.path
			}
		}
	}
	return "edges"
}

// nodePath is the path of the node or connector named name, or "".
func (sc *Scene) nodePath(name string) string {
	for i, n := range sc.Nodes {
		if n.Name == name {
			return fmt.Sprintf("nodes[%d]", i)
		}
	}
	for i, c := range sc.Connectors {
		if c.Name == name {
			return fmt.Sprintf("connectors[%d]", i)
		}
	}
	return ""
}

// Settings returns the graph settings the section gives.
func (l *Loops) Settings() graph.LoopSettings {
	if l == nil {
		return graph.LoopSettings{}
	}
	return graph.LoopSettings{Refuse: l.Refuse, RelTol: l.RTol, AbsTol: l.ATol, MaxIter: l.MaxIter, MaxFallbackIter: l.MaxFallbackIter, Memory: l.Memory}
}

// additiveInput reports whether to ("node.input") is an additive input of
// a node in g; false when the node or input is unknown (Build reports
// that), or the input replaces (Build reports a second edge into it).
func additiveInput(g *graph.Graph, to string) bool {
	// A node path ("leg2.knee.spring") splits from its input at the
	// last '.'.
	k := strings.LastIndex(to, ".")
	if k < 0 {
		return false
	}
	nn, in := to[:k], to[k+1:]
	n, ok := g.Node(nn)
	if !ok {
		return false
	}
	i := n.Spec().InputLayout.Index(in)
	return i >= 0 && n.Spec().Inputs[i].Combine == node.Additive
}
