package scene

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

// SchemaID is the $id of the scene JSON Schema, docs/scene.schema.json.
const SchemaID = "https://github.com/cosimgo/cosim/docs/scene.schema.json"

// Schema returns the JSON Schema (draft 2020-12) of scene files for the
// node types of reg: every node type with its parameters (type, shape,
// default, range, units), the connector types, edges and transforms, run
// settings with the integrator and coupling names, and record settings.
// Function-valued parameters are left out: scenes cannot set them. The
// output is deterministic (object keys sorted); go generate ./docs writes
// it to docs/scene.schema.json and TestSchemaUpToDate keeps that file in
// step with the registry.
//
// The schema checks the shape of a file for editors. Decode and Build
// check more (unique names, that edges name existing fields, ranges of
// run settings across fields) and report errors with their JSON path.
func Schema(reg *node.Registry) ([]byte, error) {
	defs := obj{}
	var nodeRefs, connRefs []any
	conns := reg.ConnectorTypes()
	for _, name := range reg.Names() {
		spec, err := reg.Spec(name)
		if err != nil {
			return nil, err
		}
		defs["node."+name] = nodeSchema(spec, false)
		nodeRefs = append(nodeRefs, obj{"$ref": "#/$defs/node." + name})
		if slices.Contains(conns, name) {
			defs["connector."+name] = nodeSchema(spec, true)
			connRefs = append(connRefs, obj{"$ref": "#/$defs/connector." + name})
		}
	}
	// Dynamic types (an imported FMU) take their parameters from their
	// files: the schema knows their file parameters only.
	for _, name := range reg.DynamicNames() {
		defs["node."+name] = dynamicSchema(name, reg.Paths(name))
		nodeRefs = append(nodeRefs, obj{"$ref": "#/$defs/node." + name})
	}
	defs["edge"] = edgeSchema()
	defs["run"] = runSchema()
	defs["integrator"] = integratorSchema()
	defs["coupling"] = couplingSchema()
	defs["fmu"] = fmuSchema()
	defs["record"] = obj{
		"type": "object", "additionalProperties": false,
		"description": "What to record: fields, every how many steps, and dense-output times of adaptive monolithic runs.",
		"properties": obj{
			"fields": obj{"type": "array", "items": obj{"type": "string", "pattern": fieldPattern}, "description": "Fields to record, \"node.field\" or \"node.field[i]\": state fields or outputs."},
			"every":  obj{"type": "integer", "minimum": 0, "default": 1, "description": "Record every this many steps (and the initial state); 0 means 1."},
			"times":  obj{"type": "array", "items": obj{"type": "number", "minimum": 0}, "description": "Dense-output times of an adaptive monolithic run, ascending within [0, end]. Default: every record.every·run.dt."},
		},
	}
	s := obj{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"$id":                  SchemaID,
		"title":                "cosim scene",
		"description":          "A cosim scene: nodes, connectors, edges, run settings and what to record. Generated from the node registry by go generate ./docs; see docs/scenes.md.",
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"nodes", "run"},
		"properties": obj{
			"$schema":     obj{"type": "string", "description": "This schema's location, for editors; cosim ignores it."},
			"name":        obj{"type": "string"},
			"description": obj{"type": "string"},
			"nodes":       obj{"type": "array", "minItems": 1, "maxItems": MaxNodes, "items": obj{"oneOf": nodeRefs}, "description": "The nodes, each with a unique name, a registered type and parameters."},
			"connectors":  obj{"type": "array", "items": obj{"oneOf": connRefs}, "description": "Connectors attached to markers on bodies (or fixed world points: body \"ground\")."},
			"edges":       obj{"type": "array", "maxItems": MaxEdges, "items": obj{"$ref": "#/$defs/edge"}},
			"run":         obj{"$ref": "#/$defs/run"},
			"record":      obj{"$ref": "#/$defs/record"},
			"fmu":         obj{"$ref": "#/$defs/fmu"},
		},
		"$defs": defs,
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

type obj = map[string]any

// namePattern is a node name: no '.', brackets or spaces.
const (
	namePattern  = `^[^.\[\]\s]+$`
	fieldPattern = `^[^.\[\]\s]+\.[^.\s]+$`
)

func nodeSchema(spec *node.Spec, connector bool) obj {
	props := obj{}
	for _, p := range spec.Params {
		if p.Kind == node.Function {
			continue
		}
		props[p.Name] = paramSchema(p)
		for _, a := range p.Aliases {
			as := paramSchema(p)
			delete(as, "default")
			as["description"] = fmt.Sprintf("Alias of %s (not both).", p.Name)
			props[a] = as
		}
	}
	what := "node"
	if connector {
		what = "connector"
	}
	desc := fmt.Sprintf("A %s %s (%s).", spec.Type, what, spec.Package)
	if s := spec.Meta.Summary; s != "" {
		desc = s
	}
	required := []string{"name", "type"}
	properties := obj{
		"name":   obj{"type": "string", "pattern": namePattern, "description": "Unique name, used in edges as name.field."},
		"type":   obj{"const": spec.Type},
		"params": obj{"type": "object", "additionalProperties": false, "properties": props},
	}
	if connector {
		required = append(required, "bodies")
		properties["bodies"] = obj{"type": "array", "minItems": 2, "maxItems": 2, "items": obj{"type": "string"},
			"description": "Node names of the bodies of marker 0 and marker 1; \"ground\" (or \"\") is a fixed world point."}
		properties["local"] = obj{"type": "array", "minItems": 2, "maxItems": 2,
			"items":       obj{"type": "array", "minItems": 3, "maxItems": 3, "items": obj{"type": "number"}},
			"description": "Marker points: the world point of a ground marker, the body-frame point on a rigid body, ignored for a point mass. Default: both at the origin."}
	}
	return obj{"type": "object", "additionalProperties": false, "required": required, "properties": properties, "description": desc}
}

// dynamicSchema is the schema of a node of a dynamic type, whose
// parameters besides its file parameters come from its file.
func dynamicSchema(name string, paths []string) obj {
	params := obj{}
	for _, p := range paths {
		params[p] = obj{"type": "string", "description": "A file, relative to the scene file."}
	}
	return obj{"type": "object", "additionalProperties": false, "required": []string{"name", "type", "params"},
		"description": fmt.Sprintf("A %s node: its parameters, fields and inputs come from its file (for an FMU, its modelDescription.xml; cosim describe FILE lists them).", name),
		"properties": obj{
			"name":   obj{"type": "string", "pattern": namePattern, "description": "Unique name, used in edges as name.field."},
			"type":   obj{"const": name},
			"params": obj{"type": "object", "required": paths, "properties": params},
		}}
}

func paramSchema(p node.Param) obj {
	desc := p.Description
	if p.Units != "" && p.Units != "1" {
		desc += " [" + p.Units + "]"
	}
	s := obj{"description": desc, "default": p.Default}
	if p.Units != "" {
		s["x-units"] = p.Units
	}
	num := obj{"type": "number"}
	addRange(num, p.Range)
	switch p.Kind {
	case node.Real:
		for k, v := range num {
			s[k] = v
		}
	case node.Vector:
		s["type"] = "array"
		s["items"] = num
		s["minItems"], s["maxItems"] = p.Shape.Len(), p.Shape.Len()
		if p.MaxLen > 0 {
			s["minItems"], s["maxItems"] = 1, p.MaxLen
		}
	case node.Bool:
		s["type"] = "boolean"
	case node.Integer:
		s["type"] = "integer"
		addRange(s, p.Range)
	case node.Text:
		s["type"] = "string"
		if len(p.Choices) > 0 {
			s["enum"] = p.Choices
		}
	}
	return s
}

// addRange adds the finite bounds of r to a number schema.
func addRange(s obj, r node.Range) {
	if !r.Bounded {
		return
	}
	if !math.IsInf(r.Min, 0) {
		if r.MinOpen {
			s["exclusiveMinimum"] = r.Min
		} else {
			s["minimum"] = r.Min
		}
	}
	if !math.IsInf(r.Max, 0) {
		if r.MaxOpen {
			s["exclusiveMaximum"] = r.Max
		} else {
			s["maximum"] = r.Max
		}
	}
}

func edgeSchema() obj {
	tr := func(kind, desc string, props obj, required ...string) obj {
		props["kind"] = obj{"const": kind}
		return obj{"type": "object", "additionalProperties": false, "required": append([]string{"kind"}, required...), "properties": props, "description": desc}
	}
	return obj{
		"type": "object", "additionalProperties": false, "required": []string{"from", "to"},
		"properties": obj{
			"from": obj{"type": "string", "pattern": fieldPattern, "description": "Source: node.field, a state field or output."},
			"to":   obj{"type": "string", "pattern": fieldPattern, "description": "Destination: node.input, a boundary input."},
			"transform": obj{"oneOf": []any{
				tr("scale", "Multiply by factor; from and to declare a unit conversion.", obj{"factor": obj{"type": "number", "not": obj{"const": 0}, "description": "Non-zero."}, "from": obj{"type": "string"}, "to": obj{"type": "string"}}, "factor"),
				tr("component", "Component index of a vector source, giving a scalar.", obj{"index": obj{"type": "integer", "minimum": 0}}),
				tr("embed", "A scalar placed on axis of a vector of len components, the others zero.", obj{"axis": obj{"type": "integer", "minimum": 0}, "len": obj{"type": "integer", "minimum": 1}}, "len"),
			}},
		},
	}
}

func fmuSchema() obj {
	str := func(desc string) obj { return obj{"type": "string", "description": desc} }
	entry := func(desc, key, keyDesc string, list bool) obj {
		var target obj = obj{"type": "string", "pattern": fieldPattern, "description": keyDesc}
		if list {
			target = obj{"type": "array", "minItems": 1, "items": obj{"type": "string", "pattern": fieldPattern}, "description": keyDesc}
		}
		return obj{"type": "object", "additionalProperties": false, "required": []string{key}, "description": desc,
			"properties": obj{
				"name":        str("The FMU variable's name; default the path it binds."),
				key:           target,
				"description": str("The FMU variable's description; default the node's."),
			}}
	}
	return obj{
		"type": "object", "additionalProperties": false,
		"description": "The scene's interface as an FMI 3.0 co-simulation FMU (cosim export): its inputs, outputs and parameters. Runs ignore it.",
		"properties": obj{
			"model_name":  str("The FMU's model name; default the scene's name, else the exported file's base name."),
			"description": str("The FMU's description; default the scene's."),
			"inputs":      obj{"type": "array", "items": entry("An FMU input driving node inputs that no edge feeds.", "to", "The node inputs (\"node.input\") it drives.", true)},
			"outputs":     obj{"type": "array", "items": entry("An FMU output.", "from", "A state field or output, \"node.field\" or \"node.field[i]\".", false)},
			"parameters":  obj{"type": "array", "items": entry("A node parameter exposed as an FMU parameter.", "param", "The node parameter, \"node.param\".", false)},
		},
	}
}

func runSchema() obj {
	return obj{
		"type": "object", "additionalProperties": false, "required": []string{"dt"},
		"description": "Run settings. Give steps or end.",
		"properties": obj{
			"mode":       obj{"enum": Modes(), "default": coSimulation, "description": "co-simulation: every node steps itself, coupled by run.coupling; monolithic: one integrator (run.integrator) for all stateful nodes."},
			"dt":         obj{"type": "number", "exclusiveMinimum": 0, "description": "Step [s]: macro step, fixed integrator step, or output spacing of an adaptive run."},
			"steps":      obj{"type": "integer", "minimum": 0, "description": "Number of steps; 0: use end."},
			"end":        obj{"type": "number", "minimum": 0, "description": "End time [s]; the run starts at 0."},
			"workers":    obj{"type": "integer", "minimum": 0, "description": "Goroutines of a co-simulation; 0: one per CPU. Results do not depend on it."},
			"integrator": obj{"$ref": "#/$defs/integrator"},
			"coupling":   obj{"$ref": "#/$defs/coupling"},
		},
	}
}

func integratorSchema() obj {
	names := integrators.Names()
	pos := func(desc string) obj { return obj{"type": "number", "exclusiveMinimum": 0, "description": desc} }
	return obj{
		"type": "object", "additionalProperties": false, "required": []string{"method"},
		"description": "The method of a monolithic run. Settings that do not apply to the method are errors.",
		"properties": obj{
			"method":           obj{"enum": names, "description": "Integration method (integrators.ByName)."},
			"rho_inf":          obj{"type": "number", "minimum": 0, "maximum": 1, "default": integrators.DefaultRhoInf, "description": "Spectral radius at infinity of generalized-alpha."},
			"beta":             obj{"type": "number", "exclusiveMinimum": 0, "default": 0.25, "description": "Newmark beta."},
			"gamma":            obj{"type": "number", "minimum": 0, "default": 0.5, "description": "Newmark gamma."},
			"adaptive":         obj{"type": "boolean", "default": false, "description": "dormand-prince with error control, dense output at record.times and event localization."},
			"rtol":             obj{"type": "number", "minimum": minRTol, "description": "Relative tolerance of the adaptive integrator (default 1e-6), at least 10·ε."},
			"atol":             obj{"type": "number", "minimum": minATol, "description": "Absolute tolerance of the adaptive integrator (default 1e-9), at least 1e-100."},
			"initial_step":     pos("First trial step of the adaptive integrator [s] (default automatic)."),
			"min_step":         pos("Smallest adaptive step [s]."),
			"max_step":         pos("Largest adaptive step [s]."),
			"max_steps":        obj{"type": "integer", "minimum": 0, "description": "Bound on trial steps of an adaptive run (default 1e6)."},
			"event_tol":        pos("Event time tolerance of the adaptive integrator [s] (default 1e-12)."),
			"newton_tol":       pos("Newton convergence tolerance of implicit methods (default 1e-10)."),
			"newton_max_iter":  obj{"type": "integer", "minimum": 0, "description": "Newton iterations per step of implicit methods (default 10)."},
			"linear_solver":    obj{"enum": integrators.LinearSolverNames(), "default": "auto", "description": "Linear solver of the Newton iterations: auto (dense LU up to " + fmt.Sprint(integrators.AutoDenseMax) + " unknowns, GMRES above), dense, gmres, or banded (direct banded LU, for chains)."},
			"preconditioner":   obj{"enum": integrators.PreconditionerNames(), "default": "block-jacobi", "description": "Right preconditioner of GMRES: block-jacobi (each node's own block), ilu0 or none."},
			"forcing":          obj{"enum": integrators.ForcingNames(), "default": "eisenstat-walker", "description": "Forcing terms of the inexact Newton iteration."},
			"krylov_tol":       obj{"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1, "description": "Smallest relative GMRES tolerance (default 1e-6)."},
			"krylov_restart":   obj{"type": "integer", "minimum": 0, "description": "Restart length m of GMRES(m) (default 30)."},
			"krylov_max_iter":  obj{"type": "integer", "minimum": 0, "description": "GMRES iterations per linear solve (default 500)."},
			"matrix_free":      obj{"type": "boolean", "default": false, "description": "Apply the Newton matrix by directional finite differences of the residual."},
			"jacobian_max_age": obj{"type": "integer", "minimum": 0, "description": "Steps an assembled Newton matrix is reused with GMRES (default 20)."},
		},
	}
}

func couplingSchema() obj {
	names := func(xs ...string) []string { return xs }
	return obj{
		"type": "object", "additionalProperties": false, "required": []string{"scheme"},
		"description": "Co-simulation coupling strategy (package coupling). Default: explicit Jacobi.",
		"properties": obj{
			"scheme":        obj{"enum": coupling.Names(), "description": "jacobi, gauss-seidel or iterative; relaxation, aitken, iqn-ils mean iterative with that acceleration."},
			"acceleration":  obj{"enum": names(string(coupling.Relaxation), string(coupling.Aitken), string(coupling.IQNILS))},
			"omega":         obj{"type": "number", "description": "Relaxation factor (relaxation, default 1) or first factor (aitken, iqn-ils; default 0.5)."},
			"omega_max":     obj{"type": "number", "minimum": 0, "description": "Bound on Aitken's factor (default 4)."},
			"reuse":         obj{"type": "integer", "minimum": 0, "description": "IQN-ILS: past steps whose columns are kept."},
			"filter":        obj{"type": "number", "minimum": 0, "description": "IQN-ILS column filter (default 1e-8)."},
			"max_columns":   obj{"type": "integer", "minimum": 0, "description": "IQN-ILS: most columns (default the interface size)."},
			"atol":          obj{"type": "number", "minimum": 0, "description": "Convergence: |G(u)-u| <= atol + rtol·|G(u)| (default 1e-10)."},
			"rtol":          obj{"type": "number", "minimum": 0, "description": "Default 1e-8."},
			"max_iter":      obj{"type": "integer", "minimum": 0, "maximum": coupling.MaxIterLimit, "description": fmt.Sprintf("Iterations per step (default %d, at most %d).", coupling.DefaultMaxIter, coupling.MaxIterLimit)},
			"predictor":     obj{"enum": names(string(coupling.Constant), string(coupling.LinearPredictor))},
			"on_fail":       obj{"enum": names(string(coupling.Stop), string(coupling.Accept))},
			"order":         obj{"type": "array", "items": obj{"type": "array", "items": obj{"type": "string"}}, "description": "Gauss-Seidel stages, each a list of node names."},
			"groups":        obj{"type": "array", "items": obj{"type": "object", "additionalProperties": false, "required": []string{"name", "nodes"}, "properties": obj{"name": obj{"type": "string"}, "nodes": obj{"type": "array", "items": obj{"type": "string"}}}}, "description": "Iterated groups (iterative scheme); default one group of every node."},
			"rates":         obj{"type": "object", "additionalProperties": obj{"type": "integer", "minimum": 1, "maximum": coupling.MaxRate}, "description": fmt.Sprintf("Substeps per macro step by node name, at most %d (multirate: with jacobi, or inside iterative groups; not with gauss-seidel).", coupling.MaxRate)},
			"interpolation": obj{"enum": names(string(coupling.Hold), string(coupling.Linear))},
		},
	}
}
