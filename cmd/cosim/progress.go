package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/cosimgo/cosim/scene"
)

// progressBar draws the progress of a run on a terminal: nothing during
// the first second (short runs stay quiet), then a bar redrawn ten times
// a second, erased when the run ends. A nil *progressBar does nothing.
type progressBar struct {
	p    scene.Progress
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
}

// progressDelay is how long a run goes before its bar shows, and
// progressEvery how often the bar is redrawn; tests shorten them.
var (
	progressDelay = time.Second
	progressEvery = 100 * time.Millisecond
)

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
	b := &progressBar{w: w, end: end, what: what, done: make(chan struct{})}
	b.start()
	return b
}

// startCountProgress starts a bar that shows count's done/total.
func startCountProgress(w io.Writer, count func() (int, int)) *progressBar {
	b := &progressBar{w: w, done: make(chan struct{}), count: count}
	b.start()
	return b
}

func (b *progressBar) start() {
	b.wg.Add(1)
	go b.loop()
}

func (b *progressBar) loop() {
	defer b.wg.Done()
	now := b.now
	if now == nil {
		now = time.Now
	}
	ticks := b.ticks
	if ticks == nil {
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		ticks = tick.C
	}
	start := now()
	drawn := false
	for {
		select {
		case <-b.done:
			if drawn {
				fmt.Fprint(b.w, "\r\033[K")
			}
			return
		case <-ticks:
			elapsed := now().Sub(start)
			if elapsed < progressDelay {
				continue
			}
			drawn = true
			fmt.Fprint(b.w, "\r"+b.line(elapsed))
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
	return fmt.Sprintf("[%s%s] %3.0f%% %s%s%s\033[K", strings.Repeat("#", n), strings.Repeat(".", width-n), 100*frac, status, eta, b.what)
}

// stop ends the bar and erases it. It is safe on a nil bar.
func (b *progressBar) stop() {
	if b == nil {
		return
	}
	close(b.done)
	b.wg.Wait()
}
