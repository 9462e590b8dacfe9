package graph

import (
	"errors"
	"fmt"
	"math"
)

// This file runs the stability analysis (stability.go) when a
// co-simulation or a fixed-step monolithic run starts and watches a
// co-simulation the run for exponential growth of the
// state that nothing explains, stopping it with a *GrowthError.
//
// The watch samples d = max_i |x_i − x_i(start)|, the largest change of
// any state value since the run started, every growthStride steps (one
// pass over the state, no allocation). It ignores d until it exceeds a
// floor (1e-9 of the largest state magnitude, at least 1e-9), takes that
// value as its base, and records the time at which d's running maximum
// crosses each doubling of the base (interpolated in log2 d between
// samples, so that several doublings within one sample are timed too).
// Exponential growth doubles at a constant interval; polynomial growth
// (a falling body, a ramp) at intervals that lengthen (t^p doubles when
// t grows by 2^(1/p)). The watch fires when the last growthIntervals
// intervals are all positive, their largest is at most twice the
// smallest and the mean of the last two is at most 1.25 times the mean
// of the first two — polynomial growth of degree up to 9 fails that —
// and the growth is not explained:
//
//   - by the physics: the linearised system's growth rate at the start
//     (StabilityAnalysis.Growth) is at least half the observed rate;
//   - by an input: the largest output of the graph's sources (stateless
//     nodes without inputs) grew since the run started at an average
//     exponential rate of at least half the observed one, or from zero.
//
// CoSimulation.AllowGrowth turns the watch off; monolithic runs are not
// watched (their integrators have stability regions of their own).

const (
	growthStride    = 16   // steps between samples of the state
	growthIntervals = 5    // doubling intervals that must agree
	growthSpread    = 2    // largest/smallest interval, at most
	growthTrend     = 1.25 // mean of the last two / mean of the first two, at most
)

// ErrGrowth is the errors.Is target of a *GrowthError.
var ErrGrowth = errors.New("graph: unexplained exponential growth")

// GrowthError stops a co-simulation whose state grows exponentially
// without a physical or input cause: almost always a coupling scheme
// that is unstable at the step (Sim.Stability). The state is left at the
// step that revealed it.
type GrowthError struct {
	Step int     // the step, counted as in node.StateError
	Time float64 // s
	// Component is the state value furthest from its start value,
	// "node.field[i]", and Change how far it is.
	Component string
	Change    float64
	// Doubling is the mean doubling time of the change over the last
	// doublings (s), Rate = ln 2/Doubling (1/s).
	Doubling, Rate float64
	// Physical is the linearised system's growth rate at the start
	// (StabilityAnalysis.Growth), NaN when unknown.
	Physical float64
	// Strategy is the coupling strategy's text.
	Strategy string
	// Dt is the step.
	Dt float64
}

func (e *GrowthError) Error() string {
	phys := "unknown"
	if !math.IsNaN(e.Physical) {
		phys = fmtNum(e.Physical) + "/s"
	}
	return fmt.Sprintf("graph: step %d, t = %s s: the state grows exponentially, doubling every %s s (rate %s/s; %s is %s from its value at the start), and neither the physics (growth rate of the linearised system: %s) nor an input explains it: coupling %s is likely unstable at dt = %s s; shorten the step or change the scheme (cosim check SCENE tells which are stable), or set run.allow_growth (graph.CoSimulation.AllowGrowth) to let it grow",
		e.Step, fmtNum(e.Time), fmtNum(e.Doubling), fmtNum(e.Rate), e.Component, fmtNum(e.Change), phys, e.Strategy, fmtNum(e.Dt))
}

// Unwrap makes errors.Is(err, ErrGrowth) true.
func (e *GrowthError) Unwrap() error { return ErrGrowth }

// stabilityState is what a Sim keeps of the stability checks: the
// analyses of the strategies and steps it ran with (the first Run with
// each linearises at its start state), and the growth watch, whose
// buffers are reused from Run to Run.
type stabilityState struct {
	done  map[stabKey]*StabilityAnalysis
	watch growthWatch
}

