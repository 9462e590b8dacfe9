package node_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cosimgo/cosim/node"
)

var specs = []node.Param{
	{Name: "mass", Kind: node.Real, Default: 1.0, Units: "kg", Description: "mass", Range: node.Positive()},
	{Name: "elasticity", Kind: node.Real, Default: 0.8, Units: "1", Description: "e", Range: node.Between(0, 1)},
	{Name: "gravity", Kind: node.Vector, Shape: node.Vec(3), Default: []float64{0, 0, -9.81}, Units: "m/s^2", Description: "g"},
	{Name: "active", Kind: node.Bool, Default: true, Description: "on"},
	{Name: "count", Kind: node.Integer, Default: 3, Description: "n", Range: node.Between(1, 10)},
	{Name: "mode", Kind: node.Text, Default: "fast", Description: "m", Choices: []string{"fast", "exact"}},
}

// Every invalid value is a *ParamError naming the node, the parameter,
// the value and the valid range; Resolve reports all of them at once.
func TestResolveErrors(t *testing.T) {
	cases := []struct {
		param string
		value any
		want  string
	}{
		{"mass", 0.0, `thing: parameter "mass" = 0 is out of range; valid: (0, +Inf)`},
		{"mass", -1, `parameter "mass" = -1 is out of range`},
		{"mass", math.NaN(), `parameter "mass" = NaN is not finite`},
		{"mass", math.Inf(1), `parameter "mass" = +Inf is not finite`},
		{"mass", "heavy", `is a string, want a number`},
		{"elasticity", 1.5, `parameter "elasticity" = 1.5 is out of range; valid: [0, 1]`},
		{"gravity", []float64{1, 2}, `has 2 values, want 3 (shape (3,))`},
		{"gravity", []any{1.0}, `parameter "gravity" = [1] has 1 value, want 3`},
		{"gravity", []any{1.0, "x", 3.0}, `parameter "gravity" = [1, "x", 3] component 1 is a string, want a number`},
		{"mass", nil, `parameter "mass" is null, want a number`},
		{"mass", map[string]any{}, `is an object, want a number`},
		{"gravity", []any{1.0, math.NaN(), 3.0}, `component 1 is not finite`},
		{"active", 1.0, `want true or false`},
		{"count", 2.5, `is not an integer`},
		{"count", 11, `is out of range; valid: an integer in [1, 10]`},
		{"mode", "fsat", `is not an accepted value (did you mean "fast"?)`},
		{"gravty", 1.0, `parameter "gravty" is not a parameter of this node (did you mean "gravity"?)`},
	}
	for _, c := range cases {
		_, err := node.Resolve("thing", specs, nil, map[string]any{c.param: c.value})
		var pe *node.ParamError
		if !errors.As(err, &pe) || pe.Node != "thing" || pe.Param != c.param {
			t.Errorf("%s = %v: err %v, want a ParamError naming node and parameter", c.param, c.value, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s = %v: %q lacks %q", c.param, c.value, err, c.want)
		}
	}
	_, err := node.Resolve("thing", specs, nil, map[string]any{"mass": -1.0, "elasticity": 2.0, "zzz": 1})
	if n := strings.Count(err.Error(), "thing: parameter"); n != 3 {
		t.Errorf("reported %d problems, want all 3: %v", n, err)
	}
}

// Given values override defaults (or a base), and come back canonical.
func TestResolveValues(t *testing.T) {
	v, err := node.Resolve("thing", specs, nil, map[string]any{"mass": 2, "gravity": []any{0, 0, -1}, "count": 4.0})
	if err != nil {
		t.Fatal(err)
	}
	want := node.Values{"mass": 2.0, "elasticity": 0.8, "gravity": []float64{0, 0, -1}, "active": true, "count": 4, "mode": "fast"}
	if diff := cmp.Diff(want, v); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	v2, err := node.Resolve("thing", specs, v, map[string]any{"elasticity": 0.5})
	if err != nil || v2.Float("mass") != 2 || v2.Float("elasticity") != 0.5 {
		t.Errorf("override on a base: %v, %v", v2, err)
	}
}

func TestRange(t *testing.T) {
	for _, c := range []struct {
		r    node.Range
		x    float64
		want bool
		str  string
	}{
		{node.Positive(), 0, false, "(0, +Inf)"},
		{node.NonNegative(), 0, true, "[0, +Inf)"},
		{node.Between(0, 1), 1, true, "[0, 1]"},
		{node.Finite(), 1e308, true, "any finite number"},
		{node.Finite(), math.Inf(-1), false, "any finite number"},
	} {
		if got := c.r.Contains(c.x); got != c.want || c.r.String() != c.str {
			t.Errorf("%v.Contains(%v) = %v (%s), want %v (%s)", c.r, c.x, got, c.r.String(), c.want, c.str)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	names := []string{"position", "velocity", "table_position"}
	if got := node.DidYouMean("positon", names); !strings.HasPrefix(got, ` (did you mean "position"`) {
		t.Errorf("DidYouMean(positon) = %q", got)
	}
	if got := node.DidYouMean("zzzz", names); !strings.Contains(got, `valid: "position", "velocity", "table_position"`) {
		t.Errorf("DidYouMean lists %q", got)
	}
}

// TestDidYouMeanRanking: the suggestions are the three best by edit
// distance, ties broken by name, whatever the order of the candidates
// (distances counted by hand for "rate", limit max(2, 4/3) = 2: grate,
// rat, rates 1; aerate 2 (and it contains "rate"); zzz 4, not close).
// A name exactly at the limit is still close ("vlocty" is two
// insertions from "velocity", limit 2), and a name of three characters
// or more is close to any name containing it. With no close name the valid
// names are listed when there are at most twelve, and not beyond.
func TestDidYouMeanRanking(t *testing.T) {
	const want = ` (did you mean "grate", "rat", "rates"?)`
	for _, names := range [][]string{
		{"grate", "rat", "zzz", "rates", "aerate"},
		{"aerate", "rates", "zzz", "rat", "grate"},
	} {
		if got := node.DidYouMean("rate", names); got != want {
			t.Errorf("DidYouMean(rate, %q) = %q, want %q", names, got, want)
		}
	}
	if got := node.DidYouMean("rate", []string{"zzz", "aerate", "rates"}); got != ` (did you mean "rates", "aerate"?)` {
		t.Errorf("DidYouMean(rate) = %q, want rates (distance 1) before aerate (2)", got)
	}
	if got := node.DidYouMean("vlocty", []string{"velocity"}); got != ` (did you mean "velocity"?)` {
		t.Errorf("DidYouMean(vlocty) = %q, want velocity at distance 2 = limit", got)
	}
	// A name of three or more characters is also close to a name that
	// contains it, whatever the distance ("rat" is 4 from "pirates"); a
	// shorter name is not (a two-letter name is inside too many).
	if got := node.DidYouMean("rat", []string{"pirates"}); got != ` (did you mean "pirates"?)` {
		t.Errorf("DidYouMean(rat, pirates) = %q, want pirates (contains rat)", got)
	}
	if got := node.DidYouMean("ra", []string{"rates"}); got != ` (valid: "rates")` {
		t.Errorf("DidYouMean(ra, rates) = %q, want no suggestion (distance 3 > 2, name too short)", got)
	}
	var twelve []string
	for i := range 13 {
		twelve = append(twelve, fmt.Sprintf("zz%02d", i))
	}
	if got := node.DidYouMean("position", twelve[:12]); !strings.HasPrefix(got, ` (valid: "zz00", `) || strings.Count(got, `"`) != 24 {
		t.Errorf("DidYouMean with 12 candidates = %q, want all 12 listed", got)
	}
	if got := node.DidYouMean("position", twelve); got != "" {
		t.Errorf("DidYouMean with 13 candidates = %q, want none listed", got)
	}
}

func TestLayout(t *testing.T) {
	l := node.NewLayout([]node.Field{{Name: "x", Shape: node.Vec(3)}, {Name: "a"}, {Name: "q", Shape: node.Vec(4)}})
	if l.Size() != 8 || l.Offset(2) != 4 || l.Index("a") != 1 || l.Index("b") != -1 {
		t.Errorf("layout %v", l)
	}
	if l.Component(1) != "x[1]" || l.Component(3) != "a" || l.Component(7) != "q[3]" {
		t.Errorf("components %q %q %q", l.Component(1), l.Component(3), l.Component(7))
	}
	if node.Additive.String() != "additive" || node.Replacing.String() != "replacing" || node.Combine(2).String() != "Combine(2)" {
		t.Error("combine strings")
	}
	if node.Scalar.String() != "scalar" || node.Vec(3).String() != "(3,)" {
		t.Error("shape strings")
	}
}

// NewSpec panics on programmer errors in a node's spec.
func TestNewSpecPanics(t *testing.T) {
	bad := []node.Spec{
		{},
		{Type: "a", State: []node.Field{{Name: "x"}, {Name: "x"}}},
		{Type: "a", State: []node.Field{{Name: "x", Role: node.Position, Rate: "v"}}},
		{Type: "a", Params: []node.Param{{Name: "m", Kind: node.Real, Default: -1.0, Range: node.Positive()}}},
		{Type: "a", Inputs: []node.Input{{Name: "f", Shape: node.Vec(2), Default: []float64{0}}}},
		// A combine rule that is neither Additive nor Replacing: the graph
		// would otherwise let the last of several edges win silently.
		{Type: "a", Inputs: []node.Input{{Name: "f", Combine: node.Combine(2)}}},
		{Type: "a", Inputs: []node.Input{{Name: "f", Combine: node.Combine(-1)}}},
	}
	for i, s := range bad {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("spec %d: no panic", i)
				}
			}()
			node.NewSpec(s)
		}()
	}
	s := node.NewSpec(node.Spec{Type: "a",
		State:  []node.Field{{Name: "x", Role: node.Position, Rate: "v"}, {Name: "v", Role: node.Velocity}},
		Inputs: []node.Input{{Name: "f", Default: []float64{2}}, {Name: "table", Absent: true}, {Name: "req"}}})
	in := s.DefaultInputs()
	if diff := cmp.Diff(node.Inputs{Values: []float64{2, 0, 0}, Present: []bool{true, false, true}}, in); diff != "" {
		t.Errorf("DefaultInputs (-want +got):\n%s", diff)
	}
	if !s.Inputs[2].Required() || s.Inputs[1].Required() {
		t.Error("Required")
	}
}

