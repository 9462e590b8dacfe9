package graph

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/integrators"
)

// This file is the on-disk schema of a checkpoint body, format version 2
// (docs/checkpoint-format.md). Every key is spelled out by a JSON tag on a
// type owned by this package, so renaming a Go field anywhere (in graph,
// integrators or coupling) cannot change the file format: the conversions
// below are the only place the in-memory types meet the file. Older
// formats have their own frozen schema (checkpoint_v1.go) and are
// converted on reading.
//
// Extending the schema: a new optional field gets a new key with
// omitempty whose zero value means what files without it meant (the
// integrators.Settings convention: zero selects the default). Files
// written before it then read as before and the files this build writes
// are unchanged while the field is zero, so the format version stays.
// A field whose absence cannot keep the old meaning needs a new version
// and a converter from the old one. TestCheckpointSchemaCoversSettings
// fails when integrators.Settings, integrators.Checkpoint or
// integrators.Stats gain a field that the schema does not carry.

// checkpointFile is the body of a version-2 checkpoint file.
type checkpointFile struct {
	Version    int             `json:"version"`
	T0         float64         `json:"t0"`
	Dt         float64         `json:"dt"`
	N          int             `json:"n"`
	Steps      int             `json:"steps"`
	Nodes      []nodeFile      `json:"nodes"`
	Integrator *integratorFile `json:"integrator,omitempty"`
	Coupling   *couplingFile   `json:"coupling,omitempty"`
}

type nodeFile struct {
	Name   string          `json:"name"`
	Type   string          `json:"type"`
	Layout []fieldSizeFile `json:"layout"`
	Params map[string]any  `json:"params,omitempty"`
	State  []float64       `json:"state"`
}

type fieldSizeFile struct {
	Name string `json:"name"`
	Size int    `json:"size"`
}

// integratorFile is MethodCheckpoint.
type integratorFile struct {
	Method   methodFile    `json:"method"`
	Adaptive bool          `json:"adaptive,omitempty"`
	Settings *settingsFile `json:"settings,omitempty"`
	State    stepperFile   `json:"state"`
}

// methodFile is integrators.Method; kind is one of methodKinds.
type methodFile struct {
	Name  string     `json:"name"`
	Order int        `json:"order"`
	Kind  string     `json:"kind"`
	Alpha *alphaFile `json:"alpha,omitempty"` // absent: all zero
}

var methodKinds = map[integrators.Kind]string{
	integrators.Explicit:   "explicit",
	integrators.Implicit:   "implicit",
	integrators.Structural: "structural",
	// A caller's Scheme: resumed only in a program that registered it
	// (integrators.Register) under the same name and order.
	integrators.UserDefined: "user-defined",
}

// The names of the settings' enumerations in the file (the zero value is
// written as an absent key, and its name is accepted too).
var (
	linearSolvers = map[integrators.LinearSolver]string{
		integrators.LinearAuto: "auto", integrators.LinearDense: "dense",
		integrators.LinearGMRES: "gmres", integrators.LinearBanded: "banded"}
	preconditioners = map[integrators.Preconditioner]string{
		integrators.PrecondBlockJacobi: "block-jacobi", integrators.PrecondILU0: "ilu0", integrators.PrecondNone: "none"}
	forcings = map[integrators.Forcing]string{
		integrators.ForcingEisenstatWalker: "eisenstat-walker", integrators.ForcingConstant: "constant"}
)

// enumName is v's name in the file, "" for the zero value.
func enumName[E comparable](v E, names map[E]string, what string) (string, error) {
	var zero E
	if v == zero {
		return "", nil
	}
	if n, ok := names[v]; ok {
		return n, nil
	}
	return "", fmt.Errorf("%s %v is not one the checkpoint format knows", what, v)
}

// enumValue is the value named s in the file ("" is the zero value).
func enumValue[E comparable](s string, names map[E]string, what string) (E, error) {
	var zero E
	if s == "" {
		return zero, nil
	}
	for v, n := range names {
		if n == s {
			return v, nil
		}
	}
	return zero, fmt.Errorf("unknown %s %q", what, s)
}

