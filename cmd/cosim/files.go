package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// writeAtomic writes path through a temporary file in its directory (see
// tmpPattern) and a rename, so readers see the old file or the whole new
// one. A symbolic
// link is written through (its target is replaced); a path that is not a
// regular file (/dev/null, a FIFO, /dev/stdout) is written in place, since
// renaming over it would replace the device or pipe with a file.
func writeAtomic(path string, write func(io.Writer) error) (err error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		if err := write(f); err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
		return f.Close()
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, tmpPattern(name))
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := write(bw); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil { // CreateTemp makes 0600
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.Rename(f.Name(), path)
}

// checkOutputPath checks, before a run, that what names the output of
// flag can be written: "-" (stdout), a regular file or a device, FIFO or
// other special file (written in place), or a new file in an existing
// directory. It does not create or change anything.
func checkOutputPath(flag, path string) error {
	if path == "" || path == "-" {
		return nil
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return usagef("%s %s: is a directory; name a file", flag, path)
	case err == nil:
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	dir := filepath.Dir(path)
	di, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s %s: the directory %s does not exist", flag, path, dir)
	}
	if !di.IsDir() {
		return fmt.Errorf("%s %s: %s is not a directory", flag, path, dir)
	}
	return nil
}

// figureFormats are the figure file extensions plots are written in:
// the formats gonum/plot writes, but EPS, whose files gonum/plot (v0.17)
// starts with "%%!PS" instead of "%!PS", which PostScript readers do
// not recognise.
var figureFormats = []string{".png", ".svg", ".pdf", ".jpg", ".jpeg", ".tif", ".tiff"}

// figureFormatList names figureFormats for messages and help texts.
const figureFormatList = ".png, .svg, .pdf, .jpg (.jpeg) or .tif (.tiff)"

// checkFigure checks a figure's file name: a known extension, a writable
// place.
func checkFigure(flag, file string) error {
	ext := strings.ToLower(filepath.Ext(file))
	for _, f := range figureFormats {
		if ext == f {
			return checkOutputPath(flag, file)
		}
	}
	return usagef("%s %s: use a %s file name", flag, file, figureFormatList)
}

// special reports whether path exists and is not a regular file (a
// device, a FIFO).
func special(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.Mode().IsRegular()
}

// streamOut is a history file written while the run records (rows
// streamed through graph.Settings.RecordTo, so memory stays constant
// however long the run): into a temporary file in the target directory
// that commit renames into place, as writeAtomic does. abort removes the
// temporary file and leaves the target untouched; after commit it does
// nothing.
type streamOut struct {
	path, tmp string
	f         *os.File
	bw        *bufio.Writer
	lines     int64
	done      bool
}

// createStream starts a stream to path, a regular file or a new one (not
// special: see cmdRun).
func createStream(path string) (*streamOut, error) {
	o := &streamOut{path: path}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		o.path = real
	}
	dir, name := filepath.Split(o.path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, tmpPattern(name))
	if err != nil {
		return nil, err
	}
	o.f, o.tmp = f, f.Name()
	o.bw = bufio.NewWriterSize(o.f, 1<<16)
	return o, nil
}

// Write counts the lines written (the header and one per row).
func (o *streamOut) Write(p []byte) (int, error) {
	for _, c := range p {
		if c == '\n' {
			o.lines++
		}
	}
	return o.bw.Write(p)
}

// rows is the number of data rows written so far.
func (o *streamOut) rows() int64 { return max(o.lines-1, 0) }

func (o *streamOut) commit() error {
	if o.done {
		return nil
	}
	o.done = true
	err := o.bw.Flush()
	if err == nil {
		err = o.f.Chmod(0o644) // CreateTemp makes 0600
	}
	if err == nil {
		err = o.f.Sync()
	}
	err = errors.Join(err, o.f.Close())
	if err == nil {
		err = os.Rename(o.tmp, o.path)
	}
	if err != nil {
		os.Remove(o.tmp)
		return fmt.Errorf("%s: %w", o.path, err)
	}
	return nil
}

func (o *streamOut) abort() {
	if o.done {
		return
	}
	o.done = true
	o.f.Close()
	os.Remove(o.tmp)
}
