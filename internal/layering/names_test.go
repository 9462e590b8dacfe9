package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// notYetCovered are the importable packages that TestOneNameOneMeaning
// does not check yet, each with the reason; every other package of the
// module that a program can import (not a command, not internal) is
// checked, and the test fails when a package is neither.
var notYetCovered = map[string]string{}

// importable returns the packages of the module a program can import:
// neither internal nor a command (package main), as paths relative to the
// module ("node", "nodes/ball"), sorted.
func importable(t *testing.T) []string {
	t.Helper()
	all, _ := imports(t)
	var out []string
	for pkg := range all {
		if pkg == "internal" || strings.HasPrefix(pkg, "internal/") || strings.Contains(pkg, "/internal/") || strings.HasSuffix(pkg, "/internal") {
			continue
		}
		if _, files := parsePackage(t, "../../"+pkg); files[0].Name.Name == "main" {
			continue
		}
		out = append(out, pkg)
	}
	sort.Strings(out)
	return out
}

// topLevel returns the exported names declared at the top level of the
// non-test files of the package in dir — types, functions (not methods),
// constants and variables — each once, and whether the name's doc
// comment has a "Deprecated:" paragraph (Go's convention for a name kept
// only for compatibility).
func topLevel(t *testing.T, dir string) map[string]bool {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
	out := map[string]bool{}
	add := func(id *ast.Ident, docs ...*ast.CommentGroup) {
		if !id.IsExported() {
			return
		}
		dep := false
		for _, d := range docs {
			if d != nil && strings.Contains(d.Text(), "Deprecated: ") {
				dep = true
			}
		}
		out[id.Name] = out[id.Name] || dep
	}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					add(d.Name, d.Doc)
				}
			case *ast.GenDecl:
				// A group's own comment documents its one spec only
				// when it has no parentheses.
				var group *ast.CommentGroup
				if !d.Lparen.IsValid() {
					group = d.Doc
				}
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						add(s.Name, group, s.Doc)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							add(n, group, s.Doc)
						}
					}
				}
			}
		}
	}
	return out
}

