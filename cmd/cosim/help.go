package main

// helpTopics are the topics "cosim help TOPIC" prints besides the
// commands' flags.
func helpTopics() map[string]string {
	return map[string]string{"fmi": helpFMI}
}

const helpFMI = `Importing FMUs (FMI 2.0 and 3.0) and exporting scenes as FMUs (FMI 3.0; docs/fmi.md)

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

Exporting a scene as an FMI 3.0 co-simulation FMU:

  cosim export scene.json -o MODEL.fmu

The scene's "fmu" section (docs/scenes.md) says what the FMU shows:

  "fmu": {"inputs":     [{"name": "F", "to": ["mass.force"]}],
          "outputs":    [{"name": "y", "from": "mass.position[1]"}],
          "parameters": [{"name": "k", "param": "spring.stiffness"}]}

Its binary (--binary) is one of:

  c-shared  (default) a Go library (go build -buildmode=c-shared, run at export
            from cosim's source: a clone of cosim and the Go toolchain) that runs
            the scene in the master's process: a step costs what the scene costs
  process   a C library (compiled with gcc, or $CC) that runs each instance in
            the cosim program the FMU carries: a round trip per call, but no Go
            runtime in the master, so it loads beside other Go-built FMUs (and
            into cosim in-process); cosim imports a c-shared FMU with "isolate"

A step that is not a whole number of the scene's dt is taken in equal sub-steps
no longer than dt, a master's start time other than 0 starts the scene there, FMU
states are graph checkpoints, and errors go to the master's logger. Linux (x86_64, aarch64).
`
