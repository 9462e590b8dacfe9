package ball_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/verification"
)

// The batch kernel against the members' own Update and Derivatives, in
// this package's tests so that mutation testing (go run
// ./internal/mutation -pkgs nodes/ball) sees batch.go exercised.
// verification.CheckBatch draws states and inputs (with zeros, tiny,
// large and non-finite values), the table present or not, strided and
// broadcast layouts, chunkings, steps including 0, negative and
// non-finite ones, and overrides the members' parameters after NewBatch.
// The reference is each member's own method; the tolerance is zero (bit
// for bit), as node.Batch requires: a graph may run either path.
func TestBatchKernelMatchesMembers(t *testing.T) {
	for _, n := range []int{1, 5, 12} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(n)))
			members := make([]node.Node, n)
			for i := range members {
				p := ball.Params{InitialPosition: rng.NormFloat64(), InitialVelocity: rng.NormFloat64(),
					Elasticity: rng.Float64(), Gravity: -20 * rng.Float64(), Mass: 0.5 + rng.Float64()}
				if i%4 == 1 {
					p.Gravity = 0 // free of the resting contact when unforced
				}
				b, err := ball.New(p)
				if err != nil {
					t.Fatal(err)
				}
				members[i] = b
			}
			for _, err := range verification.CheckBatch(members, verification.BatchOptions{Seed: uint64(n)}) {
				t.Error(err)
			}
		})
	}
}

