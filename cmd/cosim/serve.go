package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"

	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// liveRun is a simulation running in the background for cosim view
// --serve: frames are appended as the run computes them, and every
// client of /events receives all frames so far, then each new one.
type liveRun struct {
	page []byte

	mu      sync.Mutex
	frames  [][]byte
	done    bool
	doneMsg string
	changed chan struct{} // closed and replaced on every change
}

func (lr *liveRun) add(frame []byte) {
	lr.mu.Lock()
	lr.frames = append(lr.frames, frame)
	close(lr.changed)
	lr.changed = make(chan struct{})
	lr.mu.Unlock()
}

func (lr *liveRun) finish(msg string) {
	lr.mu.Lock()
	lr.done, lr.doneMsg = true, msg
	close(lr.changed)
	lr.changed = make(chan struct{})
	lr.mu.Unlock()
}

// startLive compiles the scene and starts running it in a goroutine that
// stops with ctx; the page it serves streams the frames.
func startLive(ctx context.Context, sc *scene.Scene, path string, d drawFlags, cam cameraView) (*liveRun, error) {
	sim, err := sc.Compile(nodes.Registry(), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	st, err := newStage(sc, sim, d.set)
	if err != nil {
		return nil, err
	}
	if len(st.bodies) == 0 {
		return nil, fmt.Errorf("%s: %w", path, errNoDrawable)
	}
	// The plotted series: the scene's recorded fields, component by
	// component.
	var cols, units []string
	for _, f := range sc.Record.Fields {
		v, err := sim.Value(f)
		if err != nil {
			return nil, fmt.Errorf("%s: record.fields: %w", path, err)
		}
		if len(v) == 1 {
			cols = append(cols, f)
		} else {
			for k := range v {
				cols = append(cols, fmt.Sprintf("%s[%d]", f, k))
			}
		}
	}
	for _, c := range cols {
		units = append(units, columnUnits(sim, c))
	}
	data := newViewData(sc, path, st, cam)
	data.Live = true
	if len(cols) > 0 {
		data.Series = viewSeries{Columns: cols, Units: units}
	}
	page, err := renderPage(data)
	if err != nil {
		return nil, err
	}
	lr := &liveRun{page: page, changed: make(chan struct{})}
	frame := func() error {
		prims, err := st.draw()
		if err != nil {
			return err
		}
		vals := make([]float64, 0, len(cols))
		for _, f := range sc.Record.Fields {
			v, err := sim.Value(f)
			if err != nil {
				return err
			}
			vals = append(vals, v...)
		}
		lr.add(jsonFrame(sim.Time(), prims, vals))
		return nil
	}
	steps := sceneSteps(sc)
	every := frameEvery(steps, d.frames)
	go func() {
		err := frame()
		done := 0
		for err == nil && done < steps {
			k := min(every, steps-done)
			done += k
			tEnd := min(float64(done)*sc.Run.Dt, sc.EndTime())
			if err = advance(ctx, sc, sim, k, tEnd); err == nil {
				err = frame()
			}
		}
		if err != nil {
			lr.finish("run stopped: " + oneLine(err.Error()))
			return
		}
		lr.finish(fmt.Sprintf("done: t = %s s", fmtTime(sim.Time())))
	}()
	return lr, nil
}

// ServeHTTP serves the page at / and the frames as Server-Sent Events at
// /events: an event "frame" per frame (JSON), then one "done" event with
// a one-line summary.
func (lr *liveRun) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/", "/index.html":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(lr.page)
	case "/events":
		fl, ok := w.(http.Flusher)
		if !ok {
			http.Error(w, "streaming unsupported", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		sent := 0
		for {
			lr.mu.Lock()
			pending := lr.frames[sent:]
			done, msg, changed := lr.done, lr.doneMsg, lr.changed
			lr.mu.Unlock()
			for _, f := range pending {
				fmt.Fprintf(w, "event: frame\ndata: %s\n\n", f)
			}
			sent += len(pending)
			if done {
				fmt.Fprintf(w, "event: done\ndata: %s\n\n", msg)
				fl.Flush()
				return
			}
			fl.Flush()
			select {
			case <-changed:
			case <-r.Context().Done():
				return
			}
		}
	case "/favicon.ico":
		w.WriteHeader(http.StatusNoContent) // no icon, and no 404 in the console
	default:
		http.NotFound(w, r)
	}
}

// loopbackAddr checks that addr listens on this machine only.
func loopbackAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("--serve %q: want HOST:PORT, e.g. 127.0.0.1:8080", addr)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return usagef("--serve %q: serve on a loopback address (127.0.0.1, ::1 or localhost), not %q: the page is for this machine", addr, host)
	}
	return nil
}

// serveView runs the scene live and serves it until interrupted.
func serveView(ctx context.Context, sc *scene.Scene, path, addr string, d drawFlags, cam cameraView, stdout, stderr io.Writer) error {
	if err := loopbackAddr(addr); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	lr, err := startLive(ctx, sc, path, d, cam)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: lr}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	fmt.Fprintf(stdout, "serving %s on http://%s/ (Ctrl-C stops)\n", path, ln.Addr())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
