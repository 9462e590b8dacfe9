package springdamper_test

import (
	"log/slog"
	"math"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/rigidbody"
	"github.com/cosimgo/cosim/nodes/rigidbody2d"
)

// near is the package's one tolerance helper: |got − want| ≤
// tol·max(1, |got|, |want|), i.e. relative to the larger magnitude and
// absolute below 1; false when got or want is NaN or infinite (whose
// tolerance would otherwise be infinite too, or a NaN comparison).
func near(got, want, tol float64) bool {
	return numtest.Within(got, want, tol*max(1, math.Abs(got), math.Abs(want)))
}

// source is a constant 3-vector output without feedthrough: Exudyn's
// Force load (mbs.AddLoad) as a node.
type source struct {
	node.Stateless
	spec *node.Spec
	v    [3]float64
}

func newSource(units string, v [3]float64) *source {
	return &source{v: v, spec: node.NewSpec(node.Spec{
		Type:    "source",
		Outputs: []node.Field{{Name: "value", Shape: node.Vec(3), Units: units, Description: "constant"}},
	})}
}

func (s *source) Spec() *node.Spec { return s.spec }
func (s *source) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	copy(dst, s.v[:])
	return nil
}

func newMass(t testing.TB, m float64, x0, v0 [3]float64) *masspoint.Node {
	t.Helper()
	n, err := masspoint.New(masspoint.Params{Mass: m, InitialPosition: x0, InitialVelocity: v0})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func newBody2D(t testing.TB, p rigidbody2d.Params) *rigidbody2d.Node {
	t.Helper()
	p.Logger = quietLogger()
	n, err := rigidbody2d.New(p)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func newBody3D(t testing.TB, p rigidbody.Params) *rigidbody.Node {
	t.Helper()
	n, err := rigidbody.New(p)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func newBall(t testing.TB) *ball.Node {
	t.Helper()
	n, err := ball.New(ball.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// rotation is R(q/|q|) for q = (w, x, y, z), computed independently of
// the rigidbody package.
func rotation(q [4]float64) [9]float64 {
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	w, x, y, z := q[0]/n, q[1]/n, q[2]/n, q[3]/n
	return [9]float64{
		1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y),
		2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x),
		2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y),
	}
}

func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func vec3(s []float64) [3]float64 { return [3]float64{s[0], s[1], s[2]} }

func rigidbodyDefault2D() rigidbody2d.Params { return rigidbody2d.DefaultParams() }
func rigidbodyDefault3D() rigidbody.Params   { return rigidbody.DefaultParams() }
