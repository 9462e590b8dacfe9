package control

import (
	"math"

	"github.com/cosimgo/cosim/node"
)

// RateLimiterName is the registry name of the rate limiter.
const RateLimiterName = "ratelimiter"

// RateLimiterType registers the rate limiter: a new value at each call.
func RateLimiterType() node.Type {
	return node.Type{Name: RateLimiterName, New: func(m map[string]any) (node.Node, error) { return asNode(newRateLimiter(m)) }}
}

// RateLimiterParams are the rate limiter's parameters. Per-component
// slices have one value for every component or one per component (nil:
// the default).
type RateLimiterParams struct {
	// Rising and Falling are the largest rates of increase and decrease,
	// in units per second, > 0. Default [1].
	Rising, Falling []float64
	// TimeConstant T in s, > 0: how fast the output follows when it is
	// not rate limited. Default [0.001].
	TimeConstant []float64
	// Initial is y(t0). Default [0].
	Initial []float64
	// Size is the number of components. Default 1.
	Size int
	// Units of the input and the output. Default "1".
	Units string
}

func (p RateLimiterParams) values() node.Values {
	return node.Values{"rising": orDefault(p.Rising, 1), "falling": orDefault(p.Falling, 1), "time_constant": orDefault(p.TimeConstant, 1e-3),
		"initial": orDefault(p.Initial, 0), "size": orSize(p.Size), "units": orUnits(p.Units)}
}

var rateLimiterParams = []node.Param{
	perComponent("rising", 1, node.Positive(), "units/s", "Largest rate of increase $R$"),
	perComponent("falling", 1, node.Positive(), "units/s", "Largest rate of decrease $F$ (a positive number)"),
	perComponent("time_constant", 1e-3, node.Positive(), "s", "Time constant $T$ with which the output follows the input when it is not rate limited ($T \\to 0$ is the ideal rate limiter)"),
	perComponent("initial", 0, node.Finite(), "units", "Initial output $y(t_0)$"),
	sizeParam,
	unitsParam("units", "Units of the input and the output"),
}

// RateLimiter is a continuous rate limiter: the output follows the input
// with time constant T, its rate held within [−F, R]. It has no
// feedthrough.
type RateLimiter struct {
	block
}

var (
	_ node.Deriver        = (*RateLimiter)(nil)
	_ node.Outputter      = (*RateLimiter)(nil)
	_ node.InputJacobian  = (*RateLimiter)(nil)
	_ node.OutputJacobian = (*RateLimiter)(nil)
	_ node.Tunable        = (*RateLimiter)(nil)
)

// NewRateLimiter builds a rate limiter from typed parameters.
func NewRateLimiter(p RateLimiterParams) (*RateLimiter, error) { return newRateLimiter(p.values()) }

func newRateLimiter(given map[string]any) (*RateLimiter, error) {
	vals, err := node.Resolve(RateLimiterName, rateLimiterParams, nil, given)
	if err != nil {
		return nil, err
	}
	n := vals.Int("size")
	if err := checkRateLimiter(vals, n); err != nil {
		return nil, err
	}
	r := &RateLimiter{block: block{typ: RateLimiterName, params: rateLimiterParams, fixed: []string{"size", "units"}, n: n}}
	r.set(vals)
	sh, units := shapeOf(n), vals.String("units")
	r.spec = node.NewSpec(node.Spec{
		Type:    RateLimiterName,
		Package: pkgPath,
		Params:  rateLimiterParams,
		State:   []node.Field{{Name: "state", Shape: sh, Units: units, Description: "The output $y$"}},
		Inputs:  []node.Input{{Name: "in", Shape: sh, Units: units, Combine: node.Additive, Description: "The input $u$ (edges into it are summed)"}},
		Outputs: []node.Field{{Name: "out", Shape: sh, Units: units, Description: "The rate-limited input $y$ (the state)"}},
		Meta:    rateLimiterMeta(),
	})
	return r, nil
}

func checkRateLimiter(vals node.Values, n int) error {
	if err := checkPerComponent(RateLimiterName, vals, n, "rising", "falling", "time_constant", "initial"); err != nil {
		return err
	}
	return checkUnits(RateLimiterName, vals, "units")
}

func (r *RateLimiter) set(vals node.Values) {
	r.vals = vals
	p := []float64(nil)
	for _, name := range []string{"rising", "falling", "time_constant", "initial"} {
		v := vals.Floats(name)
		for i := range r.n {
			p = append(p, comp(v, i))
		}
	}
	r.row.Set(p)
}

// rateLimiterStep is the exact solution over dt with the input held:
// the output ramps at the limiting rate until it is within R·T (or F·T)
// of the input, then closes the rest exponentially. It is the arithmetic
// of Update and of a batch kernel.
func rateLimiterStep(p []float64, dt float64, x, u, dst []float64) {
	n := len(dst)
	for i := range dst {
		rise, fall, tau := p[i], p[n+i], p[2*n+i]
		y, d := x[i], u[i]-x[i]
		switch {
		case d > rise*tau:
			if t1 := (d - rise*tau) / rise; dt <= t1 {
				dst[i] = y + rise*dt
			} else {
				dst[i] = u[i] - rise*tau*math.Exp(-(dt-t1)/tau)
			}
		case d < -fall*tau:
			if t1 := (-d - fall*tau) / fall; dt <= t1 {
				dst[i] = y - fall*dt
			} else {
				dst[i] = u[i] + fall*tau*math.Exp(-(dt-t1)/tau)
			}
		default:
			dst[i] = y + d*decay(dt, tau)
		}
	}
}

