package benchmarks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// A W4Peer is W4 written in C against another library (the .c files of
// benchmarks/peers), so that the report can set cosim beside the tools
// its users would otherwise pick, measured in the same run on the same
// machine. Each peer is a program that takes N (and its configuration)
// on the command line, runs W4's 21 steps with cosim's Newton test and
// Jacobian reuse (the file's header says precisely how) and prints one
// JSON line with the fields of benchmarks.W4Run, which the report's
// w4child prints (w4.h, w4_print).
//
// Peers are built with gcc where the library's development package is
// installed (BuildW4Peer); where it is not, the error wraps
// ErrPeerUnavailable and names the package.
type W4Peer struct {
	Name    string   // "petsc", "arkode"
	Source  string   // the C file in benchmarks/peers
	Package string   // the Debian package providing the library
	Pkgs    []string // pkg-config packages giving cflags and libs
	Header  string   // without pkg-config: a header that must exist
	Libs    []string // link flags beyond pkg-config's
	// Configs are the peer's configurations: the solver name the report
	// compares (cosim's, for a peer of the same algorithm) and the
	// arguments after N.
	Configs []W4PeerConfig
}

// W4PeerConfig is one configuration of a peer.
type W4PeerConfig struct {
	Solver string   // "gmres+ilu0", "gmres+pbjacobi", "banded"
	Twin   string   // the cosim solver it is compared with
	Args   []string // arguments after N
}

// W4Peers returns the peers of W4: PETSc's TS backward Euler with
// GMRES(30) and ILU(0) or point-block Jacobi (block 6, cosim's
// block-Jacobi over the masses) on an AIJ matrix, and SUNDIALS' ARKODE
// backward Euler with its band LU. The slice is the caller's.
func W4Peers() []W4Peer {
	return []W4Peer{
		{
			Name: "petsc", Source: "w4_petsc.c", Package: "petsc-dev", Pkgs: []string{"PETSc", "mpi"}, Libs: []string{"-lm"},
			Configs: []W4PeerConfig{
				{Solver: "gmres+ilu0", Twin: "gmres+ilu0", Args: []string{"ilu"}},
				{Solver: "gmres+pbjacobi", Twin: "gmres+block-jacobi", Args: []string{"pbjacobi"}},
			},
		},
		{
			Name: "arkode", Source: "w4_arkode.c", Package: "libsundials-dev", Header: "/usr/include/arkode/arkode_arkstep.h",
			Libs: []string{"-lsundials_arkode", "-lsundials_nvecserial", "-lsundials_sunlinsolband", "-lsundials_sunmatrixband",
				"-lsundials_sunnonlinsolnewton", "-lm"},
			Configs: []W4PeerConfig{{Solver: "banded", Twin: "banded"}},
		},
	}
}

// ErrPeerUnavailable is wrapped by BuildW4Peer's error when the peer's
// library (or gcc, or pkg-config) is not installed.
var ErrPeerUnavailable = errors.New("peer library not installed")

// PeersDir returns the directory of the peers' C sources: benchmarks/peers
// beside this file's source, or under the working directory.
func PeersDir() string {
	if _, file, _, ok := runtime.Caller(0); ok {
		d := filepath.Join(filepath.Dir(file), "peers")
		if _, err := os.Stat(d); err == nil {
			return d
		}
	}
	return filepath.Join("benchmarks", "peers")
}

// BuildW4Peer compiles p into dir and returns the executable's path. An
// error wrapping ErrPeerUnavailable says what is missing; any other error
// is a build failure (with the compiler's output).
func BuildW4Peer(ctx context.Context, p W4Peer, dir string) (string, error) {
	if _, err := exec.LookPath("gcc"); err != nil {
		return "", fmt.Errorf("%s peer: gcc not found: %w", p.Name, ErrPeerUnavailable)
	}
	var flags []string
	if len(p.Pkgs) > 0 {
		if _, err := exec.LookPath("pkg-config"); err != nil {
			return "", fmt.Errorf("%s peer: pkg-config not found: %w", p.Name, ErrPeerUnavailable)
		}
		out, err := exec.CommandContext(ctx, "pkg-config", append([]string{"--cflags", "--libs"}, p.Pkgs...)...).Output()
		if err != nil {
			return "", fmt.Errorf("%s peer: %s is not installed (pkg-config %s): %w", p.Name, p.Package, strings.Join(p.Pkgs, " "), ErrPeerUnavailable)
		}
		flags = strings.Fields(string(out))
	}
	if p.Header != "" {
		if _, err := os.Stat(p.Header); err != nil {
			return "", fmt.Errorf("%s peer: %s is not installed (no %s): %w", p.Name, p.Package, p.Header, ErrPeerUnavailable)
		}
	}
	exe := filepath.Join(dir, strings.TrimSuffix(p.Source, ".c"))
	args := append([]string{"-O2", "-o", exe, filepath.Join(PeersDir(), p.Source)}, flags...)
	args = append(args, p.Libs...)
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "gcc", args...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s peer: gcc %s: %v\n%s", p.Name, strings.Join(args, " "), err, stderr.String())
	}
	return exe, nil
}

// W4PeerCommand returns the command running configuration c of a built
// peer at exe on n masses for steps steps.
func W4PeerCommand(ctx context.Context, exe string, c W4PeerConfig, n, steps int) *exec.Cmd {
	args := append([]string{strconv.Itoa(n)}, c.Args...)
	args = append(args, strconv.Itoa(steps))
	return exec.CommandContext(ctx, exe, args...)
}
