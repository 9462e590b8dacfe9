package fmitest

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
)

// FMU is a built FMU: the unpacked directory, the .fmu archive of the
// same files, and (for a Reference FMU) its reference files.
type FMU struct {
	Model   string
	Version int    // 2 or 3
	Dir     string // unpacked FMU
	Zip     string // the .fmu archive
	Out     string // <Model>_out.csv ("" when the model has none)
	In      string // <Model>_in.csv ("" when none)
	Sources string // the model's source directory
}

// Missing reports a missing prerequisite: a skip, or a failure under CI.
func Missing(t testing.TB, format string, a ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, a...)
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true: FMU tests must run)", msg)
	}
	t.Skip(msg)
}

// ModuleRoot returns the module's root directory (where go.mod is).
func ModuleRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("fmitest: cannot find its own source file")
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// ReferenceRoot returns ../shared/fmi/reference-fmus from the module root.
func ReferenceRoot(t testing.TB) string {
	t.Helper()
	r := filepath.Join(ModuleRoot(t), "..", "shared", "fmi", "reference-fmus")
	if _, err := os.Stat(filepath.Join(r, "src", "fmi3Functions.c")); err != nil {
		Missing(t, "fmitest: the Reference FMUs are not at %s: %v", r, err)
	}
	return r
}

// HeadersDir returns the FMI 3.0 C headers,
// ../shared/fmi/fmi-standard/headers from the module root.
func HeadersDir(t testing.TB) string {
	t.Helper()
	h := filepath.Join(ModuleRoot(t), "..", "shared", "fmi", "fmi-standard", "headers")
	if _, err := os.Stat(filepath.Join(h, "fmi3Functions.h")); err != nil {
		Missing(t, "fmitest: the FMI 3.0 headers are not at %s: %v", h, err)
	}
	return h
}

// Platform returns the FMI platform directory name of this machine for
// FMI version v.
func Platform(v int) string {
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]
	if v == 2 {
		bits := map[string]string{"amd64": "64", "arm64": "64"}[runtime.GOARCH]
		os := map[string]string{"linux": "linux", "darwin": "darwin"}[runtime.GOOS]
		return os + bits
	}
	return arch + "-" + runtime.GOOS
}

func libExt() string {
	if runtime.GOOS == "darwin" {
		return ".dylib"
	}
	return ".so"
}

var (
	mu     sync.Mutex
	builds = map[string]*build{}
)

type build struct {
	once sync.Once
	dir  string
	err  error
}

// cacheDir is the root of built FMUs.
func cacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil || d == "" {
		d = os.TempDir()
	}
	return filepath.Join(d, "cosim-fmitest")
}

// cached builds what make writes into a directory, once per key.
func cached(key string, make func(dir string) error) (string, error) {
	mu.Lock()
	b := builds[key]
	if b == nil {
		b = &build{}
		builds[key] = b
	}
	mu.Unlock()
	b.once.Do(func() {
		final := filepath.Join(cacheDir(), key)
		if _, err := os.Stat(filepath.Join(final, ".complete")); err == nil {
			b.dir = final
			return
		}
		if err := os.MkdirAll(cacheDir(), 0o755); err != nil {
			b.err = err
			return
		}
		tmp, err := os.MkdirTemp(cacheDir(), ".build-*")
		if err != nil {
			b.err = err
			return
		}
		if err := make(tmp); err != nil {
			os.RemoveAll(tmp)
			b.err = err
			return
		}
		if err := os.WriteFile(filepath.Join(tmp, ".complete"), nil, 0o644); err != nil {
			os.RemoveAll(tmp)
			b.err = err
			return
		}
		if err := os.Rename(tmp, final); err != nil {
			// Another process built it first.
			os.RemoveAll(tmp)
			if _, serr := os.Stat(filepath.Join(final, ".complete")); serr != nil {
				b.err = err
				return
			}
		}
		b.dir = final
	})
	return b.dir, b.err
}

