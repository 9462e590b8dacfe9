package verification

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/fmitest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/nodes/masspoint"
)

// lifetimeGraph is a graph of n nodes of type typ, batched into
// families: n nodes built with params (nil: the type's defaults), or, for a connector
// type, n connectors each between a mass point and the ground. A required
// input (a control block's) is fed by a constant node of its shape and
// units.
func lifetimeGraph(t *testing.T, typ node.Type, params map[string]any, n int) *graph.Graph {
	t.Helper()
	g := graph.New()
	for i := range n {
		name := fmt.Sprintf("n%d", i)
		if typ.Connector == nil {
			nd, err := typ.New(params)
			if err != nil {
				t.Fatal(err)
			}
			g.Add(name, nd)
			feedRequired(g, name, nd)
			continue
		}
		m, err := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{float64(i), -1, 0}})
		if err != nil {
			t.Fatal(err)
		}
		g.Add("m"+name, m)
		c, err := typ.Connector(nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := node.Connect(g, name, c, node.GroundAt([3]float64{float64(i), 0, 0}), node.Body("m"+name)); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// feedRequired connects a constant feed node to every required input of
// the node named name.
func feedRequired(g *graph.Graph, name string, nd node.Node) {
	for _, in := range nd.Spec().Inputs {
		if !in.Required() {
			continue
		}
		src := name + "_" + in.Name
		g.Add(src, newFeed(in))
		g.Connect(src+".out", name+"."+in.Name)
	}
}

// feed outputs 0.5 in every component of one field of an input's shape
// and units.
type feed struct {
	node.Stateless
	spec *node.Spec
}

func newFeed(in node.Input) *feed {
	return &feed{spec: node.NewSpec(node.Spec{Type: "feed",
		Outputs: []node.Field{{Name: "out", Shape: in.Shape, Units: in.Units, Description: "a constant"}},
		Meta:    node.Metadata{AlgorithmID: "TEST-FEED", Version: "1.0.0", Summary: "a constant feed for a required input"}})}
}

func (f *feed) Spec() *node.Spec { return f.spec }

func (f *feed) Outputs(_ float64, _ []float64, _ node.Inputs, dst []float64) error {
	for i := range dst {
		dst[i] = 0.5
	}
	return nil
}

// liveHeap is the live heap once collections have freed everything they
// can: the cleanups of collected batch rows run on their own goroutine
// after a collection (they prune the members' lists, and hold the
// members until they run), so it collects until the heap has stopped
// shrinking for three rounds in a row (10 s at most).
func liveHeap() uint64 {
	var st runtime.MemStats
	deadline := time.Now().Add(10 * time.Second)
	last, still := uint64(math.MaxUint64), 0
	for still < 3 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
		runtime.ReadMemStats(&st)
		if st.HeapAlloc >= last {
			still++
		} else {
			still = 0
		}
		last = min(last, st.HeapAlloc)
	}
	return st.HeapAlloc
}

// TestRepeatedBuildsKeepMemoryFlat builds a graph of every registered
// node type (control blocks fed constants on their required inputs, and
// an imported FMU) 1000 times, dropping each Sim, and requires that every
// dropped Sim is collected (a weak pointer to it is nil after garbage
// collection) and that the live heap does not grow: the nodes keep none
// of the batches their earlier graphs built. The reference for "flat" is
// the cost of one Sim, measured by keeping 20 alive: 1000 dropped builds
// may leave at most two Sims' worth (allocator and runtime noise), where
// nodes that kept their batches would keep a thousand sets of parameter
// rows. Dropping the last Sim brings the heap back as well.
func TestRepeatedBuildsKeepMemoryFlat(t *testing.T) {
	builds, n := 1000, 64
	if testing.Short() || raceEnabled {
		n = 8 // still 1000 builds: the leak grows with them, not with n
	}
	// rigidbody2d logs a deprecation warning at each construction.
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, typ := range nodes.Types() {
		t.Run(typ.Name, func(t *testing.T) {
			buildsKeepMemoryFlat(t, lifetimeGraph(t, typ, nil, n), builds)
		})
	}
	// An imported FMU (the registry's dynamic type "fmu"): its nodes own
	// an FMU instance each, which builds must not copy or keep.
	t.Run("fmu", func(t *testing.T) {
		f := fmitest.Reference(t, "VanDerPol", 2)
		g := lifetimeGraph(t, fmi.Type(), map[string]any{fmi.ParamPath: f.Zip}, min(n, 8))
		t.Cleanup(func() {
			for _, name := range g.Names() {
				if nd, _ := g.Node(name); nd != nil {
					if c, ok := nd.(io.Closer); ok {
						c.Close()
					}
				}
			}
		})
		buildsKeepMemoryFlat(t, g, builds)
	})
}

