package scene

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

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

	// Dir is the directory the CSV files of lookup nodes ("file") are
	// read from when relative: the scene file's, as LoadFile and
	// DecodeFile set it; empty means the working directory. It is not
	// part of the file.
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
}

// Connector is a connector node attached to markers on two bodies, the
// scene form of graph.Graph.AddConnector: Type is any connector type of
// the registry (node.Registry.ConnectorTypes: springdamper, spring, or a
// type registered later), and marker k sits at Local[k] on the node
// named Bodies[k] ("ground" or "" for a fixed world point at Local[k]).
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

// Ground is the body name of a fixed world marker in Connector.Bodies.
const Ground = node.Ground

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

// transformKinds are the transform kinds a scene may name.
var transformKinds = []string{"component", "embed", "scale"}

// TransformKinds returns the transform kinds a scene may name, sorted; the
// caller owns the slice.
func TransformKinds() []string { return slices.Clone(transformKinds) }

// Run modes.
const (
	// CoSimulation lets every node step itself (graph.Sim.Run), coupled by
	// Run.Coupling. It is the default.
	CoSimulation = "co-simulation"
	// Monolithic integrates all stateful nodes as one system with
	// Run.Integrator (graph.Sim.RunMonolithic, or graph.Sim.Integrate
	// when the integrator is adaptive).
	Monolithic = "monolithic"
)

// modes are the run modes a scene may name.
var modes = []string{CoSimulation, Monolithic}

// Modes returns the run modes a scene may name; the caller owns the
// slice.
func Modes() []string { return slices.Clone(modes) }

// Run holds the run settings.
type Run struct {
	// Mode is CoSimulation (the default when empty) or Monolithic.
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
	// Integrator is the method of a monolithic run; required then, and
	// an error in co-simulation mode.
	Integrator *Integrator `json:"integrator,omitempty"`
	// Coupling is the co-simulation strategy; nil means explicit Jacobi.
	Coupling *Coupling `json:"coupling,omitempty"`
}

