package springdamper

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/cosimgo/cosim/node"
)

// TypeName is the registry name of the node type.
const TypeName = "springdamper"

const pkgPath = "github.com/cosimgo/cosim/nodes/springdamper"

// Type is the node type, for node.NewRegistry(springdamper.Type(), …):
// a new value at each call, so that no caller can change another's. Its
// default construction is a connector between two ground markers at the
// origin.
func Type() node.Type { return node.Type{Name: TypeName, New: FromMap, Connector: NewConnector} }

// ForceFunc is Exudyn's springForceUserFunction: it returns the spring
// force f_SD (N, world frame) from the time t, the item number the caller
// set in Params.ItemNumber, the relative displacement Δp = p_m1 − p_m0 and
// velocity Δv = v_m1 − v_m0 (world frame), and the connector's stiffness,
// damping and offset. It replaces the linear law when the connector is
// active; it is never called when the connector is inactive. It must be a
// pure function of its arguments, safe for concurrent use (a graph may
// evaluate several connectors sharing it at once), and must not retain
// anything. Exudyn's first argument, the MainSystem, has no counterpart:
// a Go closure captures what it needs.
type ForceFunc func(t float64, itemNumber int, displacement, velocity, stiffness, damping, offset [3]float64) [3]float64

// forceFuncSignature documents the Function parameter's Go type.
const forceFuncSignature = "func(t float64, itemNumber int, displacement, velocity, stiffness, damping, offset [3]float64) [3]float64"

// Params are the connector's parameters as typed Go values, named as in
// Exudyn's item reference. The zero value is a valid but inactive, invisible connector;
// start from DefaultParams.
type Params struct {
	// Stiffness k (N/m) of the springs along world x, y and z (stiffness).
	// Any finite value, as in Exudyn: a negative entry is a destabilizing
	// spring (its potential energy is then indefinite). Default zero.
	Stiffness [3]float64
	// Damping d (N·s/m) along world x, y and z (damping). Any finite value,
	// as in Exudyn. Default zero.
	Damping [3]float64
	// Offset v_off (m) subtracted from the relative displacement (offset).
	// Default zero.
	Offset [3]float64
	// Active switches the force on (active; Exudyn's activeConnector).
	// An inactive connector outputs zero force, zero loads and zero
	// potential energy, and never calls ForceFunc. Default true.
	Active bool
	// ForceFunc, when not nil, replaces the linear law
	// (spring_force_user_function). It changes the node's outputs: there
	// is no potential_energy output then (see PotentialEnergy).
	ForceFunc ForceFunc
	// ItemNumber is passed to ForceFunc as its itemNumber (item_number).
	// cosim has no global item index: it is whatever integer the caller
	// chooses, e.g. to tell connectors sharing one ForceFunc apart.
	// Default 0.
	ItemNumber int

	// Visualization, kept for renderers; the physics ignores it.

	// Show draws the connector (show). Default true.
	Show bool
	// DrawSize is the spring diameter in m (draw_size; in a name→value map
	// also Exudyn's "drawSize"), ≥ −1; a negative
	// value (Exudyn's −1) means the renderer's default size. Default −1.
	DrawSize float64
	// Color is RGBA in [0, 1] (color); R = −1 means the default color.
	// Default [−1, −1, −1, −1].
	Color [4]float64
}

// DefaultParams returns Exudyn's defaults: zero stiffness, damping and
// offset, active, no user function, shown with the default size and color.
func DefaultParams() Params {
	return Params{Active: true, Show: true, DrawSize: -1, Color: [4]float64{-1, -1, -1, -1}}
}

// Parameter names in maps and error messages.
const (
	paramStiffness = "stiffness"
	paramDamping   = "damping"
	paramOffset    = "offset"
	paramActive    = "active"
	paramFunc      = "spring_force_user_function"
	paramItem      = "item_number"
	paramShow      = "show"
	paramDrawSize  = "draw_size"
	paramColor     = "color"
)

func (p Params) values() node.Values {
	var f any
	if p.ForceFunc != nil {
		f = p.ForceFunc
	}
	return node.Values{
		paramStiffness: p.Stiffness[:],
		paramDamping:   p.Damping[:],
		paramOffset:    p.Offset[:],
		paramActive:    p.Active,
		paramFunc:      f,
		paramItem:      p.ItemNumber,
		paramShow:      p.Show,
		paramDrawSize:  p.DrawSize,
		paramColor:     p.Color[:],
	}
}

