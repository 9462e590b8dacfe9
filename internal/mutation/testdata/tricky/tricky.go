// Package tricky holds operators that are awkward to instrument as
// mutant schemata: TestSchemata checks that every mutant of it behaves
// exactly as the same mutation made in the source.
package tricky

import (
	"fmt"
	"strings"
	"time"
)

// Package-level: outside any function body, not covered.
var scale = 2 * 3

const limit = 10 - 1

// Meters is a named numeric type.
type Meters float64

// Flag is a named bool.
type Flag bool

var trace []string

func at(name string, v int) int {
	trace = append(trace, name)
	return v
}

// Operands with side effects are evaluated once, left to right.
func sideEffects() int {
	return at("a", 3) - at("b", 5)*at("c", 2)
}

// Nil comparisons of several kinds.
func nils(p *int, s []int, m map[string]int, f func(), err error) string {
	return fmt.Sprint(p == nil, s != nil, m == nil, f != nil, err == nil)
}

// Untyped constants in typed contexts, and constant expressions.
func constants(x float32, d time.Duration) string {
	const local = 1 + 1
	y := x * (1.0 / 4.0)
	z := d + 2*time.Millisecond
	w := -x
	var big uint8 = 200 + 50
	return fmt.Sprint(y, z, w, big, local, 1<<3-1, scale, limit)
}

// Shifts with untyped constant left operands.
func shifts(n uint) int {
	v := 1<<n + 1
	return v - 1<<(n-1)
}

// Named types keep their type through the helpers.
func named(a, b Meters) (Meters, Flag) {
	return a / b, Flag(a > b)
}

// Increments on map entries, fields and loop variables.
func increments(keys []string) string {
	m := map[string]int{}
	for i := 0; i < len(keys); i++ {
		m[keys[i]]++
	}
	total := 0
	for k := range m {
		m[k]--
		total += m[k]
	}
	s := struct{ n int }{}
	s.n++
	return fmt.Sprint(total, s.n, len(m))
}

// Strings: + concatenates (its mutant is not viable), < compares.
func stringsOps(a, b string) string {
	return fmt.Sprint(a+b, a < b, strings.Repeat("x", len(a)%3))
}

// Comparisons of floats: NaN makes x < y and !(x >= y) differ.
func floats(x, y float64) string {
	return fmt.Sprint(x < y, x <= y, x > y, x >= y, -x, +y)
}

// Closure and generic code.
func generic[T int | int64](xs []T) T {
	var s T
	add := func(v T) { s = s + v }
	for _, x := range xs {
		add(x)
	}
	return s % 1000
}

// Run prints every function's results and the operand trace.
func Run() string {
	var b strings.Builder
	nan := 0.0
	nan = nan / nan
	fmt.Fprintln(&b, sideEffects(), trace)
	x := 1
	fmt.Fprintln(&b, nils(&x, nil, map[string]int{}, nil, fmt.Errorf("e")))
	fmt.Fprintln(&b, constants(3, time.Second))
	fmt.Fprintln(&b, shifts(4))
	q, f := named(3, 2)
	fmt.Fprintln(&b, q, f)
	fmt.Fprintln(&b, increments([]string{"a", "b", "a"}))
	fmt.Fprintln(&b, stringsOps("ab", "cd"))
	fmt.Fprintln(&b, floats(1, 2), floats(nan, 1), floats(2, 2))
	fmt.Fprintln(&b, generic([]int{1, 2, 3}), generic([]int64{5, 2000}))
	return b.String()
}
