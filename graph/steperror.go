package graph

import (
	"errors"

	"github.com/cosimgo/cosim/node"
)

// stepError is the one constructor of the *node.StateError every
// execution path reports (co-simulation under each coupling strategy,
// RunMonolithic, Integrate, Jacobian assembly, events and resets, and
// recovered panics), so that the same failing node reads the same
// whatever path evaluated it. field names what failed when the graph
// itself found it ("v", "input force", "d/dt x[1]"); when it is empty and
// err, the node's own error, is or wraps a *node.FieldError, that error's
// field is named instead.
func stepError(name, field string, step int, t float64, err error) *node.StateError {
	if field == "" {
		var fe *node.FieldError
		if errors.As(err, &fe) {
			field = fe.Field
		}
	}
	return &node.StateError{Node: name, Field: field, Step: step, Time: t, Err: err}
}
