package scene

import (
	"slices"

	"github.com/cosimgo/cosim/graph"
)

// This file defines the scene format: the Go types a scene file decodes
// into, documented field by field (docs/scenes.md is their manual). The
// rest of the package, by responsibility:
//
//   - decode.go, walk.go: reading a file strictly, with positions;
//   - check.go: the structural checks that need no registry;
//   - compile.go: building the graph and the Sim, problems located in
//     the scene;
//   - settings.go: the run section as graph, coupling and integrators
//     settings;
//   - with.go: --set overrides;
//   - run.go: Simulate; save.go: FromGraph and Encode; schema.go: the
//     JSON Schema; files.go: lookup tables read from CSV files; fmu.go:
//     the FMU declaration of cosim export;
//   - errors.go: the Error every problem is reported with.

// Limits keep memory bounded whatever a file says.
const (
	MaxBytes = 16 << 20 // largest scene file read
	MaxNodes = 200_000  // most nodes in one scene
	MaxEdges = 1_000_000
)

// Scene is the decoded JSON form of a scene file. docs/scenes.md documents
// every field; docs/scene.schema.json is its JSON Schema, generated from
// the node registry by Schema.
type Scene struct {
	// Schema is the optional "$schema" reference editors use to validate
	// and complete the file; cosim ignores it.
	Schema      string      `json:"$schema,omitempty"`
	Name        string      `json:"name,omitempty"`
	Description string      `json:"description,omitempty"`
	Nodes       []Node      `json:"nodes"`
	Connectors  []Connector `json:"connectors,omitempty"`
	Edges       []Edge      `json:"edges,omitempty"`
	Run         Run         `json:"run"`
	Record      Record      `json:"record,omitempty"`
	// Loops sets how algebraic loops (cycles of direct feedthrough) are
	// treated: solved with these tolerances (nil: the defaults of
	// graph.LoopSettings) or refused.
	Loops *Loops `json:"loops,omitempty"`
	// Ports declares what a parent scene sees when this scene is used as
	// a subsystem (a node of type "subsystem"): nil for a scene that is
	// only run. A scene with ports and no run section is a part, not a
	// runnable scene: its run is not checked.
	Ports *Ports `json:"ports,omitempty"`
	// FMU declares the scene's interface when it is exported as an FMI
	// 3.0 co-simulation FMU (cosim export, package fmi/export): its
	// inputs, outputs and tunable parameters. Runs ignore it; nil means
	// an FMU with none of them.
	FMU *FMU `json:"fmu,omitempty"`

	// Dir is the directory the CSV files of lookup nodes ("file") are
	// read from when relative: the scene file's, as LoadFile and
	// DecodeFile set it (the working directory for a scene read from
	// standard input or a pipe); empty means the working directory. It
	// is not part of the file.
	Dir string `json:"-"`

	// SetBy maps the paths Scene.With set ("run.dt",
	// "nodes[1].params.mass") to the keys that set them, so that the
	// problems they cause name the --set flag rather than the file. It is
	// not part of the file.
	SetBy map[string]string `json:"-"`
}

// Node is one node of a scene: its registered type, unique name and
// parameters (any omitted parameter takes its default).
type Node struct {
	Name   string         `json:"name"`
	Type   string         `json:"type"`
	Params map[string]any `json:"params,omitempty"`
	// Scene is the file of a subsystem node (type "subsystem"), relative
	// to this scene's directory; Graph is its scene inline. A subsystem
	// node has exactly one of them; other nodes neither. A subsystem's
	// Params set its promoted parameters by port name ("stiffness") or
	// any inner parameter by its path ("knee.spring.stiffness").
	Scene string `json:"scene,omitempty"`
	Graph *Scene `json:"graph,omitempty"`
}

// Connector is a connector node attached to markers on two bodies, the
// scene form of graph.Graph.AddConnector: Type is any connector type of
// the registry (node.Registry.ConnectorTypes: springdamper, spring, or a
// type registered later), and marker k sits at Local[k] on the node
// named Bodies[k] ("ground" — node.Ground — or "" for a fixed world point
// at Local[k]).
// Build adds the connector and every edge between it and its bodies: the
// bodies' marker fields into its inputs m<k>_<field>, its loads m<k>_<load>
// into the bodies' additive inputs.
type Connector struct {
	Name   string         `json:"name"`
	Type   string         `json:"type"`
	Params map[string]any `json:"params,omitempty"`
	// Bodies are the node names of the two markers' bodies.
	Bodies []string `json:"bodies"`
	// Local are the two marker points: the world point of a ground
	// marker, the body-frame point of a rigid body's marker, ignored for
	// a point mass. Omitted: both at the origin.
	Local [][]float64 `json:"local,omitempty"`
}

