package node

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// ParamKind is the type of a parameter's value (Param.Kind).
type ParamKind int

const (
	// Real is a float64.
	Real ParamKind = iota
	// Vector is a []float64 of the parameter's Shape.
	Vector
	// Bool is a bool.
	Bool
	// Integer is an int.
	Integer
	// Text is a string, optionally restricted to Choices.
	Text
	// Function is a Go function value. It cannot come from a scene file:
	// scenes never execute code.
	Function
)

func (k ParamKind) String() string {
	switch k {
	case Real:
		return "float"
	case Vector:
		return "vector"
	case Bool:
		return "bool"
	case Integer:
		return "int"
	case Text:
		return "string"
	case Function:
		return "function"
	}
	return fmt.Sprintf("ParamKind(%d)", int(k))
}

// MarshalText encodes the kind by name, for stable JSON.
func (k ParamKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Range is the set of valid values of a real parameter (or of every
// component of a vector parameter). The zero Range accepts every finite
// number; non-finite values are always invalid.
type Range struct {
	Min, Max         float64
	MinOpen, MaxOpen bool // exclude the end point
	// Bounded is false for the zero Range (any finite value).
	Bounded bool
}

// Finite is the range of every finite number.
func Finite() Range { return Range{} }

// Between is the closed interval [lo, hi].
func Between(lo, hi float64) Range { return Range{Min: lo, Max: hi, Bounded: true} }

// Positive is the open interval (0, +Inf).
func Positive() Range { return Range{Min: 0, Max: math.Inf(1), MinOpen: true, Bounded: true} }

// NonNegative is [0, +Inf).
func NonNegative() Range { return Range{Min: 0, Max: math.Inf(1), Bounded: true} }

// Contains reports whether x is finite and inside r.
func (r Range) Contains(x float64) bool {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return false
	}
	if !r.Bounded {
		return true
	}
	if x < r.Min || (r.MinOpen && x == r.Min) {
		return false
	}
	if x > r.Max || (r.MaxOpen && x == r.Max) {
		return false
	}
	return true
}

// String formats the range in interval notation, e.g. "[0, 1]" or "(0, +Inf)".
func (r Range) String() string {
	if !r.Bounded {
		return "any finite number"
	}
	lb, rb := "[", "]"
	if r.MinOpen || math.IsInf(r.Min, -1) {
		lb = "("
	}
	if r.MaxOpen || math.IsInf(r.Max, 1) {
		rb = ")"
	}
	return lb + fmtNum(r.Min) + ", " + fmtNum(r.Max) + rb
}

func fmtNum(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "+Inf"
	case math.IsInf(x, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// Param describes one parameter of a node: its name, kind, shape, default,
// units, description and valid range.
type Param struct {
	Name        string
	Kind        ParamKind
	Shape       Shape // Vector: the number of components; Scalar otherwise
	Default     any   // a value of the Kind (nil for Function: not set)
	Units       string
	Description string
	Range       Range    // Real and Vector components
	Choices     []string // Text: the accepted values (empty: any)
	// MaxLen, when > 0, lets a Vector parameter have any number of
	// components from 1 to MaxLen (a source's per-component amplitudes, a
	// table's values); Shape is then the default's length, for
	// documentation. Zero: exactly Shape.Len() components.
	MaxLen int
	// Signature documents a Function parameter's Go type.
	Signature string
	// Aliases are other names Resolve accepts for the parameter (the spelling of
	// the code a node is ported from, e.g. Exudyn's "drawSize" for "draw_size"); giving a name and its
	// alias together is an error. Values, errors and specs use Name.
	Aliases []string
}

// Valid describes the accepted values in words, for error messages and
// documentation.
func (p Param) Valid() string {
	switch p.Kind {
	case Real:
		return p.Range.String()
	case Vector:
		count := fmt.Sprint(p.Shape.Len())
		if p.MaxLen > 0 {
			count = fmt.Sprintf("1 to %d", p.MaxLen)
		}
		if !p.Range.Bounded {
			return count + " finite values"
		}
		return fmt.Sprintf("%s values, each in %s", count, p.Range.String())
	case Bool:
		return "true or false"
	case Integer:
		if p.Range.Bounded {
			return "an integer in " + p.Range.String()
		}
		return "an integer"
	case Text:
		if len(p.Choices) > 0 {
			return "one of " + quoteList(p.Choices)
		}
		return "a string"
	case Function:
		if p.Signature != "" {
			return "a Go function " + p.Signature
		}
		return "a Go function"
	}
	return ""
}

// ParamError reports an invalid parameter value. It names the node (its
// type, or its instance name once it is in a graph), the parameter, the
// value and the valid range.
type ParamError struct {
	Node   string
	Param  string
	Value  any
	Reason string // "is not finite", "is out of range", …
	Valid  string // the accepted values, as Param.Valid says
}

func (e *ParamError) Error() string {
	var b strings.Builder
	if e.Node != "" {
		b.WriteString(Elide(e.Node))
		b.WriteString(": ")
	}
	b.WriteString("parameter ")
	b.WriteString(Quote(e.Param))
	if e.Value != nil {
		fmt.Fprintf(&b, " = %s", FormatValue(e.Value))
	}
	b.WriteString(" ")
	b.WriteString(e.Reason)
	if e.Valid != "" {
		b.WriteString("; valid: ")
		b.WriteString(e.Valid)
	}
	return b.String()
}

// FormatValue formats a parameter value for messages: floats with the
// shortest exact representation, slices in brackets. The result is
// bounded whatever the value: a list longer than MaxWholeItems shows its
// first MaxShownItems elements and how many more there are ("[1, 2, 3,
// … 999 997 more]"), a string its first MaxShownBytes bytes, an object
// its number of keys.
func FormatValue(v any) string {
	switch x := v.(type) {
	case float64:
		return fmtNum(x)
	case []float64:
		return formatList(len(x), func(i int) string { return fmtNum(x[i]) })
	case []any:
		return formatList(len(x), func(i int) string { return FormatValue(x[i]) })
	case []int:
		return formatList(len(x), func(i int) string { return strconv.Itoa(x[i]) })
	case []string:
		return formatList(len(x), func(i int) string { return Quote(x[i]) })
	case string:
		return Quote(x)
	case nil:
		return "null"
	}
	return formatOther(v)
}

// kindOf names the kind of a decoded value for error messages in the
// terms of the file it came from (JSON or a Go literal), not Go's.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case float64, float32, int, int64, int32:
		return "a number"
	case []any, []float64:
		return "a list"
	case map[string]any:
		return "an object"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("type %T", v)
}

// Check validates v against p and returns it in canonical form: float64 for
// Real (ints are accepted), a fresh []float64 for Vector (from []float64,
// []any of numbers, [2]float64, [3]float64 or [4]float64), bool, int
// (integral floats accepted, as JSON numbers arrive) or string. The
// returned error is a *ParamError with an empty Node.
func (p Param) Check(v any) (any, error) {
	bad := func(reason string) (any, error) {
		return nil, &ParamError{Param: p.Name, Value: v, Reason: reason, Valid: p.Valid()}
	}
	switch p.Kind {
	case Real:
		x, ok := toFloat(v)
		if !ok {
			return bad(fmt.Sprintf("is %s, want a number", kindOf(v)))
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return bad("is not finite")
		}
		if !p.Range.Contains(x) {
			return bad("is out of range")
		}
		return x, nil
	case Vector:
		xs, ok := toFloats(v)
		if !ok {
			if l, isList := v.([]any); isList {
				for i, e := range l {
					if _, num := toFloat(e); !num {
						return bad(fmt.Sprintf("component %d is %s, want a number", i, kindOf(e)))
					}
				}
			}
			return bad(fmt.Sprintf("is %s, want a list of %d numbers", kindOf(v), p.Shape.Len()))
		}
		if p.MaxLen > 0 {
			if len(xs) < 1 || len(xs) > p.MaxLen {
				return bad(fmt.Sprintf("has %s, want 1 to %d", plural(len(xs), "value"), p.MaxLen))
			}
		} else if len(xs) != p.Shape.Len() {
			return bad(fmt.Sprintf("has %s, want %d (shape %s)", plural(len(xs), "value"), p.Shape.Len(), p.Shape))
		}
		for i, x := range xs {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return bad(fmt.Sprintf("component %d is not finite", i))
			}
			if !p.Range.Contains(x) {
				return bad(fmt.Sprintf("component %d is out of range", i))
			}
		}
		return xs, nil
	case Bool:
		b, ok := v.(bool)
		if !ok {
			return bad(fmt.Sprintf("is %s, want true or false", kindOf(v)))
		}
		return b, nil
	case Integer:
		x, ok := toFloat(v)
		if !ok || x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return bad("is not an integer")
		}
		if p.Range.Bounded && !p.Range.Contains(x) {
			return bad("is out of range")
		}
		return int(x), nil
	case Text:
		s, ok := v.(string)
		if !ok {
			return bad(fmt.Sprintf("is %s, want a string", kindOf(v)))
		}
		if len(p.Choices) > 0 && !slices.Contains(p.Choices, s) {
			return bad("is not an accepted value" + DidYouMean(s, p.Choices))
		}
		return s, nil
	case Function:
		if v == nil {
			return nil, nil
		}
		return v, nil // the node type-asserts the exact signature
	}
	return bad("has an unknown kind")
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	}
	return 0, false
}

