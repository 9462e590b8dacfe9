package verification

import (
	"errors"
	"maps"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/rigidbody"
	"github.com/cosimgo/cosim/nodes/springdamper"
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
			for _, err := range Conformance(n, fresh, nil, loaded(n.Spec())) {
				t.Error(err)
			}
		})
	}
}

// The 6-DOF body holding one rotation runs the gimbal scheme
// (rigidbody.DiscretizationGimbal); the checker holds it to its reference
// in Schemes like every other node.
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
		for _, err := range Conformance(n, fresh, nil, loaded(n.Spec())) {
			t.Errorf("%s: %v", c, err)
		}
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
		n, err := springdamper.New(p, springdamper.At(mp, [3]float64{}), springdamper.At(rb, [3]float64{0.3, -0.2, 0.1}))
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
	for _, err := range Conformance(n, fresh, nil, in) {
		t.Error(err)
	}
}

// The checker catches what it claims to: a node whose metadata names
// forward Euler while Update runs semi-implicit Euler (the seed's
// MADD-ANO-011) is a scheme violation.
func TestConformanceCatchesMislabel(t *testing.T) {
	n, err := nodes.Registry().New("masspoint", conformanceParams["masspoint"])
	if err != nil {
		t.Fatal(err)
	}
	bad := mislabeled{n, node.NewSpec(func() node.Spec { s := *n.Spec(); s.Meta.Discretization = "forward-euler"; return s }())}
	errs := Conformance(bad, nil, nil, loaded(bad.Spec()))
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
