package main

import (
	"fmt"
	"io"
	"sync"

	"github.com/cosimgo/cosim/graph"
)

// This file prints the warnings of a run's start (the nodes whose stated
// stable step the run's dt exceeds, and a coupling scheme or fixed-step
// method unstable at dt over the run) for every command that runs a
// scene: cosim run (runWatch.warnStart), view and render (startWarner
// around their progress observer), sweep (once, after the runs, for the
// lowest-numbered run that warns) and fit (the analysis of the mode its
// runs use).

// printStartWarnings writes the step warnings and, when the analysis is
// unstable over the run, its warning, one "cosim: warning:" line each
// (prefix, when not empty, goes after "warning: ").
func printStartWarnings(w io.Writer, prefix string, ws []graph.StepWarning, r *graph.StabilityAnalysis) {
	for _, sw := range ws {
		fmt.Fprintf(w, "cosim: warning: %s%s\n", prefix, sw)
	}
	if r != nil && r.Unstable() {
		fmt.Fprintf(w, "cosim: warning: %s%s\n", prefix, r.Warning())
	}
}

// startWarner is an Observer that prints the start warnings of the run
// it observes (graph.View.Warnings and View.Stability: the run's own
// analysis, not a second one) at the start call, then passes every call
// on to next.
type startWarner struct {
	next   graph.Observer
	stderr io.Writer
}

// Observe implements graph.Observer.
func (o startWarner) Observe(v *graph.View) error {
	if v.Phase == graph.ObserveStart {
		printStartWarnings(o.stderr, "", v.Warnings, v.Stability)
	}
	return o.next.Observe(v)
}

// onceWarner collects the start warnings of several runs (a sweep's, run
// in parallel) and prints those of the lowest-numbered run that has any,
// naming it, and how many runs had some: once, after the runs, the same
// text whatever order the runs finished in.
type onceWarner struct {
	mu     sync.Mutex
	stderr io.Writer
	warned int
	first  int
	label  string
	res    *graph.Result
}

// run reports the start warnings of run k (label names it).
func (o *onceWarner) run(k int, label string, res *graph.Result) {
	if res == nil || len(res.Warnings) == 0 && (res.Stability == nil || !res.Stability.Unstable()) {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.warned++
	if o.res == nil || k < o.first {
		o.first, o.label, o.res = k, label, res
	}
}

// summary prints the first warned run's warnings and how many runs
// warned, when more than that one.
func (o *onceWarner) summary(runs int) {
	if o.res == nil {
		return
	}
	printStartWarnings(o.stderr, o.label+": ", o.res.Warnings, o.res.Stability)
	if o.warned > 1 {
		fmt.Fprintf(o.stderr, "cosim: warning: %d of %d runs started with such warnings (the first shown above)\n", o.warned, runs)
	}
}

// modeStartCheck is the start check Sim.Run makes for a run of sim in
// mode at step dt over steps steps (graph.Result.Warnings and
// Result.Stability), for a command whose runs do not go through Run (fit's
// sensitivity runs): the step warnings of a co-simulation and the
// analysis of its coupling scheme, or of a fixed-step monolithic method;
// an adaptive run has neither. The Sim is left as it was.
func modeStartCheck(sim *graph.Sim, mode graph.Mode, dt float64, steps int) ([]graph.StepWarning, *graph.StabilityAnalysis) {
	if !(dt > 0) {
		return nil, nil
	}
	switch m := mode.(type) {
	case graph.CoSimulation:
		ws, err := sim.StepWarnings(dt)
		if err != nil {
			ws = nil
		}
		r, err := sim.CheckStability(m.Coupling, dt, steps)
		if err != nil {
			r = nil
		}
		return ws, r
	case graph.Monolithic:
		r, err := sim.CheckMonolithicStability(m.Method, m.Options, dt, steps)
		if err != nil {
			r = nil
		}
		return nil, r
	}
	return nil, nil
}
