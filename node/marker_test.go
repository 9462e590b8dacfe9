package node_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// wheel is a marker body for the tests: a point on a unit circle at
// angle θ turning at ω, over the marker fields x = [θ, ω] (θ a position,
// ω its velocity): pos = (cos θ, sin θ, 0), vel = ω(−sin θ, cos θ, 0).
// Its velocity is nonlinear in θ, so ∂vel/∂θ = ω(−cos θ, −sin θ, 0) is
// what VelocityJacobian must difference.
type wheel struct{ refuse bool }

func (wheel) MarkerFields() []string { return []string{"theta", "omega"} }
func (wheel) MarkerLoads() []string  { return nil }
func (wheel) MarkerKinematics(x []float64, local [3]float64, pos, vel *[3]float64) {
	s, c := math.Sincos(x[0])
	*pos = [3]float64{c, s, 0}
	*vel = [3]float64{-x[1] * s, x[1] * c, 0}
}
func (wheel) MarkerLoad(x []float64, local [3]float64, f [3]float64, dst []float64) {}
func (wheel) MarkerJacobian(x []float64, local [3]float64, dst []float64) {
	s, c := math.Sincos(x[0])
	copy(dst, []float64{-s, 0, c, 0, 0, 0})
}

// CheckMarkerLocal refuses every point when refuse is set.
func (w wheel) CheckMarkerLocal(local [3]float64) error {
	if w.refuse {
		return errors.New("wheel: no")
	}
	return nil
}

// givenJacobian is a wheel with its own MarkerVelocityJacobian, which
// VelocityJacobian must use as it is.
type givenJacobian struct{ wheel }

func (givenJacobian) MarkerVelocityJacobian(x []float64, local [3]float64, dst []float64) {
	for i := range dst {
		dst[i] = float64(i + 1)
	}
}

// TestVelocityJacobian holds the Jacobian derived from MarkerKinematics
// to the analytic one of the wheel: the Velocity column (ω) exactly
// (unit velocities on a velocity linear in ω), the position column (θ)
// to twice the central difference's truncation bound h²/6·|∂³vel/∂θ³|
// = h²/6·|ω| at h = FDStep(θ), plus 1e-9 for rounding (ε·|vel|/h ≈
// 4e-11 here).
func TestVelocityJacobian(t *testing.T) {
	for _, x := range [][]float64{{0.3, 2}, {-2.1, -0.5}, {1e3, 7}} {
		var got [6]float64
		node.VelocityJacobian(wheel{}, x, [3]float64{}, []bool{false, true}, got[:])
		s, c := math.Sincos(x[0])
		want := [6]float64{-x[1] * c, -s, -x[1] * s, c, 0, 0}
		for i := range want {
			h := node.FDStep(x[0])
			tol := 2*h*h/6*math.Abs(x[1]) + 1e-9
			if i%2 == 1 {
				tol = 0
			}
			if !numtest.Within(got[i], want[i], tol) {
				t.Errorf("x = %v: J[%d] = %v, want %v (tolerance %v)", x, i, got[i], want[i], tol)
			}
		}
	}
	var got [6]float64
	node.VelocityJacobian(givenJacobian{}, []float64{0.3, 2}, [3]float64{}, []bool{false, true}, got[:])
	if got != [6]float64{1, 2, 3, 4, 5, 6} {
		t.Errorf("a body's own MarkerVelocityJacobian was not used: %v", got)
	}
}

// FDStep is ε^(1/3)·max(1, |x|).
func TestFDStep(t *testing.T) {
	h := math.Cbrt(0x1p-52)
	for x, want := range map[float64]float64{0: h, 0.5: h, -1: h, 8: 8 * h, -1e3: 1e3 * h} {
		if got := node.FDStep(x); got != want {
			t.Errorf("FDStep(%v) = %v, want %v", x, got, want)
		}
	}
}

// CheckLocal refuses a non-finite point (wrapping ErrMarkerLocal and
// ErrNonFinite, naming a ground point as such) and a point the body's
// MarkerLocalChecker refuses (wrapping its error), and accepts the rest.
func TestAttachmentCheckLocal(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		a       node.Attachment
		wantErr error
		want    string
	}{
		{node.GroundAt([3]float64{1, 2, 3}), nil, ""},
		{node.At(wheel{}, [3]float64{1, 2, 3}), nil, ""},
		{node.GroundAt([3]float64{0, nan, 0}), node.ErrNonFinite, "ground point [0, NaN, 0] is not finite"},
		{node.At(wheel{}, [3]float64{math.Inf(1), 0, 0}), node.ErrNonFinite, "local point [+Inf, 0, 0] is not finite"},
		{node.At(wheel{refuse: true}, [3]float64{1, 0, 0}), node.ErrMarkerLocal, "local point [1, 0, 0]: invalid marker local point (wheel: no)"},
	} {
		err := c.a.CheckLocal()
		if c.wantErr == nil {
			if err != nil {
				t.Errorf("%+v: %v", c.a, err)
			}
			continue
		}
		if !errors.Is(err, c.wantErr) || !errors.Is(err, node.ErrMarkerLocal) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v; want an error wrapping %v and ErrMarkerLocal, containing %q", c.a, err, c.wantErr, c.want)
		}
	}
}

