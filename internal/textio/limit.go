package textio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// ErrTooLarge is wrapped by every *TooLargeError.
var ErrTooLarge = errors.New("input too large")

// TooLargeError reports input beyond its limit.
type TooLargeError struct {
	What  string // what was read: "the sweep table", "the fit data"
	Limit int64  // the limit, in bytes or in the Unit
	Unit  string // "bytes" (the default), "rows", "values", …
}

func (e *TooLargeError) Error() string {
	unit := e.Unit
	if unit == "" {
		return fmt.Sprintf("%s is larger than its limit of %s", e.What, Bytes(e.Limit))
	}
	return fmt.Sprintf("%s has more than its limit of %d %s", e.What, e.Limit, unit)
}

// Unwrap returns ErrTooLarge.
func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// Bytes writes a byte count with a binary prefix: "16 MiB", "1.5 GiB",
// "900 B".
func Bytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	b, u := float64(n), 0
	for b >= 1024 && u < len(units)-1 {
		b /= 1024
		u++
	}
	if b == float64(int64(b)) {
		return strconv.FormatInt(int64(b), 10) + " " + units[u]
	}
	return strconv.FormatFloat(b, 'f', 1, 64) + " " + units[u]
}

// limitReader reads at most limit bytes of r; see LimitReader.
type limitReader struct {
	r      io.Reader
	remain int64
	err    *TooLargeError
}

// LimitReader returns a reader of r's first limit bytes; a read beyond
// them (r has more) fails with a *TooLargeError of what and limit, and
// every later read fails the same way.
func LimitReader(r io.Reader, limit int64, what string) io.Reader {
	return &limitReader{r: r, remain: limit, err: &TooLargeError{What: what, Limit: limit}}
}

func (l *limitReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if l.remain <= 0 {
		// At the limit: one more byte means the input is too large.
		var b [1]byte
		for {
			n, err := l.r.Read(b[:])
			if n > 0 {
				l.remain = -1
				return 0, l.err
			}
			if err != nil {
				if l.remain < 0 {
					return 0, l.err
				}
				return 0, err
			}
		}
	}
	if int64(len(p)) > l.remain {
		p = p[:l.remain]
	}
	n, err := l.r.Read(p)
	l.remain -= int64(n)
	return n, err
}

// File is a file opened by Open: reads through a LimitReader.
type File struct {
	f *os.File
	io.Reader
}

// Open opens path for reading at most limit bytes (see LimitReader; what
// names the file in the error). A regular file larger than limit is
// refused at once, without reading it.
func Open(path string, limit int64, what string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
		f.Close()
		return nil, &TooLargeError{What: what, Limit: limit}
	}
	return &File{f: f, Reader: LimitReader(f, limit, what)}, nil
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// ReadFile reads the whole file at path, at most limit bytes.
func ReadFile(path string, limit int64, what string) ([]byte, error) {
	f, err := Open(path, limit, what)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
