package spring

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/cosimgo/cosim/node"
)

// TypeName is the registry name of the node type.
const TypeName = "spring"

const pkgPath = "github.com/cosimgo/cosim/nodes/spring"

// Type is the node type, for node.NewRegistry (a new value at each
// call). Its default construction (for listings and
// guides) is a spring between ground points at the origin and at
// [1, 0, 0] m; attach it to bodies with New or Connect.
func Type() node.Type { return node.Type{Name: TypeName, New: FromMap, Connector: NewConnector} }

// Params are the spring's parameters. The zero value is not valid (the
// minimum length is zero); start from DefaultParams.
type Params struct {
	// Stiffness k in N/m, ≥ 0. Default 0.
	Stiffness float64
	// Damping c in N·s/m, ≥ 0. Default 0.
	Damping float64
	// RestLength ℓ₀ in m, ≥ 0. Default 0 (a zero-length spring).
	RestLength float64
	// MinLength is the length in m, > 0, below which the markers count
	// as coincident: the direction of the force is undefined there. At
	// construction it is an error; during a run, Outputs returns an error
	// naming the node, "length" and the time. Default 1e-9.
	MinLength float64
}

// DefaultParams returns a spring without stiffness or damping, of rest
// length zero, with the default minimum length 1e-9 m.
func DefaultParams() Params { return Params{MinLength: 1e-9} }

func (p Params) values() node.Values {
	return node.Values{"stiffness": p.Stiffness, "damping": p.Damping, "rest_length": p.RestLength, "min_length": p.MinLength}
}

var params = append([]node.Param{
	{Name: "stiffness", Kind: node.Real, Default: 0.0, Units: "N/m", Range: node.NonNegative(), Description: "Stiffness $k$ along the line between the markers"},
	{Name: "damping", Kind: node.Real, Default: 0.0, Units: "N s/m", Range: node.NonNegative(), Description: "Damping $c$ of the length rate"},
	{Name: "rest_length", Kind: node.Real, Default: 0.0, Units: "m", Range: node.NonNegative(), Description: "Rest length $\\ell_0$"},
	{Name: "min_length", Kind: node.Real, Default: 1e-9, Units: "m", Range: node.Positive(),
		Description: "Length below which the markers count as coincident and the direction is undefined: an error at construction and during a run"},
}, node.VisualParams("diameter of the coil drawn for the spring")...)

// Errors, for errors.Is.
var (
	// ErrNotMarker: a body does not implement node.Marker or node.Node
	// (it is node.ErrNotMarker).
	ErrNotMarker = node.ErrNotMarker
	// ErrMarkerFields: a body's MarkerFields or MarkerLoads name fields
	// its spec does not have.
	ErrMarkerFields = errors.New("marker fields do not match the body's spec")
	// ErrMarkerLocal: an end's local point is not finite, or is refused
	// by its body's node.MarkerLocalChecker (a ball's axis must be a unit
	// vector). It is node.ErrMarkerLocal.
	ErrMarkerLocal = node.ErrMarkerLocal
	// ErrCoincident: the markers are closer than min_length, so the
	// direction of the spring is undefined: at construction (the markers'
	// initial positions), or during a run (Outputs' error, a
	// *node.FieldError for "length").
	ErrCoincident = errors.New("spring markers coincide: the direction of the force is undefined")
)

// Output offsets; the marker load outputs follow.
const (
	yLength   = 0
	yRate     = 1
	yTension  = 2
	yForce    = 3
	yEnergy   = 6
	yFixedEnd = 7
)

// marker is an end (a node.Attachment) resolved against the spring's
// layouts.
type marker struct {
	body    node.Marker
	point   bool // a point marker: u[in0:in0+6] is position, velocity; the load is the force
	local   [3]float64
	in0     int    // the body's marker fields in Inputs.Values: [in0, in1)
	in1     int    //
	velCols []bool // per component: a Velocity-role field
	fields  []string
	loads   []string
	y0, y1  int // load outputs in dst (y0 == y1: not pushable)
}

// Node is the geometric spring-damper. Build it with New, FromMap or
// Connect.
type Node struct {
	node.Stateless
	// law is what Outputs and the batch kernel read; SetParams
	// publishes it to the kernels.
	law  node.Published[law]
	spec *node.Spec
	vals node.Values
	mk   [2]marker
}

// law is the spring's parameters in the form Outputs and the batch
// kernel read.
type law struct {
	k, c, l0, lmin float64
}

