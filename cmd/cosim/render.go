package main

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/cosimgo/cosim/internal/raster"
	"github.com/cosimgo/cosim/internal/textio"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/scene"
)

// The animation README.md and examples/scenes/README.md show; "go generate
// ./cmd/cosim" redraws it and TestReadmeAnimationCurrent fails when it is
// stale.
//
//go:generate go run . render -q ../../examples/scenes/rigid-body-spring.json -o ../../docs/assets/rigid-body-spring.gif --size 320x240 --fps 10 --camera 20,15

const renderArgs = "SCENE -o FILE.gif|FILE.png|FILE.mp4|FILE.webm [--fps N] [--speed X] [--size WxH] [--camera YAW,PITCH[,ZOOM]] [--at T] [--history FILE [--allow-partial]] [--set NODE.PARAM=VALUE]…"

// renderOpts are the settings of cosim render.
type renderOpts struct {
	out      string
	fps      float64
	speed    float64
	w, h     int
	at       float64
	atSet    bool
	quiet    bool
	noLabels bool
	workers  int
	draw     drawFlags
	camera   cameraView
}

func cmdRender(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("render", renderArgs, stderr)
	var o renderOpts
	fs.StringVar(&o.out, "o", "", "write the image to `FILE`: .gif for an animation, .png for one time, .mp4 or .webm for a video (needs ffmpeg)")
	numberVar(fs, &o.fps, "fps", 20, "`FPS`, frames per second of the animation")
	numberVar(fs, &o.speed, "speed", 1, "simulated seconds per second of animation (a `FACTOR`)")
	size := fs.String("size", "480x360", "image size `WxH` in pixels")
	at := fs.String("at", "", "the time `T` (s) a PNG shows (default: the end of the run)")
	fs.BoolVar(&o.quiet, "q", false, "no progress bar")
	fs.BoolVar(&o.noLabels, "no-labels", false, "leave the nodes' names out")
	fs.IntVar(&o.workers, "j", 0, "draw and encode frames on `N` goroutines (default: one per CPU; the file is the same for any N)")
	addDrawFlags(fs, &o.draw, 400)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("name exactly one scene file, got %d arguments (try examples/scenes/spring-damper.json)", len(pos))
	}
	if err := o.check(*size, *at); err != nil {
		return err
	}
	if err := checkOutputPath("-o", o.out); err != nil {
		return err
	}
	sc, err := loadScene(pos[0], o.draw.sets)
	if err != nil {
		return err
	}
	if err := prepareOutputs(stderr, append(sceneInputs(pos[0], sc), namedPath{"the --history file", o.draw.history}), []namedPath{{"-o", o.out}}); err != nil {
		return err
	}
	n, t, err := renderScene(sc, pos[0], o, stderr)
	if err != nil {
		return err
	}
	if o.kind() == ".png" {
		fmt.Fprintf(stdout, "%s at t = %s s drawn into %s (%dx%d)\n", pos[0], fmtTime(t), o.out, o.w, o.h)
	} else {
		fmt.Fprintf(stdout, "%s: %d frames to t = %s s drawn into %s (%dx%d)\n", pos[0], n, fmtTime(t), o.out, o.w, o.h)
	}
	return nil
}

// kind is the output's format: its lower-case extension.
func (o *renderOpts) kind() string { return strings.ToLower(filepath.Ext(o.out)) }

