package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"math"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// browser starts Debian's chromium headless for a test, or skips the
// test when there is none, except under CI (CI=true), where .ci/run
// installs it and its absence is a failure.
func browser(t *testing.T) context.Context {
	t.Helper()
	var path string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no chromium on PATH under CI: .ci/run installs it (apt-get install -y chromium)")
		}
		t.Skip("no chromium on PATH: install it (apt-get install -y chromium) to run the browser tests")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		// WebGL through SwiftShader, the software renderer chromium ships:
		// the same pixels whatever GPU the machine has (or none).
		chromedp.Flag("use-angle", "swiftshader"),
		chromedp.Flag("enable-unsafe-swiftshader", true),
		chromedp.Flag("force-device-scale-factor", "1"),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1100, 700),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelA() })
	// Start the browser now, without a timeout (a timeout on the first
	// Run would stop the browser with it).
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return ctx
}

// consoleProblems collects the page's console errors and exceptions until
// it logs the marker.
func consoleProblems(t *testing.T, ctx context.Context, msgs func(func(chromedp.ConsoleMessage, error) bool), marker string) []string {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf("console.log(%q)", marker))); err != nil {
		t.Fatal(err)
	}
	var bad []string
	for m, err := range msgs {
		if err != nil {
			t.Fatalf("reading the console: %v", err)
		}
		if m.Type == chromedp.ConsoleLog && m.Text == marker {
			break
		}
		// Chromium's GL driver reports the stall a screenshot of a WebGL
		// canvas causes ("GPU stall due to ReadPixels"): the test's own
		// doing, not the page's.
		if strings.Contains(m.Text, "GL Driver Message") && strings.Contains(m.Text, "Performance") {
			continue
		}
		if m.Type == chromedp.ConsoleError || m.IsException() || m.Type == chromedp.ConsoleWarning {
			bad = append(bad, m.String())
		}
	}
	return bad
}

type anchor = []float64

// TestViewInBrowser opens the page cosim view writes for the mass-spring
// chain in headless chromium: it loads without console errors, draws the
// 8 bodies (4 masses, 4 connectors), moving the time slider moves them,
// the screenshot of the 3D view is not blank, and the page's coil helix
// is node.CoilPoints's.
func TestViewInBrowser(t *testing.T) {
	ctx := browser(t)
	file := filepath.Join(t.TempDir(), "chain.html")
	if code, _, errs := cosim(t, "view", "-q", "../../examples/scenes/mass-spring-chain.json", "-o", file); code != 0 {
		t.Fatalf("cosim view: exit %d: %s", code, errs)
	}
	cctx, cancelC := context.WithCancel(ctx)
	defer cancelC()
	msgs := chromedp.Console(cctx)
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.Navigate("file://"+file)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`window.cosimView && window.cosimView.ready === true`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the page never became ready: %v; console: %s", err, strings.Join(consoleProblems(t, ctx, msgs, "cosim-test-fail"), "\n"))
	}
	bodies, err := chromedp.Run(tctx, chromedp.Evaluate[int](`cosimView.bodies`))
	if err != nil || bodies != 8 {
		t.Errorf("bodies drawn = %d (%v), want 8 (m1…m4, s1…s4)", bodies, err)
	}
	frames, err := chromedp.Run(tctx, chromedp.Evaluate[int](`cosimView.frames`))
	if err != nil || frames < 100 {
		t.Errorf("frames = %d (%v), want hundreds", frames, err)
	}
	before, err := chromedp.Run(tctx, chromedp.Evaluate[[]anchor](`cosimView.anchors()`))
	if err != nil {
		t.Fatal(err)
	}
	// Move the slider as a user does: set its value and fire "input".
	if err := chromedp.Do(tctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(
		`(() => { const s = document.getElementById("slider"); s.value = %d; s.dispatchEvent(new Event("input")); })()`, frames/3))); err != nil {
		t.Fatal(err)
	}
	frame, _ := chromedp.Run(tctx, chromedp.Evaluate[int](`cosimView.frame`))
	if frame != frames/3 {
		t.Errorf("after moving the slider the frame is %d, want %d", frame, frames/3)
	}
	after, err := chromedp.Run(tctx, chromedp.Evaluate[[]anchor](`cosimView.anchors()`))
	if err != nil {
		t.Fatal(err)
	}
	moved := 0
	for i := range before {
		if i < len(after) && before[i] != nil && after[i] != nil && math.Hypot(after[i][0]-before[i][0], after[i][1]-before[i][1]) > 1 {
			moved++
		}
	}
	if moved == 0 {
		t.Errorf("no body moved on screen when the slider moved: %v → %v", before, after)
	}
	if frac := countNonBackground(pageShot(t, tctx, "#gl")); frac < 0.002 {
		t.Errorf("the screenshot is blank: %.4f of its pixels differ from the background", frac)
	}
	// The browser's helix is node.CoilPoints's (tolerance: a few roundings).
	coil := node.Primitive{Kind: node.Coil, P: [3]float64{0.5, -1, 2}, Q: [3]float64{1, 2, 3}, Size: [3]float64{0.2, 0.2, 0.2}, Windings: 5}
	want := node.CoilPoints(coil, 12, nil)
	js := fmt.Sprintf(`cosimView.coilPoints(%s, 12)`, string(must(encodePrims([]node.Primitive{coil})[0].MarshalJSON())))
	got, err := chromedp.Run(tctx, chromedp.Evaluate[[][3]float64](js))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("browser coil has %d points, node.CoilPoints %d", len(got), len(want))
	}
	for i := range want {
		for k := range 3 {
			if !numtest.Within(got[i][k], want[i][k], 1e-12) {
				t.Fatalf("coil point %d: browser %v, Go %v", i, got[i], want[i])
			}
		}
	}
	if bad := consoleProblems(t, ctx, msgs, "cosim-test-end"); len(bad) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(bad, "\n"))
	}
}

