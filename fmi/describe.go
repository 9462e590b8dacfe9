package fmi

import (
	"fmt"
	"path/filepath"

	"github.com/cosimgo/cosim/node"
)

// Description is what a node made of an FMU through one interface would
// be, read from the model description alone (nothing is loaded or
// instantiated, so an FMU without a binary for this platform can be
// described): its spec, its capabilities and what it makes of every
// variable. `cosim describe FILE.fmu` prints it.
type Description struct {
	Interface    Interface
	Spec         *node.Spec
	Capabilities []string
	Variables    []VarInfo
	// Binary is the path of the interface's binary for this platform in
	// the FMU (binaries/<platform>/<modelIdentifier>.so), or "" with
	// BinaryErr saying why there is none.
	Binary    string
	BinaryErr error
}

// VarInfo is what the node makes of one FMU variable.
type VarInfo struct {
	*Variable
	// Role is "parameter", "input", "state", "output" (a node output),
	// or "" when the node does not carry the variable (locals,
	// derivatives, calculated parameters, constants, the independent
	// variable, and the dropped variables whose reason is Why).
	Role string
	// NodeName is the node's name for it.
	NodeName string
	// Units is its unit in cosim's spelling (MapUnit).
	Units string
	// Elements is its number of values (1 for a scalar).
	Elements int
	Why      string
}

// Describe returns the description of the node the FMU makes through
// interface k (empty: co-simulation where offered, else model exchange)
// with its structural parameters at their start values.
func (f *FMU) Describe(k Interface) (*Description, error) {
	md := f.md
	if k == "" {
		k = InterfaceCoSimulation
		if md.CoSimulation == nil {
			k = InterfaceModelExchange
		}
	}
	if md.Interface(k) == nil {
		return nil, fmt.Errorf("FMU %s does not offer %s", md.ModelName, k)
	}
	m, err := newMapping(md, k, nil)
	if err != nil {
		return nil, fmt.Errorf("FMU %s: %w", md.ModelName, err)
	}
	d := &Description{Interface: k, Spec: m.spec(metadata(md, k, m))}
	if p, err := f.binary(k); err != nil {
		d.BinaryErr = err
	} else if rel, err := filepath.Rel(f.dir, p); err == nil {
		d.Binary = filepath.ToSlash(rel)
	}
	switch {
	case k == InterfaceCoSimulation:
		d.Capabilities = node.Capabilities((*CoSimNode)(nil))
	case md.ModelExchange.ProvidesDirectionalDerivatives && len(m.states) > 0 && allFloat64(m.inputs):
		d.Capabilities = node.Capabilities(meJacobian{})
	default:
		d.Capabilities = node.Capabilities((*ModelExchangeNode)(nil))
	}
	role := map[int]carried{}
	roles := map[int]string{}
	for _, l := range []struct {
		role string
		cs   []carried
	}{{"parameter", m.params}, {"input", m.inputs}, {"state", m.states}, {"state", m.stateOuts}, {"output", m.outputs}} {
		for _, c := range l.cs {
			role[c.vi], roles[c.vi] = c, l.role
		}
	}
	why := map[string]string{}
	for _, dr := range m.dropped {
		why[dr.Name] = dr.Why
	}
	for i := range md.Variables {
		v := &md.Variables[i]
		vi := VarInfo{Variable: v, Units: MapUnit(v.Unit), Why: why[v.Name]}
		if n, err := m.elements(v); err == nil {
			vi.Elements = n
		}
		if c, ok := role[i]; ok {
			vi.Role, vi.NodeName = roles[i], c.name
		}
		d.Variables = append(d.Variables, vi)
	}
	return d, nil
}

func allFloat64(cs []carried) bool {
	for _, c := range cs {
		if c.v.Type != Float64 {
			return false
		}
	}
	return true
}

// ExperimentText formats a default experiment ("startTime 0, stopTime 3,
// stepSize 0.01"; "none" for nil).
func ExperimentText(de *DefaultExperiment) string { return experimentText(de) }
