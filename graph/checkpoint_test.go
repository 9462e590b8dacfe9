package graph_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/nodes/masspoint"
)

func sameBits(t *testing.T, what string, a, b []float64) {
	t.Helper()
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Fatalf("%s: state[%d] = %v, want %v bit for bit", what, i, b[i], a[i])
		}
	}
}

// run advances s by steps in the given mode.
func advance(t *testing.T, s *graph.Sim, mode string, steps int) {
	t.Helper()
	set := graph.Settings{Dt: 1e-3, Steps: steps}
	var err error
	switch mode {
	case "co-simulation":
		_, err = s.Run(context.Background(), set)
	case "generalized-alpha":
		_, err = s.RunMonolithic(context.Background(), integrators.GeneralizedAlpha{RhoInf: 0.8}, nil, set)
	default:
		m, _ := integrators.ByName(mode)
		_, err = s.RunMonolithic(context.Background(), m, nil, set)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// Checkpoint, save, read, restore into a freshly built graph and continue:
// bit-identical to the uninterrupted run, in co-simulation and for every
// method with memory and without.
func TestCheckpointRestoreBitIdentical(t *testing.T) {
	dir := t.TempDir()
	modes := []string{"co-simulation"}
	for _, m := range integrators.Methods() {
		modes = append(modes, m.Name()) // every integrator, with and without memory
	}
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			ref, _ := chain(8).Build()
			advance(t, ref, mode, 120)
			want := ref.State(nil)

			s, _ := chain(8).Build()
			advance(t, s, mode, 70)
			path := filepath.Join(dir, mode+".ckpt")
			if err := s.Checkpoint().WriteFile(path); err != nil {
				t.Fatal(err)
			}
			c, err := graph.ReadCheckpoint(path)
			if err != nil {
				t.Fatal(err)
			}
			if mode != "co-simulation" && c.Integrator == nil {
				t.Fatal("monolithic checkpoint without the integrator's memory")
			}
			fresh, _ := chain(8).Build()
			if err := fresh.Restore(c); err != nil {
				t.Fatal(err)
			}
			if fresh.Time() != s.Time() || fresh.StepCount() != 70 {
				t.Errorf("restored time %v step %d, want %v 70", fresh.Time(), fresh.StepCount(), s.Time())
			}
			advance(t, fresh, mode, 50)
			sameBits(t, mode, want, fresh.State(nil))
			if fresh.Time() != ref.Time() {
				t.Errorf("time %v, want %v", fresh.Time(), ref.Time())
			}
		})
	}
}

// Restoring into a graph that differs is rejected with every difference
// named, and nothing is half-restored.
func TestRestoreMismatch(t *testing.T) {
	s, _ := chain(3).Build()
	advance(t, s, "co-simulation", 10)
	c := s.Checkpoint()

	other := chain(4)
	o, _ := other.Build()
	before := o.State(nil)
	err := o.Restore(c)
	var me *graph.MismatchError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "nodes in the checkpoint") {
		t.Fatalf("err = %v", err)
	}
	sameBits(t, "after a rejected restore", before, o.State(nil))

	c2 := *c
	c2.Nodes = append([]graph.NodeCheckpoint(nil), c.Nodes...)
	c2.Nodes[2].Layout = []graph.FieldSize{{Name: "x", Size: 2}}
	c2.Nodes[3].Type = "rock"
	c2.Version = 9
	s2, _ := chain(3).Build()
	err = s2.Restore(&c2)
	for _, want := range []string{"format version 9", "node m1: state layout [{x 2}] in the checkpoint, [{x 1} {v 1}] in the graph", "node m2 has type rock in the checkpoint, mass in the graph"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v\nwant %q", err, want)
		}
	}
}