// TestOneNameOneMeaning: a name declared at the top level (a type,
// function, constant or variable) by two importable packages must name
// one thing in both (scene.Edge is the scene-file form of graph.Edge),
// stated in sameMeaning; names that meant different things were renamed
// and may not come back. A former name kept for Go callers is listed in
// deprecated and must say "Deprecated:" in its doc comment; a collision
// another change is still removing is listed in pending. Both lists name
// one declaration each ("package.Name"), and the test fails when a listed
// declaration is gone, so that they only shrink. Every importable package
// is checked but those in notYetCovered.
func TestOneNameOneMeaning(t *testing.T) {
	// Renamed because the meanings differed; only the package given may
	// declare the name now, and the packages in also, whose declaration
	// means what the owner's does (the reason is in was).
	renamed := map[string]struct {
		owner, was string
		also       []string
	}{
		"Method":   {owner: "integrators", was: "coupling.Method, an acceleration's name, is coupling.Accel"},
		"Func":     {owner: "integrators", was: "graph.Func, a user transform, is graph.TransformFunc"},
		"Kind":     {owner: "integrators", was: "node.Kind, a parameter's value type, is node.ParamKind"},
		"Coupling": {owner: "scene", was: "node.Coupling, how edges into an input combine, is node.Combine; scene.Coupling is the scene form of a coupling.Strategy"},
		"Settings": {owner: "graph", also: []string{"calibrate"}, was: "integrators.Settings, every method's options in one struct, is integrators.DriverOptions (the options the drivers share) beside each method type's own fields; " +
			"calibrate.Settings are the options of calibrate.Fit as graph.Settings are those of graph.Sim.Run (the options of the package's main call, as gonum's optimize.Settings)"},
		"Checkpoint": {owner: "graph", was: "integrators.Checkpoint, a stepper's memory, is integrators.StepperState"},
		"History":    {owner: "graph", was: "integrators.History, a second-order trajectory's memory, is integrators.Memory"},
		"Stats":      {owner: "graph", was: "integrators.Stats, an integrator's work counters, is integrators.Work (graph.Stats is a whole run's work)"},
		"Status":     {owner: "graph", was: "integrators.Status, how a step or driver run terminated and why it failed, is integrators.Termination (graph.Status is how a whole run ended)"},
		"Scheme":     {owner: "coupling", was: "integrators.Scheme, a user-defined method, is any type implementing the integrators.Method interface"},
		"Hold": {owner: "coupling", was: "coupling.Hold is what a subcycling node sees of slower nodes (a coupling.Interpolation); " +
			"a lookup table's zero-order hold is source.InterpolationHold, the sampled block is control.Sampler (control.ZOH)"},
		"Linear": {owner: "coupling", was: "coupling.Linear is a subcycling node's linearly interpolated view of slower nodes; " +
			"a lookup table's piecewise-linear interpolation is source.InterpolationLinear"},
	}
	sameMeaning := map[string]string{
		"Connector": "scene.Connector is the scene-file form of a node.Connector attached to two bodies",
		"Edge":      "scene.Edge is the scene-file form of graph.Edge",
		"Transform": "scene.Transform is the scene-file form of the graph.Transform kinds a scene may name",
		"Node": "scene.Node is the scene-file form of a node.Node: type, name and parameters; a node package's Node " +
			"(ball.Node, spring.Node, …) is the node.Node that package implements",
		"Group":      "scene.Group is the scene-file form of coupling.Group",
		"Field":      "node.Field describes a field, graph.Field reads that field of a running Sim, describe.Field is its JSON form",
		"Input":      "describe.Input is the JSON form of node.Input",
		"Param":      "describe.Param is the JSON form of node.Param",
		"StepLimit":  "graph.StepLimit is a node's node.StepLimit with the node's name",
		"System":     "graph.System is the graph as an integrators.System",
		"Option":     "graph.Option and verification.Option are functional options of their package's calls",
		"InputPort":  "graph.InputPort is the PortKind of a subsystem's input port; scene.InputPort declares one in a scene file",
		"OutputPort": "graph.OutputPort is the PortKind of a subsystem's output port; scene.OutputPort declares one in a scene file",
		"ParamPort":  "graph.ParamPort is the PortKind of a subsystem's promoted parameter; scene.ParamPort declares one in a scene file",
		"Result": "the outcome of the package's main call (graph.Sim.Run, scene.Simulate, calibrate.Fit), as gonum's optimize.Result; " +
			"scene.Result is graph.Result (embedded: Stats, Status, Mode, History, …) with the scene's compiled Sim beside it",
		"ByName": "coupling.ByName and integrators.ByName both look a built-in up by its name (a strategy, a method)",
		"Names":  "coupling.Names and integrators.Names both list the names ByName accepts",
		"ErrNonFinite": "integrators.ErrNonFinite means node.ErrNonFinite for a System that knows no nodes (integrators imports " +
			"nothing of cosim); a graph wraps node.ErrNonFinite around it, so callers test node's",
		"FMU":     "fmi.FMU is an FMU opened for import, scene.FMU the scene-file form of the FMU a scene is exported as: both are a Functional Mock-up Unit",
		"Load":    "scene.Load and fmi.Load both read a file of their package's format (a scene file, an FMU) into what runs in a graph",
		"Options": "scene.Options, fmi.Options and export.Options are the options of their package's main call (Simulate, Load, Export), as graph.Option and verification.Option are",
		"Variable": "fmi.Variable is an FMU's model variable as a model description declares it; export.Variable is one of an exported FMU's, " +
			"with what it binds in the scene's graph (Model.ModelDescription writes each as an fmi.Variable)",
		"Description":      "fmi.Description is what `cosim describe FILE.fmu` shows of the node an FMU makes, as describe.Description is what `cosim describe TYPE` shows of a node type",
		"NotTerminated":    "graph.Status and integrators.Termination values: the same end of a whole run and of a driver run, as gonum's optimize.NotTerminated",
		"StoppedByEvent":   "as NotTerminated: a node event's reset stopped the run (graph) or the driver (integrators)",
		"Cancelled":        "as NotTerminated: the context was cancelled",
		"ErrNotTerminated": "the error of NotTerminated's Err, in each package",
		"ErrCancelled":     "the error of Cancelled's Err, in each package",
		// A node package's conventional names: read qualified (ball.New,
		// spring.Params), each is that package's instance of one meaning.
		"Type":            "node.Type is a registry entry; a node package's Type() (fmi.Type too, for FMU nodes) returns its own node.Type",
		"TypeName":        "a node package's registry name (the Name of its node.Type)",
		"Params":          "a node package's typed parameters",
		"DefaultParams":   "a node package's typed parameters at their defaults",
		"FromMap":         "a node package's node.Type.New: its node from a parameter map",
		"New":             "a package's constructor of its own value (graph.New a graph, ball.New a ball node), Go's convention",
		"NewConnector":    "a connector package's node.Type.Connector: its connector from a parameter map",
		"Connect":         "node.Connect adds a connector between two attachments; spring.Connect and springdamper.Connect add theirs, typed",
		"Registry":        "nodes.Registry returns the node.Registry of the built-in node types",
		"ErrNotMarker":    "spring's and springdamper's are node.ErrNotMarker (the same error value)",
		"ErrMarkerLocal":  "spring's and springdamper's are node.ErrMarkerLocal (the same error value)",
		"ErrMarkerFields": "spring's is springdamper's meaning for its own markers: a body's marker fields do not match its spec",
	}
	// Former names kept for Go callers (each "Deprecated:" in its doc).
	deprecated := map[string]string{
		"nodes/source.Hold":             "InterpolationHold",
		"nodes/source.Linear":           "InterpolationLinear",
		"nodes/source.PCHIP":            "InterpolationPCHIP",
		"nodes/control.Hold":            "Sampler",
		"calibrate.Param":               "FreeParam",
		"anomalies.Status":              "Resolution",
		"anomalies.Open":                "Unresolved",
		"anomalies.Record":              "Entry",
		"anomalies.Lookup":              "ByID",
		"anomalies.ParseStatus":         "ParseResolution",
		"scene.Integrator":              "IntegrationMethod",
		"verification/gimbal.Reference": "ReferenceStep",
		"fmi/export.Kind":               "Causality",
		"fmi/export.Platform":           "Target",
	}
	// Collisions another change is still removing.
	pending := map[string]string{}
	declared := map[string][]string{}
	listed := map[string]bool{}
	pkgs := importable(t)
	for _, pkg := range pkgs {
		if _, ok := notYetCovered[pkg]; ok {
			continue
		}
		for name, dep := range topLevel(t, "../../"+pkg) {
			key := pkg + "." + name
			if _, ok := deprecated[key]; ok {
				listed[key] = true
				if !dep {
					t.Errorf("%s is listed as deprecated (use %s) but its doc comment has no \"Deprecated:\" paragraph", key, deprecated[key])
				}
				continue
			}
			if _, ok := pending[key]; ok {
				listed[key] = true
				continue
			}
			declared[name] = append(declared[name], pkg)
		}
	}
	for pkg := range notYetCovered {
		if !slices.Contains(pkgs, pkg) {
			t.Errorf("%s is in notYetCovered but is not an importable package: remove it", pkg)
		}
	}
	for _, m := range []map[string]string{deprecated, pending} {
		for key := range m {
			if !listed[key] {
				t.Errorf("%s is listed (deprecated or pending) but no longer declared: remove it from the list", key)
			}
		}
	}
	for _, want := range []string{"graph", "coupling", "nodes/source", "nodes/control", "anomalies"} {
		if !slices.Contains(pkgs, want) {
			t.Fatalf("package %s not found among %v: are the package paths right?", want, pkgs)
		}
	}
	names := make([]string, 0, len(declared))
	for n := range declared {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		pkgs := declared[name]
		if r, ok := renamed[name]; ok {
			for _, p := range pkgs {
				if p != r.owner && !slices.Contains(r.also, p) {
					t.Errorf("%s.%s is back: %s (only %s may declare %s)", p, name, r.was, r.owner, name)
				}
			}
			continue
		}
		if len(pkgs) < 2 {
			continue
		}
		if _, ok := sameMeaning[name]; ok {
			continue
		}
		t.Errorf("%s is declared in %s: rename where the meanings differ, or state in sameMeaning why they are one thing", name, strings.Join(pkgs, ", "))
	}
}

