package graph

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"strconv"
)

// History is a recorded table: a time column and one column per recorded
// component ("ball.position", "mass.position[1]"), one row per record.
type History struct {
	Columns []string    // component names, without the time column
	Times   []float64   // one per row
	Rows    [][]float64 // Rows[i][j] is Columns[j] at Times[i]
}

// Column returns the values of the named column, or nil.
func (h *History) Column(name string) []float64 {
	for j, c := range h.Columns {
		if c == name {
			out := make([]float64, len(h.Rows))
			for i, r := range h.Rows {
				out[i] = r[j]
			}
			return out
		}
	}
	return nil
}

// WriteCSV writes the history as CSV with a header row "t,<columns>",
// floats in the shortest representation that reads back exactly.
func (h *History) WriteCSV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("t")
	for _, c := range h.Columns {
		bw.WriteByte(',')
		bw.WriteString(c)
	}
	bw.WriteByte('\n')
	var buf []byte
	for i, r := range h.Rows {
		buf = strconv.AppendFloat(buf[:0], h.Times[i], 'g', -1, 64)
		for _, v := range r {
			buf = append(buf, ',')
			buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}

// DefaultRecordLimit returns the default Settings.RecordLimit: half of
// the Go memory limit (runtime/debug.SetMemoryLimit, the GOMEMLIMIT
// environment variable) when one is set, and 4 GiB otherwise, whichever is
// smaller. Half, because the rest of the process (the graph, the output
// file's formatting, the plot) needs memory too, and because a
// grown slice may briefly need twice its size.
func DefaultRecordLimit() int64 {
	limit := int64(4 << 30)
	if m := debug.SetMemoryLimit(-1); m > 0 && m < math.MaxInt64 {
		limit = min(limit, m/2)
	}
	return limit
}

// rowBytes is the memory one kept row of width values needs: the values,
// the time and the row's slice header.
func rowBytes(width int) float64 { return float64(8*width + 8 + 24) }

// checkRecordBudget refuses a recording of rows rows of width values
// whose memory would exceed limit (0: DefaultRecordLimit()).
func checkRecordBudget(rows, width int, limit int64) error {
	if limit == 0 {
		limit = DefaultRecordLimit()
	}
	need := float64(rows) * rowBytes(width)
	if need <= float64(limit) {
		return nil
	}
	return fmt.Errorf("graph: recording %d rows of %d values would need %s of memory, more than the limit of %s (Settings.RecordLimit; by default half of GOMEMLIMIT, at most 4 GiB): record less often (Settings.RecordEvery), fewer fields or a shorter run, or stream the rows to a file (Settings.RecordTo with StreamOnly)",
		rows, width+1, formatBytes(need), formatBytes(float64(limit)))
}

// formatBytes writes a byte count with a binary prefix, "1.5 GiB".
func formatBytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	u := 0
	for b >= 1024 && u < len(units)-1 {
		b /= 1024
		u++
	}
	if u == 0 {
		return strconv.FormatFloat(b, 'f', 0, 64) + " B"
	}
	if b >= 1024 {
		return strconv.FormatFloat(b, 'g', 3, 64) + " " + units[u]
	}
	return strconv.FormatFloat(b, 'f', 1, 64) + " " + units[u]
}

// maxChunkRows bounds the rows of one storage chunk of a recorder: chunks
// double from 64 rows up to this, so that a long run allocates rarely and
// a short one little.
const maxChunkRows = 1 << 16

// recorder appends rows to a History from resolved offsets as they
// arrive, in storage chunks that double up to maxChunkRows rows (so the
// memory held is within a chunk of what the rows need, and a step
// allocates only when a chunk fills), and streams them to a writer when
// one is given.
type recorder struct {
	h     *History
	refs  []pathRef
	store []float64
	width int
	keep  bool // keep rows in h (false: Settings.StreamOnly)

	w    *bufio.Writer // Settings.RecordTo, buffered; nil without it
	line []byte        // the CSV line being written
}

// newRecorder resolves paths and, when the rows are kept, refuses a
// recording of rows rows that cannot fit in limit bytes
// (checkRecordBudget).
func (s *Sim) newRecorder(paths []string, rows int, limit int64, keep bool) (*recorder, error) {
	r := &recorder{h: &History{}, keep: keep}
	for _, p := range paths {
		ref, err := s.resolvePath(p)
		if err != nil {
			return nil, err
		}
		if ref.n == 1 {
			r.h.Columns = append(r.h.Columns, p)
		} else {
			for k := 0; k < ref.n; k++ {
				r.h.Columns = append(r.h.Columns, fmt.Sprintf("%s[%d]", p, k))
			}
		}
		r.refs = append(r.refs, ref)
		r.width += ref.n
	}
	if keep {
		if err := checkRecordBudget(rows, r.width, limit); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// startStream writes the CSV header to w and streams every later row.
func (r *recorder) startStream(w io.Writer) {
	r.w = bufio.NewWriter(w)
	r.w.WriteString("t")
	for _, c := range r.h.Columns {
		r.w.WriteByte(',')
		r.w.WriteString(c)
	}
	r.w.WriteByte('\n')
}

// finish flushes the stream, if any; a write error becomes *err unless
// the run already failed.
func (r *recorder) finish(err *error) {
	if r == nil || r.w == nil {
		return
	}
	if ferr := r.w.Flush(); ferr != nil && *err == nil {
		*err = fmt.Errorf("graph: writing the recorded rows (Settings.RecordTo): %w", ferr)
	}
}

func (r *recorder) row(s *Sim) error {
	for _, ref := range r.refs {
		if ref.fromY && !s.outputsFresh {
			if err := s.outputsPerNode(s.Time()); err != nil {
				return err
			}
			s.outputsFresh = true
			break
		}
	}
	if r.w != nil {
		if err := r.stream(s); err != nil {
			return err
		}
	}
	if !r.keep {
		return nil
	}
	if len(r.store)+r.width > cap(r.store) {
		rows := min(max(2*cap(r.store)/max(r.width, 1), 64), maxChunkRows)
		r.store = make([]float64, 0, rows*r.width)
	}
	lo := len(r.store)
	for _, ref := range r.refs {
		buf := s.state
		if ref.fromY {
			buf = s.outputs
		}
		r.store = append(r.store, buf[ref.off:ref.off+ref.n]...)
	}
	r.h.Rows = append(r.h.Rows, r.store[lo:len(r.store):len(r.store)])
	r.h.Times = append(r.h.Times, s.Time())
	return nil
}

// stream writes the current row to the stream as one CSV line.
func (r *recorder) stream(s *Sim) error {
	b := strconv.AppendFloat(r.line[:0], s.Time(), 'g', -1, 64)
	for _, ref := range r.refs {
		buf := s.state
		if ref.fromY {
			buf = s.outputs
		}
		for _, v := range buf[ref.off : ref.off+ref.n] {
			b = append(b, ',')
			b = strconv.AppendFloat(b, v, 'g', -1, 64)
		}
	}
	b = append(b, '\n')
	r.line = b
	if _, err := r.w.Write(b); err != nil {
		return fmt.Errorf("graph: writing the recorded rows (Settings.RecordTo): %w", err)
	}
	return nil
}
