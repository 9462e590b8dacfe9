package export

import (
	"github.com/cosimgo/cosim/fmi"
	"os"
	"testing"

	"github.com/cosimgo/cosim/nodes"
)

// BenchmarkInstanceDoStep is one fmi3DoStep of the oscillator (one scene
// step) and an fmi3GetFloat64 of its position on an Instance, called from
// Go: the work either binary does per step, without its transport.
func BenchmarkInstanceDoStep(b *testing.B) {
	data, err := os.ReadFile("testdata/oscillator.json")
	if err != nil {
		b.Fatal(err)
	}
	dir, m := resourcesOf(b, data)
	reg := nodes.Registry()
	in := NewInstance(dir, reg, func(s fmi.CallStatus, cat, msg string) { b.Fatal(msg) })
	defer in.Free()
	if in.Instantiate(m.Token, "bench", false) != fmi.StatusOK ||
		in.EnterInitializationMode(false, 0, 0, false, 0) != fmi.StatusOK ||
		in.ExitInitializationMode() != fmi.StatusOK {
		b.Fatal("initialization failed")
	}
	vrs := []uint32{4}
	out := make([]uint64, 3)
	t := 0.0
	b.ReportAllocs()
	for b.Loop() {
		s, last := in.DoStep(t, 1e-3)
		if s != fmi.StatusOK {
			b.Fatal(s)
		}
		t = last
		if in.Get(TypeFloat64, vrs, out) != fmi.StatusOK {
			b.Fatal("get")
		}
	}
}
