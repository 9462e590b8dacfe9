package scene

import (
	"errors"
	"fmt"

	"github.com/cosimgo/cosim/node"
)

// This file holds the error type every scene problem is reported with, and
// the bounds that keep its messages short.

// Error is a problem at a place in a scene file: a JSON path such as
// "nodes[1].params.elasticity", or a line and column for syntax errors.
type Error struct {
	Path string
	Err  error
}

// Error returns "path: message", bounded: the path to node.MaxShownBytes
// bytes and the message to MaxMessageBytes, so that a huge value in a
// file never makes a huge message.
func (e *Error) Error() string {
	return node.Elide(e.Path) + ": " + node.ElideTo(e.Err.Error(), MaxMessageBytes)
}

// MaxMessageBytes bounds the message of one scene Error.
const MaxMessageBytes = 400

func (e *Error) Unwrap() error { return e.Err }

// MaxErrors is the most problems one error reports; the rest are
// counted in a last line.
const MaxErrors = 50

// joinErrors joins errs (nil when empty), keeping the first MaxErrors.
func joinErrors(errs []error) error {
	if len(errs) > MaxErrors {
		n := len(errs) - MaxErrors
		errs = append(errs[:MaxErrors:MaxErrors], &Error{Path: "scene", Err: fmt.Errorf("%d more problems not shown", n)})
	}
	return errors.Join(errs...)
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
