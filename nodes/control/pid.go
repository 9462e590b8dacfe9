package control

import (
	"math"

	"github.com/cosimgo/cosim/node"
)

// PIDName is the registry name of the PID controller.
const PIDName = "pid"

// PIDType registers the PID controller: a new value at each call.
func PIDType() node.Type {
	return node.Type{Name: PIDName, New: func(m map[string]any) (node.Node, error) { return asNode(newPID(m)) }}
}

// PIDParams are the PID controller's parameters. Per-component slices
// have one value for every component or one per component (nil: the
// default). The zero value of a float field is its documented default
// only where the default is zero; start from DefaultPIDParams.
type PIDParams struct {
	// Kp, Ki, Kd are the proportional, integral and derivative gains.
	// Defaults [1], [0], [0].
	Kp, Ki, Kd []float64
	// Tf is the derivative filter's time constant in s, > 0. Default
	// [0.01].
	Tf []float64
	// SetpointWeight b and DerivativeWeight c: the proportional term acts
	// on b·r − y and the derivative on c·r − y. Defaults [1], [1] (both on
	// the error); c = 0 puts the derivative on the measurement (no kick
	// on a setpoint step).
	SetpointWeight, DerivativeWeight []float64
	// Limit turns the output limits Lower, Upper on. Default off, −1, 1.
	Limit        bool
	Lower, Upper []float64
	// Kb is the back-calculation gain in 1/s (0: no anti-windup).
	// Default [1].
	Kb []float64
	// RetuneTime is the time constant in s with which a changed
	// proportional or derivative gain takes effect without a bump.
	// Default [0.1].
	RetuneTime []float64
	// InitialIntegral is the integral term at t0. Default [0].
	InitialIntegral []float64
	// InitialFilterInput is c·r − y before t0 (the derivative filter
	// starts at rest there). Default [0].
	InitialFilterInput []float64
	// Size is the number of components (independent loops). Default 1.
	Size int
	// InputUnits (reference and measurement) and OutputUnits. Default "1".
	InputUnits, OutputUnits string
}

// DefaultPIDParams returns the documented defaults: a proportional
// controller with gain 1.
func DefaultPIDParams() PIDParams { return PIDParams{} }

func (p PIDParams) values() node.Values {
	return node.Values{
		"kp": orDefault(p.Kp, 1), "ki": orDefault(p.Ki, 0), "kd": orDefault(p.Kd, 0), "tf": orDefault(p.Tf, 0.01),
		"setpoint_weight": orDefault(p.SetpointWeight, 1), "derivative_weight": orDefault(p.DerivativeWeight, 1),
		"limit_output": p.Limit, "lower": orDefault(p.Lower, -1), "upper": orDefault(p.Upper, 1), "kb": orDefault(p.Kb, 1),
		"retune_time": orDefault(p.RetuneTime, 0.1), "initial_integral": orDefault(p.InitialIntegral, 0),
		"initial_filter_input": orDefault(p.InitialFilterInput, 0),
		"size":                 orSize(p.Size), "input_units": orUnits(p.InputUnits), "output_units": orUnits(p.OutputUnits),
	}
}

