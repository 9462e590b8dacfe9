package integrators

import (
	"context"
	"fmt"
	"math"
)

// Run for the Dormand–Prince driver; Integrate and runDriver, the
// loop of every Driver, are in adaptive.go.

// checkOutput checks that output times ascend within [t0, tEnd].
func checkOutput(out []float64, t0, tEnd float64) error {
	for i, t := range out {
		if t < t0 || t > tEnd || (i > 0 && t < out[i-1]) || math.IsNaN(t) {
			return fmt.Errorf("integrators: Integrate: Output[%d] = %v not ascending within [%v, %v]", i, t, t0, tEnd)
		}
	}
	return nil
}

// Run continues an initialised driver from its current state to tEnd,
// as Integrate does from its start: it records dense-output samples at
// the times in output (ascending, within [current time, tEnd]) and the
// located events, stops at an EventStop, and takes at most
// DriverOptions.MaxSteps trial steps in this call. ctx is checked before every
// trial step: on cancellation the Outcome's Status is Cancelled and
// the error is ctx's. The Outcome's Work is the work of this call; the
// state is the driver's, the last accepted one on any error.
//
// Run is how a caller that keeps the driver (a graph between Integrate
// calls, or after restoring a StepperState) continues one integration.
func (a *Adaptive) Run(ctx context.Context, tEnd float64, output []float64) (*Outcome, error) {
	if !a.init {
		panic("integrators: Adaptive.Run before Init")
	}
	return runDriver(ctx, a, a.c.maxSteps, tEnd, output)
}