// params is the parameter list every connector shares; the rest of the
// spec (inputs and outputs) depends on the markers.
var params = []node.Param{
	{Name: paramStiffness, Kind: node.Vector, Shape: node.Vec(3), Default: []float64{0, 0, 0}, Units: "N/m", Description: "Stiffness $\\mathbf{k}$ of the springs along world x, y, z; any finite value (negative: a destabilizing spring, as Exudyn allows)"},
	{Name: paramDamping, Kind: node.Vector, Shape: node.Vec(3), Default: []float64{0, 0, 0}, Units: "N s/m", Description: "Damping $\\mathbf{d}$ of the dampers along world x, y, z; any finite value"},
	{Name: paramOffset, Kind: node.Vector, Shape: node.Vec(3), Default: []float64{0, 0, 0}, Units: "m", Description: "Offset $\\mathbf{v}_{\\mathrm{off}}$ subtracted from the relative displacement"},
	{Name: paramActive, Kind: node.Bool, Default: true, Description: "Whether the connector acts; inactive: zero force, loads and potential energy"},
	{Name: paramFunc, Kind: node.Function, Signature: forceFuncSignature, Description: "User force law replacing the linear one when active (Go only, never from a scene); with it the node has no potential_energy output"},
	{Name: paramItem, Kind: node.Integer, Default: 0, Description: "Item number passed to the user function; any integer the caller chooses"},
	{Name: paramShow, Kind: node.Bool, Default: true, Description: "Visualization: draw the connector"},
	{Name: paramDrawSize, Kind: node.Real, Default: -1.0, Units: "m", Range: node.Between(-1, math.Inf(1)), Description: "Visualization: spring diameter; negative (−1) means the default size", Aliases: []string{"drawSize"}},
	{Name: paramColor, Kind: node.Vector, Shape: node.Vec(4), Default: []float64{-1, -1, -1, -1}, Units: "1", Range: node.Between(-1, 1), Description: "Visualization: RGBA color in [0, 1]; R = −1 means the default color"},
}

// model is the validated parameter set in the form Outputs reads.
type model struct {
	k, d, off [3]float64
	active    bool
	uf        ForceFunc
	item      int
}

// newModel turns validated values into a model; it reports a
// spring_force_user_function of the wrong Go type.
func newModel(v node.Values) (model, error) {
	m := model{active: v.Bool(paramActive), item: v.Int(paramItem)}
	copy(m.k[:], v.Floats(paramStiffness))
	copy(m.d[:], v.Floats(paramDamping))
	copy(m.off[:], v.Floats(paramOffset))
	switch f := v[paramFunc].(type) {
	case nil:
	case ForceFunc:
		m.uf = f
	case func(float64, int, [3]float64, [3]float64, [3]float64, [3]float64, [3]float64) [3]float64:
		m.uf = f
	default:
		return model{}, &node.ParamError{Node: TypeName, Param: paramFunc, Value: fmt.Sprintf("%T", f),
			Reason: "is not a springdamper.ForceFunc", Valid: "a Go function " + forceFuncSignature}
	}
	return m, nil
}

// marker is an end (a node.Attachment) resolved against the connector's layouts: the body
// and local point of this connector, the layout shared by its signature
// (sig.go).
type marker struct {
	body  node.Marker
	local [3]float64
	*markerSig
}

// Kinds of marker for Outputs' direct path (see node.PointMarker).
const (
	kindGround = iota // fixed world point: pos = local, vel = 0
	kindPoint         // a node.PointMarker body: pos, vel = u[in0:in0+6], load = f
	kindBody          // any other body: the node.Marker methods
)

// hotMarker is what Outputs reads of a marker, packed small so that a
// chain of thousands of connectors stays in cache (a ground marker's
// point is the marker's local).
type hotMarker struct {
	in0, y0  uint16 // a connector's inputs and outputs number a few dozen
	kind     uint8
	pushable bool
}

// Errors of New and Connect, for errors.Is.
var (
	// ErrNotMarker: a body does not implement node.Marker or node.Node
	// (it is node.ErrNotMarker).
	ErrNotMarker = node.ErrNotMarker
	// ErrMarkerFields: a body's MarkerFields or MarkerLoads name fields its
	// spec does not have.
	ErrMarkerFields = errors.New("marker fields do not match the body's spec")
	// ErrPotentialEnergy: the potential energy of a connector with a user
	// force function is undefined (Exudyn raises).
	ErrPotentialEnergy = errors.New("springdamper: PotentialEnergy is not defined with a spring_force_user_function")
	// ErrMarkerLocal: an end's local point is invalid: not finite (for
	// any end, ground included; the error wraps node.ErrNonFinite too), or
	// refused by the body's node.MarkerLocalChecker (a ball's axis that is
	// zero or not a unit vector). It is node.ErrMarkerLocal.
	ErrMarkerLocal = node.ErrMarkerLocal
)

