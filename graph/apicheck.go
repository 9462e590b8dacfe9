package graph

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cosimgo/cosim/integrators"
)

// This file checks the arguments of the Sim's entry points that a caller
// can get wrong without a type error (a nil context, a nil checkpoint,
// driver options that name state indices the graph does not have), so
// that each is an error naming the argument rather than a nil-pointer
// panic or an option silently ignored.

// ErrSelfEdge is the cause of an edge from a node into one of its own
// inputs (Build).
var ErrSelfEdge = errors.New("edge into its own node")

// checkRunArgs checks Run's context and the monolithic driver options
// against this graph.
func (s *Sim) checkRunArgs(ctx context.Context, mode Mode) error {
	if ctx == nil {
		return errors.New("graph: Run: the context is nil; pass context.Background() (or context.TODO()) for a run that is never cancelled")
	}
	var is *integrators.DriverOptions
	switch m := mode.(type) {
	case Monolithic:
		is = m.Options
	case MonolithicAdaptive:
		is = m.Options
	}
	if is != nil {
		n := len(s.state)
		if len(is.Positions) != len(is.Velocities) {
			return fmt.Errorf("graph: Settings.Options: %d Positions and %d Velocities; they pair up, one velocity index per position index", len(is.Positions), len(is.Velocities))
		}
		seen := make(map[int]string, 2*len(is.Positions))
		for _, l := range []struct {
			name string
			idx  []int
		}{{"Positions", is.Positions}, {"Velocities", is.Velocities}} {
			for k, i := range l.idx {
				where := fmt.Sprintf("%s[%d]", l.name, k)
				if i < 0 || i >= n {
					return fmt.Errorf("graph: Settings.Options.%s = %d is outside the state, which has %d values (indices 0 to %d; Sim.System().Pairs gives the graph's own pairs)", where, i, n, n-1)
				}
				if w, dup := seen[i]; dup {
					return fmt.Errorf("graph: Settings.Options.%s = %d is also %s: each state index is one position or one velocity", where, i, w)
				}
				seen[i] = where
			}
		}
	}
	return nil
}

// prefixed is err under prefix ("graph: Sensitivities: "), with err's
// own leading "graph: " dropped, so that the message names the package
// once: "graph: Sensitivities: no node …", not "graph: Sensitivities:
// graph: no node …". errors.Is and errors.As see err.
type prefixed struct {
	prefix string
	err    error
}

func (e *prefixed) Error() string { return e.prefix + strings.TrimPrefix(e.err.Error(), "graph: ") }
func (e *prefixed) Unwrap() error { return e.err }
