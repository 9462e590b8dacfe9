package ball

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/cosimgo/cosim/node"
)

// errNoTable is returned by Reset when table_position is not connected:
// without a surface the contact event cannot occur.
var errNoTable = errors.New("no table_position input, so there is no contact to reset")

// Update advances the ball by one step of semi-implicit Euler, with the
// acceleration a = g + F/m (F the force input at t, held over the step),
// and then resolves contact once:
//
//	v' = v + a·dt
//	x' = x + dt·v'
//	if table_position is present and x' < table_position:
//	    x' = table_position
//	    if x ≤ table_position and v ≥ 0 (resting contact):
//	        v' = 0
//	    else:
//	        v' = −e·v', and v' = 0 when |v'| ≤ RestSpeed (the impact speed)
//
// The resting-contact branch holds a ball that starts the step on the
// surface and does not move into it: the step's acceleration alone
// carries it under, which is the normal force's to balance, not a
// bounce (a rebound slower than |a|·dt would land again within the
// step). Without it a ball at rest chattered at e|g|dt/(1+e) whenever
// |g|·dt exceeds RestSpeed (COSIM-ANO-004).
//
// It writes [x', v'] into dst, which must not alias x; x and in are only
// read. It returns an error, and leaves dst unchanged, when dt is not
// finite and positive or when a value read or computed is NaN or ±Inf
// (those errors wrap [node.ErrNonFinite]). The time t is not used: the
// dynamics are autonomous, and a time-varying gravity is injected with
// SetParams between steps.
func (n *Node) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	checkLen("Update", "x", x, 2)
	checkLen("Update", "dst", dst, 2)
	if !(dt > 0 && dt <= math.MaxFloat64) {
		return stepError(t, dt)
	}
	p, v, err := n.m.step(t, dt, x[n.posOff], x[n.velOff], in.Values[n.forceOff], in.Present[n.tableIdx], in.Values[n.tableOff])
	if err != nil {
		return err
	}
	dst[n.posOff] = p
	dst[n.velOff] = v
	return nil
}

// step is Update's arithmetic and checks for one ball, after the check
// of dt: the new position and velocity from pos and vel under the force
// f, with the table at height table when present (table is ignored
// otherwise). Update and
// the batch kernel share it, so both compute the same bits and fail on
// the same rows with the same errors.
func (m *model) step(t, dt, pos, vel, f float64, present bool, table float64) (p, v float64, err error) {
	if !finite(pos) {
		return 0, 0, nonFinite("Update", t, fieldPosition, pos)
	}
	if !finite(vel) {
		return 0, 0, nonFinite("Update", t, fieldVelocity, vel)
	}
	if !finite(f) {
		return 0, 0, nonFinite("Update", t, inputForce, f)
	}
	// The explicit conversions round each product before it is added, so
	// no fused multiply-add changes the result between platforms. With
	// no force, g + 0/m is g exactly: the force input costs no bits.
	v = vel + float64(m.accel(f)*dt)
	p = pos + float64(dt*v)
	if present {
		if !finite(table) {
			return 0, 0, nonFinite("Update", t, inputTable, table)
		}
		if p < table {
			p = table
			if pos <= table && vel >= 0 {
				// Resting contact: the ball started the step on (or
				// below) the surface without moving into it, so the
				// step's own acceleration carried it under: its
				// rebound would be slower than |a|·dt, a bounce
				// shorter than the step, which the normal force
				// balances instead (COSIM-ANO-004, resolved).
				v = 0
			} else {
				v = restitute(v, m.e)
			}
		}
	}
	if !finite(p) {
		return 0, 0, nonFinite("Update", t, "new "+fieldPosition, p)
	}
	if !finite(v) {
		return 0, 0, nonFinite("Update", t, "new "+fieldVelocity, v)
	}
	return p, v, nil
}

// accel is the acceleration g + F/m under the force f.
func (m *model) accel(f float64) float64 { return m.g + f/m.mass }

// restitute applies the restitution law to the velocity v at contact:
// −e·v, replaced by exactly 0 when the impact speed |v| is at most
// RestSpeed.
func restitute(v, e float64) float64 {
	if math.Abs(v) <= RestSpeed {
		return 0
	}
	return -e * v
}

