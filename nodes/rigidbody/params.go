package rigidbody

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cosimgo/cosim/node"
)

// Axis names a coordinate a constraint can hold: a translation along a
// world axis (X, Y, Z) or a rotation angle (RX, RY, RZ).
//
// The rotation angles are the angles (φ, θ, ψ) of
// R = R_z(ψ)·R_y(θ)·R_x(φ): rotate about world x by RX, then about world y
// by RY, then about world z by RZ (intrinsic z-y′-x″, "yaw-pitch-roll").
type Axis int

const (
	X Axis = iota
	Y
	Z
	RX
	RY
	RZ
)

var axisNames = [...]string{"x", "y", "z", "rx", "ry", "rz"}

func (a Axis) String() string {
	if a < X || a > RZ {
		return fmt.Sprintf("Axis(%d)", int(a))
	}
	return axisNames[a]
}

// Constraints holds coordinates at given values (m for X, Y, Z; rad for
// RX, RY, RZ). A held coordinate stays at its value exactly, and its rate
// stays exactly zero, whatever forces and torques are applied: the
// constraint force or torque cancels the load along it.
//
// Translations and rotations may be held in any combination. Holding one
// rotation leaves a two-axis gimbal: the other two Z-Y-X angles are free
// (see DiscretizationGimbal). Two held rotations leave a hinge: the body
// turns about one fixed world axis. Three fix the orientation. Holding ry
// alone at ±π/2 locks the gimbal (both free axes are the world z axis)
// and is a parameter error: |cos ry| must be at least 1e-3, i.e. ry at
// least about 1e-3 rad from ±π/2. Holding rx or rz alone has no such
// limit.
//
// In a parameter map the constraints are the "constraints" entry, either
// the text form String writes — "z=0,rx=0,ry=0": comma-separated
// axis=value pairs, spaces allowed, each axis at most once, "" for none —
// or a map from axis name to number, {"z": 0, "rx": 0, "ry": 0}.
type Constraints map[Axis]float64

// Planar returns {z: 0, rx: 0, ry: 0}: motion in the world x-y plane with
// rotation about z only, the replacement of the rigidbody2d node.
func Planar() Constraints { return Constraints{Z: 0, RX: 0, RY: 0} }