var (
	_ node.Node            = (*Node)(nil)
	_ node.Outputter       = (*Node)(nil)
	_ node.OutputsJacobian = (*Node)(nil)
	_ node.Tunable         = (*Node)(nil)
)

// New builds a spring between markers m0 and m1. Every invalid parameter
// is a *node.ParamError; a body that is not a node.Node or whose marker
// fields are not in its spec is an error wrapping ErrNotMarker or
// ErrMarkerFields; a non-finite Local wraps ErrMarkerLocal; markers whose
// initial positions (from the bodies' InitialState, when the marker
// fields are state fields) are closer than min_length wrap ErrCoincident.
func New(p Params, m0, m1 node.Attachment) (*Node, error) {
	vals, err := node.Resolve(TypeName, params, nil, p.values())
	if err != nil {
		return nil, err
	}
	return newNode("", vals, m0, m1)
}

// FromMap builds a spring from a name→value map between ground points at
// the origin and at [1, 0, 0] m (markers on bodies are Go values: use
// New or Connect).
func FromMap(m map[string]any) (node.Node, error) {
	vals, err := node.Resolve(TypeName, params, nil, m)
	if err != nil {
		return nil, err
	}
	return newNode("", vals, node.GroundAt([3]float64{}), node.GroundAt([3]float64{1, 0, 0}))
}

func newNode(conn string, vals node.Values, m0, m1 node.Attachment) (*Node, error) {
	prefix := TypeName + ": "
	if conn != "" {
		prefix += fmt.Sprintf("connector %q: ", conn)
	}
	// endErr is an error about marker k: a *node.EndError in a graph.
	endErr := func(k int, format string, args ...any) error {
		err := fmt.Errorf(format, args...)
		if conn != "" {
			return &node.EndError{Type: TypeName, Connector: conn, End: k, Err: err}
		}
		return fmt.Errorf("%s%w", prefix, err)
	}
	n := &Node{vals: vals}
	n.set(vals)
	outs := []node.Field{
		{Name: "length", Units: "m", Description: "Length $\\ell = |\\mathbf{p}_1 - \\mathbf{p}_0|$ between the markers"},
		{Name: "length_rate", Units: "m/s", Description: "Length rate $\\dot\\ell = \\mathbf{u}\\cdot(\\mathbf{v}_1 - \\mathbf{v}_0)$"},
		{Name: "tension", Units: "N", Description: "Tension $f = k(\\ell - \\ell_0) + c\\,\\dot\\ell$ (positive: pulling the markers together)"},
		{Name: "force", Shape: node.Vec(3), Units: "N", Description: "Force $f\\,\\mathbf{u}$ on marker 0, world frame ($-f\\,\\mathbf{u}$ on marker 1), $\\mathbf{u}$ the unit vector from marker 0 to marker 1"},
		{Name: "potential_energy", Units: "J", Description: "Elastic energy $V = \\tfrac12 k(\\ell - \\ell_0)^2$"},
	}
	var ins []node.Input
	off := 0
	for k, mm := range [2]node.Attachment{m0, m1} {
		mk := &n.mk[k]
		mk.local = mm.Local
		if !mm.IsGround() && mm.Body == nil {
			return nil, endErr(k, "marker m%d names the body %s: New takes the body itself (node.At); connect by name in a graph with Connect", k, node.Quote(mm.Name))
		}
		if err := mm.CheckLocal(); err != nil {
			return nil, endErr(k, "marker m%d: %w", k, err)
		}
		if mm.Body == nil {
			continue
		}
		body, ok := mm.Body.(node.Node)
		if !ok {
			return nil, endErr(k, "marker m%d: body of type %T implements node.Marker but not node.Node: %w", k, mm.Body, ErrNotMarker)
		}
		bs := body.Spec()
		mk.body = mm.Body
		mk.fields, mk.loads = mm.Body.MarkerFields(), mm.Body.MarkerLoads()
		mk.in0 = off
		for _, fn := range mk.fields {
			f, ok := bodyField(bs, fn)
			if !ok {
				return nil, endErr(k, "marker m%d: body %s names marker field %q, which is not a state field or output of it: %w", k, bs.Type, fn, ErrMarkerFields)
			}
			ins = append(ins, node.Input{Name: fmt.Sprintf("m%d_%s", k, fn), Shape: f.Shape, Units: f.Units, Combine: node.Replacing,
				Description: fmt.Sprintf("Marker %d: the %s field %q: %s", k, bs.Type, fn, f.Description)})
			for range f.Shape.Len() {
				mk.velCols = append(mk.velCols, f.Role == node.Velocity)
			}
			off += f.Shape.Len()
		}
		mk.in1 = off
		for _, ln := range mk.loads {
			i := slices.IndexFunc(bs.Inputs, func(in node.Input) bool { return in.Name == ln })
			if i < 0 {
				return nil, endErr(k, "marker m%d: body %s names marker load %q, which is not an input of it: %w", k, bs.Type, ln, ErrMarkerFields)
			}
			in := bs.Inputs[i]
			sign := "+f u"
			if k == 1 {
				sign = "−f u"
			}
			outs = append(outs, node.Field{Name: fmt.Sprintf("m%d_%s", k, ln), Shape: in.Shape, Units: in.Units,
				Description: fmt.Sprintf("Marker %d: the spring's load on the %s input %q (force %s at the marker)", k, bs.Type, ln, sign)})
		}
		pm, isPoint := mm.Body.(node.PointMarker)
		mk.point = isPoint && pm.PointMarker() && mk.in1-mk.in0 == 6
	}
	n.spec = node.NewSpec(node.Spec{Type: TypeName, Package: pkgPath, Params: params, Inputs: ins, Outputs: outs, Feedthrough: true, Meta: metadata()})
	for k := range n.mk {
		mk := &n.mk[k]
		if len(mk.loads) == 0 {
			continue
		}
		mk.y0 = n.spec.OutputOffset(fmt.Sprintf("m%d_%s", k, mk.loads[0]))
		i := n.spec.OutputLayout.Index(fmt.Sprintf("m%d_%s", k, mk.loads[len(mk.loads)-1]))
		mk.y1 = n.spec.OutputLayout.Offset(i) + n.spec.Outputs[i].Shape.Len()
		if mk.point && mk.y1-mk.y0 != 3 {
			mk.point = false
		}
	}
	// The markers' initial positions, when the bodies' marker fields are
	// state fields: coincident markers are a build-time error.
	if p0, ok0 := n.mk[0].initialPosition(); ok0 {
		if p1, ok1 := n.mk[1].initialPosition(); ok1 {
			if l := dist(p0, p1); !(l >= n.law.Get().lmin) {
				return nil, fmt.Errorf("%sthe markers start %s m apart (%s and %s), less than min_length %s m: %w",
					prefix, node.FormatValue(l), node.FormatValue(p0[:]), node.FormatValue(p1[:]), node.FormatValue(n.law.Get().lmin), ErrCoincident)
			}
		}
	}
	return n, nil
}

