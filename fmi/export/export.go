package export

import (
	"archive/zip"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/scene"
)

//go:embed shim/fmu.c
var shimSource []byte

// The headers the shim shares with the c-shared binary's C part.
//
//go:embed cshared/fmi3types.h
var shimTypes []byte

//go:embed cshared/fmi3unsupported.h
var shimUnsupported []byte

//go:embed cshared/fmi3state.h
var shimState []byte

// ShimSource returns the C source of the process binary (the shim), and
// the headers it includes beside it by name.
func ShimSource() (src []byte, headers map[string][]byte) {
	return bytes.Clone(shimSource), map[string][]byte{
		"fmi3types.h":       bytes.Clone(shimTypes),
		"fmi3unsupported.h": bytes.Clone(shimUnsupported),
		"fmi3state.h":       bytes.Clone(shimState),
	}
}

// ErrExport: the scene could not be exported as an FMU.
var ErrExport = errors.New("cannot export the scene as an FMU")

// The binaries an exported FMU can have (Options.Binary); docs/fmi.md
// says when to choose which.
const (
	// BinaryCShared is a Go shared library (go build -buildmode=c-shared
	// of package fmi/export/cshared) that runs the scene in the master's
	// process: the default.
	BinaryCShared = "c-shared"
	// BinaryProcess is a C library (shim/fmu.c) that runs the scene in a
	// cosim process per instance, which the FMU carries.
	BinaryProcess = "process"
)

// Options adjust Export.
type Options struct {
	// Binary is BinaryCShared (also when empty) or BinaryProcess.
	Binary string
	// Program is the cosim executable a process binary's FMU carries in
	// its resources folder, which runs the scene for each instance
	// (ServeCommand): the running cosim (os.Executable) for the command
	// line. Required for BinaryProcess.
	Program string
	// CC is the C compiler that builds a process binary; empty means
	// $CC, else gcc, else cc.
	CC string
	// Source is the root of cosim's source (the module
	// github.com/cosimgo/cosim) a c-shared binary is built from; empty
	// means SourceDir's.
	Source string
	// Go is the go command that builds a c-shared binary; empty means
	// the one on $PATH.
	Go string
	// CacheDir keeps built c-shared binaries, keyed by a hash of the
	// source and the toolchain, so that exporting again does not build
	// again; empty means cosim/fmu-cshared in the user's cache
	// directory, "off" none.
	CacheDir string
}

// Target returns the FMI 3.0 platform tuple an export on this machine
// builds its binary for ("x86_64-linux"; fmi.Platform is the same tuple
// for any machine), and false where exported FMUs cannot run (they start
// their cosim process with fork and talk to it over a Unix socket pair,
// which this export builds for Linux only).
func Target() (string, bool) {
	if runtime.GOOS != "linux" {
		return "", false
	}
	switch runtime.GOARCH {
	case "amd64":
		return "x86_64-linux", true
	case "arm64":
		return "aarch64-linux", true
	}
	return "", false
}

// Platform is the former name of Target.
//
// Deprecated: use Target (fmi.Platform is this process's platform tuple,
// whether or not an export can build for it).
func Platform() (string, bool) { return Target() }

