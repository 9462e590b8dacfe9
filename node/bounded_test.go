package node_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/node"
)

// Error messages stay short whatever the input (a wrong-length vector of
// 10⁶ elements once made a 5 MB message). Every parameter error path
// is driven with huge inputs and each message must stay under 400 bytes
// (a line naming node, parameter, a bounded echo of the value and the
// valid range).
func TestParamErrorsBounded(t *testing.T) {
	million := make([]any, 1_000_000)
	floats := make([]float64, 1_000_000)
	for i := range million {
		million[i] = float64(i + 1)
		floats[i] = float64(i + 1)
	}
	huge := strings.Repeat("x", 1_000_000)
	obj := map[string]any{}
	for i := 0; i < 100_000; i++ {
		obj[fmt.Sprint("k", i)] = float64(i)
	}
	mixed := append(append([]any(nil), million[:500_000]...), "oops")
	cases := []struct {
		name  string
		given map[string]any
	}{
		{"vector of 10⁶ for a (3,) vector", map[string]any{"gravity": million}},
		{"[]float64 of 10⁶ for a (3,) vector", map[string]any{"gravity": floats}},
		{"list of 10⁶ for a real", map[string]any{"mass": million}},
		{"list with a string at 500 000", map[string]any{"gravity": mixed}},
		{"nested list", map[string]any{"gravity": []any{million, million}}},
		{"huge string for a choice", map[string]any{"mode": huge}},
		{"huge string for a real", map[string]any{"mass": huge}},
		{"object of 10⁵ keys for a real", map[string]any{"mass": obj}},
		{"list of 10⁶ for a boolean", map[string]any{"active": million}},
		{"list of 10⁶ for an integer", map[string]any{"count": million}},
		{"huge unknown name", map[string]any{huge: 1.0}},
	}
	for _, c := range cases {
		_, err := node.Resolve("thing", specs, nil, c.given)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if n := len(err.Error()); n > 400 {
			t.Errorf("%s: message of %d bytes: %.300s…", c.name, n, err.Error())
		}
	}
	// The form of the echo: the first three and a count.
	_, err := node.Resolve("thing", specs, nil, map[string]any{"gravity": million})
	if want := "[1, 2, 3, … 999 997 more]"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("echo of a 10⁶ list: %v, want it to contain %q", err, want)
	}
	// 10⁵ unknown parameters: the first MaxReportedErrors, then a count.
	many := map[string]any{}
	for i := 0; i < 100_000; i++ {
		many[fmt.Sprintf("bogus%06d", i)] = 1.0
	}
	_, err = node.Resolve("thing", specs, nil, many)
	if err == nil || len(err.Error()) > (node.MaxReportedErrors+1)*400 || !strings.Contains(err.Error(), "… and 99 980 more problems") {
		t.Errorf("10⁵ unknown parameters: %d bytes, want at most %d and a count of the rest", len(err.Error()), (node.MaxReportedErrors+1)*400)
	}
	var ute *node.UnknownTypeError
	reg, err := node.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.New(huge, nil); !errors.As(err, &ute) || len(err.Error()) > 400 {
		t.Errorf("unknown huge type name: %d bytes (%T)", len(err.Error()), err)
	}
}

func TestFormatValueBounded(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{[]float64{1, 2, 3}, "[1, 2, 3]"},
		{make([]float64, 16), "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]"},
		{make([]float64, 17), "[0, 0, 0, … 14 more]"},
		{append([]any{0.5, "a", make([]any, 20)}, make([]any, 17)...), `[0.5, "a", [null, null, null, … 17 more], … 17 more]`},
		{strings.Repeat("é", 40), `"` + strings.Repeat("é", 32) + `"… (16 more bytes)`},
		{map[string]any{"a": 1.0, "b": 2.0}, "an object of 2 keys"},
		{1234567, "1234567"},
	} {
		if got := node.FormatValue(c.v); got != c.want {
			t.Errorf("FormatValue(%.40v) = %s, want %s", c.v, got, c.want)
		}
	}
}

// TestElideEdges: a string of exactly the limit is kept whole; a cut
// that would split a character moves back to the character's start; a
// string with no character start in reach (invalid UTF-8, as a corrupt
// file may hold) is cut to nothing rather than panicking.
func TestElideEdges(t *testing.T) {
	exact := strings.Repeat("a", node.MaxShownBytes)
	if got := node.ElideTo("abcdefghij", 10); got != "abcdefghij" {
		t.Errorf("ElideTo of 10 bytes at 10 = %q, want it whole", got)
	}
	if got := node.Quote(exact); got != `"`+exact+`"` {
		t.Errorf("Quote of %d bytes = %q, want it whole", node.MaxShownBytes, got)
	}
	// "é" is 2 bytes at offsets 63 and 64: the cut at 64 moves to 63.
	split := strings.Repeat("a", node.MaxShownBytes-1) + "é" + "bbb"
	if got, want := node.Quote(split), `"`+strings.Repeat("a", node.MaxShownBytes-1)+`"… (5 more bytes)`; got != want {
		t.Errorf("Quote of a split character = %q, want %q", got, want)
	}
	if got, want := node.Elide(split), strings.Repeat("a", node.MaxShownBytes-1)+"… (5 more bytes)"; got != want {
		t.Errorf("Elide of a split character = %q, want %q", got, want)
	}
	bad := strings.Repeat("\x80", 100)
	if got := node.Quote(bad); got != `""… (100 more bytes)` {
		t.Errorf("Quote of 100 continuation bytes = %q", got)
	}
	if got := node.ElideTo(bad, 10); got != "… (100 more bytes)" {
		t.Errorf("ElideTo of 100 continuation bytes = %q", got)
	}
}
