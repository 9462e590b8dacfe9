package main

import (
	"path/filepath"
	"testing"
)

// TestNumberFlagsStrict: the number flags of check, render and view read
// numbers with the one syntax of every input file (textio.ParseNumber,
// as lookup CSVs, fit data and sweep ranges do): "1_0", "0x1p-2" and
// "0x10" are each refused with the reason, where the flag package's
// Float64 (and strconv.ParseFloat) took "0x1p-2" as 0.25 and "1_0" as 10.
func TestNumberFlagsStrict(t *testing.T) {
	const sc = "../../examples/scenes/spring-damper.json"
	png := filepath.Join(t.TempDir(), "x.png")
	gif := filepath.Join(t.TempDir(), "x.gif")
	why := map[string]string{
		"1_0":    `"1_0" is not a number: digit separators`,
		"0x1p-2": `"0x1p-2" is not a number: hexadecimal`,
		"0x10":   `"0x10" is not a number: hexadecimal`,
	}
	for v, reason := range why {
		for _, args := range [][]string{
			{"check", sc, "--dt", v},
			{"render", sc, "-o", png, "--at", v},
			{"render", sc, "-o", gif, "--fps", v},
			{"render", sc, "-o", gif, "--speed", v},
			{"render", sc, "-o", png, "--camera", v + ",0"},
			{"view", sc, "--camera", v + ",0"},
			{"view", sc, "--body-size", v},
		} {
			code, _, errs := cosim(t, args...)
			if code != 2 && code != 1 {
				t.Errorf("%v: exit %d, want a refusal: %s", args, code, errs)
			}
			mustContain(t, args[0]+" "+args[len(args)-2], errs, reason)
		}
	}
}
