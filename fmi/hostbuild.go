package fmi

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// The FMU host program of the out-of-process transport (isolate.go) is C:
// a Go program cannot load an FMU built with Go (two Go runtimes cannot
// share a process), so the child that loads FMUs must not be one. Its
// source (host/fmuhost.c, with the in-process transport's C wrappers
// cfmi.c and cfmi.h) is embedded in cosim, and cosim compiles it with the
// system's C compiler the first time an FMU is isolated, into the user's
// cache directory under a name keyed by the hash of the sources, the
// compiler and the platform: a changed source or compiler builds a new
// host, and concurrent cosim processes never see a half-written one (it is
// built in a temporary directory renamed into place).

//go:embed host/fmuhost.c cfmi.c cfmi.h
var hostSources embed.FS

// HostEnv is the environment variable that names a host program built
// beforehand (for machines without a C compiler): cosim then uses it
// instead of building one. It must be built from this cosim's sources
// (fmi/host/fmuhost.c and fmi/cfmi.c: cc -O2 -DCOSIM_FMU_HOST -Ifmi
// fmi/host/fmuhost.c fmi/cfmi.c -ldl -pthread -o cosim-fmu-host); a host
// speaking another protocol version is refused.
const HostEnv = "COSIM_FMU_HOST"

// ErrHost: cosim's FMU host program, which runs isolated FMUs, could not
// be built or started.
var ErrHost = errors.New("cannot build or start cosim's FMU host program")

var host struct {
	once sync.Once
	path string
	err  error
}

// HostProgram returns the path of cosim's FMU host program, which runs
// isolated FMUs (Options.Isolate): the program HostEnv names, or the one
// built from HostSources with the C compiler ($CC, else gcc, else cc) in
// the user's cache directory, building it on first use. The error wraps
// ErrHost and says what is missing. It is safe for concurrent use.
func HostProgram() (string, error) {
	host.once.Do(func() { host.path, host.err = findHost() })
	return host.path, host.err
}

// hostSourceFiles returns the host program's sources by file name
// (fmuhost.c, cfmi.c, cfmi.h) and the compiler arguments that build them,
// in one directory, into a program named by one more argument.
func hostSourceFiles() (files map[string][]byte, args []string) {
	files = map[string][]byte{}
	fs.WalkDir(hostSources, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := hostSources.ReadFile(p)
			files[path.Base(p)] = data
		}
		return nil
	})
	return files, []string{"-O2", "-DCOSIM_FMU_HOST", "-I.", "fmuhost.c", "cfmi.c", "-ldl", "-pthread", "-o"}
}

func findHost() (string, error) {
	if p := os.Getenv(HostEnv); p != "" {
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			return "", fmt.Errorf("%w: %s=%s is not a program: %v", ErrHost, HostEnv, p, err)
		}
		return p, nil
	}
	cc, err := compiler()
	if err != nil {
		return "", err
	}
	files, args := hostSourceFiles()
	h := sha256.New()
	for _, name := range []string{"fmuhost.c", "cfmi.c", "cfmi.h"} {
		fmt.Fprintf(h, "%s %d\n", name, len(files[name]))
		h.Write(files[name])
	}
	fmt.Fprintf(h, "%s %s %s %s\n", cc, strings.Join(args, " "), runtime.GOOS, runtime.GOARCH)
	key := hex.EncodeToString(h.Sum(nil))[:16]
	cache, err := os.UserCacheDir()
	if err != nil || cache == "" {
		cache = os.TempDir()
	}
	root := filepath.Join(cache, "cosim", "fmu-host")
	final := filepath.Join(root, key)
	prog := filepath.Join(final, "cosim-fmu-host")
	if fi, err := os.Stat(prog); err == nil && fi.Mode().IsRegular() {
		return prog, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("%w: %v", ErrHost, err)
	}
	tmp, err := os.MkdirTemp(root, ".build-*")
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrHost, err)
	}
	defer os.RemoveAll(tmp)
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(tmp, name), data, 0o644); err != nil {
			return "", fmt.Errorf("%w: %v", ErrHost, err)
		}
	}
	cmd := exec.Command(cc, append(args, "cosim-fmu-host")...)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%w: compiling it with %s %s in %s failed: %v\n%s", ErrHost, cc, strings.Join(args, " "), tmp, err, out)
	}
	if err := os.Rename(tmp, final); err != nil {
		// Another process built it first: use theirs.
		if fi, serr := os.Stat(prog); serr == nil && fi.Mode().IsRegular() {
			return prog, nil
		}
		return "", fmt.Errorf("%w: %v", ErrHost, err)
	}
	return prog, nil
}

// compiler finds the C compiler: $CC (its first word), gcc or cc.
func compiler() (string, error) {
	var tried []string
	if cc := strings.Fields(os.Getenv("CC")); len(cc) > 0 {
		if p, err := exec.LookPath(cc[0]); err == nil {
			return p, nil
		}
		tried = append(tried, "$CC="+cc[0])
	}
	for _, name := range []string{"gcc", "cc"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
		tried = append(tried, name)
	}
	return "", fmt.Errorf("%w: isolated FMUs run in a small C program cosim compiles on first use, and no C compiler was found (tried %s): install gcc, set CC, or set %s to a host program built elsewhere",
		ErrHost, strings.Join(tried, ", "), HostEnv)
}
