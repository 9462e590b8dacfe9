package verification

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/evidence.json from this run")

var collected struct {
	sync.Mutex
	ms []Measurement
}

// record adds a measurement to the evidence of this run and fails t when
// it does not pass its bound. Values are kept to 4 significant digits, so
// the evidence file does not depend on the last bits of a platform.
func record(t *testing.T, m Measurement) {
	t.Helper()
	m.Value = sig4(m.Value)
	name := t.Name()
	if i := strings.IndexByte(name, '/'); i >= 0 {
		name = name[:i]
	}
	m.Test = "verification." + name
	collected.Lock()
	collected.ms = append(collected.ms, m)
	collected.Unlock()
	t.Logf("%s %s: %s = %s (reference %s; %s) pass=%v", m.ID, m.Subject, m.Quantity, fmtG(m.Value), fmtG(m.Reference), m.Bound, m.Pass)
	if !m.Pass {
		t.Errorf("%s %s: %s = %v does not satisfy %s", m.ID, m.Subject, m.Quantity, m.Value, m.Bound)
	}
}

func sig4(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	return v
}

func fmtG(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func TestMain(m *testing.M) {
	flag.Parse()
	// The suite builds deprecated nodes many times; their construction
	// warnings (tested in their own package) would drown the output.
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})))
	code := m.Run()
	if code == 0 {
		code = checkEvidence()
	}
	os.Exit(code)
}

// checkEvidence writes (-update) or checks testdata/evidence.json against
// this run's measurements. A run filtered with -run checks only what it
// measured.
func checkEvidence() int {
	// With -count=N every test records N times: keep one per key.
	byKey := map[string]Measurement{}
	for _, m := range collected.ms {
		byKey[m.Key()] = m
	}
	var ms []Measurement
	for _, m := range byKey {
		ms = append(ms, m)
	}
	SortMeasurements(ms)
	if testing.Verbose() && len(ms) > 0 {
		var b bytes.Buffer
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSUBJECT\tQUANTITY\tMEASURED\tREFERENCE\tBOUND\tPASS")
		for _, m := range ms {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%v\n", m.ID, m.Subject, m.Quantity, fmtG(m.Value), fmtG(m.Reference), m.Bound, m.Pass)
		}
		tw.Flush()
		fmt.Print("\nVerification evidence measured by this run:\n\n", b.String(), "\n")
	}
	filtered := flag.Lookup("test.run").Value.String() != ""
	if *update {
		if filtered {
			fmt.Fprintln(os.Stderr, "verification: -update needs a full run (no -run filter)")
			return 1
		}
		data, _ := json.MarshalIndent(ms, "", "  ")
		if err := os.WriteFile("testdata/evidence.json", append(data, '\n'), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	old, err := Evidence()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if filtered {
		have := map[string]Measurement{}
		for _, m := range old {
			have[m.Key()] = m
		}
		var sub []Measurement
		for _, m := range ms {
			if o, ok := have[m.Key()]; ok {
				sub = append(sub, o)
			}
		}
		old = sub
	}
	if diff := cmp.Diff(old, ms); diff != "" && !(filtered && len(ms) == 0) {
		fmt.Fprintf(os.Stderr, "testdata/evidence.json is stale: run go test ./verification -update (-recorded +measured):\n%s", diff)
		return 1
	}
	return 0
}
