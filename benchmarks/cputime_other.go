//go:build !unix

package benchmarks

import "time"

// cpuTime is unavailable here: BuildCost.CPU is 0.
func cpuTime() time.Duration { return 0 }
