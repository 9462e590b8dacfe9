package verification

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

// Violation is one way a node breaks the node contract.
type Violation struct {
	Type  string // node type
	Check string // "spec", "scheme", "jacobian", "injection"
	Msg   string
}

func (v Violation) Error() string { return fmt.Sprintf("%s: %s: %s", v.Type, v.Check, v.Msg) }

// Note is something the conformance checker could not check and says so
// rather than skipping it silently: a parameter it has no valid
// different value for (a Function, free text, a range of one point), or
// whose perturbed value both construction and SetParams reject.
type Note struct {
	Type  string // node type
	Check string // "injection"
	Msg   string
}

func (n Note) String() string { return fmt.Sprintf("%s: %s: %s", n.Type, n.Check, n.Msg) }

// ConformanceReport is the outcome of CheckConformance: the violations of
// the node contract and the notes on what was not checked.
type ConformanceReport struct {
	Violations []error // each a Violation
	Notes      []Note
}

// SchemeFunc is the reference of a node-specific discretization that is
// not a method of the integrators package: given a node, a state, inputs
// and dt, it returns the reference next state.
type SchemeFunc func(n node.Node, x []float64, in node.Inputs, dt float64) ([]float64, error)

// builtinSchemes are the schemes CheckConformance knows without options:
// generic ones, defined on field roles or on any node's own Derivatives
// rather than on a node type (holdschemes.go: the exact solution with the
// inputs held, and exponential Euler, which signal and control blocks
// run).
var builtinSchemes = map[string]SchemeFunc{
	"semi-implicit-euler-lie": semiImplicitEulerLie,
	"exact-hold":              exactHold,
	"exponential-euler":       exponentialEuler,
}

