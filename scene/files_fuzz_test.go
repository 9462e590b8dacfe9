package scene

import (
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/internal/textio"
	"github.com/cosimgo/cosim/nodes/source"
)

// FuzzLookupCSV reads arbitrary text as a lookup table: parseTable either
// refuses it with an error or returns a table that keeps its invariants
// (strictly increasing finite times, finite values, one value per time,
// at most source.MaxRows rows), and never panics. The seed corpus runs
// in go test; .ci/run fuzzes it briefly.
func FuzzLookupCSV(f *testing.F) {
	for _, s := range []string{
		"time,force\n0,1\n1,2\n",
		"time,force\n0,1\n1,1_0\n",
		"time,force,force\n0,1,2\n",
		"# comment\nt, force\n 0, 1\n0.5,2\n",
		"time,force\n0,1\n1,NaN\n",
		"time,force\n\"0\",\"1\"\n",
		"time,force\n0,1,2\n",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		tab, err := parseTable(textio.LimitReader(strings.NewReader(text), 1<<16, "the file"), "", "force")
		if err != nil {
			return
		}
		if len(tab.times) == 0 || len(tab.times) != len(tab.values) || len(tab.times) > source.MaxRows {
			t.Fatalf("%d times, %d values", len(tab.times), len(tab.values))
		}
		for i, x := range tab.times {
			if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(tab.values[i]) || math.IsInf(tab.values[i], 0) || i > 0 && !(x > tab.times[i-1]) {
				t.Fatalf("row %d: time %v value %v after %v", i, x, tab.values[i], tab.times[max(i-1, 0)])
			}
		}
	})
}