// host records the AddConnector call node.Connect makes.
type host struct {
	name           string
	bodies         [2]string
	locals         [2][3]float64
	calls          int
	node.Connector // nil: host is not a connector
}

func (h *host) AddConnector(name string, c node.Connector, b0 string, l0 [3]float64, b1 string, l1 [3]float64) (node.Node, error) {
	h.calls++
	h.name, h.bodies, h.locals = name, [2]string{b0, b1}, [2][3]float64{l0, l1}
	return nil, nil
}

// conn is a connector type whose name Connect puts in its errors.
type conn struct{}

func (conn) ConnectorType() string { return "conn" }
func (conn) Attach(string, [2]node.Attachment) (node.Node, []node.Link, error) {
	return nil, nil, nil
}

// Connect passes named ends and the ground to the host as names and
// local points, and refuses an end given as a Go value with an EndError
// naming the end and the connector type, without calling the host.
func TestConnect(t *testing.T) {
	h := &host{}
	if _, err := node.Connect(h, "k", conn{}, node.BodyAt("a", [3]float64{1, 2, 3}), node.GroundAt([3]float64{4, 5, 6})); err != nil {
		t.Fatal(err)
	}
	if h.name != "k" || h.bodies != [2]string{"a", ""} || h.locals != [2][3]float64{{1, 2, 3}, {4, 5, 6}} {
		t.Errorf("AddConnector(%q, %v, %v)", h.name, h.bodies, h.locals)
	}
	if _, err := node.Connect(h, "k", conn{}, node.BodyAt(node.Ground, [3]float64{}), node.Body("b")); err != nil || h.bodies != [2]string{node.Ground, "b"} {
		t.Errorf("the ground by name: %v, bodies %v", err, h.bodies)
	}
	calls := h.calls
	for k, ends := range [][2]node.Attachment{
		{node.At(wheel{}, [3]float64{}), node.Body("b")},
		{node.Body("b"), node.At(wheel{}, [3]float64{})},
	} {
		_, err := node.Connect(h, "k", conn{}, ends[0], ends[1])
		var ee *node.EndError
		if !errors.As(err, &ee) || ee.End != k || ee.Type != "conn" || ee.Connector != "k" {
			t.Errorf("end %d given as a value: %v, want an EndError for end %d of conn \"k\"", k, err, k)
		}
	}
	if h.calls != calls {
		t.Error("Connect called the host despite a bad end")
	}
	for _, c := range []struct {
		a    node.Attachment
		want bool
	}{{node.GroundAt([3]float64{1, 0, 0}), true}, {node.Body(node.Ground), true}, {node.Body("m"), false}, {node.At(wheel{}, [3]float64{}), false}} {
		if got := c.a.IsGround(); got != c.want {
			t.Errorf("%+v.IsGround() = %v, want %v", c.a, got, c.want)
		}
	}
}

// swappedWheel is the wheel with its marker fields in the other order,
// x = [ω, θ], so the differenced position column is not the first.
type swappedWheel struct{ wheel }

func (swappedWheel) MarkerFields() []string { return []string{"omega", "theta"} }
func (w swappedWheel) MarkerKinematics(x []float64, local [3]float64, pos, vel *[3]float64) {
	w.wheel.MarkerKinematics([]float64{x[1], x[0]}, local, pos, vel)
}

// TestVelocityJacobianColumnOrder: each column of the Jacobian lands at
// its field's index whatever the order of the fields: with ω first, the
// exact velocity column is column 0 and the differenced ∂vel/∂θ column
// 1, against the analytic Jacobian of the wheel (same tolerance as
// TestVelocityJacobian).
func TestVelocityJacobianColumnOrder(t *testing.T) {
	x := []float64{2, 0.3}
	var got [6]float64
	node.VelocityJacobian(swappedWheel{}, x, [3]float64{}, []bool{true, false}, got[:])
	s, c := math.Sincos(x[1])
	want := [6]float64{-s, -x[0] * c, c, -x[0] * s, 0, 0}
	h := node.FDStep(x[1])
	tol := 2*h*h/6*math.Abs(x[0]) + 1e-9
	for i := range want {
		if !numtest.Within(got[i], want[i], tol) {
			t.Errorf("J[%d] = %v, want %v (tolerance %v)", i, got[i], want[i], tol)
		}
	}
}
