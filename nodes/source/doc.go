// Package source is cosim's catalog of time signals: stateless nodes
// without inputs whose single output "value" is a function of time only.
//
//   - sine (COSIM-NODE-103): y_i = c_i + A_i sin(ω_i t + φ_i), ω in rad/s.
//   - step (COSIM-NODE-104): y₀ before T, y₁ from T on.
//   - ramp (COSIM-NODE-105): y_i = c_i + s_i max(0, t − t₀).
//   - pulse (COSIM-NODE-106): c + A during [D + kP, D + kP + W), c
//     otherwise.
//   - lookup (COSIM-NODE-107): a table t_j → v_j interpolated by zero-order
//     hold, linearly or by monotone cubic (PCHIP, Fritsch–Carlson), with a
//     declared behaviour outside it (hold, extrapolate, error). Scene files
//     may name a CSV file column; the scene loader reads it (package scene).
//
// Every per-component parameter (amplitude, slope, initial, …) takes one
// value per output component or one value for all; the output is a
// scalar for one component and an n-vector otherwise (n ≤ MaxComponents),
// in the units the "units" parameter names. Outputs are right-continuous.
//
// # Time events
//
// The step time, the ramp's start, both edges of every pulse and every
// breakpoint of a table are declared through [node.TimeEventer]: a
// graph's monolithic System turns them into event functions, so the
// adaptive Dormand–Prince integrator ends a step exactly on each one and
// restarts from its far side instead of stepping over the discontinuity.
// Outputs and TimeEvents share one computation of where t lies (the pulse
// edge k is D + ⌊k/2⌋P (+W), never an accumulated sum), so the output
// switches exactly at the reported times.
//
// # Invariants
//
//   - Parameters are validated at construction and by SetParams: every
//     invalid value is a *node.ParamError naming the node type, the
//     parameter, the value and the valid range (a pulse width not below
//     its period, table times not strictly increasing, values not a
//     multiple of the breakpoints). The output size and units cannot change
//     after construction: edges were checked against them.
//   - Outputs and TimeEvents allocate nothing and write only dst; a lookup
//     with outside = "error" returns a *node.FieldError for "value"
//     wrapping ErrOutsideTable.
//
// # Batch kernels
//
// Every source is a [node.Batcher]: a graph writes the values of a family
// of sources of one type and one output size (BatchKey is the size) in
// one kernel call per row range. A sine, step, ramp or pulse keeps its
// parameters flattened into one row of float64 (per-component values
// expanded), which its Outputs reads; the family reads every member's
// row from node.Rows, which SetParams keeps current, and runs the same
// per-row function (sineRow, stepRow, rampRow, pulseRow) as Outputs, so
// both paths write the same bits. A lookup family reads every member's
// table likewise (breakpoints and values shared, never written), whose
// interpolation and outside behaviour are dispatched per row, and runs
// the same table.eval. The kernels write nothing when the graph reads no
// output, except that a lookup with outside = "error" still fails there
// when a member's Outputs would. They allocate nothing (a lookup's error
// excepted). Time events have no batched form: the graph asks each
// source (node.TimeEventer), batched or not.
//
// # Concurrency
//
// Outputs, TimeEvents and the kernels' methods (on disjoint row ranges)
// are safe for concurrent use; SetParams is not safe during a run.
//
// # Reading order
//
// common.go holds what every source shares (base, the parameter row,
// the spec); sine.go, step.go, ramp.go and pulse.go are one source type
// each, with its per-row function; lookup.go is the table source and its
// interpolants. batch.go holds the kernels of all five.
package source
