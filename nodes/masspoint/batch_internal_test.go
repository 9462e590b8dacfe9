package masspoint

import (
	"errors"
	"math"
	"testing"

	"github.com/cosimgo/cosim/node"
)

// The batch reads one row of parameters when its members' laws of motion
// are equal, whatever their initial conditions (a chain of equal masses
// at different places), and one row per member once a SetParams makes
// one law differ. What the kernels compute is held to the members'
// methods by TestBatchKernelEqualLawThenTuned; this pins the layout, on
// which a long chain's memory traffic depends (80 bytes of parameters
// per mass and evaluation when every row is read).
func TestBatchUniformLaw(t *testing.T) {
	members := make([]node.Node, 4)
	for i := range members {
		m, err := New(Params{Mass: 2, Gravity: [3]float64{0, 0, -1}, InitialPosition: [3]float64{float64(i), 0, 0}, InitialVelocity: [3]float64{0, float64(-i), 0}})
		if err != nil {
			t.Fatal(err)
		}
		members[i] = m
	}
	b := members[0].(*Node).NewBatch(members).(*batch)
	if _, stride := b.laws.Walk(0, 4); !b.laws.Uniform() || stride != 0 {
		t.Fatalf("equal laws, different initial conditions: uniform %v, row stride %d; want true, 0", b.laws.Uniform(), stride)
	}
	// An initial condition changed alone leaves the law shared.
	if err := members[1].(*Node).SetParams(map[string]any{"initial_position": []float64{9, 9, 9}}); err != nil {
		t.Fatal(err)
	}
	if !b.laws.Uniform() {
		t.Fatal("a SetParams of initial_position alone made the batch non-uniform")
	}
	if err := members[3].(*Node).SetParams(map[string]any{"mass": 5.0}); err != nil {
		t.Fatal(err)
	}
	if _, stride := b.laws.Walk(0, 4); b.laws.Uniform() || stride == 0 || b.laws.At(3).mass != 5 || b.laws.At(0).mass != 2 {
		t.Fatalf("after member 3's mass changed: uniform %v, row stride %d, masses %v, %v; want false, > 0, 2, 5",
			b.laws.Uniform(), stride, b.laws.At(0).mass, b.laws.At(3).mass)
	}
}

// The kernels test what they write by summing it (summed) and, when the
// total is not finite, row by row (zeroed): finite new states whose sum
// overflows pass, and a NaN or ±Inf anywhere fails, in Update (both force
// forms) and Derivatives. The states are built so that each written value
// is known: with zero force and gravity, Update writes v and x + dt·v,
// Derivatives v and 0.
func TestBatchDstCheckOverflow(t *testing.T) {
	const rows, big = 3, 1e308 // three rows of 1e308: every sum of two overflows
	members := make([]node.Node, rows)
	for i := range members {
		m, err := New(Params{Mass: 1})
		if err != nil {
			t.Fatal(err)
		}
		members[i] = m
	}
	b := members[0].(*Node).NewBatch(members).(*batch)
	run := func(x []float64, pair, derivs bool) error {
		a := &node.BatchArgs{Dt: 0.5, Lo: 0, Hi: rows}
		a.X = node.Strided{Buf: x, Stride: stateSize}
		a.In = []node.Strided{{Buf: make([]float64, 3*rows), Stride: 3}}
		if pair {
			a.In2 = []node.Strided{{Buf: make([]float64, 3*rows), Stride: 3}}
		}
		a.Dst = node.Strided{Buf: make([]float64, stateSize*rows), Stride: stateSize}
		if derivs {
			return b.Derivatives(a)
		}
		return b.Update(a)
	}
	for _, c := range []struct {
		name         string
		pair, derivs bool
	}{{"update", false, false}, {"update pair", true, false}, {"derivatives", false, true}} {
		x := make([]float64, stateSize*rows)
		for i := range x {
			x[i] = big // positions 1e308 and velocities 1e308: x + dt·v = 1.5e308, finite
		}
		if err := run(x, c.pair, c.derivs); err != nil {
			t.Errorf("%s: finite new values whose sum overflows: %v; want no error", c.name, err)
		}
		x[stateSize+4] = math.NaN() // row 1's velocity y
		if err := run(x, c.pair, c.derivs); !errors.Is(err, node.ErrNonFinite) {
			t.Errorf("%s: a NaN velocity: error %v; want node.ErrNonFinite", c.name, err)
		}
		x[stateSize+4] = 1
		x[2*stateSize] = math.Inf(-1) // row 2's position x: Update writes −Inf, Derivatives does not read it
		err := run(x, c.pair, c.derivs)
		if c.derivs && err != nil {
			t.Errorf("%s: an infinite position, which dx/dt does not read: %v; want no error", c.name, err)
		}
		if !c.derivs && !errors.Is(err, node.ErrNonFinite) {
			t.Errorf("%s: an infinite position: error %v; want node.ErrNonFinite", c.name, err)
		}
	}
}
