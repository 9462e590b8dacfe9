package main

import (
	"image"
	_ "image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The composition examples — the PID position controller, the cruise
// control with a saturating engine, the vehicle of four quarter-car
// subsystems and the amplifier's algebraic loop — are each drawn by
// cosim view (a page that holds every node's name and the recorded
// fields' plots) and plotted by cosim run --plot with the fields
// examples/scenes/README.md suggests (a PNG with more than one colour:
// the curves are drawn). Their numbers are held by scene's example
// tests (TestPIDMassSpringExample, TestCruiseControlExample,
// TestAmplifierLoopExample) and the vehicle's by cmd/cosim's subsystem
// tests; the pictures of cosim render by TestGoldenImages. The run
// summary of the loop scene names the loop it solved.
func TestCompositionExamplesViewAndPlot(t *testing.T) {
	cases := []struct {
		file  string
		nodes []string
		plot  []string
	}{
		{"pid-mass-spring.json", []string{"mass", "pid", "ref"}, []string{"mass.position[0]", "ref.value[0]"}},
		{"cruise-control.json", []string{"car", "pid", "setpoint"}, []string{"car.velocity[0]", "setpoint.value"}},
		{"four-corner-vehicle.json", []string{"front_left.body", "rear_right.wheel"}, []string{"front_left.body.position[1]", "front_right.body.position[1]", "rear_left.body.position[1]", "rear_right.body.position[1]"}},
		{"amplifier-loop.json", []string{"amp_in", "amp", "feedback"}, []string{"mass.position[0]", "amp.out[0]"}},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			scene := "../../examples/scenes/" + c.file
			page := filepath.Join(dir, c.file+".html")
			if code, _, errs := cosim(t, "view", scene, "-o", page); code != 0 {
				t.Fatalf("cosim view: exit %d: %s", code, errs)
			}
			html, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range c.nodes {
				if !strings.Contains(string(html), n) {
					t.Errorf("the view page lacks node %q", n)
				}
			}
			fig := filepath.Join(dir, c.file+".png")
			args := []string{"run", scene, "-q", "--plot", fig}
			for _, y := range c.plot {
				args = append(args, "-y", y)
			}
			if code, _, errs := cosim(t, args...); code != 0 {
				t.Fatalf("cosim run --plot: exit %d: %s", code, errs)
			}
			f, err := os.Open(fig)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			img, _, err := image.Decode(f)
			if err != nil {
				t.Fatalf("the plot is not a PNG: %v", err)
			}
			colours := map[[3]uint32]bool{}
			b := img.Bounds()
			for y := b.Min.Y; y < b.Max.Y; y += 3 {
				for x := b.Min.X; x < b.Max.X; x += 3 {
					r, g, bl, _ := img.At(x, y).RGBA()
					colours[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
				}
			}
			if len(colours) < 3 {
				t.Errorf("the plot has %d colours: nothing drawn", len(colours))
			}
			if c.file == "amplifier-loop.json" {
				code, out, errs := cosim(t, "run", scene, "--set", "run.end=0.1")
				if code != 0 || !strings.Contains(out, "algebraic loop through amp_in, amp, feedback (tear: amp_in.out[0], amp_in.out[1], amp_in.out[2]): ") || !strings.Contains(out, " solves, ") {
					t.Errorf("the run summary does not report the loop: exit %d\n%s%s", code, out, errs)
				}
			}
		})
	}
}
