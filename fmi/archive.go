package fmi

import (
	"archive/zip"
	"debug/elf"
	"debug/macho"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Limits on what an .fmu archive may unpack to, so that a hostile archive
// cannot fill the disk.
const (
	// MaxArchiveBytes bounds the total size of an archive's unpacked files.
	MaxArchiveBytes = 4 << 30
	// MaxArchiveFiles bounds their number.
	MaxArchiveFiles = 100_000
)

// Errors of opening an FMU, for errors.Is.
var (
	// ErrArchive: the .fmu file is not a readable zip archive, or holds a
	// file cosim will not unpack (a path leaving the archive, a link, too
	// much data).
	ErrArchive = errors.New("corrupt or unsafe FMU archive")
	// ErrPlatform: the FMU has no binary for this platform.
	ErrPlatform = errors.New("no binary for this platform")
	// ErrClosed: the FMU was closed.
	ErrClosed = errors.New("FMU is closed")
)

// FMU is an opened FMU: its model description and its files on disk, in
// the unpacked directory given to Open or in a temporary directory an
// .fmu archive was unpacked into. New instantiates it as a node; every
// instance keeps the files (and the loaded binary) until it is closed,
// so the FMU may be closed as soon as its nodes are made.
//
// An FMU is safe for concurrent use.
type FMU struct {
	path string // as given to Open
	dir  string // the root: modelDescription.xml, binaries/, resources/
	temp bool   // dir is a temporary directory of ours
	md   *ModelDescription

	mu     sync.Mutex
	refs   int // the opener's reference (until Close) + one per live instance
	closed bool
	// libs are the loaded binaries, by interface (the two interfaces may
	// name different binaries); released with the last reference.
	libs map[Interface]library
	// once is set for an FMU that can be instantiated only once per
	// process while an instance lives.
	live map[Interface]int
	err  error // the error of removing the directory, reported by the last release
}

// Open reads the FMU at path: an .fmu file (a zip archive, unpacked into
// a temporary directory that is removed when the FMU and all its
// instances are closed) or a directory holding an unpacked FMU. It parses
// modelDescription.xml and checks that a binary for this platform exists
// for an interface the FMU offers; loading the binary is left to New.
// Nothing is left on disk when Open fails.
func Open(p string) (*FMU, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("fmi: %w", err)
	}
	f := &FMU{path: p, refs: 1, libs: map[Interface]library{}, live: map[Interface]int{}}
	if fi.IsDir() {
		f.dir = p
	} else {
		dir, err := unpack(p)
		if err != nil {
			return nil, fmt.Errorf("fmi: %s: %w", p, err)
		}
		f.dir, f.temp = dir, true
	}
	fail := func(err error) (*FMU, error) {
		if f.temp {
			os.RemoveAll(f.dir)
		}
		return nil, fmt.Errorf("fmi: %s: %w", p, err)
	}
	md, err := readModelDescription(f.dir)
	if err != nil {
		return fail(err)
	}
	f.md = md
	// At least one offered interface must have a binary here.
	var errs []error
	for _, k := range []Interface{InterfaceCoSimulation, InterfaceModelExchange} {
		if md.Interface(k) == nil {
			continue
		}
		if _, err := f.binary(k); err != nil {
			errs = append(errs, err)
		} else {
			errs = nil
			break
		}
	}
	if len(errs) > 0 {
		return fail(errs[0])
	}
	return f, nil
}

func readModelDescription(dir string) (*ModelDescription, error) {
	r, err := os.Open(filepath.Join(dir, "modelDescription.xml"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: the FMU has no modelDescription.xml at its root", ErrModelDescription)
		}
		return nil, err
	}
	defer r.Close()
	return ParseModelDescription(r)
}

// ModelDescription returns the FMU's model description. The caller must
// not modify it.
func (f *FMU) ModelDescription() *ModelDescription { return f.md }

// Path returns the path Open was given.
func (f *FMU) Path() string { return f.path }

// Dir returns the directory the FMU's files are in (a temporary one for
// an .fmu archive).
func (f *FMU) Dir() string { return f.dir }

// Close gives up the opener's reference: the binary is unloaded and a
// temporary directory removed once every instance made by New is closed
// too. Closing twice is harmless.
func (f *FMU) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	f.mu.Unlock()
	return f.release()
}

// acquire takes a reference for a new instance of interface k; it fails
// when the FMU is closed or allows one instance per process and has one
// in cosim's process (an isolated instance has a process of its own, and
// is not counted).
func (f *FMU) acquire(k Interface, isolated bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	if isolated {
		f.refs++
		return nil
	}
	if f.md.Interface(k).CanBeInstantiatedOnlyOncePerProcess && f.live[k] > 0 {
		return fmt.Errorf("%s declares canBeInstantiatedOnlyOncePerProcess and has a live instance; Open the FMU again for a second, independent copy", f.md.ModelName)
	}
	f.refs++
	f.live[k]++
	return nil
}

// releaseInstance gives up an instance's reference.
func (f *FMU) releaseInstance(k Interface, isolated bool) error {
	f.mu.Lock()
	if !isolated {
		f.live[k]--
	}
	f.mu.Unlock()
	return f.release()
}

// release drops one reference; the last unloads the binaries and removes
// a temporary directory.
func (f *FMU) release() error {
	f.mu.Lock()
	f.refs--
	if f.refs > 0 {
		f.mu.Unlock()
		return nil
	}
	libs := f.libs
	f.libs = nil
	f.mu.Unlock()
	var errs []error
	for _, k := range []Interface{InterfaceCoSimulation, InterfaceModelExchange} {
		if l := libs[k]; l != nil {
			errs = append(errs, l.close())
		}
	}
	if f.temp {
		if err := os.RemoveAll(f.dir); err != nil {
			errs = append(errs, fmt.Errorf("fmi: removing the unpacked FMU: %w", err))
		}
	}
	return errors.Join(errs...)
}

