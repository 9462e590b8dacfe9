package calibrate

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Data are measurements: a time column and one column per recorded field
// ("ball.position", "mass.position[0]"), with optional weights.
type Data struct {
	// Times are the measurement times, non-decreasing.
	Times []float64
	// Columns name the fields measured.
	Columns []string
	// Values[i][k] is Columns[k] at Times[i]; NaN marks a missing value.
	Values [][]float64
	// Weights per column (w_k in Σ w_k·r²); nil means 1 for every column.
	// 1/σ_k² with σ_k the measurement noise is the usual choice.
	Weights []float64
}

func (d *Data) weight(k int) float64 {
	if d.Weights == nil {
		return 1
	}
	return d.Weights[k]
}

// check validates the data's shape and values.
func (d *Data) check() error {
	if len(d.Times) == 0 || len(d.Columns) == 0 {
		return errors.New("calibrate: the data have no rows or no columns")
	}
	if len(d.Values) != len(d.Times) {
		return fmt.Errorf("calibrate: %d times but %d rows of values", len(d.Times), len(d.Values))
	}
	if d.Weights != nil && len(d.Weights) != len(d.Columns) {
		return fmt.Errorf("calibrate: %d weights for %d columns", len(d.Weights), len(d.Columns))
	}
	for k, w := range d.Weights {
		if !(w >= 0) || math.IsInf(w, 0) {
			return fmt.Errorf("calibrate: weight of %s is %v; want a finite value ≥ 0", d.Columns[k], w)
		}
	}
	n := 0
	for i, t := range d.Times {
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return fmt.Errorf("calibrate: data row %d: time %v is not finite", i+1, t)
		}
		if i > 0 && t < d.Times[i-1] {
			return fmt.Errorf("calibrate: data row %d: time %v before the previous row's %v; sort the data by time", i+1, t, d.Times[i-1])
		}
		if len(d.Values[i]) != len(d.Columns) {
			return fmt.Errorf("calibrate: data row %d has %d values for %d columns", i+1, len(d.Values[i]), len(d.Columns))
		}
		for k, v := range d.Values[i] {
			if math.IsInf(v, 0) {
				return fmt.Errorf("calibrate: data row %d, column %s: %v is not finite", i+1, d.Columns[k], v)
			}
			if !math.IsNaN(v) {
				n++
			}
		}
	}
	if n == 0 {
		return errors.New("calibrate: every data value is missing")
	}
	return nil
}

// ReadCSV reads data from CSV: a header "t,FIELD,…" (the time column is
// named t or time), then one row per time; an empty cell (or NaN) is a
// missing value. Errors name the line and column.
func ReadCSV(r io.Reader) (*Data, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("calibrate: data header: %w", err)
	}
	if len(head) < 2 || (strings.TrimSpace(head[0]) != "t" && strings.TrimSpace(head[0]) != "time") {
		return nil, fmt.Errorf("calibrate: data header %q: want t,FIELD,… with the time first", strings.Join(head, ","))
	}
	d := &Data{}
	for _, c := range head[1:] {
		d.Columns = append(d.Columns, strings.TrimSpace(c))
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("calibrate: data: %w", err)
		}
		line, _ := cr.FieldPos(0)
		t, err := strconv.ParseFloat(strings.TrimSpace(rec[0]), 64)
		if err != nil {
			return nil, fmt.Errorf("calibrate: data line %d: time %q is not a number", line, rec[0])
		}
		row := make([]float64, len(d.Columns))
		for k := range row {
			s := strings.TrimSpace(rec[k+1])
			if s == "" {
				row[k] = math.NaN()
				continue
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fmt.Errorf("calibrate: data line %d, column %s: %q is not a number", line, d.Columns[k], s)
			}
			row[k] = v
		}
		d.Times = append(d.Times, t)
		d.Values = append(d.Values, row)
	}
	return d, d.check()
}
