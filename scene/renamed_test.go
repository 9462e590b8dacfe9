package scene_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/nodes"
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