// Platform returns the FMI 3.0 platform tuple of this process
// ("x86_64-linux"); FMI 2.0 names it otherwise ("linux64").
func Platform() string { return platform3(runtime.GOARCH, runtime.GOOS) }

func platform3(arch, goos string) string {
	a := map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "x86", "arm": "aarch32"}[arch]
	if a == "" {
		a = arch
	}
	return a + "-" + goos
}

func platform2(arch, goos string) string {
	bits := "64"
	if arch == "386" || arch == "arm" {
		bits = "32"
	}
	o := map[string]string{"windows": "win", "darwin": "darwin", "linux": "linux"}[goos]
	if o == "" {
		o = goos
	}
	return o + bits
}

// libExt is the file name extension of a shared library here.
func libExt(goos string) string {
	switch goos {
	case "windows":
		return ".dll"
	case "darwin":
		return ".dylib"
	}
	return ".so"
}

// binary returns the path of the binary of interface k for this
// platform, or an error wrapping ErrPlatform that lists the platforms the
// FMU has binaries for.
func (f *FMU) binary(k Interface) (string, error) {
	it := f.md.Interface(k)
	if it == nil {
		return "", fmt.Errorf("%s does not offer %s", f.md.ModelName, k)
	}
	plat := platform3(runtime.GOARCH, runtime.GOOS)
	if f.md.Major == 2 {
		plat = platform2(runtime.GOARCH, runtime.GOOS)
	}
	rel := path.Join("binaries", plat, it.ModelIdentifier+libExt(runtime.GOOS))
	p := filepath.Join(f.dir, filepath.FromSlash(rel))
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
		return p, nil
	}
	var have []string
	if ents, err := os.ReadDir(filepath.Join(f.dir, "binaries")); err == nil {
		for _, e := range ents {
			if e.IsDir() {
				have = append(have, e.Name())
			}
		}
	}
	slices.Sort(have)
	why := "it has no binaries (a source-only FMU: cosim does not compile FMU sources)"
	if len(have) > 0 {
		why = "it has binaries for " + strings.Join(have, ", ")
		if slices.Contains(have, plat) {
			why = fmt.Sprintf("binaries/%s has no %s%s", plat, it.ModelIdentifier, libExt(runtime.GOOS))
		}
	}
	return "", fmt.Errorf("%w: %s (%s) needs %s; %s", ErrPlatform, f.md.ModelName, k, rel, why)
}

// builtWithGo reports whether the shared library at p was built by the Go
// toolchain (-buildmode=c-shared: it carries Go's build information), so
// that it holds a Go runtime and cannot be loaded into cosim's process.
func builtWithGo(p string) bool {
	if f, err := elf.Open(p); err == nil {
		defer f.Close()
		return f.Section(".go.buildinfo") != nil
	}
	if f, err := macho.Open(p); err == nil {
		defer f.Close()
		return f.Section("__go_buildinfo") != nil
	}
	return false
}

// resourceDir returns the FMU's resources directory (which may not
// exist).
func (f *FMU) resourceDir() string { return filepath.Join(f.dir, "resources") }

// unpack extracts the zip archive at p into a new temporary directory,
// refusing entries that would leave it, links, and more than
// MaxArchiveBytes or MaxArchiveFiles. The directory is removed on error.
func unpack(p string) (dir string, err error) {
	zr, err := zip.OpenReader(p)
	if err != nil {
		return "", fmt.Errorf("%w: not a readable .fmu (zip) archive: %v", ErrArchive, err)
	}
	defer zr.Close()
	if len(zr.File) > MaxArchiveFiles {
		return "", fmt.Errorf("%w: %d entries, more than %d", ErrArchive, len(zr.File), MaxArchiveFiles)
	}
	tmp, err := os.MkdirTemp("", "cosim-fmu-*")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	dir = tmp
	var total int64
	for _, zf := range zr.File {
		name := strings.ReplaceAll(zf.Name, `\`, "/")
		clean := path.Clean(name)
		if !fs.ValidPath(strings.TrimSuffix(clean, "/")) || path.IsAbs(name) || clean == ".." || strings.HasPrefix(clean, "../") {
			return "", fmt.Errorf("%w: entry %q leaves the archive", ErrArchive, zf.Name)
		}
		mode := zf.Mode()
		target := filepath.Join(dir, filepath.FromSlash(clean))
		switch {
		case mode.IsDir() || strings.HasSuffix(name, "/"):
			if err := os.MkdirAll(target, 0o755); err != nil {
				return "", err
			}
			continue
		case !mode.IsRegular():
			return "", fmt.Errorf("%w: entry %q is not a regular file (%s)", ErrArchive, zf.Name, mode.Type())
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return "", err
		}
		n, err := extract(zf, target, MaxArchiveBytes-total)
		if err != nil {
			return "", fmt.Errorf("%w: entry %q: %v", ErrArchive, zf.Name, err)
		}
		total += n
	}
	return dir, nil
}

// extract writes one archive entry to target, at most limit bytes.
func extract(zf *zip.File, target string, limit int64) (int64, error) {
	rc, err := zf.Open()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	perm := os.FileMode(0o644)
	if zf.Mode()&0o111 != 0 {
		perm = 0o755
	}
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(rc, limit+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, err
	}
	if n > limit {
		return n, fmt.Errorf("the archive unpacks to more than %d bytes", int64(MaxArchiveBytes))
	}
	return n, nil
}
