package graph

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// siPrefixes are the one-character SI prefixes (and "u" for micro, as
// ASCII units write it).
var siPrefixes = map[rune]float64{
	'q': 1e-30, 'r': 1e-27, 'y': 1e-24, 'z': 1e-21, 'a': 1e-18, 'f': 1e-15, 'p': 1e-12, 'n': 1e-9,
	'µ': 1e-6, 'μ': 1e-6, 'u': 1e-6, 'm': 1e-3, 'c': 1e-2, 'd': 1e-1,
	'h': 1e2, 'k': 1e3, 'M': 1e6, 'G': 1e9, 'T': 1e12, 'P': 1e15, 'E': 1e18, 'Z': 1e21, 'Y': 1e24, 'R': 1e27, 'Q': 1e30,
}

// prefixFactor returns the factor that converts a value in units from to
// units to when the two differ only by an SI prefix on their first
// symbol ("kN" → "N": 1000; "mm/s" → "m/s": 0.001); ok is false
// otherwise. A unit is read without a prefix first, so "m" is the metre
// and "Pa" the pascal.
func prefixFactor(from, to string) (f float64, ok bool) {
	type reading struct {
		p    float64 // the prefix's factor; 0: no such reading
		base string
	}
	read := func(u string) [2]reading {
		u = strings.TrimSpace(u)
		out := [2]reading{{1, u}, {}}
		r, n := utf8.DecodeRuneInString(u)
		if p, isP := siPrefixes[r]; isP && len(u) > n {
			out[1] = reading{p, u[n:]}
		}
		return out
	}
	for _, x := range read(from) {
		for _, y := range read(to) {
			if x.p != 0 && y.p != 0 && x.base != "" && x.base == y.base {
				return x.p / y.p, true
			}
		}
	}
	return 0, false
}

// scaleSuggestion is the transform Build suggests for an edge from units
// from into units to, written so that it works as given: with the factor
// when the units differ by an SI prefix, else with factor 1 and what that
// assumes.
func scaleSuggestion(from, to string) string {
	if f, ok := prefixFactor(from, to); ok {
		return fmt.Sprintf("graph.Scale{Factor: %s, From: %q, To: %q}", strconv.FormatFloat(f, 'g', -1, 64), from, to)
	}
	return fmt.Sprintf("graph.Scale{Factor: 1, From: %q, To: %q} if the source's values are already %q, otherwise with the factor that converts one %q into %q", from, to, to, from, to)
}

// transformProblem describes what is wrong with an edge's transform in
// itself, or returns "": a Scale whose factor is zero (the zero value, a
// Scale given only units) would zero the value the edge carries, and a
// non-finite one would make it non-finite; a TransformFunc needs F.
func transformProblem(t Transform, from, to string) string {
	switch t := t.(type) {
	case Scale:
		switch {
		case t.Factor == 0:
			u := ""
			if t.From != "" || t.To != "" {
				from, to = t.From, t.To
				u = "; a unit conversion needs the factor too"
			}
			return fmt.Sprintf("Scale has Factor 0, which would zero the value%s: use %s", u, scaleSuggestion(from, to))
		case math.IsNaN(t.Factor) || math.IsInf(t.Factor, 0):
			return fmt.Sprintf("Scale has Factor %v, which is not finite", t.Factor)
		}
	case TransformFunc:
		if t.F == nil {
			return fmt.Sprintf("TransformFunc %q has no function F", t.Label)
		}
	}
	return ""
}
