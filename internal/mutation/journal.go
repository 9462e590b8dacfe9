package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// journalDir holds the journals of interrupted runs (see journal);
// empty: the user's cache directory, cosim-mutation/.
var journalDir string

// stopAfter, when positive, ends a run with errInterrupted after that
// many mutants (the tests' stand-in for a run killed part way).
var stopAfter int

var errInterrupted = fmt.Errorf("interrupted")

// A journal keeps the outcome of every mutant a run has judged, one line
// each ("ID STATUS MILLISECONDS"), appended as it is judged, so that a
// run that is stopped part way (a package of thousands of mutants on a
// loaded machine) loses none of its work: the next run of the same
// package and files takes those outcomes and runs only the others. Its
// name is the SHA-256 of the instrumented test binary (which the
// package's source, its tests and everything they import determine)
// and of the package's other files (those in its directory and its
// testdata), so any change of code, tests or data starts afresh, and an outcome is never reused for other
// code. The journal is removed when the run completes.
type journal struct {
	path string
	done map[int]journalEntry
	f    *os.File
}

type journalEntry struct {
	status  string
	elapsed time.Duration
}

// openJournal opens the journal of plan pl (built) and reads the
// outcomes it holds.
func (pl *plan) openJournal(files []string) (*journal, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n", engineTool, pl.pi.Dir, strings.Join(files, ","))
	if err := hashFile(h, pl.bin); err != nil {
		return nil, err
	}
	err := filepath.WalkDir(pl.pi.Dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != pl.pi.Dir && filepath.Dir(path) == pl.pi.Dir && d.Name() != "testdata":
			return fs.SkipDir // another package
		case d.IsDir(), strings.HasSuffix(path, ".go") && filepath.Dir(path) == pl.pi.Dir:
			return nil // the binary holds them
		}
		fmt.Fprintf(h, "%s\n", path)
		return hashFile(h, path)
	})
	if err != nil {
		return nil, err
	}
	dir := journalDir
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return nil, err
		}
		dir = filepath.Join(cache, "cosim-mutation")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	j := &journal{path: filepath.Join(dir, strings.ReplaceAll(pl.pi.Dir, "/", "_")+"-"+hex.EncodeToString(h.Sum(nil))[:16]+".journal"), done: map[int]journalEntry{}}
	if data, err := os.ReadFile(j.path); err == nil {
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		for sc.Scan() {
			// "ID STATUS MS": the status may hold a space ("TIMED OUT").
			f := strings.Fields(sc.Text())
			if len(f) < 3 {
				continue // a line cut short by the interruption
			}
			id, err1 := strconv.Atoi(f[0])
			ms, err2 := strconv.ParseInt(f[len(f)-1], 10, 64)
			status := strings.Join(f[1:len(f)-1], " ")
			if err1 != nil || err2 != nil || id < 1 || id > len(pl.mutants) ||
				status != statusKilled && status != statusLived && status != statusTimedOut {
				continue
			}
			j.done[id] = journalEntry{status, time.Duration(ms) * time.Millisecond}
		}
	}
	if j.f, err = os.OpenFile(j.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err != nil {
		return nil, err
	}
	return j, nil
}

func hashFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// add appends mutant id's outcome.
func (j *journal) add(id int, status string, elapsed time.Duration) error {
	_, err := fmt.Fprintf(j.f, "%d %s %d\n", id, status, elapsed.Milliseconds())
	return err
}

// close closes the journal; with complete, the run's outcomes are in its
// result and the journal is removed.
func (j *journal) close(complete bool) {
	j.f.Close()
	if complete {
		os.Remove(j.path)
	}
}
