package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cosimgo/cosim/fmi/export"
	"github.com/cosimgo/cosim/nodes"
)

const exportArgs = "SCENE -o MODEL.fmu [--binary c-shared|process]"

// cmdExport writes a scene as an FMI 3.0 co-simulation FMU. Its binary is
// a Go library built from cosim's source (c-shared, the default) or a C
// library that starts, for each instance, the cosim program the FMU
// carries (process: this program, serveFMU).
func cmdExport(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("export", exportArgs, stderr)
	out := fs.String("o", "", "the `FMU` file to write (.fmu)")
	binary := fs.String("binary", export.BinaryCShared, "the FMU's `binary`: c-shared (a Go library running the scene in the master's process; built with the Go toolchain from cosim's source) or process (a C library running it in a cosim process the FMU carries; for masters that load other Go-built FMUs)")
	source := fs.String("source", "", "c-shared: the root `DIR` of cosim's source to build the binary from (default: the clone this cosim was built in, else the one holding the working directory)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("name exactly one scene file, got %d arguments", len(pos))
	}
	if *out == "" {
		return usagef("-o MODEL.fmu: name the FMU to write")
	}
	if !strings.EqualFold(filepath.Ext(*out), ".fmu") {
		return usagef("-o %s: an FMU's file name ends in .fmu", *out)
	}
	if err := checkOutputPath("-o", *out); err != nil {
		return err
	}
	if samePath(pos[0], *out) {
		return usagef("-o %s is the scene file", *out)
	}
	opts := export.Options{Binary: *binary, Source: *source}
	switch *binary {
	case export.BinaryCShared:
	case export.BinaryProcess:
		if *source != "" {
			return usagef("--source is for --binary c-shared (a process binary needs no source)")
		}
		prog, err := os.Executable()
		if err != nil {
			return fmt.Errorf("finding the cosim program to put in the FMU: %w", err)
		}
		opts.Program = prog
	default:
		return usagef("--binary %s: choose c-shared or process", *binary)
	}
	m, err := export.Export(pos[0], *out, nodes.Registry(), opts)
	if err != nil {
		return err
	}
	var in, outs, params int
	for _, v := range m.Variables {
		switch v.Kind {
		case export.Input:
			in++
		case export.Output:
			outs++
		case export.Parameter:
			params++
		}
	}
	fmt.Fprintf(stdout, "wrote %s: FMI 3.0 co-simulation FMU %q (%d inputs, %d outputs, %d parameters; step %g s, default stop %g s; %s binary)\n",
		*out, m.Name, in, outs, params, m.Dt, m.Stop, *binary)
	return nil
}

// serveFMU runs one instance of an exported FMU for its process binary: "cosim
// fmu-serve RESOURCES", spoken to over standard input and output. It is
// not a command users type, and is not listed.
func serveFMU(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "cosim fmu-serve: started by an exported FMU's binary with its resources folder")
		return 2
	}
	err := export.Serve(os.Stdin, os.Stdout, args[0], nodes.Registry())
	if err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintf(os.Stderr, "cosim fmu-serve %s: %v\n", args[0], err)
		return 1
	}
	return 0
}
