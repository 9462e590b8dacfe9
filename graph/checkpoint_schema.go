package graph

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
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
// integrators convention: a zero option selects its default). Files
// written before it then read as before and the files this build writes
// are unchanged while the field is zero, so the format version stays.
// A field whose absence cannot keep the old meaning needs a new version
// and a converter from the old one. TestCheckpointSchemaCoversSettings
// fails when a built-in method's options, integrators.DriverOptions,
// integrators.StepperState or integrators.Work gain a field that the
// schema does not carry.

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
	Run        string          `json:"run,omitempty"`
}

type nodeFile struct {
	Name   string          `json:"name"`
	Type   string          `json:"type"`
	Layout []fieldSizeFile `json:"layout"`
	Params map[string]any  `json:"params,omitempty"`
	State  []float64       `json:"state"`
	// Hidden is the snapshot of a node.HiddenState node's own state
	// (base64), absent for every other node.
	Hidden []byte `json:"hidden,omitempty"`
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

// methodFile is an integrators.Method's identity: its name, declared
// order, kind (one of methodKinds) and, for the Newmark family, its
// parameters. Its options are in settingsFile.
type methodFile struct {
	Name  string     `json:"name"`
	Order int        `json:"order"`
	Kind  string     `json:"kind"`
	Alpha *alphaFile `json:"alpha,omitempty"` // absent: all zero
}

// methodKinds is the kind the file records for each built-in method, by
// name; every other method is "user-defined": resumed only in a program
// that registered it (integrators.Register) under the same name and
// order. The kinds are frozen: they were the values of the method struct's
// Kind field when the format was defined.
var methodKinds = map[string]string{
	integrators.MethodForwardEuler: "explicit", integrators.MethodSemiImplicitEuler: "explicit",
	integrators.MethodHeun: "explicit", integrators.MethodRK4: "explicit", integrators.MethodDormandPrince: "explicit",
	integrators.MethodBackwardEuler: "implicit", integrators.MethodImplicitTrapezoid: "implicit",
	integrators.MethodNewmark: "structural", integrators.MethodGeneralizedAlpha: "structural",
	integrators.MethodESDIRK43: "implicit", integrators.MethodESDIRK32: "implicit", integrators.MethodBDF: "implicit",
}

const userDefined = "user-defined"

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

// settingsFile holds a method's options (DormandPrince's controller, an
// implicit method's NewtonOptions and LinearOptions) and the
// integrators.DriverOptions, without Output (sample times are not part of
// the trajectory). Absent keys are zero: the defaults.
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
	// NewtonCoef (ESDIRK43, ESDIRK32, BDF) and MaxOrder (BDF).
	NewtonCoef number `json:"newton_coef,omitempty"`
	MaxOrder   int    `json:"max_order,omitempty"`
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

// stepperFile is integrators.StepperState. Slices are written even when
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
	// sparse Jacobian only), or the Jacobian of an adaptive implicit
	// method evaluated.
	Jac *jacobianPointFile `json:"jac,omitempty"`
	// Implicit is the further memory of the adaptive implicit methods.
	Implicit *implicitFile `json:"implicit,omitempty"`
}

// implicitFile is integrators.ImplicitState.
type implicitFile struct {
	SetupC    number      `json:"setup_c"`
	SetupAge  int         `json:"setup_age"`
	Rate      number      `json:"rate"`
	RateStep  number      `json:"rate_step"`
	Order     int         `json:"order"`
	NextOrder int         `json:"next_order"`
	Wait      int         `json:"wait"`
	Step      number      `json:"step"`
	NextStep  number      `json:"next_step"`
	EtaMax    number      `json:"eta_max"`
	Restart   bool        `json:"restart"`
	Tau       []float64   `json:"tau"`
	Z         [][]float64 `json:"z"`
	Saved     []float64   `json:"saved"`
	SavedTq5  number      `json:"saved_tq5"`
	Started   int         `json:"started"`
	StartT    []float64   `json:"start_t"`
	StartY    [][]float64 `json:"start_y"`
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
	if c.Err != nil {
		return nil, c.Err
	}
	f := &checkpointFile{Version: CheckpointVersion, T0: c.T0, Dt: c.Dt, N: c.N, Steps: c.Steps,
		Nodes: make([]nodeFile, 0, len(c.Nodes))}
	for _, n := range c.Nodes {
		nf := nodeFile{Name: n.Name, Type: n.Type, Params: n.Params, State: n.State, Hidden: n.Hidden,
			Layout: make([]fieldSizeFile, 0, len(n.Layout))}
		for _, l := range n.Layout {
			nf.Layout = append(nf.Layout, fieldSizeFile{l.Name, l.Size})
		}
		f.Nodes = append(f.Nodes, nf)
	}
	if ic := c.Integrator; ic != nil {
		mf, set, err := methodToFile(ic.Method, ic.Options)
		if err != nil {
			return nil, err
		}
		f.Integrator = &integratorFile{Method: mf, Adaptive: ic.Adaptive, Settings: set, State: stepperToFile(ic.State)}
	}
	f.Run = c.Run
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
		n := NodeCheckpoint{Name: nf.Name, Type: nf.Type, Params: nf.Params, State: nf.State, Hidden: nf.Hidden}
		for _, l := range nf.Layout {
			n.Layout = append(n.Layout, FieldSize{l.Name, l.Size})
		}
		c.Nodes = append(c.Nodes, n)
	}
	if fi := f.Integrator; fi != nil {
		m, o, err := methodFromFile(fi.Method, fi.Settings)
		if err != nil {
			return nil, err
		}
		c.Integrator = &MethodCheckpoint{Method: m, Adaptive: fi.Adaptive, Options: o, State: stepperFromFile(fi.State)}
	}
	c.Run = f.Run
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

