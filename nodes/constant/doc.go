// Package constant is cosim's constant-vector source: a stateless node
// whose output "value" is its parameter, y(t) = c, in the units its
// "units" parameter names (default newtons, for loads).
//
// Invariants: the output never changes during a run; SetParams changes the
// value between runs but not the units, which edges were checked against.
// Concurrency: Outputs is safe for concurrent use; SetParams is not safe
// during a run.
package constant
