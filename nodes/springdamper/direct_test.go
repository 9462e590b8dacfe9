package springdamper_test

import (
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// opaqueMass is a mass point seen only through node.Node and node.Marker:
// it hides the PointMarker capability, so a connector attached to it takes
// the general path through the Marker methods.
type opaqueMass struct{ m *masspoint.Node }

func (o opaqueMass) Spec() *node.Spec           { return o.m.Spec() }
func (o opaqueMass) InitialState(dst []float64) { o.m.InitialState(dst) }
func (o opaqueMass) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	return o.m.Update(t, dt, x, in, dst)
}
func (o opaqueMass) MarkerFields() []string { return o.m.MarkerFields() }
func (o opaqueMass) MarkerKinematics(x []float64, local [3]float64, pos, vel *[3]float64) {
	o.m.MarkerKinematics(x, local, pos, vel)
}
func (o opaqueMass) MarkerLoads() []string { return o.m.MarkerLoads() }
func (o opaqueMass) MarkerLoad(x []float64, local [3]float64, f [3]float64, dst []float64) {
	o.m.MarkerLoad(x, local, f, dst)
}
func (o opaqueMass) MarkerJacobian(x []float64, local [3]float64, dst []float64) {
	o.m.MarkerJacobian(x, local, dst)
}

// directPair is a connector on the direct path and the same connector on
// the general path (its masses opaque).
type directPair struct {
	name       string
	fast, slow *springdamper.Node
}

// directPairs builds the connector pairs the direct-path tests compare,
// for every combination of ground, mass and (with mixed) opaque mass
// markers, with or without a user force function.
func directPairs(t *testing.T, withUF, mixed bool) []directPair {
	a := newMass(t, 2, [3]float64{1, 2, 3}, [3]float64{-1, 0.5, 2})
	b := newMass(t, 3, [3]float64{-2, 1, 0}, [3]float64{0.25, -3, 1})
	p := springdamper.DefaultParams()
	p.Stiffness = [3]float64{100, 200, 300}
	p.Damping = [3]float64{1, 2, 3}
	p.Offset = [3]float64{0.1, -0.2, 0.3}
	if withUF {
		p.ForceFunc = func(t float64, item int, dp, dv, k, d, off [3]float64) [3]float64 {
			return [3]float64{k[0] * dp[0] * dp[0], d[1] * dv[1] * dp[2], off[2] + dp[2]*dv[0]}
		}
	}
	cases := []struct {
		name         string
		fast0, fast1 node.Attachment
		slow0, slow1 node.Attachment
	}{
		{"mass-mass", node.At(a, [3]float64{}), node.At(b, [3]float64{}), node.At(opaqueMass{a}, [3]float64{}), node.At(opaqueMass{b}, [3]float64{})},
		{"ground-mass", node.GroundAt([3]float64{1, 0, 2}), node.At(b, [3]float64{9, 9, 9}), node.GroundAt([3]float64{1, 0, 2}), node.At(opaqueMass{b}, [3]float64{9, 9, 9})},
		{"mass-ground", node.At(a, [3]float64{}), node.GroundAt([3]float64{-1, 3, 0}), node.At(opaqueMass{a}, [3]float64{}), node.GroundAt([3]float64{-1, 3, 0})},
	}
	if mixed {
		cases = append(cases, struct {
			name         string
			fast0, fast1 node.Attachment
			slow0, slow1 node.Attachment
		}{"mixed", node.At(a, [3]float64{}), node.At(opaqueMass{b}, [3]float64{}), node.At(opaqueMass{a}, [3]float64{}), node.At(opaqueMass{b}, [3]float64{})})
	}
	var out []directPair
	for _, c := range cases {
		fast, err := springdamper.New(p, c.fast0, c.fast1)
		if err != nil {
			t.Fatal(err)
		}
		slow, err := springdamper.New(p, c.slow0, c.slow1)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, directPair{c.name, fast, slow})
	}
	return out
}

