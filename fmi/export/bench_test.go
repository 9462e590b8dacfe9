package export_test

import (
	"os"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// BenchmarkSceneStep is one step of the oscillator scene in cosim: the
// work an exported FMU's fmi3DoStep does besides the call.
func BenchmarkSceneStep(b *testing.B) {
	raw, err := os.ReadFile("testdata/oscillator.json")
	if err != nil {
		b.Fatal(err)
	}
	sc, err := scene.Decode(strings.NewReader(string(raw)))
	if err != nil {
		b.Fatal(err)
	}
	sim, err := sc.Compile(nodes.Registry(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer sim.Close()
	b.ReportAllocs()
	for b.Loop() {
		if err := sim.Step(1e-3); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExportedStep is one step of a graph holding the exported
// oscillator, imported in-process: fmi3SetFloat64 of its input, fmi3DoStep
// and fmi3GetFloat64 of its outputs, each a round trip to the process
// that runs the scene. The difference from BenchmarkSceneStep is the
// per-step cost of the export's transport.
func BenchmarkExportedStep(b *testing.B) {
	fmu := oscillatorFMU(b)
	imp := `{"name": "imported", "nodes": [{"name": "osc", "type": "fmu", "params": {"path": "` + fmu + `"}}], "run": {"dt": 0.001, "end": 1}}`
	sc, err := scene.Decode(strings.NewReader(imp))
	if err != nil {
		b.Fatal(err)
	}
	sim, err := sc.Compile(nodes.Registry(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer sim.Close()
	for b.Loop() {
		if err := sim.Step(1e-3); err != nil {
			b.Fatal(err)
		}
	}
}