// InitialState writes y(t0) into dst.
func (r *RateLimiter) InitialState(dst []float64) { copy(dst[:r.n], r.pars()[3*r.n:4*r.n]) }

// Update advances the output over dt with the input held, exactly.
func (r *RateLimiter) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	if err := checkDt(RateLimiterName, dt); err != nil {
		return err
	}
	rateLimiterStep(r.pars(), dt, x, in.Values[:r.n], dst[:r.n])
	return nil
}

// rateLimiterRates writes ẏ = clamp((u − y)/T, −F, R) into dst: the
// arithmetic of Derivatives and of the batch kernel.
func rateLimiterRates(p []float64, x, u, dst []float64) {
	n := len(dst)
	for i := range dst {
		dst[i] = clamp((u[i]-x[i])/p[2*n+i], -p[n+i], p[i])
	}
}

// Derivatives writes ẏ = clamp((u − y)/T, −F, R) into dst.
func (r *RateLimiter) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	rateLimiterRates(r.pars(), x, in.Values[:r.n], dst[:r.n])
	return nil
}

// Outputs writes y = the state into dst.
func (r *RateLimiter) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	copy(dst[:r.n], x[:r.n])
	return nil
}

// OutputsJacobian writes ∂y/∂u = 0.
func (r *RateLimiter) OutputsJacobian(t float64, x []float64, in node.Inputs, dst []float64) error {
	clear(dst[:r.n*r.n])
	return nil
}

// DerivativesJacobian writes ∂f/∂y = −1/T and ∂f/∂u = 1/T where the
// rate is not limited, zero where it is.
func (r *RateLimiter) DerivativesJacobian(t float64, x []float64, in node.Inputs, dstX, dstU []float64) error {
	n := r.n
	if dstX != nil {
		clear(dstX[:n*n])
	}
	if dstU != nil {
		clear(dstU[:n*n])
	}
	for i := range n {
		tau := r.pars()[2*n+i]
		d := in.Values[i] - x[i]
		if d > r.pars()[i]*tau || d < -r.pars()[n+i]*tau {
			continue
		}
		if dstX != nil {
			dstX[i*n+i] = -1 / tau
		}
		if dstU != nil {
			dstU[i*n+i] = 1 / tau
		}
	}
	return nil
}

// SetParams overrides parameters (all or nothing); the size and units
// cannot change.
func (r *RateLimiter) SetParams(p map[string]any) error {
	vals, err := r.resolve(p)
	if err != nil {
		return err
	}
	if err := checkRateLimiter(vals, r.n); err != nil {
		return err
	}
	r.set(vals)
	return nil
}

func rateLimiterMeta() node.Metadata {
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-510",
		Version:     "1.0.0",
		Stability:   node.Stable,
		Summary:     "A rate limiter: the output follows the input, but never rises faster than R or falls faster than F (an actuator's slew rate, a smoothed setpoint).",
		Equations:   []string{`\dot y = \operatorname{clamp}\!\left(\frac{u - y}{T},\ -F,\ R\right)`},
		EquationNotes: "$u$ is the input `in`, $y$ the output `out` (the state), $R$ `rising`, $F$ `falling`, per component. " +
			"A rate limiter needs a state in continuous time; away from the limits the output follows the input as a lag of time constant $T$ " +
			"(`time_constant`), and $T \\to 0$ is the ideal rate limiter. A step of height $h$ from rest is a ramp at rate $R$ reaching $h - RT$ at " +
			"$t_1 = h/R - T$, then the exponential $h - RT e^{-(t - t_1)/T}$.",
		Discretization: "exact-hold",
		DiscretizationNotes: holdNote + ". Here a step computes the ramp phase and the time $t_1$ it ends, then the exponential phase, in closed form: " +
			"over a step much longer than $T$ the output reaches any input within $R\\,\\Delta t$ of it, as a discrete rate limiter does.",
		Order: node.Order{Temporal: 1, Note: "Exact for a piecewise-constant input; first order (the held input) otherwise."},
		Assumptions: []string{
			"The input is held over a co-simulation step",
			"The right-hand side is continuous (the switch between ramp and lag is a kink): no event is needed for accuracy, adaptive steps shorten across it",
		},
		Limitations: []string{
			"A small $T$ makes the block stiff for explicit monolithic methods ($|\\lambda| = 1/T$ while it follows the input): prefer co-simulation, an implicit method, or a larger $T$",
			"The output lags a ramp of the input that is slower than the limits by $T$ times the ramp's rate",
		},
		StabilityConditions: []string{"Unconditionally stable in co-simulation (exact update); explicit monolithic methods need $\\Delta t \\lesssim 2.8\\,T$ while the output follows the input."},
		StableStep:          &node.StableStep{Unconditional: true, Notes: "Update is the exact solution for the held input, so no step length makes it unstable."},
		Mapping: []node.Mapping{
			{Term: `y^+`, Identifier: pkgPath + ".rateLimiterStep", Notes: "ramp then exponential, shared by Update and a batch kernel"},
			{Term: `\dot y = \operatorname{clamp}((u - y)/T, -F, R)`, Identifier: pkgPath + ".RateLimiter.Derivatives"},
			{Term: `\partial f/\partial y,\ \partial f/\partial u`, Identifier: pkgPath + ".RateLimiter.DerivativesJacobian", Notes: "exact"},
		},
		References: []node.Reference{refSimulink},
		Anomalies:  []string{},
		Evidence:   []string{"COSIM-VER-502"},
		Changelog:  []node.Change{{Version: "1.0.0", Date: changeDate, Change: "Initial implementation"}},
	}
}
