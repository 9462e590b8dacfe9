package springdamper_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// The outputs were renamed from Exudyn's CamelCase (Displacement,
// Distance, Velocity, Force, PotentialEnergy) to snake_case. A graph
// still resolves the old names — edges, Value, Field, Record — to the
// same values, and logs one deprecation warning per old name that names
// the new one. (No other test of this package uses an old name: the
// warning is logged once per process.)
func TestFormerOutputNames(t *testing.T) {
	var logs bytes.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))

	g := graph.New()
	m := newMass(t, 2, [3]float64{0, -1, 0}, [3]float64{})
	g.Add("m", m)
	p := springdamper.DefaultParams()
	p.Stiffness = [3]float64{100, 100, 100}
	if _, err := springdamper.Connect(g, "k", p, node.GroundAt([3]float64{}), node.Body("m")); err != nil {
		t.Fatal(err)
	}
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(t.Context(), graph.Settings{Dt: 1e-3, Steps: 10, Record: []string{"k.Force", "k.force"}})
	if err != nil {
		t.Fatal(err)
	}
	// Each recorded path keeps the name it was asked by; the values are
	// the same.
	h := res.History
	if old, cur := h.Column("k.Force[1]"), h.Column("k.force[1]"); len(old) == 0 || len(old) != len(cur) || old[len(old)-1] != cur[len(cur)-1] {
		t.Errorf("recorded k.Force[1] %v, k.force[1] %v (columns %v): want the same", old, cur, h.Columns)
	}
	pairs := [][2]string{{"Displacement", "displacement"}, {"Distance", "distance"}, {"Velocity", "velocity"}, {"Force", "force"}, {"PotentialEnergy", "potential_energy"}}
	for _, pr := range pairs {
		old, err := sim.Value("k." + pr[0])
		if err != nil {
			t.Errorf("Value(k.%s): %v", pr[0], err)
			continue
		}
		cur, _ := sim.Value("k." + pr[1])
		if len(old) == 0 || len(old) != len(cur) || old[0] != cur[0] {
			t.Errorf("k.%s = %v, k.%s = %v: want the same", pr[0], old, pr[1], cur)
		}
	}
	out := logs.String()
	for _, pr := range pairs {
		want := `field \"` + pr[0] + `\" of springdamper was renamed \"` + pr[1] + `\"`
		if n := strings.Count(out, want); n != 1 {
			t.Errorf("%d warnings for %s, want 1 naming %s; the log:\n%s", n, pr[0], pr[1], out)
		}
	}
}