// Derivatives writes the collision-free right-hand side [v, g + F/m] into
// dst, with the current (possibly overridden) gravity and the force input
// F. It never reads elasticity, and reads table_position only for resting
// contact: an integrator that steps Derivatives passes through the table
// (COSIM-ANO-001); use Update, or an event-localizing integrator with
// EventValues and Reset.
//
// Resting contact: when the table is present, the ball is at rest
// (v = 0 exactly) on or below it and the net acceleration pushes it down
// (g + F/m ≤ 0), the normal force balances it and Derivatives writes
// [0, 0]. This is the
// state the reset's rest rule (v ← 0 below RestSpeed) produces; without it
// an event-localizing integrator would see the ball fall through the
// table after it comes to rest, or fire the contact event without end
// (Zeno). A ball moving at any speed, however small, is free.
func (n *Node) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	checkLen("Derivatives", "x", x, 2)
	checkLen("Derivatives", "dst", dst, 2)
	dp, dv, err := n.m.rates(t, x[n.posOff], x[n.velOff], in.Values[n.forceOff], in.Present[n.tableIdx], in.Values[n.tableOff])
	if err != nil {
		return err
	}
	dst[n.posOff], dst[n.velOff] = dp, dv
	return nil
}

// rates is Derivatives' arithmetic and checks for one ball under the
// force f (table is ignored when not present), shared with the batch
// kernel.
func (m *model) rates(t, pos, vel, f float64, present bool, table float64) (dp, dv float64, err error) {
	if !finite(pos) {
		return 0, 0, nonFinite("Derivatives", t, fieldPosition, pos)
	}
	if !finite(vel) {
		return 0, 0, nonFinite("Derivatives", t, fieldVelocity, vel)
	}
	if !finite(f) {
		return 0, 0, nonFinite("Derivatives", t, inputForce, f)
	}
	a := m.accel(f)
	if vel == 0 && a <= 0 && present && pos <= table {
		return 0, 0, nil
	}
	return vel, a, nil
}

// EventValues writes the value of the contact event,
// position − table_position, into dst[0]; it falls through zero when the
// ball reaches the surface (Direction −1). When table_position is not
// connected it writes the constant +1, which never crosses zero.
func (n *Node) EventValues(t float64, x []float64, in node.Inputs, dst []float64) error {
	checkLen("EventValues", "x", x, 2)
	checkLen("EventValues", "dst", dst, 1)
	if !in.Present[n.tableIdx] {
		dst[0] = 1
		return nil
	}
	pos, table := x[n.posOff], in.Values[n.tableOff]
	if !finite(pos) {
		return nonFinite("EventValues", t, fieldPosition, pos)
	}
	if !finite(table) {
		return nonFinite("EventValues", t, inputTable, table)
	}
	dst[0] = pos - table
	return nil
}

// Reset applies the contact reset map at a located crossing: position ←
// table_position, velocity ← −e·velocity, and velocity ← 0 when the
// impact speed |velocity| is at most RestSpeed: the same law Update
// applies. event must
// be 0 (contact); any other index panics. Reset returns an error, leaving
// dst unchanged, when table_position is not connected or a value is not
// finite.
func (n *Node) Reset(event int, t float64, x []float64, in node.Inputs, dst []float64) error {
	if event != 0 {
		panic(fmt.Sprintf("ball: Reset: event %d out of range [0, 1)", event))
	}
	checkLen("Reset", "x", x, 2)
	checkLen("Reset", "dst", dst, 2)
	if !in.Present[n.tableIdx] {
		return fmt.Errorf("ball: Reset at t=%s: %w", node.FormatValue(t), errNoTable)
	}
	vel, table := x[n.velOff], in.Values[n.tableOff]
	if !finite(vel) {
		return nonFinite("Reset", t, fieldVelocity, vel)
	}
	if !finite(table) {
		return nonFinite("Reset", t, inputTable, table)
	}
	dst[n.posOff] = table
	dst[n.velOff] = restitute(vel, n.m.e)
	return nil
}

// MarkerFields returns ["position", "velocity"]: the x the other Marker
// methods receive is [position, velocity].
func (n *Node) MarkerFields() []string { return []string{fieldPosition, fieldVelocity} }

// MarkerKinematics writes the marker's world position position·local and
// velocity velocity·local: the ball is a one-dimensional body, and local is
// the world axis its coordinate runs along (a unit vector, e.g. {0, 0, 1}
// for a vertical ball). It is used as given, not normalized here (this is
// the per-step path): whoever attaches a marker checks the axis once with
// [Node.CheckMarkerLocal], as springdamper.New and Connect do.
func (n *Node) MarkerKinematics(x []float64, local [3]float64, pos, vel *[3]float64) {
	checkLen("MarkerKinematics", "x", x, 2)
	for i, l := range local {
		pos[i] = x[0] * l
		vel[i] = x[1] * l
	}
}

// AxisTolerance is how far from 1 the length of a marker axis may be:
// CheckMarkerLocal accepts local when |‖local‖ − 1| ≤ AxisTolerance. It
// admits the rounding of a normalized vector written to 16 significant
// digits (≈ 1e-16) with a wide margin, and refuses a hand-rounded one
// such as {0.7071, 0.7071, 0} (‖·‖ − 1 ≈ −4.8e-5).
const AxisTolerance = 1e-9

