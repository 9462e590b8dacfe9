package export_test

import (
	"fmt"
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
// oscillator imported into cosim: fmi3SetFloat64 of its input,
// fmi3DoStep and fmi3GetFloat64 of its outputs. The process binary,
// in-process and isolated, makes each call a round trip to the cosim
// process that runs the scene; the c-shared binary runs the scene in the
// FMU's process, here cosim's FMU host (isolated: a Go runtime cannot
// share cosim's process), each call a round trip to the host. The
// difference from BenchmarkSceneStep is the per-step cost of the
// transport.
func BenchmarkExportedStep(b *testing.B) {
	for _, tc := range []struct {
		binary  string
		isolate bool
	}{{process, false}, {process, true}, {cshared, true}} {
		b.Run(fmt.Sprintf("%s/isolate=%v", tc.binary, tc.isolate), func(b *testing.B) {
			fmu := oscillatorFMU(b, tc.binary)
			imp := fmt.Sprintf(`{"name": "imported", "nodes": [{"name": "osc", "type": "fmu", "params": {"path": %q, "isolate": %v}}], "run": {"dt": 0.001, "end": 1}}`, fmu, tc.isolate)
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
		})
	}
}