// hashFiles hashes the contents of files (and extra strings) into a key.
func hashFiles(files []string, extra ...string) (string, error) {
	h := sha256.New()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", filepath.Base(f), len(data))
		h.Write(data)
	}
	for _, e := range extra {
		fmt.Fprintf(h, "%s\n", e)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

func gcc(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("gcc")
	if err != nil {
		Missing(t, "fmitest: gcc is not installed: %v", err)
	}
	return p
}

func gccVersion(path string) string {
	out, _ := exec.Command(path, "--version").Output()
	line, _, _ := strings.Cut(string(out), "\n")
	return line
}

// Compile runs gcc on sources with args, writing out; it is for the
// shared libraries and programs tests build themselves.
func Compile(t testing.TB, out string, args ...string) {
	t.Helper()
	cmd := exec.Command(gcc(t), append(args, "-o", out)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fmitest: gcc %s: %v\n%s", strings.Join(args, " "), err, b)
	}
}

// SharedLibrary compiles sources into a shared library in the cache and
// returns its path.
func SharedLibrary(t testing.TB, name string, flags []string, sources ...string) string {
	t.Helper()
	cc := gcc(t)
	key, err := hashFiles(sources, append(append([]string{name, gccVersion(cc)}, flags...), sources...)...)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := cached("lib-"+name+"-"+key, func(dir string) error {
		args := append([]string{"-shared", "-fPIC", "-O2"}, flags...)
		args = append(args, sources...)
		args = append(args, "-o", filepath.Join(dir, name+libExt()), "-lm")
		if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("gcc %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, name+libExt())
}

// Reference builds the Reference FMU model for FMI version v (2 or 3).
func Reference(t testing.TB, model string, v int) FMU {
	t.Helper()
	root := ReferenceRoot(t)
	src := filepath.Join(root, model)
	xml := filepath.Join(src, fmt.Sprintf("FMI%d.xml", v))
	if _, err := os.Stat(xml); err != nil {
		t.Fatalf("fmitest: %s has no FMI %d model description", model, v)
	}
	fns := filepath.Join(root, "src", fmt.Sprintf("fmi%dFunctions.c", v))
	sources := []string{fns, filepath.Join(root, "src", "cosimulation.c"), filepath.Join(src, "model.c")}
	headers, _ := filepath.Glob(filepath.Join(root, "include", "*.h"))
	sort.Strings(headers)
	flags := []string{fmt.Sprintf("-DFMI_VERSION=%d", v), "-DDISABLE_PREFIX", "-I" + filepath.Join(root, "include"), "-I" + src}
	var resources []string
	if model == "Resource" {
		resources = []string{filepath.Join(src, "y.txt")}
	}
	f := FMU{Model: model, Version: v, Sources: src}
	f.Dir, f.Zip = Package(t, fmt.Sprintf("%s-fmi%d", model, v), model, xml, flags, sources,
		append(append(headers, filepath.Join(src, "config.h")), resources...), resources)
	if p := filepath.Join(src, model+"_out.csv"); exists(p) {
		f.Out = p
	}
	if p := filepath.Join(src, model+"_in.csv"); exists(p) {
		f.In = p
	}
	return f
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Package compiles sources into binaries/<platform>/<id>.so with the
// model description xml (FMI version from the flag -DFMI_VERSION, else 3)
// and the resource files, in an unpacked directory and a zipped .fmu;
// deps are further files whose contents the build depends on.
func Package(t testing.TB, name, id, xml string, flags, sources, deps, resources []string) (dir, fmu string) {
	t.Helper()
	cc := gcc(t)
	v := 3
	for _, f := range flags {
		if f == "-DFMI_VERSION=2" {
			v = 2
		}
	}
	all := append(append(append([]string{xml}, sources...), deps...), resources...)
	key, err := hashFiles(all, append([]string{name, id, gccVersion(cc)}, flags...)...)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cached("fmu-"+name+"-"+key, func(root string) error {
		unpacked := filepath.Join(root, name)
		bin := filepath.Join(unpacked, "binaries", Platform(v))
		if err := os.MkdirAll(bin, 0o755); err != nil {
			return err
		}
		args := append([]string{"-shared", "-fPIC", "-O2"}, flags...)
		args = append(args, sources...)
		args = append(args, "-o", filepath.Join(bin, id+libExt()), "-lm")
		if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("gcc %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		if err := copyFile(xml, filepath.Join(unpacked, "modelDescription.xml")); err != nil {
			return err
		}
		for _, r := range resources {
			if err := os.MkdirAll(filepath.Join(unpacked, "resources"), 0o755); err != nil {
				return err
			}
			if err := copyFile(r, filepath.Join(unpacked, "resources", filepath.Base(r))); err != nil {
				return err
			}
		}
		return Zip(unpacked, filepath.Join(root, name+".fmu"))
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(out, name), filepath.Join(out, name+".fmu")
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}

// Zip writes the files under dir into the zip archive out, with paths
// relative to dir.
func Zip(dir, out string) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		w, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		r, err := os.Open(p)
		if err != nil {
			return err
		}
		defer r.Close()
		_, err = io.Copy(w, r)
		return err
	})
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
