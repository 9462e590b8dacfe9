package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cosimgo/cosim/nodes/source"
	"github.com/cosimgo/cosim/scene"
)

// namedPath is a file a command reads or writes, with what names it: a
// flag ("-o", "--checkpoint") or a description ("the scene file").
type namedPath struct {
	what, path string
}

// checkClobber refuses, before anything is written, an output that is one
// of the command's inputs or another of its outputs: the same path after
// resolving symbolic links, or the same file (device and inode, which
// also catches hard links). "" and "-" (stdout) are not files; a
// character device (/dev/null) may take several outputs.
func checkClobber(inputs, outputs []namedPath) error {
	for i, o := range outputs {
		if o.path == "" || o.path == "-" {
			continue
		}
		for _, in := range inputs {
			if in.path != "" && in.path != "-" && samePath(o.path, in.path) {
				return usagef("%s %s is %s (%s): writing it would destroy an input; choose another file", o.what, o.path, in.what, in.path)
			}
		}
		if isCharDevice(o.path) {
			continue
		}
		for _, p := range outputs[:i] {
			if p.path != "" && p.path != "-" && samePath(o.path, p.path) {
				return usagef("%s %s is also the %s file (%s): give each output its own file", o.what, o.path, p.what, p.path)
			}
		}
	}
	return nil
}

// samePath reports whether a and b name one file: both exist and are the
// same file (os.SameFile), or their absolute paths with symbolic links
// resolved are equal.
func samePath(a, b string) bool {
	fa, erra := os.Stat(a)
	fb, errb := os.Stat(b)
	if erra == nil && errb == nil {
		return os.SameFile(fa, fb)
	}
	return resolvedPath(a) == resolvedPath(b)
}

// resolvedPath is path made absolute, with symbolic links resolved in as
// much of it as exists.
func resolvedPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

func isCharDevice(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// prepareOutputs checks the outputs against the inputs (checkClobber) and
// removes the stale temporary files in the outputs' directories (those
// of killed cosim processes; see removeStaleTemps), saying so on stderr.
func prepareOutputs(stderr io.Writer, inputs, outputs []namedPath) error {
	if err := checkClobber(inputs, outputs); err != nil {
		return err
	}
	done := map[string]bool{}
	for _, o := range outputs {
		if o.path == "" || o.path == "-" || special(o.path) {
			continue
		}
		dir := filepath.Dir(resolvedPath(o.path))
		if done[dir] {
			continue
		}
		done[dir] = true
		removeStaleTemps(dir, func(msg string) { fmt.Fprintf(stderr, "cosim: %s\n", msg) })
	}
	return nil
}

// sceneInputs are the files a scene reads: the scene file itself and the
// CSV files of its lookup nodes (resolved as scene.LoadFile resolves
// them).
func sceneInputs(path string, sc *scene.Scene) []namedPath {
	in := []namedPath{{"the scene file", path}}
	if sc == nil {
		return in
	}
	for _, n := range sc.Nodes {
		if n.Type != source.LookupName {
			continue
		}
		f, _ := n.Params["file"].(string)
		if f == "" {
			continue
		}
		if !filepath.IsAbs(f) {
			f = filepath.Join(sc.Dir, f)
		}
		in = append(in, namedPath{"the table file of lookup node " + n.Name, f})
	}
	return in
}

// The temporary files of writeAtomic and createStream are named
// ".NAME.cosim-tmp-HOST-PID-RANDOM" beside their target: hidden, so that
// globs such as shard-*.csv never match a partial file, and carrying the
// host and process that write them, so that a later cosim in the same
// directory can tell the stale ones — left by a process that was killed
// (kill -9, a lost node) — from those another running cosim is writing.
const tmpMark = ".cosim-tmp-"

// tmpPattern is the os.CreateTemp pattern of a temporary file for name.
func tmpPattern(name string) string {
	return "." + name + tmpMark + hostTag() + "-" + fmt.Sprint(os.Getpid()) + "-*"
}

// hostTag is the host name with every character other than letters,
// digits, '.' and '_' replaced by '_', so that '-' separates the fields
// of a temporary file's name.
func hostTag() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "unknown"
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' {
			return r
		}
		return '_'
	}, h)
}

// removeStaleTemps removes, in dir, the temporary files of cosim
// processes of this host that no longer run, and reports each removal
// (or failure to remove) when report is not nil. Files of other hosts (a shared file system) and of running
// processes are left alone.
func removeStaleTemps(dir string, report func(string)) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	host := hostTag()
	for _, e := range entries {
		name := e.Name()
		i := strings.LastIndex(name, tmpMark)
		if !strings.HasPrefix(name, ".") || i < 0 || !e.Type().IsRegular() {
			continue
		}
		fields := strings.Split(name[i+len(tmpMark):], "-")
		if len(fields) < 3 {
			continue
		}
		var pid int
		if _, err := fmt.Sscanf(fields[len(fields)-2], "%d", &pid); err != nil || pid <= 0 {
			continue
		}
		if strings.Join(fields[:len(fields)-2], "-") != host || processRuns(pid) {
			continue
		}
		p := filepath.Join(dir, name)
		if err := os.Remove(p); err == nil && report != nil {
			report(fmt.Sprintf("removed %s, the partial output of cosim process %d, which no longer runs", p, pid))
		} else if err != nil && !errors.Is(err, os.ErrNotExist) && report != nil {
			report(fmt.Sprintf("cannot remove the stale partial output %s: %v", p, err))
		}
	}
}