type alphaFile struct {
	AlphaM number `json:"alpha_m"`
	AlphaF number `json:"alpha_f"`
	Beta   number `json:"beta"`
	Gamma  number `json:"gamma"`
	RhoInf number `json:"rho_inf"`
}

// settingsFile is integrators.Settings without Output (sample times are
// not part of the trajectory). Absent keys are zero: the defaults.
// Positions, Velocities and IDs are written even when nil, because nil
// (the System's pairs; no IDs) and empty differ.
type settingsFile struct {
	RTol          number `json:"rtol,omitempty"`
	ATol          number `json:"atol,omitempty"`
	InitialStep   number `json:"initial_step,omitempty"`
	MinStep       number `json:"min_step,omitempty"`
	MaxStep       number `json:"max_step,omitempty"`
	MaxSteps      int    `json:"max_steps,omitempty"`
	FixedStep     number `json:"fixed_step,omitempty"`
	EventTol      number `json:"event_tol,omitempty"`
	ZenoLimit     int    `json:"zeno_limit,omitempty"`
	ZenoSpacing   number `json:"zeno_spacing,omitempty"`
	NewtonTol     number `json:"newton_tol,omitempty"`
	NewtonMaxIter int    `json:"newton_max_iter,omitempty"`
	// Linear solver of the Newton iterations; enums by name (linearSolvers,
	// preconditioners, forcings), absent for the zero value.
	LinearSolver   string `json:"linear_solver,omitempty"`
	Preconditioner string `json:"preconditioner,omitempty"`
	KrylovTol      number `json:"krylov_tol,omitempty"`
	KrylovRestart  int    `json:"krylov_restart,omitempty"`
	KrylovMaxIter  int    `json:"krylov_max_iter,omitempty"`
	Forcing        string `json:"forcing,omitempty"`
	MatrixFree     bool   `json:"matrix_free,omitempty"`
	JacobianMaxAge int    `json:"jacobian_max_age,omitempty"`

	Positions  []int   `json:"positions"`
	Velocities []int   `json:"velocities"`
	IDs        []int64 `json:"ids"`
}

// stepperFile is integrators.Checkpoint. Slices are written even when
// nil, so that nil and empty read back as they were.
type stepperFile struct {
	Method       string     `json:"method"`
	Alpha        *alphaFile `json:"alpha,omitempty"`
	IDs          []int64    `json:"ids"`
	Dim          int        `json:"dim"`
	Clock        clockFile  `json:"clock"`
	T            float64    `json:"t"`
	Y            []float64  `json:"y"`
	F            []float64  `json:"f"`
	A            []float64  `json:"a"`
	ZDot         []float64  `json:"z_dot"`
	H            number     `json:"h"`
	ErrPrev      number     `json:"err_prev"`
	LastRejected bool       `json:"last_rejected"`
	G            []float64  `json:"g"`
	Disarmed     []bool     `json:"disarmed"`
	ZenoCount    int        `json:"zeno_count"`
	LastEventT   number     `json:"last_event_t"`
	Stats        statsFile  `json:"stats"`
	// Jac is where the reused Newton matrix was assembled (GMRES on a
	// sparse Jacobian only).
	Jac *jacobianPointFile `json:"jac,omitempty"`
}

// jacobianPointFile is integrators.JacobianPoint.
type jacobianPointFile struct {
	T   float64   `json:"t"`
	Dt  float64   `json:"dt"`
	Y   []float64 `json:"y"`
	TE  float64   `json:"te"`
	YE  []float64 `json:"ye"`
	Age int       `json:"age"`
}

type clockFile struct {
	Base float64 `json:"base"`
	N    int     `json:"n"`
	Dt   float64 `json:"dt"`
}

type statsFile struct {
	Steps         int `json:"steps,omitempty"`
	Rejected      int `json:"rejected,omitempty"`
	FuncEvals     int `json:"func_evals,omitempty"`
	JacEvals      int `json:"jac_evals,omitempty"`
	NewtonIters   int `json:"newton_iters,omitempty"`
	LinearSolves  int `json:"linear_solves,omitempty"`
	LinearIters   int `json:"linear_iters,omitempty"`
	Factorize     int `json:"factorize,omitempty"`
	EventEvals    int `json:"event_evals,omitempty"`
	EventsHandled int `json:"events_handled,omitempty"`
}