// Export writes the FMI 3.0 co-simulation FMU of the scene file at
// scenePath to out (a zip file, replaced when it exists): the model
// description of its fmu section (Model.ModelDescription), the binary of
// opts.Binary (built from cosim's source with the Go toolchain, or
// compiled from ShimSource with a C compiler), and in its resources
// folder the scene (with the files it reads beside it) and, for a
// process binary, the cosim program that runs it. The model is named by
// the scene's fmu section, else the scene, else out's base name. It
// returns the model.
func Export(scenePath, out string, reg *node.Registry, opts Options) (*Model, error) {
	plat, ok := Target()
	if !ok {
		return nil, fmt.Errorf("%w: exported FMUs run on Linux (x86_64 or aarch64), and this is %s/%s", ErrExport, runtime.GOOS, runtime.GOARCH)
	}
	switch opts.Binary {
	case "":
		opts.Binary = BinaryCShared
	case BinaryCShared:
	case BinaryProcess:
		if opts.Program == "" {
			return nil, fmt.Errorf("%w: Options.Program (the cosim executable the FMU carries) is empty", ErrExport)
		}
	default:
		return nil, fmt.Errorf("%w: binary %q: choose %q (a Go library that runs the scene in the master's process) or %q (a C library that runs it in a cosim process)", ErrExport, opts.Binary, BinaryCShared, BinaryProcess)
	}
	sc, err := scene.LoadFile(scenePath, reg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", scenePath, err)
	}
	raw, err := os.ReadFile(scenePath)
	if err != nil {
		return nil, err
	}
	fallback := strings.TrimSuffix(filepath.Base(out), filepath.Ext(out))
	embedded, files, err := embedScene(raw, sc, reg, fallback)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", scenePath, err)
	}
	// The model is computed from the scene as the FMU carries it, in a
	// folder laid out as its resources, exactly as the FMU computes it.
	tmp, err := os.MkdirTemp("", "cosim-export-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	res := filepath.Join(tmp, "resources")
	if err := writeResources(res, embedded, files); err != nil {
		return nil, err
	}
	esc, err := scene.LoadFile(filepath.Join(res, SceneFile), reg)
	if err != nil {
		return nil, fmt.Errorf("%s as the FMU carries it: %w", scenePath, err)
	}
	g, err := esc.Build(reg, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", scenePath, err)
	}
	m, err := newModel(esc, g, embedded, fallback)
	closeGraph(g)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", scenePath, err)
	}
	var md bytes.Buffer
	if err := m.ModelDescription().EncodeFMI3(&md); err != nil {
		return nil, fmt.Errorf("%w: the model description: %v", ErrExport, err)
	}
	lib := filepath.Join(tmp, m.Identifier+".so")
	if opts.Binary == BinaryProcess {
		err = compileShim(opts.CC, tmp, lib)
	} else {
		err = buildCShared(opts, tmp, lib)
	}
	if err != nil {
		return nil, err
	}
	err = writeZip(out, func(z *zip.Writer) error {
		if err := addBytes(z, "modelDescription.xml", md.Bytes(), 0o644); err != nil {
			return err
		}
		if err := addFile(z, "binaries/"+plat+"/"+m.Identifier+".so", lib, 0o755); err != nil {
			return err
		}
		if err := addBytes(z, "resources/"+SceneFile, embedded, 0o644); err != nil {
			return err
		}
		for name, src := range files {
			if err := addFile(z, "resources/"+name, src, 0o644); err != nil {
				return err
			}
		}
		if opts.Binary == BinaryProcess {
			return addFile(z, "resources/cosim", opts.Program, 0o755)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// embedScene returns the scene file as the FMU carries it: the model
// name fixed in its fmu section (so that the FMU names itself whatever
// its file is called), and every file a node reads (a lookup table, an
// imported FMU: node.Registry.Paths) referred to under files/ in the
// resources folder. files maps those names to the files to copy.
func embedScene(raw []byte, sc *scene.Scene, reg *node.Registry, fallback string) ([]byte, map[string]string, error) {
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, nil, err
	}
	name := fallback
	if sc.Name != "" {
		name = sc.Name
	}
	fmuSec, _ := doc["fmu"].(map[string]any)
	if fmuSec == nil {
		fmuSec = map[string]any{}
		doc["fmu"] = fmuSec
	}
	if s, _ := fmuSec["model_name"].(string); s == "" {
		fmuSec["model_name"] = name
	}
	files := map[string]string{}
	for _, sect := range []string{"nodes", "connectors"} {
		list, _ := doc[sect].([]any)
		for _, e := range list {
			n, _ := e.(map[string]any)
			typ, _ := n["type"].(string)
			params, _ := n["params"].(map[string]any)
			if params == nil {
				continue
			}
			keys := reg.Paths(typ)
			if typ == "lookup" {
				keys = append(keys, "file")
			}
			for _, k := range keys {
				p, ok := params[k].(string)
				if !ok || p == "" {
					continue
				}
				src := p
				if !filepath.IsAbs(src) {
					src = filepath.Join(sc.Dir, src)
				}
				fi, err := os.Stat(src)
				if err != nil {
					return nil, nil, err
				}
				if !fi.Mode().IsRegular() {
					return nil, nil, fmt.Errorf("%w: node %v reads %s, which is not a file (an unpacked FMU: give the .fmu)", ErrExport, n["name"], src)
				}
				dst := fmt.Sprintf("files/%d-%s", len(files), filepath.Base(src))
				files[dst] = src
				params[k] = dst
			}
		}
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	return append(out, '\n'), files, nil
}

func writeResources(dir string, sceneData []byte, files map[string]string) error {
	if err := os.MkdirAll(filepath.Join(dir, "files"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, SceneFile), sceneData, 0o644); err != nil {
		return err
	}
	for name, src := range files {
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// compileShim compiles the FMU's binary into lib with cc, else $CC (its
// first word), else gcc, else cc.
func compileShim(cc, dir, lib string) error {
	names := []string{"gcc", "cc"}
	if cc != "" {
		names = []string{cc}
	} else if f := strings.Fields(os.Getenv("CC")); len(f) > 0 {
		names = []string{f[0]}
	}
	cc = ""
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			cc = p
			break
		}
	}
	if cc == "" {
		return fmt.Errorf("%w: the FMU's binary is compiled from C, and no C compiler was found (tried %s): install gcc or set CC", ErrExport, strings.Join(names, ", "))
	}
	src := filepath.Join(dir, "fmu.c")
	if err := os.WriteFile(src, shimSource, 0o644); err != nil {
		return err
	}
	for name, data := range map[string][]byte{"fmi3types.h": shimTypes, "fmi3unsupported.h": shimUnsupported, "fmi3state.h": shimState} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	args := []string{"-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-I" + dir, src, "-o", lib}
	cmd := exec.Command(cc, args...)
	if outp, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w: compiling its binary with %s %s failed: %v\n%s", ErrExport, cc, strings.Join(args, " "), err, outp)
	}
	return nil
}

// writeZip writes the archive to a temporary file beside out and renames
// it into place, so that a failed export leaves no partial FMU.
func writeZip(out string, fill func(*zip.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	z := zip.NewWriter(f)
	if err := fill(z); err != nil {
		return err
	}
	if err := z.Close(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), out)
}

func addBytes(z *zip.Writer, name string, data []byte, mode os.FileMode) error {
	h := &zip.FileHeader{Name: name, Method: zip.Deflate}
	h.SetMode(mode)
	w, err := z.CreateHeader(h)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

func addFile(z *zip.Writer, name, src string, mode os.FileMode) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	h := &zip.FileHeader{Name: name, Method: zip.Deflate}
	h.SetMode(mode)
	w, err := z.CreateHeader(h)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, f)
	return err
}
