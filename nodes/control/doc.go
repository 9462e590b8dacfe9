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
// integrator's limits and reset are events too: entering a limit is a
// transversal crossing (the input drives the output into it), after
// which the output is held there, a mode of its own in which ∂y/∂p is
// the limit's ∂b/∂p, until the input turns back (no event: the flow is
// continuous there). graph.Sim.Sensitivities differentiates through
// both (graph/sensitivity_saturation_test.go holds it to the closed
// form of a sine-driven limited integrator). The saturation, dead
// zone, rate limiter and PID limits are kinks (continuous right-hand
// sides), which need no event; the switch jumps, but a stateless node
// cannot declare a state event (graphs take events from stateful nodes
// only), so its crossing is resolved by the adaptive step control.
//
// # Batch kernels
//
// Every block but the sampled ones is a node.Batcher: a graph steps the
// blocks of one type and layout as a family, one kernel call per block
// of rows (batch.go). Each kernel runs, row by row, the per-row function
// the block's own Outputs, Update and Derivatives run (gainRow, sumRow,
// pidStep, lti.step, …) on the parameters it reads from node.Rows over
// each block's node.Published row, so both paths compute the same bits
// (verification.CheckBatch holds every kernel to that, bit for bit, and
// to seeing every SetParams) and a batch holds nothing its blocks keep
// alive. The rows are uniform while every member has the same
// parameters, and the kernels then read one row for all. The transfer
// function and state space publish their realized system as one
// immutable value with its cached discretization, shared by the block
// and the kernel's row.
//
// Which kernels pay was measured, not assumed: benchmarks.PIDLoops (W6,
// 1000 PID position loops, each a mass on a spring-damper with a sensor
// lag, a PID controller and a saturating actuator) steps in 0.47 to 0.75
// of the time with the control kernels as without them, and
// benchmarks.ControlFamily measures each type alone (1000 blocks fed by
// shared sources, each read by a lag): every type was faster with its
// kernel in at least two of three runs, by 10 % (pid, whose exponentials
// dominate what a call costs) to 50 % and more (product, transfer
// function, dead zone, integrator), all on a loaded machine
// (benchmarks/REPORT.md, section W6, has the numbers; they are to be
// re-measured idle). All are kept. The sampled blocks (zoh,
// unitdelay, transportdelay) have none, and none was written or
// measured: their state changes only at sample instants, which each
// block declares as time events and events of its own that a graph asks
// node by node, and between samples their Update copies the state, so a
// family would save at most the call around that copy per block and
// step; the transport delay's history buffer, the largest state of the
// package, would be copied the same way by a kernel. They are the
// candidates should a model run thousands of them.
//
// # Reading order
//
// common.go (shared parameters and the block base), then the stateless
// blocks (gain.go, sum.go, product.go, saturation.go, switch.go), the
// continuous ones (integrator.go, firstorder.go, ratelimiter.go, pid.go),
// the linear systems (lti.go, expm.go, transferfunction.go,
// statespace.go), the batch kernels of all of these (batch.go), and the
// sampled ones (sample.go, hold.go, delay.go). refs.go holds the
// references the metadata cite.
//
// # Invariants
//
//   - Parameters are validated at construction and by SetParams: every
//     invalid value is a *node.ParamError naming the block type, the
//     parameter, the value and the valid range. What shapes the spec (a
//     size, units, the number of inputs, a transfer function's order or
//     feedthrough, a delay's number of samples) cannot change after
//     construction: edges and loops were checked against it.
//   - Every block keeps its numbers in a flat row of float64 (the linear
//     systems: one immutable realized system) beside its validated
//     values, published through node.Published: a new row at every
//     change, never one written in place. Its Outputs, Update and
//     Derivatives read that row through one per-row function (gainRow,
//     pidStep, …), the function its batch kernel calls for each row.
//   - Outputs, Update, Derivatives, the Jacobians, events, time events
//     and the batch kernels allocate nothing, except the
//     transfer-function and state-space Update (a block's or its
//     kernel's row) on the first step of each step length (the
//     discretization, then cached).
//
// # Concurrency
//
// Every method but SetParams is safe for concurrent use on distinct
// arguments, as the node contract requires (the linear blocks' cached
// discretization is an atomic pointer), and so is every kernel on
// disjoint rows (they keep no scratch but the call's own stack).
// SetParams is not safe while a graph containing the block is stepping.
package control
