package integrators

// Outcome is the outcome of a driver run (Integrate) or of one
// second-order step (SecondOrderStepper.Advance), like optimize.Result.
type Outcome struct {
	// Status says how the run ended; Status.Err() is nil for Success and
	// StoppedByEvent.
	Status Termination
	// Work is the work done by this call.
	Work
	// T and Y are the last accepted time and state (Integrate). Y is a
	// fresh slice.
	T float64
	Y []float64
	// Samples holds the dense-output states at DriverOptions.Output times
	// reached before the run ended (Integrate).
	Samples []Sample
	// Events lists the located events in order (Integrate).
	Events []EventRecord
	// Memory carries the accepted second-order state and the memory for
	// the next step (Advance).
	Memory Memory
}

// Sample is a state at a requested output time. At an event time it is
// the state before the reset.
type Sample struct {
	T float64
	Y []float64
}

// EventRecord describes one event reset: several events due at one
// instant give one record each, in the order their resets were applied
// (see Firing).
type EventRecord struct {
	T      float64     // located time, within the event tolerance after the root
	Index  int         // event index
	Action EventAction // what Reset returned
	Round  int         // the round of the event iteration at T (Firing.Round)
	Before []float64   // state at T before this reset
	After  []float64   // state at T after this reset
}

// StepReport describes one accepted step of an adaptive driver. When
// events fired, the step ends at their instant T1 and Fired lists every
// reset applied there in order; a step with T0 = T1 and H = 0 applied
// only the events due at the start of the run (the first Step after
// Init).
type StepReport struct {
	T0, T1 float64 // the step covered [T0, T1]; T1 is the event time if an event fired
	H      float64 // the step size used for the stages (T1 − T0 unless an event truncated the step)
	// Event is the index of the first event that fired at T1, or −1, and
	// Action is EventStop when a reset there stopped the run, otherwise
	// the first reset's action.
	Event  int
	Action EventAction
	// Fired lists the resets applied at T1 (nil when none), with the
	// states around each; it is owned by the driver and valid until its
	// next Step, Init or Restore.
	Fired []Firing
}
