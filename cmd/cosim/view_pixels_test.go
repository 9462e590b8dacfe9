package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/internal/raster"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// The browser tests below read the pixels chromium draws (WebGL through
// SwiftShader, pinned by browser's flags), not only the page's DOM: they
// compare what is on the screen with projections of the simulated state
// computed in Go (raster.Camera, the camera model the page shares).

// openView writes the page of a scene with cosim view (extra flags
// appended) and opens it; it returns a context for the page.
func openView(t *testing.T, ctx context.Context, scenePath string, extra ...string) context.Context {
	t.Helper()
	file := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(scenePath), ".json")+".html")
	args := append([]string{"view", "-q", scenePath, "-o", file}, extra...)
	if code, _, errs := cosim(t, args...); code != 0 {
		t.Fatalf("cosim %v: exit %d: %s", args, code, errs)
	}
	tctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancel)
	if err := chromedp.Do(tctx, chromedp.Navigate("file://"+file)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`window.cosimView && window.cosimView.ready === true`, chromedp.WithPollingTimeout(90*time.Second))); err != nil {
		t.Fatalf("%s: the page never became ready: %v", scenePath, err)
	}
	if ok, err := chromedp.Run(tctx, chromedp.Evaluate[bool](`cosimView.webgl`)); err != nil || !ok {
		t.Fatalf("%s: no WebGL 2 in chromium (%v): the browser flags should give SwiftShader", scenePath, err)
	}
	return tctx
}

