package control

import (
	"errors"
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
// co-simulation Update takes the due sample at the step time. In a
// monolithic run the sample instants s_k are time events
// (node.TimeEventer), on which every integrator of package integrators
// ends a step (or a sub-step of a fixed step) exactly, and the block's
// event "sample" (node.Eventer) fires there: its function is
// t − s_{j+1} up to the instant s_{j+1}, where it is exactly 0 while the
// sample is due (event), so it rises to zero on each instant from below;
// the reset takes the sample, after which it is t − s_{j+2} < 0 again.
// The integrators apply every event due at an instant, in event order,
// so any number of blocks sharing an instant each take their sample
// there, with the input of that instant. A run that starts on an instant
// starts on the event's crossing, and the integrators fire it at the
// start (an event zero at the start that arrives there from below); a
// run that starts between instants sees the function negative and takes
// its first sample on the next instant (the earlier ones are before the
// run). A block that finds a sample skipped — only an integrator that
// did not stop on the instants can skip one — stops the run with an
// error (ErrSampleSkipped) if it is a zero-order hold or a unit delay; a
// transport delay fills it by interpolation.
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

// nominal is τ_k = offset + k·period, for messages.
func (g grid) nominal(k float64) float64 { return g.offset + k*g.period }

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
	if k > maxIndex {
		// Beyond exact float counting (a run this long is refused by
		// checkIndex). The loops below must not run here: from 2^53 on,
		// k+1 rounds back to k and the first would never end.
		return k
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

// timeEvents reports the sample instants as node.TimeEventer does: the
// events are s_0, s_1, … and k counts those at or before t.
func (g grid) timeEvents(t float64) (int, float64, float64) {
	k := g.index(t)
	if k < 0 {
		return 0, math.Inf(-1), g.at(0)
	}
	n := math.MaxInt32
	if k < math.MaxInt32-1 {
		// The count only serves parity; the neighbours are what graphs read.
		n = int(k) + 1
	}
	return n, g.at(k), g.at(k + 1)
}

// near is the distance after a sample instant within which a time counts
// as on it (the rounding of a step time that equals τ_k in exact
// arithmetic: s_k is 8ε|τ_k| below τ_k), below the integrators' probe
// offset around an unarmed or starting event (at least 256ε|t|).
func near(tau float64) float64 { return 32 * eps * math.Abs(tau) }

// event is the value of the "sample" event function at t for a block
// that has taken samples up to m (see grid): exactly 0 on an instant
// whose sample is due and not taken (to rounding, within near), and
// t − s_{j+1} < 0 otherwise, j = index(t): rising to zero on the next
// instant, where the integrators stop.
func (g grid) event(t, m float64) float64 {
	j := g.index(t)
	if j > m && j >= 0 {
		if tau := g.at(j); t-tau <= near(tau) {
			return 0
		}
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
	Description: "A sample instant: the reset takes the sample (t − t_{k+1} before the instant t_{k+1}, exactly zero on it while the sample is due)"}

// ErrSampleSkipped is the cause of a zero-order hold's or unit delay's
// error when a monolithic run did not take one of its samples: its
// integrator stepped over a sample instant (the integrators of package
// integrators stop on every one, the instants being time events; a
// System that does not pass the graph's time events on loses samples).
var ErrSampleSkipped = errors.New("a sample was skipped")

// sampleNote is the assumption every sampled block states.
const sampleNote = "Samples are taken at $t_k = t_0 + k\\,T_s$. In co-simulation a sample is taken by the first step whose time is at or after $t_k$ " +
	"(on $t_k$ itself when the step divides the period: step and sample times that agree up to rounding count as equal; a step that does not divide " +
	"it takes the sample up to a step late and shows it from the next step). In a monolithic run the " +
	"`sample` event takes it: the sample instants are time events, on which every integrator (adaptive, and fixed-step between its steps) ends a step " +
	"exactly, and every event due at an instant fires there, so any number of sampled blocks sharing an instant each take their sample on it"

// startNote is the statement every sampled block makes about the start
// of a run.
const startNote = "A sample due at the start of a run (an instant on the start time) is taken at the start, in co-simulation by the first step and in a " +
	"monolithic run by the event, which the integrators fire there. A run that starts between instants takes its first sample on the next instant: " +
	"the output is `initial` until then"

// sampledChange is the sampled blocks' change to version 1.1.0.
var sampledChange = node.Change{Version: "1.1.0", Date: changeDate,
	Change: "Monolithic runs take every sample exactly on its instant, also at the start and when blocks share an instant: the integrators apply " +
		"every event due at an instant and fire the events due at the start (COSIM-ANO-005, resolved), so the ladder of time events after each " +
		"instant is gone and the event function is t − t_{k+1}"}