func toFloats(v any) ([]float64, bool) {
	switch x := v.(type) {
	case []float64:
		return slices.Clone(x), true
	case [2]float64:
		return x[:], true
	case [3]float64:
		return x[:], true
	case [4]float64:
		return x[:], true
	case []any:
		out := make([]float64, len(x))
		for i, e := range x {
			f, ok := toFloat(e)
			if !ok {
				return nil, false
			}
			out[i] = f
		}
		return out, true
	case []int:
		out := make([]float64, len(x))
		for i, e := range x {
			out[i] = float64(e)
		}
		return out, true
	}
	if f, ok := toFloat(v); ok { // a scalar where a 1-vector is wanted
		return []float64{f}, true
	}
	return nil, false
}

// Values is a complete, validated set of parameter values keyed by name.
type Values map[string]any

// Float returns the named Real parameter. It panics if the name is not a
// Real parameter: that is a programmer error inside a node.
func (v Values) Float(name string) float64 { return v[name].(float64) }

// Floats returns the named Vector parameter (the stored slice, not a copy).
func (v Values) Floats(name string) []float64 { return v[name].([]float64) }

// Bool returns the named Bool parameter.
func (v Values) Bool(name string) bool { return v[name].(bool) }

// Int returns the named Integer parameter.
func (v Values) Int(name string) int { return v[name].(int) }