// check validates the flags.
func (o *renderOpts) check(size, at string) error {
	ext := o.kind()
	if o.out == "" || ext != ".gif" && ext != ".png" && ext != ".mp4" && ext != ".webm" {
		return usagef("-o FILE.gif, FILE.png, FILE.mp4 or FILE.webm is required (got %q)", o.out)
	}
	if ext == ".mp4" || ext == ".webm" {
		if _, err := exec.LookPath("ffmpeg"); err != nil {
			return fmt.Errorf("-o %s: videos are encoded by ffmpeg, which is not on PATH (it is optional: install it, e.g. apt-get install ffmpeg, or write a .gif)", o.out)
		}
	}
	ws, hs, ok := strings.Cut(size, "x")
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	if !ok || err1 != nil || err2 != nil || w < 16 || h < 16 || w > 4096 || h > 4096 {
		return usagef("--size %q: want WxH, each 16 to 4096 pixels, e.g. 480x360", size)
	}
	o.w, o.h = w, h
	if !(o.fps > 0 && o.fps <= 100) {
		return usagef("--fps %v: need 0 < fps ≤ 100", o.fps)
	}
	if !(o.speed > 0) || math.IsInf(o.speed, 0) {
		return usagef("--speed %v: need a finite positive factor", o.speed)
	}
	if at != "" {
		t, err := textio.ParseNumber(at)
		if err != nil {
			return usagef("--at: %v", err)
		}
		if math.IsNaN(t) || math.IsInf(t, 0) || t < 0 {
			return usagef("--at %q: need a time ≥ 0 in seconds", at)
		}
		if ext != ".png" {
			return usagef("--at shows one time: write a PNG (-o FILE.png)")
		}
		o.at, o.atSet = t, true
	}
	cam, err := parseCamera(o.draw.camera)
	if err != nil {
		return err
	}
	o.camera = cam
	if o.draw.frames < 1 {
		return usagef("--frames %d: need at least 1", o.draw.frames)
	}
	if o.workers < 0 {
		return usagef("-j %d: need at least 1 (or 0: one per CPU)", o.workers)
	}
	return o.draw.set.Check()
}

// renderScene computes the frames and writes the image; it returns the
// number of frames and the last time drawn.
func renderScene(sc *scene.Scene, path string, o renderOpts, stderr io.Writer) (int, float64, error) {
	png1 := o.kind() == ".png"
	d := o.draw
	var (
		fset *frameSet
		err  error
		// extent are the frames the camera frames: the whole run.
		extent [][][]node.Primitive
	)
	switch {
	case png1:
		t := sc.EndTime()
		if o.atSet {
			t = o.at
		}
		if t > sc.EndTime()+1e-9*math.Max(1, sc.EndTime()) && d.history == "" {
			return 0, 0, fmt.Errorf("--at %s: the run ends at %s s", fmtTime(t), fmtTime(sc.EndTime()))
		}
		run := sc
		if d.history == "" {
			// The camera frames the whole run, sampled, however early t
			// is.
			all := d
			all.frames = min(d.frames, 200)
			whole, werr := computeFrames(sc, path, all, true, io.Discard)
			if whole == nil {
				return 0, 0, werr
			}
			extent = whole.prims
			// Run only to t, recording its start and its end: the frame
			// is the state at t exactly.
			cp := *sc
			cp.Run.Steps, cp.Run.End = 0, t
			if t == 0 {
				cp.Run.End = sc.Run.Dt
			}
			cp.Record.Times = nil
			if cp.Run.Monolithic() && cp.Run.Integrator != nil && cp.Run.Integrator.Adaptive {
				cp.Record.Times = []float64{0, t}
			}
			run = &cp
			d.frames = 1
		}
		end := math.Inf(1)
		fset, err = computeFramesAt(run, path, d, func(last float64) []float64 { end = last; return []float64{t} }, o.quiet, stderr)
		if fset != nil && d.history != "" {
			if t > end+1e-9*math.Max(1, math.Abs(end)) {
				return 0, 0, fmt.Errorf("--at %s: the history %s ends at %s s", fmtTime(t), d.history, fmtTime(end))
			}
			// The camera frames the whole history, sampled.
			all := d
			all.frames = min(d.frames, 200)
			if whole, _ := computeFrames(sc, path, all, true, io.Discard); whole != nil {
				extent = whole.prims
			}
		}
	case d.history != "":
		fset, err = computeFramesAt(sc, path, d, func(end float64) []float64 { return animationTimes(end, o.fps, o.speed, d.frames) }, o.quiet, stderr)
	default:
		// One recorded row per animation frame: every ≈ speed/(fps·dt)
		// steps, at most d.frames frames.
		steps := sceneSteps(sc)
		every := max(1, int(math.Round(o.speed/(o.fps*sc.Run.Dt))))
		d.frames = min(d.frames, max(1, (steps+every-1)/every))
		fset, err = computeFrames(sc, path, d, o.quiet, stderr)
	}
	if fset == nil {
		return 0, 0, err
	}
	if err != nil {
		fmt.Fprintf(stderr, "cosim render: %v\n", err)
	}
	rs := rasterScene(fset, append(extent, fset.prims...), o.w, o.h, o.camera)
	rs.Labels = !o.noLabels
	last := fset.times[len(fset.times)-1]
	draw := func(i int) (*image.RGBA, error) {
		img := image.NewRGBA(image.Rect(0, 0, o.w, o.h))
		rs.Draw(img, fset.prims[i], frameCaption(fset, i))
		return img, nil
	}
	n := len(fset.times)
	switch o.kind() {
	case ".png":
		img, _ := draw(n - 1)
		return 1, last, writeImage(o.out, func(w io.Writer) error { return png.Encode(w, img) })
	case ".gif":
		return n, last, writeImage(o.out, func(w io.Writer) error { return writeGIF(w, n, o, draw, fset) })
	}
	return n, last, writeVideo(o, n, draw)
}