// TestServeInBrowser loads the page cosim view --serve serves and waits
// until the streamed run has arrived frame by frame.
func TestServeInBrowser(t *testing.T) {
	ctx := browser(t)
	sc, err := loadScene("../../examples/scenes/rigid-body-spring.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	d := testDrawFlags(60)
	runCtx, stop := context.WithCancel(context.Background())
	defer stop()
	lr, err := startLive(runCtx, sc, "rigid-body-spring.json", d, cameraView{Yaw: 0.6, Pitch: 0.3, Zoom: 1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(lr)
	defer srv.Close()
	cctx, cancelC := context.WithCancel(ctx)
	defer cancelC()
	msgs := chromedp.Console(cctx)
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`window.cosimView && cosimView.frames === 61 && document.getElementById("status").textContent.startsWith("done")`, chromedp.WithPollingTimeout(40*time.Second))); err != nil {
		st, _ := chromedp.Run(tctx, chromedp.Evaluate[string](`document.getElementById("status").textContent + " / " + cosimView.frames`))
		t.Fatalf("the streamed run did not arrive: %v (status %q)", err, st)
	}
	if b, _ := chromedp.Run(tctx, chromedp.Evaluate[int](`cosimView.bodies`)); b != 2 {
		t.Errorf("bodies = %d, want 2 (bar, spring)", b)
	}
	if bad := consoleProblems(t, ctx, msgs, "cosim-serve-end"); len(bad) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(bad, "\n"))
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// nonBackground is the fraction of a PNG's pixels that are not the
// page's background color.
func nonBackground(t *testing.T, pngData []byte) float64 {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		t.Fatal(err)
	}
	return countNonBackground(img)
}

func countNonBackground(img image.Image) float64 {
	b := img.Bounds()
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bb, _ := img.At(x, y).RGBA()
			if r>>8 != 0xf4 || g>>8 != 0xf4 || bb>>8 != 0xf2 {
				n++
			}
		}
	}
	return float64(n) / float64(b.Dx()*b.Dy())
}

func testDrawFlags(frames int) drawFlags {
	return drawFlags{set: node.DefaultDrawSettings(), camera: "35,20", frames: frames}
}
