package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cosimgo/cosim/docs"
	"github.com/cosimgo/cosim/nodes"
)

func cmdGuide(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("guide", "[-o DIR] [TYPE…]", stderr)
	out := fs.String("o", filepath.Join("docs", "nodes"), "write the guides into `DIR`; \"-\" writes one type's guide to standard output")
	types, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	reg := nodes.Registry()
	all := len(types) == 0
	if all {
		types = reg.Names()
	}
	if *out == "-" && len(types) != 1 {
		return usagef("-o - writes one guide to standard output: name exactly one node type (see \"cosim nodes\")")
	}
	for _, t := range types { // check every name before writing anything
		if _, err := reg.Spec(t); err != nil {
			return err
		}
	}
	// Example sections need the module's source; without it (an installed
	// binary run outside the repository) the guides are written without them.
	root, err := docs.ModuleRoot(".")
	if err != nil {
		fmt.Fprintf(stderr, "cosim guide: %v; writing the guides without their Example sections (run inside the cosim module for those)\n", err)
		root = ""
	}
	render := func(typ string) ([]byte, error) {
		g, err := docs.NewGuide(reg, typ, root)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		_, err = g.WriteTo(&b)
		return b.Bytes(), err
	}
	if *out == "-" {
		b, err := render(types[0])
		if err != nil {
			return err
		}
		_, err = stdout.Write(b)
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	write := func(name string, b []byte) error {
		p := filepath.Join(*out, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
		fmt.Fprintln(stdout, p)
		return nil
	}
	for _, t := range types {
		b, err := render(t)
		if err != nil {
			return err
		}
		if err := write(t+".md", b); err != nil {
			return err
		}
	}
	if all {
		var b bytes.Buffer
		if err := docs.WriteIndex(&b, reg); err != nil {
			return err
		}
		if err := write("README.md", b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}
