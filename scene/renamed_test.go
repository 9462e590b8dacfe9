package scene_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// A scene written before springdamper's outputs were renamed to
// snake_case (Force → force, Displacement → displacement, …) still
// runs: its edges and recorded fields resolve to the renamed outputs,
// with a deprecation warning naming the new name, and the recorded
// values are the new names' values.
func TestSceneWithFormerFieldNames(t *testing.T) {
	var logs bytes.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	const src = `{
  "nodes": [
    {"name": "mass", "type": "masspoint", "params": {"mass": 5, "initial_position": [1, 1, 0]}},
    {"name": "probe", "type": "masspoint", "params": {"mass": 1}}
  ],
  "connectors": [
    {"name": "spring", "type": "springdamper", "params": {"stiffness": [5000, 5000, 5000], "damping": [0, 250, 0]},
     "bodies": ["ground", "mass"], "local": [[1, 2, 0], [0, 0, 0]]}
  ],
  "edges": [{"from": "spring.Force", "to": "probe.force"}],
  "run": {"dt": 0.001, "steps": 20},
  "record": {"fields": ["spring.Displacement[1]", "spring.displacement[1]", "spring.Distance"]}
}`
	sc := decode(t, src)
	res, err := sc.Simulate(context.Background(), nodes.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	h := res.History
	old, cur := h.Column("spring.Displacement[1]"), h.Column("spring.displacement[1]")
	if len(old) == 0 || len(old) != len(cur) || old[len(old)-1] != cur[len(cur)-1] {
		t.Errorf("spring.Displacement[1] %v, spring.displacement[1] %v: want the same values", old, cur)
	}
	out := logs.String()
	for _, w := range []string{`\"Force\" of springdamper was renamed \"force\"`, `\"Displacement\" of springdamper was renamed \"displacement\"`, `\"Distance\" of springdamper was renamed \"distance\"`} {
		if !strings.Contains(out, w) {
			t.Errorf("no warning %s; the log:\n%s", w, out)
		}
	}
}

// A part scene written before springdamper's outputs were renamed names
// an output port's inner field by its former name ("spring.Velocity"):
// the port resolves to the renamed output, with the deprecation warning,
// and the parent reads through it the values a flat scene reads from
// "spring.velocity" (the same nodes and arithmetic: equal bits).
func TestScenePortWithFormerFieldName(t *testing.T) {
	var logs bytes.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	const part = `{
  "nodes": [{"name": "mass", "type": "masspoint", "params": {"mass": 2, "initial_position": [0.1, 0.05, 0]}}],
  "connectors": [{"name": "spring", "type": "springdamper", "params": {"stiffness": [50, 50, 50], "damping": [1, 1, 1]}, "bodies": ["ground", "mass"]}],
  "ports": {"outputs": [{"name": "rate", "from": "spring.Velocity"}]}
}`
	gain := `{"name": "g", "type": "gain", "params": {"size": 3, "gain": [2], "input_units": "m/s", "output_units": "m/s"}}`
	nested := decode(t, `{
  "nodes": [{"name": "a", "type": "subsystem", "graph": `+part+`}, `+gain+`],
  "edges": [{"from": "a.rate", "to": "g.in"}],
  "run": {"dt": 0.001, "steps": 200},
  "record": {"fields": ["g.out[0]", "g.out[1]"]}
}`)
	flat := decode(t, `{
  "nodes": [{"name": "mass", "type": "masspoint", "params": {"mass": 2, "initial_position": [0.1, 0.05, 0]}}, `+gain+`],
  "connectors": [{"name": "spring", "type": "springdamper", "params": {"stiffness": [50, 50, 50], "damping": [1, 1, 1]}, "bodies": ["ground", "mass"]}],
  "edges": [{"from": "spring.velocity", "to": "g.in"}],
  "run": {"dt": 0.001, "steps": 200},
  "record": {"fields": ["g.out[0]", "g.out[1]"]}
}`)
	var last [2][]float64
	for i, sc := range []*scene.Scene{nested, flat} {
		res, err := sc.Simulate(context.Background(), nodes.Registry(), nil)
		if err != nil {
			t.Fatal(err)
		}
		rows := res.History.Rows
		last[i] = rows[len(rows)-1]
	}
	if last[0][0] != last[1][0] || last[0][1] != last[1][1] || last[0][0] == 0 {
		t.Errorf("through the port g.out = %v, flat %v: want the same nonzero values", last[0], last[1])
	}
	if w := `field \"Velocity\" of springdamper was renamed \"velocity\"`; !strings.Contains(logs.String(), w) {
		t.Errorf("no warning %s; the log:\n%s", w, logs.String())
	}
}
