package graph

import (
	"errors"
	"fmt"
	"io"

	"github.com/cosimgo/cosim/node"
)

// Close releases what the Sim's nodes hold outside Go memory: every node
// that implements io.Closer (found through node.As: an imported FMU's
// instance, its binary and unpacked files) is closed, in node order, and
// the errors are joined. The Sim must not be run afterwards. Sims whose
// nodes hold nothing need no Close.
func (s *Sim) Close() error {
	var errs []error
	for i := range s.nodes {
		if c, ok := node.As[io.Closer](s.nodes[i].n); ok {
			if err := c.Close(); err != nil {
				errs = append(errs, fmt.Errorf("graph: close node %s: %w", s.nodes[i].name, err))
			}
		}
	}
	return errors.Join(errs...)
}
