package masspoint

import (
	"fmt"
	"math"
	"slices"

	"github.com/cosimgo/cosim/node"
)

// TypeName is the registry name of the node type.
const TypeName = "masspoint"

// Type registers the node: node.NewRegistry(masspoint.Type, …).
var Type = node.Type{Name: TypeName, New: FromMap}

// Params are the node's parameters as typed Go values. The zero value is
// not valid (the mass is zero); start from DefaultParams.
type Params struct {
	// Mass is m in kg, > 0. Default 1.
	Mass float64
	// Gravity is the uniform gravitational acceleration g in m/s², world
	// frame. Default zero (no gravity).
	Gravity [3]float64
	// InitialPosition is x(t0) in m. Default zero.
	InitialPosition [3]float64
	// InitialVelocity is v(t0) in m/s. Default zero.
	InitialVelocity [3]float64
	// Appearance is how cosim view and render draw the mass (show,
	// draw_size, color); the zero value is the default. The physics
	// ignores it.
	Appearance node.Appearance
}

// DefaultParams returns the documented defaults: a 1 kg mass at rest at
// the origin, without gravity.
func DefaultParams() Params { return Params{Mass: 1} }

func (p Params) values() node.Values {
	v := node.Values{
		"mass":             p.Mass,
		"gravity":          p.Gravity[:],
		"initial_position": p.InitialPosition[:],
		"initial_velocity": p.InitialVelocity[:],
	}
	p.Appearance.Put(v)
	return v
}

// model is the validated parameter set in the form the step reads: the
// law of motion (what Update and Derivatives read) and the initial
// conditions (read only by Init).
type model struct {
	law
	initPosition [3]float64
	initVelocity [3]float64
}

// law is the part of the parameters the step and the derivatives read.
// Batches keep a row of it per member (batch.go), not a whole model:
// the initial conditions differ from mass to mass in a chain while the
// law is usually shared, and a kernel then reads one row for all.
type law struct {
	mass    float64
	gravity [3]float64
}

func newModel(v node.Values) model {
	var m model
	m.mass = v.Float("mass")
	copy(m.gravity[:], v.Floats("gravity"))
	copy(m.initPosition[:], v.Floats("initial_position"))
	copy(m.initVelocity[:], v.Floats("initial_velocity"))
	return m
}

// Node is a 3D point mass. Build it with New or FromMap.
type Node struct {
	// vals are the validated parameters; nil for a node built by New
	// from valid Params, whose values are those of m and app (values
	// builds them on demand, so that a mass costs no map).
	vals node.Values
	m    model
	app  *node.Appearance // nil: the default appearance
	// mirrors are the rows of batches (batch.go) holding a copy of m;
	// SetParams writes through to them.
	mirrors []mirror
}

var (
	_ node.Node    = (*Node)(nil)
	_ node.Deriver = (*Node)(nil)
	_ node.Tunable = (*Node)(nil)
	_ node.Marker  = (*Node)(nil)
	_ node.Batcher = (*Node)(nil)

	_ node.InputJacobian = (*Node)(nil)
)

// New builds a mass point from typed parameters. Every invalid value is a
// *node.ParamError (several are joined with errors.Join).
//
// Valid Params are recognized without building node.Values (valid); any
// other goes through node.Resolve, whose errors are the reference.
func New(p Params) (*Node, error) {
	if p.valid() {
		n := &Node{m: model{law: law{mass: p.Mass, gravity: p.Gravity}, initPosition: p.InitialPosition, initVelocity: p.InitialVelocity}}
		if p.Appearance != (node.Appearance{}) {
			a := p.Appearance // a copy: taking p's address would move every p to the heap
			n.app = &a
		}
		return n, nil
	}
	vals, err := node.Resolve(TypeName, spec.Params, nil, p.values())
	if err != nil {
		return nil, err
	}
	return &Node{vals: vals, m: newModel(vals)}, nil
}

