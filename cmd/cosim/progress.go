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
}

const progressDelay = time.Second

func startProgress(w io.Writer, end float64, what string) *progressBar {
	b := &progressBar{w: w, end: end, what: what, done: make(chan struct{})}
	b.wg.Add(1)
	go b.loop()
	return b
}

func (b *progressBar) loop() {
	defer b.wg.Done()
	start := time.Now()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	drawn := false
	for {
		select {
		case <-b.done:
			if drawn {
				fmt.Fprint(b.w, "\r\033[K")
			}
			return
		case <-tick.C:
			if time.Since(start) < progressDelay {
				continue
			}
			drawn = true
			fmt.Fprint(b.w, "\r"+b.line(time.Since(start)))
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
