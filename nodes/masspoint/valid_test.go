package masspoint

import (
	"math"
	"reflect"
	"testing"

	"github.com/cosimgo/cosim/node"
)

// TestValidMatchesResolve holds New's fast check (Params.valid) to
// node.Resolve, the reference: over every field set to each of a
// list of edge values (zero, ±0, the bounds of the visualization ranges,
// just outside them, huge, NaN, ±Inf), valid accepts exactly what
// node.Resolve accepts, and New gives the same Params either way.
func TestValidMatchesResolve(t *testing.T) {
	edge := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1.0000001, -1.0000001, 2, -2, 1e300, -1e300,
		math.MaxFloat64, math.SmallestNonzeroFloat64, math.NaN(), math.Inf(1), math.Inf(-1)}
	var cases []Params
	base := Params{Mass: 2, Gravity: [3]float64{0, 0, -9.81}, InitialPosition: [3]float64{1, 2, 3},
		Appearance: node.Appearance{DrawSize: 0.5, Color: [4]float64{0.1, 0.2, 0.3, 1}}}
	for _, x := range edge {
		for f := range 15 {
			p := base
			switch {
			case f == 0:
				p.Mass = x
			case f <= 3:
				p.Gravity[f-1] = x
			case f <= 6:
				p.InitialPosition[f-4] = x
			case f <= 9:
				p.InitialVelocity[f-7] = x
			case f == 10:
				p.Appearance.DrawSize = x
			default:
				p.Appearance.Color[f-11] = x
			}
			cases = append(cases, p)
		}
	}
	cases = append(cases, DefaultParams(), Params{}, Params{Mass: 1, Appearance: node.Appearance{Hidden: true, DrawSize: -5}})
	for _, p := range cases {
		want, err := node.Resolve(TypeName, spec.Params, nil, p.values())
		if got := p.valid(); got != (err == nil) {
			t.Errorf("%+v: valid = %v, node.Resolve error %v", p, got, err)
			continue
		}
		if err != nil {
			continue
		}
		n, err := New(p)
		if err != nil {
			t.Fatalf("%+v: New: %v", p, err)
		}
		if got := n.Params(); !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: Params = %v, want %v", p, got, want)
		}
		if got, want := n.appearance().Visual(), node.VisualOf(want); !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: Visual = %v, want %v", p, got, want)
		}
	}
}

// TestNewAllocations: a mass from valid Params with the default
// appearance is one allocation, no parameter map (parameters validated
// without a map per instance, so that building a long chain is cheap).
func TestNewAllocations(t *testing.T) {
	p := DefaultParams()
	if a := testing.AllocsPerRun(100, func() { _, _ = New(p) }); a > 1 {
		t.Errorf("New allocates %v times, want 1", a)
	}
}
