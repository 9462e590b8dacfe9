package springdamper_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

func wantErr(t *testing.T, err error, targets []error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil, want an error containing %q", parts)
	}
	for _, tg := range targets {
		if !errors.Is(err, tg) {
			t.Errorf("errors.Is(%q, %v) = false", err, tg)
		}
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

// TestMarkerLocalNotFinite: a non-finite Local is refused at construction
// for every kind of marker (the audit's ground marker at (NaN, 0, 0) used
// to build and output a NaN force with a nil error), naming the node, the
// marker and the value.
func TestMarkerLocalNotFinite(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	p := springdamper.DefaultParams()
	p.Stiffness = [3]float64{1, 1, 1}
	nonFinite := []error{springdamper.ErrMarkerLocal, node.ErrNonFinite}

	_, err := springdamper.New(p, node.GroundAt([3]float64{nan, 0, 0}), node.GroundAt([3]float64{}))
	wantErr(t, err, nonFinite, "springdamper", "m0", "ground point", "[NaN, 0, 0]", "not finite")

	_, err = springdamper.New(p, node.GroundAt([3]float64{}), node.At(newMass(t, 1, [3]float64{}, [3]float64{}), [3]float64{0, -inf, 0}))
	wantErr(t, err, nonFinite, "springdamper", "m1", "local point", "-Inf")

	_, err = springdamper.New(p, node.At(newBody3D(t, rigidbodyDefault3D()), [3]float64{0, 0, inf}), node.GroundAt([3]float64{}))
	wantErr(t, err, nonFinite, "m0", "+Inf")

	// Connect names the connector too.
	g := graph.New()
	g.Add("mass", newMass(t, 1, [3]float64{}, [3]float64{}))
	_, err = springdamper.Connect(g, "sd", p, node.Body("mass"), node.GroundAt([3]float64{0, 0, nan}))
	wantErr(t, err, nonFinite, "springdamper", `connector "sd"`, "m1", "ground point", "NaN")
	if _, ok := g.Node("sd"); ok {
		t.Error("Connect added the connector despite the error")
	}

	// Finite points still build, and give a finite force.
	n, err := springdamper.New(p, node.GroundAt([3]float64{1, 2, 3}), node.GroundAt([3]float64{-1, 0, 0.5}))
	if err != nil {
		t.Fatal(err)
	}
	y := make([]float64, n.Spec().OutputLayout.Size())
	if err := n.Outputs(0, nil, n.Spec().DefaultInputs(), y); err != nil {
		t.Fatal(err)
	}
	if f := y[n.Spec().OutputOffset("force"):][:3]; f[0] != -2 || f[1] != -2 || f[2] != -2.5 {
		t.Errorf("Force = %v, want [-2, -2, -2.5]", f)
	}
}

// TestBallAxis: the ball's marker axis is validated where it is set, by
// New and Connect, through the ball's CheckMarkerLocal: zero, non-finite
// and non-unit axes are errors giving the value; a unit axis builds.
func TestBallAxis(t *testing.T) {
	p := springdamper.DefaultParams()
	for _, c := range []struct {
		axis  [3]float64
		parts []string
	}{
		{[3]float64{0, 0, 0}, []string{"m1", "ball", "[0, 0, 0]", "zero"}},
		{[3]float64{0, 0, 2}, []string{"m1", "ball", "[0, 0, 2]", "length 2"}},
		{[3]float64{0.6, 0, 0.7}, []string{"m1", "ball", "[0.6, 0, 0.7]", "length"}},
		{[3]float64{0, math.NaN(), 1}, []string{"m1", "NaN", "not finite"}},
	} {
		_, err := springdamper.New(p, node.GroundAt([3]float64{}), node.At(newBall(t), c.axis))
		wantErr(t, err, []error{springdamper.ErrMarkerLocal}, c.parts...)
	}
	g := graph.New()
	g.Add("ball", newBall(t))
	_, err := springdamper.Connect(g, "sd", p, node.BodyAt("ball", [3]float64{1, 1, 0}), node.GroundAt([3]float64{}))
	wantErr(t, err, []error{springdamper.ErrMarkerLocal}, `connector "sd"`, "m0", "[1, 1, 0]", "length")
	for _, ok := range [][3]float64{{0, 0, 1}, {0.6, 0, 0.8}, {-1, 0, 0}} {
		if _, err := springdamper.New(p, node.At(newBall(t), ok), node.GroundAt([3]float64{})); err != nil {
			t.Errorf("axis %v: %v", ok, err)
		}
	}
}

// TestDrawSizeAlias: Exudyn's "drawSize" is accepted for "draw_size" in
// the name→value map paths (FromMap, the registry's New, SetParams);
// giving both is a *node.ParamError; the caller's map is not modified.
func TestDrawSizeAlias(t *testing.T) {
	in := map[string]any{"drawSize": 0.25, "stiffness": []float64{1, 2, 3}}
	nd, err := springdamper.FromMap(in)
	if err != nil {
		t.Fatal(err)
	}
	if _, renamed := in["draw_size"]; renamed || in["drawSize"] != 0.25 || len(in) != 2 {
		t.Errorf("FromMap modified its argument: %v", in)
	}
	tn := nd.(node.Tunable)
	if got := tn.Params().Float("draw_size"); got != 0.25 {
		t.Errorf("draw_size = %v, want 0.25", got)
	}
	if _, ok := tn.Params()["drawSize"]; ok {
		t.Error(`Params has "drawSize": only the canonical name should be stored`)
	}
	// Through a registry, as a scene builds nodes.
	reg, err := node.NewRegistry(springdamper.Type())
	if err != nil {
		t.Fatal(err)
	}
	nd, err = reg.New(springdamper.TypeName, map[string]any{"drawSize": 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if got := nd.(node.Tunable).Params().Float("draw_size"); got != 0.5 {
		t.Errorf("registry: draw_size = %v, want 0.5", got)
	}
	// SetParams.
	if err := tn.SetParams(map[string]any{"drawSize": 0.75}); err != nil {
		t.Fatal(err)
	}
	if got := tn.Params().Float("draw_size"); got != 0.75 {
		t.Errorf("after SetParams: draw_size = %v, want 0.75", got)
	}
	// The alias is validated like the name: the range still applies.
	err = tn.SetParams(map[string]any{"drawSize": -2.0})
	var pe *node.ParamError
	if !errors.As(err, &pe) || pe.Param != "draw_size" {
		t.Errorf("SetParams(drawSize = -2) = %v, want a *node.ParamError for draw_size", err)
	}
	// Both names: an error naming both, from FromMap and SetParams.
	for _, f := range []func(map[string]any) error{
		func(m map[string]any) error { _, err := springdamper.FromMap(m); return err },
		tn.SetParams,
	} {
		err := f(map[string]any{"drawSize": 0.1, "draw_size": 0.2})
		if !errors.As(err, &pe) || pe.Param != "drawSize" {
			t.Fatalf("both names: err = %v, want a *node.ParamError for drawSize", err)
		}
		for _, w := range []string{"springdamper", "drawSize", "draw_size", "0.1", "0.2", "not both"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("both names: %q does not contain %q", err, w)
			}
		}
	}
	if got := tn.Params().Float("draw_size"); got != 0.75 {
		t.Errorf("a refused SetParams changed draw_size to %v", got)
	}
}
