// Package control is cosim's library of control blocks: the signal
// blocks every plant model needs between its sensors and its actuators.
//
// # Overview
//
// Stateless, with feedthrough (the output reads the inputs at the same
// instant):
//
//   - gain (COSIM-NODE-501): y = K u, elementwise or a matrix.
//   - sum (502): y = ±u₁ ± u₂ ± …, the comparator of a loop.
//   - product (503): y = u₁ · u₂ / u₃ …, elementwise; a zero divisor is an error.
//   - saturation (504) and deadzone (505): limits and a dead band.
//   - switch (506): y = on or off by a control and a criterion.
//
// Continuous, with a state (Derivatives for monolithic runs, and an
// Update of their own for co-simulation):
//
//   - integrator (507): ẏ = K u, with output limits and a level reset.
//   - lag (508): K/(Ts + 1); derivative (509): Ks/(Ts + 1).
//   - ratelimiter (510): the output's rate held within [−F, R].
//   - pid (511): parallel PID, filtered derivative, setpoint weights,
//     output limits with back-calculation anti-windup, bumpless gain
//     changes.
//   - transferfunction (512): N(s)/D(s), proper, in controllable
//     canonical form; statespace (513): ẋ = Ax + Bu, y = Cx + Du.
//
// Sampled, at instants t_k = t₀ + k·T_s declared as time events:
//
//   - zoh (514): sample and hold; unitdelay (515): z⁻¹.
//   - transportdelay (516): y(t) = u(t − T) from a sampled, linearly
//     interpolated history kept in the state.
//
// Elementwise blocks act on signals of 1 to MaxSize components (the
// "size" parameter): a per-component parameter takes one value for every
// component or one per component. Every block names its input "in" (or
// in1, in2, …; on, control, off; reference, measurement) and its output
// "out", in the units its parameters declare, so that graphs check the
// wiring's units.
//
// # Numerical schemes
//
// The continuous blocks' Update is the exact solution of the block's own
// equations over the step with its inputs held at their values at the
// step's start ("exact-hold"): closed forms for the first-order blocks
// and the rate limiter, the zero-order-hold map x⁺ = Φx + Γu for
// transfer functions and state space (Φ and Γ from one matrix
// exponential, Padé 6 with scaling and squaring, cached per step
// length), and the exponential Euler step for the PID ("exponential-
// euler", exact while its output stays on one side of its limits). A
// step response is therefore exact at every step, no block limits the
// step for stability, and the only error of a co-simulation is the held
// input's, first order in the step. The conformance checker in package
// verification holds every Update to these schemes applied to the
// block's Derivatives. A linear block's step and frequency responses are
// tested against closed forms and against scipy.signal (testdata/
// gen_scipy.py writes the reference data once, with the versions it
// used).
//
// # Discontinuities and events
//
// The sampled blocks' state changes only at sample instants. In
// co-simulation Update takes a sample at the first step at or after its
// instant; in a monolithic run each block's "sample" event fires on the
// instant and its reset takes it, and the instants are time events
// (node.TimeEventer), on which every integrator ends a step exactly. The
// integrators apply every event due at an instant, so blocks sharing an
// instant all take their samples on it, and they fire the events due at
// the start of a run, so a sample due there is taken at the start
// (sample.go explains the rounding rule and the event function). The
// integrator's limits and reset are events too. The saturation, dead
// zone, rate limiter and PID limits are kinks (continuous right-hand
// sides), which need no event; the switch jumps, but a stateless node
// cannot declare a state event (graphs take events from stateful nodes
// only), so its crossing is resolved by the adaptive step control.
//
// # Reading order
//
// common.go (shared parameters and the block base), then the stateless
// blocks (gain.go, sum.go, product.go, saturation.go, switch.go), the
// continuous ones (integrator.go, firstorder.go, ratelimiter.go, pid.go),
// the linear systems (lti.go, expm.go, transferfunction.go,
// statespace.go), and the sampled ones (sample.go, hold.go, delay.go).
// refs.go holds the references the metadata cite.
//
// # Invariants
//
//   - Parameters are validated at construction and by SetParams: every
//     invalid value is a *node.ParamError naming the block type, the
//     parameter, the value and the valid range. What shapes the spec (a
//     size, units, the number of inputs, a transfer function's order or
//     feedthrough, a delay's number of samples) cannot change after
//     construction: edges and loops were checked against it.
//   - Every block keeps its numbers in a flat row of float64 beside its
//     validated values, and its Outputs, Update and Derivatives read that
//     row through one per-row function (gainRow, pidStep, …), the form a
//     batch kernel would call for each of its rows.
//   - Outputs, Update, Derivatives, the Jacobians, events and time events
//     allocate nothing, except the transfer-function and state-space
//     Update on the first step of each step length (the discretization,
//     then cached).
//
// # Concurrency
//
// Every method but SetParams is safe for concurrent use on distinct
// arguments, as the node contract requires (the linear blocks' cached
// discretization is an atomic pointer). SetParams is not safe while a
// graph containing the block is stepping.
package control