// Truncated, corrupted or malformed files are rejected, whatever byte is
// damaged; nothing is returned from them.
func TestCheckpointCorruption(t *testing.T) {
	s, _ := chain(3).Build()
	advance(t, s, "co-simulation", 5)
	var buf bytes.Buffer
	if err := s.Checkpoint().Encode(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	if _, err := graph.DecodeCheckpoint(bytes.NewReader(good)); err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"empty":       nil,
		"truncated":   good[:len(good)-7],
		"header only": good[:bytes.IndexByte(good, '\n')+1],
		"trailing":    append(append([]byte{}, good...), '\n'),
		"bad magic":   append([]byte("cosim-checkpoinx"), good[16:]...),
	}
	for i := 0; i < len(good); i += 37 {
		b := append([]byte{}, good...)
		b[i] ^= 0x20
		cases[fmt.Sprintf("flipped byte %d", i)] = b
	}
	for name, data := range cases {
		c, err := graph.DecodeCheckpoint(bytes.NewReader(data))
		if err == nil || c != nil || !errors.Is(err, graph.ErrCorruptCheckpoint) {
			t.Errorf("%s: got %v, %v; want a corrupt-checkpoint error", name, c != nil, err)
		}
	}
}

// A failed save leaves the previous checkpoint intact and no temporary
// file behind.
func TestCheckpointAtomicWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.ckpt")
	s, _ := chain(3).Build()
	if err := s.Checkpoint().WriteFile(path); err != nil {
		t.Fatal(err)
	}
	prev, _ := os.ReadFile(path)
	bad := s.Checkpoint()
	bad.T0 = math.NaN() // JSON cannot encode NaN: the save fails midway
	if err := bad.WriteFile(path); err == nil {
		t.Fatal("saving a NaN clock succeeded")
	}
	now, _ := os.ReadFile(path)
	if !bytes.Equal(prev, now) {
		t.Error("a failed save changed the previous checkpoint")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the directory, want only the checkpoint", len(entries))
	}
}

// FuzzDecodeCheckpoint: no input makes the reader panic, and what it
// accepts restores into a matching graph or is rejected with an error.
func FuzzDecodeCheckpoint(f *testing.F) {
	s, _ := chain(2).Build()
	var buf bytes.Buffer
	s.Checkpoint().Encode(&buf)
	f.Add(buf.Bytes())
	f.Add([]byte("cosim-checkpoint 1 2 sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a\n{}"))
	// Golden files of every version, with integrator and coupling memory.
	for _, name := range []string{"v1/generalized-alpha-gmres", "v1/dormand-prince-events", "v2/coupling-iqn-ils-reuse", "v2/backward-euler-newton"} {
		if b, err := os.ReadFile(filepath.Join(goldenDir, name+".ckpt")); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("cosim-checkpoint 1 99999999999 sha256:00\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := graph.DecodeCheckpoint(bytes.NewReader(data))
		if err != nil {
			return
		}
		s, _ := chain(2).Build()
		_ = s.Restore(c)
	})
}

// A parameter missing from a checkpoint (one the node gained after the
// checkpoint was written) is accepted when the graph's value is the
// parameter's default, and is a mismatch otherwise.
func TestRestoreMissingParam(t *testing.T) {
	p := masspoint.DefaultParams()
	build := func(mass float64) *graph.Sim {
		q := p
		q.Mass = mass
		m, err := masspoint.New(q)
		if err != nil {
			t.Fatal(err)
		}
		g := graph.New()
		g.Add("m", m)
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct {
		mass float64
		ok   bool
	}{{1, true}, {2, false}} { // 1 kg is the default
		c := build(tc.mass).Checkpoint()
		c.Nodes = append([]graph.NodeCheckpoint(nil), c.Nodes...)
		params := map[string]any{}
		for k, v := range c.Nodes[0].Params {
			if k != "mass" {
				params[k] = v
			}
		}
		c.Nodes[0].Params = params
		err := build(tc.mass).Restore(c)
		if tc.ok && err != nil {
			t.Errorf("mass %v (the default) missing from the checkpoint: %v", tc.mass, err)
		}
		if !tc.ok && (err == nil || !strings.Contains(err.Error(), "parameter mass is not in the checkpoint")) {
			t.Errorf("mass %v (not the default) missing from the checkpoint: err = %v", tc.mass, err)
		}
	}
}