// methodToFile converts a method and its driver options to the file's
// method and settings. The settings are absent (nil) when o is nil and
// every option of the method is zero, as for a run with the defaults.
func methodToFile(m integrators.Method, o *integrators.DriverOptions) (methodFile, *settingsFile, error) {
	if m == nil {
		return methodFile{}, nil, errors.New("integrator checkpoint without a method")
	}
	kind, ok := methodKinds[m.Name()]
	if !ok {
		kind = userDefined
	}
	mf := methodFile{Name: m.Name(), Order: m.Order(), Kind: kind}
	if so, ok := m.(integrators.SecondOrderMethod); ok {
		mf.Alpha = alphaToFile(so.Params())
	}
	var f settingsFile
	if am, ok := m.(integrators.AdaptiveMethod); ok {
		c := am.Control()
		f.RTol, f.ATol, f.InitialStep = number(c.RTol), number(c.ATol), number(c.InitialStep)
		f.MinStep, f.MaxStep = number(c.MinStep), number(c.MaxStep)
		if math.IsInf(c.MaxStep, 1) {
			f.MaxStep = 0 // the same bound, and one JSON can hold
		}
	}
	switch v := m.(type) {
	case integrators.DormandPrince:
		f.FixedStep = number(v.FixedStep)
	case integrators.ESDIRK43:
		f.NewtonCoef = number(v.NewtonCoef)
	case integrators.ESDIRK32:
		f.NewtonCoef = number(v.NewtonCoef)
	case integrators.BDF:
		f.NewtonCoef, f.MaxOrder = number(v.NewtonCoef), v.MaxOrder
	}
	var err [3]error
	if nm, ok := m.(integrators.NewtonMethod); ok {
		n, l := nm.Solver()
		f.NewtonTol, f.NewtonMaxIter = number(n.Tol), n.MaxIter
		f.KrylovTol, f.KrylovRestart, f.KrylovMaxIter = number(l.KrylovTol), l.KrylovRestart, l.KrylovMaxIter
		f.MatrixFree, f.JacobianMaxAge = l.MatrixFree, l.JacobianMaxAge
		f.LinearSolver, err[0] = enumName(l.Solver, linearSolvers, "linear solver")
		f.Preconditioner, err[1] = enumName(l.Preconditioner, preconditioners, "preconditioner")
		f.Forcing, err[2] = enumName(l.Forcing, forcings, "forcing")
	}
	if e := errors.Join(err[:]...); e != nil {
		return mf, nil, e
	}
	if o == nil && reflect.ValueOf(f).IsZero() {
		return mf, nil, nil
	}
	if o != nil {
		f.MaxSteps = o.MaxSteps
		f.EventTol, f.ZenoLimit, f.ZenoSpacing = number(o.EventTol), o.ZenoLimit, number(o.ZenoSpacing)
		f.Positions, f.Velocities, f.IDs = slices.Clone(o.Positions), slices.Clone(o.Velocities), slices.Clone(o.IDs)
	}
	return mf, &f, nil
}

