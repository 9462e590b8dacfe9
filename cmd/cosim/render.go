package main

import (
	"fmt"
	"image"
	"image/color/palette"
	"image/draw"
	"image/gif"
	"image/png"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cosimgo/cosim/internal/raster"
	"github.com/cosimgo/cosim/scene"
)

// The animation README.md and examples/scenes/README.md show; "go generate
// ./cmd/cosim" redraws it and TestReadmeAnimationCurrent fails when it is
// stale.
//
//go:generate go run . render -q ../../examples/scenes/rigid-body-spring.json -o ../../docs/assets/rigid-body-spring.gif --size 320x240 --fps 10 --camera 20,15

const renderArgs = "SCENE -o FILE.gif|FILE.png [--fps N] [--speed X] [--size WxH] [--camera YAW,PITCH[,ZOOM]] [--at T] [--history FILE] [--set NODE.PARAM=VALUE]…"

// renderOpts are the settings of cosim render.
type renderOpts struct {
	out    string
	fps    float64
	speed  float64
	w, h   int
	at     float64
	atSet  bool
	quiet  bool
	draw   drawFlags
	camera cameraView
}

func cmdRender(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("render", renderArgs, stderr)
	var o renderOpts
	fs.StringVar(&o.out, "o", "", "write the image to `FILE`: .gif for an animation, .png for one time")
	fs.Float64Var(&o.fps, "fps", 20, "frames per second of the animation")
	fs.Float64Var(&o.speed, "speed", 1, "simulated seconds per second of animation")
	size := fs.String("size", "480x360", "image size `WxH` in pixels")
	at := fs.String("at", "", "the time `T` (s) a PNG shows (default: the end of the run)")
	fs.BoolVar(&o.quiet, "q", false, "no progress bar")
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
	n, t, err := renderScene(sc, pos[0], o, stderr)
	if err != nil {
		return err
	}
	if strings.HasSuffix(strings.ToLower(o.out), ".png") {
		fmt.Fprintf(stdout, "%s at t = %s s drawn into %s (%dx%d)\n", pos[0], fmtTime(t), o.out, o.w, o.h)
	} else {
		fmt.Fprintf(stdout, "%s: %d frames to t = %s s drawn into %s (%dx%d)\n", pos[0], n, fmtTime(t), o.out, o.w, o.h)
	}
	return nil
}

// check validates the flags.
func (o *renderOpts) check(size, at string) error {
	ext := strings.ToLower(filepath.Ext(o.out))
	if o.out == "" || ext != ".gif" && ext != ".png" {
		return usagef("-o FILE.gif or -o FILE.png is required (got %q)", o.out)
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
		t, err := strconv.ParseFloat(at, 64)
		if err != nil || math.IsNaN(t) || math.IsInf(t, 0) || t < 0 {
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
	return o.draw.set.Check()
}

// renderScene computes the frames and writes the image; it returns the
// number of frames and the last time drawn.
func renderScene(sc *scene.Scene, path string, o renderOpts, stderr io.Writer) (int, float64, error) {
	png1 := strings.HasSuffix(strings.ToLower(o.out), ".png")
	d := o.draw
	var (
		fset *frameSet
		err  error
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
			// Run only to t, recording its start and its end.
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
		fset, err = computeFramesAt(run, path, d, []float64{t}, o.quiet, stderr)
	case d.history != "":
		end := 0.0
		if h, herr := readHistoryFile(d.history); herr == nil && len(h.Times) > 0 {
			end = h.Times[len(h.Times)-1]
		}
		fset, err = computeFramesAt(sc, path, d, animationTimes(end, o.fps, o.speed, d.frames), o.quiet, stderr)
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
	cam := raster.Fit(fset.prims, o.camera.Yaw, o.camera.Pitch, o.camera.Zoom)
	last := fset.times[len(fset.times)-1]
	if png1 {
		img := image.NewRGBA(image.Rect(0, 0, o.w, o.h))
		raster.Draw(img, fset.prims[len(fset.prims)-1], cam, d.set.CurveTiling, caption(last))
		return 1, last, writeImage(o.out, func(w io.Writer) error { return png.Encode(w, img) })
	}
	g := &gif.GIF{}
	for i := range fset.times {
		img := image.NewRGBA(image.Rect(0, 0, o.w, o.h))
		raster.Draw(img, fset.prims[i], cam, d.set.CurveTiling, caption(fset.times[i]))
		p := image.NewPaletted(img.Bounds(), palette.Plan9)
		draw.Draw(p, p.Bounds(), img, image.Point{}, draw.Src)
		g.Image = append(g.Image, p)
		g.Delay = append(g.Delay, frameDelay(fset.times, i, o.speed, o.fps))
	}
	return len(g.Image), last, writeImage(o.out, func(w io.Writer) error { return gif.EncodeAll(w, g) })
}

// animationTimes are the frame times of an animation to end: k·speed/fps,
// at most maxFrames of them (spread over the run when there would be
// more).
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

func caption(t float64) string { return "t = " + strconv.FormatFloat(t, 'f', 2, 64) + " s" }

func writeImage(path string, enc func(io.Writer) error) error {
	return writeAtomic(path, enc)
}
