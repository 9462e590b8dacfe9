package scene

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/source"
)

// This file applies --set overrides to a scene (Scene.With) and names the
// flag in the problems it causes.

// With returns a copy of the scene with settings changed, as the --set
// flag of the cosim command does: "node.param" sets a parameter of a node
// or a connector; "run.dt", "run.integrator.rho_inf", "record.every" and
// every other path under run and record set that field. The copy is
// checked as Decode checks a file, so a bad value is an error at its path.
// Values are Go values as JSON decodes them (float64, bool, string,
// []any, map[string]any); ParseValue turns command-line text into one.
func (sc *Scene) With(set map[string]any) (*Scene, error) {
	raw, err := json.Marshal(sc)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var errs []error
	sets := map[string]string{} // scene path → --set key
	for k, v := range sc.SetBy {
		sets[k] = v
	}
	for _, k := range keys {
		p, err := setPath(m, k, set[k])
		if err != nil {
			errs = append(errs, &Error{Path: "--set " + k, Err: err})
		}
		sets[p] = k
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	raw, err = json.Marshal(m)
	if err != nil {
		return nil, err
	}
	out, err := Decode(bytes.NewReader(raw))
	if out != nil {
		out.Dir = sc.Dir
		out.SetBy = sets
	}
	return out, relabelSets(withoutPositions(err), sets)
}

// relabelSets names the --set flag in the problems it caused: a problem
// at the path a --set wrote (or inside it) is the flag's; one at a path
// containing it says it came after the flag.
func relabelSets(err error, sets map[string]string) error {
	if err == nil || len(sets) == 0 {
		return err
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	out := make([]error, len(errs))
	paths := make([]string, 0, len(sets))
	for p := range sets {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for i, e := range errs {
		out[i] = e
		se, ok := e.(*Error)
		if !ok {
			continue
		}
		p, _, _ := strings.Cut(se.Path, " (")
		var after []string
		for _, sp := range paths {
			key := sets[sp]
			switch {
			case p == sp:
				out[i] = &Error{Path: "--set " + key, Err: se.Err}
			case strings.HasPrefix(p, sp+".") || strings.HasPrefix(p, sp+"["):
				out[i] = &Error{Path: "--set " + key + " (" + p + ")", Err: se.Err}
			case strings.HasPrefix(sp, p+".") || strings.HasPrefix(sp, p+"[") || p == "run" && strings.HasPrefix(sp, "run."):
				after = append(after, "--set "+key)
				continue
			default:
				continue
			}
			break
		}
		if out[i] == e && len(after) > 0 {
			out[i] = &Error{Path: se.Path + " (after " + strings.Join(after, ", ") + ")", Err: se.Err}
		}
	}
	return errors.Join(out...)
}

// withoutPositions drops the line and column from the paths of err's
// problems: With decodes JSON it generated, whose positions mean nothing
// to the user.
func withoutPositions(err error) error {
	if err == nil {
		return nil
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
		if se, ok := e.(*Error); ok {
			if p, _, cut := strings.Cut(se.Path, " (line "); cut {
				out[i] = &Error{Path: p, Err: se.Err}
			}
		}
	}
	return errors.Join(out...)
}

// setPath sets key in the generic JSON form m of a scene and returns the
// path it set ("run.dt", "nodes[1].params.mass").
func setPath(m map[string]any, key string, v any) (string, error) {
	head, rest, ok := strings.Cut(key, ".")
	if !ok || rest == "" {
		return "", errors.New("write node.param, or run.field / record.field")
	}
	if head == "run" || head == "record" {
		cur := m
		parts := strings.Split(key, ".")
		for _, p := range parts[:len(parts)-1] {
			next, ok := cur[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				cur[p] = next
			}
			cur = next
		}
		if v == nil {
			delete(cur, parts[len(parts)-1]) // null: back to the default
		} else {
			cur[parts[len(parts)-1]] = v
		}
		return key, nil
	}
	var names []string
	for _, sec := range []string{"nodes", "connectors"} {
		list, _ := m[sec].([]any)
		for i, e := range list {
			obj, _ := e.(map[string]any)
			if obj["name"] == head {
				ps, ok := obj["params"].(map[string]any)
				if !ok {
					ps = map[string]any{}
					obj["params"] = ps
				}
				if v == nil {
					delete(ps, rest) // null: back to the default
				} else {
					ps[rest] = v
				}
				return fmt.Sprintf("%s[%d].params.%s", sec, i, rest), nil
			}
			if n, ok := obj["name"].(string); ok {
				names = append(names, n)
			}
		}
	}
	return "", fmt.Errorf("no node or connector %q in the scene%s", head, node.DidYouMean(head, names))
}

// ParseValue reads a command-line value: JSON (a number, true, false,
// null, a list such as [0,-9.81,0], a quoted string) or else the text
// itself as a string, so --set run.mode=monolithic needs no quotes. null
// is nil, which With reads as "remove the setting": the default applies
// (--set run.coupling=null takes a scene's coupling out).
func ParseValue(text string) any {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return text
	}
	if m, ok := v.(map[string]any); ok {
		return normalize(m)
	}
	if v == nil {
		return nil
	}
	return normalize(v)
}

// tableParams are the scene-only parameters of a lookup node, which name
// its CSV file (resolveTable).
var tableParams = []string{"file", "column", "time_column"}

// CheckKey checks, without a value, that key names something With can
// set: a parameter of a node or connector of the scene ("ball.elasticity",
// an alias, or a lookup node's "file", "column", "time_column"), or a
// field of the run or record section ("run.dt", "run.coupling.omega").
// Tools that set the same key to many values (a sweep) check it once,
// before the first run, instead of failing every run alike.
func (sc *Scene) CheckKey(key string, reg *node.Registry) error {
	head, rest, ok := strings.Cut(key, ".")
	if !ok || head == "" || rest == "" {
		return fmt.Errorf("%q: write node.param, or run.field / record.field", key)
	}
	switch head {
	case "run":
		return checkField(reflect.TypeFor[Run](), "run", rest)
	case "record":
		return checkField(reflect.TypeFor[Record](), "record", rest)
	}
	typ, found := "", false
	var names []string
	var sub Node
	for _, n := range sc.Nodes {
		if n.Name == head {
			typ, found, sub = n.Type, true, n
		}
		names = append(names, n.Name)
	}
	for _, c := range sc.Connectors {
		if c.Name == head {
			typ, found = c.Type, true
		}
		names = append(names, c.Name)
	}
	if !found {
		return fmt.Errorf("%s: no node or connector %q in the scene%s", key, head, node.DidYouMean(head, names))
	}
	if typ == SubsystemType {
		return sc.checkSubsystemKey(key, sub, rest, reg)
	}
	spec, err := reg.Spec(typ)
	if err != nil {
		return nil // the scene's own error, reported when it is built
	}
	var params []string
	for _, p := range spec.Params {
		params = append(params, p.Name)
		params = append(params, p.Aliases...)
	}
	if typ == source.LookupName {
		params = append(params, tableParams...)
		slices.Sort(params)
		params = slices.Compact(params)
	}
	if !slices.Contains(params, rest) {
		return fmt.Errorf("%s: %s (%s) has no parameter %q%s", key, head, typ, rest, node.DidYouMean(rest, params))
	}
	return nil
}

// checkSubsystemKey checks the key rest of subsystem node n: a promoted
// parameter's name, or an inner "node.param" checked against the inner
// scene.
func (sc *Scene) checkSubsystemKey(key string, n Node, rest string, reg *node.Registry) error {
	inner, _, _, errs := sc.innerScene(n, n.Name, nil)
	if inner == nil || len(errs) > 0 {
		return nil // the scene's own error, reported when it is built
	}
	if strings.Contains(rest, ".") {
		if err := inner.CheckKey(rest, reg); err != nil {
			return fmt.Errorf("%s: in subsystem %s: %w", key, n.Name, err)
		}
		return nil
	}
	var promoted []string
	if inner.Ports != nil {
		for _, q := range inner.Ports.Params {
			if q.Name == rest {
				return nil
			}
			promoted = append(promoted, q.Name)
		}
	}
	return fmt.Errorf("%s: subsystem %s promotes no parameter %q (promoted: %s)%s; name an inner parameter by its path, %s.node.param", key, n.Name, rest, strings.Join(promoted, ", "), node.DidYouMean(rest, promoted), n.Name)
}

// checkField checks that the dotted path names a field of the JSON form
// of t (a struct, or a pointer to one); a map's keys are not checked.
func checkField(t reflect.Type, at, path string) error {
	for path != "" {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() == reflect.Map {
			return nil
		}
		part, rest, _ := strings.Cut(path, ".")
		var names []string
		var next reflect.Type
		if t.Kind() == reflect.Struct {
			for i := range t.NumField() {
				name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
				if name == "" || name == "-" {
					continue
				}
				names = append(names, name)
				if name == part {
					next = t.Field(i).Type
				}
			}
		}
		if next == nil {
			if len(names) == 0 {
				return fmt.Errorf("%s.%s: %s is a value, not a section", at, path, at)
			}
			return fmt.Errorf("%s.%s: %s has no field %q%s", at, path, at, part, node.DidYouMean(part, names))
		}
		t, at, path = next, at+"."+part, rest
	}
	return nil
}