// maxAnalyses bounds the analyses a Sim keeps.
const maxAnalyses = 16

type stabKey struct {
	strategy string
	dt       float64
}

// startStability analyses the run's strategy at its step (once per
// strategy and step, linearised at the state of the first Run with
// them), judges it over the run's steps (StabilityAnalysis.Over), puts
// the analysis in res.Stability, and returns the growth watch for the
// run (nil with CoSimulation.AllowGrowth).
func (s *Sim) startStability(mode CoSimulation, set Settings, steps int, res *Result) *growthWatch {
	key := stabKey{strategyKey(mode.Coupling), set.Dt}
	res.Stability = s.cachedStability(key, steps, func() (*StabilityAnalysis, error) {
		return s.stability(mode.Coupling, set.Dt, false, steps)
	})
	if mode.AllowGrowth {
		return nil
	}
	w := &s.stab.watch
	w.start(s, mode, set, res.Stability)
	return w
}

// startMonolithicStability is startStability for a fixed-step
// monolithic run: the analysis of one step of its method on the graph's
// System (Sim.MonolithicStability). Monolithic runs have no growth
// watch.
func (s *Sim) startMonolithicStability(mode Monolithic, set Settings, steps int, res *Result) {
	key := stabKey{"monolithic " + mode.Method.Name() + fmt.Sprintf(" %+v %+v", mode.Method, mode.Options), set.Dt}
	res.Stability = s.cachedStability(key, steps, func() (*StabilityAnalysis, error) {
		return s.monolithicStability(mode.Method, mode.Options, set.Dt, false, steps, bySize)
	})
}

// cachedStability returns the kept analysis for key judged over steps,
// computing it with analyse when there is none, when this run affords a
// finer analysis than the kept one's (a plan of more passes: the kept one
// was made for a shorter run, see startPlan), or when the kept one warns
// over this run but was computed for a run it did not warn over (without
// the stable step a warning names).
func (s *Sim) cachedStability(key stabKey, steps int, analyse func() (*StabilityAnalysis, error)) *StabilityAnalysis {
	if s.stab == nil {
		s.stab = &stabilityState{done: map[stabKey]*StabilityAnalysis{}}
	}
	if r, ok := s.stab.done[key]; ok && !(r.Skipped == "" || r.short) || ok && startPasses(len(s.state), steps) <= r.passes {
		// (A run too short to be analysed leaves a mark, and a short run
		// a cruder analysis, that a longer run affording a finer one
		// replaces.)
		r = r.Over(steps)
		if c, ok := r.Chosen(); !ok || !r.Unstable() || c.Searched {
			return r
		}
	}
	r, err := analyse()
	if err != nil {
		r = &StabilityAnalysis{Time: s.Time(), Dt: key.dt, States: len(s.state), Bound: 1, Skipped: err.Error(), Steps: max(steps, 0)}
	}
	if s.ctx != nil && s.ctx.Err() != nil {
		return r // cancelled: not analysed for this run only
	}
	if len(s.stab.done) >= maxAnalyses {
		clear(s.stab.done) // a caller varying the step: keep the memory bounded
	}
	s.stab.done[key] = r
	return r
}

// growthWatch watches one run (see the top of this file).
type growthWatch struct {
	x0       []float64
	floor    float64
	base     float64 // 0 until d first exceeds floor
	level    float64 // log2(max d / base) so far
	top      float64 // max d so far (from base on)
	lastStep int
	times    [growthIntervals + 1]float64 // steps of the last doublings, a ring
	count    int                          // doublings so far
	off      bool
	srcs     []int32 // source nodes
	src0     float64 // their largest output at the start
	phys     float64
	strategy string
	dt       float64
}

