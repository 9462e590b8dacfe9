package integrators

import (
	"strings"
	"testing"
)

// TestByNameHintsC: the error for an unknown name suggests the nearest
// name within edit distance 2 (the first in Names order on a tie), also
// when it is the first name, and none beyond distance 2; it repeats the
// name asked for in full up to 64 bytes.
func TestByNameHintsC(t *testing.T) {
	for _, tc := range []struct {
		query, hint string // hint "" means no suggestion
	}{
		{"forward-eulr", "forward-euler"}, // the first name of Names
		{"esdirk33", "esdirk43"},          // distance 1 to esdirk43 and to esdirk32: the first listed
		{"rk4zz", "rk4"},                  // distance 2
		{"rk4zzz", ""},                    // distance 3: the last letter counts
	} {
		_, err := ByName(tc.query)
		if err == nil {
			t.Fatalf("ByName(%q) accepted", tc.query)
		}
		msg := err.Error()
		if tc.hint == "" {
			if strings.Contains(msg, "did you mean") {
				t.Errorf("ByName(%q): %v, want no suggestion", tc.query, err)
			}
		} else if !strings.HasSuffix(msg, `did you mean "`+tc.hint+`"?`) {
			t.Errorf("ByName(%q): %v, want the suggestion %q", tc.query, err, tc.hint)
		}
	}
	name64 := strings.Repeat("x", 64)
	if _, err := ByName(name64); err == nil || !strings.Contains(err.Error(), `"`+name64+`"`) || strings.Contains(err.Error(), "…") {
		t.Errorf("ByName(64 bytes): %v, want the name in full", err)
	}
	if _, err := ByName(name64 + "y"); err == nil || !strings.Contains(err.Error(), `"`+name64+`…"`) {
		t.Errorf("ByName(65 bytes): %v, want the name cut at 64 bytes", err)
	}
}

// TestCustomNameLengthC: a caller's method name may be up to 64 bytes
// (and a 65-byte one is refused); a typo of a registered 64-byte name
// gets it suggested.
func TestCustomNameLengthC(t *testing.T) {
	name := "c-" + strings.Repeat("long", 15) + "xx" // 64 bytes
	if len(name) != 64 {
		t.Fatalf("len %d", len(name))
	}
	if err := Register(euler1{name + "z"}); err == nil || !strings.Contains(err.Error(), "1 to 64 bytes") {
		t.Errorf("a 65-byte name: %v, want refused", err)
	}
	if err := Register(euler1{name}); err != nil {
		t.Fatalf("a 64-byte name refused: %v", err)
	}
	t.Cleanup(func() { // the registry lives as long as the process: undo for -count
		registry.Lock()
		defer registry.Unlock()
		delete(registry.byName, name)
		registry.names = registry.names[:len(registry.names)-1]
	})
	typo := name[:63] + "y"
	if _, err := ByName(typo); err == nil || !strings.Contains(err.Error(), `did you mean "`+name+`"?`) {
		t.Errorf("ByName(64-byte typo): %v, want the registered name suggested", err)
	}
}

// TestNewmarkFamilyOrderAndLimitsC: NewmarkFamily is second order
// exactly when γ = ½ − αm + αf (values that are exact binary fractions
// here), and its parameters are refused unless β > 0, αm < 1, αf ≤ 1.
func TestNewmarkFamilyOrderAndLimitsC(t *testing.T) {
	p := AlphaParams{AlphaM: 0.125, AlphaF: 0.375, Beta: 0.25, Gamma: 0.75}
	if got := (NewmarkFamily{Alpha: p}).Order(); got != 2 {
		t.Errorf("γ = ½ − αm + αf: order %d, want 2", got)
	}
	p.Gamma = 0.625
	if got := (NewmarkFamily{Alpha: p}).Order(); got != 1 {
		t.Errorf("γ ≠ ½ − αm + αf: order %d, want 1", got)
	}
	for _, tc := range []struct {
		p  AlphaParams
		ok bool
	}{
		{AlphaParams{Beta: 0, Gamma: 0.5}, false},
		{AlphaParams{AlphaM: 1, Beta: 0.25, Gamma: 0.5}, false},
		{AlphaParams{AlphaF: 1, AlphaM: 0.5, Beta: 0.25, Gamma: 1}, true},
	} {
		_, err := NewmarkFamily{Alpha: tc.p}.New(&oscillator{}, nil)
		if (err == nil) != tc.ok {
			t.Errorf("%+v: err %v, want accepted %v", tc.p, err, tc.ok)
		}
	}
}
