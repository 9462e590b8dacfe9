package graph

import "github.com/cosimgo/cosim/node"

// Option qualifies an edge in Connect.
type Option interface{ apply(*Edge) }

type optionFunc func(*Edge)

func (f optionFunc) apply(e *Edge) { f(e) }

// Via passes the edge's value through t.
func Via(t Transform) Option { return optionFunc(func(e *Edge) { e.Transform = t }) }

// As declares the coupling the caller intends for the edge. Build rejects
// an edge whose declared coupling differs from the input's, and an input
// whose edges declare both couplings (ErrMixedCoupling).
func As(c node.Coupling) Option {
	return optionFunc(func(e *Edge) { e.Coupling = c; e.declared = true })
}
