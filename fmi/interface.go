package fmi

// Interface is an FMI interface type a node is made from: co-simulation
// (the FMU steps itself with its own solver) or model exchange (cosim's
// integrators step the FMU's equations).
type Interface string

// Interfaces, as a scene's "interface" parameter names them.
const (
	InterfaceCoSimulation  Interface = "co-simulation"
	InterfaceModelExchange Interface = "model-exchange"
)
