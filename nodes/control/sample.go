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
// co-simulation Update takes the due sample at the step time; in a
// monolithic run the block's event "sample" (node.Eventer) fires at the
// sample instant and its reset takes it, and the sample instants are
// time events (node.TimeEventer), so the adaptive Dormand–Prince
// integrator ends a step exactly on each one.
//
// Two limits of the integrators' event handling shape the event
// function. An event function that is zero at the start of a run (or of
// a step, after a reset) is unarmed there: its sign is probed a moment
// later (64 event tolerances, 6.4e-11 s at the default 1e-12 s). And the
// integrators apply one reset per located time: when several blocks'
// samples fall due at one instant, one of them is taken there and the
// others see their event function at zero, unarmed.
//
// So each sample instant s_j is followed by a short ladder of time
// events ℓ_{j,i} = s_j + i·L, i = 1 … ladderLevels, L = rung(s_j) =
// min(T_s/(4(ladderLevels+1)), 2e-9·max(1, |s_j|)) s, far above the
// probe and below any sample period. While sample j is due and not yet
// taken, the event function is t − ℓ_{j,i} up to the next rung: negative
// just after the instant and after each rung, exactly zero on each rung.
// Adaptive Dormand–Prince ends a step exactly on every rung (they are
// time events), so one more waiting block fires on each rung and the
// others see exactly zero again, unarmed, and wait for the next: up to
// ladderLevels + 1 blocks sharing an instant take their samples within
// ladderLevels·L of it (ladderLevels at the start of a run, whose own
// instant cannot fire). Fixed-step methods do not stop on time events:
// past the ladder the function turns positive, so that a fixed step
// ending there finds the crossing (located on the last rung), which lets
// one block take a sample due at the start and two share a later
// instant. A block still waiting half a period after its instant fires
// on the next instant instead, and a zero-order hold or unit delay that
// finds a sample skipped stops the run with an error
// (ErrSampleSkipped); a transport delay fills it by interpolation.
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

// timeEvents reports the sample instants and their rungs as
// node.TimeEventer does: the events are s_k, ℓ_{k,1}, …, ℓ_{k,R} for
// k = 0, 1, … (R = ladderLevels).
func (g grid) timeEvents(t float64) (int, float64, float64) {
	k := g.index(t)
	if k < 0 {
		return 0, math.Inf(-1), g.at(0)
	}
	i := 0
	for i < ladderLevels && g.ladder(k, i+1) <= t {
		i++
	}
	prev, next := g.ladder(k, i), g.at(k+1)
	if i < ladderLevels {
		next = g.ladder(k, i+1)
	}
	const per = ladderLevels + 1
	if k >= (math.MaxInt32-per)/per {
		// The count only serves parity; the neighbours are what graphs read.
		return math.MaxInt32, prev, next
	}
	return per*int(k) + 1 + i, prev, next
}

// near is the distance after a sample instant within which a step end
// counts as on it (the rounding of a fixed-step clock): 32ε|τ|, below
// the integrators' probe offset after an unarmed start (at least
// 256ε|t|).
func near(tau float64) float64 { return 32 * eps * math.Abs(tau) }

// ladderLevels is the number of rungs after each sample instant.
const ladderLevels = 4

// rung is the spacing L of the ladder after the instant tau (see grid).
func (g grid) rung(tau float64) float64 {
	return math.Min(g.period/(4*(ladderLevels+1)), 2e-9*math.Max(1, math.Abs(tau)))
}

// ladder is rung i of sample k: ℓ_{k,i} = s_k + i·L (ℓ_{k,0} = s_k).
func (g grid) ladder(k float64, i int) float64 {
	s := g.at(k)
	return s + float64(i)*g.rung(s)
}

// event is the value of the "sample" event function at t for a block
// that has taken samples up to m (see grid): negative while no sample is
// due, rising to zero on the next instant; for a sample due and not
// taken, zero on its instant (to rounding), then t − ℓ up to each rung,
// then positive, and after half a period negative again up to the next
// instant.
func (g grid) event(t, m float64) float64 {
	j := g.index(t)
	if j <= m {
		return t - g.at(m+1)
	}
	tau := g.at(j)
	d := t - tau
	if d <= near(tau) {
		return d
	}
	for i := 1; i <= ladderLevels; i++ {
		if l := g.ladder(j, i); t <= l {
			return t - l
		}
	}
	if d < g.period/2 {
		return t - g.ladder(j, ladderLevels)
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
	Description: "A sample instant: the reset takes the sample (zero on each instant, and on the rungs after it while the sample waits: see Assumptions)"}

// ErrSampleSkipped is the cause of a zero-order hold's or unit delay's
// error when a monolithic run did not take one of its samples (more
// sampled blocks shared an instant than the integrator's event handling
// can serve, see the package documentation).
var ErrSampleSkipped = errors.New("a sample was skipped")

// sampleNote is the assumption every sampled block states.
const sampleNote = "Samples are taken at $t_k = t_0 + k\\,T_s$. In co-simulation a sample is taken by the first step whose time is at or after $t_k$ " +
	"(on $t_k$ itself when the step divides the period: step and sample times that agree up to rounding count as equal; a step that does not divide " +
	"it takes the sample up to a step late and shows it from the next step). In a monolithic run the " +
	"`sample` event takes it: the sample instants and, after each, a ladder of four rungs $2\\cdot 10^{-9}\\max(1, |t_k|)$ s apart are time events, " +
	"so adaptive Dormand–Prince ends a step exactly on each. The integrators apply one event reset per located time: when several sampled blocks " +
	"share an instant, the first takes its sample on it and the others on the following rungs, one per rung"

// startNote is the limitation every sampled block states.
const startNote = "A monolithic run cannot fire an event at its very start, and its integrators apply one reset per located time. With adaptive " +
	"Dormand–Prince, a sample due at the start (offset 0 and a run from 0) is taken on the first rung, 2e-9 s later, with the input of that time, and " +
	"up to four sampled blocks may share the start and five any later instant (the later ones take theirs on the rungs, up to 8e-9 s late). " +
	"Fixed-step methods do not stop on time events: with them one block may take a sample due at the start (the others hold their initial output " +
	"until their next instant) and two may share a later instant. " +
	"A block whose sample could not be taken takes the next one instead: a zero-order hold or unit delay then stops the run with ErrSampleSkipped. " +
	"Co-simulation takes every sample at its step"