// couplingFile is CouplingCheckpoint.
type couplingFile struct {
	Strategy string      `json:"strategy"`
	Groups   []groupFile `json:"groups,omitempty"`
}

type groupFile struct {
	Name  string    `json:"name"`
	Prev  []float64 `json:"prev,omitempty"` // absent: no previous interface yet
	Accel accelFile `json:"accel"`
}

// accelFile is coupling.AccelState.
type accelFile struct {
	Method    string      `json:"method"`
	Omega     float64     `json:"omega,omitempty"`
	Step      int         `json:"step,omitempty"`
	V         [][]float64 `json:"v,omitempty"`
	W         [][]float64 `json:"w,omitempty"`
	Tags      []int       `json:"tags,omitempty"`
	Fallbacks int         `json:"fallbacks,omitempty"`
	Dropped   int         `json:"dropped,omitempty"`
}

// number is a float64 that may be infinite: ±Inf are written as the
// strings "+Inf" and "-Inf" (JSON has no infinities; the adaptive
// controller's proposed step is +Inf when nothing bounds it), finite
// values exactly as encoding/json writes a float64. NaN is never valid.
type number float64

func (x number) MarshalJSON() ([]byte, error) {
	switch v := float64(x); {
	case math.IsInf(v, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Inf"`), nil
	default:
		return json.Marshal(v) // NaN: an error
	}
}

func (x *number) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		switch s {
		case "+Inf":
			*x = number(math.Inf(1))
		case "-Inf":
			*x = number(math.Inf(-1))
		default:
			return fmt.Errorf("number %q: want a JSON number, \"+Inf\" or \"-Inf\"", s)
		}
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*x = number(v)
	return nil
}

// toFile converts c to the version-2 schema.
func (c *Checkpoint) toFile() (*checkpointFile, error) {
	f := &checkpointFile{Version: CheckpointVersion, T0: c.T0, Dt: c.Dt, N: c.N, Steps: c.Steps,
		Nodes: make([]nodeFile, 0, len(c.Nodes))}
	for _, n := range c.Nodes {
		nf := nodeFile{Name: n.Name, Type: n.Type, Params: n.Params, State: n.State,
			Layout: make([]fieldSizeFile, 0, len(n.Layout))}
		for _, l := range n.Layout {
			nf.Layout = append(nf.Layout, fieldSizeFile{l.Name, l.Size})
		}
		f.Nodes = append(f.Nodes, nf)
	}
	if ic := c.Integrator; ic != nil {
		kind, ok := methodKinds[ic.Method.Kind]
		if !ok {
			return nil, fmt.Errorf("method %s has kind %d, which the checkpoint format does not know", ic.Method.Name, ic.Method.Kind)
		}
		set, err := settingsToFile(ic.Settings)
		if err != nil {
			return nil, err
		}
		f.Integrator = &integratorFile{
			Method:   methodFile{Name: ic.Method.Name, Order: ic.Method.Order, Kind: kind, Alpha: alphaToFile(ic.Method.Alpha)},
			Adaptive: ic.Adaptive,
			Settings: set,
			State:    stepperToFile(ic.State),
		}
	}
	if cc := c.Coupling; cc != nil {
		f.Coupling = &couplingFile{Strategy: cc.Strategy}
		for _, g := range cc.Groups {
			a := g.Accel
			f.Coupling.Groups = append(f.Coupling.Groups, groupFile{Name: g.Name, Prev: g.Prev, Accel: accelFile{
				Method: string(a.Accel), Omega: a.Omega, Step: a.Step, V: a.V, W: a.W, Tags: a.Tags,
				Fallbacks: a.Fallbacks, Dropped: a.Dropped}})
		}
	}
	return f, nil
}

