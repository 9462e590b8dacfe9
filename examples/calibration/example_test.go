package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// The worked example: the fit recovers the true ball behind bounce.csv
// (elasticity 0.75, gravity −9.81 m/s²) within two standard errors, and
// the residual's rms is the recording's noise, 3 mm (within 20 %).
func Example() {
	if err := run(os.Stdout, ".", ""); err != nil {
		panic(err)
	}
	// Output:
	// fitted 90 positions, rms residual 2.89 mm, converged: true
	// ball.elasticity    0.7500 ± 0.0002
	// ball.gravity      -9.8105 ± 0.0049
}

func TestRecoversTrueBall(t *testing.T) {
	_, _, res, err := fit(".")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{trueElasticity, trueGravity} {
		e := res.Params[i]
		if !e.Identifiable || !numtest.Within(e.Value, want, 2*e.StdErr) {
			t.Errorf("%s = %v ± %v, true %v", e.Name, e.Value, e.StdErr, want)
		}
	}
	if !numtest.Within(res.RMS, noise, 0.2*noise) {
		t.Errorf("rms residual %v, noise %v", res.RMS, noise)
	}
}

// bounce.csv is what -generate writes: regenerate it with
// go run ./examples/calibration -generate when this fails.
func TestRecordingUpToDate(t *testing.T) {
	var b bytes.Buffer
	if err := writeRecording(&b, "."); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("bounce.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, b.Bytes()) {
		t.Error("bounce.csv is stale: run go run ./examples/calibration -generate")
	}
}

// The plot is drawn.
func TestDrawFit(t *testing.T) {
	sim, data, _, err := fit(".")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "fit.png")
	if err := drawFit(sim, data, out); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(out); err != nil || st.Size() < 1000 {
		t.Errorf("plot: %v, %v", st, err)
	}
}

// The figure goes to the README's docs/assets/calibration.png, which the
// run redraws, never to a new file in the working directory (the module
// root, where the README runs the example).
func TestDefaultFigure(t *testing.T) {
	if filepath.Dir(defaultFigure) != filepath.Join("docs", "assets") {
		t.Errorf("the default figure %s is not in docs/assets", defaultFigure)
	}
	if _, err := os.Stat(filepath.Join("..", "..", defaultFigure)); err != nil {
		t.Errorf("the README's figure: %v", err)
	}
}