// Schemes returns the names of the reference schemes CheckConformance
// knows without options, sorted; the caller owns the slice.
func Schemes() []string {
	names := make([]string, 0, len(builtinSchemes))
	for k := range builtinSchemes {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Option configures CheckConformance.
type Option func(*options)

type options struct {
	schemes map[string]SchemeFunc
}

// WithScheme holds nodes whose Metadata.Discretization is name to the
// reference ref (for example verification/gimbal's Reference for
// rigidbody's gimbal scheme), over a built-in scheme or integrators method
// of that name. The checker itself knows no concrete node: a node
// package's own scheme comes with the call.
func WithScheme(name string, ref SchemeFunc) Option {
	return func(o *options) {
		if o.schemes == nil {
			o.schemes = map[string]SchemeFunc{}
		}
		o.schemes[name] = ref
	}
}

// CheckConformance checks n against the node contract and reports every
// violation at once, with a note for whatever it could not check:
//
//   - spec: every state field, output and input has units and a
//     description; every parameter has a description and a default that
//     passes its own validation (Param.Check; Function parameters have
//     none); stateful nodes name a discretization and a positive
//     temporal order; stateless nodes name none; the declared order is
//     consistent (node.Order.Validate: a non-default bound has a reason);
//     metadata has an algorithm ID, version and summary.
//   - scheme: one Update from the given state matches the named scheme
//     applied to Derivatives (relative 1e-13: the same operations in a
//     possibly different association).
//   - jacobian: an analytic OutputsJacobian matches central finite
//     differences of Outputs, and an analytic DerivativesJacobian
//     (node.DerivativesJacobian) matches central finite differences of
//     Derivatives in the state and in the inputs (relative 1e-6 of the
//     Jacobian's scale: the O(h²) truncation at h = 1e-6 of an O(1)-scaled
//     argument, plus round-off of order ε/h ≈ 1e-10; each step is h times
//     max(1, |a_j|) of the argument it perturbs).
//   - injection: for every parameter, overriding it with SetParams gives
//     the same InitialState, Update, Derivatives and Outputs as building
//     the node with that value (fresh), bit for bit. Real and Vector
//     parameters are moved within their range, Bool negated, Integer
//     moved by ±1 within its range, Text set to another of its Choices.
//     A parameter with no valid different value (a Function, free text,
//     a one-point range) is a note, and so is a perturbed value that both
//     construction and SetParams reject; SetParams accepting a value that
//     construction rejects (or the reverse) is a violation. A structural
//     parameter (one a node names in StructuralParams() []string: a
//     signal size, units, a buffer length, which shape its spec) is
//     instead expected to be refused by SetParams with a
//     *node.ParamError when construction accepts the new value; SetParams
//     accepting it is a violation (the spec the graph was checked
//     against would no longer describe the node).
//
// fresh builds a node of the same type from a parameter map; x is a
// contact-free state to test at (nil: the initial state) and in its
// inputs (zero Inputs: the defaults). The scheme is an integrators method,
// a built-in scheme (Schemes) or one given WithScheme.
func CheckConformance(n node.Node, fresh func(map[string]any) (node.Node, error), x []float64, in node.Inputs, opts ...Option) ConformanceReport {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	s := n.Spec()
	var rep ConformanceReport
	bad := func(check, f string, a ...any) {
		rep.Violations = append(rep.Violations, Violation{Type: s.Type, Check: check, Msg: fmt.Sprintf(f, a...)})
	}
	// spec
	m := s.Meta
	if m.AlgorithmID == "" || m.Version == "" || m.Summary == "" {
		bad("spec", "metadata needs an algorithm ID, a version and a summary")
	}
	for _, f := range s.State {
		if f.Units == "" || f.Description == "" {
			bad("spec", "state field %q needs units (\"1\" when dimensionless) and a description", f.Name)
		}
	}
	for _, f := range s.Outputs {
		if f.Units == "" || f.Description == "" {
			bad("spec", "output %q needs units and a description", f.Name)
		}
	}
	for _, i := range s.Inputs {
		if i.Units == "" || i.Description == "" {
			bad("spec", "input %q needs units and a description", i.Name)
		}
	}
	for _, p := range s.Params {
		if p.Description == "" {
			bad("spec", "parameter %q needs a description", p.Name)
		}
		if p.Kind != node.Function {
			if _, err := p.Check(p.Default); err != nil {
				bad("spec", "default of parameter %q fails its own validation: %v", p.Name, err)
			}
		}
	}
	if err := m.Order.Validate(); err != nil {
		bad("spec", "declared order: %v", err)
	}
	stateful := s.StateLayout.Size() > 0
	switch {
	case stateful && (m.Discretization == "" || !(m.Order.Temporal > 0)):
		bad("spec", "a stateful node must name its discretization and a positive temporal order")
	case !stateful && m.Discretization != "":
		bad("spec", "a stateless node names discretization %q", m.Discretization)
	}
	if in.Values == nil {
		in = s.DefaultInputs()
	}
	if x == nil {
		x = make([]float64, s.StateLayout.Size())
		n.InitialState(x)
	}
	if stateful {
		rep.Violations = append(rep.Violations, checkScheme(n, x, in, o.schemes)...)
	}
	if oj, ok := node.As[node.OutputsJacobian](n); ok {
		rep.Violations = append(rep.Violations, checkOutputJacobian(n, oj, x, in)...)
	}
	if dj, ok := node.As[node.DerivativesJacobian](n); ok {
		rep.Violations = append(rep.Violations, checkDerivativesJacobian(n, dj, x, in)...)
	}
	if fresh != nil {
		errs, notes := injection(n, fresh, x, in)
		rep.Violations = append(rep.Violations, errs...)
		rep.Notes = append(rep.Notes, notes...)
	}
	return rep
}

const schemeDt = 1e-3

func checkScheme(n node.Node, x []float64, in node.Inputs, given map[string]SchemeFunc) []error {
	s := n.Spec()
	bad := func(f string, a ...any) []error {
		return []error{Violation{Type: s.Type, Check: "scheme", Msg: fmt.Sprintf(f, a...)}}
	}
	got := make([]float64, len(x))
	if err := n.Update(0, schemeDt, x, in, got); err != nil {
		return bad("Update: %v", err)
	}
	var want []float64
	ref, ok := given[s.Meta.Discretization]
	if !ok {
		ref, ok = builtinSchemes[s.Meta.Discretization]
	}
	if ok {
		w, err := ref(n, x, in, schemeDt)
		if err != nil {
			return bad("reference scheme %s: %v", s.Meta.Discretization, err)
		}
		want = w
	} else {
		method, err := integrators.ByName(s.Meta.Discretization)
		if err != nil {
			return bad("Metadata.Discretization %q is neither an integrators method nor a reference scheme (verification.Schemes, WithScheme): %v", s.Meta.Discretization, err)
		}
		sys, err := graph.NewNodeSystem(n)
		if err != nil {
			return bad("%v", err)
		}
		sys.In = in
		st, err := integrators.NewStepper(method, sys, nil)
		if err != nil {
			return bad("%s: %v", method.Name(), err)
		}
		if err := st.Init(0, x); err != nil {
			return bad("%s: %v", method.Name(), err)
		}
		if err := st.Step(schemeDt); err != nil {
			return bad("%s step: %v", method.Name(), err)
		}
		_, y := st.State()
		want = append([]float64(nil), y...)
	}
	for j := range got {
		if math.Abs(got[j]-want[j]) > 1e-13*math.Max(1, math.Abs(want[j])) {
			return bad("Update disagrees with %s applied to Derivatives at %s: %v, want %v (MADD-ANO-011 would be back)",
				s.Meta.Discretization, s.StateLayout.Component(j), got[j], want[j])
		}
	}
	return nil
}

// semiImplicitEulerLie is the reference for the 6-DOF rigid body: the
// vector fields advance by semi-implicit Euler on Derivatives (velocities
// first, then positions with the new velocities) and the unit quaternion
// by the exponential map of the new angular velocity,
// q' = exp(½·dt·ω')⊗q, normalised.
func semiImplicitEulerLie(n node.Node, x []float64, in node.Inputs, dt float64) ([]float64, error) {
	s := n.Spec()
	d, ok := node.As[node.Deriver](n)
	if !ok {
		return nil, errors.New("no Derivatives")
	}
	f := make([]float64, len(x))
	if err := d.Derivatives(0, x, in, f); err != nil {
		return nil, err
	}
	out := append([]float64(nil), x...)
	l := s.StateLayout
	for fi := 0; fi < l.Len(); fi++ {
		fd := l.Field(fi)
		if fd.Role == node.Position {
			continue
		}
		if fd.Shape.Len() == 4 { // the quaternion: below
			continue
		}
		off := l.Offset(fi)
		for k := 0; k < fd.Shape.Len(); k++ {
			out[off+k] = x[off+k] + dt*f[off+k]
		}
	}
	for fi := 0; fi < l.Len(); fi++ {
		fd := l.Field(fi)
		if fd.Role != node.Position {
			continue
		}
		po, vo := l.Offset(fi), l.Offset(l.Index(fd.Rate))
		for k := 0; k < fd.Shape.Len(); k++ {
			out[po+k] = x[po+k] + dt*out[vo+k]
		}
	}
	qi, wi := l.Index("orientation"), l.Index("angular_velocity")
	if qi < 0 || wi < 0 {
		return nil, errors.New("semi-implicit-euler-lie needs orientation (4) and angular_velocity (3) fields")
	}
	qo, wo := l.Offset(qi), l.Offset(wi)
	w := out[wo : wo+3]
	th := math.Sqrt(w[0]*w[0]+w[1]*w[1]+w[2]*w[2]) * dt / 2
	dq := [4]float64{1, 0, 0, 0}
	if th > 0 {
		sc := math.Sin(th) / (th / dt * 2)
		dq = [4]float64{math.Cos(th), sc * w[0], sc * w[1], sc * w[2]}
	}
	q := x[qo : qo+4]
	r := [4]float64{
		dq[0]*q[0] - dq[1]*q[1] - dq[2]*q[2] - dq[3]*q[3],
		dq[0]*q[1] + dq[1]*q[0] + dq[2]*q[3] - dq[3]*q[2],
		dq[0]*q[2] - dq[1]*q[3] + dq[2]*q[0] + dq[3]*q[1],
		dq[0]*q[3] + dq[1]*q[2] - dq[2]*q[1] + dq[3]*q[0],
	}
	nr := math.Sqrt(r[0]*r[0] + r[1]*r[1] + r[2]*r[2] + r[3]*r[3])
	for k := range r {
		out[qo+k] = r[k] / nr
	}
	return out, nil
}

func checkOutputJacobian(n node.Node, oj node.OutputsJacobian, x []float64, in node.Inputs) []error {
	s := n.Spec()
	out, ok := node.As[node.Outputter](n)
	if !ok {
		return []error{Violation{Type: s.Type, Check: "jacobian", Msg: "OutputsJacobian without Outputs"}}
	}
	ny := s.OutputLayout.Size()
	jac := make([]float64, ny*s.InputLayout.Size())
	if err := oj.OutputsJacobian(0, x, in, jac); err != nil {
		return []error{Violation{Type: s.Type, Check: "jacobian", Msg: err.Error()}}
	}
	u := append([]float64(nil), in.Values...)
	pin := node.Inputs{Values: u, Present: in.Present}
	errs, err := fdCheck(s.Type, "OutputsJacobian ∂y/∂u", jac, u, ny, func(dst []float64) error { return out.Outputs(0, x, pin, dst) },
		s.OutputLayout.Component, s.InputLayout.Component)
	if err != nil {
		return []error{Violation{Type: s.Type, Check: "jacobian", Msg: err.Error()}}
	}
	return errs
}

// jacobianTol is the finite-difference acceptance of an analytic
// Jacobian: relative 1e-6 of the Jacobian's largest entry (at least 1);
// jacobianStep the relative central-difference step (of max(1, |a_j|)).
const jacobianTol, jacobianStep = 1e-6, 1e-6

// fdCheck compares an analytic Jacobian jac (nrow × len(arg), row-major)
// with central differences of eval, which writes nrow values into dst,
// in the components of arg (perturbed in place and restored). It returns a
// violation for every entry off by more than jacobianTol of the
// Jacobian's scale, or eval's error.
func fdCheck(typ, name string, jac, arg []float64, nrow int, eval func(dst []float64) error, row, col func(int) string) ([]error, error) {
	ncol := len(arg)
	scale := 1.0
	for _, v := range jac {
		scale = math.Max(scale, math.Abs(v))
	}
	plus, minus := make([]float64, nrow), make([]float64, nrow)
	var errs []error
	for j := 0; j < ncol; j++ {
		a0 := arg[j]
		h := jacobianStep * math.Max(1, math.Abs(a0))
		arg[j] = a0 + h
		err := eval(plus)
		if err == nil {
			arg[j] = a0 - h
			err = eval(minus)
		}
		arg[j] = a0
		if err != nil {
			return nil, err
		}
		for i := 0; i < nrow; i++ {
			fd := (plus[i] - minus[i]) / (2 * h)
			if math.Abs(fd-jac[i*ncol+j]) > jacobianTol*scale {
				errs = append(errs, Violation{Type: typ, Check: "jacobian", Msg: fmt.Sprintf(
					"%s: ∂%s/∂%s = %v analytic, %v by finite differences", name, row(i), col(j), jac[i*ncol+j], fd)})
			}
		}
	}
	return errs, nil
}

func checkDerivativesJacobian(n node.Node, dj node.DerivativesJacobian, x []float64, in node.Inputs) []error {
	s := n.Spec()
	bad := func(f string, a ...any) []error {
		return []error{Violation{Type: s.Type, Check: "jacobian", Msg: fmt.Sprintf(f, a...)}}
	}
	d, ok := node.As[node.Deriver](n)
	if !ok {
		return bad("DerivativesJacobian without Derivatives")
	}
	nx, nu := s.StateLayout.Size(), s.InputLayout.Size()
	jx, ju := make([]float64, nx*nx), make([]float64, nx*nu)
	if err := dj.DerivativesJacobian(0, x, in, jx, ju); err != nil {
		return bad("DerivativesJacobian: %v", err)
	}
	rowName := func(i int) string { return "f(" + s.StateLayout.Component(i) + ")" }
	xs := append([]float64(nil), x...)
	errs, err := fdCheck(s.Type, "DerivativesJacobian ∂f/∂x", jx, xs, nx, func(dst []float64) error { return d.Derivatives(0, xs, in, dst) },
		rowName, s.StateLayout.Component)
	if err != nil {
		return bad("Derivatives: %v", err)
	}
	if nu > 0 {
		u := append([]float64(nil), in.Values...)
		pin := node.Inputs{Values: u, Present: in.Present}
		more, err := fdCheck(s.Type, "DerivativesJacobian ∂f/∂u", ju, u, nx, func(dst []float64) error { return d.Derivatives(0, x, pin, dst) },
			rowName, s.InputLayout.Component)
		if err != nil {
			return bad("Derivatives: %v", err)
		}
		errs = append(errs, more...)
	}
	return errs
}

// perturb returns a valid value of p different from v, or nil.
func perturb(p node.Param, v any) any {
	if cs := perturbations(p, v); len(cs) > 0 {
		return cs[0]
	}
	return nil
}

// perturbations returns the values of p different from v that pass
// p.Check, in order of preference (a node-specific rule may still reject
// some: the injection check tries them in turn).
func perturbations(p node.Param, v any) []any {
	var out []any
	try := func(c any) any {
		if r, err := p.Check(c); err == nil && !reflect.DeepEqual(r, v) {
			for _, o := range out {
				if reflect.DeepEqual(o, r) {
					return nil
				}
			}
			out = append(out, r)
		}
		return nil
	}
	switch p.Kind {
	case node.Real:
		x := v.(float64)
		for _, c := range []float64{x + 0.25, x * 0.5, x - 0.25, x * 1.5, 0.5} {
			try(c)
		}
	case node.Vector:
		xs := v.([]float64)
		// Distinct component shifts first (they catch swapped
		// components), then a uniform shift and scalings, which keep
		// structure such as a symmetric matrix.
		for _, c := range []func(i int, x float64) float64{
			func(i int, x float64) float64 { return x + 0.25*float64(i+1) },
			func(i int, x float64) float64 { return x - 0.25*float64(i+1) },
			func(i int, x float64) float64 { return x + 0.25 },
			func(i int, x float64) float64 { return x * 1.5 },
			func(i int, x float64) float64 { return x * 0.5 },
		} {
			cs := make([]float64, len(xs))
			for i, x := range xs {
				cs[i] = c(i, x)
			}
			try(cs)
		}
	case node.Bool:
		try(!v.(bool))
	case node.Integer:
		k := v.(int)
		for _, c := range []int{k + 1, k - 1} {
			try(c)
		}
	case node.Text:
		for _, c := range p.Choices {
			try(c)
		}
	}
	return out
}

// unperturbable says why perturb found no value for p.
func unperturbable(p node.Param) string {
	switch p.Kind {
	case node.Function:
		return "a Function parameter has no value to compare"
	case node.Text:
		if len(p.Choices) == 0 {
			return "free text without Choices: no valid different value is known"
		}
		return "no other accepted Choice"
	}
	return "no valid different value in " + p.Valid()
}

func checkInjection(n node.Node, fresh func(map[string]any) (node.Node, error), x []float64, in node.Inputs) []error {
	errs, _ := injection(n, fresh, x, in)
	return errs
}

// injection is the injection check: its violations and its notes.
func injection(n node.Node, fresh func(map[string]any) (node.Node, error), x []float64, in node.Inputs) ([]error, []Note) {
	s := n.Spec()
	tn, ok := node.As[node.Tunable](n)
	if !ok {
		return nil, nil
	}
	var errs []error
	var notes []Note
	note := func(f string, a ...any) {
		notes = append(notes, Note{Type: s.Type, Check: "injection", Msg: fmt.Sprintf(f, a...)})
	}
	violation := func(f string, a ...any) {
		errs = append(errs, Violation{Type: s.Type, Check: "injection", Msg: fmt.Sprintf(f, a...)})
	}
	base := tn.Params()
	var fixed []string
	if sp, ok := node.As[structural](n); ok {
		fixed = sp.StructuralParams()
	}
	for _, p := range s.Params {
		if slices.Contains(fixed, p.Name) {
			if msg := checkStructural(p, base[p.Name], fresh); msg != "" {
				violation("%s", msg)
			} else {
				note("parameter %q is structural: SetParams refuses to change it, as it should; checked by construction only", p.Name)
			}
			continue
		}
		var cands []any
		if p.Kind != node.Function {
			cands = perturbations(p, base[p.Name])
		}
		if len(cands) == 0 {
			note("parameter %q not checked: %s", p.Name, unperturbable(p))
			continue
		}
		var rejected []string
		for _, v := range cands {
			over, err := fresh(nil)
			if err != nil {
				return []error{Violation{Type: s.Type, Check: "injection", Msg: err.Error()}}, notes
			}
			setErr := over.(node.Tunable).SetParams(map[string]any{p.Name: v})
			built, err := fresh(map[string]any{p.Name: v})
			switch {
			case err != nil && setErr != nil:
				// The value breaks a node-specific rule (one Param.Check
				// cannot state): try the next.
				rejected = append(rejected, fmt.Sprintf("%s (%v)", node.FormatValue(v), err))
				continue
			case err != nil:
				violation("SetParams(%s = %s) succeeds where building with it fails: %v", p.Name, node.FormatValue(v), err)
			case setErr != nil:
				violation("SetParams(%s = %s) fails where building with it succeeds: %v", p.Name, node.FormatValue(v), setErr)
			default:
				if diff := compareBehaviour(over, built, x, in); diff != "" {
					violation("overriding %s = %s with SetParams differs from building with it: %s", p.Name, node.FormatValue(v), diff)
				}
			}
			rejected = nil
			break
		}
		if len(rejected) > 0 {
			note("parameter %q not checked: every perturbed value is rejected by construction and by SetParams alike: %s", p.Name, strings.Join(rejected, "; "))
		}
	}
	return errs, notes
}

// structural is implemented by a node some of whose parameters shape its
// spec (a signal size, units, a buffer length): SetParams refuses to
// change them. It needs no import of this package.
type structural interface {
	StructuralParams() []string
}

// checkStructural checks that SetParams refuses every perturbed value of
// the structural parameter p that construction accepts, with a
// *node.ParamError naming p; it returns a description of the first
// failure, or "".
func checkStructural(p node.Param, v any, fresh func(map[string]any) (node.Node, error)) string {
	if p.Kind == node.Function {
		return ""
	}
	for _, c := range perturbations(p, v) {
		if _, err := fresh(map[string]any{p.Name: c}); err != nil {
			continue
		}
		over, err := fresh(nil)
		if err != nil {
			return err.Error()
		}
		err = over.(node.Tunable).SetParams(map[string]any{p.Name: c})
		var pe *node.ParamError
		if !errors.As(err, &pe) || pe.Param != p.Name {
			return fmt.Sprintf("SetParams(%s = %s) on a structural parameter returned %v, want a *node.ParamError naming %s", p.Name, node.FormatValue(c), err, p.Name)
		}
	}
	return ""
}

// compareBehaviour runs InitialState, Update, Derivatives and Outputs of
// a and b and describes the first difference, bit for bit.
func compareBehaviour(a, b node.Node, x []float64, in node.Inputs) string {
	s := a.Spec()
	nx, ny := s.StateLayout.Size(), s.OutputLayout.Size()
	type run struct {
		name string
		f    func(n node.Node, dst []float64) error
		size int
	}
	runs := []run{
		{"InitialState", func(n node.Node, dst []float64) error { n.InitialState(dst); return nil }, nx},
		{"Update", func(n node.Node, dst []float64) error { return n.Update(0, schemeDt, x, in, dst) }, nx},
		{"Derivatives", func(n node.Node, dst []float64) error {
			if d, ok := node.As[node.Deriver](n); ok {
				return d.Derivatives(0, x, in, dst)
			}
			return nil
		}, nx},
		{"Outputs", func(n node.Node, dst []float64) error {
			if o, ok := node.As[node.Outputter](n); ok {
				return o.Outputs(0, x, in, dst)
			}
			return nil
		}, ny},
	}
	var msgs []string
	for _, r := range runs {
		da, db := make([]float64, r.size), make([]float64, r.size)
		ea, eb := r.f(a, da), r.f(b, db)
		if (ea == nil) != (eb == nil) {
			msgs = append(msgs, fmt.Sprintf("%s errors %v vs %v", r.name, ea, eb))
			continue
		}
		for j := range da {
			if math.Float64bits(da[j]) != math.Float64bits(db[j]) {
				msgs = append(msgs, fmt.Sprintf("%s[%d] %v vs %v", r.name, j, da[j], db[j]))
				break
			}
		}
	}
	return strings.Join(msgs, "; ")
}
