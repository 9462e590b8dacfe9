package graph

import (
	"bufio"
	"fmt"
	"io"
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

// recorder appends rows to a History from resolved offsets; its storage is
// allocated up front so that recording does not allocate per step.
type recorder struct {
	h     *History
	refs  []pathRef
	store []float64
	width int
}

func (s *Sim) newRecorder(paths []string, rows int) (*recorder, error) {
	r := &recorder{h: &History{}}
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
	r.store = make([]float64, 0, rows*r.width)
	r.h.Times = make([]float64, 0, rows)
	r.h.Rows = make([][]float64, 0, rows)
	return r, nil
}

func (r *recorder) row(s *Sim) error {
	for _, ref := range r.refs {
		if ref.fromY && !s.yFresh {
			if err := s.outputs(s.Time()); err != nil {
				return err
			}
			s.yFresh = true
			break
		}
	}
	if len(r.store)+r.width > cap(r.store) {
		r.store = make([]float64, 0, max(cap(r.store), 64*r.width))
	}
	lo := len(r.store)
	for _, ref := range r.refs {
		buf := s.x
		if ref.fromY {
			buf = s.y
		}
		r.store = append(r.store, buf[ref.off:ref.off+ref.n]...)
	}
	r.h.Rows = append(r.h.Rows, r.store[lo:len(r.store):len(r.store)])
	r.h.Times = append(r.h.Times, s.Time())
	return nil
}
