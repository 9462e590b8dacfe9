package graph

import "testing"

// formatBytes gives the byte counts of the recording refusals (the memory
// needed and the limit, docs/errors.md): whole bytes below 1 KiB, one
// decimal from 1 KiB (1024 B exactly is 1.0 KiB) and three significant
// digits beyond the largest prefix, EiB, where a count of 2⁷⁰ B or more
// (a recording of 2⁵³ steps of a few thousand values) has no larger unit
// to move to.
func TestFormatBytesPrefixes(t *testing.T) {
	for _, c := range []struct {
		b    float64
		want string
	}{
		{0, "0 B"},
		{1023, "1023 B"},
		{1024, "1.0 KiB"},
		{1536, "1.5 KiB"},
		{1023 * 1024, "1023.0 KiB"},
		{1 << 60, "1.0 EiB"},
		{1023 << 60, "1023.0 EiB"},
		{1 << 70, "1.02e+03 EiB"},
		{1 << 80, "1.05e+06 EiB"},
	} {
		if got := formatBytes(c.b); got != c.want {
			t.Errorf("formatBytes(%g) = %q, want %q", c.b, got, c.want)
		}
	}
}