var pidParams = []node.Param{
	perComponent("kp", 1, node.Finite(), "output units / input units", "Proportional gain $K_p$"),
	perComponent("ki", 0, node.Finite(), "output units / (input units · s)", "Integral gain $K_i$ (0: no integral action)"),
	perComponent("kd", 0, node.Finite(), "output units · s / input units", "Derivative gain $K_d$ (0: no derivative action)"),
	perComponent("tf", 0.01, node.Positive(), "s", "Time constant $T_f$ of the derivative filter $K_d s/(T_f s + 1)$"),
	perComponent("setpoint_weight", 1, node.Between(0, 1), "1", "Setpoint weight $b$: the proportional term acts on $b r - y$"),
	perComponent("derivative_weight", 1, node.Between(0, 1), "1", "Setpoint weight $c$ of the derivative: it acts on $c r - y$ (0: on the measurement only, no kick on a setpoint step)"),
	{Name: "limit_output", Kind: node.Bool, Default: false, Description: "Limit the output to [`lower`, `upper`] (the actuator's range), with back-calculation anti-windup"},
	perComponent("lower", -1, node.Finite(), "output units", "Lower output limit $u_{\\min}$ (with `limit_output`)"),
	perComponent("upper", 1, node.Finite(), "output units", "Upper output limit $u_{\\max}$ (with `limit_output`)"),
	perComponent("kb", 1, node.NonNegative(), "1/s", "Back-calculation gain $K_b = 1/T_t$: while the output is limited, the integral is driven towards the limit at this rate (0: no anti-windup)"),
	perComponent("retune_time", 0.1, node.Positive(), "s", "Time constant $T_b$ with which changed gains $K_p$, $K_d$, $T_f$, $b$, $c$ take effect without a bump of the output"),
	perComponent("initial_integral", 0, node.Finite(), "output units", "Integral term $I(t_0)$"),
	perComponent("initial_filter_input", 0, node.Finite(), "input units", "Derivative input $c r - y$ before $t_0$: the filter starts at rest there"),
	sizeParam,
	unitsParam("input_units", "Units of the reference and the measurement"),
	unitsParam("output_units", "Units of the controller output"),
}

// The fields of a PID parameter row, each n values long (pidField·n + i
// is component i), then one flag: output limited.
const (
	pidKp = iota
	pidKi
	pidKd
	pidTf
	pidB
	pidC
	pidKb
	pidLo
	pidHi
	pidTb
	pidI0
	pidW0
	pidFields
)

var pidRowNames = [pidFields]string{"kp", "ki", "kd", "tf", "setpoint_weight", "derivative_weight", "kb", "lower", "upper", "retune_time", "initial_integral", "initial_filter_input"}

// PID is a continuous PID controller in parallel form with a filtered
// derivative, setpoint weights, output limits with back-calculation
// anti-windup and bumpless gain changes. It reads the reference r and
// the measurement y; the output has feedthrough when the proportional or
// derivative part reads them.
type PID struct {
	block
}

var (
	_ node.Deriver        = (*PID)(nil)
	_ node.Outputter      = (*PID)(nil)
	_ node.InputJacobian  = (*PID)(nil)
	_ node.OutputJacobian = (*PID)(nil)
	_ node.Tunable        = (*PID)(nil)
)

// NewPID builds a PID controller from typed parameters.
func NewPID(p PIDParams) (*PID, error) { return newPID(p.values()) }

func newPID(given map[string]any) (*PID, error) {
	vals, err := node.Resolve(PIDName, pidParams, nil, given)
	if err != nil {
		return nil, err
	}
	n := vals.Int("size")
	if err := checkPID(vals, n); err != nil {
		return nil, err
	}
	c := &PID{block: block{typ: PIDName, params: pidParams, fixed: []string{"size", "input_units", "output_units"}, n: n}}
	c.set(vals)
	sh, iu, ou := shapeOf(n), vals.String("input_units"), vals.String("output_units")
	gu := ratioUnits(ou, iu)
	c.spec = node.NewSpec(node.Spec{
		Type:    PIDName,
		Package: pkgPath,
		Params:  pidParams,
		State: []node.Field{
			{Name: "integral", Shape: sh, Units: ou, Description: "Integral term $I$ (it integrates $K_i e$, so a change of $K_i$ does not bump the output)"},
			{Name: "filter", Shape: sh, Units: ou, Description: "Derivative filter state $z$: the derivative term is $D = (K_d/T_f)(c r - y) - z$"},
			{Name: "gain_reference", Shape: sh, Units: gu, Description: "Applied gain $g_r$ on the reference; tends to $G_r = K_p b + (K_d/T_f) c$ (bumpless gain changes)"},
			{Name: "gain_measurement", Shape: sh, Units: gu, Description: "Applied gain $g_y$ on the measurement; tends to $G_y = K_p + K_d/T_f$ (bumpless gain changes)"},
		},
		Inputs: []node.Input{
			{Name: "reference", Shape: sh, Units: iu, Combine: node.Additive, Default: make([]float64, n), Description: "The reference (setpoint) $r$; zero when unconnected (a regulator)"},
			{Name: "measurement", Shape: sh, Units: iu, Combine: node.Additive, Description: "The measured output $y$ of the plant; the error is $e = r - y$"},
		},
		Outputs:     []node.Field{{Name: "out", Shape: sh, Units: ou, Description: "The control $u$, within the limits when they are on"}},
		Feedthrough: true,
		Meta:        pidMeta(),
	})
	return c, nil
}