type stub struct {
	node.Stateless
	spec *node.Spec
}

func (s stub) Spec() *node.Spec { return s.spec }

type wrapper struct{ node.Node }

func (w wrapper) Unwrap() node.Node { return w.Node }

func (stub) Outputs(float64, []float64, node.Inputs, []float64) error { return nil }

func TestRegistryAndAs(t *testing.T) {
	mk := func(typ, id string) node.Type {
		return node.Type{Name: typ, New: func(map[string]any) (node.Node, error) {
			return stub{spec: node.NewSpec(node.Spec{Type: typ, Meta: node.Metadata{AlgorithmID: id}})}, nil
		}}
	}
	if _, err := node.NewRegistry(mk("a", "X-1"), mk("b", "X-1")); err == nil || !strings.Contains(err.Error(), "X-1 used by both") {
		t.Errorf("duplicate algorithm ID: %v", err)
	}
	if _, err := node.NewRegistry(mk("a", "X-1"), mk("a", "X-2")); err == nil {
		t.Error("duplicate name accepted")
	}
	r, err := node.NewRegistry(mk("beta", "X-2"), mk("alpha", "X-1"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"alpha", "beta"}, r.Names()); diff != "" {
		t.Error(diff)
	}
	if _, err := r.New("alpah", nil); err == nil || !strings.Contains(err.Error(), `did you mean "alpha"`) {
		t.Errorf("unknown type: %v", err)
	}
	n, _ := r.New("alpha", nil)
	if _, ok := node.As[node.Outputter](wrapper{n}); !ok {
		t.Error("As does not find a capability through Unwrap")
	}
	if _, ok := node.As[node.Deriver](wrapper{n}); ok {
		t.Error("As found a capability that is not there")
	}
	if got := node.Capabilities(wrapper{n}); !cmp.Equal(got, []string{"outputs", "unwrapper"}) {
		t.Errorf("Capabilities = %v", got)
	}
}

