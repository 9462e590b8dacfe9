package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// startServe starts the built command "cosim view SCENE --serve
// 127.0.0.1:0" and returns it with the address it serves on (read from
// its first line of output).
func startServe(t *testing.T, scenePath string) (*exec.Cmd, string, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(binary(t), "view", "-q", scenePath, "--serve", "127.0.0.1:0")
	pr, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no address from cosim view --serve: %v; stderr: %s", err, errb.String())
	}
	_, rest, ok := strings.Cut(line, "http://")
	addr, _, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 {
		t.Fatalf("cannot read the address from %q", line)
	}
	go io.Copy(io.Discard, pr)
	return cmd, addr, &errb
}

// get sends GET path to addr with the given Host header.
func get(t *testing.T, addr, host, path string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", "http://"+addr+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode, string(b)
}

// TestServeHostAndSignal: cosim view --serve answers only requests whose
// Host names the address it is bound to (a DNS-rebinding page, whose Host
// is its own name, gets 421 and neither the page nor the frames), and a
// SIGINT stops it with exit status 130, as it stops cosim run.
func TestServeHostAndSignal(t *testing.T) {
	cmd, addr, errb := startServe(t, "../../examples/scenes/spring-damper.json")
	_, port, _ := net.SplitHostPort(addr)
	for _, c := range []struct {
		host string
		code int
	}{
		{addr, 200},
		{"localhost:" + port, 200},
		{"LOCALHOST:" + port, 200},
		{"evil.example:" + port, 421},
		{"evil.example", 421},
		{"127.0.0.1:1", 421},
		{"127.0.0.2:" + port, 421},
	} {
		for _, path := range []string{"/", "/events"} {
			if path == "/events" && c.code == 200 {
				continue // the stream lasts as long as the run; the page is enough
			}
			code, body := get(t, addr, c.host, path)
			if code != c.code {
				t.Errorf("GET %s with Host %q: %d, want %d", path, c.host, code, c.code)
			}
			if c.code != 200 && (strings.Contains(body, "cosim-data") || strings.Contains(body, "event:")) {
				t.Errorf("GET %s with Host %q leaked the page or the frames", path, c.host)
			}
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var exited atomic.Bool
	timer := time.AfterFunc(30*time.Second, func() { exited.Store(true); cmd.Process.Kill() })
	defer timer.Stop()
	err := cmd.Wait()
	var ee *exec.ExitError
	if exited.Load() || !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("after SIGINT: %v (exit %d), want exit 130; stderr:\n%s", err, cmd.ProcessState.ExitCode(), errb.String())
	}
	mustContain(t, "stderr", errb.String(), "interrupted by SIGINT")
}

// TestServeTimeouts: the server closes a connection whose request stalls
// half way through its headers once the read-header timeout passes, and
// an idle keep-alive connection after the idle timeout. The production
// timeouts are positive; the behaviour is checked with short ones.
func TestServeTimeouts(t *testing.T) {
	if serveReadHeaderTimeout <= 0 || serveIdleTimeout <= 0 {
		t.Fatalf("timeouts %v, %v: both must be set", serveReadHeaderTimeout, serveIdleTimeout)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	srv := newViewServer(h, ln.Addr(), 300*time.Millisecond, 300*time.Millisecond)
	go srv.Serve(ln)
	defer srv.Close()
	closedWithin := func(c net.Conn, d time.Duration) bool {
		c.SetReadDeadline(time.Now().Add(d))
		_, err := io.ReadAll(c)
		var ne net.Error
		return err == nil || !(errors.As(err, &ne) && ne.Timeout())
	}
	// Half a request: the headers never end.
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\nX-Slow: 1", ln.Addr())
	if !closedWithin(c, 5*time.Second) {
		t.Error("a half-sent request kept its connection open past the read-header timeout")
	}
	// A finished request on a keep-alive connection, then silence.
	c2, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	fmt.Fprintf(c2, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", ln.Addr())
	if !closedWithin(c2, 5*time.Second) {
		t.Error("an idle keep-alive connection stayed open past the idle timeout")
	}
}
