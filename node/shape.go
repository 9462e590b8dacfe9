package node

import (
	"fmt"
	"strings"
)

// Shape is the shape of a state field, parameter, input or output: a
// scalar (the zero value) or a vector of n components.
type Shape int

// Scalar is the shape of a single number.
const Scalar Shape = 0

// Vec returns the shape of a vector of n components. It panics if n < 1.
func Vec(n int) Shape {
	if n < 1 {
		panic(fmt.Sprintf("node: vector length %d < 1", n))
	}
	return Shape(n)
}

// Len is the number of float64 values the shape occupies: 1 for a scalar.
func (s Shape) Len() int {
	if s <= 0 {
		return 1
	}
	return int(s)
}

// IsScalar reports whether s is the scalar shape.
func (s Shape) IsScalar() bool { return s <= 0 }

// String formats the shape as MADDENING's node guides do: "scalar" or "(n,)".
func (s Shape) String() string {
	if s.IsScalar() {
		return "scalar"
	}
	return fmt.Sprintf("(%d,)", int(s))
}

// Role tags a state field so that second-order integrators can find
// position/velocity pairs without knowing the node type.
type Role int

const (
	// Other is any integrated quantity that is not a position or velocity
	// (an angle integrated with its rate is a position; a quaternion is other).
	Other Role = iota
	// Position marks a generalized coordinate whose time derivative is the
	// velocity field named by Field.Rate.
	Position
	// Velocity marks the rate of a Position field.
	Velocity
)

func (r Role) String() string {
	switch r {
	case Position:
		return "position"
	case Velocity:
		return "velocity"
	default:
		return "other"
	}
}

// MarshalText encodes the role by name, for stable JSON.
func (r Role) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// Field describes one named, shaped slot of a node's state or outputs.
type Field struct {
	Name        string
	Shape       Shape
	Units       string // SI units, "1" or "" for dimensionless
	Description string
	Role        Role
	// Rate names the Velocity field that is this Position field's time
	// derivative. It is empty for other roles.
	Rate string
	// Formerly are names the field had before it was renamed. Graphs,
	// scene files, subsystem output ports and checkpoints (a state field
	// in a checkpoint's layout) still resolve them, to this field, with a deprecation
	// warning naming Name (Spec.Renamed); specs, messages and outputs
	// use Name.
	Formerly []string
}

// Layout resolves field names to offsets in a flat []float64. It is built
// once, when a node or graph is constructed; the hot path uses offsets.
type Layout struct {
	fields  []Field
	offsets []int
	size    int
}

// NewLayout lays fields out one after another in the order given.
func NewLayout(fields []Field) Layout {
	l := Layout{fields: fields, offsets: make([]int, len(fields))}
	for i, f := range fields {
		l.offsets[i] = l.size
		l.size += f.Shape.Len()
	}
	return l
}

// Size is the total number of float64 values.
func (l Layout) Size() int { return l.size }

// Len is the number of fields.
func (l Layout) Len() int { return len(l.fields) }

// Field returns field i.
func (l Layout) Field(i int) Field { return l.fields[i] }

// Offset returns the offset of field i.
func (l Layout) Offset(i int) int { return l.offsets[i] }

// Index returns the index of the named field, or -1.
func (l Layout) Index(name string) int {
	for i, f := range l.fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// Names returns the field names in layout order.
func (l Layout) Names() []string {
	names := make([]string, len(l.fields))
	for i, f := range l.fields {
		names[i] = f.Name
	}
	return names
}

// Component names the j-th float64 of the layout as "field" or "field[k]".
func (l Layout) Component(j int) string {
	for i := len(l.offsets) - 1; i >= 0; i-- {
		if j >= l.offsets[i] {
			f := l.fields[i]
			if f.Shape.IsScalar() {
				return f.Name
			}
			return fmt.Sprintf("%s[%d]", f.Name, j-l.offsets[i])
		}
	}
	return fmt.Sprintf("#%d", j)
}

// suggest returns up to three names from candidates that are close to name
// (by edit distance, or sharing a prefix or substring), best first.
func suggest(name string, candidates []string) []string {
	type scored struct {
		s string
		d int
	}
	var best []scored
	lname := strings.ToLower(name)
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := editDistance(lname, lc)
		limit := max(2, len(name)/3)
		if d <= limit || (len(lname) >= 3 && (strings.Contains(lc, lname) || strings.Contains(lname, lc))) {
			best = append(best, scored{c, d})
		}
	}
	// Stable insertion sort by distance, then name: deterministic output.
	for i := 1; i < len(best); i++ {
		for j := i; j > 0 && (best[j].d < best[j-1].d || best[j].d == best[j-1].d && best[j].s < best[j-1].s); j-- {
			best[j], best[j-1] = best[j-1], best[j]
		}
	}
	var out []string
	for i := 0; i < len(best) && i < 3; i++ {
		out = append(out, best[i].s)
	}
	return out
}

// DidYouMean is the "did you mean …" suffix of error messages: up to three
// names from candidates close to name (by edit distance, or sharing a
// prefix or substring), best first, or, when none is close, the valid
// names when there are at most twelve (" (there are none)" for none), or
// "".
func DidYouMean(name string, candidates []string) string {
	if s := suggest(name, candidates); len(s) > 0 {
		return fmt.Sprintf(" (did you mean %s?)", quoteList(s))
	}
	if len(candidates) == 0 {
		return " (there are none)"
	}
	if len(candidates) <= 12 {
		return fmt.Sprintf(" (valid: %s)", quoteList(candidates))
	}
	return ""
}

func quoteList(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
