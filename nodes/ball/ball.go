package ball

import (
	"maps"

	"github.com/cosimgo/cosim/node"
)

// RestSpeed is the impact speed (m/s) up to which a bounce is replaced by
// rest. At contact the velocity v becomes −e·v when |v| > RestSpeed, and
// exactly 0 otherwise: the threshold is compared with the impact speed,
// before restitution, as in the MADDENING BallNode (MADD-NODE-001
// version 1.0.0), whose update bounces only when |v| > 1e-4.
const RestSpeed = 1e-4

const (
	typeName = "ball"
	pkgPath  = "github.com/cosimgo/cosim/nodes/ball"

	paramInitialPosition = "initial_position"
	paramInitialVelocity = "initial_velocity"
	paramElasticity      = "elasticity"
	paramGravity         = "gravity"
	paramMass            = "mass"

	fieldPosition = "position"
	fieldVelocity = "velocity"
	inputTable    = "table_position"
	inputForce    = "force"
	eventContact  = "contact"
)

// Type is the ball's node type, for a [node.Registry]: a new value at each call.
func Type() node.Type { return node.Type{Name: "ball", New: FromMap} }

// Params are the parameters of a ball, by their Go names. The zero Params
// is not a valid ball: its mass is 0, which New refuses (the force input
// divides by it). Start from [DefaultParams], the documented defaults, or
// set Mass.
type Params struct {
	// InitialPosition is the height at t0 (parameter initial_position, m,
	// any finite value).
	InitialPosition float64
	// InitialVelocity is the vertical velocity at t0 (initial_velocity,
	// m/s, any finite value).
	InitialVelocity float64
	// Elasticity is the coefficient of restitution e (elasticity, in
	// [0, 1]): 0 is perfectly inelastic, 1 perfectly elastic.
	Elasticity float64
	// Gravity is the gravitational acceleration g (gravity, m/s^2, any
	// finite value; negative points down).
	Gravity float64
	// Mass is the ball's mass m (mass, kg, positive). It matters only for
	// the force input: the acceleration is g + F/m. The zero Params has
	// mass 0, which New refuses; DefaultParams has 1 kg.
	Mass float64
	// Appearance is how cosim view and render draw the ball (show,
	// draw_size, color); the zero value is the default. The physics
	// ignores it.
	Appearance node.Appearance
}

// DefaultParams returns the defaults: at rest at height 0, elasticity 0.8,
// gravity −9.81 m/s², mass 1 kg.
func DefaultParams() Params {
	return Params{InitialPosition: 0, InitialVelocity: 0, Elasticity: 0.8, Gravity: -9.81, Mass: 1}
}

func (p Params) values() node.Values {
	v := node.Values{
		paramInitialPosition: p.InitialPosition,
		paramInitialVelocity: p.InitialVelocity,
		paramElasticity:      p.Elasticity,
		paramGravity:         p.Gravity,
		paramMass:            p.Mass,
	}
	p.Appearance.Put(v)
	return v
}

// Node is a point mass falling under gravity in one dimension, pushed by
// the additive input force and bouncing on the optional surface
// table_position. Build it with [New] or [FromMap]. It implements
// [node.Node], [node.Deriver], [node.Tunable], [node.Eventer],
// [node.Marker], [node.MarkerMass] and [node.Batcher].
type Node struct {
	spec *node.Spec
	vals node.Values // the current, validated parameters (never shared)

	// The current parameters, read on the per-step path; SetParams
	// publishes them to the batch kernels.
	m node.Published[model]

	// Offsets resolved once, at construction.
	posOff, velOff int // state
	tableIdx       int // index of table_position in Spec().Inputs
	tableOff       int // its offset in Inputs.Values
	forceOff       int // offset of force in Inputs.Values (always present)
}

var (
	_ node.Node       = (*Node)(nil)
	_ node.Deriver    = (*Node)(nil)
	_ node.Tunable    = (*Node)(nil)
	_ node.Eventer    = (*Node)(nil)
	_ node.Marker     = (*Node)(nil)
	_ node.MarkerMass = (*Node)(nil)
	_ node.Batcher    = (*Node)(nil)

	_ node.MarkerLocalChecker = (*Node)(nil)
)

// New returns a ball with the parameters p. An invalid value (NaN, ±Inf,
// elasticity outside [0, 1], a mass that is not positive) is reported as a *[node.ParamError] naming the
// node "ball", the parameter, the value and the valid range; several are
// joined with errors.Join.
func New(p Params) (*Node, error) {
	s := newSpec()
	vals, err := node.Resolve(typeName, s.Params, nil, p.values())
	if err != nil {
		return nil, err
	}
	return newNode(s, vals), nil
}

