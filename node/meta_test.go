package node_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/node"
)

// TestOrderTol: a zero TemporalTol means the default bound; a declared
// one is used as given.
func TestOrderTol(t *testing.T) {
	if got := (node.Order{Temporal: 1}).Tol(); got != node.DefaultOrderTol {
		t.Errorf("default tol %v, want %v", got, node.DefaultOrderTol)
	}
	if got := (node.Order{Temporal: 2, TemporalTol: 0.3, TolReason: "pre-asymptotic ladder"}).Tol(); got != 0.3 {
		t.Errorf("declared tol %v, want 0.3", got)
	}
}

// TestOrderValidate: a non-default bound needs its reason, and a reason
// needs its bound; orders and bounds are finite and non-negative.
func TestOrderValidate(t *testing.T) {
	for _, c := range []struct {
		o    node.Order
		want string // "" for valid
	}{
		{node.Order{}, ""},
		{node.Order{Temporal: 1, Note: "smooth regime"}, ""},
		{node.Order{Temporal: 2, TemporalTol: 0.25, TolReason: "the ladder is pre-asymptotic"}, ""},
		{node.Order{Temporal: 2, TemporalTol: 0.25}, "without a TolReason"},
		{node.Order{Temporal: 2, TemporalTol: 0.25, TolReason: "  "}, "without a TolReason"},
		{node.Order{Temporal: 2, TolReason: "orphan"}, "without a TemporalTol"},
		{node.Order{Temporal: 1, TemporalTol: -0.1, TolReason: "x"}, "temporal tolerance"},
		{node.Order{Temporal: -1}, "temporal order"},
		{node.Order{Spatial: -2, Temporal: 1}, "spatial order"},
	} {
		err := c.o.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: unexpected error %v", c.o, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: error %v, want one containing %q", c.o, err, c.want)
		}
	}
}

// TestOrderJSON: the bound and its reason are omitted when not set, so
// existing metadata encodes as before.
func TestOrderJSON(t *testing.T) {
	b, _ := json.Marshal(node.Order{Temporal: 1})
	if string(b) != `{"temporal":1}` {
		t.Errorf("got %s", b)
	}
	b, _ = json.Marshal(node.Order{Temporal: 2, TemporalTol: 0.2, TolReason: "r"})
	if string(b) != `{"temporal":2,"temporal_tol":0.2,"tol_reason":"r"}` {
		t.Errorf("got %s", b)
	}
}
