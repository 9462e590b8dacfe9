package node_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/cosimgo/cosim/node"
)

// fakeConnector is a connector type "c" whose nodes are stubs.
type fakeConnector struct{ typ string }

func (f fakeConnector) ConnectorType() string { return f.typ }

func (f fakeConnector) Attach(name string, ends [2]node.Attachment) (node.Node, []node.Link, error) {
	return stub{spec: node.NewSpec(node.Spec{Type: "c"})}, nil, nil
}

func stubType(name string, conn node.Connector) node.Type {
	t := node.Type{Name: name, New: func(map[string]any) (node.Node, error) {
		return stub{spec: node.NewSpec(node.Spec{Type: name})}, nil
	}}
	if conn != nil {
		t.Connector = func(map[string]any) (node.Connector, error) { return conn, nil }
	}
	return t
}

// The registry lists connector types, builds their Connector by name, and
// says why when a type is unknown or not a connector; a connector that
// builds another type is a registration error.
func TestRegistryConnectors(t *testing.T) {
	r, err := node.NewRegistry(stubType("a", nil), stubType("c", fakeConnector{"c"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.ConnectorTypes(); !slices.Equal(got, []string{"c"}) {
		t.Errorf("ConnectorTypes() = %v", got)
	}
	r.ConnectorTypes()[0] = "x"
	if r.ConnectorTypes()[0] != "c" {
		t.Error("ConnectorTypes returns the registry's own slice")
	}
	if c, err := r.Connector("c", nil); err != nil || c.ConnectorType() != "c" {
		t.Errorf("Connector(c) = %v, %v", c, err)
	}
	var ne *node.NotConnectorError
	if _, err := r.Connector("a", nil); !errors.As(err, &ne) || ne.Name != "a" {
		t.Errorf("Connector(a) = %v, want a *NotConnectorError", err)
	}
	var ue *node.UnknownTypeError
	if _, err := r.Connector("zz", nil); !errors.As(err, &ue) {
		t.Errorf("Connector(zz) = %v, want an *UnknownTypeError", err)
	}
	if _, err := node.NewRegistry(stubType("c", fakeConnector{"d"})); err == nil {
		t.Error("a connector building another type was registered")
	}
}

// EndError names the type, connector and end, and unwraps to its cause.
func TestEndError(t *testing.T) {
	err := error(&node.EndError{Type: "spring", Connector: "s", End: 1, Err: node.ErrNotMarker})
	if got, want := err.Error(), `spring: connector "s": body 1: not a marker body`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, node.ErrNotMarker) {
		t.Error("EndError does not unwrap")
	}
}
