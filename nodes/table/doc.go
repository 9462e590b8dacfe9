// Package table is a fixed surface: a stateless source node, registered as
// "table" (algorithm COSIM-NODE-101), whose single output "position" (m)
// is its parameter "position" (default 0, any finite value). Connect the
// output to a ball's table_position input to give the ball something to
// bounce on.
//
// # Equations
//
// x_table = p: the output is the parameter, at every time, whatever the
// state (there is none) and the inputs (there are none). The node has no
// feedthrough, so it never takes part in an algebraic loop.
//
// # Invariants
//
//   - Outputs writes only dst[0] and never fails; the parameter was
//     validated as finite when it was set.
//   - Update and InitialState (from [node.Stateless]) do nothing.
//   - Outputs reads the current parameter, overrides from SetParams
//     included.
//   - The node is a [node.Batcher]: a graph may write the heights of many
//     tables in one kernel call. The kernel holds a copy of every
//     member's height, which SetParams updates, and writes the same bits
//     as Outputs.
//
// # Drawing
//
// The table draws itself (node.Drawer, Node.Draw) as a horizontal square
// plane at its height; show, draw_size and color are visualization
// parameters.
//
// # Concurrency
//
// Spec, Params and Outputs are safe for concurrent use, and so are the
// kernel's methods on disjoint row ranges. SetParams is not:
// call it between runs, or between steps when nothing else is using the
// node.
package table
