package graph

import (
	"fmt"

	"github.com/cosimgo/cosim/node"
)

// Transform maps the value of an edge's source field to the value its
// destination input receives. Transforms are applied on the per-step path,
// so Apply must not allocate; it must be safe for concurrent use.
type Transform interface {
	// Name is the registered name of the transform kind ("scale", …).
	Name() string
	// OutShape returns the shape Apply produces from a source of shape in,
	// or an error when the transform does not accept that shape.
	OutShape(in node.Shape) (node.Shape, error)
	// Apply writes the transformed src into dst (len OutShape(in).Len()).
	Apply(dst, src []float64)
}

// UnitConverter is implemented by a transform that converts units: the
// edge's source must have units From and its destination units To.
// Without it, a transform keeps units and both ends must agree.
type UnitConverter interface {
	Units() (from, to string)
}

// Scale multiplies every component by Factor. When From and To are set, it
// declares a unit conversion (e.g. Factor 1e-3, From "mm", To "m").
type Scale struct {
	Factor   float64
	From, To string
}

func (Scale) Name() string                               { return "scale" }
func (Scale) OutShape(in node.Shape) (node.Shape, error) { return in, nil }
func (s Scale) Units() (from, to string)                 { return s.From, s.To }
func (s Scale) Apply(dst, src []float64) {
	for i, v := range src {
		dst[i] = s.Factor * v
	}
}

// Component picks component Index of a vector source, giving a scalar.
type Component struct{ Index int }

func (Component) Name() string { return "component" }
func (c Component) OutShape(in node.Shape) (node.Shape, error) {
	if in.IsScalar() || c.Index < 0 || c.Index >= in.Len() {
		return 0, fmt.Errorf("component %d of a %s value does not exist", c.Index, in)
	}
	return node.Scalar, nil
}
func (c Component) Apply(dst, src []float64) { dst[0] = src[c.Index] }

// Embed places a scalar source on axis Axis of a vector of Len components,
// the others zero.
type Embed struct{ Axis, Len int }

func (Embed) Name() string { return "embed" }
func (e Embed) OutShape(in node.Shape) (node.Shape, error) {
	if !in.IsScalar() {
		return 0, fmt.Errorf("embed takes a scalar, not a %s value", in)
	}
	if e.Len < 1 || e.Axis < 0 || e.Axis >= e.Len {
		return 0, fmt.Errorf("embed axis %d is outside a vector of %d", e.Axis, e.Len)
	}
	return node.Vec(e.Len), nil
}
func (e Embed) Apply(dst, src []float64) {
	for i := range dst[:e.Len] {
		dst[i] = 0
	}
	dst[e.Axis] = src[0]
}

// TransformFunc is a user transform: a plain function adapted to
// Transform, as http.HandlerFunc adapts one to http.Handler. F writes
// Out-shaped dst from src. Panics in F are recovered by the graph and
// reported as errors naming the edge's destination node. From and To
// declare a unit conversion when set.
type TransformFunc struct {
	Label    string
	In, Out  node.Shape
	From, To string
	F        func(dst, src []float64)
}

func (f TransformFunc) Name() string { return "func:" + f.Label }
func (f TransformFunc) OutShape(in node.Shape) (node.Shape, error) {
	if in != f.In {
		return 0, fmt.Errorf("transform %q takes a %s value, not %s", f.Label, f.In, in)
	}
	return f.Out, nil
}
func (f TransformFunc) Units() (from, to string) { return f.From, f.To }
func (f TransformFunc) Apply(dst, src []float64) { f.F(dst, src) }
