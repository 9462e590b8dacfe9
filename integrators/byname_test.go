package integrators

import (
	"errors"
	"strings"
	"testing"
)

// ByName accepts any case and its error lists every valid name and the
// nearest one.
func TestByNameCaseAndListing(t *testing.T) {
	for _, name := range []string{"RK4", "rk4", "Dormand-Prince", "SEMI-IMPLICIT-EULER"} {
		m, err := ByName(name)
		if err != nil || !strings.EqualFold(m.Name(), name) {
			t.Errorf("ByName(%q) = %v, %v", name, m.Name(), err)
		}
	}
	_, err := ByName("rk5")
	if !errors.Is(err, ErrUnknownMethod) {
		t.Fatalf("ByName(rk5): %v", err)
	}
	msg := err.Error()
	for _, m := range Methods() {
		if !strings.Contains(msg, m.Name()) {
			t.Errorf("%q does not list %q", msg, m.Name())
		}
	}
	if !strings.Contains(msg, `did you mean "rk4"?`) {
		t.Errorf("%q does not suggest rk4", msg)
	}
	if _, err := ByName("zzzzzzzz"); err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("a far name got a suggestion: %v", err)
	}
}
