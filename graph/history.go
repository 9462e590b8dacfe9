package graph

import (
	"bufio"
	"fmt"
	"io"
	"os"
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
// the least of the memory bounds the process has — the Go memory limit
// (GOMEMLIMIT), the address-space rlimit (RLIMIT_AS) minus the address
// space in use, the free memory of its cgroup (memory.max or
// memory.limit_in_bytes, and its parent groups'), and the memory the
// kernel says is available (/proc/meminfo MemAvailable); 4 GiB where none
// can be read. Half, because the rest of the process (the graph,
// formatting the rows, a plot of them) needs memory too. It is read
// anew at each call: the available memory changes.
func DefaultRecordLimit() int64 {
	n, _ := processMemoryLimit()
	return n
}

// recordBytes is the memory a recording of rows rows of width values
// may hold at its peak when its rows are kept, measured against the
// process's peak resident memory (TestRecordBytesCoversPeak). Per row:
//
//   - live: the values (8·width bytes, in storage chunks that are never
//     copied, the last of which may be up to maxChunkRows rows larger than
//     needed), and the History's Times and Rows slices (8 + 24 bytes a
//     row) at up to 1.25 times their length, Go's growth factor for large
//     slices;
//   - garbage: each growth of Times and Rows leaves the old arrays behind,
//     and the garbage collector lets the heap grow by GOGC percent (100
//     by default) of the live heap before it collects;
//   - a growth holds the old and the new arrays at once: 32 bytes a row
//     more.
//
// So peak = (1 + GOGC/100)·live + 32 a row. Measured peaks (VmHWM, go1.26,
// linux/amd64, 1e6 to 3e7 rows): 100 to 122 bytes a row for 2 values
// (estimate 144), 169 for 10 (estimate 272), and 130 for 2 values at
// 6e7 rows. The estimate is never below them.
func recordBytes(rows, width int) float64 {
	live := float64(8*width) + 1.25*32
	peak := (1+gcHeadroom())*live + 32
	return float64(rows)*peak + float64(min(rows, maxChunkRows))*float64(8*width)
}

// gcHeadroom is GOGC/100: how far past the live heap the garbage
// collector lets the heap grow (GOGC unset: 1; "off": 4, the most the
// growth of Times and Rows can leave behind relative to their size).
func gcHeadroom() float64 {
	switch v := os.Getenv("GOGC"); v {
	case "":
		return 1
	case "off":
		return 4
	default:
		p, err := strconv.Atoi(v)
		if err != nil || p < 0 {
			return 1
		}
		return float64(p) / 100
	}
}

// checkRecordBudget refuses a recording of rows rows of width values
// whose memory (recordBytes) would exceed limit (0: DefaultRecordLimit()),
// before anything is computed.
func checkRecordBudget(rows, width int, limit int64) error {
	how := "Settings.RecordLimit"
	if limit == 0 {
		var src string
		limit, src = processMemoryLimit()
		how = "the default Settings.RecordLimit: " + src
	}
	need := recordBytes(rows, width)
	if need <= float64(limit) {
		return nil
	}
	return fmt.Errorf("graph: recording %d rows of %d values would need %s of memory, more than the limit of %s (%s): record less often (Settings.RecordEvery), fewer fields or a shorter run, or stream the rows to a file (Settings.RecordTo with StreamOnly)",
		rows, width+1, formatBytes(need), formatBytes(float64(limit)), how)
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