// TestCouplingMeansStrategies: in the packages a graph user meets,
// "Coupling" in an exported name means the co-simulation coupling of
// package coupling (a strategy, its statistics, its memory, its scene
// form), nothing else; and "Method" in package coupling's names is gone
// (a method is an integration method; an acceleration is an Accel).
func TestCouplingMeansStrategies(t *testing.T) {
	allowed := map[string]string{
		"graph.CoSimulation.Coupling": "the strategy of a co-simulation run",
		"graph.Result.Coupling":       "the statistics of a run under a strategy",
		"graph.CouplingStats":         "the statistics of a run under a strategy",
		"graph.Stats.CouplingIters":   "the iterations of a strategy's groups in a run",
		"graph.CouplingCheckpoint":    "the cross-step memory of a strategy's groups",
		"graph.Checkpoint.Coupling":   "the cross-step memory of a strategy's groups",
		"graph.ErrCouplingName":       "a strategy names a node the graph lacks",
		"graph.Sim.ResetCoupling":     "forgets the cross-step memory of a strategy's groups",
		"scene.Coupling":              "the scene form of a strategy",
		"scene.Run.Coupling":          "the scene form of a strategy",
		"node/describe.Input.Coupling": "deprecated alias of Input.Combine, kept because the describe JSON " +
			"never renames a field within a major version",
	}
	found := map[string]bool{}
	for _, pkg := range []string{"node", "node/describe", "graph", "scene", "coupling"} {
		for _, name := range exportedNames(t, "../../"+pkg) {
			full := pkg + "." + name
			own := name[strings.LastIndexByte(name, '.')+1:] // the identifier itself, not its type's
			switch {
			case pkg == "coupling" && strings.Contains(own, "Method"):
				t.Errorf("%s: in package coupling a method would be an integration method; the acceleration's name is Accel", full)
			case pkg != "coupling" && strings.Contains(own, "Coupling"):
				found[full] = true
				if _, ok := allowed[full]; !ok {
					t.Errorf("%s: \"coupling\" names the co-simulation strategy (package coupling) only; "+
						"this name means something else (an input's combine rule is node.Combine) or is missing from the allowed list", full)
				}
			}
		}
	}
	for name := range allowed {
		if !found[name] {
			t.Errorf("%s is gone: remove it from the allowed list", name)
		}
	}
}

// exportedNames returns the exported names the package in dir declares in
// its non-test files: types, functions, constants and variables ("Name"),
// methods ("Type.Method") and the exported fields of exported struct types
// ("Type.Field").
func exportedNames(t *testing.T, dir string) []string {
	t.Helper()
	_, files := parsePackage(t, dir)
	var out []string
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				name := d.Name.Name
				if d.Recv != nil {
					typ := d.Recv.List[0].Type
					if st, ok := typ.(*ast.StarExpr); ok {
						typ = st.X
					}
					id, ok := typ.(*ast.Ident)
					if !ok || !id.IsExported() {
						continue
					}
					name = id.Name + "." + name
				}
				out = append(out, name)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						out = append(out, s.Name.Name)
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, fl := range st.Fields.List {
								for _, fn := range fl.Names {
									if fn.IsExported() {
										out = append(out, s.Name.Name+"."+fn.Name)
									}
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								out = append(out, n.Name)
							}
						}
					}
				}
			}
		}
	}
	return out
}
