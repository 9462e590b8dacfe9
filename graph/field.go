package graph

import "fmt"

// Field is a typed view of one state field or output of a Sim, or of one
// component of it, resolved once by Sim.Field so that reading it every
// step looks up no name and allocates nothing:
//
//	v, err := sim.Field("m1.velocity")
//	buf := make([]float64, v.Len())
//	for … { sim.Step(dt); v.Get(buf) }
//
// A Field reads the Sim's current buffers at each call, so it stays valid
// across Run, Step, Integrate, SetState and Restore. Like the Sim, it is
// not safe for concurrent use with the Sim's own methods.
type Field struct {
	s     *Sim
	path  string
	off   int
	n     int
	fromY bool
}

// Field resolves "node.field" (a state field or an output) or
// "node.field[i]" (one component) into a Field. The error names the path
// and suggests the nearest names, as Value's does.
func (s *Sim) Field(path string) (*Field, error) {
	r, err := s.resolvePath(path)
	if err != nil {
		return nil, err
	}
	return &Field{s: s, path: path, off: r.off, n: r.n, fromY: r.fromY}, nil
}

// Path is the path the field was resolved from.
func (f *Field) Path() string { return f.path }

// Len is the number of values Get writes.
func (f *Field) Len() int { return f.n }

// IsOutput reports whether the field is an output (evaluated from the
// state) rather than a state field.
func (f *Field) IsOutput() bool { return f.fromY }

// Get writes the field's current value into dst[:Len()]. An output is
// evaluated at the current state first when the outputs are stale (once
// per state, shared by every Field and by Value); that evaluation's error,
// naming node and time, is Get's. It panics when len(dst) < Len(), a
// programmer error. It allocates nothing.
func (f *Field) Get(dst []float64) error {
	if len(dst) < f.n {
		panic(fmt.Sprintf("graph: Field(%q).Get: len(dst) = %d, want at least %d", f.path, len(dst), f.n))
	}
	buf, err := f.buf()
	if err != nil {
		return err
	}
	copy(dst[:f.n], buf[f.off:f.off+f.n])
	return nil
}

// At returns component i (0 ≤ i < Len) of the field's current value, for
// scalar fields and single components, with Get's error. It panics when i
// is out of range.
func (f *Field) At(i int) (float64, error) {
	if i < 0 || i >= f.n {
		panic(fmt.Sprintf("graph: Field(%q).At(%d) outside [0, %d)", f.path, i, f.n))
	}
	buf, err := f.buf()
	if err != nil {
		return 0, err
	}
	return buf[f.off+i], nil
}

// buf returns the buffer the field lives in, evaluating stale outputs.
func (f *Field) buf() ([]float64, error) {
	s := f.s
	if !f.fromY {
		return s.state, nil
	}
	if !s.outputsFresh {
		if err := s.outputsPerNode(s.Time()); err != nil {
			return nil, err
		}
		s.outputsFresh = true
	}
	return s.outputs, nil
}

// Set writes v (len Len) into a state field, as SetValue does but without
// resolving the name or allocating. Outputs cannot be set, and a
// non-finite value is refused: both are errors naming the path.
func (f *Field) Set(v []float64) error {
	if f.fromY {
		return fmt.Errorf("graph: %s is an output; only state fields can be set", f.path)
	}
	if len(v) != f.n {
		return fmt.Errorf("graph: %s has %d values, got %d", f.path, f.n, len(v))
	}
	for i, x := range v {
		if x-x != 0 {
			return fmt.Errorf("graph: %s: value %d (%v) is not finite", f.path, i, x)
		}
	}
	copy(f.s.state[f.off:f.off+f.n], v)
	f.s.outputsFresh = false
	return nil
}
