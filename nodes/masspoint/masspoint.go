package masspoint

import (
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/cosimgo/cosim/node"
)

// TypeName is the registry name of the node type.
const TypeName = "masspoint"

// Type is the node type, for node.NewRegistry(masspoint.Type(), …): a
// new value at each call, so that no caller can change another's.
func Type() node.Type { return node.Type{Name: TypeName, New: FromMap} }

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

// law is the part of the parameters the step and the derivatives read:
// the law of motion. The node publishes it to its batches (batch.go),
// which keep a row of it per member — not the initial conditions, which
// differ from mass to mass in a chain while the law is usually shared,
// so that a kernel then reads one row for all.
type law struct {
	mass    float64
	gravity vec
}

// vec is a 3-vector (a position, a velocity, a force) as the step reads
// it. The arithmetic is written on named fields rather than array
// elements because the compiler charges less for them when deciding to
// inline: accel, step and derivatives inline into the batch kernels'
// row loops, where a call per row would cost a third of the row.
type vec struct{ x, y, z float64 }

func toVec(a [3]float64) vec    { return vec{a[0], a[1], a[2]} }
func (v vec) array() [3]float64 { return [3]float64{v.x, v.y, v.z} }

// state is a mass point's state, laid out as Spec().StateLayout
// (position at offPosition, velocity at offVelocity: init checks it).
type state struct{ pos, vel vec }

// stateOf views the state x (or a dst of the same layout) as a state.
func stateOf(x []float64) *state { return (*state)(unsafe.Pointer((*[stateSize]float64)(x))) }

// initial is the initial conditions, read only by InitialState.
type initial struct {
	position, velocity [3]float64
}

// newModel returns the law and the initial conditions of validated
// values.
func newModel(v node.Values) (law, initial) {
	var l law
	var in initial
	l.mass = v.Float("mass")
	l.gravity = toVec([3]float64(v.Floats("gravity")))
	copy(in.position[:], v.Floats("initial_position"))
	copy(in.velocity[:], v.Floats("initial_velocity"))
	return l, in
}

// Node is a 3D point mass. Build it with New or FromMap.
type Node struct {
	// vals are the validated parameters; nil for a node built by New
	// from valid Params, whose values are those of m and app (values
	// builds them on demand, so that a mass costs no map).
	vals node.Values
	// law is what Update, Derivatives and the batch kernels read;
	// SetParams publishes it to the kernels.
	law  node.Published[law]
	init initial
	app  *node.Appearance // nil: the default appearance
}

var (
	_ node.Node        = (*Node)(nil)
	_ node.Deriver     = (*Node)(nil)
	_ node.Tunable     = (*Node)(nil)
	_ node.Marker      = (*Node)(nil)
	_ node.Batcher     = (*Node)(nil)
	_ node.PointMarker = (*Node)(nil)

	_ node.DerivativesJacobian = (*Node)(nil)
)

// New builds a mass point from typed parameters. Every invalid value is a
// *node.ParamError (several are joined with errors.Join).
//
// Valid Params are recognized without building node.Values (valid); any
// other goes through node.Resolve, whose errors are the reference.
func New(p Params) (*Node, error) {
	if p.valid() {
		n := &Node{init: initial{position: p.InitialPosition, velocity: p.InitialVelocity}}
		n.law.Set(law{mass: p.Mass, gravity: toVec(p.Gravity)})
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
	return fromValues(vals), nil
}

// fromValues builds a mass point from validated values.
func fromValues(vals node.Values) *Node {
	l, in := newModel(vals)
	n := &Node{vals: vals, init: in}
	n.law.Set(l)
	return n
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
	l := n.law.Get()
	p := Params{Mass: l.mass, Gravity: l.gravity.array(), InitialPosition: n.init.position, InitialVelocity: n.init.velocity, Appearance: n.appearance()}
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
	return fromValues(vals), nil
}

// Spec describes the node; it is the same value for every mass point.
func (n *Node) Spec() *node.Spec { return spec }

// InitialState writes the initial position and velocity into dst.
func (n *Node) InitialState(dst []float64) {
	copy(dst[offPosition:offPosition+3], n.init.position[:])
	copy(dst[offVelocity:offVelocity+3], n.init.velocity[:])
}

// accel is dv/dt = F/m + g for the force f, shared by Update,
// Derivatives and the batch kernels so that all evaluate the same
// expression. It inlines.
func (m *law) accel(f vec) vec {
	return vec{f.x/m.mass + m.gravity.x, f.y/m.mass + m.gravity.y, f.z/m.mass + m.gravity.z}
}

// Update advances the state by one semi-implicit Euler step:
// v⁺ = v + Δt·(F/m + g), then x⁺ = x + Δt·v⁺. It returns an error
// wrapping node.ErrNonFinite when dt is NaN or infinite.
func (n *Node) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	if !finite(dt) {
		return fmt.Errorf("%s: time step dt = %v: %w", TypeName, dt, node.ErrNonFinite)
	}
	f := toVec(*(*[3]float64)(in.Values[offForce:]))
	advance(dt, stateOf(x), n.law.Get().accel(f), stateOf(dst))
	return nil
}

// advance is one semi-implicit Euler step of one mass under the
// acceleration a (accel of the force), shared by Update and the batch
// kernels so that all compute the same bits: a kernel given the force
// as two terms (node.BatchPairAdder) passes accel of their sum, which is
// what the per-node path's gather writes, so the operations and their
// order are the same. It inlines.
func advance(dt float64, x *state, a vec, dst *state) {
	v := vec{x.vel.x + dt*a.x, x.vel.y + dt*a.y, x.vel.z + dt*a.z}
	dst.vel = v
	dst.pos = vec{x.pos.x + dt*v.x, x.pos.y + dt*v.y, x.pos.z + dt*v.z}
}

// Derivatives writes dx/dt = v and dv/dt = F/m + g into dst.
func (n *Node) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	f := toVec(*(*[3]float64)(in.Values[offForce:]))
	n.law.Get().derivatives(stateOf(x), f, stateOf(dst))
	return nil
}

// derivatives writes one mass's dx/dt under the force f, shared by
// Derivatives and the batch kernels as step is. It inlines.
func (m *law) derivatives(x *state, f vec, dst *state) {
	dst.pos = x.vel
	dst.vel = m.accel(f)
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
			d[(offVelocity+i)*nu+offForce+i] = 1 / n.law.Get().mass
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
	l, in := newModel(vals)
	n.vals, n.init = vals, in
	n.law.Set(l)
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

// PointMarker reports true (node.PointMarker): the marker is the mass
// itself, so a connector may read the position and velocity and write
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