// methodFromFile returns the method a file's method and settings
// describe, with its options, and the driver options (nil when the file
// has no settings). A built-in method's parameters must be what its
// constructor gives (Newmark: β and γ; generalized-alpha: ρ∞ and the α
// weights derived from it), and a method is given only options it has.
func methodFromFile(mf methodFile, f *settingsFile) (integrators.Method, *integrators.DriverOptions, error) {
	kind, builtin := methodKinds[mf.Name]
	switch {
	case mf.Kind != "explicit" && mf.Kind != "implicit" && mf.Kind != "structural" && mf.Kind != userDefined:
		return nil, nil, fmt.Errorf("integrator method %q has unknown kind %q (want explicit, implicit, structural or user-defined)", mf.Name, mf.Kind)
	case mf.Kind == userDefined && !builtin:
		reg, err := integrators.ByName(mf.Name)
		if err != nil || reg.Name() != mf.Name || reg.Order() != mf.Order {
			return nil, nil, fmt.Errorf("integrator method %q (order %d) is user-defined: register it (integrators.Register) under that name and order before reading the checkpoint", mf.Name, mf.Order)
		}
		if f != nil && f.methodOptionSet() {
			return nil, nil, fmt.Errorf("integrator method %q is user-defined: the checkpoint's Dormand–Prince or Newton settings do not apply to it", mf.Name)
		}
		return reg, f.driverOptions(), nil
	case !builtin:
		return nil, nil, fmt.Errorf("integrator method %q has kind %q, but it is not a built-in method (want user-defined)", mf.Name, mf.Kind)
	case mf.Kind != kind:
		return nil, nil, fmt.Errorf("integrator method %q has kind %q, want %q", mf.Name, mf.Kind, kind)
	}
	m, err := integrators.ByName(mf.Name)
	if err != nil {
		return nil, nil, err
	}
	a := alphaFromFile(mf.Alpha)
	switch m.(type) {
	case integrators.Newmark:
		m = integrators.Newmark{Beta: a.Beta, Gamma: a.Gamma}
	case integrators.GeneralizedAlpha:
		m = integrators.GeneralizedAlpha{RhoInf: a.RhoInf}
	default:
		if a != (integrators.AlphaParams{}) {
			return nil, nil, fmt.Errorf("integrator method %s has no parameters, the checkpoint gives %+v", mf.Name, a)
		}
	}
	if so, ok := m.(integrators.SecondOrderMethod); ok && so.Params() != a {
		return nil, nil, fmt.Errorf("integrator method %s: parameters %+v in the checkpoint, but %+v follow from them", mf.Name, a, so.Params())
	}
	if f != nil {
		if am, ok := m.(integrators.AdaptiveMethod); ok {
			m = am.WithControl(integrators.StepControl{RTol: float64(f.RTol), ATol: float64(f.ATol), InitialStep: float64(f.InitialStep),
				MinStep: float64(f.MinStep), MaxStep: float64(f.MaxStep)})
		} else if f.RTol != 0 || f.ATol != 0 || f.InitialStep != 0 || f.MinStep != 0 || f.MaxStep != 0 {
			return nil, nil, fmt.Errorf("integrator method %s: the checkpoint's adaptive settings (rtol, atol, initial_step, min_step, max_step) are those of the adaptive methods (Dormand–Prince's, ESDIRK's, BDF's)", mf.Name)
		}
		switch v := m.(type) {
		case integrators.DormandPrince:
			v.FixedStep = float64(f.FixedStep)
			m = v
		case integrators.ESDIRK43:
			v.NewtonCoef = float64(f.NewtonCoef)
			m = v
		case integrators.ESDIRK32:
			v.NewtonCoef = float64(f.NewtonCoef)
			m = v
		case integrators.BDF:
			v.NewtonCoef, v.MaxOrder = float64(f.NewtonCoef), f.MaxOrder
			m = v
		}
		if _, dp := m.(integrators.DormandPrince); !dp && f.FixedStep != 0 {
			return nil, nil, fmt.Errorf("integrator method %s: the checkpoint's fixed_step is Dormand–Prince's", mf.Name)
		}
		if _, bdf := m.(integrators.BDF); !bdf && f.MaxOrder != 0 {
			return nil, nil, fmt.Errorf("integrator method %s: the checkpoint's max_order is BDF's", mf.Name)
		}
		if f.NewtonCoef != 0 {
			switch m.(type) {
			case integrators.ESDIRK43, integrators.ESDIRK32, integrators.BDF:
			default:
				return nil, nil, fmt.Errorf("integrator method %s: the checkpoint's newton_coef is for the adaptive implicit methods", mf.Name)
			}
		}
		n := integrators.NewtonOptions{Tol: float64(f.NewtonTol), MaxIter: f.NewtonMaxIter}
		l := integrators.LinearOptions{KrylovTol: float64(f.KrylovTol), KrylovRestart: f.KrylovRestart, KrylovMaxIter: f.KrylovMaxIter,
			MatrixFree: f.MatrixFree, JacobianMaxAge: f.JacobianMaxAge}
		var err [3]error
		l.Solver, err[0] = enumValue(f.LinearSolver, linearSolvers, "linear solver")
		l.Preconditioner, err[1] = enumValue(f.Preconditioner, preconditioners, "preconditioner")
		l.Forcing, err[2] = enumValue(f.Forcing, forcings, "forcing")
		if e := errors.Join(err[:]...); e != nil {
			return nil, nil, e
		}
		if nm, ok := m.(integrators.NewtonMethod); ok {
			m = nm.WithSolver(n, l)
		} else if n != (integrators.NewtonOptions{}) || l != (integrators.LinearOptions{}) {
			return nil, nil, fmt.Errorf("integrator method %s is explicit: the checkpoint's Newton and linear-solver settings do not apply to it", mf.Name)
		}
	}
	if m.Order() != mf.Order {
		return nil, nil, fmt.Errorf("integrator method %s has order %d, the checkpoint says %d", mf.Name, m.Order(), mf.Order)
	}
	return m, f.driverOptions(), nil
}