func checkPID(vals node.Values, n int) error {
	if err := checkPerComponent(PIDName, vals, n, pidRowNames[:]...); err != nil {
		return err
	}
	if err := checkOrdered(PIDName, vals, n, "lower", "upper"); err != nil {
		return err
	}
	return checkUnits(PIDName, vals, "input_units", "output_units")
}

func (c *PID) set(vals node.Values) {
	c.vals = vals
	p := []float64(nil)
	for _, name := range pidRowNames {
		v := vals.Floats(name)
		for i := range c.n {
			p = append(p, comp(v, i))
		}
	}
	lim := 0.0
	if vals.Bool("limit_output") {
		lim = 1
	}
	p = append(p, lim)
	c.row.Set(p)
}

// pidLaw is one component's parameters, read from a row.
type pidLaw struct {
	kp, ki, kd, tf, b, c, kb, lo, hi, tb, i0, w0 float64
	limited                                      bool
}

func pidAt(p []float64, n, i int) pidLaw {
	f := func(k int) float64 { return p[k*n+i] }
	return pidLaw{kp: f(pidKp), ki: f(pidKi), kd: f(pidKd), tf: f(pidTf), b: f(pidB), c: f(pidC), kb: f(pidKb),
		lo: f(pidLo), hi: f(pidHi), tb: f(pidTb), i0: f(pidI0), w0: f(pidW0), limited: p[pidFields*n] != 0}
}

// cd is K_d/T_f, the derivative term's high-frequency gain.
func (l *pidLaw) cd() float64 { return l.kd / l.tf }

// targets are the gains G_r and G_y the applied gains tend to.
func (l *pidLaw) targets() (gr, gy float64) { return l.kp*l.b + l.cd()*l.c, l.kp + l.cd() }

// raw is the unlimited output v = g_r r − g_y y − z + I.
func raw(integral, z, gr, gy, r, y float64) float64 { return gr*r - gy*y - z + integral }

// back returns the back-calculation rate k and the active limit L at
// the unlimited output v: (K_b, limit) when the output is limited there,
// (0, 0) otherwise.
func (l *pidLaw) back(v float64) (k, lim float64) {
	if !l.limited {
		return 0, 0
	}
	switch {
	case v > l.hi:
		return l.kb, l.hi
	case v < l.lo:
		return l.kb, l.lo
	}
	return 0, 0
}

// output limits v when the limits are on.
func (l *pidLaw) output(v float64) float64 {
	if l.limited {
		return clamp(v, l.lo, l.hi)
	}
	return v
}

// pidState is one component's state.
type pidState struct{ integral, z, gr, gy float64 }

// rates is the right-hand side at (s, r, y):
//
//	ż   = ((K_d/T_f)(c r − y) − z)/T_f
//	ġ_r = (G_r − g_r)/T_b,   ġ_y = (G_y − g_y)/T_b
//	İ   = K_i (r − y) − r ġ_r + y ġ_y + K_b (u − v)
//
// where the terms −r ġ_r + y ġ_y keep the output continuous while the
// applied gains move (bumpless) and K_b (u − v) is the back-calculation,
// nonzero only while the output is limited.
func (l *pidLaw) rates(s pidState, r, y float64) pidState {
	gr, gy := l.targets()
	dgr, dgy := (gr-s.gr)/l.tb, (gy-s.gy)/l.tb
	k, lim := l.back(raw(s.integral, s.z, s.gr, s.gy, r, y))
	di := l.ki*(r-y) - r*dgr + y*dgy
	if k != 0 {
		di += k * (lim - raw(s.integral, s.z, s.gr, s.gy, r, y))
	}
	return pidState{integral: di, z: (l.cd()*(l.c*r-y) - s.z) / l.tf, gr: dgr, gy: dgy}
}

