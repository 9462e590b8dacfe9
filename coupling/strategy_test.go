package coupling

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ParseStrategy reads what String writes. The texts include numbers of
// several significant digits (String writes each float in the shortest
// form that reads back to the same value, not rounded) and rate 1, the
// smallest valid rate (one substep per step).
func TestParseRoundTrip(t *testing.T) {
	for _, text := range []string{
		"jacobi",
		"gauss-seidel,order=a+b/c",
		"iterative:relaxation,omega=0.3",
		"iterative:aitken,group.g1=a+b+s,group.g2=c+d,omega=0.5,omegamax=2,atol=1e-09,rtol=1e-07,maxiter=30,predictor=linear,onfail=accept",
		"iterative:iqn-ils,reuse=2,filter=1e-06,columns=4",
		"jacobi,rate.fast=10,rate.mid=2,interp=linear",
		"iterative:iqn-ils,group.g=a+b+s,reuse=1,rate.b=10,interp=linear",
		"iterative:aitken,omega=0.35,omegamax=1.75,atol=2.5e-09,rtol=1.25e-06",
		"jacobi,rate.a=1,rate.b=3",
	} {
		s, err := ParseStrategy(text)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if got := s.String(); got != text {
			t.Errorf("String() = %q, want %q", got, text)
		}
		back, err := ParseStrategy(s.String())
		if err != nil || !cmp.Equal(back, s) {
			t.Errorf("%q: round trip %+v, %v", text, back, err)
		}
	}
}

func TestByName(t *testing.T) {
	for _, n := range Names() {
		s, err := ByName(n)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(s.Name(), string(s.Scheme)) {
			t.Errorf("%s: name %q", n, s.Name())
		}
	}
	if s, _ := ByName("aitken"); s.Name() != "iterative:aitken" {
		t.Errorf("aitken: %q", s.Name())
	}
	if _, err := ByName("jacoby"); err == nil || !strings.Contains(err.Error(), "jacobi, gauss-seidel, iterative") {
		t.Errorf("err = %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	for text, want := range map[string]string{
		"jacobi:aitken":                 "acceleration is for the iterative",
		"iterative:newton":              `unknown acceleration "newton"`,
		"iterative,atol=-1":             "ATol = -1",
		"iterative,maxiter=x":           "maxiter",
		"jacobi,rate.a=0":               `rate of "a" is 0`,
		"gauss-seidel,rate.a=2":         "unsupported",
		"jacobi,order=a/b":              "Order is for gauss-seidel",
		"iterative,predictor=quadratic": `unknown predictor "quadratic"`,
		"iterative,bogus=1":             `unknown key "bogus"`,
		"iterative,omega":               "not key=value",
	} {
		_, err := ParseStrategy(text)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want it to contain %q", text, err, want)
		}
	}
	_, err := ParseStrategy("gauss-seidel,rate.a=2")
	if !errors.Is(err, ErrUnsupported) {
		t.Errorf("err = %v, want ErrUnsupported", err)
	}
}

// Resolved fills every documented default.
func TestResolved(t *testing.T) {
	r := Iteration{}.Resolved()
	want := Iteration{Acceleration: Acceleration{Accel: Relaxation, Omega: 1, OmegaMax: DefaultOmegaMax, Filter: DefaultFilter},
		ATol: DefaultATol, RTol: DefaultRTol, MaxIter: DefaultMaxIter, Predictor: Constant, OnFail: Stop}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if a := (Iteration{Acceleration: Acceleration{Accel: Aitken}}).Resolved().Acceleration; a.Omega != DefaultOmega0 {
		t.Errorf("aitken ω0 = %v", a.Omega)
	}
}

// Each option type's zero value means its documented default, and String
// names that default; a named value is its own name.
func TestZeroValueNames(t *testing.T) {
	for _, c := range []struct {
		zero, named fmt.Stringer
		wantZero    string
		wantNamed   string
	}{
		{Scheme(""), Iterative, "jacobi", "iterative"},
		{Accel(""), IQNILS, "relaxation", "iqn-ils"},
		{Interpolation(""), Linear, "hold", "linear"},
		{Predictor(""), LinearPredictor, "constant", "linear"},
		{Policy(""), Accept, "stop", "accept"},
	} {
		if got := c.zero.String(); got != c.wantZero {
			t.Errorf("%T zero value: String() = %q, want %q", c.zero, got, c.wantZero)
		}
		if got := c.named.String(); got != c.wantNamed {
			t.Errorf("%T %q: String() = %q, want %q", c.named, c.wantNamed, got, c.wantNamed)
		}
	}
}
