package fmi_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/fmitest"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// The Reference FMUs of the FMI standard (../shared/fmi/reference-fmus)
// ship, for every model, the result of its co-simulation interface run
// over its DefaultExperiment: <Model>_out.csv, one row per communication
// point, printed with the shortest decimal that reads back exactly. An
// importer that steps the same binary on the same communication points
// with the same inputs calls the same C code on the same doubles, so it
// must reproduce every value exactly; the tests below require bit
// equality (tolerance 0) and would fail on a single differing bit.

// csvTable is a reference CSV: its header and rows of text cells.
type csvTable struct {
	header []string
	rows   [][]string
}

func readCSV(t *testing.T, path string) csvTable {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	var tab csvTable
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if tab.header == nil {
			tab.header = rec
			continue
		}
		tab.rows = append(tab.rows, rec)
	}
	return tab
}

// cell converts a reference value to float64s as cosim carries it:
// booleans 0 or 1, arrays space-separated. ok is false for a string or
// binary value, which cosim does not carry.
func cell(s string) ([]float64, bool) {
	switch s {
	case "true":
		return []float64{1}, true
	case "false":
		return []float64{0}, true
	}
	var out []float64
	for _, f := range strings.Fields(s) {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, false
		}
		out = append(out, x)
	}
	return out, len(out) > 0
}

// referenceModels are the Reference FMUs with co-simulation in FMI 2.0
// and 3.0 (StateSpace is FMI 3.0 only).
var referenceModels = []struct {
	model    string
	versions []int
}{
	{"BouncingBall", []int{2, 3}},
	{"Dahlquist", []int{2, 3}},
	{"VanDerPol", []int{2, 3}},
	{"Stair", []int{2, 3}},
	{"Feedthrough", []int{2, 3}},
	{"Resource", []int{2, 3}},
	{"StateSpace", []int{3}},
}

// runReference runs node n alone on the communication points of the
// reference output, recording every column the node carries.
func runReference(t *testing.T, n node.Node, tab csvTable, workers int) ([]string, *graph.History) {
	t.Helper()
	var record, fields []string
	spec := n.Spec()
	for _, h := range tab.header[1:] {
		if spec.StateLayout.Index(h) >= 0 || spec.OutputLayout.Index(h) >= 0 {
			record = append(record, "fmu."+h)
			fields = append(fields, h)
		}
	}
	g := graph.New()
	g.Add("fmu", n)
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	t0, _ := strconv.ParseFloat(tab.rows[0][0], 64)
	t1, _ := strconv.ParseFloat(tab.rows[1][0], 64)
	if t0 != 0 {
		t.Fatalf("reference starts at %v", t0)
	}
	res, err := s.Run(context.Background(), graph.Settings{Dt: t1 - t0, Steps: len(tab.rows) - 1, Record: record, Mode: graph.CoSimulation{Workers: workers}})
	if err != nil {
		t.Fatal(err)
	}
	return fields, res.History
}

// compareReference compares a recorded history with the reference table,
// bit for bit, and returns the number of values compared.
func compareReference(t *testing.T, fields []string, h *graph.History, tab csvTable) int {
	t.Helper()
	if len(h.Times) != len(tab.rows) {
		t.Fatalf("%d rows recorded, the reference has %d", len(h.Times), len(tab.rows))
	}
	compared := 0
	for c, name := range tab.header[1:] {
		if !contains(fields, name) {
			continue
		}
		for r, row := range tab.rows {
			tr, _ := strconv.ParseFloat(row[0], 64)
			if !numtest.Within(h.Times[r], tr, 1e-12*math.Max(1, tr)) {
				t.Fatalf("row %d: time %v, reference %v", r, h.Times[r], tr)
			}
			want, ok := cell(row[c+1])
			if !ok {
				t.Fatalf("t=%v %s: reference value %q is not a number", tr, name, row[c+1])
			}
			for j, w := range want {
				col := "fmu." + name
				if len(want) > 1 {
					col = fmt.Sprintf("fmu.%s[%d]", name, j)
				}
				got := h.Column(col)
				if got == nil {
					t.Fatalf("no recorded column %s", col)
				}
				if g := got[r]; math.Float64bits(g) != math.Float64bits(w) && !(g == 0 && w == 0) {
					t.Errorf("t=%v %s = %v, reference %v (difference %g)", tr, col, g, w, g-w)
				}
				compared++
			}
		}
	}
	return compared
}

// TestReferenceCoSimulation imports every Reference FMU with
// co-simulation, FMI 2.0 and 3.0, from its .fmu archive and from its
// unpacked directory, runs it over its DefaultExperiment on the
// reference's communication points and compares every carried column of
// <Model>_out.csv bit for bit (see above). Strings and binaries are not
// carried; the columns compared are listed in the log.
func TestReferenceCoSimulation(t *testing.T) {
	for _, rm := range referenceModels {
		for _, v := range rm.versions {
			f := fmitest.Reference(t, rm.model, v)
			tab := readCSV(t, f.Out)
			for _, src := range []struct{ name, path string }{{"fmu", f.Zip}, {"dir", f.Dir}} {
				t.Run(fmt.Sprintf("%s/FMI%d/%s", rm.model, v, src.name), func(t *testing.T) {
					n, err := fmi.Load(src.path, fmi.Options{Interface: fmi.InterfaceCoSimulation})
					if err != nil {
						t.Fatal(err)
					}
					defer n.(interface{ Close() error }).Close()
					fields, h := runReference(t, n, tab, 1)
					if len(fields) == 0 {
						t.Fatal("no column of the reference output is a field of the node")
					}
					compared := compareReference(t, fields, h, tab)
					t.Logf("%d values of %v compared over %d rows", compared, fields, len(tab.rows))
				})
			}
		}
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