// checkMarkers validates the ends' local points (node.Attachment's
// CheckLocal) and refuses an end that names a body instead of giving it
// (New takes bodies as Go values). conn is the connector's name in a
// graph ("" from New); the error names it and the marker (m0, m1), and
// wraps ErrMarkerLocal for a local point.
func checkMarkers(conn string, ms [2]node.Attachment) error {
	for k, m := range ms {
		var err error
		if !m.IsGround() && m.Body == nil {
			err = fmt.Errorf("marker m%d names the body %s: New takes the body itself (node.At); connect by name in a graph with Connect", k, node.Quote(m.Name))
		} else if lerr := m.CheckLocal(); lerr != nil {
			err = fmt.Errorf("marker m%d: %w", k, lerr)
		}
		switch {
		case err == nil:
		case conn != "":
			return &node.EndError{Type: TypeName, Connector: conn, End: k, Err: err}
		default:
			return fmt.Errorf("%s: %w", TypeName, err)
		}
	}
	return nil
}

// Node is the Cartesian spring-damper connector. Build it with New,
// FromMap or Connect.
type Node struct {
	node.Stateless
	// Outputs reads m, hot and sig, first in the struct; the rest is
	// cold. SetParams publishes m to the batch kernels. The record is 256
	// bytes (an allocator size class; TestNodeSize): what a connector
	// shares with others of its signature (spec, whether it has a
	// potential energy) is read through sig.
	m    node.Published[model]
	hot  [2]hotMarker
	sig  *sig
	vals node.Values // shared between connectors of equal Params: never modified in place
	mk   [2]marker
}

var (
	_ node.Node            = (*Node)(nil)
	_ node.Outputter       = (*Node)(nil)
	_ node.OutputsJacobian = (*Node)(nil)
	_ node.Tunable         = (*Node)(nil)
)

// Output names, as in Exudyn's output variables (Displacement, Distance,
// Velocity, Force, PotentialEnergy) in the snake_case of every cosim
// field; the CamelCase names are the fields' former names
// (node.Field.Formerly), still resolved with a deprecation warning.
const (
	outDisplacement    = "displacement"
	outDistance        = "distance"
	outVelocity        = "velocity"
	outForce           = "force"
	outPotentialEnergy = "potential_energy"
)

// Output offsets, fixed for every connector (the load outputs follow).
const (
	yDisplacement = 0
	yDistance     = 3
	yVelocity     = 4
	yForce        = 7
	yEnergy       = 10
)

// New builds a connector between the ends m0 and m1 (markers m0 and m1:
// node.At(body, local) or node.GroundAt(point)) from typed parameters.
// Every invalid parameter is a *node.ParamError naming "springdamper"
// (several are joined with errors.Join); a body that is not a node.Node,
// or whose marker fields are not in its spec, is an error wrapping
// ErrNotMarker or ErrMarkerFields. An end whose local point is not
// finite, or is refused by its body's node.MarkerLocalChecker (a ball's
// axis must be a unit vector), is an error wrapping ErrMarkerLocal that
// names the marker (m0 or m1) and the value.
func New(p Params, m0, m1 node.Attachment) (*Node, error) {
	if err := checkMarkers("", [2]node.Attachment{m0, m1}); err != nil {
		return nil, err
	}
	return newChecked("", &p, m0, m1)
}

// newChecked is New after the markers' check, for the connector named
// conn ("" outside a graph).
func newChecked(conn string, p *Params, m0, m1 node.Attachment) (*Node, error) {
	vals, mod, err := checkParams(p)
	if err != nil {
		return nil, err
	}
	return newNodeModel(conn, vals, mod, m0, m1)
}

// FromMap builds a connector between two ground markers at the origin from
// a name→value map (Exudyn's parameter names in snake_case); names not
// given take their defaults, and a nil map gives the default node. Bodies
// are Go values, so markers on bodies are attached with New or Connect.
//
// Exudyn's camelCase visualization name "drawSize" is accepted as an
// alias of "draw_size" (node.Param.Aliases); giving both is an error. m is
// not modified.
func FromMap(m map[string]any) (node.Node, error) {
	vals, err := node.Resolve(TypeName, params, nil, m)
	if err != nil {
		return nil, err
	}
	return newNode("", vals, node.GroundAt([3]float64{}), node.GroundAt([3]float64{}))
}

