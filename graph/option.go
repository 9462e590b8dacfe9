package graph

import "github.com/cosimgo/cosim/node"

// Option qualifies an edge in Connect.
type Option interface{ apply(*Edge) }

type optionFunc func(*Edge)

func (f optionFunc) apply(e *Edge) { f(e) }

// Via passes the edge's value through t.
func Via(t Transform) Option { return optionFunc(func(e *Edge) { e.Transform = t }) }

// CombineAs declares how the caller intends the edge to combine with the
// other edges into its input (node.Additive or node.Replacing). Build
// rejects an edge whose declared rule differs from the input's, and an
// input whose edges declare both (ErrMixedCombine). (node.As, a
// different thing, finds a node's capability through its wrappers.)
func CombineAs(c node.Combine) Option {
	return optionFunc(func(e *Edge) { e.Combine = c; e.declared = true })
}
