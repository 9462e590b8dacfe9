package rigidbody2d

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"

	"github.com/cosimgo/cosim/node"
)

// TypeName is the registry name of the node type.
const TypeName = "rigidbody2d"

// Type is the node type, for node.NewRegistry(rigidbody2d.Type(), …):
// a new value at each call, so that no caller can change another's. Its
// default construction logs the deprecation warning on slog.Default().
func Type() node.Type {
	return node.Type{Name: TypeName, New: FromMap, Spec: func() *node.Spec { return spec }}
}

// Replacement is what to use instead of this node.
const Replacement = "rigidbody with constraints {z: 0, rx: 0, ry: 0} (gravity [g_x, g_y, 0], e.g. [0, -9.81, 0] for this node's default)"

// DeprecationMessage is the message of the warning every construction logs.
const DeprecationMessage = "rigidbody2d is deprecated since cosim 0.1.0: use " + Replacement

// Params are the node's parameters as typed Go values, named as in MADDENING's
// RigidBody2DNode. The zero value is not valid (mass and inertia are zero); start from
// DefaultParams.
type Params struct {
	Mass    float64    // kg, > 0; default 1
	Inertia float64    // moment of inertia about the centre of mass, kg·m², > 0; default 1
	Gravity [2]float64 // m/s²; default (0, −9.81)

	InitialX, InitialY   float64 // m; default 0
	InitialVX, InitialVY float64 // m/s; default 0
	InitialAngle         float64 // rad; default 0
	InitialOmega         float64 // rad/s; default 0

	// Appearance is how cosim view and render draw the body (show,
	// draw_size, color); the zero value is the default.
	Appearance node.Appearance

	// Logger receives the deprecation warning New logs; nil means
	// slog.Default(). It is not a model parameter: Params() does not list
	// it and maps cannot set it.
	Logger *slog.Logger
}

// DefaultParams returns MADDENING's defaults: a 1 kg body with a unit
// moment of inertia at rest at the origin, under gravity (0, −9.81) m/s².
func DefaultParams() Params {
	return Params{Mass: 1, Inertia: 1, Gravity: [2]float64{0, -9.81}}
}

func (p Params) values() node.Values {
	v := node.Values{
		"mass":          p.Mass,
		"inertia":       p.Inertia,
		"gravity":       p.Gravity[:],
		"initial_x":     p.InitialX,
		"initial_y":     p.InitialY,
		"initial_vx":    p.InitialVX,
		"initial_vy":    p.InitialVY,
		"initial_angle": p.InitialAngle,
		"initial_omega": p.InitialOmega,
	}
	p.Appearance.Put(v)
	return v
}

// model is the validated parameter set in the form the step reads.
type model struct {
	mass, inertia float64
	gravity       [2]float64
	init          [stateLen]float64
}

func newModel(v node.Values) model {
	m := model{mass: v.Float("mass"), inertia: v.Float("inertia")}
	copy(m.gravity[:], v.Floats("gravity"))
	m.init[offX] = v.Float("initial_x")
	m.init[offX+1] = v.Float("initial_y")
	m.init[offAngle] = v.Float("initial_angle")
	m.init[offV] = v.Float("initial_vx")
	m.init[offV+1] = v.Float("initial_vy")
	m.init[offOmega] = v.Float("initial_omega")
	return m
}

// Node is the deprecated planar rigid body. Build it with New or FromMap.
type Node struct {
	vals node.Values
	// m is what Update, Derivatives and the batch kernels read;
	// SetParams publishes it to the kernels.
	m node.Published[model]
}

var (
	_ node.Node    = (*Node)(nil)
	_ node.Deriver = (*Node)(nil)
	_ node.Tunable = (*Node)(nil)
	_ node.Marker  = (*Node)(nil)
	_ node.Batcher = (*Node)(nil)
)

// New builds the node from typed parameters and logs the deprecation
// warning on p.Logger (slog.Default() when nil). Every invalid value is a
// *node.ParamError (several are joined with errors.Join); nothing is
// logged then.
func New(p Params) (*Node, error) {
	vals, err := node.Resolve(TypeName, spec.Params, nil, p.values())
	if err != nil {
		return nil, err
	}
	warn(p.Logger)
	return fromValues(vals), nil
}

// FromMap builds the node from a name→value map with MADDENING's parameter
// names; a nil map gives the defaults. It logs the deprecation warning on
// slog.Default().
func FromMap(m map[string]any) (node.Node, error) {
	vals, err := node.Resolve(TypeName, spec.Params, nil, m)
	if err != nil {
		return nil, err
	}
	warn(nil)
	return fromValues(vals), nil
}

// fromValues builds the node from validated values.
func fromValues(vals node.Values) *Node {
	n := &Node{vals: vals}
	n.m.Set(newModel(vals))
	return n
}

func warn(l *slog.Logger) {
	if l == nil {
		l = slog.Default()
	}
	l.LogAttrs(context.Background(), slog.LevelWarn, DeprecationMessage,
		slog.String("node", TypeName),
		slog.String("algorithm_id", spec.Meta.AlgorithmID),
		slog.String("deprecated_since", spec.Meta.DeprecatedSince),
		slog.String("replacement", Replacement))
}

// Spec describes the node; it is the same value for every node.
func (n *Node) Spec() *node.Spec { return spec }

// InitialState writes (initial_x, initial_y, initial_angle, initial_vx,
// initial_vy, initial_omega) into dst.
func (n *Node) InitialState(dst []float64) { copy(dst[:stateLen], n.m.Get().init[:]) }

