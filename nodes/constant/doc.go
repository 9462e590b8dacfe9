// Package constant is cosim's constant-vector source: a stateless node
// whose output "value" is its parameter, y(t) = c, in the units its
// "units" parameter names (default newtons, for loads).
//
// Invariants: the output never changes during a run; SetParams changes the
// value between runs but not the units, which edges were checked against.
// The node is a [node.Batcher]: a graph may write the values of many
// constants in one kernel call; the kernel holds a copy of every member's
// value, which SetParams updates, and writes the same bits as Outputs.
// Concurrency: Outputs and the kernel's methods (on disjoint row ranges)
// are safe for concurrent use; SetParams is not safe during a run.
package constant