// FromMap returns a ball from a name→value map (scene files, overrides),
// with the parameter names initial_position, initial_velocity, elasticity,
// gravity and mass. Missing names take their defaults; a nil map gives
// DefaultParams. Invalid values and unknown names are reported as for New.
func FromMap(m map[string]any) (node.Node, error) {
	s := newSpec()
	vals, err := node.Resolve(typeName, s.Params, nil, m)
	if err != nil {
		return nil, err
	}
	return newNode(s, vals), nil
}

func newNode(s *node.Spec, vals node.Values) *Node {
	n := &Node{
		spec:     s,
		posOff:   s.StateFieldOffset(fieldPosition),
		velOff:   s.StateFieldOffset(fieldVelocity),
		tableIdx: s.InputLayout.Index(inputTable),
		tableOff: s.InputOffset(inputTable),
		forceOff: s.InputOffset(inputForce),
	}
	n.apply(vals)
	return n
}

// model is the parameters in the form the step reads.
type model struct {
	x0, v0, e, g, mass float64
}

func (n *Node) apply(vals node.Values) {
	n.vals = vals
	n.m.Set(model{
		x0:   vals.Float(paramInitialPosition),
		v0:   vals.Float(paramInitialVelocity),
		e:    vals.Float(paramElasticity),
		g:    vals.Float(paramGravity),
		mass: vals.Float(paramMass),
	})
}

// Spec returns the ball's description. It is built once, when the node is
// constructed, and is the same value on every call.
func (n *Node) Spec() *node.Spec { return n.spec }

// InitialState writes [initial_position, initial_velocity] into dst, as
// the parameters are now (including overrides).
func (n *Node) InitialState(dst []float64) {
	checkLen("InitialState", "dst", dst, 2)
	dst[n.posOff] = n.m.Get().x0
	dst[n.velOff] = n.m.Get().v0
}

// Params returns a copy of the current parameter values, overrides
// included.
func (n *Node) Params() node.Values { return maps.Clone(n.vals) }

// SetParams overrides parameters by name, starting from the current
// values. Every value is validated first; when any is invalid nothing
// changes and the error (one *[node.ParamError] per problem, joined)
// is returned. Update, Derivatives, EventValues, Reset and InitialState
// read the new values. SetParams must not be called concurrently with
// anything else on the node, nor while a graph is stepping it; calling it
// between steps (to inject a time-varying gravity) is allowed.
func (n *Node) SetParams(p map[string]any) error {
	vals, err := node.Resolve(typeName, n.spec.Params, n.vals, p)
	if err != nil {
		return err
	}
	n.apply(vals)
	return nil
}

func paramSpecs() []node.Param {
	return append([]node.Param{
		{
			Name: paramInitialPosition, Kind: node.Real, Default: 0.0, Units: "m",
			Description: "Starting height", Range: node.Finite(),
		},
		{
			Name: paramInitialVelocity, Kind: node.Real, Default: 0.0, Units: "m/s",
			Description: "Starting vertical velocity", Range: node.Finite(),
		},
		{
			Name: paramElasticity, Kind: node.Real, Default: 0.8, Units: "1",
			Description: "Coefficient of restitution e: 0 is perfectly inelastic, 1 perfectly elastic",
			Range:       node.Between(0, 1),
		},
		{
			Name: paramGravity, Kind: node.Real, Default: -9.81, Units: "m/s^2",
			Description: "Gravitational acceleration (negative points down)",
			Range:       node.Finite(),
		},
		{
			Name: paramMass, Kind: node.Real, Default: 1.0, Units: "kg",
			Description: "Mass m: the force input accelerates the ball by F/m (gravity does not depend on it)",
			Range:       node.Positive(),
		},
	}, node.VisualParams("diameter of the sphere drawn for the ball, resting on its position")...)
}

func newSpec() *node.Spec {
	return node.NewSpec(node.Spec{
		Type:    typeName,
		Package: pkgPath,
		State: []node.Field{
			{
				Name: fieldPosition, Shape: node.Scalar, Units: "m",
				Description: "Height of the ball", Role: node.Position, Rate: fieldVelocity,
			},
			{
				Name: fieldVelocity, Shape: node.Scalar, Units: "m/s",
				Description: "Vertical velocity", Role: node.Velocity,
			},
		},
		Params: paramSpecs(),
		Inputs: []node.Input{{
			Name: inputTable, Shape: node.Scalar, Units: "m",
			Description: "Height of the collision surface; when nothing is connected there is no surface and no contact",
			Combine:     node.Replacing,
			Absent:      true,
		}, {
			Name: inputForce, Shape: node.Scalar, Units: "N",
			Description: "External force F along the ball's axis (positive up), e.g. a connector's load; additive, default 0",
			Combine:     node.Additive,
			Default:     []float64{0},
		}},
		Events: []node.Event{{
			Name:      eventContact,
			Direction: -1,
			Description: "position − table_position, falling through zero when the ball reaches the surface; " +
				"a constant +1 (never crossing) when table_position is not connected",
		}},
		Feedthrough: false,
		Meta:        metadata(),
	})
}