// CheckMarkerLocal reports whether local is a valid marker axis for the
// ball: finite, not zero, and of unit length to within AxisTolerance. The
// ball does not normalize the axis (MarkerKinematics uses it as given, so
// a non-unit axis would scale the marker's position and velocity):
// a non-unit axis is an error giving its value and length, to be
// normalized by the caller. The errors wrap [node.ErrNonFinite] for a
// non-finite axis. springdamper calls it at construction through its
// LocalChecker interface.
func (n *Node) CheckMarkerLocal(local [3]float64) error {
	for _, c := range local {
		if !finite(c) {
			return fmt.Errorf("ball: marker axis %s is not finite: %w", node.FormatValue(local[:]), node.ErrNonFinite)
		}
	}
	l := math.Hypot(math.Hypot(local[0], local[1]), local[2])
	if l == 0 {
		return fmt.Errorf("ball: marker axis %s is zero; it must be the unit world axis the ball's coordinate runs along, e.g. [0, 0, 1]", node.FormatValue(local[:]))
	}
	if math.Abs(l-1) > AxisTolerance {
		return fmt.Errorf("ball: marker axis %s has length %s, not 1 (tolerance %s); it must be a unit vector: divide it by its length", node.FormatValue(local[:]), node.FormatValue(l), node.FormatValue(AxisTolerance))
	}
	return nil
}

// MarkerLoads returns ["force"]: a connector's force on a ball marker
// goes into the additive input force.
func (n *Node) MarkerLoads() []string { return []string{inputForce} }

// MarkerLoad writes the generalized force of the world force f applied at
// the marker into dst[0]: its component along the ball's axis, f·local
// (the virtual work of f over the marker's motion x·local). The part of
// f across the axis does no work on a one-dimensional body and is
// dropped: it is the reaction of whatever keeps the ball on its axis.
// dst has length 1.
func (n *Node) MarkerLoad(x []float64, local [3]float64, f [3]float64, dst []float64) {
	checkLen("MarkerLoad", "dst", dst, 1)
	// Rounded products, summed in a fixed order: no fused multiply-add.
	dst[0] = float64(f[0]*local[0]) + float64(f[1]*local[1]) + float64(f[2]*local[2])
}

// MarkerInverseMass writes the marker's inverse effective mass along the
// world axes into dst: a force f_i along world axis i moves the marker
// along the ball's axis with acceleration f_i·local_i/m, whose component
// along axis i is local_i²/m per unit force. It does not depend on x.
func (n *Node) MarkerInverseMass(x []float64, local [3]float64, dst *[3]float64) {
	for i, l := range local {
		dst[i] = l * l / n.m.mass
	}
}

// MarkerJacobian writes ∂pos/∂[position, velocity], 3 × 2 row-major, into
// dst: row i is [local[i], 0]. The velocity Jacobian ∂vel/∂velocity is the
// same column, local.
func (n *Node) MarkerJacobian(x []float64, local [3]float64, dst []float64) {
	checkLen("MarkerJacobian", "x", x, 2)
	checkLen("MarkerJacobian", "dst", dst, 6)
	for i, l := range local {
		dst[2*i] = l
		dst[2*i+1] = 0
	}
}

// checkLen panics when a slice has the wrong length: a programmer error in
// the caller, not a data error.
func checkLen(method, name string, s []float64, want int) {
	if len(s) != want {
		badLen(method, name, len(s), want)
	}
}

func badLen(method, name string, got, want int) {
	panic(fmt.Sprintf("ball: %s: len(%s) = %d, want %d", method, name, got, want))
}

// finite reports whether v is neither NaN nor ±Inf; it is small enough to
// inline on the per-step path, with the error built out of line.
func finite(v float64) bool { return v-v == 0 }

func stepError(t, dt float64) error {
	if math.IsNaN(dt) || math.IsInf(dt, 0) {
		return fmt.Errorf("ball: Update at t=%s: timestep dt = %s: %w", node.FormatValue(t), node.FormatValue(dt), node.ErrNonFinite)
	}
	if dt <= 0 {
		return fmt.Errorf("ball: Update at t=%s: timestep dt = %s is not positive", node.FormatValue(t), node.FormatValue(dt))
	}
	return nil
}

// nonFinite reports v of field name as non-finite; it is a
// *node.FieldError, so a graph names ball.position (or ball.input
// table_position) in its error.
func nonFinite(method string, t float64, name string, v float64) error {
	field := strings.TrimPrefix(name, "new ")
	if field == inputTable || field == inputForce {
		field = "input " + field
	}
	return &node.FieldError{Field: field, Err: fmt.Errorf("ball: %s at t=%s: %s = %s: %w", method, node.FormatValue(t), name, node.FormatValue(v), node.ErrNonFinite)}
}
