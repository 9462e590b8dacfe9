package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden checkpoints of the current format version (testdata/checkpoints/vN) and their continuations")

// goldenCase is one golden checkpoint: a graph, a first run that leaves
// the integrator's or coupling strategy's memory in the Sim, and a second
// run that continues it.
type goldenCase struct {
	name  string
	build func(t *testing.T) *graph.Sim
	first func(ctx context.Context, s *graph.Sim) error
	then  func(ctx context.Context, s *graph.Sim) error
}

// goldenCases covers every integration method (with its settings, some
// not the defaults so that the settings part of the schema is exercised),
// the adaptive Dormand–Prince driver with and without events, and every
// coupling strategy with cross-step memory.
func goldenCases() []goldenCase {
	var cs []goldenCase
	chain8 := func(t *testing.T) *graph.Sim {
		s, err := chain(8).Build()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	mono := func(name string, m integrators.Method, is *integrators.Settings) {
		run := func(steps int) func(ctx context.Context, s *graph.Sim) error {
			return func(ctx context.Context, s *graph.Sim) error {
				_, err := s.RunMonolithic(ctx, m, is, graph.Settings{Dt: 1e-3, Steps: steps})
				return err
			}
		}
		cs = append(cs, goldenCase{name, chain8, run(40), run(25)})
	}
	for _, m := range integrators.Methods() {
		mono(m.Name, m, nil)
	}
	mono("generalized-alpha-rho0.8", integrators.GeneralizedAlpha(0.8), &integrators.Settings{NewtonTol: 1e-12, NewtonMaxIter: 20})
	mono("newmark-damped", integrators.Newmark(0.3025, 0.6), nil)
	mono("backward-euler-newton", integrators.Methods()[5], &integrators.Settings{NewtonTol: 1e-12, NewtonMaxIter: 7})
	// The linear-solver settings, and GMRES's reused Newton matrix (the
	// point where it was assembled is part of the memory).
	mono("generalized-alpha-gmres", integrators.GeneralizedAlpha(0.5), &integrators.Settings{
		LinearSolver: integrators.LinearGMRES, Preconditioner: integrators.PrecondILU0, Forcing: integrators.ForcingConstant,
		KrylovTol: 1e-10, KrylovRestart: 10, KrylovMaxIter: 200, JacobianMaxAge: 5})
	mono("implicit-trapezoid-banded", integrators.Methods()[6], &integrators.Settings{LinearSolver: integrators.LinearBanded})
	integrate := func(name string, build func(t *testing.T) *graph.Sim, t1, t2 float64, is *integrators.Settings) {
		cs = append(cs, goldenCase{name, build,
			func(ctx context.Context, s *graph.Sim) error { _, err := s.Integrate(ctx, t1, is); return err },
			func(ctx context.Context, s *graph.Sim) error { _, err := s.Integrate(ctx, t2, is); return err }})
	}
	integrate("dormand-prince-adaptive", chain8, 0.04, 0.065, &integrators.Settings{RTol: 1e-8, ATol: 1e-10, MaxStep: 0.01})
	integrate("dormand-prince-fixed", chain8, 0.04, 0.065, &integrators.Settings{FixedStep: 1e-3})
	rocket := func(t *testing.T) *graph.Sim {
		r := newRocket(1, -1, -0.3, true)
		r.level = 0.5
		g := graph.New()
		g.Add("rocket", r)
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	integrate("dormand-prince-events", rocket, 0.7, 1.2, nil)

	names := make([]string, 0)
	strategies := checkpointStrategies()
	for name := range strategies {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		st := strategies[name]
		run := func(steps int) func(ctx context.Context, s *graph.Sim) error {
			return func(ctx context.Context, s *graph.Sim) error {
				_, err := s.Run(ctx, graph.Settings{Dt: checkpointDt(st), Steps: steps, Coupling: st})
				return err
			}
		}
		cs = append(cs, goldenCase{"coupling-" + strings.ReplaceAll(name, " ", "-"), strong.sim, run(23), run(17)})
	}
	return cs
}

const goldenDir = "testdata/checkpoints"

// goldenContinuation is what a golden checkpoint must continue to: the
// time and the state, as the bits of each float64 in hex, after the
// second run.
type goldenContinuation struct {
	Time  string   `json:"time"`
	State []string `json:"state"`
}

type goldenFile struct {
	Comment       string                        `json:"comment"`
	Continuations map[string]goldenContinuation `json:"continuations"`
}

func bitsOf(v float64) string { return fmt.Sprintf("%016x", math.Float64bits(v)) }

// TestGoldenCheckpoints reads the committed checkpoint files of every
// format version (testdata/checkpoints/v1, v2, …) and of every case,
// restores each into a freshly built graph and continues it: the time and
// every state value must equal, bit for bit, what the run that wrote the
// file computed when it continued uninterrupted
// (testdata/checkpoints/continuations.json). The current version's files
// must also be exactly what this build writes for them, so that the file
// format cannot drift unnoticed.
//
// go test ./graph -run GoldenCheckpoints -update rewrites the current
// version's files and the continuations; files of older versions are
// never rewritten.
func TestGoldenCheckpoints(t *testing.T) {
	ctx := context.Background()
	cur := filepath.Join(goldenDir, fmt.Sprintf("v%d", graph.CheckpointVersion))
	contPath := filepath.Join(goldenDir, "continuations.json")
	cases := goldenCases()
	if *updateGolden {
		if err := os.MkdirAll(cur, 0o755); err != nil {
			t.Fatal(err)
		}
		gf := goldenFile{Comment: "Code generated by TestGoldenCheckpoints (go test ./graph -run GoldenCheckpoints -update); DO NOT EDIT.",
			Continuations: map[string]goldenContinuation{}}
		for _, c := range cases {
			s := c.build(t)
			if err := c.first(ctx, s); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if err := s.Checkpoint().WriteFile(filepath.Join(cur, c.name+".ckpt")); err != nil {
				t.Fatal(err)
			}
			if err := c.then(ctx, s); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			gc := goldenContinuation{Time: bitsOf(s.Time())}
			for _, v := range s.State(nil) {
				gc.State = append(gc.State, bitsOf(v))
			}
			gf.Continuations[c.name] = gc
		}
		b, err := json.MarshalIndent(gf, "", "\t")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(contPath, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(contPath)
	if err != nil {
		t.Fatal(err)
	}
	var gf goldenFile
	if err := json.Unmarshal(raw, &gf); err != nil {
		t.Fatal(err)
	}
	versions, err := filepath.Glob(filepath.Join(goldenDir, "v*"))
	if err != nil || len(versions) == 0 {
		t.Fatalf("no golden checkpoint versions in %s (%v)", goldenDir, err)
	}
	haveCur := false
	for _, dir := range versions {
		haveCur = haveCur || dir == cur
		found := 0
		for _, c := range cases {
			path := filepath.Join(dir, c.name+".ckpt")
			if _, err := os.Stat(path); err != nil && dir != cur {
				continue // an older version need not have every case
			}
			found++
			t.Run(filepath.Base(dir)+"/"+c.name, func(t *testing.T) {
				want, ok := gf.Continuations[c.name]
				if !ok {
					t.Fatalf("no continuation for %s in %s: run with -update", c.name, contPath)
				}
				ck, err := graph.ReadCheckpoint(path)
				if err != nil {
					t.Fatal(err)
				}
				for _, batched := range []bool{true, false} {
					s := c.build(t)
					s.SetBatching(batched)
					if err := s.Restore(ck); err != nil {
						t.Fatal(err)
					}
					if err := c.then(ctx, s); err != nil {
						t.Fatal(err)
					}
					if got := bitsOf(s.Time()); got != want.Time {
						t.Fatalf("batched=%v: time %v (%s), want %s", batched, s.Time(), got, want.Time)
					}
					got := s.State(nil)
					if len(got) != len(want.State) {
						t.Fatalf("batched=%v: %d state values, want %d", batched, len(got), len(want.State))
					}
					for i, v := range got {
						if bitsOf(v) != want.State[i] {
							t.Fatalf("batched=%v: state[%d] = %v (%s), want %s", batched, i, v, bitsOf(v), want.State[i])
						}
					}
				}
				if dir != cur {
					return
				}
				// The current version's file is what this build writes.
				s := c.build(t)
				if err := c.first(ctx, s); err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				if err := s.Checkpoint().Encode(&buf); err != nil {
					t.Fatal(err)
				}
				file, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(buf.Bytes(), file) {
					t.Errorf("%s differs from what this build writes: the checkpoint format changed without a version bump (or run with -update)", path)
				}
			})
		}
		if found == 0 {
			t.Errorf("%s holds no golden checkpoint of a known case", dir)
		}
	}
	if !haveCur {
		t.Errorf("no golden checkpoints for the current format version in %s: run with -update", cur)
	}
}