// step is the exponential Euler step over dt with r and y held: exact
// for the right-hand side's affine piece at the step's start (limited or
// not), by the closed forms of its three decay rates K_b (while
// limited), 1/T_b and 1/T_f.
func (l *pidLaw) step(dt float64, s pidState, r, y float64) pidState {
	cd := l.cd()
	gr, gy := l.targets()
	w := l.c*r - y
	k, lim := l.back(raw(s.integral, s.z, s.gr, s.gy, r, y))
	delta := r*(s.gr-gr) - y*(s.gy-gy)
	r0 := l.ki * (r - y)
	if k != 0 {
		r0 += k * (lim - (gr*r - gy*y) + cd*w)
	}
	rb := delta * (1/l.tb - k)
	rf := k * (s.z - cd*w)
	integral := s.integral*math.Exp(-k*dt) + r0*dt*phi1(-k*dt) + rb*convolve(k, 1/l.tb, dt) + rf*convolve(k, 1/l.tf, dt)
	fb := decay(dt, l.tb)
	return pidState{
		integral: integral,
		z:        s.z + (cd*w-s.z)*decay(dt, l.tf),
		gr:       s.gr + (gr-s.gr)*fb,
		gy:       s.gy + (gy-s.gy)*fb,
	}
}

// pidStep advances every component: the arithmetic of Update and of a
// batch kernel. x and dst are laid out as the state (integral, filter,
// gain_reference, gain_measurement; n each); r and y are the reference
// and the measurement.
func pidStep(p []float64, n int, dt float64, x, r, y, dst []float64) {
	for i := range n {
		l := pidAt(p, n, i)
		s := l.step(dt, pidState{x[i], x[n+i], x[2*n+i], x[3*n+i]}, r[i], y[i])
		dst[i], dst[n+i], dst[2*n+i], dst[3*n+i] = s.integral, s.z, s.gr, s.gy
	}
}

// InitialState writes I(t0), the filter at rest at its initial input,
// and the applied gains equal to their targets.
func (c *PID) InitialState(dst []float64) {
	n := c.n
	for i := range n {
		l := pidAt(c.pars(), n, i)
		gr, gy := l.targets()
		dst[i], dst[n+i], dst[2*n+i], dst[3*n+i] = l.i0, l.cd()*l.w0, gr, gy
	}
}

// Update advances the controller over dt with the reference and the
// measurement held: the exponential Euler step, exact while the output
// stays on one side of its limits.
func (c *PID) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	if err := checkDt(PIDName, dt); err != nil {
		return err
	}
	pidStep(c.pars(), c.n, dt, x, in.Values[:c.n], in.Values[c.n:2*c.n], dst)
	return nil
}

// pidRates writes the right-hand side of every component (see rates)
// into dst: the arithmetic of Derivatives and of the batch kernel.
func pidRates(p []float64, n int, x, r, y, dst []float64) {
	for i := range n {
		l := pidAt(p, n, i)
		d := l.rates(pidState{x[i], x[n+i], x[2*n+i], x[3*n+i]}, r[i], y[i])
		dst[i], dst[n+i], dst[2*n+i], dst[3*n+i] = d.integral, d.z, d.gr, d.gy
	}
}

// Derivatives writes the right-hand side (see rates) into dst.
func (c *PID) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	pidRates(c.pars(), c.n, x, in.Values[:c.n], in.Values[c.n:2*c.n], dst)
	return nil
}

// pidOutput is the control u of component i: the arithmetic of Outputs
// and of a batch kernel.
func pidOutput(p []float64, n, i int, x, r, y []float64) float64 {
	l := pidAt(p, n, i)
	return l.output(raw(x[i], x[n+i], x[2*n+i], x[3*n+i], r[i], y[i]))
}

// Outputs writes u = g_r r − g_y y − z + I, limited when the limits are
// on, into dst.
func (c *PID) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	for i := range c.n {
		dst[i] = pidOutput(c.pars(), c.n, i, x, in.Values[:c.n], in.Values[c.n:2*c.n])
	}
	return nil
}