// buildsKeepMemoryFlat builds g a number of times, dropping each Sim,
// and requires that every dropped Sim is collected and the live heap
// stays flat (TestRepeatedBuildsKeepMemoryFlat says how flat).
func buildsKeepMemoryFlat(t *testing.T, g *graph.Graph, builds int) {
	t.Helper()
	build := func() *graph.Sim {
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := liveHeap()
	kept := make([]*graph.Sim, 20)
	for i := range kept {
		kept[i] = build()
	}
	perSim := float64(liveHeap()-base) / float64(len(kept))
	runtime.KeepAlive(kept)
	kept = nil
	before := liveHeap()
	var weaks []weak.Pointer[graph.Sim]
	for i := range builds {
		s := build()
		if i%50 == 0 {
			weaks = append(weaks, weak.Make(s))
		}
	}
	after := liveHeap()
	for i, w := range weaks {
		if w.Value() != nil {
			t.Errorf("build %d: the dropped Sim is still reachable after garbage collection", 50*i)
		}
	}
	if grew := float64(after) - float64(before); grew > 2*perSim {
		t.Errorf("live heap grew by %.0f bytes over %d dropped builds (one Sim is %.0f bytes): the nodes keep old batches", grew, builds, perSim)
	}
	if grew := float64(after) - float64(base); grew > 2*perSim {
		t.Errorf("after dropping every Sim the live heap is %.0f bytes above the graph alone (one Sim is %.0f bytes)", grew, perSim)
	}
	runtime.KeepAlive(g)
}

// TestBuiltSimSeesSetParams: a Sim built before a SetParams on one of
// its (batched) nodes runs with the new parameters, exactly as a Sim
// built after it; the batch reads the node's published parameters.
func TestBuiltSimSeesSetParams(t *testing.T) {
	g := graph.New()
	var ms []*masspoint.Node
	for i := range 8 {
		m, err := masspoint.New(masspoint.Params{Mass: 2, Gravity: [3]float64{0, -9.81, 0}, InitialPosition: [3]float64{float64(i), 0, 0}})
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
		g.Add(fmt.Sprintf("m%d", i), m)
	}
	run := func(s *graph.Sim) []float64 {
		if _, err := s.Run(context.Background(), graph.Settings{Dt: 1e-3, Steps: 50}); err != nil {
			t.Fatal(err)
		}
		return s.State(nil)
	}
	early, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	// Builds in between, dropped, must not matter either.
	for range 10 {
		if _, err := g.Build(); err != nil {
			t.Fatal(err)
		}
	}
	if err := ms[3].SetParams(map[string]any{"mass": 5.0, "gravity": []float64{1, 2, 3}}); err != nil {
		t.Fatal(err)
	}
	late, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	got, want := run(early), run(late)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("state %d: %v from the Sim built before SetParams, %v from one built after", i, got[i], want[i])
		}
	}
	// And the change is real: mass 3's trajectory differs from mass 2's
	// shifted by one metre.
	if got[3*6+1] == got[2*6+1] {
		t.Errorf("mass 3 moved as mass 2 did: SetParams had no effect")
	}
}