// Integrator configures the method of a monolithic run. Fields that do not
// apply to the method are errors, not silently ignored.
type Integrator struct {
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
	// Adaptive runs "dormand-prince" with error control, dense output at
	// Record.Times and event localization (graph.Sim.Integrate).
	Adaptive bool `json:"adaptive,omitempty"`
	// Tolerances and step bounds of the adaptive integrator
	// (integrators.DormandPrince), its step budget and the event tolerance
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

// Coupling is the scene form of a coupling.Strategy (package coupling
// documents every field and default).
type Coupling struct {
	// Scheme is a name of coupling.Names: "jacobi", "gauss-seidel",
	// "iterative", or an acceleration ("relaxation", "aitken",
	// "iqn-ils") meaning "iterative" with it.
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

// Error is a problem at a place in a scene file: a JSON path such as
// "nodes[1].params.elasticity", or a line and column for syntax errors.
type Error struct {
	Path string
	Err  error
}

// Error returns "path: message", bounded: the path to node.MaxShownBytes
// bytes and the message to MaxMessageBytes, so that a huge value in a
// file never makes a huge message (issue 15).
func (e *Error) Error() string {
	return node.Elide(e.Path) + ": " + node.ElideTo(e.Err.Error(), MaxMessageBytes)
}

// MaxMessageBytes bounds the message of one scene Error.
const MaxMessageBytes = 400

func (e *Error) Unwrap() error { return e.Err }

// MaxErrors is the most problems one error reports; the rest are
// counted in a last line.
const MaxErrors = 50

// joinErrors joins errs (nil when empty), keeping the first MaxErrors.
func joinErrors(errs []error) error {
	if len(errs) > MaxErrors {
		n := len(errs) - MaxErrors
		errs = append(errs[:MaxErrors:MaxErrors], &Error{Path: "scene", Err: fmt.Errorf("%d more problems not shown", n)})
	}
	return errors.Join(errs...)
}

// Decode reads a scene file strictly: unknown fields, wrong JSON types,
// null or out-of-range parameter values, trailing data, oversized input
// and syntax errors are errors pointing to the place. It checks the
// structure; Build checks it against a registry, and Load does both,
// reporting every problem of both at once.
func Decode(r io.Reader) (*Scene, error) {
	sc, _, err := decode(r)
	if err != nil {
		return nil, err
	}
	return sc, nil
}

// Load reads a scene file as Decode does and checks it against reg as
// Compile does, reporting every problem at once: the format problems of
// the file together with its registry, record and wiring problems (those
// of the parts that are well-formed). It returns the scene only when there
// are none.
func Load(r io.Reader, reg *node.Registry) (*Scene, error) {
	sc, c, err := decode(r)
	if sc == nil {
		return nil, err
	}
	var errs []error
	if err != nil {
		errs = c.errs
	}
	if c.fatal {
		return nil, joinErrors(errs)
	}
	_, _, berrs := sc.compile(reg, nil, c)
	if errs = append(errs, berrs...); len(errs) > 0 {
		return nil, joinErrors(errs)
	}
	return sc, nil
}

// decode reads and checks a scene file. When the file decodes into a
// Scene but has problems, it returns the scene, the check (whose errs
// hold every problem) and the joined error; when it does not, no scene.
func decode(r io.Reader) (*Scene, checked, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, checked{}, err
	}
	if len(data) > MaxBytes {
		return nil, checked{}, &Error{Path: "scene", Err: fmt.Errorf("file is larger than %d bytes", MaxBytes)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	var sc Scene
	derr := dec.Decode(&sc)
	var se *json.SyntaxError
	if derr != nil && (errors.As(derr, &se) || errors.Is(derr, io.ErrUnexpectedEOF) || errors.Is(derr, io.EOF)) {
		return nil, checked{}, locate(data, derr)
	}
	werrs := walk(data)
	if derr != nil {
		if len(werrs) == 0 {
			return nil, checked{}, locate(data, derr)
		}
		return nil, checked{}, joinErrors(werrs)
	}
	if dec.More() {
		return nil, checked{}, &Error{Path: position(data, dec.InputOffset()), Err: errors.New("unexpected data after the scene object")}
	}
	c := sc.check()
	for i := range sc.Nodes {
		sc.Nodes[i].Params = normalize(sc.Nodes[i].Params).(map[string]any)
	}
	for i := range sc.Connectors {
		sc.Connectors[i].Params = normalize(sc.Connectors[i].Params).(map[string]any)
	}
	if len(werrs) > 0 {
		// Null or out-of-range parameter values, foreign transform keys:
		// the node, connector or edge is not built. Check finds some of
		// these again, without a position.
		seen := map[string]bool{}
		for _, err := range werrs {
			p, _, _ := strings.Cut(err.(*Error).Path, " (")
			seen[p] = true
		}
		for _, err := range c.errs {
			if e, ok := err.(*Error); !ok || !seen[e.Path] {
				werrs = append(werrs, err)
			}
		}
		c.errs = werrs
		c.mark()
	}
	if len(c.errs) > 0 {
		return &sc, c, joinErrors(c.errs)
	}
	return &sc, c, nil
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

// checked is the result of Scene.check: every structural problem, and
// which nodes, connectors and edges they concern (by path, "nodes[2]"), so
// that Build can still build the others and report their problems too.
// fatal means nothing can be built (no nodes, limits exceeded).
type checked struct {
	errs  []error
	skip  map[string]bool
	fatal bool
}

// err is the joined error, nil when there are no problems.
func (c checked) err() error { return joinErrors(c.errs) }

// mark fills skip and fatal from the paths of errs.
func (c *checked) mark() {
	c.skip = map[string]bool{}
	for _, err := range c.errs {
		var e *Error
		if !errors.As(err, &e) {
			c.fatal = true
			continue
		}
		p, _, _ := strings.Cut(e.Path, " ")
		if p == "nodes" || p == "edges" || p == "scene" {
			c.fatal = true
		}
		if i := strings.IndexByte(p, ']'); i > 0 {
			c.skip[p[:i+1]] = true
		}
	}
}

func (sc *Scene) check() (c checked) {
	defer c.mark()
	var errs []error
	defer func() { c.errs = errs }()
	bad := func(path string, f string, a ...any) {
		errs = append(errs, &Error{Path: path, Err: fmt.Errorf(f, a...)})
	}
	if len(sc.Nodes) == 0 {
		bad("nodes", "a scene needs at least one node")
	}
	if len(sc.Nodes)+len(sc.Connectors) > MaxNodes {
		bad("nodes", "%d nodes is more than the limit of %d", len(sc.Nodes)+len(sc.Connectors), MaxNodes)
		return
	}
	if len(sc.Edges) > MaxEdges {
		bad("edges", "%d edges is more than the limit of %d", len(sc.Edges), MaxEdges)
		return
	}
	seen := map[string]string{}
	name := func(p, n string) {
		switch {
		case n == "":
			bad(p+".name", "missing")
		case strings.ContainsAny(n, ". \t\n[]"):
			bad(p+".name", "%q: names may not contain '.', '[', ']' or spaces (fields are named node.field)", n)
		default:
			if q, dup := seen[n]; dup {
				bad(p+".name", "%q is already the name of %s", n, q)
			} else {
				seen[n] = p
			}
		}
	}
	for i, n := range sc.Nodes {
		p := fmt.Sprintf("nodes[%d]", i)
		name(p, n.Name)
		if n.Type == "" {
			bad(p+".type", "missing")
		}
	}
	for i, c := range sc.Connectors {
		p := fmt.Sprintf("connectors[%d]", i)
		name(p, c.Name)
		if c.Type == "" {
			bad(p+".type", "missing")
		}
		if len(c.Bodies) != 2 {
			bad(p+".bodies", "has %d names, want 2: the bodies of marker 0 and marker 1 (%q for a fixed world point)", len(c.Bodies), Ground)
		} else if b := c.Bodies[0]; b == c.Bodies[1] && b != Ground && b != "" {
			bad(p+".bodies", "both markers are on node %q: a connector acts between two bodies (or a body and %q); it cannot connect a node to itself", b, Ground)
		}
		if len(c.Local) != 0 && len(c.Local) != 2 {
			bad(p+".local", "has %d points, want 2 (or none: both at the origin)", len(c.Local))
		}
		for k, l := range c.Local {
			if len(l) != 3 {
				bad(fmt.Sprintf("%s.local[%d]", p, k), "has %d value%s, want 3 (x, y, z)", len(l), plural(len(l)))
			}
			for _, x := range l {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					bad(fmt.Sprintf("%s.local[%d]", p, k), "is not finite")
					break
				}
			}
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
		if t := e.Transform; t != nil {
			errs = append(errs, t.check(p+".transform")...)
		}
		fn, _, _ := strings.Cut(e.From, ".")
		tn, _, _ := strings.Cut(e.To, ".")
		if e.From != "" && fn == tn {
			bad(p, "%s -> %s wires node %q into its own input; a node's inputs come from other nodes (a self-wired input reads the node's own previous value, a loop the node must model itself)", e.From, e.To, fn)
		}
	}
	r := sc.Run
	if !(r.Dt > 0) || math.IsInf(r.Dt, 0) {
		bad("run.dt", "%v: the step must be finite and positive", r.Dt)
	}
	if r.Steps < 0 {
		bad("run.steps", "%d is negative", r.Steps)
	}
	if math.IsNaN(r.End) || math.IsInf(r.End, 0) || r.End < 0 {
		bad("run.end", "%v: the end time must be finite and not negative", r.End)
	}
	if r.Steps == 0 && !(r.End > 0) {
		bad("run", "give steps or a positive end time")
	}
	if r.Steps > 0 && r.End > 0 {
		bad("run", "steps (%d) and end (%v) are both given; give one: steps runs steps·dt, end runs to that time", r.Steps, r.End)
	}
	if r.Steps == 0 && r.End > 0 && r.Dt > r.End {
		bad("run.dt", "%v is larger than the run, which ends at %v (runs start at 0): the run would step past its end", r.Dt, r.End)
	}
	if r.Dt > 0 && r.End/r.Dt > 1e9 || r.Steps > 1e9 {
		bad("run", "more than 1e9 steps")
	}
	if r.Workers < 0 {
		bad("run.workers", "%d is negative", r.Workers)
	}
	switch r.Mode {
	case "", CoSimulation:
		if r.Integrator != nil {
			bad("run.integrator", "is for monolithic runs, but the mode is %s (nodes step themselves): set \"mode\": %q or remove it", CoSimulation, Monolithic)
		}
		if r.Coupling != nil {
			if _, err := r.Coupling.Strategy(); err != nil {
				bad("run.coupling", "%v", err)
			}
		}
	case Monolithic:
		if r.Integrator == nil {
			bad("run.integrator", "missing: a monolithic run needs a method, e.g. {\"method\": \"rk4\"}; methods: %s", strings.Join(methodNames(), ", "))
		} else {
			errs = append(errs, r.Integrator.check("run.integrator")...)
		}
		if r.Coupling != nil {
			bad("run.coupling", "is for co-simulation; a monolithic run integrates all nodes together: remove it or set \"mode\": %q", CoSimulation)
		}
	default:
		bad("run.mode", "%q is not a mode; use %s%s", r.Mode, strings.Join(modes, " or "), node.DidYouMean(r.Mode, modes))
	}
	if sc.Record.Every < 0 {
		bad("record.every", "%d is negative", sc.Record.Every)
	}
	if len(sc.Record.Times) > 0 {
		if !sc.adaptive() {
			bad("record.times", "dense output is for adaptive monolithic runs (run.integrator.adaptive); fixed-step runs record every record.every steps")
		}
		end := sc.EndTime()
		for i, t := range sc.Record.Times {
			if math.IsNaN(t) || t < 0 || t > end || i > 0 && t < sc.Record.Times[i-1] {
				bad(fmt.Sprintf("record.times[%d]", i), "%v: times must ascend within [0, %v], the end time", t, end)
				break
			}
		}
	}
	for i, f := range sc.Record.Fields {
		if _, _, _, err := splitField(f); err != nil {
			bad(fmt.Sprintf("record.fields[%d]", i), "%v", err)
		}
	}
	return
}

// check validates a transform's kind and the settings of its kind; path
// is where it is ("edges[2].transform"). Decode also rejects the keys of
// other kinds even when they are zero.
func (t *Transform) check(path string) []error {
	var errs []error
	bad := func(field string, f string, a ...any) {
		errs = append(errs, &Error{Path: path + field, Err: fmt.Errorf(f, a...)})
	}
	switch t.Kind {
	case "scale":
		if t.Factor == 0 {
			bad(".factor", "missing: a scale transform needs a non-zero factor, e.g. {\"kind\": \"scale\", \"factor\": 1000, \"from\": \"kN\", \"to\": \"N\"}")
		} else if math.IsNaN(t.Factor) || math.IsInf(t.Factor, 0) {
			bad(".factor", "%v is not finite", t.Factor)
		}
	case "component":
		if t.Index < 0 {
			bad(".index", "%d is negative", t.Index)
		}
	case "embed":
		if t.Len < 1 {
			bad(".len", "missing or less than 1: an embed transform needs the length of the vector, e.g. {\"kind\": \"embed\", \"axis\": 1, \"len\": 3}")
		} else if t.Axis < 0 || t.Axis >= t.Len {
			bad(".axis", "%d is outside a vector of %d components", t.Axis, t.Len)
		}
	default:
		bad(".kind", "%q is not a transform kind%s", t.Kind, node.DidYouMean(t.Kind, transformKinds))
		return errs
	}
	// Settings of another kind, given non-zero.
	for _, k := range []struct {
		key string
		set bool
	}{{"factor", t.Factor != 0}, {"from", t.From != ""}, {"to", t.To != ""}, {"index", t.Index != 0}, {"axis", t.Axis != 0}, {"len", t.Len != 0}} {
		if k.set && !slices.Contains(transformKeys[t.Kind], k.key) {
			bad("."+k.key, "is not a setting of the %s transform, which takes %s", t.Kind, strings.Join(transformKeys[t.Kind], ", "))
		}
	}
	return errs
}

// splitField splits a recorded field "node.field" or "node.field[i]"
// into its node, field and component (-1 for the whole field).
func splitField(f string) (nn, fn string, comp int, err error) {
	comp = -1
	base := f
	if i := strings.IndexByte(f, '['); i >= 0 {
		k, aerr := strconv.Atoi(strings.TrimSuffix(f[i+1:], "]"))
		if !strings.HasSuffix(f, "]") || aerr != nil || k < 0 {
			return "", "", 0, fmt.Errorf("%q: the component must be a non-negative integer, as in node.field[1]", f)
		}
		base, comp = f[:i], k
	}
	nn, fn, ok := strings.Cut(base, ".")
	if !ok || nn == "" || fn == "" || strings.Contains(fn, ".") {
		return "", "", 0, fmt.Errorf("%q is not of the form node.field or node.field[i]", f)
	}
	return nn, fn, comp, nil
}

// adaptive reports whether the scene runs the adaptive integrator.
func (sc *Scene) adaptive() bool {
	return sc.Run.Mode == Monolithic && sc.Run.Integrator != nil && sc.Run.Integrator.Adaptive
}

// EndTime is the time the run ends at: Steps·Dt when Steps is set, End
// otherwise. Runs start at 0.
func (sc *Scene) EndTime() float64 {
	if sc.Run.Steps > 0 {
		return float64(sc.Run.Steps) * sc.Run.Dt
	}
	return sc.Run.End
}

// methodNames are the methods a scene may name: the built-in ones and
// those a program registered (integrators.Register).
func methodNames() []string { return integrators.Names() }

// check validates the integrator settings; path is where they are.
func (in *Integrator) check(path string) []error {
	var errs []error
	bad := func(field string, f string, a ...any) {
		errs = append(errs, &Error{Path: path + field, Err: fmt.Errorf(f, a...)})
	}
	m, err := integrators.ByName(in.Method)
	if in.Method == "" {
		bad(".method", "missing; one of %s", strings.Join(methodNames(), ", "))
	} else if err != nil {
		bad(".method", "%q is not a method%s; one of %s", in.Method, node.DidYouMean(in.Method, methodNames()), strings.Join(methodNames(), ", "))
	}
	_, isGA := m.(integrators.GeneralizedAlpha)
	_, isNewmark := m.(integrators.Newmark)
	_, isDP := m.(integrators.DormandPrince)
	_, implicit := m.(integrators.NewtonMethod)
	if in.RhoInf != nil {
		if !isGA {
			bad(".rho_inf", "is a parameter of %s, not of %q", integrators.MethodGeneralizedAlpha, in.Method)
		} else if r := *in.RhoInf; !(r >= 0 && r <= 1) {
			bad(".rho_inf", "%v is outside [0, 1]", r)
		}
	}
	for _, v := range []struct {
		name string
		x    *float64
	}{{".beta", in.Beta}, {".gamma", in.Gamma}} {
		if v.x == nil {
			continue
		}
		if !isNewmark {
			bad(v.name, "is a parameter of %s, not of %q", integrators.MethodNewmark, in.Method)
		} else if math.IsNaN(*v.x) || math.IsInf(*v.x, 0) || *v.x < 0 || v.name == ".beta" && *v.x == 0 {
			bad(v.name, "%v: newmark needs beta > 0 and gamma >= 0", *v.x)
		}
	}
	if in.Adaptive && !isDP {
		bad(".adaptive", "only %s is adaptive; set \"method\": %q", integrators.MethodDormandPrince, integrators.MethodDormandPrince)
	}
	for _, v := range []struct {
		name string
		x    float64
	}{{".rtol", in.RTol}, {".atol", in.ATol}, {".initial_step", in.InitialStep}, {".min_step", in.MinStep}, {".max_step", in.MaxStep}, {".event_tol", in.EventTol}} {
		if v.x == 0 {
			continue
		}
		if !in.Adaptive {
			bad(v.name, "is a setting of the adaptive integrator; set \"adaptive\": true (with %s) or remove it", integrators.MethodDormandPrince)
		} else if !(v.x > 0) || math.IsInf(v.x, 0) {
			bad(v.name, "%v must be finite and positive", v.x)
		}
	}
	if in.MaxSteps != 0 && !in.Adaptive {
		bad(".max_steps", "is a setting of the adaptive integrator; set \"adaptive\": true or remove it")
	} else if in.MaxSteps < 0 {
		bad(".max_steps", "%d is negative", in.MaxSteps)
	}
	if err == nil && !implicit && (in.NewtonTol != 0 || in.NewtonMaxIter != 0) {
		bad("", "newton_tol and newton_max_iter are for implicit methods; %s is explicit", in.Method)
	}
	if !(in.NewtonTol >= 0) || math.IsInf(in.NewtonTol, 0) {
		bad(".newton_tol", "%v must be finite and not negative", in.NewtonTol)
	}
	if in.NewtonMaxIter < 0 {
		bad(".newton_max_iter", "%d is negative", in.NewtonMaxIter)
	}
	errs = append(errs, in.checkLinear(path, err == nil && !implicit)...)
	return errs
}

// checkLinear validates the linear-solver keys; explicit says the method
// has no Newton iteration to configure.
func (in *Integrator) checkLinear(path string, explicit bool) []error {
	var errs []error
	bad := func(field string, f string, a ...any) {
		errs = append(errs, &Error{Path: path + field, Err: fmt.Errorf(f, a...)})
	}
	if explicit && (in.LinearSolver != "" || in.Preconditioner != "" || in.Forcing != "" || in.KrylovTol != 0 ||
		in.KrylovRestart != 0 || in.KrylovMaxIter != 0 || in.MatrixFree || in.JacobianMaxAge != 0) {
		bad("", "linear_solver, preconditioner, forcing, krylov_tol, krylov_restart, krylov_max_iter, matrix_free and jacobian_max_age are for implicit methods; %s is explicit", in.Method)
	}
	names := []struct {
		key, v string
		valid  []string
	}{
		{".linear_solver", in.LinearSolver, integrators.LinearSolverNames()},
		{".preconditioner", in.Preconditioner, integrators.PreconditionerNames()},
		{".forcing", in.Forcing, integrators.ForcingNames()},
	}
	for _, n := range names {
		if n.v != "" && !slices.Contains(n.valid, n.v) {
			bad(n.key, "%q is not valid%s; one of %s", n.v, node.DidYouMean(n.v, n.valid), strings.Join(n.valid, ", "))
		}
	}
	if !(in.KrylovTol >= 0 && in.KrylovTol < 1) {
		bad(".krylov_tol", "%v must be in [0, 1)", in.KrylovTol)
	}
	for _, v := range []struct {
		key string
		x   int
	}{{".krylov_restart", in.KrylovRestart}, {".krylov_max_iter", in.KrylovMaxIter}, {".jacobian_max_age", in.JacobianMaxAge}} {
		if v.x < 0 {
			bad(v.key, "%d is negative", v.x)
		}
	}
	if in.LinearSolver == "dense" && (in.Preconditioner != "" || in.Forcing != "" || in.KrylovTol != 0 || in.KrylovRestart != 0 || in.KrylovMaxIter != 0 || in.MatrixFree || in.JacobianMaxAge != 0) {
		bad("", "preconditioner, forcing, krylov_* , matrix_free and jacobian_max_age configure GMRES; linear_solver is \"dense\"")
	}
	if in.LinearSolver == "banded" && (in.Preconditioner != "" || in.Forcing != "" || in.KrylovTol != 0 || in.KrylovRestart != 0 || in.KrylovMaxIter != 0 || in.MatrixFree) {
		bad("", "preconditioner, forcing, krylov_* and matrix_free configure GMRES; linear_solver is \"banded\" (a direct solver)")
	}
	return errs
}

// Configure returns the integration method of a monolithic scene, from
// the registry (integrators.ByName) with the scene's parameters and
// options set on it, and its driver options (the adaptive driver's step
// budget and event tolerance). It returns an error when the name is
// unknown; Scene validation reports the keys that do not apply to the
// method.
func (in *Integrator) Configure() (integrators.Method, *integrators.DriverOptions, error) {
	m, err := integrators.ByName(in.Method)
	if err != nil {
		return nil, nil, err
	}
	switch b := m.(type) {
	case integrators.Newmark:
		if in.Beta != nil {
			b.Beta = *in.Beta
		}
		if in.Gamma != nil {
			b.Gamma = *in.Gamma
		}
		m = b
	case integrators.GeneralizedAlpha:
		if in.RhoInf != nil {
			b.RhoInf = *in.RhoInf
		}
		m = b
	case integrators.DormandPrince:
		b.RTol, b.ATol, b.InitialStep, b.MinStep, b.MaxStep = in.RTol, in.ATol, in.InitialStep, in.MinStep, in.MaxStep
		m = b
	}
	if nm, ok := m.(integrators.NewtonMethod); ok {
		m = nm.WithSolver(integrators.NewtonOptions{Tol: in.NewtonTol, MaxIter: in.NewtonMaxIter}, integrators.LinearOptions{
			Solver:         parsed(integrators.ParseLinearSolver, in.LinearSolver),
			Preconditioner: parsed(integrators.ParsePreconditioner, in.Preconditioner),
			Forcing:        parsed(integrators.ParseForcing, in.Forcing),
			KrylovTol:      in.KrylovTol, KrylovRestart: in.KrylovRestart, KrylovMaxIter: in.KrylovMaxIter,
			MatrixFree: in.MatrixFree, JacobianMaxAge: in.JacobianMaxAge,
		})
	}
	return m, &integrators.DriverOptions{MaxSteps: in.MaxSteps, EventTol: in.EventTol}, nil
}

// parsed returns the value named s, or the zero value (the default) for
// "" (check has rejected unknown names).
func parsed[T any](parse func(string) (T, error), s string) T {
	var zero T
	if s == "" {
		return zero
	}
	v, err := parse(s)
	if err != nil {
		return zero
	}
	return v
}

// Strategy returns the coupling.Strategy the settings describe, validated
// by coupling.Strategy.Validate (node names are checked when a run
// starts).
func (c *Coupling) Strategy() (*coupling.Strategy, error) {
	st, err := coupling.ByName(c.Scheme)
	if err != nil {
		return nil, err
	}
	if c.Acceleration != "" {
		if st.Scheme != coupling.Iterative {
			return nil, fmt.Errorf("acceleration %q is for the %s scheme, the scheme is %s", c.Acceleration, coupling.Iterative, st.Scheme)
		}
		st.Iteration.Acceleration.Method = coupling.Method(c.Acceleration)
	}
	it := &st.Iteration
	a := &it.Acceleration
	a.Omega, a.OmegaMax, a.Reuse, a.Filter, a.MaxColumns = c.Omega, c.OmegaMax, c.Reuse, c.Filter, c.MaxColumns
	it.ATol, it.RTol, it.MaxIter = c.ATol, c.RTol, c.MaxIter
	it.Predictor, it.OnFail = coupling.Predictor(c.Predictor), coupling.Policy(c.OnFail)
	st.Order = c.Order
	for _, g := range c.Groups {
		st.Groups = append(st.Groups, coupling.Group{Name: g.Name, Nodes: g.Nodes})
	}
	st.Rates = c.Rates
	st.Interpolation = coupling.Interpolation(c.Interpolation)
	if err := st.Validate(); err != nil {
		return nil, err
	}
	return &st, nil
}

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
		return nil, joinErrors(errs)
	}
	return g.g, nil
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
		nd, err := reg.New(n.Type, params[i])
		if err != nil {
			var ue *node.UnknownTypeError
			if errors.As(err, &ue) {
				p += ".type"
			} else {
				p += ".params"
			}
			errs = append(errs, &Error{Path: p, Err: err})
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
		before := g.NumEdges()
		if err := connect(g, reg, cn, params[len(sc.Nodes)+i]); err != nil {
			errs = append(errs, &Error{Path: p + err.path, Err: err.err})
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
	// input (a connector's force counted double), silently.
	type edgeKey struct {
		from, to string
		tr       Transform
	}
	made := map[edgeKey]string{}
	for _, o := range b.origins {
		made[edgeKey{from: o.from, to: o.to}] = o.path
	}
	for i, e := range sc.Edges {
		p := fmt.Sprintf("edges[%d]", i)
		if c.skip[p] || failed[owner(e.From)] || failed[owner(e.To)] {
			b.skipped[e.To] = true
			continue
		}
		k := edgeKey{from: e.From, to: e.To}
		if e.Transform != nil {
			k.tr = *e.Transform
		}
		if q, dup := made[k]; dup {
			what := "the same edge as " + q
			if strings.HasPrefix(q, "connectors[") {
				what = "an edge " + q + " makes already (a connector wires itself to its bodies)"
			}
			errs = append(errs, &Error{Path: p, Err: fmt.Errorf("%s -> %s is %s: into an additive input it would count twice; remove one", e.From, e.To, what)})
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
		g.Connect(e.From, e.To, opts...)
		b.origins = append(b.origins, origin{path: p, from: e.From, to: e.To})
	}
	for i, f := range sc.Record.Fields {
		p := fmt.Sprintf("record.fields[%d]", i)
		nn, fn, comp, err := splitField(f)
		if err != nil || failed[nn] {
			continue // reported by check, or its node's problem is
		}
		if err := recordable(g, names, nn, fn, comp); err != nil {
			errs = append(errs, &Error{Path: p, Err: fmt.Errorf("%q: %w", f, err)})
		}
	}
	return b, b.origins, errs
}

// recordable reports whether component comp (-1: all) of the state field
// or output fn of node nn of g can be recorded.
func recordable(g *graph.Graph, names []string, nn, fn string, comp int) error {
	n, ok := g.Node(nn)
	if !ok {
		return fmt.Errorf("no node %q in the scene%s", nn, node.DidYouMean(nn, names))
	}
	s := n.Spec()
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
	if len(b.g.Names()) == 0 {
		return nil, origins, errs
	}
	sim, err := b.g.Build()
	if err != nil {
		var be *graph.BuildError
		if !errors.As(err, &be) {
			errs = append(errs, &Error{Path: "scene", Err: err})
		} else {
			for _, prob := range be.Problems {
				var ee *graph.EdgeError
				if errors.As(prob, &ee) && b.skipped[ee.Edge] {
					continue
				}
				errs = append(errs, &Error{Path: sc.locateProblem(prob, origins), Err: prob})
			}
		}
	}
	if len(errs) > 0 || len(c.errs) > 0 {
		for i, e := range errs {
			if j := relabelSets(e, sc.SetBy); j != nil {
				if u, ok := j.(interface{ Unwrap() []error }); ok && len(u.Unwrap()) == 1 {
					j = u.Unwrap()[0]
				}
				errs[i] = j
			}
		}
		return nil, origins, errs
	}
	return sim, origins, nil
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

// Settings returns the graph run settings of the scene, with its coupling
// strategy (nil when the scene has none or an invalid one: Decode reports
// that).
func (sc *Scene) Settings() graph.Settings {
	set := graph.Settings{Dt: sc.Run.Dt, Steps: sc.Run.Steps, End: sc.Run.End, Workers: sc.Run.Workers, Record: sc.Record.Fields, Every: sc.Record.Every}
	if sc.Run.Coupling != nil {
		set.Coupling, _ = sc.Run.Coupling.Strategy()
	}
	return set
}

// With returns a copy of the scene with settings changed, as the --set
// flag of the cosim command does: "node.param" sets a parameter of a node
// or a connector; "run.dt", "run.integrator.rho_inf", "record.every" and
// every other path under run and record set that field. The copy is
// checked as Decode checks a file, so a bad value is an error at its path.
// Values are Go values as JSON decodes them (float64, bool, string,
// []any, map[string]any); ParseValue turns command-line text into one.
func (sc *Scene) With(set map[string]any) (*Scene, error) {
	raw, err := json.Marshal(sc)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var errs []error
	sets := map[string]string{} // scene path → --set key
	for k, v := range sc.SetBy {
		sets[k] = v
	}
	for _, k := range keys {
		p, err := setPath(m, k, set[k])
		if err != nil {
			errs = append(errs, &Error{Path: "--set " + k, Err: err})
		}
		sets[p] = k
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	raw, err = json.Marshal(m)
	if err != nil {
		return nil, err
	}
	out, err := Decode(bytes.NewReader(raw))
	if out != nil {
		out.Dir = sc.Dir
		out.SetBy = sets
	}
	return out, relabelSets(withoutPositions(err), sets)
}

// relabelSets names the --set flag in the problems it caused: a problem
// at the path a --set wrote (or inside it) is the flag's; one at a path
// containing it says it came after the flag.
func relabelSets(err error, sets map[string]string) error {
	if err == nil || len(sets) == 0 {
		return err
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	out := make([]error, len(errs))
	paths := make([]string, 0, len(sets))
	for p := range sets {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for i, e := range errs {
		out[i] = e
		se, ok := e.(*Error)
		if !ok {
			continue
		}
		p, _, _ := strings.Cut(se.Path, " (")
		var after []string
		for _, sp := range paths {
			key := sets[sp]
			switch {
			case p == sp:
				out[i] = &Error{Path: "--set " + key, Err: se.Err}
			case strings.HasPrefix(p, sp+".") || strings.HasPrefix(p, sp+"["):
				out[i] = &Error{Path: "--set " + key + " (" + p + ")", Err: se.Err}
			case strings.HasPrefix(sp, p+".") || strings.HasPrefix(sp, p+"[") || p == "run" && strings.HasPrefix(sp, "run."):
				after = append(after, "--set "+key)
				continue
			default:
				continue
			}
			break
		}
		if out[i] == e && len(after) > 0 {
			out[i] = &Error{Path: se.Path + " (after " + strings.Join(after, ", ") + ")", Err: se.Err}
		}
	}
	return errors.Join(out...)
}

// withoutPositions drops the line and column from the paths of err's
// problems: With decodes JSON it generated, whose positions mean nothing
// to the user.
func withoutPositions(err error) error {
	if err == nil {
		return nil
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
		if se, ok := e.(*Error); ok {
			if p, _, cut := strings.Cut(se.Path, " (line "); cut {
				out[i] = &Error{Path: p, Err: se.Err}
			}
		}
	}
	return errors.Join(out...)
}

// setPath sets key in the generic JSON form m of a scene and returns the
// path it set ("run.dt", "nodes[1].params.mass").
func setPath(m map[string]any, key string, v any) (string, error) {
	head, rest, ok := strings.Cut(key, ".")
	if !ok || rest == "" {
		return "", errors.New("write node.param, or run.field / record.field")
	}
	if head == "run" || head == "record" {
		cur := m
		parts := strings.Split(key, ".")
		for _, p := range parts[:len(parts)-1] {
			next, ok := cur[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				cur[p] = next
			}
			cur = next
		}
		cur[parts[len(parts)-1]] = v
		return key, nil
	}
	var names []string
	for _, sec := range []string{"nodes", "connectors"} {
		list, _ := m[sec].([]any)
		for i, e := range list {
			obj, _ := e.(map[string]any)
			if obj["name"] == head {
				ps, ok := obj["params"].(map[string]any)
				if !ok {
					ps = map[string]any{}
					obj["params"] = ps
				}
				ps[rest] = v
				return fmt.Sprintf("%s[%d].params.%s", sec, i, rest), nil
			}
			if n, ok := obj["name"].(string); ok {
				names = append(names, n)
			}
		}
	}
	return "", fmt.Errorf("no node or connector %q in the scene%s", head, node.DidYouMean(head, names))
}

// ParseValue reads a command-line value: JSON (a number, true, false, a
// list such as [0,-9.81,0], a quoted string) or else the text itself as a
// string, so --set run.mode=monolithic needs no quotes.
func ParseValue(text string) any {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return text
	}
	if m, ok := v.(map[string]any); ok {
		return normalize(m)
	}
	if v == nil {
		return text
	}
	return normalize(v)
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
