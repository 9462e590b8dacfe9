package main

// helpTopics are the topics "cosim help TOPIC" prints besides the
// commands' flags.
func helpTopics() map[string]string {
	return map[string]string{"fmi": helpFMI}
}

const helpFMI = `Importing FMUs (FMI 2.0 and 3.0; docs/fmi.md has the details)

A scene node of type "fmu" is an FMU made into a cosim node:

  {"name": "bb", "type": "fmu", "params": {"path": "BouncingBall.fmu", "e": 0.8}}

  path       the .fmu file or an unpacked FMU directory, relative to the scene file
  interface  "co-simulation" (the FMU steps itself; the default where offered)
             or "model-exchange" (cosim's integrators step its equations)
  instance   the FMU instance name (default: its modelIdentifier)
  rtol, atol model exchange: tolerances of the node's own Dormand–Prince in co-simulation

The FMU's parameters are the node's parameters (--set bb.e=0.8 works, their
min/max checked); its inputs are the node's inputs and its outputs and states its
fields (bb.h, bb.v), in cosim's unit spelling (m/s2 reads m/s^2). A
co-simulation node's state is its communication time "time" followed by its
outputs that do not depend on its inputs; those that do are node outputs. Integer,
Boolean and enumeration variables are carried as float64 (values a variable cannot
hold are refused); strings, binaries and clocks are not carried.

  cosim describe MODEL.fmu [--interface model-exchange] [--json]
        the FMU's variables, units, capabilities and default experiment, and the node
  cosim run scene.json --set bb.e=0.8
        run it like any scene; checkpoints need canSerializeFMUState, iterated coupling
        groups canGetAndSetFMUState

Loading a binary needs cgo (a C compiler when building cosim); without it cosim
describes FMUs but refuses to run them. Every FMU function that does not return OK
(Warning included) stops the run with an error naming the FMU, the instance, the
function, the status, the time and what the FMU logged.
`