// frameCaption is the caption of frame i: its time, and for a partial
// replay a word that some nodes are drawn from incomplete data.
func frameCaption(fset *frameSet, i int) string {
	c := caption(fset.times[i])
	for _, u := range fset.unknown {
		if u != "" {
			return c + " · partial replay: nodes marked (?) lack recorded data"
		}
	}
	return c
}

// writeGIF encodes the frames as an animated GIF: one palette computed
// from up to eight frames spread over the animation, frames drawn and
// compressed in parallel (raster.Frames, raster.GIF).
func writeGIF(w io.Writer, n int, o renderOpts, draw raster.FrameFunc, fset *frameSet) error {
	var samples []*image.RGBA
	cache := map[int]*image.RGBA{}
	k := min(n, 8)
	for j := range k {
		i := j * (n - 1) / max(1, k-1)
		if _, ok := cache[i]; ok {
			continue
		}
		img, err := draw(i)
		if err != nil {
			return err
		}
		cache[i] = img
		samples = append(samples, img)
	}
	pal := raster.NewPalette(samples)
	g := raster.NewGIF(w, o.w, o.h, pal, o.workers)
	var mu sync.Mutex
	cached := func(i int) (*image.RGBA, error) {
		mu.Lock()
		img, ok := cache[i]
		delete(cache, i)
		mu.Unlock()
		if ok {
			return img, nil
		}
		return draw(i)
	}
	err := raster.Frames(n, o.workers, cached, func(i int, img *image.RGBA) error {
		return g.Add(img, frameDelay(fset.times, i, o.speed, o.fps))
	})
	if err != nil {
		return err
	}
	return g.Close()
}

