// Package order is a test fixture of the mutation engine: its tests and
// example log their names, so that the engine's test can tell which of
// them a mutant's run executed, and in which order.
package order

// Add is caught by every test when mutated (+ to -).
func Add(a, b int) int { return a + b }

// Scale's only mutant (* to /) divides by one: no test can catch it.
func Scale(x int) int { return x * 1 }