// newNode builds the connector named conn ("" outside a graph); an error
// about marker k is a *node.EndError in a graph.
func newNode(conn string, vals node.Values, m0, m1 node.Attachment) (*Node, error) {
	mod, err := newModel(vals)
	if err != nil {
		return nil, err
	}
	return newNodeModel(conn, vals, mod, m0, m1)
}

// newNodeModel builds the connector from validated values and their
// model; its spec and marker layout come from the signature cache.
func newNodeModel(conn string, vals node.Values, mod model, m0, m1 node.Attachment) (*Node, error) {
	endErr := func(k int, format string, args ...any) error {
		err := fmt.Errorf(format, args...)
		if conn != "" {
			return &node.EndError{Type: TypeName, Connector: conn, End: k, Err: err}
		}
		return fmt.Errorf("%s: %w", TypeName, err)
	}
	n := &Node{vals: vals}
	n.m.Set(mod)
	var bodies [2]*bodySig
	for k, mm := range [2]node.Attachment{m0, m1} {
		mk := &n.mk[k]
		mk.local = mm.Local
		mk.markerSig = &groundSig
		if mm.Body == nil {
			continue
		}
		body, ok := mm.Body.(node.Node)
		if !ok {
			return nil, endErr(k, "marker %d: body of type %T implements node.Marker but not node.Node: %w", k, mm.Body, ErrNotMarker)
		}
		b, err := bodySigOf(k, body.Spec(), mm.Body, endErr)
		if err != nil {
			return nil, err
		}
		bodies[k] = b
		mk.body = mm.Body
	}
	n.sig = sigOf(mod.uf == nil, bodies)
	for k := range n.mk {
		mk := &n.mk[k]
		if mk.body != nil {
			mk.markerSig = &n.sig.mk[k]
		}
		h := &n.hot[k]
		if mk.in0 > math.MaxUint16 || mk.y0 > math.MaxUint16 {
			panic(fmt.Sprintf("springdamper: marker %d at input %d, output %d: more than 2^16 values", k, mk.in0, mk.y0))
		}
		h.in0, h.y0, h.pushable = uint16(mk.in0), uint16(mk.y0), mk.y1 > mk.y0
		switch pm, ok := mk.body.(node.PointMarker); {
		case mk.body == nil:
			h.kind = kindGround
		case ok && pm.PointMarker() && mk.in1-mk.in0 == 6 && (mk.y1-mk.y0 == 3 || mk.y1 == mk.y0):
			h.kind = kindPoint
		default:
			h.kind = kindBody
		}
	}
	return n, nil
}

func bodyField(s *node.Spec, name string) (node.Field, bool) {
	if i := s.StateLayout.Index(name); i >= 0 {
		return s.State[i], true
	}
	if i := s.OutputLayout.Index(name); i >= 0 {
		return s.Outputs[i], true
	}
	return node.Field{}, false
}

func indexInput(ins []node.Input, name string) int {
	for i, in := range ins {
		if in.Name == name {
			return i
		}
	}
	return -1
}

// Spec describes this connector: its inputs and load outputs depend on the
// markers, so connectors of different signatures have different specs;
// connectors of one signature share one (immutable).
//
// For each body marker k (0 or 1) there is a replacing input
// "m<k>_<field>" per name in the body's MarkerFields, with the body's
// shape and units, and, when the body can be pushed, an output
// "m<k>_<load>" per name in its MarkerLoads. The outputs are displacement,
// distance, velocity, force, potential_energy (only without a user force
// function), then the load outputs of marker 0 and of marker 1.
func (n *Node) Spec() *node.Spec { return n.sig.spec }

// kinematics writes marker k's world position and velocity. The body's
// MarkerKinematics takes pointers; to keep them from escaping to the heap
// it writes into caller scratch (a node.Marker is an interface, so the
// compiler cannot prove they do not escape).
func (mk *marker) kinematics(u []float64, pos, vel *[3]float64) {
	if mk.body == nil {
		*pos, *vel = mk.local, [3]float64{}
		return
	}
	mk.body.MarkerKinematics(u[mk.in0:mk.in1], mk.local, pos, vel)
}

