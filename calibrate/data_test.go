package calibrate_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/calibrate"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/textio"
	"github.com/cosimgo/cosim/nodes/masspoint"
)

// One number syntax (textio.ParseNumber): "1_0" is not 10 and "0x1p-2"
// is not 0.25; a column given twice would count twice (standard errors
// √2 too small) and is refused.
func TestReadCSVStrict(t *testing.T) {
	for text, want := range map[string]string{
		"t,ball.position\n0,1_0\n":                 `data line 2, column ball.position: "1_0" is not a number: digit separators`,
		"t,ball.position\n0x1p-2,1\n":              `data line 2, time: "0x1p-2" is not a number: hexadecimal`,
		"t,ball.position,ball.position\n0,1,1\n":   "column ball.position is given twice (columns 2 and 3)",
		"t, ball.position ,ball.position\n0,1,1\n": "column ball.position is given twice",
	} {
		_, err := calibrate.ReadCSV(strings.NewReader(text))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v; want %q", text, err, want)
		}
	}
	// Data built in Go are held to the same rule.
	d := &calibrate.Data{Times: []float64{0, 1}, Columns: []string{"ball.position", "ball.position"}, Values: [][]float64{{1, 1}, {0.5, 0.5}}}
	_, err := calibrate.Fit(context.Background(), &calibrate.Problem{Sim: ballSim(t, 0.8, -9.81), Free: []calibrate.FreeParam{{Name: "ball.gravity"}}, Data: d}, nil)
	if err == nil || !strings.Contains(err.Error(), "column ball.position is given twice") {
		t.Errorf("duplicate column in Data: %v", err)
	}
}

// An endless input stops at the limit, as it is read (lowered from
// MaxDataBytes to 1 MiB: the same code, without reading 64 MiB).
func TestReadCSVLimit(t *testing.T) {
	f, err := os.Open("/dev/zero")
	if err != nil {
		t.Skip("no /dev/zero")
	}
	defer f.Close()
	defer calibrate.SetMaxDataBytes(1 << 20)()
	_, err = calibrate.ReadCSV(f)
	if !errors.Is(err, textio.ErrTooLarge) || !strings.Contains(err.Error(), "the data is larger than its limit of 1 MiB") {
		t.Errorf("/dev/zero: %v", err)
	}
	// Values, not only bytes: a header of many columns and rows of
	// empty cells.
	var head strings.Builder
	head.WriteString("t")
	for k := range 1 << 12 {
		fmt.Fprintf(&head, ",c%d", k)
	}
	r := io.MultiReader(strings.NewReader(head.String()+"\n"), &rowsReader{row: "0" + strings.Repeat(",", 1<<12) + "\n"})
	_, err = calibrate.ReadCSV(r)
	if !errors.Is(err, textio.ErrTooLarge) {
		t.Errorf("many values: %v", err)
	}
}

// rowsReader repeats one row forever.
type rowsReader struct {
	row string
	off int
}

func (r *rowsReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.row[r.off:])
		n += c
		r.off = (r.off + c) % len(r.row)
	}
	return n, nil
}