// OutputsJacobian writes ∂u/∂r = g_r and ∂u/∂y = −g_y, zero where the
// output is limited.
func (c *PID) OutputsJacobian(t float64, x []float64, in node.Inputs, dst []float64) error {
	n := c.n
	nu := 2 * n
	d := dst[:n*nu]
	clear(d)
	for i := range n {
		l := pidAt(c.pars(), n, i)
		v := raw(x[i], x[n+i], x[2*n+i], x[3*n+i], in.Values[i], in.Values[n+i])
		if l.limited && (v > l.hi || v < l.lo) {
			continue
		}
		d[i*nu+i], d[i*nu+n+i] = x[2*n+i], -x[3*n+i]
	}
	return nil
}

// DerivativesJacobian writes the exact ∂f/∂x (4n × 4n) and ∂f/∂u
// (4n × 2n) of the piece the state is on.
func (c *PID) DerivativesJacobian(t float64, x []float64, in node.Inputs, dstX, dstU []float64) error {
	n := c.n
	nx, nu := 4*n, 2*n
	if dstX != nil {
		clear(dstX[:nx*nx])
	}
	if dstU != nil {
		clear(dstU[:nx*nu])
	}
	for i := range n {
		l := pidAt(c.pars(), n, i)
		r, y := in.Values[i], in.Values[n+i]
		gr, gy := x[2*n+i], x[3*n+i]
		k, _ := l.back(raw(x[i], x[n+i], gr, gy, r, y))
		tr, ty := l.targets()
		rowI, rowZ, rowR, rowY := i, n+i, 2*n+i, 3*n+i
		if dstX != nil {
			dstX[rowI*nx+i] = -k
			dstX[rowI*nx+n+i] = k
			dstX[rowI*nx+2*n+i] = r/l.tb - k*r
			dstX[rowI*nx+3*n+i] = -y/l.tb + k*y
			dstX[rowZ*nx+n+i] = -1 / l.tf
			dstX[rowR*nx+2*n+i] = -1 / l.tb
			dstX[rowY*nx+3*n+i] = -1 / l.tb
		}
		if dstU != nil {
			dstU[rowI*nu+i] = l.ki - (tr-gr)/l.tb - k*gr
			dstU[rowI*nu+n+i] = -l.ki + (ty-gy)/l.tb + k*gy
			dstU[rowZ*nu+i] = l.cd() * l.c / l.tf
			dstU[rowZ*nu+n+i] = -l.cd() / l.tf
		}
	}
	return nil
}

// SetParams overrides parameters (all or nothing); the size and units
// cannot change. The state keeps the applied gains, so the output does
// not jump: new gains take effect with time constant retune_time.
func (c *PID) SetParams(p map[string]any) error {
	vals, err := c.resolve(p)
	if err != nil {
		return err
	}
	if err := checkPID(vals, c.n); err != nil {
		return err
	}
	c.set(vals)
	return nil
}

