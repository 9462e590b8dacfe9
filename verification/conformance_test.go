package verification

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/rigidbody"
	"github.com/cosimgo/cosim/nodes/springdamper"
	"github.com/cosimgo/cosim/verification/gimbal"
)

// conformanceParams gives every registered type a contact-free,
// non-trivial state to be checked at (moving, rotating, loaded). A new
// node type must be added here: the test fails for a type it does not
// know, so no type escapes the check.
var conformanceParams = map[string]map[string]any{
	"ball":      {"initial_position": 2.0, "initial_velocity": 0.5, "gravity": -3.0},
	"constant":  {"value": []float64{0, -5, 0}},
	"masspoint": {"mass": 2.0, "initial_position": []float64{1, 2, 3}, "initial_velocity": []float64{0.5, -1, 2}, "gravity": []float64{0, 0, -9.81}},
	"rigidbody": {"mass": 3.0, "inertia": []float64{1, 2, 3}, "initial_orientation": []float64{0.9, 0.1, -0.2, 0.3},
		"initial_velocity": []float64{1, 0, -1}, "initial_angular_velocity": []float64{0.3, -0.7, 1.1}, "gravity": []float64{0, 0, -9.81}},
	"rigidbody2d":  {"mass": 2.0, "inertia": 0.5, "initial_vx": 1.0, "initial_vy": -2.0, "initial_omega": 0.7},
	"springdamper": {"stiffness": []float64{100, 200, 300}, "damping": []float64{1, 2, 3}, "offset": []float64{0.1, 0, -0.1}},
	"table":        {"position": 0.25},
	"sine":         {"amplitude": []float64{2, 3}, "omega": []float64{1.5}, "phase": []float64{0.1, 0.2}, "offset": []float64{-1}},
	"step":         {"time": 0.5, "initial": []float64{1, 2, 3}, "final": []float64{-1}},
	"ramp":         {"start": 0.2, "slope": []float64{2, -1}, "offset": []float64{0.5}},
	"pulse":        {"period": 2.0, "width": 0.5, "delay": 0.1, "amplitude": []float64{3}, "offset": []float64{1}},
	"lookup":       {"times": []float64{0, 0.5, 1.5}, "values": []float64{0, 1, 3, 2, 1, 0}, "interpolation": "pchip", "outside": "extrapolate"},
	"spring":       {"stiffness": 120.0, "damping": 1.5, "rest_length": 0.4},
	// Control blocks: vector signals, every branch of a block's formula
	// that a default would skip (a saturated component, a limited PID
	// output driving its back-calculation, a biproper state space).
	"gain":        {"size": 2, "gain": []float64{2, -3}},
	"sum":         {"signs": "+-+", "size": 2},
	"product":     {"ops": "*/", "size": 2},
	"saturation":  {"lower": []float64{-0.15, -1}, "upper": []float64{0.15, 0.1}, "size": 2},
	"deadzone":    {"lower": []float64{-0.15, -1}, "upper": []float64{0.15, 0.1}, "size": 2},
	"switch":      {"threshold": 0.1, "size": 2},
	"integrator":  {"gain": []float64{2, -1}, "initial": []float64{0.5, -0.25}, "size": 2, "limit_output": true, "lower": -2.0, "upper": 2.0},
	"lag":         {"gain": 2.0, "time_constant": 0.05, "initial": 0.3},
	"derivative":  {"gain": 1.5, "time_constant": 0.02, "initial_input": 0.05},
	"ratelimiter": {"rising": 2.0, "falling": 3.0, "time_constant": 0.05, "initial": 0.08},
	"pid": {"kp": 2.0, "ki": 1.5, "kd": 0.3, "tf": 0.05, "setpoint_weight": 0.8, "derivative_weight": 0.5, "kb": 2.0,
		"limit_output": true, "lower": -0.5, "upper": 0.5, "retune_time": 0.2, "initial_integral": 0.4, "initial_filter_input": 0.1},
	"transferfunction": {"numerator": []float64{2, 3}, "denominator": []float64{1, 3, 2.5, 1}, "initial_input": 0.2},
	"statespace":       {"a": []float64{-1, 2, -3, -4}, "b": []float64{1, 0.5}, "c": []float64{1, -1}, "d": []float64{0.3}, "initial": []float64{0.1, -0.2}},
	"zoh":              {"sample_time": 0.25, "offset": 0.5, "initial": 0.3},
	"unitdelay":        {"sample_time": 0.25, "offset": 0.5, "initial": 0.3},
	"transportdelay":   {"delay": 0.5, "samples": 10, "initial": 0.2},
}