// One data row cannot give two parameters standard errors (nothing is
// left to estimate the noise from): an error, not "identifiable" with a
// null standard error. With the noise stated, the same row fits.
func TestFitTooFewValues(t *testing.T) {
	d := &calibrate.Data{Times: []float64{0.3}, Columns: []string{"ball.position", "ball.velocity"}, Values: [][]float64{{0.56, -2.9}}}
	free := []calibrate.FreeParam{{Name: "ball.gravity"}, {Name: "ball.initial_velocity"}}
	_, err := calibrate.Fit(context.Background(), &calibrate.Problem{Sim: ballSim(t, 0.8, -9.81), Free: free, Data: d}, nil)
	if err == nil || !strings.Contains(err.Error(), "2 data values for 2 free parameters") {
		t.Errorf("one row, two parameters: %v", err)
	}
	d.Sigma = []float64{0.01, 0.01}
	res, err := calibrate.Fit(context.Background(), &calibrate.Problem{Sim: ballSim(t, 0.8, -9.81), Free: free, Data: d}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Params {
		if !e.Identifiable || math.IsNaN(e.StdErr) || math.IsInf(e.StdErr, 0) {
			t.Errorf("%s: %+v", e.Name, e)
		}
	}
}

// A column of weight 0 is left out of N (it would otherwise shrink s² and
// the standard errors).
func TestFitZeroWeightNotCounted(t *testing.T) {
	d := synthetic(t, 0.8, -9.81, grid(0.02, 0.4, 20), 0, nil)
	d.Columns = append(d.Columns, "ball.velocity")
	for i := range d.Values {
		d.Values[i] = append(d.Values[i], 0)
	}
	d.Weights = []float64{1, 0}
	res, err := calibrate.Fit(context.Background(), &calibrate.Problem{Sim: ballSim(t, 0.8, -9.81), Free: []calibrate.FreeParam{{Name: "ball.gravity"}}, Data: d}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.N != 20 {
		t.Errorf("N = %d, want the 20 position values", res.N)
	}
}

// FuzzReadCSV reads arbitrary text as fit data: an error, or data whose
// shape and values keep Data's invariants; never a panic. The seed corpus
// runs in go test; .ci/run fuzzes it briefly.
func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"t,ball.position\n0,1\n0.1,0.9\n",
		"t,ball.position,ball.velocity\n0.1,1,\n0.2,0.9,-1\n",
		"time,a\n# c\n0,NaN\n1,2\n",
		"t,a,a\n0,1,1\n",
		"t,a\n1,1\n0,1\n",
		"t,a\n0,1_0\n",
		"t\n0\n",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		d, err := calibrate.ReadCSV(strings.NewReader(text))
		if err != nil {
			return
		}
		if len(d.Times) == 0 || len(d.Values) != len(d.Times) || len(d.Columns) == 0 {
			t.Fatalf("%d times, %d rows, %d columns", len(d.Times), len(d.Values), len(d.Columns))
		}
		for i, row := range d.Values {
			if len(row) != len(d.Columns) || math.IsInf(d.Times[i], 0) || math.IsNaN(d.Times[i]) || i > 0 && d.Times[i] < d.Times[i-1] {
				t.Fatalf("row %d: %v at %v", i, row, d.Times[i])
			}
		}
	})
}

// A data column the model does not have is named before any run, with
// one prefix per layer (it read "calibrate: graph: Sensitivities: graph:
// …").
func TestFitUnknownColumn(t *testing.T) {
	d := &calibrate.Data{Times: []float64{0.1, 0.2, 0.3}, Columns: []string{"ball.nope"}, Values: [][]float64{{1}, {1}, {1}}}
	_, err := calibrate.Fit(context.Background(), &calibrate.Problem{Sim: ballSim(t, 0.8, -9.81), Free: []calibrate.FreeParam{{Name: "ball.gravity"}}, Data: d}, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "calibrate: data column ball.nope is not a field of the model: graph: ") || strings.Count(err.Error(), "graph: ") != 1 {
		t.Errorf("%v", err)
	}
}

// A data column naming a whole vector field is refused: each column is one
// component.
func TestFitVectorColumn(t *testing.T) {
	mp, _ := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{0.2, 0, 0}})
	g := graph.New()
	g.Add("m", mp)
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	d := &calibrate.Data{Times: []float64{0.1, 0.2, 0.3}, Columns: []string{"m.position"}, Values: [][]float64{{1}, {1}, {1}}}
	_, err = calibrate.Fit(context.Background(), &calibrate.Problem{Sim: s, Free: []calibrate.FreeParam{{Name: "m.mass"}}, Data: d}, nil)
	if err == nil || !strings.Contains(err.Error(), "calibrate: data column m.position is a field of 3 components: name one per column, m.position[0]") {
		t.Errorf("%v", err)
	}
}