func pidMeta() node.Metadata {
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-511",
		Version:     "1.0.0",
		Stability:   node.Stable,
		Summary: "A PID controller in parallel form with a filtered derivative, setpoint weights, output limits with back-calculation anti-windup, " +
			"and gain changes that do not bump the output.",
		Equations: []string{
			`u = \operatorname{sat}(v), \qquad v = K_p (b r - y) + I + D`,
			`\dot I = K_i (r - y) + K_b\,(u - v), \qquad D(s) = \frac{K_d\, s}{T_f s + 1}\,(c\,r - y)`,
		},
		EquationNotes: "$r$ is the input `reference`, $y$ the `measurement`, $u$ the output `out`; $K_p$, $K_i$, $K_d$ are `kp`, `ki`, `kd`, $T_f$ `tf`, " +
			"$b$ `setpoint_weight`, $c$ `derivative_weight`, $K_b$ `kb`, and sat limits to [`lower`, `upper`] when `limit_output` is on (otherwise $u = v$ and " +
			"the back-calculation term vanishes). With $b = c = 1$ it is the textbook $K_p e + K_i\\int e\\,dt + K_d\\,\\dot e$ on the error $e = r - y$, " +
			"the derivative filtered. The derivative is realized as $D = (K_d/T_f)(c r - y) - z$ with $\\dot z = ((K_d/T_f)(c r - y) - z)/T_f$. " +
			"Bumpless gain changes: the state carries the applied direct gains $g_r$, $g_y$ (so $v = g_r r - g_y y - z + I$), which tend to " +
			"$G_r = K_p b + (K_d/T_f) c$ and $G_y = K_p + K_d/T_f$ with time constant $T_b$ (`retune_time`), while the integral absorbs their change " +
			"($\\dot I$ gains $-r\\,\\dot g_r + y\\,\\dot g_y$): changing $K_p$, $K_d$, $T_f$, $b$ or $c$ with SetParams between runs moves the output " +
			"continuously, and the integral integrates $K_i e$ so that changing $K_i$ does not bump it either.",
		Discretization: "exponential-euler",
		DiscretizationNotes: "Update is the exponential Euler step $x^+ = x + \\Delta t\\,\\varphi_1(\\Delta t\\,J)\\,f(x)$ with the inputs held, $J = \\partial f/\\partial x$ " +
			"at the step's start: the right-hand side is affine on each side of the limits, so the step is the exact solution while the output does not " +
			"cross a limit within the step, and first order across one. It is written in closed form (the three decay rates $K_b$, $1/T_b$, $1/T_f$, " +
			"with $\\varphi_1$ from `math.Expm1`), not by a matrix exponential. Unconditionally stable: a short $T_f$ needs no short step. " +
			"The conformance checker (package verification, scheme `exponential-euler`) holds it to a matrix-exponential evaluation of the same formula.",
		Order: node.Order{Temporal: 1, Note: "Exact for held inputs while the output stays on one side of its limits; first order otherwise (the held inputs, and a limit crossed within a step)."},
		Assumptions: []string{
			"The reference and the measurement are held over a co-simulation step",
			"The output reads its inputs at the same instant (feedthrough through $g_r$, $g_y$): a feedthrough path from the output back to the measurement is an algebraic loop; a plant's state in between (the usual case) is not",
			"No events: the output limits are kinks of the right-hand side, not jumps, and adaptive steps shorten across them",
		},
		Limitations: []string{
			"Continuous-time only; a sampled controller is this block behind a `zoh` (sample-and-hold) on its output",
			"A changed gain takes effect with time constant $T_b$, not at once; a changed limit takes effect at once and may bump the output",
			"The derivative filter $T_f$ is always present: $T_f$ far below the step of a co-simulation makes the derivative term the step's last value (still stable), far below the dynamics of interest in a monolithic run makes explicit methods stiff ($|\\lambda| = 1/T_f$)",
			"Anti-windup acts only on the block's own limits: an actuator saturating downstream (a `saturation` block) winds the integral up",
		},
		StabilityConditions: []string{"The update is unconditionally stable; the closed loop's stability is the loop's (the co-simulation step adds a delay of about half a step)."},
		StableStep:          &node.StableStep{Unconditional: true, Notes: "Update is the exponential Euler step, exact on each affine piece: every decay factor is in (0, 1) at any step length."},
		Mapping: []node.Mapping{
			{Term: `\dot I,\ \dot z,\ \dot g_r,\ \dot g_y`, Identifier: pkgPath + ".pidLaw.rates"},
			{Term: `x^+ = x + \Delta t\,\varphi_1(\Delta t J) f(x)`, Identifier: pkgPath + ".pidLaw.step", Notes: "closed form; shared by Update and a batch kernel through pidStep"},
			{Term: `u = \operatorname{sat}(g_r r - g_y y - z + I)`, Identifier: pkgPath + ".pidOutput"},
			{Term: `K_b (u - v)`, Identifier: pkgPath + ".pidLaw.back", Notes: "back-calculation"},
			{Term: `\partial f/\partial x,\ \partial f/\partial u`, Identifier: pkgPath + ".PID.DerivativesJacobian", Notes: "exact on each piece"},
		},
		References: []node.Reference{refAstromMurray, refAstromHagglund, refHochbruck, refSimulink, refDrake},
		Anomalies:  []string{},
		Evidence:   []string{"COSIM-VER-502", "COSIM-VER-504", "COSIM-VER-505"},
		Changelog:  []node.Change{{Version: "1.0.0", Date: changeDate, Change: "Initial implementation"}},
	}
}
