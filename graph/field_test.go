package graph_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// oscillator is a 2 kg mass on a Cartesian spring to the origin, moving.
func oscillator(t *testing.T) *graph.Sim {
	t.Helper()
	m, _ := masspoint.New(masspoint.Params{Mass: 2, InitialPosition: [3]float64{1, 0, 0}, InitialVelocity: [3]float64{0, 3, 0}})
	g := graph.New()
	g.Add("m1", m)
	p := springdamper.DefaultParams()
	p.Stiffness = [3]float64{50, 50, 50}
	if _, err := springdamper.Connect(g, "k", p, node.GroundAt([3]float64{}), node.Body("m1")); err != nil {
		t.Fatal(err)
	}
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A Field reads what Value reads — state fields, outputs (evaluated when
// stale) and single components — at every step, and Set writes what
// SetValue writes.
func TestFieldMatchesValue(t *testing.T) {
	s := oscillator(t)
	paths := []string{"m1.velocity", "m1.position[1]", "k.force", "k.distance", "k.m1_force[0]"}
	fields := make([]*graph.Field, len(paths))
	for i, p := range paths {
		f, err := s.Field(p)
		if err != nil {
			t.Fatal(err)
		}
		fields[i] = f
	}
	buf := make([]float64, 3)
	for range 5 {
		if err := s.Step(0.01); err != nil {
			t.Fatal(err)
		}
		for i, f := range fields {
			want, _ := s.Value(paths[i])
			if f.Len() != len(want) {
				t.Fatalf("%s: Len %d, want %d", paths[i], f.Len(), len(want))
			}
			if err := f.Get(buf); err != nil {
				t.Fatal(err)
			}
			for j := range want {
				if buf[j] != want[j] {
					t.Errorf("%s[%d] = %v, Value says %v", paths[i], j, buf[j], want[j])
				}
			}
			if a, err := f.At(f.Len() - 1); err != nil || a != want[len(want)-1] {
				t.Errorf("%s: At = %v, %v", paths[i], a, err)
			}
		}
	}
	// Still valid after Run (which swaps the state buffers) and SetState.
	v := fields[0]
	if _, err := s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 7}); err != nil {
		t.Fatal(err)
	}
	want, _ := s.Value("m1.velocity")
	v.Get(buf)
	if buf[0] != want[0] || buf[1] != want[1] {
		t.Errorf("after Run: %v, want %v", buf, want)
	}
	if err := v.Set([]float64{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	want, _ = s.Value("m1.velocity")
	if want[0] != 1 || want[2] != 3 {
		t.Errorf("after Set, Value = %v", want)
	}
	force, _ := s.Field("k.force")
	if !force.IsOutput() || force.Set([]float64{0, 0, 0}) == nil {
		t.Error("an output can be set")
	}
	if v.Set([]float64{1, 2}) == nil || v.Set([]float64{1, 2, nan()}) == nil {
		t.Error("Set accepted a wrong length or a NaN")
	}
}

func nan() float64 { z := 0.0; return z / z }

// Get and At allocate nothing, for state fields and for outputs that
// need re-evaluating after each step.
func TestFieldGetDoesNotAllocate(t *testing.T) {
	s := oscillator(t)
	v, _ := s.Field("m1.velocity")
	f, _ := s.Field("k.force")
	d, _ := s.Field("k.distance")
	buf := make([]float64, 3)
	if a := numtest.AllocsPerRun(100, func() {
		if err := s.Step(0.001); err != nil {
			t.Fatal(err)
		}
		_ = v.Get(buf)
		_ = f.Get(buf)
		_, _ = d.At(0)
	}); a != 0 {
		t.Errorf("%v allocations per step + Get", a)
	}
}

// Resolving a bad path is an error naming it, with a suggestion.
func TestFieldErrors(t *testing.T) {
	s := oscillator(t)
	for _, c := range []struct{ path, msg string }{
		{"m1.velocty", "velocity"},
		{"m2.velocity", "m1"},
		{"m1.velocity[3]", "component 3"},
		{"m1.velocity[x]", "bad component index"},
	} {
		_, err := s.Field(c.path)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Field(%q): %v; want an error mentioning %q", c.path, err, c.msg)
		}
	}
	v, _ := s.Field("m1.velocity")
	defer func() {
		if recover() == nil {
			t.Error("Get into a short buffer did not panic")
		}
	}()
	_ = v.Get(make([]float64, 2))
}
