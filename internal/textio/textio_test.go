package textio

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// decimal is the grammar of ParseNumber written as a regular expression,
// an independent statement of the same rule for the tests.
var decimal = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

func TestParseNumber(t *testing.T) {
	for _, s := range []string{"0", "12", "-2.5", "+.5", "3.", "6.02e23", "1E-3", "-0", "1e308", "4.9e-324", "1e-400"} {
		got, err := ParseNumber(s)
		want, _ := strconv.ParseFloat(s, 64)
		if err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("ParseNumber(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for s, want := range map[string]float64{"NaN": math.NaN(), "nan": math.NaN(), "Inf": math.Inf(1), "+inf": math.Inf(1), "-Inf": math.Inf(-1)} {
		got, err := ParseNumber(s)
		if err != nil || !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("ParseNumber(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for s, why := range map[string]string{
		"1_0":     "digit separators",
		"0x10":    "hexadecimal",
		"0x1p-2":  "hexadecimal",
		"-0X1":    "hexadecimal",
		"0b1":     "binary",
		"":        "empty",
		" 1":      "spaces",
		"1 ":      "spaces",
		"+-1":     "more than one sign",
		"1e":      "exponent has no digits",
		"e5":      "want a decimal number",
		".":       "want a decimal number",
		"1.2.3":   "want a decimal number",
		"1e400":   "beyond the range",
		"-1e400":  "beyond the range",
		"1,5":     "want a decimal number",
		"infinit": "want a decimal number",
	} {
		_, err := ParseNumber(s)
		var ne *NumberError
		if !errors.As(err, &ne) || !errors.Is(err, ErrNotNumber) || !strings.Contains(err.Error(), why) {
			t.Errorf("ParseNumber(%q): error %v, want one saying %q", s, err, why)
		}
	}
}

// FuzzParseNumber checks ParseNumber against the regular expression of
// its grammar and strconv.ParseFloat: it accepts exactly the decimal
// texts (and the NaN/Inf words) and returns ParseFloat's value.
func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"1", "1_0", "0x1p-2", "-.5e+3", "nan", "+Inf", "1e400", " 2", "3.", "1e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseNumber(s)
		word := false
		switch strings.ToLower(s) {
		case "nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity":
			word = true
		}
		want, perr := strconv.ParseFloat(s, 64)
		switch {
		case word:
			if err != nil {
				t.Fatalf("ParseNumber(%q): %v", s, err)
			}
		case decimal.MatchString(s) && perr == nil:
			if err != nil || math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("ParseNumber(%q) = %v, %v; ParseFloat gives %v", s, got, err, want)
			}
		default:
			if err == nil {
				t.Fatalf("ParseNumber(%q) = %v, want an error (ParseFloat: %v, %v)", s, got, want, perr)
			}
		}
	})
}

// oneByte hands out one byte per Read, as a slow pipe does.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

func TestLimitReader(t *testing.T) {
	for _, tc := range []struct {
		n, limit int
		tooLarge bool
	}{{0, 0, false}, {5, 5, false}, {5, 6, false}, {6, 5, true}, {100000, 10, true}} {
		for _, slow := range []bool{false, true} {
			var src io.Reader = bytes.NewReader(bytes.Repeat([]byte("a"), tc.n))
			if slow {
				src = oneByte{src}
			}
			got, err := io.ReadAll(LimitReader(src, int64(tc.limit), "the input"))
			if tc.tooLarge {
				var tl *TooLargeError
				if !errors.As(err, &tl) || !errors.Is(err, ErrTooLarge) || len(got) > tc.limit {
					t.Errorf("%d bytes, limit %d: %d bytes read, %v; want a TooLargeError after at most the limit", tc.n, tc.limit, len(got), err)
				}
				continue
			}
			if err != nil || len(got) != tc.n {
				t.Errorf("%d bytes, limit %d: %d bytes, %v", tc.n, tc.limit, len(got), err)
			}
		}
	}
}

// An endless device is cut at the limit, and a regular file beyond it is
// refused before it is read.
func TestOpenLimits(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err := ReadFile("/dev/zero", 1<<20, "the table")
		if err == nil || err.Error() != "the table is larger than its limit of 1 MiB" {
			t.Errorf("/dev/zero: %v", err)
		}
	}
	p := filepath.Join(t.TempDir(), "big")
	os.WriteFile(p, make([]byte, 2048), 0o644)
	if _, err := Open(p, 1024, "the data"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a 2 KiB file with a 1 KiB limit: %v", err)
	}
	if b, err := ReadFile(p, 2048, "the data"); err != nil || len(b) != 2048 {
		t.Errorf("at the limit: %d bytes, %v", len(b), err)
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{900: "900 B", 16 << 20: "16 MiB", 3 << 29: "1.5 GiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