// valid reports whether node.Resolve accepts p.values(), without
// calling it: the mass finite and positive, every vector component
// finite, a positive draw size finite, a color other than the zero
// (default) one in [−1, 1]. A test holds it to node.Resolve.
func (p *Params) valid() bool {
	if !(p.Mass > 0 && p.Mass <= math.MaxFloat64) {
		return false
	}
	for _, v := range [...]*[3]float64{&p.Gravity, &p.InitialPosition, &p.InitialVelocity} {
		for _, x := range v {
			if x-x != 0 {
				return false
			}
		}
	}
	if a := &p.Appearance; a.DrawSize > math.MaxFloat64 {
		return false
	}
	if c := p.Appearance.Color; c != ([4]float64{}) {
		for _, x := range c {
			if !(x >= -1 && x <= 1) {
				return false
			}
		}
	}
	return true
}

// appearance is the appearance New was given.
func (n *Node) appearance() node.Appearance {
	if n.app == nil {
		return node.Appearance{}
	}
	return *n.app
}

// values returns the validated parameter values.
func (n *Node) values() node.Values {
	if n.vals != nil {
		return n.vals
	}
	p := Params{Mass: n.m.mass, Gravity: n.m.gravity, InitialPosition: n.m.initPosition, InitialVelocity: n.m.initVelocity, Appearance: n.appearance()}
	vals, err := node.Resolve(TypeName, spec.Params, nil, p.values())
	if err != nil {
		panic(fmt.Sprintf("masspoint: parameters accepted by New are invalid: %v", err))
	}
	return vals
}

// FromMap builds a mass point from a name→value map (scene files); names
// not given take their defaults, and a nil map gives the default node.
func FromMap(m map[string]any) (node.Node, error) {
	vals, err := node.Resolve(TypeName, spec.Params, nil, m)
	if err != nil {
		return nil, err
	}
	return &Node{vals: vals, m: newModel(vals)}, nil
}

// Spec describes the node; it is the same value for every mass point.
func (n *Node) Spec() *node.Spec { return spec }

// InitialState writes the initial position and velocity into dst.
func (n *Node) InitialState(dst []float64) {
	copy(dst[offPosition:offPosition+3], n.m.initPosition[:])
	copy(dst[offVelocity:offVelocity+3], n.m.initVelocity[:])
}

// acceleration is dv/dt = F/m + g, shared by Update and Derivatives so that
// both evaluate the same expression.
func (m *law) acceleration(force *[3]float64, i int) float64 {
	return force[i]/m.mass + m.gravity[i]
}

// Update advances the state by one semi-implicit Euler step:
// v⁺ = v + Δt·(F/m + g), then x⁺ = x + Δt·v⁺. It returns an error
// wrapping node.ErrNonFinite when dt is NaN or infinite.
func (n *Node) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	if !finite(dt) {
		return fmt.Errorf("%s: time step dt = %v: %w", TypeName, dt, node.ErrNonFinite)
	}
	n.m.step(dt, (*[stateSize]float64)(x), (*[3]float64)(in.Values[offForce:]), (*[stateSize]float64)(dst))
	return nil
}

// step is one semi-implicit Euler step of one mass, shared by Update and
// the batch kernel so that both compute the same bits.
func (m *law) step(dt float64, x *[stateSize]float64, f *[3]float64, dst *[stateSize]float64) {
	// Unrolled by hand: the compiler does not unroll the component loop,
	// and the rolled loop's index bookkeeping cost more than its
	// arithmetic in the batch kernel's row loop.
	v0 := x[offVelocity] + dt*m.acceleration(f, 0)
	v1 := x[offVelocity+1] + dt*m.acceleration(f, 1)
	v2 := x[offVelocity+2] + dt*m.acceleration(f, 2)
	dst[offVelocity], dst[offVelocity+1], dst[offVelocity+2] = v0, v1, v2
	dst[offPosition] = x[offPosition] + dt*v0
	dst[offPosition+1] = x[offPosition+1] + dt*v1
	dst[offPosition+2] = x[offPosition+2] + dt*v2
}

// Derivatives writes dx/dt = v and dv/dt = F/m + g into dst.
func (n *Node) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	n.m.derivatives((*[stateSize]float64)(x), (*[3]float64)(in.Values[offForce:]), (*[stateSize]float64)(dst))
	return nil
}