// initialPosition is the marker's world position at t0: the ground point,
// or the body's MarkerKinematics of its InitialState when every marker
// field is a state field (false otherwise).
func (mk *marker) initialPosition() ([3]float64, bool) {
	if mk.body == nil {
		return mk.local, true
	}
	body := mk.body.(node.Node)
	s := body.Spec()
	x0 := make([]float64, s.StateLayout.Size())
	body.InitialState(x0)
	var xm []float64
	for _, fn := range mk.fields {
		i := s.StateLayout.Index(fn)
		if i < 0 {
			return [3]float64{}, false
		}
		o := s.StateLayout.Offset(i)
		xm = append(xm, x0[o:o+s.State[i].Shape.Len()]...)
	}
	var pos, vel [3]float64
	mk.body.MarkerKinematics(xm, mk.local, &pos, &vel)
	return pos, true
}

func dist(a, b [3]float64) float64 {
	dx, dy, dz := b[0]-a[0], b[1]-a[1], b[2]-a[2]
	return math.Sqrt(dx*dx + dy*dy + dz*dz)
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

func (n *Node) set(vals node.Values) {
	n.vals = vals
	n.law.Set(law{k: vals.Float("stiffness"), c: vals.Float("damping"), l0: vals.Float("rest_length"), lmin: vals.Float("min_length")})
}

// Spec describes this spring: its inputs and load outputs depend on the
// markers, so every instance has its own spec (built once, immutable).
// For each body marker k there is a replacing input "m<k>_<field>" per
// name in the body's MarkerFields and, when the body can be pushed, an
// output "m<k>_<load>" per name in its MarkerLoads, after length,
// length_rate, tension, force and potential_energy.
func (n *Node) Spec() *node.Spec { return n.spec }

// kinematics returns marker k's world position and velocity. A body's
// MarkerKinematics takes pointers, which would escape to the heap through
// the interface: it writes into scratch (6 values) instead.
func (mk *marker) kinematics(u []float64, scratch []float64) (pos, vel [3]float64) {
	switch {
	case mk.body == nil:
		return mk.local, [3]float64{}
	case mk.point:
		s := u[mk.in0 : mk.in0+6 : mk.in0+6]
		return [3]float64{s[0], s[1], s[2]}, [3]float64{s[3], s[4], s[5]}
	}
	p, v := (*[3]float64)(scratch[0:3]), (*[3]float64)(scratch[3:6])
	mk.body.MarkerKinematics(u[mk.in0:mk.in1], mk.local, p, v)
	return *p, *v
}

// geometry is the spring's state at inputs u: the separation d = p1 − p0,
// the relative velocity w = v1 − v0, the length ℓ, the unit vector u and
// the length rate.
type geometry struct {
	d, w, u [3]float64
	l, rate float64
}

func (n *Node) geometry(t float64, u, scratch []float64) (geometry, error) {
	p0, v0 := n.mk[0].kinematics(u, scratch)
	p1, v1 := n.mk[1].kinematics(u, scratch)
	return n.law.Get().geometry(t, p0, v0, p1, v1)
}

// geometry is the spring's state for marker positions p0, p1 and
// velocities v0, v1, or the *node.FieldError for "length" when the
// markers are closer than min_length: the arithmetic of Outputs and of
// the batch kernel.
func (m *law) geometry(t float64, p0, v0, p1, v1 [3]float64) (geometry, error) {
	var g geometry
	for i := range 3 {
		g.d[i], g.w[i] = p1[i]-p0[i], v1[i]-v0[i]
	}
	g.l = math.Sqrt(g.d[0]*g.d[0] + g.d[1]*g.d[1] + g.d[2]*g.d[2])
	if !(g.l >= m.lmin) {
		return g, m.coincident(t, g.l)
	}
	for i := range 3 {
		g.u[i] = g.d[i] / g.l
	}
	g.rate = g.u[0]*g.w[0] + g.u[1]*g.w[1] + g.u[2]*g.w[2]
	return g, nil
}

// coincident is the error of a length l below min_length at t.
func (m *law) coincident(t, l float64) error {
	return &node.FieldError{Field: "length", Err: fmt.Errorf("%s: length %s m at t = %s is below min_length %s m: %w",
		TypeName, node.FormatValue(l), node.FormatValue(t), node.FormatValue(m.lmin), ErrCoincident)}
}

// tension returns the extension s = ℓ − ℓ₀ and the tension
// f = k s + c ℓ̇ of geometry g.
func (m *law) tension(g *geometry) (s, f float64) {
	s = g.l - m.l0
	return s, m.k*s + m.c*g.rate
}

// energy is the elastic energy ½ k s² at extension s.
func (m *law) energy(s float64) float64 { return 0.5 * m.k * s * s }

// forceOn0 is the force f u on marker 0.
func forceOn0(g *geometry, f float64) [3]float64 {
	return [3]float64{f * g.u[0], f * g.u[1], f * g.u[2]}
}

// Outputs writes length, length rate, tension, force (f·u on marker 0),
// potential energy and the marker loads (+f·u on marker 0, −f·u on
// marker 1) into dst. When the markers are closer than min_length it
// returns a *node.FieldError for "length" wrapping ErrCoincident. It
// allocates nothing.
func (n *Node) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	g, err := n.geometry(t, in.Values, dst[:6]) // dst[:6] is scratch until written
	if err != nil {
		return err
	}
	s, f := n.law.Get().tension(&g)
	dst[yLength], dst[yRate], dst[yTension] = g.l, g.rate, f
	fv := forceOn0(&g, f)
	copy(dst[yForce:yForce+3], fv[:])
	dst[yEnergy] = n.law.Get().energy(s)
	for k := range n.mk {
		mk := &n.mk[k]
		if mk.y1 == mk.y0 {
			continue
		}
		if k == 1 {
			fv = [3]float64{-fv[0], -fv[1], -fv[2]}
		}
		if mk.point {
			copy(dst[mk.y0:mk.y0+3], fv[:])
			continue
		}
		mk.body.MarkerLoad(in.Values[mk.in0:mk.in1], mk.local, fv, dst[mk.y0:mk.y1])
	}
	return nil
}

// Params returns the parameter values in use, as a copy.
func (n *Node) Params() node.Values {
	out := make(node.Values, len(n.vals))
	for k, v := range n.vals {
		out[k] = v
	}
	return out
}

// SetParams overrides parameters by name (all or nothing). It must not
// be called while a graph containing the node is stepping.
func (n *Node) SetParams(p map[string]any) error {
	vals, err := node.Resolve(TypeName, params, n.vals, p)
	if err != nil {
		return err
	}
	n.set(vals)
	return nil
}
