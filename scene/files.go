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

	"github.com/cosimgo/cosim/internal/textio"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/source"
)

// MaxTableBytes is the largest CSV file a lookup node may name, enforced
// while it is read; a table also has at most source.MaxRows rows.
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
// directory (see fileDir).
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
	sc.Dir = fileDir(f, path)
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
// Compile resolve its lookup nodes' CSV files against its directory (see
// fileDir).
func DecodeFile(path string) (*Scene, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc, err := Decode(f)
	if sc != nil {
		sc.Dir = fileDir(f, path)
	}
	return sc, err
}

// fileDir is the directory relative paths of the scene file f (opened
// from path) resolve against: the file's directory, except for a scene
// read from standard input, a pipe or a device (/dev/stdin, /dev/fd/3, a
// shell's <(…), /proc/self/fd/0), whose directory holds nothing of the
// user's: "", the working directory, then.
func fileDir(f *os.File, path string) string {
	if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() {
		return ""
	}
	if abs, err := filepath.Abs(path); err == nil && (strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/")) {
		return ""
	}
	return filepath.Dir(path)
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
// and a value column from a CSV file with a header row, at most
// MaxTableBytes bytes (enforced while reading: a device or pipe that
// never ends is cut off at the limit).
func readTable(path, tcol, col string) (table, error) {
	f, err := textio.Open(path, MaxTableBytes, "the file")
	if err != nil {
		return table{}, err
	}
	defer f.Close()
	return parseTable(f, tcol, col)
}

// parseTable reads the table of readTable from r. Lines are numbered as
// in the file (the header is line 1). Numbers have textio.ParseNumber's
// syntax; the time and value columns must each appear once in the
// header.
func parseTable(rd io.Reader, tcol, col string) (table, error) {
	r := csv.NewReader(rd)
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
	for _, c := range []int{ti, vi} {
		if j := slices.Index(header[c+1:], header[c]); j >= 0 {
			return table{}, fmt.Errorf("line 1: column %q is named twice (columns %d and %d): which one is meant is ambiguous; rename one", header[c], c+1, c+j+2)
		}
	}
	var t table
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return table{}, err // a *csv.ParseError, with its line
		}
		line, _ := r.FieldPos(0)
		if len(t.times) >= source.MaxRows {
			return table{}, fmt.Errorf("line %d: more than %d rows", line, source.MaxRows)
		}
		var row [2]float64
		for k, c := range [2]int{ti, vi} {
			s := strings.TrimSpace(rec[c])
			x, perr := textio.ParseNumber(s)
			if perr != nil {
				return table{}, fmt.Errorf("line %d, column %q: %w", line, header[c], perr)
			}
			if x-x != 0 {
				return table{}, fmt.Errorf("line %d, column %q: %q is not finite", line, header[c], s)
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
