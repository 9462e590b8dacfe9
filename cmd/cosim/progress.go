package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cosimgo/cosim/graph"
)

// latest is the simulation time a run last reported to its progress
// display, shared between the run's goroutine (which stores) and the bar's
// (which loads).
type latest struct{ bits atomic.Uint64 }

func (l *latest) Report(t float64) { l.bits.Store(math.Float64bits(t)) }
func (l *latest) Time() float64    { return math.Float64frombits(l.bits.Load()) }

// progressBar draws the progress of a run on a terminal: nothing during
// the first second (short runs stay quiet), then a bar redrawn ten times
// a second, erased when the run ends. A nil *progressBar does nothing.
type progressBar struct {
	p    latest
	w    io.Writer
	end  float64
	what string
	done chan struct{}
	wg   sync.WaitGroup
	// count, when set, reports progress as a count (sweeps) instead of
	// the simulation time.
	count func() (done, total int)
	// now and ticks replace the clock and the redraw ticker in tests;
	// nil means time.Now and a 100 ms ticker.
	now   func() time.Time
	ticks <-chan time.Time
	// plain draws without escape sequences, for a terminal that has none
	// (TERM=dumb: Emacs shells, some CI consoles): the line is padded
	// with spaces over the last one, and erased with spaces.
	plain bool
}

// dumbTerminal reports TERM=dumb, a terminal without cursor control.
func dumbTerminal() bool { return os.Getenv("TERM") == "dumb" }

// progressDelay is how long a run goes before its bar shows, and
// progressEvery how often the bar is redrawn; tests shorten them.
var (
	progressDelay = time.Second
	progressEvery = 100 * time.Millisecond
)

// Progress display modes (--progress).
const (
	showAuto = "auto" // bar on a terminal, log lines otherwise
	showBar  = "bar"
	showLog  = "log"
	showNone = "none"
)

var progressModes = []string{showAuto, showBar, showLog, showNone}

// runProgress is the progress display of one run, driven by the graph's
// observer hook (graph.Observer): on a terminal a bar redrawn by its own
// goroutine from the last observed time, otherwise one log line (percent,
// simulated time, rate, ETA) every interval of wall time. A nil
// *runProgress shows nothing.
type runProgress struct {
	bar      *progressBar
	w        io.Writer // log lines; nil: no log
	interval time.Duration
	next     time.Duration // wall time of the next log line
	// Where the run is, for the interrupt message.
	t    float64
	step int
}

// newRunProgress starts the progress display of a run that ends at
// simulation time end, in mode (progressModes; quiet means none).
func newRunProgress(w io.Writer, mode string, quiet bool, interval time.Duration, end float64) *runProgress {
	if quiet {
		mode = showNone
	}
	p := &runProgress{interval: interval, next: interval}
	switch {
	case mode == showBar, mode == showAuto && stderrIsTerminal(w):
		p.bar = startProgress(w, end, "")
	case mode == showLog, mode == showAuto:
		p.w = w
	}
	return p
}

// Observe implements graph.Observer.
func (p *runProgress) Observe(v *graph.View) error {
	p.t, p.step = v.Time, v.Step
	if p.bar != nil {
		p.bar.p.Report(v.Time)
	}
	if p.w != nil && v.Phase == graph.ObserveStep && v.Wall >= p.next {
		p.next = v.Wall + p.interval
		fmt.Fprintln(p.w, progressLine(v))
	}
	return nil
}

// progressLine is the log line of a view: "progress: 42% t = 4.2 s of
// 10 s, step 4200, 0.42 s/s (1000 steps/s), ETA 14s".
func progressLine(v *graph.View) string {
	frac := v.Fraction()
	wall := v.Wall.Seconds()
	rate := ""
	if wall > 0 {
		rate = fmt.Sprintf(", %.3g simulated s per s (%.3g steps/s)", (v.Time-v.Start)/wall, float64(v.Step)/wall)
	}
	eta := "ETA unknown"
	if frac > 0 {
		eta = "ETA " + time.Duration(float64(v.Wall)*(1-frac)/frac).Round(time.Second).String()
	}
	return fmt.Sprintf("progress: %3.0f%% t = %s s of %s s, step %d%s, %s", 100*frac, fmtTime(v.Time), fmtTime(v.End), v.Step, rate, eta)
}

// stop ends the display. It is safe on a nil *runProgress.
func (p *runProgress) stop() {
	if p != nil {
		p.bar.stop()
	}
}

