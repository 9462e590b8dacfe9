package fmi_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/fmitest"
	"github.com/cosimgo/cosim/node"
)

// BenchmarkDoStep measures what one communication step of the Reference
// FMU Dahlquist (FMI 3.0, one explicit Euler step inside: the model's
// own work is a few nanoseconds) costs:
//
//   - C/DoStep, C/DoStep+Get: fmi3DoStep (and fmi3GetFloat64 of x)
//     called from C (testdata/dostep_driver.c, compiled by the
//     benchmark), the floor any importer pays;
//   - Importer/Update: the co-simulation node's Update, which cosim's
//     graph calls: the state check, fmi3DoStep and fmi3GetFloat64
//     through cgo, the copy it keeps for replays;
//   - Importer/GraphStep: a graph holding the one node, stepped;
//   - Isolated/Update, Isolated/GraphStep: the same with the FMU in
//     cosim's FMU host process (Options.Isolate): one request and one
//     reply over pipes per step.
//
// The difference between Importer/Update and C/DoStep+Get is the
// importer's overhead per step; between Isolated/Update and
// Importer/Update, the cost of isolation (two pipe transfers and the
// scheduling of a second process).
func BenchmarkDoStep(b *testing.B) {
	f := fmitest.Reference(b, "Dahlquist", 3)
	const h = 0.1
	b.Run("C", func(b *testing.B) {
		driver := filepath.Join(b.TempDir(), "dostep_driver")
		fmitest.Compile(b, driver, "-O2", "-I"+fmitest.HeadersDir(b), "testdata/dostep_driver.c", "-ldl")
		fu, err := fmi.Open(f.Dir)
		if err != nil {
			b.Fatal(err)
		}
		defer fu.Close()
		md := fu.ModelDescription()
		bin := filepath.Join(f.Dir, "binaries", fmi.Platform(), md.CoSimulation.ModelIdentifier+".so")
		n := max(b.N, 1000)
		out, err := exec.Command(driver, bin, md.Token, filepath.Join(f.Dir, "resources")+"/", strconv.Itoa(n), "0.1", "1").Output()
		if err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		fs := strings.Fields(string(out))
		step, _ := strconv.ParseFloat(fs[0], 64)
		both, _ := strconv.ParseFloat(fs[1], 64)
		b.ReportMetric(step, "ns/DoStep")
		b.ReportMetric(both, "ns/DoStep+Get")
	})
	for _, mode := range []struct {
		name    string
		isolate bool
	}{{"Importer", false}, {"Isolated", true}} {
		benchUpdate(b, mode.name, f.Dir, fmi.Options{Isolate: mode.isolate}, h)
	}
}

// benchUpdate is BenchmarkDoStep's Update and GraphStep for one way of
// loading Dahlquist.
func benchUpdate(b *testing.B, name, dir string, opts fmi.Options, h float64) {
	b.Run(name+"/Update", func(b *testing.B) {
		n, err := fmi.Load(dir, opts)
		if err != nil {
			b.Fatal(err)
		}
		defer n.(interface{ Close() error }).Close()
		s := n.Spec()
		x, dst := make([]float64, s.StateLayout.Size()), make([]float64, s.StateLayout.Size())
		n.InitialState(x)
		in := s.DefaultInputs()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := n.Update(float64(i)*h, h, x, in, dst); err != nil {
				b.Fatal(err)
			}
			x, dst = dst, x
		}
	})
	b.Run(name+"/GraphStep", func(b *testing.B) {
		n, err := fmi.Load(dir, opts)
		if err != nil {
			b.Fatal(err)
		}
		g := graph.New()
		g.Add("d", n)
		s, err := g.Build()
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := s.Step(h); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDahlquistGraph steps a graph of 1 000 independent instances
// of the co-simulation Dahlquist FMU (one FMU opened once, instantiated
// 1 000 times) with 1 and 2 workers: one op is one graph step of all
// 1 000 nodes (ns/update is per node). The nodes update concurrently, so
// 2 workers should approach half the time on two idle cores. Isolated,
// each instance is a host process of its own (1 000 processes): a
// worker's step waits on the pipe while the host computes, so more
// workers than cores can still help there.
func BenchmarkDahlquistGraph(b *testing.B) {
	f := fmitest.Reference(b, "Dahlquist", 3)
	for _, c := range []struct {
		name    string
		isolate bool
		workers int
	}{{"workers=1", false, 1}, {"workers=2", false, 2}, {"isolated/workers=1", true, 1}, {"isolated/workers=2", true, 2}, {"isolated/workers=8", true, 8}} {
		w := c.workers
		b.Run(c.name, func(b *testing.B) {
			fu, err := fmi.Open(f.Dir)
			if err != nil {
				b.Fatal(err)
			}
			g := graph.New()
			const nodes = 1000
			for i := 0; i < nodes; i++ {
				n, err := fu.New(fmi.Options{Instance: "d" + strconv.Itoa(i), Isolate: c.isolate})
				if err != nil {
					b.Fatal(err)
				}
				g.Add("d"+strconv.Itoa(i), n)
			}
			fu.Close()
			s, err := g.Build()
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			b.ReportAllocs()
			b.ResetTimer()
			if _, err := s.Run(context.Background(), graph.Settings{Dt: 0.1, Steps: b.N, Mode: graph.CoSimulation{Workers: w}}); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/nodes, "ns/update")
		})
	}
}

var _ node.Node
