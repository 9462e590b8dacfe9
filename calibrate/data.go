package calibrate

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/cosimgo/cosim/internal/textio"
)

// MaxDataBytes is the largest data file ReadCSV reads, and MaxDataValues
// the most values (rows × columns, the time column included) it holds;
// both are enforced while reading, so an endless input (/dev/zero) costs
// at most the limit.
const (
	MaxDataBytes  = 64 << 20
	MaxDataValues = 1 << 22
)

// maxDataBytes is the limit ReadCSV applies: MaxDataBytes, lowered by
// tests that read an endless input.
var maxDataBytes int64 = MaxDataBytes

// Data are measurements: a time column and one column per recorded field
// ("ball.position", "mass.position[0]"), with optional weights or noise.
type Data struct {
	// Times are the measurement times, non-decreasing.
	Times []float64
	// Columns name the fields measured, each once.
	Columns []string
	// Values[i][k] is Columns[k] at Times[i]; NaN marks a missing value.
	Values [][]float64
	// Weights per column (w_k in Σ w_k·r²); nil means 1 for every column
	// (or 1/σ_k² when Sigma is given). A weight of 0 drops the column:
	// its values are not counted. 1/σ_k² with σ_k the measurement noise
	// is the usual choice; give Sigma instead to have Fit check the
	// residual against that noise.
	Weights []float64
	// Sigma is the measurement noise of each column (a standard
	// deviation, in the column's units); nil means unknown. When given,
	// the weights are 1/σ_k² (Weights must then be nil; σ = +Inf drops a
	// column), the standard errors follow from σ rather than from the
	// residual, and Fit tests whether σ explains the residual
	// (Result.PValue): a fit it does not explain is not reported as
	// converged.
	Sigma []float64
}

func (d *Data) weight(k int) float64 {
	switch {
	case d.Sigma != nil:
		return 1 / (d.Sigma[k] * d.Sigma[k])
	case d.Weights != nil:
		return d.Weights[k]
	}
	return 1
}

// check validates the data's shape and values.
func (d *Data) check() error {
	if len(d.Times) == 0 || len(d.Columns) == 0 {
		return errors.New("calibrate: the data have no rows or no columns")
	}
	if len(d.Values) != len(d.Times) {
		return fmt.Errorf("calibrate: %d times but %d rows of values", len(d.Times), len(d.Values))
	}
	for k, c := range d.Columns {
		if j := slices.Index(d.Columns[k+1:], c); j >= 0 {
			// Counted twice, the column would weigh double and shrink
			// the standard errors by √2.
			return fmt.Errorf("calibrate: column %s is given twice (columns %d and %d): its values would count twice; give each column once", c, k+1, k+j+2)
		}
	}
	if d.Weights != nil && len(d.Weights) != len(d.Columns) {
		return fmt.Errorf("calibrate: %d weights for %d columns", len(d.Weights), len(d.Columns))
	}
	for k, w := range d.Weights {
		if !(w >= 0) || math.IsInf(w, 0) {
			return fmt.Errorf("calibrate: weight of %s is %v; want a finite value ≥ 0", d.Columns[k], w)
		}
	}
	if d.Sigma != nil && d.Weights != nil {
		return errors.New("calibrate: the data have both Weights and Sigma: the weight of noise σ is 1/σ²; give one (σ = +Inf drops a column)")
	}
	if d.Sigma != nil && len(d.Sigma) != len(d.Columns) {
		return fmt.Errorf("calibrate: %d noise values for %d columns", len(d.Sigma), len(d.Columns))
	}
	for k, s := range d.Sigma {
		if !(s > 0) {
			return fmt.Errorf("calibrate: noise σ of %s is %v; want a value > 0 (+Inf drops the column)", d.Columns[k], s)
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
			if !math.IsNaN(v) && d.weight(k) > 0 {
				n++
			}
		}
	}
	if n == 0 {
		return errors.New("calibrate: every data value is missing or has weight 0")
	}
	return nil
}

// count is the number of values that enter the fit: not missing, weight
// above 0.
func (d *Data) count() int {
	n := 0
	for _, row := range d.Values {
		for k, v := range row {
			if !math.IsNaN(v) && d.weight(k) > 0 {
				n++
			}
		}
	}
	return n
}

// ReadCSV reads data from CSV: a header "t,FIELD,…" (the time column is
// named t or time, each field once), then one row per time; an empty cell
// (or NaN) is a missing value. Numbers have one syntax, decimal
// (textio.ParseNumber: no digit separators, no hexadecimal). At most
// MaxDataBytes bytes and MaxDataValues values are read. Errors name the
// line and column.
func ReadCSV(r io.Reader) (*Data, error) {
	cr := csv.NewReader(textio.LimitReader(r, maxDataBytes, "the data"))
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("calibrate: data header: %w", err)
	}
	if len(head) < 2 || (strings.TrimSpace(head[0]) != "t" && strings.TrimSpace(head[0]) != "time") {
		return nil, fmt.Errorf("calibrate: data header %q: want t,FIELD,… with the time first", strings.Join(head, ","))
	}
	if len(head) > MaxDataValues {
		return nil, fmt.Errorf("calibrate: data header: %w", &textio.TooLargeError{What: "the data", Limit: MaxDataValues, Unit: "values"})
	}
	d := &Data{}
	for _, c := range head[1:] {
		d.Columns = append(d.Columns, strings.TrimSpace(c))
	}
	for k, c := range d.Columns {
		if j := slices.Index(d.Columns[k+1:], c); j >= 0 {
			return nil, fmt.Errorf("calibrate: data header: column %s is given twice (columns %d and %d): its values would count twice; give each column once", c, k+2, k+j+3)
		}
	}
	values := len(head)
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("calibrate: data: %w", err)
		}
		line, _ := cr.FieldPos(0)
		if values += len(rec); values > MaxDataValues {
			return nil, fmt.Errorf("calibrate: data line %d: %w", line, &textio.TooLargeError{What: "the data", Limit: MaxDataValues, Unit: "values"})
		}
		t, err := textio.ParseNumber(strings.TrimSpace(rec[0]))
		if err != nil {
			return nil, fmt.Errorf("calibrate: data line %d, time: %w", line, err)
		}
		row := make([]float64, len(d.Columns))
		for k := range row {
			s := strings.TrimSpace(rec[k+1])
			if s == "" {
				row[k] = math.NaN()
				continue
			}
			v, err := textio.ParseNumber(s)
			if err != nil {
				return nil, fmt.Errorf("calibrate: data line %d, column %s: %w", line, d.Columns[k], err)
			}
			row[k] = v
		}
		d.Times = append(d.Times, t)
		d.Values = append(d.Values, row)
	}
	return d, d.check()
}
