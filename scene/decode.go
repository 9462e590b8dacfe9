package scene

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cosimgo/cosim/node"
)

// This file reads a scene file: strict JSON decoding, positions of syntax
// and type errors, and the checks Decode and Load run.

// Decode reads a scene file strictly: unknown fields, wrong JSON types,
// null or out-of-range parameter values, trailing data, oversized input
// and syntax errors are errors pointing to the place. It checks the
// structure; Build checks it against a registry, and Load does both,
// reporting every problem of both at once.
func Decode(r io.Reader) (*Scene, error) {
	sc, _, err := decode(r)
	if err != nil {
		return nil, err
	}
	return sc, nil
}

// Load reads a scene file as Decode does and checks it against reg as
// Compile does, reporting every problem at once: the format problems of
// the file together with its registry, record and wiring problems (those
// of the parts that are well-formed). It returns the scene only when there
// are none.
func Load(r io.Reader, reg *node.Registry) (*Scene, error) {
	sc, c, err := decode(r)
	if sc == nil {
		return nil, err
	}
	var errs []error
	if err != nil {
		errs = c.errs
	}
	if c.fatal {
		return nil, joinErrors(errs)
	}
	_, _, berrs := sc.compile(reg, nil, c)
	if errs = append(errs, berrs...); len(errs) > 0 {
		return nil, joinErrors(errs)
	}
	return sc, nil
}

// decode reads and checks a scene file. When the file decodes into a
// Scene but has problems, it returns the scene, the check (whose errs
// hold every problem) and the joined error; when it does not, no scene.
func decode(r io.Reader) (*Scene, checked, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, checked{}, err
	}
	if len(data) > MaxBytes {
		return nil, checked{}, &Error{Path: "scene", Err: fmt.Errorf("file is larger than %d bytes", MaxBytes)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	var sc Scene
	derr := dec.Decode(&sc)
	var se *json.SyntaxError
	if derr != nil && (errors.As(derr, &se) || errors.Is(derr, io.ErrUnexpectedEOF) || errors.Is(derr, io.EOF)) {
		return nil, checked{}, locate(data, derr)
	}
	werrs := walk(data)
	if derr != nil {
		if len(werrs) == 0 {
			return nil, checked{}, locate(data, derr)
		}
		return nil, checked{}, joinErrors(werrs)
	}
	if dec.More() {
		return nil, checked{}, &Error{Path: position(data, dec.InputOffset()), Err: errors.New("unexpected data after the scene object")}
	}
	c := sc.check()
	sc.normalizeParams()
	if len(werrs) > 0 {
		// Null or out-of-range parameter values, foreign transform keys:
		// the node, connector or edge is not built. Check finds some of
		// these again, without a position.
		seen := map[string]bool{}
		for _, err := range werrs {
			p, _, _ := strings.Cut(err.(*Error).Path, " (")
			seen[p] = true
		}
		for _, err := range c.errs {
			if e, ok := err.(*Error); !ok || !seen[e.Path] {
				werrs = append(werrs, err)
			}
		}
		c.errs = werrs
		c.mark()
	}
	if len(c.errs) > 0 {
		return &sc, c, joinErrors(c.errs)
	}
	return &sc, c, nil
}

// normalizeParams turns the json.Numbers of the parameters of the nodes
// and connectors, and of inline subsystems', into float64.
func (sc *Scene) normalizeParams() {
	for i := range sc.Nodes {
		sc.Nodes[i].Params = normalize(sc.Nodes[i].Params).(map[string]any)
		if g := sc.Nodes[i].Graph; g != nil {
			g.normalizeParams()
		}
	}
	for i := range sc.Connectors {
		sc.Connectors[i].Params = normalize(sc.Connectors[i].Params).(map[string]any)
	}
}

// normalize turns json.Number into float64 recursively.
func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return x.String()
		}
		return f
	case map[string]any:
		if x == nil {
			return map[string]any{}
		}
		for k, e := range x {
			x[k] = normalize(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
		return x
	}
	return v
}

func locate(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return &Error{Path: position(data, se.Offset), Err: fmt.Errorf("invalid JSON: %v", se)}
	case errors.As(err, &te):
		p := te.Field
		if p == "" {
			p = "scene"
		}
		return &Error{Path: p + " (" + position(data, te.Offset) + ")", Err: fmt.Errorf("got JSON %s, want %s", te.Value, te.Type)}
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return &Error{Path: position(data, int64(len(data))), Err: errors.New("the file ends before the scene does (truncated?)")}
	}
	if strings.HasPrefix(err.Error(), "json: unknown field") {
		return &Error{Path: "scene", Err: fmt.Errorf("%v (see docs/scenes.md for the format)", strings.TrimPrefix(err.Error(), "json: "))}
	}
	return &Error{Path: "scene", Err: err}
}

func position(data []byte, off int64) string {
	off = min(off, int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return fmt.Sprintf("line %d, column %d", line, col)
}
