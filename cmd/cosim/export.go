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

const exportArgs = "SCENE -o MODEL.fmu"

// cmdExport writes a scene as an FMI 3.0 co-simulation FMU. The FMU
// carries this cosim program, which its binary starts for each instance
// (serveFMU).
func cmdExport(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("export", exportArgs, stderr)
	out := fs.String("o", "", "the `FMU` file to write (.fmu)")
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
	prog, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding the cosim program to put in the FMU: %w", err)
	}
	m, err := export.Export(pos[0], *out, nodes.Registry(), export.Options{Program: prog})
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
	fmt.Fprintf(stdout, "wrote %s: FMI 3.0 co-simulation FMU %q (%d inputs, %d outputs, %d parameters; step %g s, default stop %g s)\n",
		*out, m.Name, in, outs, params, m.Dt, m.Stop)
	return nil
}

// serveFMU runs one instance of an exported FMU for its binary: "cosim
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
