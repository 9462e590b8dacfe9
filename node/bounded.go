package node

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error messages echo what the user gave, bounded: a list of at most
// MaxWholeItems elements is shown whole, a longer one by its first
// MaxShownItems elements and a count of the rest; a string shows its
// first MaxShownBytes bytes and a count of the rest. A wrong input of a
// million elements makes a message of a line, not of megabytes, while
// the short vectors of parameters (a colour, an inertia matrix) read in
// full.
const (
	MaxWholeItems = 16
	MaxShownItems = 3
	MaxShownBytes = 64
)

// Elide returns s when it has at most MaxShownBytes bytes, and otherwise
// its first MaxShownBytes bytes (cut at a character boundary) followed by
// "… (N more bytes)".
func Elide(s string) string { return ElideTo(s, MaxShownBytes) }

// ElideTo is Elide with a limit of n bytes: a backstop for whole
// messages, which may quote several bounded values.
func ElideTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "… (" + GroupDigits(len(s)-cut) + " more bytes)"
}

// Quote is strconv.Quote of s, bounded like Elide: a long string is
// quoted up to MaxShownBytes bytes, with "… (N more bytes)" after the
// closing quote.
func Quote(s string) string {
	if len(s) <= MaxShownBytes {
		return strconv.Quote(s)
	}
	cut := MaxShownBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "… (" + GroupDigits(len(s)-cut) + " more bytes)"
}

// GroupDigits writes n with its digits in groups of three separated by
// spaces, "999 997".
func GroupDigits(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// formatList writes a list of n elements, element i written by f: all of
// them up to MaxWholeItems, otherwise the first MaxShownItems and
// "… N more".
func formatList(n int, f func(i int) string) string {
	var b strings.Builder
	b.WriteByte('[')
	shown := n
	if n > MaxWholeItems {
		shown = MaxShownItems
	}
	for i := 0; i < shown; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f(i))
	}
	if shown < n {
		b.WriteString(", … ")
		b.WriteString(GroupDigits(n - shown))
		b.WriteString(" more")
	}
	b.WriteByte(']')
	return b.String()
}

// formatOther writes a value of a kind FormatValue has no case for,
// bounded like Elide.
func formatOther(v any) string {
	if m, ok := v.(map[string]any); ok {
		return "an object of " + plural(len(m), "key")
	}
	return Elide(fmt.Sprint(v))
}