// Edge wires "node.field" into "node.input", optionally through one of the
// registered transforms.
type Edge struct {
	From      string     `json:"from"`
	To        string     `json:"to"`
	Transform *Transform `json:"transform,omitempty"`
	// Repeat declares that the edge deliberately repeats an earlier edge
	// (or one a connector makes) from the same source into the same
	// additive input, so that the value counts once more
	// (graph.Repeat). Without it such an edge is an error, whatever its
	// transform.
	Repeat bool `json:"repeat,omitempty"`
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

// transformKinds are the transform kinds a scene may name.
var transformKinds = []string{"component", "embed", "scale"}

// TransformKinds returns the transform kinds a scene may name, sorted; the
// caller owns the slice.
func TransformKinds() []string { return slices.Clone(transformKinds) }

// The run modes a scene may name, spelled as the graph.Mode values name
// themselves (one representation): "co-simulation" lets every node step
// itself (graph.CoSimulation), coupled by Run.Coupling, and is the
// default; "monolithic" integrates all stateful nodes as one system with
// Run.Integrator (graph.Monolithic, or graph.MonolithicAdaptive when the
// integrator is adaptive).
var (
	coSimulation = graph.CoSimulation{}.String()
	monolithic   = graph.Monolithic{}.String()
	modes        = []string{coSimulation, monolithic}
)

// Modes returns the run modes a scene may name; the caller owns the
// slice.
func Modes() []string { return slices.Clone(modes) }

// Run holds the run settings.
type Run struct {
	// Mode is "co-simulation" (the default when empty) or "monolithic"
	// (Modes).
	Mode string `json:"mode,omitempty"`
	// Dt is the step: the macro step of a co-simulation, the fixed step
	// of a monolithic run, the output spacing of an adaptive run without
	// Record.Times.
	Dt float64 `json:"dt"`
	// Steps is the number of steps; when zero, End is used.
	Steps int `json:"steps,omitempty"`
	// End is the end time (the run starts at 0).
	End float64 `json:"end,omitempty"`
	// Workers bounds the goroutines of a co-simulation; zero means one
	// per CPU. Results are the same for every value.
	Workers int `json:"workers,omitempty"`
	// AllowGrowth lets a co-simulation whose state grows exponentially
	// without a physical or input cause run on (graph.CoSimulation.AllowGrowth);
	// by default such a run stops with a *graph.GrowthError.
	AllowGrowth bool `json:"allow_growth,omitempty"`
	// Integrator is the method of a monolithic run; required then, and
	// an error in co-simulation mode.
	Integrator *IntegrationMethod `json:"integrator,omitempty"`
	// Coupling is the co-simulation strategy; nil means explicit Jacobi.
	Coupling *Coupling `json:"coupling,omitempty"`
}

// Loops is the scene form of graph.LoopSettings: zero values mean the
// documented defaults.
type Loops struct {
	// Refuse makes Build reject every algebraic loop instead of solving it.
	Refuse bool `json:"refuse,omitempty"`
	// RTol and ATol bound every tear variable's residual,
	// |F(z) − z| ≤ ATol + RTol·|F(z)|.
	RTol float64 `json:"rtol,omitempty"`
	ATol float64 `json:"atol,omitempty"`
	// MaxIter bounds the Newton iterations of one solve, MaxFallbackIter
	// those of the fixed-point fallback; Memory is the fallback's
	// Anderson depth (negative: plain fixed point).
	MaxIter         int `json:"max_iter,omitempty"`
	MaxFallbackIter int `json:"max_fallback_iter,omitempty"`
	Memory          int `json:"memory,omitempty"`
}

// IntegrationMethod configures the method of a monolithic run (the
// object "run.integrator" of a scene file): the integrators.Method by
// name with its options, and the driver's. Fields that do not apply to
// the method are errors, not silently ignored.
type IntegrationMethod struct {
	// Method is a name of integrators.ByName, e.g. "rk4",
	// "generalized-alpha".
	Method string `json:"method"`
	// RhoInf is ρ∞ ∈ [0, 1] of "generalized-alpha"
	// (integrators.GeneralizedAlpha); nil means
	// integrators.DefaultRhoInf.
	RhoInf *float64 `json:"rho_inf,omitempty"`
	// Beta and Gamma are the parameters of "newmark"; nil means ¼ and ½.
	Beta  *float64 `json:"beta,omitempty"`
	Gamma *float64 `json:"gamma,omitempty"`
	// Adaptive runs the method with error control, dense output at
	// Record.Times and event localization (graph.Sim.Integrate): one of
	// the adaptive methods, "dormand-prince", "bdf", "esdirk43" or
	// "esdirk32".
	Adaptive bool `json:"adaptive,omitempty"`
	// Tolerances and step bounds of the adaptive integrator
	// (integrators.StepControl), its step budget and the event tolerance
	// (integrators.DriverOptions); zero means the default.
	RTol        float64 `json:"rtol,omitempty"`
	ATol        float64 `json:"atol,omitempty"`
	InitialStep float64 `json:"initial_step,omitempty"`
	MinStep     float64 `json:"min_step,omitempty"`
	MaxStep     float64 `json:"max_step,omitempty"`
	MaxSteps    int     `json:"max_steps,omitempty"`
	EventTol    float64 `json:"event_tol,omitempty"`
	// Newton options of the implicit and structural methods
	// (integrators.NewtonOptions); zero means the default.
	NewtonTol     float64 `json:"newton_tol,omitempty"`
	NewtonMaxIter int     `json:"newton_max_iter,omitempty"`
	// Linear solver of the Newton iterations of the implicit and
	// structural methods (integrators.LinearOptions): "auto" (default; dense
	// LU up to integrators.AutoDenseMax unknowns, GMRES above), "dense",
	// "gmres" or "banded" (direct banded LU); GMRES's preconditioner "block-jacobi" (default), "ilu0"
	// or "none"; its forcing "eisenstat-walker" (default) or "constant";
	// the smallest relative Krylov tolerance (default 1e-6), the restart
	// length m of GMRES(m) (default 30), the iteration limit of one solve
	// (default 500), the matrix-free directional-difference product, and
	// the steps an assembled Newton matrix is reused (default 20). Zero
	// or empty means the default.
	LinearSolver   string  `json:"linear_solver,omitempty"`
	Preconditioner string  `json:"preconditioner,omitempty"`
	Forcing        string  `json:"forcing,omitempty"`
	KrylovTol      float64 `json:"krylov_tol,omitempty"`
	KrylovRestart  int     `json:"krylov_restart,omitempty"`
	KrylovMaxIter  int     `json:"krylov_max_iter,omitempty"`
	MatrixFree     bool    `json:"matrix_free,omitempty"`
	JacobianMaxAge int     `json:"jacobian_max_age,omitempty"`
}

// Integrator is the former name of IntegrationMethod.
//
// Deprecated: use IntegrationMethod (control.Integrator is the integrator
// block, a node).
type Integrator = IntegrationMethod

// Coupling is the scene form of a coupling.Strategy (package coupling
// documents every field and default).
type Coupling struct {
	// Scheme is a name of coupling.Names: "jacobi", "gauss-seidel",
	// "iterative", or an acceleration ("relaxation", "aitken",
	// "iqn-ils") meaning "iterative" with it. Empty means "jacobi", the
	// default, as for no coupling section.
	Scheme string `json:"scheme"`
	// Acceleration of the iterative scheme: "relaxation", "aitken" or
	// "iqn-ils".
	Acceleration string  `json:"acceleration,omitempty"`
	Omega        float64 `json:"omega,omitempty"`
	OmegaMax     float64 `json:"omega_max,omitempty"`
	Reuse        int     `json:"reuse,omitempty"`
	Filter       float64 `json:"filter,omitempty"`
	MaxColumns   int     `json:"max_columns,omitempty"`
	ATol         float64 `json:"atol,omitempty"`
	RTol         float64 `json:"rtol,omitempty"`
	MaxIter      int     `json:"max_iter,omitempty"`
	// Predictor: "constant" or "linear". OnFail: "stop" or "accept".
	Predictor string `json:"predictor,omitempty"`
	OnFail    string `json:"on_fail,omitempty"`
	// Order lists the Gauss–Seidel stages, each a list of node names.
	Order [][]string `json:"order,omitempty"`
	// Groups are the iterated groups of the iterative scheme.
	Groups []Group `json:"groups,omitempty"`
	// Rates gives substeps per macro step by node name (multirate).
	Rates map[string]int `json:"rates,omitempty"`
	// Interpolation of slower nodes when subcycling: "hold" or "linear".
	Interpolation string `json:"interpolation,omitempty"`
}

// Group is an iterated group of nodes.
type Group struct {
	Name  string   `json:"name"`
	Nodes []string `json:"nodes"`
}

// Record says which fields to record and how often.
type Record struct {
	// Fields to record, "node.field" or "node.field[i]".
	Fields []string `json:"fields,omitempty"`
	// Every records every Every steps (and the initial state); zero
	// means 1. In an adaptive run without Times, the samples are at
	// multiples of Every·Dt.
	Every int `json:"every,omitempty"`
	// Times are the dense-output times of an adaptive monolithic run,
	// ascending within [0, end]. Fixed-step runs record on their steps.
	Times []float64 `json:"times,omitempty"`
}
