package fmi

import (
	"fmt"

	"github.com/cosimgo/cosim/node"
)

// New instantiates the FMU as a node with the given options: a
// *CoSimNode, or a model-exchange node (*ModelExchangeNode, wrapped when
// the FMU provides directional derivatives so that it also gives graphs
// its Jacobian; node.As finds the *ModelExchangeNode). The FMU is
// instantiated, its parameters set and initialized at t = 0, the time a
// graph starts at, so that the node's initial state is known. Each call
// makes an independent instance. The node holds the FMU's files and
// binary until it is closed (Close, or a graph's Sim.Close).
func (f *FMU) New(opts Options) (node.Node, error) {
	b, err := newBase(f, opts)
	if err != nil {
		return nil, err
	}
	if b.k == InterfaceCoSimulation {
		return newCoSim(b)
	}
	return newME(b)
}

// Load opens the FMU at path (an .fmu file or an unpacked directory) and
// makes one node of it (FMU.New); the node keeps the FMU's files until it
// is closed.
func Load(path string, opts Options) (node.Node, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.New(opts)
}

// Type is the node type "fmu" for a node.Registry: New loads the FMU
// named by the "path" parameter with the other parameters (Options:
// "interface", "instance", the FMU's parameters). Its specs come from the
// FMU's file, so it is a dynamic type: registries build it by name but
// list no default node of it, and scene files give "path" relative to
// themselves.
func Type() node.Type {
	return node.Type{Name: TypeName, New: fromParams, Dynamic: true, Paths: []string{ParamPath}}
}

func fromParams(params map[string]any) (node.Node, error) {
	p, _ := params[ParamPath].(string)
	if p == "" {
		return nil, &node.ParamError{Node: TypeName, Param: ParamPath, Value: params[ParamPath],
			Reason: "is required: it names the FMU", Valid: "an .fmu file or an unpacked FMU directory"}
	}
	n, err := Load(p, Options{Params: params})
	if err != nil {
		return nil, fmt.Errorf("fmu %s: %w", p, err)
	}
	return n, nil
}