// conformanceStates gives the state to check at for the types whose
// initial state is not a fair one: a transport delay's first history
// sample falls due at t = 0, where its Update takes it, which is a
// sample map and not the continuous scheme the check compares with; it
// is checked just after taking that sample. Other types are checked at
// their initial state (nil).
var conformanceStates = map[string]func(n node.Node, in node.Inputs) ([]float64, error){
	"transportdelay": func(n node.Node, in node.Inputs) ([]float64, error) {
		x := make([]float64, n.Spec().StateLayout.Size())
		n.InitialState(x)
		next := make([]float64, len(x))
		return next, n.Update(0, 1e-3, x, in, next)
	},
}

// conformanceState returns the state of typ to check n at (see
// conformanceStates): nil for the initial state.
func conformanceState(t *testing.T, typ string, n node.Node, in node.Inputs) []float64 {
	t.Helper()
	f, ok := conformanceStates[typ]
	if !ok {
		return nil
	}
	x, err := f(n, in)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// freshFor builds nodes of typ from base parameters overridden by over.
func freshFor(reg *node.Registry, typ string, base map[string]any) func(over map[string]any) (node.Node, error) {
	return func(over map[string]any) (node.Node, error) {
		m := map[string]any{}
		maps.Copy(m, base)
		maps.Copy(m, over)
		return reg.New(typ, m)
	}
}

// loaded returns inputs with every present input set to distinct,
// non-zero values (absent inputs stay absent: the ball without a table is
// contact-free).
func loaded(s *node.Spec) node.Inputs {
	in := s.DefaultInputs()
	for j := range in.Values {
		in.Values[j] = 0.1 * float64(j+1)
	}
	return in
}

// TestConformance runs the conformance checker over every registered
// node type: spec consistency, Update against its named scheme applied to
// Derivatives, analytic Jacobians against finite differences, and
// parameter injection honoured by Update and Derivatives alike.
func TestConformance(t *testing.T) {
	reg := nodes.Registry()
	for _, typ := range reg.Names() {
		t.Run(typ, func(t *testing.T) {
			base, ok := conformanceParams[typ]
			if !ok {
				t.Fatalf("node type %q has no conformance state: add it to conformanceParams", typ)
			}
			fresh := freshFor(reg, typ, base)
			n, err := fresh(nil)
			if err != nil {
				t.Fatal(err)
			}
			in := loaded(n.Spec())
			rep := CheckConformance(n, fresh, conformanceState(t, typ, n, in), in, WithScheme(gimbal.Name, gimbal.ReferenceStep))
			for _, err := range rep.Violations {
				t.Error(err)
			}
			for _, nt := range rep.Notes {
				t.Log("not checked:", nt)
			}
		})
	}
}

// The 6-DOF body holding one rotation runs the gimbal scheme
// (rigidbody.DiscretizationGimbal); the checker holds it to the
// independent reference verification/gimbal supplies (WithScheme), and
// without that option reports that it knows no such scheme.
func TestConformanceGimbal(t *testing.T) {
	reg := nodes.Registry()
	for _, c := range []string{"rx=0.3", "ry=-0.4", "rz=0.7", "z=1,rz=-2"} {
		base := maps.Clone(conformanceParams["rigidbody"])
		base["constraints"] = c
		fresh := freshFor(reg, "rigidbody", base)
		n, err := fresh(nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := n.Spec().Meta.Discretization; d != rigidbody.DiscretizationGimbal {
			t.Fatalf("%s: discretization %q", c, d)
		}
		for _, err := range CheckConformance(n, fresh, nil, loaded(n.Spec()), WithScheme(gimbal.Name, gimbal.ReferenceStep)).Violations {
			t.Errorf("%s: %v", c, err)
		}
	}
}

// The checker knows no concrete node: without verification/gimbal's
// reference a gimbal body's scheme is unknown, and the report says so
// rather than passing; the built-in schemes are generic ones only.
func TestConformanceKnowsNoNodeScheme(t *testing.T) {
	reg := nodes.Registry()
	base := maps.Clone(conformanceParams["rigidbody"])
	base["constraints"] = "rz=0.7"
	fresh := freshFor(reg, "rigidbody", base)
	n, err := fresh(nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, err := range CheckConformance(n, fresh, nil, loaded(n.Spec())).Violations {
		found = found || strings.Contains(err.Error(), "neither an integrators method nor a reference scheme")
	}
	if !found {
		t.Errorf("a gimbal body without WithScheme passed the scheme check")
	}
	if got := Schemes(); slices.Contains(got, gimbal.Name) {
		t.Errorf("Schemes() = %v names a node's own scheme", got)
	}
	s := Schemes()
	s[0] = "changed"
	if Schemes()[0] == "changed" {
		t.Errorf("Schemes returns the package's table, not a copy")
	}
}

// The spring-damper between a point mass and a rigid body's off-centre
// point: the connector's Jacobian through real markers, and injection
// with markers kept.
func TestConformanceConnectorWithBodies(t *testing.T) {
	mp, err := masspoint.New(masspoint.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	rb, err := rigidbody.New(rigidbody.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	fresh := func(over map[string]any) (node.Node, error) {
		p := springdamper.DefaultParams()
		p.Stiffness, p.Damping, p.Offset = [3]float64{100, 200, 300}, [3]float64{1, 2, 3}, [3]float64{0.1, 0, -0.1}
		n, err := springdamper.New(p, node.At(mp, [3]float64{}), node.At(rb, [3]float64{0.3, -0.2, 0.1}))
		if err != nil {
			return nil, err
		}
		if len(over) > 0 {
			err = n.SetParams(over)
		}
		return n, err
	}
	n, err := fresh(nil)
	if err != nil {
		t.Fatal(err)
	}
	in := loaded(n.Spec())
	// A unit quaternion for the rigid body's orientation input.
	q := n.Spec().InputOffset("m1_orientation")
	copy(in.Values[q:q+4], []float64{0.5, 0.5, -0.5, 0.5})
	rep := CheckConformance(n, fresh, nil, in)
	for _, err := range rep.Violations {
		t.Error(err)
	}
	// The user force law is a Go function, the one parameter injection
	// cannot compare; the integer item is perturbed (+1) and compared.
	for _, nt := range rep.Notes {
		t.Log("not checked:", nt)
		if strings.Contains(nt.Msg, `"item"`) {
			t.Errorf("the Integer parameter item was not perturbed: %v", nt)
		}
	}
}

// The checker catches what it claims to: a node whose metadata names
// forward Euler while Update runs semi-implicit Euler (the MADDENING BallNode guide's
// MADD-ANO-011) is a scheme violation.
func TestConformanceCatchesMislabel(t *testing.T) {
	n, err := nodes.Registry().New("masspoint", conformanceParams["masspoint"])
	if err != nil {
		t.Fatal(err)
	}
	bad := mislabeled{n, node.NewSpec(func() node.Spec { s := *n.Spec(); s.Meta.Discretization = "forward-euler"; return s }())}
	errs := CheckConformance(bad, nil, nil, loaded(bad.Spec())).Violations
	var v Violation
	if len(errs) == 0 || !errors.As(errs[0], &v) || v.Check != "scheme" {
		t.Fatalf("mislabelled node passed: %v", errs)
	}
}

type mislabeled struct {
	node.Node
	spec *node.Spec
}

func (m mislabeled) Spec() *node.Spec  { return m.spec }
func (m mislabeled) Unwrap() node.Node { return m.Node }

// decay is a test-local node for the checker's negative tests:
// x' = −k·x + u, advanced by forward Euler, with an analytic
// DerivativesJacobian. Each flaw breaks one clause of the contract.
type decay struct {
	spec    *node.Spec
	vals    node.Values
	kUpdate float64 // the k Update uses
	flaw    decayFlaw
}

type decayFlaw int

const (
	decayCorrect       decayFlaw = iota
	decayWrongJacobian           // ∂f/∂x with the wrong sign
	decayStaleUpdate             // SetParams(k) reaches Derivatives but not Update
)

var decayParams = []node.Param{{Name: "k", Kind: node.Real, Default: 1.0, Units: "1/s", Description: "decay rate", Range: node.Positive()}}

// decaySpec is the decay node's spec declaring order o.
func decaySpec(o node.Order) *node.Spec {
	return node.NewSpec(node.Spec{
		Type:   "decay",
		State:  []node.Field{{Name: "x", Units: "m", Description: "decaying quantity"}},
		Params: decayParams,
		Inputs: []node.Input{{Name: "u", Units: "m/s", Description: "source rate", Default: []float64{0}}},
		Meta: node.Metadata{AlgorithmID: "TEST-DECAY", Version: "1.0.0", Summary: "x' = −k·x + u by forward Euler",
			Discretization: "forward-euler", Order: o},
	})
}

func newDecay(spec *node.Spec, flaw decayFlaw, params map[string]any) (node.Node, error) {
	v, err := node.Resolve("decay", spec.Params, nil, params)
	if err != nil {
		return nil, err
	}
	return &decay{spec: spec, vals: v, kUpdate: v.Float("k"), flaw: flaw}, nil
}

// decayFresh is the fresh builder CheckConformance wants.
func decayFresh(spec *node.Spec, flaw decayFlaw) func(map[string]any) (node.Node, error) {
	return func(p map[string]any) (node.Node, error) { return newDecay(spec, flaw, p) }
}

func (d *decay) Spec() *node.Spec           { return d.spec }
func (d *decay) InitialState(dst []float64) { dst[0] = 1 }
func (d *decay) Params() node.Values        { return maps.Clone(d.vals) }

func (d *decay) SetParams(p map[string]any) error {
	v, err := node.Resolve("decay", d.spec.Params, d.vals, p)
	if err != nil {
		return err
	}
	d.vals = v
	if d.flaw != decayStaleUpdate {
		d.kUpdate = v.Float("k")
	}
	return nil
}

func (d *decay) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = x[0] + dt*(-d.kUpdate*x[0]+in.Values[0])
	return nil
}

func (d *decay) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = -d.vals.Float("k")*x[0] + in.Values[0]
	return nil
}

func (d *decay) DerivativesJacobian(t float64, x []float64, in node.Inputs, dstX, dstU []float64) error {
	dfdx := -d.vals.Float("k")
	if d.flaw == decayWrongJacobian {
		dfdx = -dfdx
	}
	if dstX != nil {
		dstX[0] = dfdx
	}
	if dstU != nil {
		dstU[0] = 1
	}
	return nil
}

// checksOf returns the Check of every violation, failing on an error
// that is not a Violation.
func checksOf(t *testing.T, errs []error) []string {
	t.Helper()
	var out []string
	for _, err := range errs {
		var v Violation
		if !errors.As(err, &v) {
			t.Fatalf("%v is not a Violation", err)
		}
		out = append(out, v.Check)
	}
	return out
}

// The control of the negative tests below: the correct decay node
// passes every check, including its DerivativesJacobian against finite
// differences and the injection of k.
func TestConformanceDecayControl(t *testing.T) {
	spec := decaySpec(node.Order{Temporal: 1})
	n, err := newDecay(spec, decayCorrect, map[string]any{"k": 2.0})
	if err != nil {
		t.Fatal(err)
	}
	rep := CheckConformance(n, decayFresh(spec, decayCorrect), []float64{0.7}, node.Inputs{Values: []float64{0.3}, Present: []bool{true}})
	if len(rep.Violations) > 0 || len(rep.Notes) > 0 {
		t.Fatalf("correct decay node: violations %v, notes %v", rep.Violations, rep.Notes)
	}
}

// The spec check catches a state field without units, a parameter
// default that fails its own validation (NewSpec panics on one, so the
// spec is changed after it: Conformance must not rely on NewSpec) and a
// non-default order bound without its reason.
func TestConformanceCatchesBadSpec(t *testing.T) {
	spec := decaySpec(node.Order{Temporal: 1, TemporalTol: 0.3})
	spec.State = []node.Field{{Name: "x", Description: "decaying quantity"}}
	spec.Params = []node.Param{decayParams[0]}
	spec.Params[0].Default = -1.0
	n, err := newDecay(decaySpec(node.Order{Temporal: 1}), decayCorrect, nil)
	if err != nil {
		t.Fatal(err)
	}
	n.(*decay).spec = spec
	errs := CheckConformance(n, nil, nil, node.Inputs{}).Violations
	for _, want := range []string{`state field "x" needs units`, `default of parameter "k" fails its own validation`, "without a TolReason"} {
		found := false
		for _, err := range errs {
			if strings.Contains(err.Error(), want) {
				found = true
			}
		}
		if !found {
			t.Errorf("no spec violation %q in %v", want, errs)
		}
	}
	for _, c := range checksOf(t, errs) {
		if c != "spec" {
			t.Errorf("unexpected %s violation: %v", c, errs)
		}
	}
}

// The jacobian check catches a DerivativesJacobian with the wrong sign of
// ∂f/∂x, and only that entry.
func TestConformanceCatchesWrongDerivativesJacobian(t *testing.T) {
	spec := decaySpec(node.Order{Temporal: 1})
	n, err := newDecay(spec, decayWrongJacobian, map[string]any{"k": 2.0})
	if err != nil {
		t.Fatal(err)
	}
	errs := CheckConformance(n, decayFresh(spec, decayWrongJacobian), []float64{0.7}, node.Inputs{Values: []float64{0.3}, Present: []bool{true}}).Violations
	if got := checksOf(t, errs); len(got) != 1 || got[0] != "jacobian" || !strings.Contains(errs[0].Error(), "∂f/∂x") {
		t.Fatalf("wrong DerivativesJacobian: got %v, want one jacobian violation in ∂f/∂x", errs)
	}
}

// The injection check catches a node whose SetParams reaches one of
// Update and Derivatives but not the other: the mirror image of the MADDENING BallNode guide's
// MADD-ANO-018, where update() saw the injected value and derivatives()
// did not. The check compares both ways, so either direction fails.
func TestConformanceCatchesStaleInjection(t *testing.T) {
	spec := decaySpec(node.Order{Temporal: 1})
	n, err := newDecay(spec, decayStaleUpdate, nil)
	if err != nil {
		t.Fatal(err)
	}
	errs := CheckConformance(n, decayFresh(spec, decayStaleUpdate), []float64{0.7}, node.Inputs{Values: []float64{0.3}, Present: []bool{true}}).Violations
	got := checksOf(t, errs)
	if len(got) != 1 || got[0] != "injection" || !strings.Contains(errs[0].Error(), "Update") {
		t.Fatalf("stale injection: got %v, want one injection violation naming Update", errs)
	}
}

// perturb moves an Integer by one within its range and picks another
// Text choice; a parameter it cannot move is a note, not a silent skip.
func TestPerturbKinds(t *testing.T) {
	for _, c := range []struct {
		p    node.Param
		v    any
		want any
	}{
		{node.Param{Name: "n", Kind: node.Integer}, 3, 4},
		{node.Param{Name: "n", Kind: node.Integer, Range: node.Between(0, 3)}, 3, 2},
		{node.Param{Name: "n", Kind: node.Integer, Range: node.Between(3, 3)}, 3, nil},
		{node.Param{Name: "s", Kind: node.Text, Choices: []string{"a", "b"}}, "a", "b"},
		{node.Param{Name: "s", Kind: node.Text, Choices: []string{"a", "b"}}, "b", "a"},
		{node.Param{Name: "s", Kind: node.Text}, "a", nil},
		{node.Param{Name: "b", Kind: node.Bool}, true, false},
	} {
		if got := perturb(c.p, c.v); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("perturb(%s %v) = %v, want %v", c.p.Kind, c.v, got, c.want)
		}
	}
}

// textNode has a free-text parameter, a Text parameter with choices and
// an Integer: the first is reported as a note, the others are checked.
type textNode struct {
	node.Stateless
	vals node.Values
}

var textNodeSpec = node.NewSpec(node.Spec{Type: "textnode", Params: []node.Param{
	{Name: "label", Kind: node.Text, Default: "", Description: "free text"},
	{Name: "mode", Kind: node.Text, Default: "a", Choices: []string{"a", "b"}, Description: "a choice"},
	{Name: "count", Kind: node.Integer, Default: 0, Range: node.Between(0, 5), Description: "a count"},
}, Meta: node.Metadata{AlgorithmID: "TEST-TEXT", Version: "1.0.0", Summary: "parameters only"}})

func (n *textNode) Spec() *node.Spec    { return textNodeSpec }
func (n *textNode) Params() node.Values { return maps.Clone(n.vals) }
func (n *textNode) SetParams(p map[string]any) error {
	v, err := node.Resolve("textnode", textNodeSpec.Params, n.vals, p)
	if err == nil {
		n.vals = v
	}
	return err
}

func TestConformanceNotesUnperturbable(t *testing.T) {
	fresh := func(p map[string]any) (node.Node, error) {
		v, err := node.Resolve("textnode", textNodeSpec.Params, nil, p)
		return &textNode{vals: v}, err
	}
	n, _ := fresh(nil)
	rep := CheckConformance(n, fresh, nil, node.Inputs{})
	if len(rep.Violations) > 0 {
		t.Fatal(rep.Violations)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0].Msg, `"label"`) || !strings.Contains(rep.Notes[0].Msg, "free text") {
		t.Fatalf("notes %v, want one for the free-text label", rep.Notes)
	}
}
