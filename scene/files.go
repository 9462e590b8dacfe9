package scene

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/source"
)

// MaxTableBytes is the largest CSV file a lookup node may name; a table
// also has at most source.MaxRows rows.
const MaxTableBytes = 16 << 20

// ErrTableFile is wrapped by every error about a lookup node's CSV file:
// missing or unreadable, too large, a missing column, a value that is not
// a finite number, times that do not increase.
var ErrTableFile = errors.New("lookup table file")

type table struct {
	times, values []float64
}

// LoadFile reads the scene file at path as Load does, with the CSV files
// of lookup nodes ("file" parameter) resolved against the scene file's
// directory.
func LoadFile(path string, reg *node.Registry) (*Scene, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc, c, err := decode(f)
	if sc == nil {
		return nil, err
	}
	sc.Dir = filepath.Dir(path)
	var errs []error
	if err != nil {
		errs = c.errs
	}
	if c.fatal {
		return nil, joinErrors(errs)
	}
	sim, _, berrs := sc.compile(reg, nil, c)
	if sim != nil {
		sim.Close() // compiled to check it; its nodes' resources are released
	}
	if errs = append(errs, berrs...); len(errs) > 0 {
		return nil, joinErrors(errs)
	}
	return sc, nil
}

// DecodeFile reads the scene file at path as Decode does; Build and
// Compile resolve its lookup nodes' CSV files against its directory.
func DecodeFile(path string) (*Scene, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc, err := Decode(f)
	if sc != nil {
		sc.Dir = filepath.Dir(path)
	}
	return sc, err
}

// resolveTable replaces the scene-only parameters "file", "column" and
// "time_column" of a lookup node by the "times" and "values" read from
// the file, relative to dir ("": the working directory). Other node
// types, and lookups without a file, are left alone. The file is read at
// every build (a sweep rebuilds the scene per point): it is bounded by
// MaxTableBytes.
func resolveTable(dir, typ string, params map[string]any) error {
	if typ != source.LookupName {
		return nil
	}
	file, _ := params["file"].(string)
	if file == "" {
		return nil
	}
	col, _ := params["column"].(string)
	tcol, _ := params["time_column"].(string)
	if col == "" {
		return fmt.Errorf("%w %q: \"column\" must name the CSV column of the values", ErrTableFile, file)
	}
	for _, p := range []string{"times", "values"} {
		if _, ok := params[p]; ok {
			return fmt.Errorf("%w %q: give either a file or inline %q, not both", ErrTableFile, file, p)
		}
	}
	path := file
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, file)
	}
	t, err := readTable(path, tcol, col)
	if err != nil {
		return fmt.Errorf("%w %q (%s): %w", ErrTableFile, file, path, err)
	}
	delete(params, "file")
	delete(params, "column")
	delete(params, "time_column")
	params["times"], params["values"] = slices.Clone(t.times), slices.Clone(t.values)
	return nil
}

// readTable reads a time column (tcol, or the first column when empty)
// and a value column from a CSV file with a header row. Lines are
// numbered as in the file (the header is line 1).
func readTable(path, tcol, col string) (table, error) {
	f, err := os.Open(path)
	if err != nil {
		return table{}, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > MaxTableBytes {
		return table{}, fmt.Errorf("the file has %d bytes, more than the limit of %d", fi.Size(), MaxTableBytes)
	}
	r := csv.NewReader(io.LimitReader(f, MaxTableBytes+1))
	r.TrimLeadingSpace = true
	r.ReuseRecord = true
	r.Comment = '#'
	header, err := r.Read()
	if err != nil {
		if err == io.EOF {
			return table{}, fmt.Errorf("the file is empty; want a header row naming the columns")
		}
		return table{}, err
	}
	header = slices.Clone(header)
	for i := range header {
		header[i] = strings.TrimSpace(header[i])
	}
	ti := 0
	if tcol != "" {
		if ti = slices.Index(header, tcol); ti < 0 {
			return table{}, fmt.Errorf("no time column %q; the columns are %s%s", tcol, strings.Join(header, ", "), node.DidYouMean(tcol, header))
		}
	}
	vi := slices.Index(header, col)
	if vi < 0 {
		return table{}, fmt.Errorf("no column %q; the columns are %s%s", col, strings.Join(header, ", "), node.DidYouMean(col, header))
	}
	var t table
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			return table{}, err
		}
		if len(t.times) >= source.MaxRows {
			return table{}, fmt.Errorf("line %d: more than %d rows", line, source.MaxRows)
		}
		var row [2]float64
		for k, c := range [2]int{ti, vi} {
			s := strings.TrimSpace(rec[c])
			x, perr := strconv.ParseFloat(s, 64)
			if perr != nil || x-x != 0 {
				why := "is not a number"
				if perr == nil {
					why = "is not finite"
				}
				return table{}, fmt.Errorf("line %d, column %q: %q %s", line, header[c], s, why)
			}
			row[k] = x
		}
		if n := len(t.times); n > 0 && !(row[0] > t.times[n-1]) {
			return table{}, fmt.Errorf("line %d: time %s does not increase (previous row: %s); times must be strictly increasing",
				line, strconv.FormatFloat(row[0], 'g', -1, 64), strconv.FormatFloat(t.times[n-1], 'g', -1, 64))
		}
		t.times = append(t.times, row[0])
		t.values = append(t.values, row[1])
	}
	if len(t.times) == 0 {
		return table{}, fmt.Errorf("no data rows after the header")
	}
	return t, nil
}
