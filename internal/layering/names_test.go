package layering

import (
	"go/ast"
	"slices"
	"sort"
	"strings"
	"testing"
)

// userFacing are the packages a program that builds and runs graphs
// imports together, and whose names it therefore meets side by side (fmi
// among them: an imported FMU is a node of the graph).
// anomalies (read by the docs and the cosim command) and the node
// packages under nodes/ (each one constructor and its parameters) are not
// among them.
var userFacing = []string{"node", "node/describe", "graph", "coupling", "scene", "integrators", "verification", "fmi"}

// exportedTopLevel returns the exported names declared at the top level
// of the non-test files of the package in dir — types, functions (not
// methods), constants and variables — each once.
func exportedTopLevel(t *testing.T, dir string) []string {
	t.Helper()
	_, files := parsePackage(t, dir)
	var out []string
	add := func(id *ast.Ident) {
		if id.IsExported() && !slices.Contains(out, id.Name) {
			out = append(out, id.Name)
		}
	}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					add(d.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						add(s.Name)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							add(n)
						}
					}
				}
			}
		}
	}
	return out
}

// TestOneNameOneMeaning: a name declared at the top level (a type,
// function, constant or variable) by two user-facing packages must name
// one thing in both (scene.Edge is the scene-file form of graph.Edge),
// stated in sameMeaning; names that meant different things were renamed
// and may not come back. Names whose collision another change is still
// removing are in pending; the test fails when one of them no longer
// collides, so that the list only shrinks.
func TestOneNameOneMeaning(t *testing.T) {
	// Renamed because the meanings differed; only the package given may
	// declare the name now.
	renamed := map[string]struct{ owner, was string }{
		"Method":     {"integrators", "coupling.Method, an acceleration's name, is coupling.Accel"},
		"Func":       {"integrators", "graph.Func, a user transform, is graph.TransformFunc"},
		"Kind":       {"integrators", "node.Kind, a parameter's value type, is node.ParamKind"},
		"Coupling":   {"scene", "node.Coupling, how edges into an input combine, is node.Combine; scene.Coupling is the scene form of a coupling.Strategy"},
		"Settings":   {"graph", "integrators.Settings, every method's options in one struct, is integrators.DriverOptions (the options the drivers share) beside each method type's own fields"},
		"Checkpoint": {"graph", "integrators.Checkpoint, a stepper's memory, is integrators.StepperState"},
		"History":    {"graph", "integrators.History, a second-order trajectory's memory, is integrators.Memory"},
		"Stats":      {"graph", "integrators.Stats, an integrator's work counters, is integrators.Work (graph.Stats is a whole run's work)"},
		"Status":     {"graph", "integrators.Status, how a step or driver run terminated and why it failed, is integrators.Termination (graph.Status is how a whole run ended)"},
		"Scheme":     {"coupling", "integrators.Scheme, a user-defined method, is any type implementing the integrators.Method interface"},
	}
	sameMeaning := map[string]string{
		"Connector":  "scene.Connector is the scene-file form of a node.Connector attached to two bodies",
		"Edge":       "scene.Edge is the scene-file form of graph.Edge",
		"Transform":  "scene.Transform is the scene-file form of the graph.Transform kinds a scene may name",
		"Node":       "scene.Node is the scene-file form of a node.Node: type, name and parameters",
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
		"Result":     "scene.Result is graph.Result (embedded: Stats, Status, Mode, History, …) with the scene's compiled Sim beside it",
		"ByName":     "coupling.ByName and integrators.ByName both look a built-in up by its name (a strategy, a method)",
		"Names":      "coupling.Names and integrators.Names both list the names ByName accepts",
		"ErrNonFinite": "integrators.ErrNonFinite means node.ErrNonFinite for a System that knows no nodes (integrators imports " +
			"nothing of cosim); a graph wraps node.ErrNonFinite around it, so callers test node's",
		"FMU":              "fmi.FMU is an FMU opened for import, scene.FMU the scene-file form of the FMU a scene is exported as: both are a Functional Mock-up Unit",
		"Load":             "scene.Load and fmi.Load both read a file of their package's format (a scene file, an FMU) into what runs in a graph",
		"Options":          "scene.Options and fmi.Options are the options of their package's main call (Simulate, Load), as graph.Option and verification.Option are",
		"Description":      "fmi.Description is what `cosim describe FILE.fmu` shows of the node an FMU makes, as describe.Description is what `cosim describe TYPE` shows of a node type",
		"Type":             "fmi.Type returns the node.Type of FMU nodes (registered as \"fmu\"), as each node package's Type does",
		"NotTerminated":    "graph.Status and integrators.Termination values: the same end of a whole run and of a driver run, as gonum's optimize.NotTerminated",
		"StoppedByEvent":   "as NotTerminated: a node event's reset stopped the run (graph) or the driver (integrators)",
		"Cancelled":        "as NotTerminated: the context was cancelled",
		"ErrNotTerminated": "the error of NotTerminated's Err, in each package",
		"ErrCancelled":     "the error of Cancelled's Err, in each package",
	}
	// Names whose collision another change is still removing (none now).
	pending := map[string]string{}
	declared := map[string][]string{}
	for _, pkg := range userFacing {
		for _, name := range exportedTopLevel(t, "../../"+pkg) {
			if !slices.Contains(declared[name], pkg) {
				declared[name] = append(declared[name], pkg)
			}
		}
	}
	if len(declared["Graph"]) == 0 || len(declared["Strategy"]) == 0 {
		t.Fatalf("graph.Graph or coupling.Strategy not found: are the package paths right? %v", declared)
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
				if p != r.owner {
					t.Errorf("%s.%s is back: %s (only %s may declare %s)", p, name, r.was, r.owner, name)
				}
			}
			continue
		}
		if len(pkgs) < 2 {
			if why, ok := pending[name]; ok {
				t.Errorf("%s no longer collides (declared only in %v): remove it from pending (%s)", name, pkgs, why)
			}
			continue
		}
		if _, ok := sameMeaning[name]; ok {
			continue
		}
		if _, ok := pending[name]; ok {
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