// state returns p0, v0, p1, v1 from the inputs, using dst[0:3] and
// dst[4:7] as scratch for the body's MarkerKinematics (see kinematics).
func (n *Node) state(u, dst []float64) (p0, v0, p1, v1 [3]float64) {
	pos := (*[3]float64)(dst[yDisplacement : yDisplacement+3])
	vel := (*[3]float64)(dst[yVelocity : yVelocity+3])
	n.mk[0].kinematics(u, pos, vel)
	p0, v0 = *pos, *vel
	n.mk[1].kinematics(u, pos, vel)
	p1, v1 = *pos, *vel
	return
}

// force is f_SD(t, Δp, Δv): zero when inactive, the user function when
// set, the linear law otherwise.
func (m *model) force(t float64, dp, dv [3]float64) ([3]float64, error) {
	if !m.active {
		return [3]float64{}, nil
	}
	if m.uf != nil {
		f := m.uf(t, m.item, dp, dv, m.k, m.d, m.off)
		if f[0]-f[0] != 0 || f[1]-f[1] != 0 || f[2]-f[2] != 0 {
			return f, fmt.Errorf("%s: the user force function returned %v at t = %v for displacement %v, velocity %v: %w", TypeName, f, t, dp, dv, node.ErrNonFinite)
		}
		return f, nil
	}
	var f [3]float64
	for i := range 3 {
		f[i] = m.k[i]*(dp[i]-m.off[i]) + m.d[i]*dv[i]
	}
	return f, nil
}

// energy is ½ Σ k_i (Δp_i − off_i)², zero when inactive.
func (m *model) energy(dp [3]float64) float64 {
	if !m.active {
		return 0
	}
	var e float64
	for i := range 3 {
		s := dp[i] - m.off[i]
		e += m.k[i] * s * s
	}
	return e / 2
}

// Outputs writes displacement, distance, velocity, force, potential_energy
// (when there is no user function) and the marker loads into dst: the
// load of marker 0 is its body's MarkerLoad of +f_SD, that of marker 1 of
// −f_SD. x is unused (the connector has no state). The only error is a
// non-finite force from the user function, wrapping node.ErrNonFinite. It
// allocates nothing.
//
// Ground markers and PointMarker bodies are read and pushed directly;
// other bodies through their node.Marker methods.
func (n *Node) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	// The body of this function works on scalars: [3]float64 temporaries
	// passed by value cost store-forwarding stalls that made up most of
	// an evaluation.
	u := in.Values
	h0, h1 := &n.hot[0], &n.hot[1]
	var p0x, p0y, p0z, v0x, v0y, v0z, p1x, p1y, p1z, v1x, v1y, v1z float64
	if h0.kind != kindBody && h1.kind != kindBody {
		p0x, p0y, p0z, v0x, v0y, v0z = h0.direct(u, &n.mk[0].local)
		p1x, p1y, p1z, v1x, v1y, v1z = h1.direct(u, &n.mk[1].local)
	} else {
		p0, v0, p1, v1 := n.state(u, dst)
		p0x, p0y, p0z, v0x, v0y, v0z = p0[0], p0[1], p0[2], v0[0], v0[1], v0[2]
		p1x, p1y, p1z, v1x, v1y, v1z = p1[0], p1[1], p1[2], v1[0], v1[1], v1[2]
	}
	dpx, dpy, dpz := p1x-p0x, p1y-p0y, p1z-p0z
	dvx, dvy, dvz := v1x-v0x, v1y-v0y, v1z-v0z
	m := n.m.Get()
	var fx, fy, fz float64
	if m.active && m.uf == nil {
		fx, fy, fz = m.linear(dpx, dpy, dpz, dvx, dvy, dvz)
	} else {
		f, err := m.force(t, [3]float64{dpx, dpy, dpz}, [3]float64{dvx, dvy, dvz})
		if err != nil {
			return err
		}
		fx, fy, fz = f[0], f[1], f[2]
	}
	o := dst[:yEnergy:yEnergy]
	o[yDisplacement], o[yDisplacement+1], o[yDisplacement+2] = dpx, dpy, dpz
	o[yDistance] = math.Sqrt(dpx*dpx + dpy*dpy + dpz*dpz)
	o[yVelocity], o[yVelocity+1], o[yVelocity+2] = dvx, dvy, dvz
	o[yForce], o[yForce+1], o[yForce+2] = fx, fy, fz
	if n.sig.hasPE {
		dst[yEnergy] = m.energyOf(dpx, dpy, dpz)
	}
	if h0.pushable {
		n.load(0, u, fx, fy, fz, dst)
	}
	if h1.pushable {
		n.load(1, u, -fx, -fy, -fz, dst)
	}
	return nil
}

