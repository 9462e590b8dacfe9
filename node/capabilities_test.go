package node

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// notCapabilities are the exported interfaces of package node that a
// node does not implement as an optional capability, and why.
var notCapabilities = map[string]string{
	"Node":             "the core contract every node implements",
	"BatchUpdater":     "a capability of a Batch (a family's kernel), not of a node",
	"BatchOutputter":   "a capability of a Batch, not of a node",
	"BatchDeriver":     "a capability of a Batch, not of a node",
	"BatchStepBounder": "a capability of a Batch, not of a node",
	"BatchPairAdder":   "a capability of a Batch, not of a node",
	"BatchDstChecker":  "a capability of a Batch, not of a node",
	"BatchPlanner":     "a capability of a Batch, not of a node",
	"Connector":        "implemented by a connector type with its parameters bound (springdamper.Params), not by a node",
	"ConnectorHost":    "implemented by a graph",
}

// TestCapabilitiesListEveryInterface parses the package's exported
// interface types and requires each to be in the table Capabilities
// reads, or in notCapabilities with a reason: a capability added to the
// contract without being listed fails here, so `cosim describe` shows
// every capability a node has.
func TestCapabilitiesListEveryInterface(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var ifaces []string
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, s := range gd.Specs {
				ts := s.(*ast.TypeSpec)
				if _, ok := ts.Type.(*ast.InterfaceType); ok && ts.Name.IsExported() && !ts.Assign.IsValid() {
					ifaces = append(ifaces, ts.Name.Name)
				}
			}
		}
	}
	if len(ifaces) < 10 {
		t.Fatalf("found only %d interfaces (%v): is the directory right?", len(ifaces), ifaces)
	}
	listed := map[string]bool{}
	for _, c := range capabilities {
		listed[c.iface] = true
		if !slices.Contains(ifaces, c.iface) {
			t.Errorf("capability %q is the interface %s, which the package does not declare", c.name, c.iface)
		}
		if _, ok := notCapabilities[c.iface]; ok {
			t.Errorf("%s is both a listed capability and in notCapabilities", c.iface)
		}
	}
	for _, name := range ifaces {
		if _, ok := notCapabilities[name]; !listed[name] && !ok {
			t.Errorf("interface %s is neither listed in capabilities (capabilities.go) nor in notCapabilities (with the reason it is not a node's capability)", name)
		}
	}
	for name := range notCapabilities {
		if !slices.Contains(ifaces, name) {
			t.Errorf("notCapabilities names %s, which the package no longer declares", name)
		}
	}
	seen := map[string]bool{}
	for _, n := range CapabilityNames() {
		if seen[n] {
			t.Errorf("capability name %q listed twice", n)
		}
		seen[n] = true
	}
}
