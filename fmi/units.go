package fmi

import (
	"math"
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

// siBase gives every known symbol in SI base units (FMI's <BaseUnit>
// exponents kg, m, s, A, K, mol, cd, rad and a factor).
var siBase = map[string]BaseUnit{
	"m": {M: 1, Factor: 1}, "s": {S: 1, Factor: 1}, "kg": {Kg: 1, Factor: 1}, "g": {Kg: 1, Factor: 1e-3},
	"A": {A: 1, Factor: 1}, "K": {K: 1, Factor: 1}, "mol": {Mol: 1, Factor: 1}, "cd": {Cd: 1, Factor: 1},
	"rad": {Rad: 1, Factor: 1}, "sr": {Rad: 2, Factor: 1}, "Hz": {S: -1, Factor: 1},
	"N": {Kg: 1, M: 1, S: -2, Factor: 1}, "Pa": {Kg: 1, M: -1, S: -2, Factor: 1}, "J": {Kg: 1, M: 2, S: -2, Factor: 1},
	"W": {Kg: 1, M: 2, S: -3, Factor: 1}, "C": {A: 1, S: 1, Factor: 1}, "V": {Kg: 1, M: 2, S: -3, A: -1, Factor: 1},
	"F": {Kg: -1, M: -2, S: 4, A: 2, Factor: 1}, "Ohm": {Kg: 1, M: 2, S: -3, A: -2, Factor: 1},
	"S": {Kg: -1, M: -2, S: 3, A: 2, Factor: 1}, "Wb": {Kg: 1, M: 2, S: -2, A: -1, Factor: 1},
	"T": {Kg: 1, S: -2, A: -1, Factor: 1}, "H": {Kg: 1, M: 2, S: -2, A: -2, Factor: 1},
	"lm": {Cd: 1, Rad: 2, Factor: 1}, "lx": {Cd: 1, Rad: 2, M: -2, Factor: 1}, "Bq": {S: -1, Factor: 1},
	"Gy": {M: 2, S: -2, Factor: 1}, "Sv": {M: 2, S: -2, Factor: 1}, "kat": {Mol: 1, S: -1, Factor: 1},
	"L": {M: 3, Factor: 1e-3}, "l": {M: 3, Factor: 1e-3},
}

// UnitDefinition returns the FMI unit of a unit in cosim's spelling, for
// writing a model description: its name in Modelica's syntax, which
// MapUnit reads back into the same cosim spelling ("m/s^2" → "m/s2",
// "kg m^2" → "kg.m2", "N s/m" → "N.s/m", "kg/(m s^2)" → "kg.m-1.s-2"),
// and its definition in SI base units. ok is false for a dimensionless
// unit ("", "1") and for a unit that is not a product of known symbols
// with integer powers (such a unit has no FMI form cosim can vouch for).
func UnitDefinition(u string) (unit Unit, ok bool) {
	u = strings.TrimSpace(u)
	if u == "" || u == "1" {
		return Unit{}, false
	}
	num, den, ok := parseCosimUnit(u)
	if !ok {
		return Unit{}, false
	}
	base := BaseUnit{Factor: 1}
	add := func(fs []factor, sign int) {
		for _, f := range fs {
			b := siBase[f.sym]
			p := sign * f.pow
			base.Kg += p * b.Kg
			base.M += p * b.M
			base.S += p * b.S
			base.A += p * b.A
			base.K += p * b.K
			base.Mol += p * b.Mol
			base.Cd += p * b.Cd
			base.Rad += p * b.Rad
			base.Factor *= math.Pow(b.Factor, float64(p))
		}
	}
	add(num, 1)
	add(den, -1)
	parts := func(fs []factor, sign int) []string {
		out := make([]string, len(fs))
		for i, f := range fs {
			out[i] = f.sym
			if p := sign * f.pow; p != 1 {
				out[i] += strconv.Itoa(p)
			}
		}
		return out
	}
	var name string
	switch {
	case len(den) == 0:
		name = strings.Join(parts(num, 1), ".")
	case len(den) == 1 && len(num) > 0:
		name = strings.Join(parts(num, 1), ".") + "/" + strings.Join(parts(den, 1), ".")
	default:
		name = strings.Join(append(parts(num, 1), parts(den, -1)...), ".")
	}
	return Unit{Name: name, Base: &base}, true
}

// parseCosimUnit splits a unit in cosim's spelling ("kg m^2", "N s/m",
// "1/s", "kg/(m s^2)") into its factors with positive powers (num) and
// the divided ones (den).
func parseCosimUnit(u string) (num, den []factor, ok bool) {
	top, bottom, hasDiv := strings.Cut(u, "/")
	if strings.Contains(bottom, "/") {
		return nil, nil, false
	}
	if strings.HasPrefix(bottom, "(") != strings.HasSuffix(bottom, ")") {
		return nil, nil, false
	}
	bottom = strings.TrimSuffix(strings.TrimPrefix(bottom, "("), ")")
	add := func(part string, divided bool) bool {
		part = strings.TrimSpace(part)
		if part == "1" && !divided {
			return true
		}
		fs := strings.Fields(part)
		if len(fs) == 0 {
			return false
		}
		for _, f := range fs {
			sym, p, _ := strings.Cut(f, "^")
			pow := 1
			if p != "" {
				n, err := strconv.Atoi(p)
				if err != nil || n == 0 {
					return false
				}
				pow = n
			}
			if !knownSymbols[sym] {
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
	if !add(top, false) || hasDiv && !add(bottom, true) {
		return nil, nil, false
	}
	return num, den, true
}
