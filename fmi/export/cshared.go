package export

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// This file builds the c-shared binary of an exported FMU: package
// fmi/export/cshared of cosim's source, built with go build
// -buildmode=c-shared. The library is the same for every scene (the
// scene is in the FMU's resources folder), so it is kept in a cache keyed
// by a hash of cosim's source and the toolchain: exporting again takes a
// copy.

// Module is the module path of cosim's source.
const Module = "github.com/cosimgo/cosim"

// csharedPackage is the package of the c-shared binary, in Module.
const csharedPackage = "./fmi/export/cshared"

// SourceDir returns the root of cosim's source, which the c-shared binary
// is built from: the module this cosim was built from when its folder is
// still there (a cosim built or run in a clone of its repository), else
// the module holding the working directory. The error says what is
// missing.
func SourceDir() (string, error) {
	var tried []string
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		root := filepath.Dir(filepath.Dir(filepath.Dir(file)))
		if isCosimModule(root) {
			return root, nil
		}
		tried = append(tried, root+" (where this cosim was built)")
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			if isCosimModule(d) {
				return d, nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
		tried = append(tried, wd+" and the folders above it")
	}
	return "", fmt.Errorf("%w: the c-shared binary is built at export from cosim's source (the module %s) with the Go toolchain, and no cosim source was found (looked in %s): run cosim export in a clone of cosim, name one with --source DIR, or export with --binary process (a C binary that needs only a C compiler)",
		ErrExport, Module, strings.Join(tried, "; "))
}

// isCosimModule reports whether dir holds cosim's go.mod and the
// c-shared binary's package.
func isCosimModule(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	first, _, _ := strings.Cut(string(data), "\n")
	if strings.TrimSpace(first) != "module "+Module {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, csharedPackage, "main.go"))
	return err == nil
}

// buildCShared builds the c-shared binary into lib, or copies it from the
// cache.
func buildCShared(opts Options, tmp, lib string) error {
	src := opts.Source
	if src == "" {
		var err error
		if src, err = SourceDir(); err != nil {
			return err
		}
	} else if !isCosimModule(src) {
		return fmt.Errorf("%w: %s is not cosim's source (a go.mod of module %s with %s): name the root of a clone of cosim, or export with --binary process", ErrExport, src, Module, csharedPackage)
	}
	goCmd := opts.Go
	if goCmd == "" {
		goCmd = "go"
	}
	goPath, err := exec.LookPath(goCmd)
	if err != nil {
		return fmt.Errorf("%w: the c-shared binary is built at export with the Go toolchain, and %q was not found (%v): install Go (go.dev/dl) or export with --binary process (a C binary that needs only a C compiler)", ErrExport, goCmd, err)
	}
	env := append(os.Environ(), "CGO_ENABLED=1")
	var cached string
	if opts.CacheDir != "off" {
		key, err := sourceKey(src, goPath)
		if err == nil {
			dir := opts.CacheDir
			if dir == "" {
				if d, err := os.UserCacheDir(); err == nil {
					dir = filepath.Join(d, "cosim", "fmu-cshared")
				}
			}
			if dir != "" {
				cached = filepath.Join(dir, key+".so")
				if copyFile(cached, lib) == nil {
					return nil
				}
			}
		}
	}
	out := filepath.Join(tmp, "cshared.so")
	cmd := exec.Command(goPath, "build", "-buildmode=c-shared", "-o", out, csharedPackage)
	cmd.Dir, cmd.Env = src, env
	if outp, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w: building its binary in %s with %s build -buildmode=c-shared %s failed (the export runs cosim's source with the Go toolchain and cgo, which needs a C compiler; --binary process needs only the C compiler): %v\n%s",
			ErrExport, src, goPath, csharedPackage, err, outp)
	}
	if cached != "" {
		// A failure to cache is not the export's: the next one builds.
		if os.MkdirAll(filepath.Dir(cached), 0o755) == nil {
			if tmpc, err := os.CreateTemp(filepath.Dir(cached), ".build-*"); err == nil {
				tmpc.Close()
				if copyFile(out, tmpc.Name()) != nil || os.Rename(tmpc.Name(), cached) != nil {
					os.Remove(tmpc.Name())
				}
			}
		}
	}
	return os.Rename(out, lib)
}

// sourceKey hashes what the c-shared binary is built from: the Go
// toolchain's version and the environment that steers a build, and every
// file of cosim's source that a build can read (Go, C, assembly sources
// and headers, go.mod and go.sum, which pin the dependencies; tests and
// testdata aside). A change to any of them builds again.
func sourceKey(src, goPath string) (string, error) {
	h := sha256.New()
	ver, err := exec.Command(goPath, "env", "GOVERSION", "GOOS", "GOARCH", "CC", "CGO_CFLAGS", "CGO_LDFLAGS", "GOFLAGS", "GOAMD64", "GOARM64").Output()
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "cosim c-shared 1\n%s\n", ver)
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != src && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case name == "go.mod" || name == "go.sum":
		case strings.HasSuffix(name, "_test.go"):
			return nil
		case strings.HasSuffix(name, ".go"), strings.HasSuffix(name, ".c"), strings.HasSuffix(name, ".h"), strings.HasSuffix(name, ".s"):
		default:
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(data))
		h.Write(data)
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// copyFile copies src to dst (replaced).
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
