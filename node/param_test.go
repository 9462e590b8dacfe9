package node_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/node"
)

// TestRangeStringInfiniteMin: a range unbounded below is written open at
// −Inf, "(-Inf, 0]", as interval notation writes an infinite end.
func TestRangeStringInfiniteMin(t *testing.T) {
	if got := node.Between(math.Inf(-1), 0).String(); got != "(-Inf, 0]" {
		t.Errorf("Between(-Inf, 0) = %q, want (-Inf, 0]", got)
	}
}

// TestParamValidWords: the words Valid gives for a vector (a fixed count,
// or "1 to MaxLen" for a variable-length one) and for a text parameter
// (its choices, or any string): they are what a user reads in an error.
func TestParamValidWords(t *testing.T) {
	for _, c := range []struct {
		p    node.Param
		want string
	}{
		{node.Param{Kind: node.Vector, Shape: node.Vec(3)}, "3 finite values"},
		{node.Param{Kind: node.Vector, Shape: node.Vec(1), MaxLen: 5, Range: node.Between(0, 1)}, "1 to 5 values, each in [0, 1]"},
		{node.Param{Kind: node.Text}, "a string"},
		{node.Param{Kind: node.Text, Choices: []string{"a", "b"}}, `one of "a", "b"`},
	} {
		if got := c.p.Valid(); got != c.want {
			t.Errorf("Valid() of %+v = %q, want %q", c.p, got, c.want)
		}
	}
}

// TestParamCheckBounds: a variable-length vector takes 1 to MaxLen
// values (both ends accepted, 0 and MaxLen+1 refused); an integer is
// accepted up to ±2⁵³ (every integer of at most that magnitude is exact
// in a float64) and refused beyond.
func TestParamCheckBounds(t *testing.T) {
	vec := node.Param{Name: "v", Kind: node.Vector, Shape: node.Vec(1), MaxLen: 3}
	for _, c := range []struct {
		v  []float64
		ok bool
	}{{[]float64{}, false}, {[]float64{1}, true}, {[]float64{1, 2, 3}, true}, {[]float64{1, 2, 3, 4}, false}} {
		if _, err := vec.Check(c.v); (err == nil) != c.ok {
			t.Errorf("%d values with MaxLen 3: err = %v, want accepted %v", len(c.v), err, c.ok)
		}
	}
	in := node.Param{Name: "n", Kind: node.Integer}
	for _, c := range []struct {
		x  float64
		ok bool
	}{{1 << 53, true}, {-(1 << 53), true}, {1<<53 + 2, false}} {
		got, err := in.Check(c.x)
		if (err == nil) != c.ok {
			t.Errorf("integer %v: err = %v, want accepted %v", c.x, err, c.ok)
		}
		if err == nil && got != int(c.x) {
			t.Errorf("integer %v resolves to %v", c.x, got)
		}
	}
}

// TestResolveReportsExactlyMax: with exactly MaxReportedErrors problems
// every one is reported and no "… more problems" line is added; one more
// problem folds into "… and 1 more problems".
func TestResolveReportsExactlyMax(t *testing.T) {
	given := func(n int) map[string]any {
		m := map[string]any{}
		for i := range n {
			m[fmt.Sprintf("unknown%02d", i)] = 1.0
		}
		return m
	}
	_, err := node.Resolve("t", nil, nil, given(node.MaxReportedErrors))
	if err == nil || strings.Contains(err.Error(), "more problems") || strings.Count(err.Error(), "\n") != node.MaxReportedErrors-1 {
		t.Errorf("%d problems reported as %q, want each on its own line and no count", node.MaxReportedErrors, err)
	}
	_, err = node.Resolve("t", nil, nil, given(node.MaxReportedErrors+1))
	if err == nil || !strings.Contains(err.Error(), "… and 1 more problems") {
		t.Errorf("%d problems reported as %q, want a last line counting 1 more", node.MaxReportedErrors+1, err)
	}
}
