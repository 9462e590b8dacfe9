package node

import (
	"fmt"
	"log/slog"
	"sync"
)

// Combine says how several edges into one boundary input combine: an
// Additive input sums them, a Replacing input takes exactly one. (It is
// not a co-simulation coupling, package coupling's strategies.)
type Combine int

const (
	// Additive inputs sum their edges, in the order the edges were
	// connected (a fixed order, so sums are bit-reproducible).
	Additive Combine = iota
	// Replacing inputs take exactly one edge.
	Replacing
)

func (c Combine) String() string {
	switch c {
	case Additive:
		return "additive"
	case Replacing:
		return "replacing"
	}
	return fmt.Sprintf("Combine(%d)", int(c))
}

// MarshalText encodes the rule by name, for stable JSON.
func (c Combine) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Input describes a boundary input: a value another node supplies.
type Input struct {
	Name        string
	Shape       Shape
	Units       string
	Description string
	Combine     Combine
	// Default is the value when nothing is connected (len Shape.Len()).
	Default []float64
	// Absent means that an unconnected input has no value at all
	// (Inputs.Present is false), e.g. the ball's table_position: no table,
	// no contact. An input with neither Default nor Absent is required.
	Absent bool
}

// Required reports whether a graph must connect the input.
func (in Input) Required() bool { return in.Default == nil && !in.Absent }

// Spec is a node's complete self-description. Build it with NewSpec, which
// computes the layouts and checks it for internal consistency.
type Spec struct {
	// Type is the registry name of the node type, e.g. "ball".
	Type string
	// Package is the Go import path of the node's package.
	Package string
	State   []Field
	Params  []Param
	Inputs  []Input
	Outputs []Field
	Events  []Event
	// Feedthrough reports that Outputs read the inputs (a connector); a
	// cycle of feedthrough edges is an algebraic loop.
	Feedthrough bool
	Meta        Metadata

	StateLayout  Layout
	InputLayout  Layout
	OutputLayout Layout
}

// NewSpec returns s with its layouts computed. It panics when s is
// inconsistent (duplicate names, a default of the wrong length, a combine
// rule other than Additive and Replacing, a Position field without its
// Rate field): those are programmer errors in a node.
func NewSpec(s Spec) *Spec {
	if s.Type == "" {
		panic("node: spec without a type name")
	}
	seen := map[string]string{}
	check := func(kind, name string) {
		if name == "" {
			panic(fmt.Sprintf("node: %s: %s without a name", s.Type, kind))
		}
		if prev, ok := seen[kind+":"+name]; ok {
			panic(fmt.Sprintf("node: %s: duplicate %s %q (%s)", s.Type, kind, name, prev))
		}
		seen[kind+":"+name] = kind
	}
	for _, f := range s.State {
		check("state field", f.Name)
	}
	for _, f := range s.State {
		if f.Role == Position {
			i := indexField(s.State, f.Rate)
			if i < 0 || s.State[i].Role != Velocity || s.State[i].Shape != f.Shape {
				panic(fmt.Sprintf("node: %s: position field %q names rate %q, which is not a velocity field of the same shape", s.Type, f.Name, f.Rate))
			}
		}
	}
	for _, p := range s.Params {
		check("parameter", p.Name)
		if p.Kind != Function {
			if _, err := p.Check(p.Default); err != nil {
				panic(fmt.Sprintf("node: %s: default of parameter %q is invalid: %v", s.Type, p.Name, err))
			}
		}
	}
	for _, in := range s.Inputs {
		check("input", in.Name)
		if in.Combine != Additive && in.Combine != Replacing {
			panic(fmt.Sprintf("node: %s: input %q has combine rule %v, neither Additive nor Replacing", s.Type, in.Name, in.Combine))
		}
		if in.Default != nil && len(in.Default) != in.Shape.Len() {
			panic(fmt.Sprintf("node: %s: input %q default has %d values, shape %s", s.Type, in.Name, len(in.Default), in.Shape))
		}
	}
	for _, f := range s.Outputs {
		check("output", f.Name)
	}
	for _, fs := range [][]Field{s.State, s.Outputs} {
		for _, f := range fs {
			for _, old := range f.Formerly {
				if indexField(s.State, old) >= 0 || indexField(s.Outputs, old) >= 0 {
					panic(fmt.Sprintf("node: %s: field %q was formerly %q, which is the name of a field", s.Type, f.Name, old))
				}
				check("former field name", old)
			}
		}
	}
	s.StateLayout = NewLayout(s.State)
	ins := make([]Field, len(s.Inputs))
	for i, in := range s.Inputs {
		ins[i] = Field{Name: in.Name, Shape: in.Shape, Units: in.Units, Description: in.Description}
	}
	s.InputLayout = NewLayout(ins)
	s.OutputLayout = NewLayout(s.Outputs)
	return &s
}

