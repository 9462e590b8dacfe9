package export

import (
	"math"
	"os"
	"testing"

	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/nodes"
)

// oscillatorInstance is an initialized instance of the oscillator scene
// (testdata/oscillator.json: value references 0 time, 1 m, 2-4 k, 5-7
// the force input F, 8-10 x, 11 y, 12-14 spring.force), from t = 0.
func oscillatorInstance(t testing.TB) *Instance {
	t.Helper()
	data, err := os.ReadFile("testdata/oscillator.json")
	if err != nil {
		t.Fatal(err)
	}
	dir, m := resourcesOf(t, data)
	in := NewInstance(dir, nodes.Registry(), func(s fmi.CallStatus, cat, msg string) { t.Fatal(msg) })
	t.Cleanup(in.Free)
	if in.Instantiate(m.Token, "osc", false) != fmi.StatusOK ||
		in.EnterInitializationMode(false, 0, 0, false, 0) != fmi.StatusOK ||
		in.ExitInitializationMode() != fmi.StatusOK {
		t.Fatal("initialization failed")
	}
	for i, name := range []string{"time", "m", "k", "F", "x", "y", "spring.force"} {
		if m.Variables[i].Name != name {
			t.Fatalf("variable %d is %s, the test expects %s", i, m.Variables[i].Name, name)
		}
	}
	return in
}

// oscillatorVRs are the value references of the oscillator's force input
// and its outputs x and y (see oscillatorInstance).
var oscillatorIn, oscillatorOut = []uint32{3}, []uint32{4, 5}

// BenchmarkInstanceDoStep is the Go side of one communication step of a
// master on the oscillator, called from Go: fmi3SetFloat64 of its force
// input, fmi3DoStep of one scene step (1 ms) or of 1.5 ms (split into
// two sub-steps of 0.75 ms), fmi3GetFloat64 of its outputs. It is the
// work either binary does per step, without its transport; in steady
// state it allocates nothing (TestDoStepAllocatesNothing).
func BenchmarkInstanceDoStep(b *testing.B) {
	for _, tc := range []struct {
		name string
		h    float64
	}{{"whole", 1e-3}, {"substeps", 1.5e-3}} {
		b.Run(tc.name, func(b *testing.B) {
			in := oscillatorInstance(b)
			f := []uint64{0, math.Float64bits(-1), 0}
			out := make([]uint64, 4)
			t := 0.0
			b.ReportAllocs()
			for b.Loop() {
				if in.Set(TypeFloat64, oscillatorIn, f) != fmi.StatusOK {
					b.Fatal("set")
				}
				s, last := in.DoStep(t, tc.h)
				if s != fmi.StatusOK {
					b.Fatal(s)
				}
				t = last
				if in.Get(TypeFloat64, oscillatorOut, out) != fmi.StatusOK {
					b.Fatal("get")
				}
			}
		})
	}
}

// TestDoStepAllocatesNothing: once initialized, a master's step — Set of
// an input, DoStep (a whole number of the scene's steps, or sub-steps),
// Get of the outputs — allocates nothing on the Go side, so the exported
// FMU's per-step cost is the scene's step and not the garbage collector.
func TestDoStepAllocatesNothing(t *testing.T) {
	for _, h := range []float64{1e-3, 3e-3, 1.5e-3} {
		in := oscillatorInstance(t)
		f := []uint64{0, math.Float64bits(-2), 0}
		out := make([]uint64, 4)
		now := 0.0
		step := func() {
			if in.Set(TypeFloat64, oscillatorIn, f) != fmi.StatusOK {
				t.Fatal("set")
			}
			s, last := in.DoStep(now, h)
			if s != fmi.StatusOK {
				t.Fatal(s)
			}
			now = last
			if in.Get(TypeFloat64, oscillatorOut, out) != fmi.StatusOK {
				t.Fatal("get")
			}
		}
		step() // the first step may set up what later ones reuse
		if n := numtest.AllocsPerRun(200, step); n != 0 {
			t.Errorf("h = %v: %v allocations per step, want 0", h, n)
		}
	}
}
