package textio

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrNotNumber is wrapped by every error of ParseNumber.
var ErrNotNumber = errors.New("not a number")

// NumberError is a text ParseNumber refuses, with the reason.
type NumberError struct {
	Text string // the text, as given
	Why  string // why it is refused ("hexadecimal is not accepted: write it in decimal")
}

func (e *NumberError) Error() string {
	return fmt.Sprintf("%q is not a number: %s", e.Text, e.Why)
}

// Unwrap returns ErrNotNumber.
func (e *NumberError) Unwrap() error { return ErrNotNumber }

// ParseNumber reads a decimal number: an optional sign, digits with an
// optional fraction ("12", "1.5", ".5", "3."), an optional exponent
// ("e-3", "E+10"), nothing else; or one of the words NaN, Inf, +Inf, -Inf
// in any case (the caller decides whether non-finite values are allowed).
// Digit separators ("1_0"), hexadecimal ("0x10", "0x1p-2"), spaces and
// values beyond the float64 range are errors (*NumberError) that say why.
func ParseNumber(s string) (float64, error) {
	switch strings.ToLower(s) {
	case "nan":
		return math.NaN(), nil
	case "inf", "+inf", "infinity", "+infinity":
		return math.Inf(1), nil
	case "-inf", "-infinity":
		return math.Inf(-1), nil
	}
	if why := syntax(s); why != "" {
		return 0, &NumberError{Text: s, Why: why}
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		// The grammar is ParseFloat's decimal subset, so only the range
		// can fail.
		return 0, &NumberError{Text: s, Why: "beyond the range of a float64 (±1.8e308)"}
	}
	return x, nil
}

// syntax returns why s is not a decimal number, or "" when it is one.
func syntax(s string) string {
	if s == "" {
		return "the text is empty"
	}
	if strings.TrimSpace(s) != s {
		return "spaces around it"
	}
	if strings.Contains(s, "_") {
		return "digit separators (\"_\") are not accepted"
	}
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 {
		return "more than one sign"
	}
	if l := strings.ToLower(body); strings.HasPrefix(l, "0x") || strings.HasPrefix(l, "0b") || strings.HasPrefix(l, "0o") {
		return "hexadecimal, binary and octal are not accepted: write it in decimal"
	}
	i, digits := 0, 0
	for i < len(body) && isDigit(body[i]) {
		i, digits = i+1, digits+1
	}
	if i < len(body) && body[i] == '.' {
		i++
		for i < len(body) && isDigit(body[i]) {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return "want a decimal number such as 12, -0.5 or 6.02e23"
	}
	if i < len(body) && (body[i] == 'e' || body[i] == 'E') {
		i++
		if i < len(body) && (body[i] == '+' || body[i] == '-') {
			i++
		}
		exp := 0
		for i < len(body) && isDigit(body[i]) {
			i, exp = i+1, exp+1
		}
		if exp == 0 {
			return "the exponent has no digits"
		}
	}
	if i != len(body) {
		return "want a decimal number such as 12, -0.5 or 6.02e23"
	}
	return ""
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