// linear is the linear force law f_i = k_i·(Δp_i − off_i) + d_i·Δv_i of
// an active connector without a user function, on scalars; Outputs and
// the batch kernel share it so that both compute the same bits.
func (m *model) linear(dpx, dpy, dpz, dvx, dvy, dvz float64) (fx, fy, fz float64) {
	fx = m.k[0]*(dpx-m.off[0]) + m.d[0]*dvx
	fy = m.k[1]*(dpy-m.off[1]) + m.d[1]*dvy
	fz = m.k[2]*(dpz-m.off[2]) + m.d[2]*dvz
	return
}

// energyOf is the potential_energy output on scalars: ½ Σ k_i (Δp_i −
// off_i)², zero when inactive (shared with the batch kernel).
func (m *model) energyOf(dpx, dpy, dpz float64) float64 {
	var e float64
	if m.active {
		sx, sy, sz := dpx-m.off[0], dpy-m.off[1], dpz-m.off[2]
		e = m.k[0] * sx * sx
		e += m.k[1] * sy * sy
		e += m.k[2] * sz * sz
		e /= 2
	}
	return e
}

// load writes marker k's load of the force (fx, fy, fz) into dst.
func (n *Node) load(k int, u []float64, fx, fy, fz float64, dst []float64) {
	h := &n.hot[k]
	if h.kind == kindPoint {
		y0 := int(h.y0)
		l := dst[y0 : y0+3 : y0+3]
		l[0], l[1], l[2] = fx, fy, fz
		return
	}
	mk := &n.mk[k]
	mk.body.MarkerLoad(u[mk.in0:mk.in1], mk.local, [3]float64{fx, fy, fz}, dst[mk.y0:mk.y1])
}

// direct returns the position and velocity of a ground or point marker.
func (h *hotMarker) direct(u []float64, local *[3]float64) (px, py, pz, vx, vy, vz float64) {
	if h.kind == kindGround {
		return local[0], local[1], local[2], 0, 0, 0
	}
	i := int(h.in0)
	s := u[i : i+6 : i+6]
	return s[0], s[1], s[2], s[3], s[4], s[5]
}

// Force returns f_SD for a relative displacement and velocity at time t,
// as Outputs computes it: zero when inactive, the user function when set.
func (n *Node) Force(t float64, displacement, velocity [3]float64) ([3]float64, error) {
	return n.m.Get().force(t, displacement, velocity)
}

// PotentialEnergy returns V = ½ Σ k_i (Δp_i − off_i)² for a relative
// displacement, zero when the connector is inactive. With a user force
// function the energy is undefined (Exudyn raises): it returns
// ErrPotentialEnergy.
func (n *Node) PotentialEnergy(displacement [3]float64) (float64, error) {
	if !n.sig.hasPE {
		return 0, ErrPotentialEnergy
	}
	return n.m.Get().energy(displacement), nil
}

// MissingFieldReason explains why the connector has no output or input
// called name, or returns "" when it has nothing to say. A graph can use
// it to tell users why "potential_energy" (formerly "PotentialEnergy") is
// missing (see the package documentation).
func (n *Node) MissingFieldReason(name string) string {
	if (name == outPotentialEnergy || name == "PotentialEnergy") && !n.sig.hasPE {
		return "a springdamper with a spring_force_user_function has no potential_energy output: the energy of a user force law is undefined (Exudyn raises)"
	}
	return ""
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
// when one is invalid nothing changes. Adding or removing the user force
// function is refused (a *node.ParamError): it would change the node's
// outputs, and a Spec never changes. "drawSize" is accepted as an alias of
// "draw_size", as in FromMap. It must not be called while a graph
// containing the node is stepping.
func (n *Node) SetParams(p map[string]any) error {
	vals, err := node.Resolve(TypeName, params, n.vals, p)
	if err != nil {
		return err
	}
	m, err := newModel(vals)
	if err != nil {
		return err
	}
	if (m.uf == nil) != (n.m.Get().uf == nil) {
		return &node.ParamError{Node: TypeName, Param: paramFunc, Reason: "cannot be added or removed after construction: it changes the connector's outputs (potential_energy)", Valid: "a function of the same presence as at construction"}
	}
	n.vals = vals
	n.m.Set(m)
	return nil
}
