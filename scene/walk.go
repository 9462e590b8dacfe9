package scene

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cosimgo/cosim/node"
)

// walker checks a scene file token by token against the Scene type, so
// that every unknown key and wrong JSON type is reported with its full JSON
// path (array indices included) and its line and column, which
// encoding/json's errors lack. It also rejects what decoding into
// map[string]any accepts silently: null and out-of-range numbers among
// parameter values, and transform keys that do not belong to the kind.
type walker struct {
	data []byte
	dec  *json.Decoder
	errs []error
	last any // the last scalar token read
}

// walk returns the problems of data; it stops at a syntax error (reported
// by the caller from encoding/json's error).
func walk(data []byte) []error {
	w := &walker{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	w.dec.UseNumber()
	if err := w.value(reflect.TypeFor[Scene](), "", false); err != nil {
		return w.errs
	}
	return w.errs
}

var transformType = reflect.TypeFor[Transform]()

// transformKeys are the keys each transform kind takes besides "kind".
var transformKeys = map[string][]string{
	"scale":     {"factor", "from", "to"},
	"component": {"index"},
	"embed":     {"axis", "len"},
}

// start is the offset of the next token.
func (w *walker) start() int64 {
	off := w.dec.InputOffset()
	for off < int64(len(w.data)) && strings.IndexByte(" \t\r\n,:", w.data[off]) >= 0 {
		off++
	}
	return off
}

func (w *walker) bad(path string, off int64, f string, a ...any) {
	if path == "" {
		path = "scene"
	}
	w.errs = append(w.errs, &Error{Path: path + " (" + position(w.data, off) + ")", Err: fmt.Errorf(f, a...)})
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// want names the JSON a Go type takes.
func want(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return t.String()
}

func jsonKind(tok any) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			return "object"
		}
		return "array"
	case string:
		return fmt.Sprintf("string %q", v)
	case json.Number:
		return "number " + v.String()
	case bool:
		return fmt.Sprint(v)
	}
	return "null"
}

// value reads one value that should decode into t at path; param is true
// inside parameter values (map[string]any), where null and numbers beyond
// float64 are errors.
func (w *walker) value(t reflect.Type, path string, param bool) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	off := w.start()
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	w.last = tok
	isAny := t.Kind() == reflect.Interface
	switch v := tok.(type) {
	case json.Delim:
		switch {
		case v == '{' && t.Kind() == reflect.Struct:
			return w.object(t, path)
		case v == '{' && (t.Kind() == reflect.Map || isAny):
			elem := t
			if !isAny {
				elem = t.Elem()
			}
			seen := map[string]int64{}
			for w.dec.More() {
				koff := w.start()
				k, err := w.dec.Token()
				if err != nil {
					return err
				}
				ks, _ := k.(string)
				w.duplicate(seen, path, ks, koff)
				if isAny {
					w.bad(join(path, ks), koff, "parameter values are numbers, arrays of numbers, strings or booleans, not objects")
					if err := w.skip(); err != nil {
						return err
					}
					continue
				}
				if err := w.value(elem, join(path, ks), param || elem.Kind() == reflect.Interface); err != nil {
					return err
				}
			}
			_, err := w.dec.Token()
			return err
		case v == '[' && (t.Kind() == reflect.Slice || isAny):
			elem := t
			if !isAny {
				elem = t.Elem()
			}
			for i := 0; w.dec.More(); i++ {
				if err := w.value(elem, fmt.Sprintf("%s[%d]", path, i), param); err != nil {
					return err
				}
			}
			_, err := w.dec.Token()
			return err
		}
		w.bad(path, off, "got JSON %s, want %s", jsonKind(tok), want(t))
		return w.skipRest()
	case nil:
		if param {
			w.bad(path, off, "null is not a number, vector, string or boolean; leave the parameter out to take its default")
		}
		return nil // encoding/json leaves the Go value as it is
	case string:
		if t.Kind() == reflect.String || isAny {
			return nil
		}
	case bool:
		if t.Kind() == reflect.Bool || isAny {
			return nil
		}
	case json.Number:
		switch t.Kind() {
		case reflect.Float64, reflect.Interface:
			if _, err := strconv.ParseFloat(v.String(), 64); err != nil {
				w.bad(path, off, "%s is out of float64 range", v)
			}
			return nil
		case reflect.Int:
			if _, err := strconv.ParseInt(v.String(), 10, 0); err != nil {
				if f, ferr := strconv.ParseFloat(v.String(), 64); ferr == nil && f == math.Trunc(f) {
					w.bad(path, off, "%s is out of the integer range", v)
				} else {
					w.bad(path, off, "got JSON %s, want an integer", jsonKind(tok))
				}
			}
			return nil
		}
	}
	w.bad(path, off, "got JSON %s, want %s", jsonKind(tok), want(t))
	return nil
}

// object reads the members of a struct after its '{'.
func (w *walker) object(t reflect.Type, path string) error {
	fields := map[string]reflect.StructField{}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		fields[name] = f
		names = append(names, name)
	}
	type member struct {
		key string
		off int64
	}
	var members []member
	kind := ""
	seen := map[string]int64{}
	for w.dec.More() {
		koff := w.start()
		k, err := w.dec.Token()
		if err != nil {
			return err
		}
		key, _ := k.(string)
		w.duplicate(seen, path, key, koff)
		f, ok := fields[key]
		if !ok {
			// Keys are exact: encoding/json would match "DT" to "dt".
			hint := node.DidYouMean(key, names)
			for _, n := range names {
				if strings.EqualFold(n, key) {
					hint = fmt.Sprintf(" (keys are case-sensitive: did you mean %q?)", n)
					break
				}
			}
			w.bad(join(path, key), koff, "unknown field %q%s (see docs/scenes.md for the format)", key, hint)
			if err := w.skip(); err != nil {
				return err
			}
			continue
		}
		if err := w.value(f.Type, join(path, key), false); err != nil {
			return err
		}
		members = append(members, member{strings.ToLower(key), koff})
		if s, isStr := w.last.(string); isStr && strings.EqualFold(key, "kind") {
			kind = s
		}
	}
	if t == transformType {
		if allowed, known := transformKeys[kind]; known {
			for _, m := range members {
				if m.key != "kind" && !slices.Contains(allowed, m.key) {
					keys := append([]string(nil), allowed...)
					sort.Strings(keys)
					w.bad(join(path, m.key), m.off, "is not a setting of the %s transform, which takes %s", kind, strings.Join(keys, ", "))
				}
			}
		}
	}
	_, err := w.dec.Token()
	return err
}

// duplicate reports key when the object being read (at path) has had it
// already, naming both places; seen maps the object's keys to their
// offsets.
func (w *walker) duplicate(seen map[string]int64, path, key string, off int64) {
	if first, dup := seen[key]; dup {
		w.errs = append(w.errs, &Error{Path: join(path, key) + " (" + position(w.data, off) + ")",
			Err: fmt.Errorf("duplicate key %q: it is also at %s; JSON readers disagree on which one counts, so give it once", key, position(w.data, first))})
		return
	}
	seen[key] = off
}

// skip reads one whole value.
func (w *walker) skip() error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
		return w.skipRest()
	}
	return nil
}

// skipRest reads up to the end of the object or array just opened.
func (w *walker) skipRest() error {
	for depth := 1; depth > 0; {
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}
