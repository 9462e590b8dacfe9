package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

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
	lastT   float64 // the time of the last frame
	done    bool
	doneMsg string
	changed chan struct{} // closed and replaced on every change
}

func (lr *liveRun) add(t float64, frame []byte) {
	lr.mu.Lock()
	lr.frames = append(lr.frames, frame)
	lr.lastT = t
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
	if err := st.fitSizes(); err != nil {
		return nil, err
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
		data.Series = newSeries(cols, units)
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
		lr.add(sim.Time(), jsonFrame(sim.Time(), prims, vals))
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

// The timeouts of the --serve server. A client must send its request
// headers within serveReadHeaderTimeout (a connection that stalls half way
// through a request is closed, so it cannot hold a connection and its
// goroutine forever), and an idle keep-alive connection is closed after
// serveIdleTimeout. There is no write timeout: /events streams for as
// long as the run and the page last.
const (
	serveReadHeaderTimeout = 10 * time.Second
	serveIdleTimeout       = 60 * time.Second
)

// newViewServer returns the server of cosim view --serve for handler h
// listening on addr (host:port as bound): it answers only requests whose
// Host header names this server (see hostGuard) and has the given
// read-header and idle timeouts.
func newViewServer(h http.Handler, addr net.Addr, readHeader, idle time.Duration) *http.Server {
	return &http.Server{
		Handler:           hostGuard(h, addr),
		ReadHeaderTimeout: readHeader,
		IdleTimeout:       idle,
	}
}

// hostGuard answers only requests whose Host header is the loopback
// address the server is bound to — its IP, "localhost" or another
// loopback name of the same family, with the bound port. A page on another
// site that makes the browser resolve its own name to 127.0.0.1 (DNS
// rebinding) sends that name as Host and gets 421 Misdirected Request
// instead of the page and the run's frames.
func hostGuard(h http.Handler, addr net.Addr) http.Handler {
	tcp, _ := addr.(*net.TCPAddr)
	allowed := map[string]bool{}
	if tcp != nil {
		port := strconv.Itoa(tcp.Port)
		names := []string{tcp.IP.String(), "localhost"}
		if tcp.IP.To4() != nil {
			names = append(names, "127.0.0.1")
		} else {
			names = append(names, "::1")
		}
		for _, n := range names {
			allowed[strings.ToLower(net.JoinHostPort(n, port))] = true
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowed[strings.ToLower(r.Host)] {
			http.Error(w, fmt.Sprintf("cosim view --serve answers requests for %s only, not for Host %q", hostList(allowed), r.Host), http.StatusMisdirectedRequest)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func hostList(m map[string]bool) string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}

// serveView runs the scene live and serves it until interrupted: the first
// SIGINT or SIGTERM stops the run and the server, and the command exits
// 130 or 143 as cosim run does.
func serveView(ctx context.Context, sc *scene.Scene, path, addr string, d drawFlags, cam cameraView, stdout, stderr io.Writer) error {
	if err := loopbackAddr(addr); err != nil {
		return err
	}
	sctx, sig := watchSignals(stderr)
	defer sig.close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-sctx.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	lr, err := startLive(ctx, sc, path, d, cam)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := newViewServer(lr, ln.Addr(), serveReadHeaderTimeout, serveIdleTimeout)
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	fmt.Fprintf(stdout, "serving %s on http://%s/ (Ctrl-C stops)\n", path, ln.Addr())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	if s := sig.received(); s != nil {
		lr.mu.Lock()
		t, done := lr.lastT, lr.done
		lr.mu.Unlock()
		where := fmt.Sprintf("t = %s s of the run", fmtTime(t))
		if done {
			where = fmt.Sprintf("the end of the run (t = %s s)", fmtTime(t))
		}
		return &interrupted{sig: s, where: where + ", serving http://" + ln.Addr().String() + "/"}
	}
	return nil
}