// derivatives writes one mass's dx/dt, shared by Derivatives and the
// batch kernel.
func (m *law) derivatives(x *[stateSize]float64, f *[3]float64, dst *[stateSize]float64) {
	// Unrolled by hand, as step.
	dst[offPosition], dst[offPosition+1], dst[offPosition+2] = x[offVelocity], x[offVelocity+1], x[offVelocity+2]
	dst[offVelocity] = f[0]/m.mass + m.gravity[0]
	dst[offVelocity+1] = f[1]/m.mass + m.gravity[1]
	dst[offVelocity+2] = f[2]/m.mass + m.gravity[2]
}

// DerivativesJacobian writes the exact Jacobians of Derivatives: ∂f/∂x
// (6 × 6, row-major) into dstX — ∂ẋ/∂v = I, every other block zero —
// and ∂f/∂u (6 × 3) into dstU — ∂v̇/∂F = I/m, zero for ẋ. The model is
// linear, so these are exact at every state; either may be nil.
func (n *Node) DerivativesJacobian(t float64, x []float64, in node.Inputs, dstX, dstU []float64) error {
	if dstX != nil {
		d := dstX[:stateSize*stateSize]
		clear(d)
		for i := range 3 {
			d[(offPosition+i)*stateSize+offVelocity+i] = 1
		}
	}
	if dstU != nil {
		nu := spec.InputLayout.Size()
		d := dstU[:stateSize*nu]
		clear(d)
		for i := range 3 {
			d[(offVelocity+i)*nu+offForce+i] = 1 / n.m.mass
		}
	}
	return nil
}

// Params returns the parameter values in use, including overrides. The
// result is a copy: changing it does not change the node.
func (n *Node) Params() node.Values {
	if n.vals == nil {
		return n.values() // built afresh: already a copy
	}
	return cloneValues(n.vals)
}

// SetParams overrides parameters by name. Every value is validated first;
// when one is invalid nothing changes and the error lists every problem.
// It must not be called while the node is stepping.
func (n *Node) SetParams(p map[string]any) error {
	vals, err := node.Resolve(TypeName, spec.Params, n.values(), p)
	if err != nil {
		return err
	}
	n.vals, n.m = vals, newModel(vals)
	for _, r := range n.mirrors {
		r.set(n.m)
	}
	return nil
}

// MarkerFields: a connector reads the position and the velocity. The
// slice is shared by every mass point: callers must not modify it.
func (n *Node) MarkerFields() []string { return markerFields }

var (
	markerFields = []string{"position", "velocity"}
	markerLoads  = []string{"force"}
)

// MarkerKinematics writes the mass's position and velocity; a point body
// has no extent, so local is ignored. x is position then velocity.
func (n *Node) MarkerKinematics(x []float64, local [3]float64, pos, vel *[3]float64) {
	copy(pos[:], x[0:3])
	copy(vel[:], x[3:6])
}

// MarkerLoads: a force at the marker goes into the "force" input. The
// slice is shared by every mass point: callers must not modify it.
func (n *Node) MarkerLoads() []string { return markerLoads }

// MarkerLoad writes f into dst (the "force" input): a point body takes the
// whole force whatever local is.
func (n *Node) MarkerLoad(x []float64, local [3]float64, f [3]float64, dst []float64) {
	copy(dst[0:3], f[:])
}

// PointMarker reports true: the marker is the mass itself, so a connector
// (springdamper.PointMarker) may read the position and velocity and write
// the force directly, with the results of MarkerKinematics and
// MarkerLoad.
func (n *Node) PointMarker() bool { return true }

// MarkerJacobian writes ∂pos/∂x = [I₃ 0₃] (3 × 6, row-major) into dst.
// The velocity Jacobian ∂vel/∂v is the same identity.
func (n *Node) MarkerJacobian(x []float64, local [3]float64, dst []float64) {
	clear(dst[:18])
	for i := range 3 {
		dst[i*6+i] = 1
	}
}

func finite(x float64) bool { return x-x == 0 }

func cloneValues(v node.Values) node.Values {
	out := make(node.Values, len(v))
	for k, x := range v {
		if s, ok := x.([]float64); ok {
			x = slices.Clone(s)
		}
		out[k] = x
	}
	return out
}