// String formats c in the canonical text form, in axis order, with the
// shortest exact representation of each value: "z=0,rx=0,ry=0".
func (c Constraints) String() string {
	var parts []string
	for a := X; a <= RZ; a++ {
		if v, ok := c[a]; ok {
			parts = append(parts, a.String()+"="+strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	return strings.Join(parts, ",")
}

// validate checks axes, values and the supported rotation patterns.
func (c Constraints) validate() error {
	for _, a := range slices.Sorted(maps.Keys(c)) {
		if a < X || a > RZ {
			return fmt.Errorf("has an unknown axis %s", a)
		}
		if v := c[a]; math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("holds %s at %v, which is not finite", a, v)
		}
	}
	_, rx := c[RX]
	ry, hasRY := c[RY]
	_, rz := c[RZ]
	if hasRY && !rx && !rz && math.Abs(math.Cos(ry)) < gimbalLockTol {
		return fmt.Errorf("holds ry = %s alone, %s rad from ±π/2: there the two free axes of the gimbal are both the world z axis (gimbal lock); hold ry at least 1e-3 rad away from ±π/2, or hold rx or rz too",
			strconv.FormatFloat(ry, 'g', -1, 64), strconv.FormatFloat(math.Abs(math.Asin(math.Cos(ry))), 'g', 3, 64))
	}
	return nil
}

// ParseConstraints parses the text form String writes. It is strict:
// unknown axes, repeated axes, empty items, malformed or non-finite
// numbers, and ry held alone within about 1e-3 rad of ±π/2 (a locked
// gimbal, see Constraints) are errors.
func ParseConstraints(s string) (Constraints, error) {
	c := Constraints{}
	if strings.TrimSpace(s) == "" {
		return c, nil
	}
	for item := range strings.SplitSeq(s, ",") {
		name, val, ok := strings.Cut(item, "=")
		if !ok {
			return nil, fmt.Errorf("has item %q, want axis=value", strings.TrimSpace(item))
		}
		a, err := parseAxis(strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		if _, dup := c[a]; dup {
			return nil, fmt.Errorf("holds %s twice", a)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			return nil, fmt.Errorf("has value %q for %s, want a number", strings.TrimSpace(val), a)
		}
		c[a] = v
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

func parseAxis(name string) (Axis, error) {
	if i := slices.Index(axisNames[:], name); i >= 0 {
		return Axis(i), nil
	}
	return 0, fmt.Errorf("has unknown axis %q%s", name, node.DidYouMean(name, axisNames[:]))
}

const constraintsValid = `comma-separated axis=value pairs (or a map axis → number) with axes among x, y, z, rx, ry, rz, each at most once, with finite values; ry held alone needs |cos ry| ≥ 1e-3; e.g. "z=0,rx=0,ry=0"; "" for none`

// Params are the node's parameters as typed Go values. The zero value is
// not valid (mass and inertia are zero); start from DefaultParams.
type Params struct {
	// Mass is m in kg, > 0. Default 1.
	Mass float64
	// Inertia holds the principal moments of inertia (I₁, I₂, I₃) about the
	// body axes through the centre of mass, kg·m², each > 0. Default
	// (1, 1, 1). Ignored when InertiaMatrix is set.
	Inertia [3]float64
	// InertiaMatrix, when not nil and not all zero, is the full body-frame
	// inertia tensor (row-major, kg·m²). It must be symmetric (to 1e-12
	// relative to its largest entry; it is then symmetrized) and positive
	// definite, and it replaces Inertia.
	InertiaMatrix *[9]float64
	// Gravity is a uniform gravitational acceleration in m/s², world frame.
	// Default zero: the node assumes no "up" axis.
	Gravity [3]float64
	// InitialPosition is the centre of mass at t0, m. Default zero.
	InitialPosition [3]float64
	// InitialOrientation is the unit quaternion (w, x, y, z) taking body to
	// world at t0; it is normalised, and zero is an error. Default
	// (1, 0, 0, 0).
	InitialOrientation [4]float64
	// InitialVelocity is the centre-of-mass velocity at t0, m/s. Default
	// zero.
	InitialVelocity [3]float64
	// InitialAngularVelocity is ω at t0 in the world frame, rad/s. Default
	// zero.
	InitialAngularVelocity [3]float64
	// Constraints hold coordinates at values; nil holds none. The initial
	// state is projected onto them: a held coordinate replaces the initial
	// one and its rate is zero; with a hinge the free angle starts at
	// InitialOrientation's own angle of that axis (its Z-Y-X angle) and
	// the initial angular velocity keeps only its component along the
	// hinge axis; with one held rotation the two free angles start at
	// InitialOrientation's own Z-Y-X angles and the initial angular
	// velocity is projected (least squares) onto the two free axes.
	Constraints Constraints
	// Appearance is how cosim view and render draw the body (show,
	// draw_size, color); the zero value is the default. The physics
	// ignores it.
	Appearance node.Appearance
}

// DefaultParams returns a free 1 kg body with unit principal moments, at
// rest at the origin with the identity orientation, without gravity.
func DefaultParams() Params {
	return Params{Mass: 1, Inertia: [3]float64{1, 1, 1}, InitialOrientation: [4]float64{1, 0, 0, 0}}
}

func (p Params) values() node.Values {
	im := make([]float64, 9)
	if p.InertiaMatrix != nil {
		copy(im, p.InertiaMatrix[:])
	}
	v := node.Values{
		"mass":                     p.Mass,
		"inertia":                  p.Inertia[:],
		"inertia_matrix":           im,
		"gravity":                  p.Gravity[:],
		"initial_position":         p.InitialPosition[:],
		"initial_orientation":      p.InitialOrientation[:],
		"initial_velocity":         p.InitialVelocity[:],
		"initial_angular_velocity": p.InitialAngularVelocity[:],
		"constraints":              p.Constraints.String(),
	}
	p.Appearance.Put(v)
	return v
}

func paramError(name string, value any, reason, valid string) *node.ParamError {
	return &node.ParamError{Node: TypeName, Param: name, Value: value, Reason: reason, Valid: valid}
}

// normalizeMap returns m with a map-valued "constraints" entry turned into
// the text form, so that node.Resolve can check it as Text. m itself is
// not modified.
func normalizeMap(m map[string]any) (map[string]any, error) {
	raw, ok := m["constraints"]
	if !ok {
		return m, nil
	}
	var c Constraints
	switch v := raw.(type) {
	case map[string]any:
		c = Constraints{}
		for _, name := range slices.Sorted(maps.Keys(v)) {
			a, err := parseAxis(name)
			if err != nil {
				return nil, paramError("constraints", raw, err.Error(), constraintsValid)
			}
			f, ok := toFloat(v[name])
			if !ok {
				return nil, paramError("constraints", raw, fmt.Sprintf("has value of type %T for %s, want a number", v[name], a), constraintsValid)
			}
			c[a] = f
		}
	case map[string]float64:
		c = Constraints{}
		for _, name := range slices.Sorted(maps.Keys(v)) {
			a, err := parseAxis(name)
			if err != nil {
				return nil, paramError("constraints", raw, err.Error(), constraintsValid)
			}
			c[a] = v[name]
		}
	case Constraints:
		c = v
	default:
		return m, nil // a string, or a wrong type node.Resolve reports
	}
	if err := c.validate(); err != nil {
		return nil, paramError("constraints", raw, err.Error(), constraintsValid)
	}
	out := maps.Clone(m)
	out["constraints"] = c.String()
	return out, nil
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case float32:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}
