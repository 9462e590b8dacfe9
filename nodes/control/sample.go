package control

import (
	"fmt"
	"math"

	"github.com/cosimgo/cosim/node"
)

// Sampling: the zero-order hold, the unit delay and the transport delay
// act at sample instants τ_k = offset + k·period, k = 0, 1, 2, …
//
// A co-simulation step time t0 + n·dt and a sample time offset + k·period
// that are equal in exact arithmetic may differ by a few units in the
// last place once rounded. The instants the blocks compare times with
// are therefore the floats s_k = τ_k − 8ε|τ_k| (ε = 2^−52), a hair
// earlier than τ_k: a step time that is τ_k up to rounding is at or after
// s_k and takes sample k, while the previous step, dt earlier, is not.
// Every decision — which sample is due, the time events, the event
// function — compares with these same floats, so they agree exactly.
//
// The state of a sampled block records the index m of the last sample it
// took (−1: none yet). Sample j is due at t when j = index(t) > m. In
// co-simulation Update takes the due sample at the step time; in a
// monolithic run the block's event "sample" (node.Eventer) fires at the
// sample instant and its reset takes it, and the sample instants are
// time events (node.TimeEventer), so the adaptive Dormand–Prince
// integrator ends a step exactly on each one.
//
// An event function that is zero at the start of a run is unarmed there
// (package integrators), so a sample due at the very start (the default:
// offset 0 and a run from t = 0) cannot fire as an ordinary crossing.
// The event function below makes it fire a short, fixed time after the
// start instead: lateBy(τ) = min(period/4, 1e-9·max(1, |τ|)) s, well
// above the integrators' probe after an unarmed start (64 event
// tolerances: 6.4e-11 s at the default 1e-12 s) and far below any
// sample period. With a coarser event tolerance the sample is taken on
// the next instant instead; no sample is ever silently skipped forever.
type grid struct {
	period, offset float64
}

// eps is the float64 machine epsilon, 2^−52.
const eps = 0x1p-52

// at is the sample instant s_k compared with (see above).
func (g grid) at(k float64) float64 {
	tau := g.offset + k*g.period
	return tau - 8*eps*math.Abs(tau)
}

// index is the index of the last sample instant at or before t, or −1
// before the first. It is exact with respect to at: at(index(t)) ≤ t <
// at(index(t)+1).
func (g grid) index(t float64) float64 {
	if !(t >= g.at(0)) {
		return -1
	}
	k := math.Floor((t - g.offset) / g.period)
	if k < 0 {
		k = 0
	}
	if k > 1<<53 {
		return k // beyond exact float counting: a run this long is refused by checkIndex
	}
	for g.at(k+1) <= t {
		k++
	}
	for k > 0 && g.at(k) > t {
		k--
	}
	return k
}

// maxIndex is the largest sample count held exactly in a float64 state.
const maxIndex = 1 << 52

// checkIndex refuses a time whose sample index a float64 no longer
// counts exactly.
func (g grid) checkIndex(typ string, t float64) error {
	if k := g.index(t); k > maxIndex {
		return fmt.Errorf("%s: t = %s is sample %s of period %s s: beyond the %s samples a float64 counts exactly", typ,
			node.FormatValue(t), node.FormatValue(k), node.FormatValue(g.period), node.FormatValue(float64(maxIndex)))
	}
	return nil
}

// timeEvents reports the sample instants as node.TimeEventer does.
func (g grid) timeEvents(t float64) (int, float64, float64) {
	k := g.index(t)
	if k < 0 {
		return 0, math.Inf(-1), g.at(0)
	}
	if k >= math.MaxInt32 {
		// The count only serves parity; the neighbours are what graphs read.
		return math.MaxInt32, g.at(k), g.at(k + 1)
	}
	return int(k) + 1, g.at(k), g.at(k + 1)
}

// near is the distance after a sample instant within which a step end
// counts as on it (the rounding of a fixed-step clock): 32ε|τ|, below
// the integrators' probe offset after an unarmed start (at least
// 256ε|t|).
func near(tau float64) float64 { return 32 * eps * math.Abs(tau) }

// lateBy is how long after the start a sample due at the start of a
// monolithic run fires (see grid).
func (g grid) lateBy(tau float64) float64 {
	return math.Min(g.period/4, 1e-9*math.Max(1, math.Abs(tau)))
}

// event is the value of the "sample" event function at t for a block
// that has taken samples up to m: negative while no sample is due, rising
// through zero at the next instant; for a sample already due (a run that
// started on or after it) zero on its instant, then negative for
// lateBy, then positive, and, should the integrator's probe have missed
// that, rising through zero again on the next instant.
func (g grid) event(t, m float64) float64 {
	j := g.index(t)
	if j <= m {
		return t - g.at(m+1)
	}
	tau := g.at(j)
	d := t - tau
	switch {
	case d <= near(tau):
		return d
	case d < g.period/2:
		return d - g.lateBy(tau)
	}
	return t - g.at(j+1)
}

// Parameters of every sampled block.
var (
	sampleTimeParam = node.Param{Name: "sample_time", Kind: node.Real, Default: 0.1, Units: "s", Range: node.Positive(),
		Description: "Sample period $T_s$: samples are taken at $t_k = t_0 + k\\,T_s$, $k = 0, 1, \\dots$ (time events)"}
	offsetParam = node.Param{Name: "offset", Kind: node.Real, Default: 0.0, Units: "s", Range: node.NonNegative(),
		Description: "Time $t_0$ of the first sample"}
)

// sampleEvent is the event every sampled block declares.
var sampleEvent = node.Event{Name: "sample", Direction: 1,
	Description: "A sample instant: the reset takes the sample (rises through zero at each instant; see the package documentation for a sample due at the start of a run)"}

// sampleNote is the assumption every sampled block states.
const sampleNote = "Samples are taken at $t_k = t_0 + k\\,T_s$. In co-simulation a sample is taken by the first step whose time is at or after $t_k$ " +
	"(on $t_k$ itself when the step divides the period: step and sample times that agree up to rounding count as equal); in a monolithic run the " +
	"`sample` event takes it at $t_k$, and the sample instants are time events, so adaptive Dormand–Prince ends a step exactly on each"

// startNote is the limitation every sampled block states.
const startNote = "A monolithic run cannot fire an event at its very start: a sample due at the start (offset 0 and a run from 0) is taken " +
	"$\\min(T_s/4,\\ 10^{-9}\\max(1, |t_k|))$ s later, with the input of that time; with an event tolerance above about 1e-11 s it is taken " +
	"on the next instant instead. Co-simulation takes it at the start"