// observeEvery is how many steps of a fixed-step run pass between
// progress observations: often enough for a display, rarely enough to
// cost nothing next to the steps.
func observeEvery(steps int) int { return max(1, steps/10000) }

// stderrIsTerminal says whether the progress bar may draw on w; tests
// replace it.
var stderrIsTerminal = isTerminal

// newProgress starts the bar of a run that ends at simulation time end,
// or returns nil (no bar) with -q or when w is not a terminal.
func newProgress(w io.Writer, quiet bool, end float64) *progressBar {
	if quiet || !stderrIsTerminal(w) {
		return nil
	}
	return startProgress(w, end, "")
}

func startProgress(w io.Writer, end float64, what string) *progressBar {
	b := &progressBar{w: w, end: end, what: what, done: make(chan struct{}), plain: dumbTerminal()}
	b.start()
	return b
}

// startCountProgress starts a bar that shows count's done/total.
func startCountProgress(w io.Writer, count func() (int, int)) *progressBar {
	b := &progressBar{w: w, done: make(chan struct{}), count: count, plain: dumbTerminal()}
	b.start()
	return b
}

// startCountLog starts a display that logs count's done/total, the rate
// and an ETA every interval, one line each (for logs, not terminals).
func startCountLog(w io.Writer, count func() (int, int), interval time.Duration) *progressBar {
	b := &progressBar{w: w, done: make(chan struct{}), count: count}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		start := time.Now()
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-b.done:
				return
			case <-tick.C:
				d, n := count()
				el := time.Since(start)
				eta := "ETA unknown"
				if d > 0 {
					eta = "ETA " + (time.Duration(float64(el) * float64(n-d) / float64(d))).Round(time.Second).String()
				}
				fmt.Fprintf(w, "progress: %3.0f%% %d/%d runs, %.3g runs/s, %s\n", 100*float64(d)/float64(max(n, 1)), d, n, float64(d)/el.Seconds(), eta)
			}
		}
	}()
	return b
}

// start reads the start time before the drawing goroutine runs, so
// that the time a tick shows is measured from the call to start.
func (b *progressBar) start() {
	now := b.now
	if now == nil {
		now = time.Now
	}
	start := now()
	b.wg.Add(1)
	go b.loop(start)
}

func (b *progressBar) loop(start time.Time) {
	defer b.wg.Done()
	ticks := b.ticks
	if ticks == nil {
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		ticks = tick.C
	}
	drawn := 0 // the length of the line drawn last
	for {
		select {
		case <-b.done:
			switch {
			case drawn > 0 && b.plain:
				fmt.Fprint(b.w, "\r"+strings.Repeat(" ", drawn)+"\r")
			case drawn > 0:
				fmt.Fprint(b.w, "\r\033[K")
			}
			return
		case at := <-ticks:
			// The tick's own time, not a fresh reading: what a tick
			// shows is fixed when it is sent.
			elapsed := at.Sub(start)
			if elapsed < progressDelay {
				continue
			}
			line := b.line(elapsed)
			n := len([]rune(line))
			fmt.Fprint(b.w, "\r"+b.pad(line, drawn))
			drawn = n
		}
	}
}

func (b *progressBar) line(elapsed time.Duration) string {
	var frac float64
	var status string
	if b.count != nil {
		d, n := b.count()
		frac = float64(d) / float64(max(n, 1))
		status = fmt.Sprintf("%d/%d runs", d, n)
	} else {
		t := b.p.Time()
		frac = t / b.end
		status = fmt.Sprintf("t = %.4g / %.4g s", t, b.end)
	}
	frac = min(max(frac, 0), 1)
	const width = 30
	n := int(frac * width)
	eta := ""
	if frac > 0.01 {
		eta = fmt.Sprintf(", %v left", (time.Duration(float64(elapsed)/frac) - elapsed).Round(time.Second))
	}
	return fmt.Sprintf("[%s%s] %3.0f%% %s%s%s", strings.Repeat("#", n), strings.Repeat(".", width-n), 100*frac, status, eta, b.what)
}

// pad ends a line drawn over one of last runes: with spaces up to that
// length on a plain terminal, else with ESC[K (erase to the end of the
// line).
func (b *progressBar) pad(line string, last int) string {
	if b.plain {
		return line + strings.Repeat(" ", max(last-len([]rune(line)), 0))
	}
	return line + "\033[K"
}

// stop ends the bar and erases it. It is safe on a nil bar.
func (b *progressBar) stop() {
	if b == nil {
		return
	}
	close(b.done)
	b.wg.Wait()
}
