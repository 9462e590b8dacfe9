package docs_test

import (
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/scene"
)

// composition.md's table of loop settings states the defaults that
// graph's constants hold and the scene keys scene.Loops decodes: a row
// per setting, "| `GoField` | `scene_key` | default | …".
func TestCompositionLoopSettingsTable(t *testing.T) {
	raw, err := os.ReadFile("composition.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	rows := []string{
		"| `Refuse` | `refuse` | false |",
		"| `RelTol`, `AbsTol` | `rtol`, `atol` | " + g(graph.DefaultLoopRelTol) + ", " + g(graph.DefaultLoopAbsTol) + " |",
		"| `MaxIter` | `max_iter` | " + strconv.Itoa(graph.DefaultLoopMaxIter) + " |",
		"| `MaxFallbackIter` | `max_fallback_iter` | " + strconv.Itoa(graph.DefaultLoopFallbackIter) + " |",
		"| `Memory` | `memory` | " + strconv.Itoa(graph.DefaultLoopMemory) + " |",
	}
	for _, r := range rows {
		if !strings.Contains(doc, r) {
			t.Errorf("composition.md lacks the row %q", r)
		}
	}
	// Every scene key of the table is one scene.Loops decodes, and every
	// key it decodes is in the table.
	typ := reflect.TypeFor[scene.Loops]()
	for i := range typ.NumField() {
		key, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if !strings.Contains(doc, "| `"+key+"`") && !strings.Contains(doc, ", `"+key+"` |") {
			t.Errorf("scene key loops.%s is not in composition.md's table", key)
		}
	}
}