func indexField(fs []Field, name string) int {
	for i, f := range fs {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// Renamed returns the current name of the state field or output that was
// formerly called old (Field.Formerly), and whether there is one. It
// reports false for a current name.
func (s *Spec) Renamed(old string) (string, bool) {
	for _, fs := range [][]Field{s.State, s.Outputs} {
		for _, f := range fs {
			for _, o := range f.Formerly {
				if o == old {
					return f.Name, true
				}
			}
		}
	}
	return "", false
}

// warnedRenamed remembers the (type, former name) pairs WarnRenamed has
// warned about, so that each is logged once per process.
var warnedRenamed sync.Map

// WarnRenamed logs on slog.Default(), once per node type and former name,
// that the node named instance (of this spec's type) was asked for a
// field by its former name old, and the name to use instead. Graphs and
// scene files call it when they resolve a former name.
func (s *Spec) WarnRenamed(instance, old string) {
	cur, ok := s.Renamed(old)
	if !ok {
		return
	}
	if _, dup := warnedRenamed.LoadOrStore([2]string{s.Type, old}, true); dup {
		return
	}
	slog.Warn(fmt.Sprintf("%s: field %s of %s was renamed %s; the old name still works but is deprecated", instance, Quote(old), s.Type, Quote(cur)),
		"node", instance, "type", s.Type, "field", old, "use", cur)
}

// Param returns the named parameter's description.
func (s *Spec) Param(name string) (Param, bool) {
	for _, p := range s.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// ParamNames returns the parameter names in spec order.
func (s *Spec) ParamNames() []string {
	names := make([]string, len(s.Params))
	for i, p := range s.Params {
		names[i] = p.Name
	}
	return names
}

// StateFieldOffset returns the offset of the named state field; it panics
// if there is none (a programmer error inside a node).
func (s *Spec) StateFieldOffset(name string) int {
	i := s.StateLayout.Index(name)
	if i < 0 {
		panic(fmt.Sprintf("node: %s has no state field %q", s.Type, name))
	}
	return s.StateLayout.Offset(i)
}

// InputOffset returns the offset of the named input; it panics if there is
// none.
func (s *Spec) InputOffset(name string) int {
	i := s.InputLayout.Index(name)
	if i < 0 {
		panic(fmt.Sprintf("node: %s has no input %q", s.Type, name))
	}
	return s.InputLayout.Offset(i)
}

// OutputOffset returns the offset of the named output; it panics if there
// is none.
func (s *Spec) OutputOffset(name string) int {
	i := s.OutputLayout.Index(name)
	if i < 0 {
		panic(fmt.Sprintf("node: %s has no output %q", s.Type, name))
	}
	return s.OutputLayout.Offset(i)
}

// DefaultInputs returns the node's inputs with nothing connected: defaults
// where declared, zeros and not present for Absent inputs, zeros (and
// present) for required inputs. It is for tests and for driving a single
// node; graphs build their own.
func (s *Spec) DefaultInputs() Inputs {
	in := Inputs{Values: make([]float64, s.InputLayout.Size()), Present: make([]bool, len(s.Inputs))}
	for i, d := range s.Inputs {
		off := s.InputLayout.Offset(i)
		copy(in.Values[off:off+d.Shape.Len()], d.Default)
		in.Present[i] = !d.Absent
	}
	return in
}