// checkpoint converts a version-2 body to the in-memory form.
func (f *checkpointFile) checkpoint() (*Checkpoint, error) {
	c := &Checkpoint{Version: CheckpointVersion, T0: f.T0, Dt: f.Dt, N: f.N, Steps: f.Steps}
	for _, nf := range f.Nodes {
		n := NodeCheckpoint{Name: nf.Name, Type: nf.Type, Params: nf.Params, State: nf.State}
		for _, l := range nf.Layout {
			n.Layout = append(n.Layout, FieldSize{l.Name, l.Size})
		}
		c.Nodes = append(c.Nodes, n)
	}
	if fi := f.Integrator; fi != nil {
		var kind integrators.Kind
		found := false
		for k, name := range methodKinds {
			if name == fi.Method.Kind {
				kind, found = k, true
			}
		}
		if !found {
			return nil, fmt.Errorf("integrator method %q has unknown kind %q (want explicit, implicit, structural or user-defined)", fi.Method.Name, fi.Method.Kind)
		}
		m := integrators.Method{Name: fi.Method.Name, Order: fi.Method.Order, Kind: kind, Alpha: alphaFromFile(fi.Method.Alpha)}
		if kind == integrators.UserDefined {
			reg, err := integrators.ByName(fi.Method.Name)
			if err != nil || reg.Kind != integrators.UserDefined || reg.Name != fi.Method.Name || reg.Order != fi.Method.Order {
				return nil, fmt.Errorf("integrator method %q (order %d) is user-defined: register it (integrators.Register) under that name and order before reading the checkpoint", fi.Method.Name, fi.Method.Order)
			}
			m = reg
		}
		set, err := settingsFromFile(fi.Settings)
		if err != nil {
			return nil, err
		}
		c.Integrator = &MethodCheckpoint{
			Method:   m,
			Adaptive: fi.Adaptive,
			Settings: set,
			State:    stepperFromFile(fi.State),
		}
	}
	if fc := f.Coupling; fc != nil {
		c.Coupling = &CouplingCheckpoint{Strategy: fc.Strategy}
		for _, g := range fc.Groups {
			a := g.Accel
			c.Coupling.Groups = append(c.Coupling.Groups, GroupCheckpoint{Name: g.Name, Prev: g.Prev, Accel: coupling.AccelState{
				Accel: coupling.Accel(a.Method), Omega: a.Omega, Step: a.Step, V: a.V, W: a.W, Tags: a.Tags,
				Fallbacks: a.Fallbacks, Dropped: a.Dropped}})
		}
	}
	return c, nil
}

func alphaToFile(a integrators.AlphaParams) *alphaFile {
	if a == (integrators.AlphaParams{}) {
		return nil
	}
	return &alphaFile{AlphaM: number(a.AlphaM), AlphaF: number(a.AlphaF), Beta: number(a.Beta), Gamma: number(a.Gamma), RhoInf: number(a.RhoInf)}
}

func alphaFromFile(a *alphaFile) integrators.AlphaParams {
	if a == nil {
		return integrators.AlphaParams{}
	}
	return integrators.AlphaParams{AlphaM: float64(a.AlphaM), AlphaF: float64(a.AlphaF), Beta: float64(a.Beta), Gamma: float64(a.Gamma), RhoInf: float64(a.RhoInf)}
}

func settingsToFile(s *integrators.Settings) (*settingsFile, error) {
	if s == nil {
		return nil, nil
	}
	f := &settingsFile{
		RTol: number(s.RTol), ATol: number(s.ATol),
		InitialStep: number(s.InitialStep), MinStep: number(s.MinStep), MaxStep: number(s.MaxStep),
		MaxSteps: s.MaxSteps, FixedStep: number(s.FixedStep),
		EventTol: number(s.EventTol), ZenoLimit: s.ZenoLimit, ZenoSpacing: number(s.ZenoSpacing),
		NewtonTol: number(s.NewtonTol), NewtonMaxIter: s.NewtonMaxIter,
		KrylovTol: number(s.KrylovTol), KrylovRestart: s.KrylovRestart, KrylovMaxIter: s.KrylovMaxIter,
		MatrixFree: s.MatrixFree, JacobianMaxAge: s.JacobianMaxAge,
		Positions: slices.Clone(s.Positions), Velocities: slices.Clone(s.Velocities), IDs: slices.Clone(s.IDs),
	}
	var err [3]error
	f.LinearSolver, err[0] = enumName(s.LinearSolver, linearSolvers, "linear solver")
	f.Preconditioner, err[1] = enumName(s.Preconditioner, preconditioners, "preconditioner")
	f.Forcing, err[2] = enumName(s.Forcing, forcings, "forcing")
	return f, errors.Join(err[:]...)
}

