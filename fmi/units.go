package fmi

import (
	"strconv"
	"strings"
)

// Units: FMI unit names are free strings, mostly in Modelica's syntax
// ("m/s2", "kg.m2", "N.m", "s-1"); cosim's nodes spell units with spaces
// for products and ^ for powers ("m/s^2", "kg m^2", "N m", "1/s"), and a
// graph compares unit strings exactly. MapUnit rewrites a Modelica unit
// made of known symbols into cosim's spelling, and carries any other
// unit as it is, so that an edge between them fails with the graph's
// units error rather than passing silently. docs/fmi.md lists the rules
// with examples that TestUnitTableInDocs holds to this code.

// knownSymbols are the unit symbols MapUnit rewrites: the SI base and
// derived units (and a few others cosim's nodes use). A unit naming any
// other symbol (degC, bar, km, rpm) is carried as it is.
var knownSymbols = map[string]bool{
	"m": true, "s": true, "kg": true, "g": true, "A": true, "K": true, "mol": true, "cd": true,
	"rad": true, "sr": true, "Hz": true, "N": true, "Pa": true, "J": true, "W": true, "C": true,
	"V": true, "F": true, "Ohm": true, "S": true, "Wb": true, "T": true, "H": true, "lm": true,
	"lx": true, "Bq": true, "Gy": true, "Sv": true, "kat": true, "L": true, "l": true,
}

// MapUnit returns the cosim spelling of an FMI unit name: "" and "1"
// become "1"; a product of known symbols with integer powers in
// Modelica's syntax (factors joined by ".", one optional "/" with its
// own factors, powers written after the symbol, "s-1") becomes the same
// product with spaces and ^ ("kg.m2" → "kg m^2", "m/s2" → "m/s^2",
// "s-1" → "1/s", "m.s-2" → "m/s^2"); anything else is returned as it is.
func MapUnit(u string) string {
	u = strings.TrimSpace(u)
	if u == "" || u == "1" {
		return "1"
	}
	num, den, ok := parseUnit(u)
	if !ok {
		return u
	}
	return formatUnit(num, den)
}

type factor struct {
	sym string
	pow int
}

// parseUnit splits a Modelica unit into factors with positive powers
// (num) and the divided ones (den, positive powers), in order.
func parseUnit(u string) (num, den []factor, ok bool) {
	top, bottom, hasDiv := strings.Cut(u, "/")
	if strings.Contains(bottom, "/") {
		return nil, nil, false
	}
	add := func(part string, divided bool) bool {
		if part == "1" && !divided {
			return true
		}
		for _, f := range strings.Split(part, ".") {
			sym, pow, ok := splitPower(f)
			if !ok || !knownSymbols[sym] || pow == 0 {
				return false
			}
			if divided {
				pow = -pow
			}
			if pow > 0 {
				num = append(num, factor{sym, pow})
			} else {
				den = append(den, factor{sym, -pow})
			}
		}
		return true
	}
	if !add(top, false) {
		return nil, nil, false
	}
	if hasDiv && !add(bottom, true) {
		return nil, nil, false
	}
	return num, den, true
}

// splitPower splits "m2", "s-1", "kg" into the symbol and its power.
func splitPower(f string) (string, int, bool) {
	i := len(f)
	for i > 0 && (f[i-1] >= '0' && f[i-1] <= '9') {
		i--
	}
	if i > 0 && f[i-1] == '-' {
		i--
	}
	sym, p := f[:i], f[i:]
	if sym == "" {
		return "", 0, false
	}
	if p == "" {
		return sym, 1, true
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		return "", 0, false
	}
	return sym, n, true
}

func formatUnit(num, den []factor) string {
	join := func(fs []factor) string {
		parts := make([]string, len(fs))
		for i, f := range fs {
			parts[i] = f.sym
			if f.pow != 1 {
				parts[i] += "^" + strconv.Itoa(f.pow)
			}
		}
		return strings.Join(parts, " ")
	}
	top := join(num)
	if top == "" {
		top = "1"
	}
	if len(den) == 0 {
		return top
	}
	bottom := join(den)
	if len(den) > 1 {
		bottom = "(" + bottom + ")"
	}
	return top + "/" + bottom
}
