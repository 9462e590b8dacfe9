package node

// StepCompleter is the capability of a node that must be told when an
// integrator has accepted a step of its state: a model that updates
// internal bookkeeping only at accepted points (an FMI model-exchange
// FMU's fmi3CompletedIntegratorStep, which is where such an FMU may ask
// for a step event), or that records accepted points for its own use.
//
// A graph's monolithic integration calls CompletedStep once after every
// accepted step, fixed-step (Sim.RunMonolithic: after each step) and
// adaptive (Sim.Integrate: after each accepted step, after the reset of
// an event located in it), never after a rejected trial, with the time
// and the node's state at the end of the step and its inputs there. x
// and in are the graph's: the node must not keep or change them. In
// co-simulation the node's own Update is the step and CompletedStep is
// not called. Calls come from one goroutine and must not allocate. An
// error stops the run, named by the node and the time; wrapping ErrStop
// is not special here.
type StepCompleter interface {
	CompletedStep(t float64, x []float64, in Inputs) error
}