// methodOptionSet reports whether f sets an option of a built-in method.
func (f *settingsFile) methodOptionSet() bool {
	g := *f
	g.MaxSteps, g.EventTol, g.ZenoLimit, g.ZenoSpacing = 0, 0, 0, 0
	g.Positions, g.Velocities, g.IDs = nil, nil, nil
	return !reflect.ValueOf(g).IsZero()
}

// driverOptions returns the DriverOptions of f (nil for nil).
func (f *settingsFile) driverOptions() *integrators.DriverOptions {
	if f == nil {
		return nil
	}
	return &integrators.DriverOptions{
		MaxSteps: f.MaxSteps,
		EventTol: float64(f.EventTol), ZenoLimit: f.ZenoLimit, ZenoSpacing: float64(f.ZenoSpacing),
		Positions: f.Positions, Velocities: f.Velocities, IDs: f.IDs,
	}
}

func stepperToFile(c integrators.StepperState) stepperFile {
	st := c.Work
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
	if h := c.Implicit; h != nil {
		f.Implicit = &implicitFile{SetupC: number(h.SetupC), SetupAge: h.SetupAge, Rate: number(h.Rate), RateStep: number(h.RateStep),
			Order: h.Order, NextOrder: h.NextOrder, Wait: h.Wait, Step: number(h.Step), NextStep: number(h.NextStep),
			EtaMax: number(h.EtaMax), Restart: h.Restart, Tau: h.Tau, Z: h.Z, Saved: h.Saved, SavedTq5: number(h.SavedTq5),
			Started: h.Started, StartT: h.StartT, StartY: h.StartY}
	}
	return f
}

func stepperFromFile(f stepperFile) integrators.StepperState {
	st := f.Stats
	c := integrators.StepperState{
		Method: f.Method, Alpha: alphaFromFile(f.Alpha), IDs: f.IDs, Dim: f.Dim,
		Clock: integrators.Clock{Base: f.Clock.Base, N: f.Clock.N, DT: f.Clock.Dt},
		T:     f.T, Y: f.Y, F: f.F, A: f.A, ZDot: f.ZDot,
		H: float64(f.H), ErrPrev: float64(f.ErrPrev), LastRejected: f.LastRejected,
		G: f.G, Disarmed: f.Disarmed, ZenoCount: f.ZenoCount, LastEventT: float64(f.LastEventT),
		Work: integrators.Work{Steps: st.Steps, Rejected: st.Rejected, FuncEvals: st.FuncEvals, JacEvals: st.JacEvals,
			NewtonIters: st.NewtonIters, LinearSolves: st.LinearSolves, LinearIters: st.LinearIters, Factorize: st.Factorize,
			EventEvals: st.EventEvals, EventsHandled: st.EventsHandled},
	}
	if j := f.Jac; j != nil {
		c.Jac = &integrators.JacobianPoint{T: j.T, Dt: j.Dt, Y: j.Y, TE: j.TE, YE: j.YE, Age: j.Age}
	}
	if h := f.Implicit; h != nil {
		c.Implicit = &integrators.ImplicitState{SetupC: float64(h.SetupC), SetupAge: h.SetupAge, Rate: float64(h.Rate), RateStep: float64(h.RateStep),
			Order: h.Order, NextOrder: h.NextOrder, Wait: h.Wait, Step: float64(h.Step), NextStep: float64(h.NextStep),
			EtaMax: float64(h.EtaMax), Restart: h.Restart, Tau: h.Tau, Z: h.Z, Saved: h.Saved, SavedTq5: float64(h.SavedTq5),
			Started: h.Started, StartT: h.StartT, StartY: h.StartY}
	}
	return c
}