// writeVideo pipes the frames, drawn in parallel, to ffmpeg as raw RGBA at
// --fps and lets it encode them: H.264 for .mp4, VP9 for .webm, into a
// temporary file renamed into place when ffmpeg succeeds. Each frame is
// shown for 1/fps s (the frames are speed/fps of simulated time apart).
func writeVideo(o renderOpts, n int, draw raster.FrameFunc) error {
	dir, name := filepath.Split(o.out)
	if dir == "" {
		dir = "."
	}
	ext := o.kind()
	tmp, err := os.CreateTemp(dir, "."+strings.TrimSuffix(name, filepath.Ext(name))+".tmp-*"+ext)
	if err != nil {
		return err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	args := []string{"-hide_banner", "-loglevel", "error", "-y",
		"-f", "rawvideo", "-pix_fmt", "rgba", "-s", fmt.Sprintf("%dx%d", o.w, o.h), "-r", strconv.FormatFloat(o.fps, 'g', -1, 64), "-i", "-",
		// yuv420p needs even sides: pad by a pixel of the background.
		"-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2:color=0xf4f4f2", "-pix_fmt", "yuv420p"}
	if ext == ".mp4" {
		args = append(args, "-c:v", "libx264", "-crf", "20", "-preset", "medium", "-movflags", "+faststart")
	} else {
		args = append(args, "-c:v", "libvpx-vp9", "-crf", "32", "-b:v", "0", "-row-mt", "1")
	}
	args = append(args, tmp.Name())
	cmd := exec.Command("ffmpeg", args...)
	var ferr bytes.Buffer
	cmd.Stderr = &ferr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("-o %s: starting ffmpeg: %w", o.out, err)
	}
	werr := raster.Frames(n, o.workers, draw, func(_ int, img *image.RGBA) error {
		_, err := in.Write(img.Pix)
		return err
	})
	in.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("-o %s: ffmpeg: %w: %s", o.out, err, strings.TrimSpace(ferr.String()))
	}
	if werr != nil {
		return werr
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), o.out); err != nil {
		return errors.Join(err, os.Remove(tmp.Name()))
	}
	return nil
}

// rasterScene is the picture of the frames for an image w × h: the
// drawn nodes with their names, which are connectors and what a partial
// replay does not know of them, and the camera fitted to extent (the
// frames of the whole run).
func rasterScene(fset *frameSet, extent [][][]node.Primitive, w, h int, cam cameraView) *raster.Scene {
	bodies := make([]raster.Body, len(fset.st.bodies))
	for i, b := range fset.st.bodies {
		bodies[i] = raster.Body{Name: b.name, Connector: b.connector, Unknown: fset.unknown[i]}
	}
	return raster.NewScene(bodies, extent, fset.st.set.CurveTiling, w, h, cam.Yaw, cam.Pitch, cam.Zoom)
}

// animationTimes are the frame times of an animation to end: k·speed/fps,
// and end itself when that is not one of them (the last frame is the end
// of the run), at most maxFrames of them (spread over the run when there
// would be more).
func animationTimes(end, fps, speed float64, maxFrames int) []float64 {
	step := speed / fps
	n := int(math.Floor(end/step+1e-9)) + 1
	if n > maxFrames {
		n = maxFrames
		step = end / float64(max(n-1, 1))
	}
	ts := make([]float64, n)
	for k := range ts {
		ts[k] = float64(k) * step
	}
	if last := ts[n-1]; last < end-1e-9*math.Max(1, end) && n < maxFrames {
		ts = append(ts, end)
	}
	return ts
}

// frameDelay is frame i's GIF delay in hundredths of a second: the
// simulated time to the next frame at the given speed, rounded so that the
// delays add up to the run's duration (the last frame shows for one frame
// period); at least 2, as browsers slow down shorter delays.
func frameDelay(ts []float64, i int, speed, fps float64) int {
	if i+1 >= len(ts) {
		return max(2, int(math.Round(100/fps)))
	}
	cs := func(t float64) int { return int(math.Round(100 * (t - ts[0]) / speed)) }
	return max(2, cs(ts[i+1])-cs(ts[i]))
}

// caption is a frame's time: two decimals (steady in an animation), or
// three significant digits below 0.1 s.
func caption(t float64) string {
	if t != 0 && math.Abs(t) < 0.1 {
		return "t = " + strconv.FormatFloat(t, 'g', 3, 64) + " s"
	}
	return "t = " + strconv.FormatFloat(t, 'f', 2, 64) + " s"
}

func writeImage(path string, enc func(io.Writer) error) error {
	return writeAtomic(path, enc)
}