// DerivativesJacobian against the ball's equations (doc.go): in flight
// ẋ = v, v̇ = g + F/m, so ∂ẋ/∂v = 1 and ∂v̇/∂F = 1/m, every other entry
// zero; resting on the table (v = 0, g + F/m ≤ 0, table present and
// x ≤ table, the rule Derivatives applies) v̇ is held at 0, so ∂v̇/∂F = 0,
// while ∂ẋ/∂v stays 1. m = 2 kg makes 1/m = 0.5 exact, and with
// g = −9.81 a force F = 19.62 N makes g + F/m exactly 0 in binary (19.62/2
// is 9.81 to the bit): the rule's boundary, where the ball still rests.
// Every entry is exact, so compared exactly. Each case is checked
// against Derivatives too: resting exactly where Derivatives returns 0.
// DerivativesParamJacobian is held to the same cases: ∂v̇/∂gravity = 1
// and ∂v̇/∂mass = −F/m² in flight (m ≠ 1, so that −F/m² differs from −F
// and −F·m²; division by m² = 4 is exact), zero at rest, the boundary
// included.
func TestDerivativesJacobian(t *testing.T) {
	b, err := ball.New(ball.Params{Mass: 2, Gravity: -9.81, Elasticity: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	spec := b.Spec()
	pos, vel := spec.StateFieldOffset("position"), spec.StateFieldOffset("velocity")
	nu := spec.InputLayout.Size()
	force, table := spec.InputOffset("force"), spec.InputOffset("table_position")
	tableIdx := spec.InputLayout.Index("table_position")
	np, colGravity, colMass := len(spec.Params), -1, -1
	for i, p := range spec.Params {
		switch p.Name {
		case "gravity":
			colGravity = i
		case "mass":
			colMass = i
		}
	}
	if colGravity < 0 || colMass < 0 {
		t.Fatalf("no gravity or mass parameter in %v", spec.Params)
	}
	for _, c := range []struct {
		name    string
		x, v, f float64
		tbl     float64
		present bool
		rest    bool
	}{
		{"flight above the table", 1, 3, 4, 0, true, false},
		{"flight without a table", -5, 0, 0, 0, false, false},
		{"at rest on the table", 0, 0, 0, 0, true, true},
		{"below the table at rest", -1e-3, 0, 0, 0, true, true},
		{"on the table, g + F/m = 0 exactly", 0.25, 0, 19.62, 0.25, true, true},
		{"on the table, pushed up", 0.25, 0, 19.63, 0.25, true, false},
		{"just above the table, v = 0", 1e-300, 0, 0, 0, true, false},
		{"on the table, moving down", 0, -1e-9, 0, 0, true, false},
	} {
		x := make([]float64, 2)
		x[pos], x[vel] = c.x, c.v
		in := node.Inputs{Values: make([]float64, nu), Present: make([]bool, len(spec.Inputs))}
		in.Values[force], in.Values[table] = c.f, c.tbl
		for i := range in.Present {
			in.Present[i] = i != tableIdx || c.present
		}
		dx, du := make([]float64, 4), make([]float64, 2*nu)
		for i := range dx {
			dx[i] = 7 // stale values the call must overwrite
		}
		for i := range du {
			du[i] = 7
		}
		if err := b.DerivativesJacobian(0, x, in, dx, du); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		wantX, wantU := make([]float64, 4), make([]float64, 2*nu)
		wantX[pos*2+vel] = 1
		if !c.rest {
			wantU[vel*nu+force] = 0.5
		}
		for i := range wantX {
			if dx[i] != wantX[i] {
				t.Errorf("%s: ∂f/∂x = %v, want %v", c.name, dx, wantX)
				break
			}
		}
		for i := range wantU {
			if du[i] != wantU[i] {
				t.Errorf("%s: ∂f/∂u = %v, want %v", c.name, du, wantU)
				break
			}
		}
		d := make([]float64, 2)
		if err := b.Derivatives(0, x, in, d); err != nil {
			t.Fatal(err)
		}
		if resting := d[pos] == 0 && d[vel] == 0; resting != c.rest {
			t.Errorf("%s: Derivatives = %v, resting %v; the case says %v", c.name, d, resting, c.rest)
		}
		// The parameter Jacobian follows the same rest rule.
		dp := make([]float64, 2*np)
		if err := b.DerivativesParamJacobian(0, x, in, dp); err != nil {
			t.Fatalf("%s: DerivativesParamJacobian: %v", c.name, err)
		}
		wantP := make([]float64, 2*np)
		if !c.rest {
			wantP[vel*np+colGravity], wantP[vel*np+colMass] = 1, -c.f/4
		}
		for i := range wantP {
			if dp[i] != wantP[i] {
				t.Errorf("%s: ∂f/∂p = %v, want %v", c.name, dp, wantP)
				break
			}
		}
		// Either destination may be nil.
		if err := b.DerivativesJacobian(0, x, in, nil, du); err != nil || du[vel*nu+force] != wantU[vel*nu+force] {
			t.Errorf("%s: with dstX nil: %v, %v", c.name, err, du)
		}
		if err := b.DerivativesJacobian(0, x, in, dx, nil); err != nil || dx[pos*2+vel] != 1 {
			t.Errorf("%s: with dstU nil: %v, %v", c.name, err, dx)
		}
	}
}

// A non-finite position, velocity or force is a *node.FieldError
// wrapping node.ErrNonFinite that names the field ("input force" for
// the input), as Derivatives' is.
func TestDerivativesJacobianNonFinite(t *testing.T) {
	b, err := ball.New(ball.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	spec := b.Spec()
	nu := spec.InputLayout.Size()
	for _, c := range []struct {
		field string
		set   func(x, u []float64)
	}{
		{"position", func(x, u []float64) { x[spec.StateFieldOffset("position")] = nan() }},
		{"velocity", func(x, u []float64) { x[spec.StateFieldOffset("velocity")] = inf() }},
		{"input force", func(x, u []float64) { u[spec.InputOffset("force")] = nan() }},
	} {
		x, in := make([]float64, 2), node.Inputs{Values: make([]float64, nu), Present: make([]bool, len(spec.Inputs))}
		c.set(x, in.Values)
		err := b.DerivativesJacobian(0, x, in, make([]float64, 4), make([]float64, 2*nu))
		if !errors.Is(err, node.ErrNonFinite) || !fieldIs(err, c.field) {
			t.Errorf("non-finite %s: %v", c.field, err)
		}
	}
}

func nan() float64 { z := 0.0; return z / z }
func inf() float64 { z := 0.0; return 1 / z }

// fieldIs reports whether err is a *node.FieldError for field (the
// graph names the node's field, or "input <name>", from it).
func fieldIs(err error, field string) bool {
	var fe *node.FieldError
	return errors.As(err, &fe) && fe.Field == field
}
