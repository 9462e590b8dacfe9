package main

import (
	"bytes"
	"image"
	"image/draw"
	"image/gif"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRenderGIF: an animated GIF of the spring-damper's 2 s at 10 frames
// per second has 21 frames whose delays add up to the run's duration
// (2 s = 200 hundredths, plus the last frame's 10), every frame drawn
// (a frame stores only what changed: the picture is the frames laid one
// over another), and the file is the same bytes for 1 and 3 workers.
func TestRenderGIF(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.gif")
	code, out, errs := cosim(t, "render", "-q", "../../examples/scenes/spring-damper.json", "-o", file, "--fps", "10", "--size", "64x48", "-j", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mustContain(t, "summary", out, "21 frames to t = 2 s")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Image) != 21 || g.Config.Width != 64 || g.Config.Height != 48 {
		t.Fatalf("%d frames of %dx%d, want 21 of 64x48", len(g.Image), g.Config.Width, g.Config.Height)
	}
	sum := 0
	canvas := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for i, im := range g.Image {
		sum += g.Delay[i]
		draw.Draw(canvas, im.Bounds(), im, im.Bounds().Min, draw.Src)
		if countNonBackground(canvas) < 0.05 {
			t.Errorf("frame %d is blank", i)
		}
	}
	if sum != 210 {
		t.Errorf("delays add up to %d hundredths, want 210", sum)
	}
	file3 := filepath.Join(dir, "b.gif")
	if code, _, errs := cosim(t, "render", "-q", "../../examples/scenes/spring-damper.json", "-o", file3, "--fps", "10", "--size", "64x48", "-j", "3"); code != 0 {
		t.Fatalf("-j 3: exit %d: %s", code, errs)
	}
	if b3, _ := os.ReadFile(file3); !bytes.Equal(b, b3) {
		t.Error("-j 1 and -j 3 write different files")
	}
}

// TestRenderPNG: --at draws one time; a time past the end and bad flags
// are errors.
func TestRenderPNG(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.png")
	code, out, errs := cosim(t, "render", "-q", "../../examples/scenes/bouncing-ball-events.json", "-o", file, "--at", "0.5", "--size", "80x60")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mustContain(t, "summary", out, "at t = 0.5 s")
	b, _ := os.ReadFile(file)
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if countNonBackground(img) < 0.005 {
		t.Error("blank PNG")
	}
	if code, _, errs := cosim(t, "render", "../../examples/scenes/bouncing-ball-events.json", "-o", file, "--at", "11"); code != 1 || !strings.Contains(errs, "the run ends at 10 s") {
		t.Errorf("--at past the end: exit %d, %s", code, errs)
	}
	for _, args := range [][]string{
		{"render", "x.json"},
		{"render", "x.json", "-o", "a.jpg"},
		{"render", "x.json", "-o", "a.gif", "--at", "1"},
		{"render", "x.json", "-o", "a.gif", "--size", "10x10"},
		{"render", "x.json", "-o", "a.gif", "--fps", "0"},
	} {
		if code, _, errs := cosim(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errs)
		}
	}
}

// TestReadmeAnimationCurrent: docs/assets holds exactly what the
// go:generate line of render.go draws today ("go generate ./cmd/cosim"
// redraws it).
func TestReadmeAnimationCurrent(t *testing.T) {
	src, err := os.ReadFile("render.go")
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, line := range strings.Split(string(src), "\n") {
		if rest, ok := strings.CutPrefix(line, "//go:generate go run . "); ok {
			args = strings.Fields(rest)
		}
	}
	if len(args) == 0 {
		t.Fatal("no go:generate line in render.go")
	}
	var committed string
	for i, a := range args {
		if a == "-o" {
			committed = args[i+1]
			args[i+1] = filepath.Join(t.TempDir(), filepath.Base(committed))
		}
	}
	if code, _, errs := cosim(t, args...); code != 0 {
		t.Fatalf("cosim %v: %s", args, errs)
	}
	want, err := os.ReadFile(committed)
	if err != nil {
		t.Fatalf("%v: run go generate ./cmd/cosim", err)
	}
	got, _ := os.ReadFile(args[indexOf(args, "-o")+1])
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go generate ./cmd/cosim and commit it", committed)
	}
	for _, readme := range []string{"../../README.md", "../../examples/scenes/README.md"} {
		b, _ := os.ReadFile(readme)
		if !strings.Contains(string(b), strings.TrimPrefix(committed, "../../")) && !strings.Contains(string(b), "docs/assets/"+filepath.Base(committed)) && !strings.Contains(string(b), "../../docs/assets/"+filepath.Base(committed)) {
			t.Errorf("%s does not show %s", readme, filepath.Base(committed))
		}
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// TestRenderVideo: with ffmpeg on PATH (optional; .ci/run installs it),
// render writes an H.264 MP4 and a VP9 WebM of the animation's frames:
// ffprobe reads back the codec, the size (padded to even sides) and the
// 21 frames of the spring-damper's 2 s at 10 per second. Without ffmpeg
// the error says it is optional and how to get it.
func TestRenderVideo(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no ffmpeg on PATH under CI: .ci/run installs it")
		}
		code, _, errs := cosim(t, "render", "-q", "../../examples/scenes/spring-damper.json", "-o", filepath.Join(t.TempDir(), "a.mp4"))
		if code == 0 || !strings.Contains(errs, "optional") {
			t.Errorf("without ffmpeg: exit %d, %s", code, errs)
		}
		t.Skip("no ffmpeg on PATH: install it (apt-get install ffmpeg) to test videos")
	}
	for _, c := range []struct{ ext, codec string }{{".mp4", "h264"}, {".webm", "vp9"}} {
		file := filepath.Join(t.TempDir(), "a"+c.ext)
		code, out, errs := cosim(t, "render", "-q", "../../examples/scenes/spring-damper.json", "-o", file, "--fps", "10", "--size", "65x48")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.ext, code, errs)
		}
		mustContain(t, "summary", out, "21 frames to t = 2 s")
		probe, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
			"-show_entries", "stream=codec_name,width,height,nb_read_frames", "-of", "csv=p=0", file).Output()
		if err != nil {
			t.Fatalf("ffprobe %s: %v", file, err)
		}
		if got, want := strings.TrimSpace(string(probe)), c.codec+",66,48,21"; got != want {
			t.Errorf("%s: ffprobe says %q, want %q (codec, width, height, frames)", c.ext, got, want)
		}
	}
}
