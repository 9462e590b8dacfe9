package main

import "os"

// The MADDENING two-mass guide's first command: ρ∞ = 0.5 keeps the resolved slow mode
// (ratio > 0.999) and removes the under-resolved fast one (< 1e-15);
// the MADDENING two-mass guide's table prints 99.947% and 1.53e-18%.
func Example() {
	if err := run(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// Slow/fast modal energy retained: [0.999470, 1.53e-20]
}