// String returns the named Text parameter.
func (v Values) String(name string) string { return v[name].(string) }

// Resolve validates the given parameter map against specs and returns a
// complete Values: given values override the defaults (MADDENING's "injected
// params override the node's own" rule). Every problem is reported at once
// (errors.Join of *ParamError, each naming typ), in the order of specs, then
// unknown names in sorted order; beyond MaxReportedErrors problems the rest
// are counted in a last error. base, if not nil, supplies the values to
// start from instead of the defaults (for run-time overrides). A node's Go
// parameter struct turned into Values is checked the same way:
// Resolve(typ, specs, nil, p.values()); given is never modified.
func Resolve(typ string, specs []Param, base Values, given map[string]any) (Values, error) {
	out := make(Values, len(specs))
	for _, p := range specs {
		if base != nil {
			out[p.Name] = base[p.Name]
		} else {
			out[p.Name] = p.Default
		}
	}
	var errs []error
	for _, p := range specs {
		v, ok := given[p.Name]
		for _, a := range p.Aliases {
			av, has := given[a]
			if !has {
				continue
			}
			if ok {
				errs = append(errs, &ParamError{Node: typ, Param: a, Value: av,
					Reason: fmt.Sprintf("is an alias of %q, which is also given (= %s)", p.Name, FormatValue(v)),
					Valid:  fmt.Sprintf("either %q or %q, not both", p.Name, a)})
				continue
			}
			v, ok = av, true
		}
		if !ok {
			continue
		}
		c, err := p.Check(v)
		if err != nil {
			err.(*ParamError).Node = typ
			errs = append(errs, err)
			continue
		}
		out[p.Name] = c
	}
	var unknown []string
	for name := range given {
		if !slices.ContainsFunc(specs, func(p Param) bool { return p.Name == name || slices.Contains(p.Aliases, name) }) {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	names := make([]string, len(specs))
	for i, p := range specs {
		names[i] = p.Name
	}
	for _, name := range unknown {
		errs = append(errs, &ParamError{Node: typ, Param: name, Reason: "is not a parameter of this node" + DidYouMean(name, names)})
	}
	if len(errs) > 0 {
		return nil, errors.Join(boundErrors(errs)...)
	}
	return out, nil
}

// MaxReportedErrors bounds the problems Resolve reports one by one; the
// rest are counted in a last line.
const MaxReportedErrors = 20

// boundErrors keeps the first MaxReportedErrors errors and counts the
// rest.
func boundErrors(errs []error) []error {
	if len(errs) <= MaxReportedErrors {
		return errs
	}
	rest := len(errs) - MaxReportedErrors
	return append(errs[:MaxReportedErrors:MaxReportedErrors], fmt.Errorf("… and %s more problems", GroupDigits(rest)))
}

// plural writes n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