// The direct path for PointMarker bodies (masspoint) writes exactly what
// the general path through the node.Marker methods writes, for every
// combination of ground, mass and opaque mass markers, with and without a
// user force function.
func TestPointMarkerDirectPath(t *testing.T) {
	if _, ok := node.Marker(newMass(t, 1, [3]float64{}, [3]float64{})).(node.PointMarker); !ok {
		t.Fatal("masspoint does not implement node.PointMarker")
	}
	u := []float64{1.5, -2, 0.25, 3, -1, 0.5, -0.75, 4, 1, 2, -0.5, -2.5}
	for _, withUF := range []bool{false, true} {
		for _, c := range directPairs(t, withUF, true) {
			fast, slow := c.fast, c.slow
			nu := fast.Spec().InputLayout.Size()
			in := node.Inputs{Values: u[:nu], Present: make([]bool, len(fast.Spec().Inputs))}
			ny := fast.Spec().OutputLayout.Size()
			got, want := make([]float64, ny), make([]float64, ny)
			if err := fast.Outputs(0.5, nil, in, got); err != nil {
				t.Fatal(err)
			}
			if err := slow.Outputs(0.5, nil, in, want); err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("uf=%v %s: output %s = %v on the direct path, %v through the Marker methods",
						withUF, c.name, fast.Spec().OutputLayout.Component(i), got[i], want[i])
				}
			}
		}
	}
}

// BenchmarkOutputsPoint is one evaluation of a connector between two mass
// points, on the direct path (masspoint is a PointMarker) and through the
// node.Marker methods (the same masses, opaque).
func BenchmarkOutputsPoint(b *testing.B) {
	a := newMass(b, 2, [3]float64{1, 2, 3}, [3]float64{-1, 0.5, 2})
	c := newMass(b, 3, [3]float64{-2, 1, 0}, [3]float64{0.25, -3, 1})
	p := springdamper.DefaultParams()
	p.Stiffness = [3]float64{100, 200, 300}
	p.Damping = [3]float64{1, 2, 3}
	for _, bc := range []struct {
		name   string
		m0, m1 node.Attachment
	}{
		{"direct", node.At(a, [3]float64{}), node.At(c, [3]float64{})},
		{"marker-methods", node.At(opaqueMass{a}, [3]float64{}), node.At(opaqueMass{c}, [3]float64{})},
	} {
		b.Run(bc.name, func(b *testing.B) {
			n, err := springdamper.New(p, bc.m0, bc.m1)
			if err != nil {
				b.Fatal(err)
			}
			in := node.Inputs{Values: []float64{1.5, -2, 0.25, 3, -1, 0.5, -0.75, 4, 1, 2, -0.5, -2.5}, Present: make([]bool, 4)}
			dst := make([]float64, n.Spec().OutputLayout.Size())
			b.ReportAllocs()
			for b.Loop() {
				if err := n.Outputs(0, nil, in, dst); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// OutputsJacobian's direct path for ground and point markers computes
// what the general path through the node.Marker methods computes (the
// same formulas on the marker maps the PointMarker contract fixes), for
// every combination of ground, mass and opaque mass markers, with and
// without a user force function; == ignores only the sign of zeros.
func TestPointMarkerDirectJacobian(t *testing.T) {
	u := []float64{1.5, -2, 0.25, 3, -1, 0.5, -0.75, 4, 1, 2, -0.5, -2.5}
	for _, withUF := range []bool{false, true} {
		for _, c := range directPairs(t, withUF, false) {
			fast, slow := c.fast, c.slow
			nu, ny := fast.Spec().InputLayout.Size(), fast.Spec().OutputLayout.Size()
			in := node.Inputs{Values: u[:nu], Present: make([]bool, len(fast.Spec().Inputs))}
			got, want := make([]float64, ny*nu), make([]float64, ny*nu)
			if err := fast.OutputsJacobian(0.5, nil, in, got); err != nil {
				t.Fatal(err)
			}
			if err := slow.OutputsJacobian(0.5, nil, in, want); err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("uf=%v %s: ∂%s/∂%s = %v on the direct path, %v through the Marker methods", withUF, c.name,
						fast.Spec().OutputLayout.Component(i/nu), fast.Spec().InputLayout.Component(i%nu), got[i], want[i])
				}
			}
			if allocs := testing.AllocsPerRun(10, func() { fast.OutputsJacobian(0.5, nil, in, got) }); allocs != 0 {
				t.Errorf("uf=%v %s: %v allocations on the direct path", withUF, c.name, allocs)
			}
		}
	}
}
