package main

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// generateLines returns the arguments of the "//go:generate go run ."
// lines of a file of this package.
func generateLines(t *testing.T, file string) [][]string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, line := range strings.Split(string(src), "\n") {
		if rest, ok := strings.CutPrefix(line, "//go:generate go run . "); ok {
			out = append(out, strings.Fields(rest))
		}
	}
	return out
}

// imageDiff compares two images of one size: the mean absolute difference
// per channel (0–255) and the number of pixels with a channel more than
// 32 apart.
func imageDiff(a, b image.Image) (mean float64, far int) {
	r := a.Bounds()
	var sum, n, bad float64
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c1, c2 := a.At(x, y), b.At(x, y)
			r1, g1, b1, _ := c1.RGBA()
			r2, g2, b2, _ := c2.RGBA()
			worst := 0.0
			for _, d := range []float64{float64(r1>>8) - float64(r2>>8), float64(g1>>8) - float64(g2>>8), float64(b1>>8) - float64(b2>>8)} {
				if d < 0 {
					d = -d
				}
				sum += d
				worst = max(worst, d)
			}
			if worst > 32 {
				bad++
			}
			n++
		}
	}
	return sum / (3 * n), int(bad)
}

// TestGoldenImages draws every example scene as golden.go's go:generate
// lines do and compares the picture with the committed one: it fails when
// the mean channel difference exceeds 0.5 (of 255) or more than 20 pixels
// differ by more than 32 in a channel. The renderer is deterministic, so
// on one machine the pictures are equal; the tolerance absorbs the
// last-bit differences of floating point across CPUs (fused multiply-adds
// move an antialiased edge pixel by a level or two, and at worst flip one
// of its four samples, a quarter of the edge's contrast, on a few pixels),
// while the smallest change that matters is caught: a body of the minimum
// size (5 pixels in radius) moved by one radius changes about 50 pixels
// by over 100 levels, a 10 × 10 patch 100 pixels, one label hundreds.
func TestGoldenImages(t *testing.T) {
	lines := generateLines(t, "golden.go")
	if len(lines) < 8 {
		t.Fatalf("%d golden images, want one per example scene", len(lines))
	}
	scenes, _ := filepath.Glob("../../examples/scenes/*.json")
	for _, s := range scenes {
		found := false
		for _, l := range lines {
			found = found || slicesContains(l, s)
		}
		if !found {
			t.Errorf("example scene %s has no golden image in golden.go", s)
		}
	}
	for _, args := range lines {
		committed := args[indexOf(args, "-o")+1]
		t.Run(filepath.Base(committed), func(t *testing.T) {
			args := append([]string(nil), args...)
			out := filepath.Join(t.TempDir(), filepath.Base(committed))
			args[indexOf(args, "-o")+1] = out
			if code, _, errs := cosim(t, args...); code != 0 {
				t.Fatalf("cosim %v: %s", args, errs)
			}
			want, err := os.ReadFile(committed)
			if err != nil {
				t.Fatalf("%v: run go generate ./cmd/cosim", err)
			}
			got, _ := os.ReadFile(out)
			if bytes.Equal(got, want) {
				return
			}
			a, err1 := png.Decode(bytes.NewReader(want))
			b, err2 := png.Decode(bytes.NewReader(got))
			if err1 != nil || err2 != nil || a.Bounds() != b.Bounds() {
				t.Fatalf("%s is stale (not the same size or not a PNG): run go generate ./cmd/cosim", committed)
			}
			if mean, far := imageDiff(a, b); mean > 0.5 || far > 20 {
				t.Errorf("%s is stale: mean difference %.3f, %d pixels far off; run go generate ./cmd/cosim and look at it", committed, mean, far)
			}
		})
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestViewerDocShowsEveryScene: docs/viewer.md's gallery shows the golden
// image of every example scene, so a new scene cannot land without its
// picture in the guide.
func TestViewerDocShowsEveryScene(t *testing.T) {
	doc, err := os.ReadFile("../../docs/viewer.md")
	if err != nil {
		t.Fatal(err)
	}
	scenes, _ := filepath.Glob("../../examples/scenes/*.json")
	for _, p := range scenes {
		name := strings.TrimSuffix(filepath.Base(p), ".json")
		if !strings.Contains(string(doc), "(assets/scenes/"+name+".png)") {
			t.Errorf("docs/viewer.md does not show assets/scenes/%s.png", name)
		}
	}
}