// eval evaluates js in the page and decodes its value.
func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// pageShot captures the page and crops it to the element sel.
func pageShot(t *testing.T, ctx context.Context, sel string) *image.RGBA {
	t.Helper()
	r := eval[[]float64](t, ctx, fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`, sel))
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(buf))
	if err != nil {
		t.Fatal(err)
	}
	rect := image.Rect(int(math.Round(r[0])), int(math.Round(r[1])), int(math.Round(r[0]+r[2])), int(math.Round(r[1]+r[3])))
	out := image.NewRGBA(image.Rect(0, 0, rect.Dx(), rect.Dy()))
	draw.Draw(out, out.Bounds(), img, rect.Min, draw.Src)
	return out
}

// pageCamera is the page's camera as a raster.Camera, with the view's
// size in pixels.
func pageCamera(t *testing.T, ctx context.Context) (raster.Camera, int, int) {
	t.Helper()
	c := eval[struct {
		Yaw, Pitch, Dist, Fov float64
		Target                [3]float64
		Width, Height         int
	}](t, ctx, `cosimView.camera()`)
	return raster.Camera{Yaw: c.Yaw, Pitch: c.Pitch, Target: c.Target, Dist: c.Dist, FOV: c.Fov}, c.Width, c.Height
}

// simulated runs a scene file and returns field's value at each time:
// an adaptive run records exactly there (dense output), a fixed-step one
// every step (the times must be on its grid).
func simulated(t *testing.T, path, field string, times []float64) [][]float64 {
	t.Helper()
	sc, err := loadScene(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	sc.Record = scene.Record{Fields: []string{field}, Times: times}
	if sc.Run.Integrator == nil || !sc.Run.Integrator.Adaptive {
		sc.Record = scene.Record{Fields: []string{field}, Every: 1}
	}
	res, err := sc.Simulate(context.Background(), nodes.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]float64
	for _, tm := range times {
		i := nearestRow(res.History.Times, tm)
		if !numtest.Within(res.History.Times[i], tm, 1e-9) {
			t.Fatalf("%s: no row at t = %v (nearest %v)", path, tm, res.History.Times[i])
		}
		out = append(out, res.History.Rows[i])
	}
	return out
}

func reddish(c color.RGBA) bool {
	return int(c.R) > 30 && 10*int(c.R) > 18*int(c.G) && 10*int(c.R) > 18*int(c.B)
}

// silhouetteCentre is the centre of the bounding box of the pixels in
// returns true for.
func silhouetteCentre(img *image.RGBA, in func(color.RGBA) bool) (x, y float64, n int) {
	b := img.Bounds()
	x0, y0, x1, y1 := b.Max.X, b.Max.Y, -1, -1
	for j := b.Min.Y; j < b.Max.Y; j++ {
		for i := b.Min.X; i < b.Max.X; i++ {
			if in(img.RGBAAt(i, j)) {
				x0, y0, x1, y1 = min(x0, i), min(y0, j), max(x1, i), max(y1, j)
				n++
			}
		}
	}
	return float64(x0+x1+1) / 2, float64(y0+y1+1) / 2, n
}

// TestBrowserBallCentre: in the page of the bouncing ball (located
// contacts, dense output), the ball's drawn centre — the centre of its
// red silhouette on the screen — is the projection of its simulated
// position at three times, within 2 pixels. The simulated position comes
// from an independent run recording exactly those times; the ball's
// centre is its contact point plus its radius (0.05 m, nodes/ball's
// drawing). Tolerance: the silhouette's edge pixels are antialiased (half
// a pixel each side), and the page stores 7 significant digits.
func TestBrowserBallCentre(t *testing.T) {
	ctx := browser(t)
	path := "../../examples/scenes/bouncing-ball-events.json"
	tctx := openView(t, ctx, path)
	eval[any](t, tctx, `cosimView.show({labels: false, axes: false})`)
	times := eval[[]float64](t, tctx, `cosimView.times()`)
	var idx []int
	var want []float64
	for _, target := range []float64{0, 1.37, 4.2} {
		i := nearestRow(times, target)
		idx, want = append(idx, i), append(want, times[i])
	}
	pos := simulated(t, path, "ball.position", want)
	cam, w, h := pageCamera(t, tctx)
	for k, i := range idx {
		eval[any](t, tctx, fmt.Sprintf(`cosimView.setFrame(%d)`, i))
		img := pageShot(t, tctx, "#gl")
		if img.Bounds().Dx() != w || img.Bounds().Dy() != h {
			t.Fatalf("the view is %v, the page says %dx%d", img.Bounds(), w, h)
		}
		x, y, n := silhouetteCentre(img, reddish)
		px, py, _, _ := cam.Project([3]float64{0, pos[k][0] + 0.05, 0}, w, h)
		if n < 20 || math.Hypot(x-px, y-py) > 2 {
			t.Errorf("t = %v: the ball is drawn centred at (%.1f, %.1f) (%d pixels), its simulated position projects to (%.1f, %.1f)", want[k], x, y, n, px, py)
		}
	}
	// Hovering the ball tells its true size and that it is enlarged.
	x, y, _, _ := cam.Project([3]float64{0, pos[len(pos)-1][0] + 0.05, 0}, w, h)
	if d := eval[string](t, tctx, fmt.Sprintf(`cosimView.describe(%v, %v)`, x, y)); !strings.Contains(d, "diameter 0.1 m") || !strings.Contains(d, "enlarged") {
		t.Errorf("hovering the ball says %q, want its diameter and that it is drawn enlarged", d)
	}
}

// TestBrowserFloorAndScale: the page draws the floor with its grid under
// the run and a scale bar, as the Go renderer computes them: the floor's
// spacing and height are raster.FloorUnder of the run's extent, the scale
// bar raster.ScaleBar of the page's camera, and both are on the screen
// (floor-colored pixels, grid lines, and a dark bar of the right length
// at the bottom right).
func TestBrowserFloorAndScale(t *testing.T) {
	ctx := browser(t)
	path := "../../examples/scenes/mass-spring-chain.json"
	tctx := openView(t, ctx, path, "--frames", "200")
	fl := eval[struct {
		Y, Spacing float64
		Lo, Hi     [2]float64
	}](t, tctx, `cosimView.floor()`)
	fset, err := computeFrames(mustScene(t, path), path, drawFlagsFrames(200), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := raster.FloorUnder(raster.Extent(fset.prims))
	// 1e-6 relative: the page holds 7 digits of each coordinate.
	if !numtest.Within(fl.Spacing, want.Spacing, 1e-9) || !numtest.Within(fl.Y, want.Y, 1e-6*math.Max(1, math.Abs(want.Y))) || fl.Lo != want.Lo || fl.Hi != want.Hi {
		t.Errorf("page floor %+v, Go floor %+v", fl, want)
	}
	cam, w, h := pageCamera(t, tctx)
	sc := eval[struct{ Metres, Pixels float64 }](t, tctx, `cosimView.scale()`)
	m, px := raster.ScaleBar(cam, w, h)
	if !numtest.Within(sc.Metres, m, 1e-12) || !numtest.Within(sc.Pixels, px, 1e-6) {
		t.Errorf("page scale bar %v m over %v px, Go %v m over %v px", sc.Metres, sc.Pixels, m, px)
	}
	gl := pageShot(t, tctx, "#gl")
	floor, grid := 0, 0
	b := gl.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := gl.RGBAAt(x, y)
			switch {
			case near3(c, 230, 230, 224, 6):
				floor++
			case near3(c, 189, 189, 181, 20), near3(c, 153, 153, 145, 20):
				grid++
			}
		}
	}
	if floor < b.Dx()*b.Dy()/20 || grid < 200 {
		t.Errorf("%d floor and %d grid-line pixels: the floor is missing", floor, grid)
	}
	// The scale bar: a dark line 2 pixels thick at y = h − 22, from
	// x = w − 14 − pixels to w − 14, drawn on the overlay.
	all := pageShot(t, tctx, "#view")
	dark := 0
	x1 := float64(w) - 14
	steps := int(px) - 4
	for k := 2; k < steps; k++ {
		x := int(x1 - px + float64(k))
		for _, y := range []int{h - 23, h - 22} {
			if c := all.RGBAAt(x, y); int(c.R)+int(c.G)+int(c.B) < 3*90 {
				dark++
				break
			}
		}
	}
	if dark < steps*9/10-2 {
		t.Errorf("the scale bar: %d of %d pixels along it are dark", dark, steps-2)
	}
}

func near3(c color.RGBA, r, g, b, tol int) bool {
	return abs(int(c.R)-r) <= tol && abs(int(c.G)-g) <= tol && abs(int(c.B)-b) <= tol
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func mustScene(t *testing.T, path string) *scene.Scene {
	t.Helper()
	sc, err := loadScene(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func drawFlagsFrames(n int) drawFlags {
	d := testDrawFlags(n)
	return d
}

// TestBrowserLabelsEveryScene: every example scene's page loads without
// console errors and labels its nodes with no two label boxes
// overlapping, at its first, middle and last frame, each label inside the
// view and showing its text (dark pixels in its box on the screen).
func TestBrowserLabelsEveryScene(t *testing.T) {
	ctx := browser(t)
	scenes, _ := filepath.Glob("../../examples/scenes/*.json")
	for _, path := range scenes {
		t.Run(filepath.Base(path), func(t *testing.T) {
			frames := "40"
			if strings.Contains(path, "stiff-chain") {
				frames = "1" // 40 001 nodes: the page holds the start and the end
			}
			cctx, cancelC := context.WithCancel(ctx)
			defer cancelC()
			msgs := chromedp.Console(cctx)
			tctx := openView(t, ctx, path, "--frames", frames)
			n := eval[int](t, tctx, `cosimView.frames`)
			var r0 [4]float64
			for _, i := range []int{0, n / 2, n - 1} {
				eval[any](t, tctx, fmt.Sprintf(`cosimView.setFrame(%d)`, i))
				boxes := eval[[]struct {
					Name string
					Box  [4]float64
				}](t, tctx, `cosimView.labelBoxes()`)
				if len(boxes) == 0 {
					t.Errorf("frame %d: no labels", i)
				}
				_, w, h := pageCamera(t, tctx)
				// The view keeps its place and size from frame to
				// frame: a top bar that re-wraps as the time text
				// grows would move the picture under the labels just
				// placed.
				r := eval[[4]float64](t, tctx, `(() => { const r = document.querySelector("#view").getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`)
				if i == 0 {
					r0 = r
				} else if r != r0 {
					t.Errorf("frame %d: the view is at %v (left, top, width, height), at frame 0 it was at %v", i, r, r0)
				}
				img := pageShot(t, tctx, "#view")
				for a, la := range boxes {
					r := la.Box
					if r[0] < 0 || r[1] < 0 || r[2] > float64(w) || r[3] > float64(h) {
						t.Errorf("frame %d: label %s at %v leaves the %dx%d view", i, la.Name, r, w, h)
					}
					for _, lb := range boxes[:a] {
						q := lb.Box
						if r[0] < q[2] && q[0] < r[2] && r[1] < q[3] && q[1] < r[3] {
							t.Errorf("frame %d: labels %s %v and %s %v overlap", i, la.Name, r, lb.Name, q)
						}
					}
					text := 0
					for y := int(r[1]); y < int(r[3]); y++ {
						for x := int(r[0]); x < int(r[2]); x++ {
							if c := img.RGBAAt(x, y); int(c.R)+int(c.G)+int(c.B) < 3*110 {
								text++
							}
						}
					}
					if text < 5 {
						t.Errorf("frame %d: label %s at %v shows no text on the screen", i, la.Name, r)
					}
				}
			}
			if bad := consoleProblems(t, ctx, msgs, "cosim-labels-end"); len(bad) > 0 {
				t.Errorf("console errors:\n%s", strings.Join(bad, "\n"))
			}
		})
	}
}

// TestBrowserBarOrientation: the rigid bar of rigid-body-spring, seen
// along −z (it swings in the x–y plane), is drawn at t = 2 s at the angle
// of its simulated orientation: the long axis of its front face's pixels
// on the screen (the face toward the camera, a rectangle parallel to the
// screen, found by its color read at its projected centre) is the
// projection of the body's x axis rotated by the simulated quaternion,
// within 1°.
func TestBrowserBarOrientation(t *testing.T) {
	ctx := browser(t)
	path := "../../examples/scenes/rigid-body-spring.json"
	tctx := openView(t, ctx, path)
	eval[any](t, tctx, `cosimView.show({labels: false, axes: false, floor: false, xray: false})`)
	eval[any](t, tctx, `cosimView.setCamera(0, 0)`)
	times := eval[[]float64](t, tctx, `cosimView.times()`)
	i := nearestRow(times, 2)
	if !numtest.Within(times[i], 2, 1e-9) {
		t.Fatalf("no frame at t = 2 (nearest %v)", times[i])
	}
	eval[any](t, tctx, fmt.Sprintf(`cosimView.setFrame(%d)`, i))
	pos := simulated(t, path, "bar.position", []float64{2})[0]
	q := simulated(t, path, "bar.orientation", []float64{2})[0]
	var P [3]float64
	var Q [4]float64
	copy(P[:], pos)
	copy(Q[:], q)
	cam, w, h := pageCamera(t, tctx)
	img := pageShot(t, tctx, "#gl")
	// The bar's box: its half-thickness along body z from the drawing.
	fset, err := computeFramesAt(mustScene(t, path), path, drawFlagsFrames(600), func(float64) []float64 { return []float64{2} }, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	bar := fset.prims[0][0][0]
	front := add3(P, node.Rotate(Q, [3]float64{0, 0, bar.Size[2] / 2}))
	fx, fy, _, _ := cam.Project(front, w, h)
	ref := img.RGBAAt(int(fx), int(fy))
	if !reddish(ref) {
		t.Fatalf("the bar's front face centre at (%.0f, %.0f) is %v, not the bar", fx, fy, ref)
	}
	angle, n := principalAngle(img, func(c color.RGBA) bool { return near3(c, int(ref.R), int(ref.G), int(ref.B), 12) })
	a0x, a0y, _, _ := cam.Project(add3(front, node.Rotate(Q, [3]float64{-0.5, 0, 0})), w, h)
	a1x, a1y, _, _ := cam.Project(add3(front, node.Rotate(Q, [3]float64{0.5, 0, 0})), w, h)
	want := math.Atan2(-(a1y - a0y), a1x-a0x)
	d := math.Mod(angle-want+3*math.Pi/2, math.Pi) - math.Pi/2
	if n < 200 || !numtest.Within(d, 0, math.Pi/180) {
		t.Errorf("the bar is drawn at %.2f° (%d pixels), its simulated orientation projects to %.2f°", angle*180/math.Pi, n, want*180/math.Pi)
	}
}

func add3(a, b [3]float64) [3]float64 { return [3]float64{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }

// principalAngle is the angle (radians, y up) of the long axis of the
// pixels in returns true for, and their count.
func principalAngle(img *image.RGBA, in func(color.RGBA) bool) (float64, int) {
	var sx, sy, sxx, syy, sxy float64
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if in(img.RGBAAt(x, y)) {
				px, py := float64(x)+0.5, float64(y)+0.5
				sx, sy, sxx, syy, sxy = sx+px, sy+py, sxx+px*px, syy+py*py, sxy+px*py
				n++
			}
		}
	}
	if n == 0 {
		return 0, 0
	}
	k := float64(n)
	cx, cy := sx/k, sy/k
	return -0.5 * math.Atan2(2*(sxy/k-cx*cy), sxx/k-cx*cx-(syy/k-cy*cy)), n
}

// TestBrowserScreenshotAndFollow: the screenshot button's image is the
// view with its overlay (a PNG of the view's size, not blank); following
// a body puts it at the centre of the view.
func TestBrowserScreenshotAndFollow(t *testing.T) {
	ctx := browser(t)
	tctx := openView(t, ctx, "../../examples/scenes/thrust-on-spring.json", "--frames", "60")
	url := eval[string](t, tctx, `cosimView.screenshot()`)
	data, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(url, "data:image/png;base64,"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	_, w, h := pageCamera(t, tctx)
	if img.Bounds().Dx() != w || img.Bounds().Dy() != h || countNonBackground(img) < 0.05 {
		t.Errorf("screenshot %v, %.3f non-background: want the %dx%d view drawn", img.Bounds(), countNonBackground(img), w, h)
	}
	eval[any](t, tctx, `cosimView.follow(0); cosimView.setFrame(30)`)
	a := eval[[][]float64](t, tctx, `cosimView.anchors()`)
	if math.Hypot(a[0][0]-float64(w)/2, a[0][1]-float64(h)/2) > 1 {
		t.Errorf("following bob: it is at %v, the view's centre is (%d, %d)", a[0], w/2, h/2)
	}
}

// TestBrowserTicks: the page's plots are marked with the ticks cosim plot
// uses (niceTicks): the same values and labels for every range.
func TestBrowserTicks(t *testing.T) {
	ctx := browser(t)
	tctx := openView(t, ctx, "../../examples/scenes/spring-damper.json", "--frames", "10")
	for _, r := range tickRanges {
		got := eval[struct {
			Ticks []struct {
				Value float64
				Label string
			}
		}](t, tctx, fmt.Sprintf(`cosimView.niceTicks(%v, %v)`, r[0], r[1]))
		vals, labels, _ := niceTicks(r[0], r[1])
		if len(got.Ticks) != len(vals) {
			t.Errorf("%v: page %v, Go %v", r, got.Ticks, labels)
			continue
		}
		for i := range vals {
			if !numtest.Within(got.Ticks[i].Value, vals[i], 1e-12*math.Max(1, math.Abs(vals[i]))) || got.Ticks[i].Label != labels[i] {
				t.Errorf("%v: tick %d page %v %q, Go %v %q", r, i, got.Ticks[i].Value, got.Ticks[i].Label, vals[i], labels[i])
			}
		}
	}
}