func settingsFromFile(f *settingsFile) (*integrators.Settings, error) {
	if f == nil {
		return nil, nil
	}
	s := &integrators.Settings{
		RTol: float64(f.RTol), ATol: float64(f.ATol),
		InitialStep: float64(f.InitialStep), MinStep: float64(f.MinStep), MaxStep: float64(f.MaxStep),
		MaxSteps: f.MaxSteps, FixedStep: float64(f.FixedStep),
		EventTol: float64(f.EventTol), ZenoLimit: f.ZenoLimit, ZenoSpacing: float64(f.ZenoSpacing),
		NewtonTol: float64(f.NewtonTol), NewtonMaxIter: f.NewtonMaxIter,
		KrylovTol: float64(f.KrylovTol), KrylovRestart: f.KrylovRestart, KrylovMaxIter: f.KrylovMaxIter,
		MatrixFree: f.MatrixFree, JacobianMaxAge: f.JacobianMaxAge,
		Positions: f.Positions, Velocities: f.Velocities, IDs: f.IDs,
	}
	var err [3]error
	s.LinearSolver, err[0] = enumValue(f.LinearSolver, linearSolvers, "linear solver")
	s.Preconditioner, err[1] = enumValue(f.Preconditioner, preconditioners, "preconditioner")
	s.Forcing, err[2] = enumValue(f.Forcing, forcings, "forcing")
	if e := errors.Join(err[:]...); e != nil {
		return nil, e
	}
	return s, nil
}

func stepperToFile(c integrators.Checkpoint) stepperFile {
	st := c.Stats
	f := stepperFile{
		Method: c.Method, Alpha: alphaToFile(c.Alpha), IDs: c.IDs, Dim: c.Dim,
		Clock: clockFile{Base: c.Clock.Base, N: c.Clock.N, Dt: c.Clock.DT},
		T:     c.T, Y: c.Y, F: c.F, A: c.A, ZDot: c.ZDot,
		H: number(c.H), ErrPrev: number(c.ErrPrev), LastRejected: c.LastRejected,
		G: c.G, Disarmed: c.Disarmed, ZenoCount: c.ZenoCount, LastEventT: number(c.LastEventT),
		Stats: statsFile{Steps: st.Steps, Rejected: st.Rejected, FuncEvals: st.FuncEvals, JacEvals: st.JacEvals,
			NewtonIters: st.NewtonIters, LinearSolves: st.LinearSolves, LinearIters: st.LinearIters, Factorize: st.Factorize,
			EventEvals: st.EventEvals, EventsHandled: st.EventsHandled},
	}
	if j := c.Jac; j != nil {
		f.Jac = &jacobianPointFile{T: j.T, Dt: j.Dt, Y: j.Y, TE: j.TE, YE: j.YE, Age: j.Age}
	}
	return f
}

func stepperFromFile(f stepperFile) integrators.Checkpoint {
	st := f.Stats
	c := integrators.Checkpoint{
		Method: f.Method, Alpha: alphaFromFile(f.Alpha), IDs: f.IDs, Dim: f.Dim,
		Clock: integrators.Clock{Base: f.Clock.Base, N: f.Clock.N, DT: f.Clock.Dt},
		T:     f.T, Y: f.Y, F: f.F, A: f.A, ZDot: f.ZDot,
		H: float64(f.H), ErrPrev: float64(f.ErrPrev), LastRejected: f.LastRejected,
		G: f.G, Disarmed: f.Disarmed, ZenoCount: f.ZenoCount, LastEventT: float64(f.LastEventT),
		Stats: integrators.Stats{Steps: st.Steps, Rejected: st.Rejected, FuncEvals: st.FuncEvals, JacEvals: st.JacEvals,
			NewtonIters: st.NewtonIters, LinearSolves: st.LinearSolves, LinearIters: st.LinearIters, Factorize: st.Factorize,
			EventEvals: st.EventEvals, EventsHandled: st.EventsHandled},
	}
	if j := f.Jac; j != nil {
		c.Jac = &integrators.JacobianPoint{T: j.T, Dt: j.Dt, Y: j.Y, TE: j.TE, YE: j.YE, Age: j.Age}
	}
	return c
}
