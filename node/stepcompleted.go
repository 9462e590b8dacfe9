package node

// StepCompleter is the capability of a node that must be told when an
// integrator has accepted a step of its state: a model that updates
// internal bookkeeping only at accepted points, or that may decide there
// that its state jumps (a step event: an FMI model-exchange FMU's
// fmi3CompletedIntegratorStep asking for event mode, after which the FMU
// runs its event update).
//
// A graph's monolithic integration calls CompletedStep once after every
// accepted step, fixed-step (Sim.RunMonolithic: after each step) and
// adaptive (Sim.Integrate: after each accepted step, after the reset of
// an event located in it and after the samples taken inside it), never
// after a rejected trial, with the time and the node's state at the end
// of the step and its inputs there. x and in are the graph's: the node
// must not keep or change them. dst (len(x)) holds a copy of x on entry.
//
// A node whose state does not change returns false and leaves dst alone.
// One that changes its state at t (or its equations from t on: a
// discrete state of its own that its Derivatives read) writes the state
// after the change into dst, returns true, and the integrator restarts
// at t from it, as after an event's reset: its memory of the trajectory
// before t (a carried derivative, a multistep history, a step-size
// proposal) is dropped. An error wrapping ErrStop ends the run at t with
// the state in dst, as a Reset returning ErrStop does (the run's status
// says it stopped at an event and the error is kept as its cause); any
// other error stops the run, named by the node and the time.
//
// In co-simulation the node's own Update is the step and CompletedStep is
// not called. Calls come from one goroutine and must not allocate.
type StepCompleter interface {
	CompletedStep(t float64, x []float64, in Inputs, dst []float64) (changed bool, err error)
}
