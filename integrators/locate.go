package integrators

import "math"

// Event location shared by every driver that locates events: the
// adaptive drivers on their dense output, the fixed-step methods by
// re-stepping (see "Events" in the package documentation). What differs
// between them is only how the event function is evaluated at a trial
// time, which the caller passes as probe.

// crossed reports whether value v is on the far side of a crossing of an
// event with direction dir that started from ref ≠ 0.
func crossed(dir int, ref, v float64) bool {
	switch dir {
	case -1:
		return ref > 0 && v <= 0
	case 1:
		return ref < 0 && v >= 0
	}
	return (ref > 0 && v <= 0) || (ref < 0 && v >= 0)
}

// eventTolAt is the time tolerance of event location at time t:
// max(tol, 4ε|t|), so that the bracket can always shrink to it.
func eventTolAt(tol, t float64) float64 {
	return math.Max(tol, 4*0x1p-52*math.Abs(t))
}

// illinois locates the crossing of an event function g of direction dir
// in [lo, hi], where flo = g(lo) ≠ 0 is on the near side and fhi = g(hi)
// on the far side (crossed(dir, flo, fhi)), by the Illinois variant of
// regula falsi (Dowell & Jarratt, BIT 11, 168–174, 1971: the retained
// end's value is halved when the same end is kept twice) with a
// bisection every fourth iteration and whenever the secant point falls
// outside the bracket. It returns a point on the far side within
// eventTolAt(tol, base+hi) of the root, or the first trial point where g
// is exactly zero; hi itself when fhi is exactly zero (a root on the
// bracket's end: with the sign seen only at the ends, an earlier pair of
// crossings inside it is not seen). Every fourth trial bisects, so the
// bracket reaches the tolerance within 4·log₂((hi − lo)/tol) + 8 trials,
// the iteration limit. Times are offsets from base (base = 0 for
// absolute times).
//
// probe(c) evaluates g at c; the caller keeps whatever it needs of a
// far-side trial (a fixed-step driver the state there), knowing that the
// point returned is the last far-side trial, or hi itself when no trial
// landed on the far side. probe must not be retained.
func illinois(dir int, lo, flo, hi, fhi, base, tol float64, probe func(c float64) (float64, error)) (float64, error) {
	if fhi == 0 {
		return hi, nil
	}
	ref := flo
	side := 0
	maxIt := 4*int(math.Ceil(math.Log2(math.Max(1, (hi-lo)/tol)))) + 8
	for it := 0; it < maxIt; it++ {
		if hi-lo <= eventTolAt(tol, base+hi) {
			break
		}
		c := hi - fhi*(hi-lo)/(fhi-flo)
		if it%4 == 3 || !(c > lo && c < hi) {
			c = lo + 0.5*(hi-lo) // bisection safeguard
		}
		fc, err := probe(c)
		if err != nil {
			return 0, err
		}
		if fc == 0 {
			return c, nil
		}
		if crossed(dir, ref, fc) {
			hi, fhi = c, fc
			if side == 1 {
				flo /= 2
			}
			side = 1
		} else {
			lo, flo = c, fc
			if side == -1 {
				fhi /= 2
			}
			side = -1
		}
	}
	return hi, nil
}