func TestStateError(t *testing.T) {
	err := &node.StateError{Node: "ball", Field: "velocity", Step: 7, Time: 0.07, Err: node.ErrNonFinite}
	if err.Error() != "node ball.velocity: step 7 at t=0.07: value is not finite" || !errors.Is(err, node.ErrNonFinite) {
		t.Errorf("%v", err)
	}
}

// FuzzResolve: parameter maps from scene files and overrides never make
// validation panic, and whatever it accepts is complete and valid.
func FuzzResolve(f *testing.F) {
	f.Add("mass", 1.5, "gravity", 3, true)
	f.Add("elasticity", math.NaN(), "mode", 0, false)
	f.Add("count", 1e300, "gravty", -1, true)
	f.Fuzz(func(t *testing.T, name string, x float64, name2 string, n int, asList bool) {
		var v any = x
		if asList {
			l := make([]any, max(0, min(n, 8)))
			for i := range l {
				l[i] = x
			}
			v = l
		}
		got, err := node.Resolve("thing", specs, nil, map[string]any{name: v, name2: n})
		if err != nil {
			var pe *node.ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a ParamError", err)
			}
			return
		}
		if len(got) != len(specs) {
			t.Fatalf("resolved %d of %d parameters", len(got), len(specs))
		}
		for _, p := range specs {
			if _, err := p.Check(got[p.Name]); err != nil {
				t.Fatalf("accepted an invalid value: %v", err)
			}
		}
	})
}

// A parameter's Aliases are accepted by Resolve under the canonical name;
// giving a name and its alias together is an error naming both.
func TestResolveAliases(t *testing.T) {
	ps := []node.Param{{Name: "draw_size", Kind: node.Real, Default: -1.0, Description: "d", Aliases: []string{"drawSize"}}}
	v, err := node.Resolve("thing", ps, nil, map[string]any{"drawSize": 2.0})
	if err != nil || v.Float("draw_size") != 2 {
		t.Errorf("alias: %v, %v", v, err)
	}
	_, err = node.Resolve("thing", ps, nil, map[string]any{"drawSize": 2.0, "draw_size": 3.0})
	var pe *node.ParamError
	if !errors.As(err, &pe) || pe.Param != "drawSize" || !strings.Contains(err.Error(), `is an alias of "draw_size", which is also given (= 3)`) {
		t.Errorf("both given: %v", err)
	}
	if _, err := node.Resolve("thing", ps, nil, map[string]any{"drawSize": "big"}); err == nil || !strings.Contains(err.Error(), `parameter "draw_size" = "big" is a string`) {
		t.Errorf("bad alias value: %v", err)
	}
}