// start resets the watch for a run from the Sim's current state.
func (w *growthWatch) start(s *Sim, mode CoSimulation, set Settings, r *StabilityAnalysis) {
	w.x0 = append(w.x0[:0], s.state...)
	m := 0.0
	for _, v := range s.state {
		m = max(m, math.Abs(v))
	}
	w.floor = 1e-9 * max(m, 1)
	w.base, w.level, w.lastStep, w.count, w.off = 0, 0, 0, 0, false
	w.phys, w.strategy, w.dt = math.NaN(), strategyKey(mode.Coupling), set.Dt
	if r.GrowthKnown {
		w.phys = r.Growth
	}
	w.srcs = w.srcs[:0]
	for i := range s.nodes {
		c := &s.nodes[i]
		if c.x1 == c.x0 && c.g1 == c.g0 && c.y1 > c.y0 {
			w.srcs = append(w.srcs, int32(i))
		}
	}
	w.src0 = s.sourceMagnitude(w.srcs)
}

// sourceMagnitude evaluates the source nodes' outputs at the current
// time and returns the largest magnitude (NaN when one fails: the step
// will report it).
func (s *Sim) sourceMagnitude(srcs []int32) float64 {
	if len(srcs) == 0 {
		return 0
	}
	if err := s.runNodes(phaseOutputs, srcs, s.Time(), 0); err != nil {
		return math.NaN()
	}
	m := 0.0
	for _, i := range srcs {
		c := &s.nodes[i]
		for _, v := range s.outputs[c.y0:c.y1] {
			m = max(m, math.Abs(v))
		}
	}
	return m
}

// sample is called after step `step` of the run (every growthStride
// steps); it returns a *GrowthError when the watch fires. It does not
// allocate.
func (w *growthWatch) sample(s *Sim, step int) error {
	if w.off {
		return nil
	}
	x0 := w.x0[:len(s.state)]
	d := 0.0
	for i, v := range s.state {
		if e := math.Abs(v - x0[i]); e > d {
			d = e
		}
	}
	if w.base == 0 {
		if d > w.floor {
			w.base, w.level, w.lastStep, w.top = d, 0, step, d
		}
		return nil
	}
	if !(d > w.top) {
		// No new maximum: log2(d/base) is at most level, below the next
		// doubling, and level (the running maximum) stays; the logarithm
		// is not needed. In a run that does not grow, most samples.
		w.lastStep = step
		return nil
	}
	w.top = d
	l := math.Log2(d / w.base)
	if !(l >= math.Floor(w.level)+1) {
		w.level, w.lastStep = max(w.level, l), step
		return nil
	}
	// Time every doubling crossed since the last sample.
	for k := math.Floor(w.level) + 1; k <= l; k++ {
		at := float64(w.lastStep) + (k-w.level)/(l-w.level)*float64(step-w.lastStep)
		w.times[w.count%len(w.times)] = at
		w.count++
	}
	w.level, w.lastStep = l, step
	if w.count < len(w.times) {
		return nil
	}
	var iv [growthIntervals]float64
	for k := range iv {
		a := w.times[(w.count+k)%len(w.times)]
		b := w.times[(w.count+k+1)%len(w.times)]
		iv[k] = b - a
	}
	lo, hi, sum := math.Inf(1), 0.0, 0.0
	for _, v := range iv {
		lo, hi, sum = min(lo, v), max(hi, v), sum+v
	}
	first, last := iv[0]+iv[1], iv[growthIntervals-2]+iv[growthIntervals-1]
	if !(lo > 0) || hi > growthSpread*lo || last > growthTrend*first {
		return nil
	}
	doubling := sum / growthIntervals * w.dt
	rate := math.Ln2 / doubling
	if w.phys >= rate/2 {
		w.off = true // the physics grows as fast: not the coupling
		return nil
	}
	if src := s.sourceMagnitude(w.srcs); math.IsNaN(src) || src > 0 && (w.src0 == 0 || math.Log(src/w.src0)/(float64(step)*w.dt) >= rate/2) {
		w.off = true // an input grows as fast
		return nil
	}
	arg := -1 // the component furthest from its start, the first of equals
	for i, v := range s.state {
		if math.Abs(v-x0[i]) == d {
			arg = i
			break
		}
	}
	return &GrowthError{Step: s.steps, Time: s.Time(), Component: s.componentName(arg), Change: d,
		Doubling: doubling, Rate: rate, Physical: w.phys, Strategy: w.strategy, Dt: w.dt}
}
