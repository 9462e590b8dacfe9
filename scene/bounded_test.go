package scene_test

import (
	"strings"
	"testing"

	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// Scene errors stay short whatever the file holds: huge
// vectors (2·10⁵ numbers), strings, names and keys (10⁶ bytes) are echoed
// bounded, so each message stays under 600 bytes (the scene path, the
// node, the field and a bounded echo); before, they made messages of
// megabytes.
func TestSceneErrorsBounded(t *testing.T) {
	nums := strings.TrimSuffix(strings.Repeat("1,", 200_000), ",")
	huge := strings.Repeat("x", 1_000_000)
	ball := func(params string) string {
		return `{"nodes": [{"name": "ball", "type": "ball", "params": {` + params + `}}], "run": {"dt": 0.01, "end": 1}}`
	}
	cases := map[string]string{
		"vector for a real":        ball(`"initial_position": [` + nums + `]`),
		"huge string for a real":   ball(`"initial_position": "` + huge + `"`),
		"huge unknown param":       ball(`"` + huge + `": 1`),
		"huge type":                `{"nodes": [{"name": "b", "type": "` + huge + `"}], "run": {"dt": 0.01, "end": 1}}`,
		"huge node name in record": `{"nodes": [{"name": "b", "type": "ball"}], "run": {"dt": 0.01, "end": 1}, "record": {"fields": ["` + huge + `.position"]}}`,
		"huge edge":                `{"nodes": [{"name": "b", "type": "ball"}], "edges": [{"from": "` + huge + `", "to": "b.table_position"}], "run": {"dt": 0.01, "end": 1}}`,
		"huge unknown key":         `{"nodes": [], "` + huge + `": 1, "run": {"dt": 0.01, "end": 1}}`,
		"huge method":              `{"nodes": [{"name": "b", "type": "ball"}], "run": {"mode": "monolithic", "dt": 0.01, "end": 1, "integrator": {"method": "` + huge + `"}}}`,
		"list for dt":              `{"nodes": [{"name": "b", "type": "ball"}], "run": {"dt": [` + nums + `], "end": 1}}`,
	}
	reg := nodes.Registry()
	for name, text := range cases {
		_, err := scene.Load(strings.NewReader(text), reg)
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if n := len(err.Error()); n > 600 {
			t.Errorf("%s: message of %d bytes: %.300s…", name, n, err.Error())
		}
	}
}