// accelerations returns dv/dt = F/m + g and dω/dt = τ/I for the force
// (fx, fy) and the torque tau, shared by Update and Derivatives.
func (m *model) accelerations(fx, fy, tau float64) (ax, ay, alpha float64) {
	return fx/m.mass + m.gravity[0], fy/m.mass + m.gravity[1], tau / m.inertia
}

// Update advances the state by one semi-implicit Euler step: the velocities
// first, v⁺ = v + Δt·(F/m + g) and ω⁺ = ω + Δt·τ/I, then x⁺ = x + Δt·v⁺
// and θ⁺ = θ + Δt·ω⁺. It returns an error wrapping node.ErrNonFinite when
// dt is NaN or infinite.
func (n *Node) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	if dt-dt != 0 {
		return fmt.Errorf("%s: time step dt = %v: %w", TypeName, dt, node.ErrNonFinite)
	}
	u := in.Values
	n.m.Get().step(dt, (*[stateLen]float64)(x), u[inForce], u[inForce+1], u[inTorque], (*[stateLen]float64)(dst))
	return nil
}

// step is one semi-implicit Euler step of one body under the force
// (fx, fy) and the torque tau, shared by Update and the batch kernel so
// that both compute the same bits.
func (m *model) step(dt float64, x *[stateLen]float64, fx, fy, tau float64, dst *[stateLen]float64) {
	ax, ay, alpha := m.accelerations(fx, fy, tau)
	vx := x[offV] + dt*ax
	vy := x[offV+1] + dt*ay
	w := x[offOmega] + dt*alpha
	dst[offV], dst[offV+1], dst[offOmega] = vx, vy, w
	dst[offX] = x[offX] + dt*vx
	dst[offX+1] = x[offX+1] + dt*vy
	dst[offAngle] = x[offAngle] + dt*w
}

// Derivatives writes dx/dt = v, dθ/dt = ω, dv/dt = F/m + g and
// dω/dt = τ/I into dst.
func (n *Node) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	u := in.Values
	n.m.Get().derivatives((*[stateLen]float64)(x), u[inForce], u[inForce+1], u[inTorque], (*[stateLen]float64)(dst))
	return nil
}

// derivatives writes one body's dx/dt, shared by Derivatives and the
// batch kernel.
func (m *model) derivatives(x *[stateLen]float64, fx, fy, tau float64, dst *[stateLen]float64) {
	ax, ay, alpha := m.accelerations(fx, fy, tau)
	dst[offX], dst[offX+1], dst[offAngle] = x[offV], x[offV+1], x[offOmega]
	dst[offV], dst[offV+1], dst[offOmega] = ax, ay, alpha
}

// Params returns the parameter values in use, including overrides, as a
// copy.
func (n *Node) Params() node.Values {
	out := make(node.Values, len(n.vals))
	for k, v := range n.vals {
		if s, ok := v.([]float64); ok {
			v = slices.Clone(s)
		}
		out[k] = v
	}
	return out
}

// SetParams overrides parameters by name. Every value is validated first;
// when one is invalid nothing changes. It logs no warning (it constructs
// nothing) and must not be called while the node is stepping.
func (n *Node) SetParams(p map[string]any) error {
	vals, err := node.Resolve(TypeName, spec.Params, n.vals, p)
	if err != nil {
		return err
	}
	n.vals = vals
	n.m.Set(newModel(vals))
	return nil
}

// MarkerFields: x, angle, v, omega; the marker methods receive their
// values concatenated (6 numbers).
func (n *Node) MarkerFields() []string { return []string{"x", "angle", "v", "omega"} }

// rotate returns R(θ)·(r0, r1).
func rotate(theta, r0, r1 float64) (float64, float64) {
	s, c := math.Sincos(theta)
	return c*r0 - s*r1, s*r0 + c*r1
}

// MarkerKinematics writes the world position (x + R(θ)r, 0) and velocity
// (v + ω ẑ × R(θ)r, 0) of the body-fixed point r = (local[0], local[1]);
// local[2] is ignored.
func (n *Node) MarkerKinematics(x []float64, local [3]float64, pos, vel *[3]float64) {
	rx, ry := rotate(x[2], local[0], local[1])
	w := x[5]
	*pos = [3]float64{x[0] + rx, x[1] + ry, 0}
	*vel = [3]float64{x[3] - w*ry, x[4] + w*rx, 0}
}

// MarkerLoads: a force at a marker loads "force" and "torque".
func (n *Node) MarkerLoads() []string { return []string{"force", "torque"} }

// MarkerLoad writes (f_x, f_y) into the force and (R(θ)r) × f, its z
// component r_x f_y − r_y f_x, into the torque: dst has 3 values. The
// out-of-plane f_z is dropped.
func (n *Node) MarkerLoad(x []float64, local [3]float64, f [3]float64, dst []float64) {
	rx, ry := rotate(x[2], local[0], local[1])
	dst[0], dst[1] = f[0], f[1]
	dst[2] = rx*f[1] - ry*f[0]
}

// MarkerJacobian writes ∂pos/∂(x, y, θ, v_x, v_y, ω) (3 × 6, row-major):
// the identity on x and y, ∂(R(θ)r)/∂θ = (−r_y^w, r_x^w) on θ, zero
// elsewhere (the z row is zero). The velocity Jacobian with respect to
// (v_x, v_y, ω) is the same matrix restricted to the (x, y, θ) columns.
func (n *Node) MarkerJacobian(x []float64, local [3]float64, dst []float64) {
	rx, ry := rotate(x[2], local[0], local[1])
	clear(dst[:18])
	dst[0*6+0] = 1
	dst[1*6+1] = 1
	dst[0*6+2] = -ry
	dst[1*6+2] = rx
}
