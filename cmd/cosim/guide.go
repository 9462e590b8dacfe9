package main

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/cosimgo/cosim/anomalies"
	"github.com/cosimgo/cosim/docs"
	"github.com/cosimgo/cosim/nodes"
)

func cmdGuide(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("guide", "[-o DIR] [TYPE…]", stderr)
	out := fs.String("o", "", "write the guides into `DIR` (default: docs/nodes of the cosim module the working directory is in); \"-\" writes one type's guide to standard output")
	types, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if *out == "" {
		// The default is the module's docs/nodes, wherever in the module
		// the command runs; outside it there is none to update, and a
		// ./docs/nodes made in the working directory would be a surprise.
		root, err := docs.ModuleRoot(".")
		if err != nil {
			return usagef("outside the cosim module there is no docs/nodes to write into: name the directory with -o DIR (or -o - for one guide on standard output)")
		}
		*out = filepath.Join(root, "docs", "nodes")
	}
	// Describing a node builds one, and deprecated types (rigidbody2d)
	// warn on construction; as in docs/gen.go, those warnings say nothing
	// about the guides.
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError})))
	defer slog.SetDefault(prev)

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
		if err == nil && root == "" && bytes.Contains(b.Bytes(), []byte("Example section")) {
			fmt.Fprintf(stderr, "cosim guide: note: the %s guide's text refers to its Example section, which needs the module's source: run inside the cosim module to include it\n", typ)
		}
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
	lk, err := newLinker(*out, root, reg.Names(), types)
	if err != nil {
		return err
	}
	linksAnomalies := false
	write := func(name string, b []byte) error {
		linksAnomalies = linksAnomalies || bytes.Contains(b, []byte("](anomalies.md"))
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
		if err := write(t+".md", lk.guide(b)); err != nil {
			return err
		}
	}
	if all {
		var b bytes.Buffer
		if err := docs.WriteIndex(&b, reg); err != nil {
			return err
		}
		if err := write("README.md", lk.guide(b.Bytes())); err != nil {
			return err
		}
	}
	if linksAnomalies {
		// The guides link to the anomalies list: write it beside them.
		var b bytes.Buffer
		if err := docs.WriteAnomalies(&b, anomalies.All(), reg); err != nil {
			return err
		}
		if err := write("anomalies.md", lk.anomalies(b.Bytes())); err != nil {
			return err
		}
	}
	return nil
}

// linker fixes the relative links of guides written outside the module's
// docs/nodes. Generated for docs/nodes, a guide links ../anomalies.md,
// ../describe-json.md and example sources as ../../PKG/FILE; elsewhere
// anomalies.md is written beside the guides, and the other links point
// into the module (relative to the guides' directory) or, outside the
// module, become plain text.
type linker struct {
	inPlace bool     // writing to the module's docs/nodes: links are right as they are
	rootRel string   // the module root relative to the guides' directory, slash-separated; "" outside the module
	all     []string // every registered type
	written []string // the types whose guides are written
}

func newLinker(dir, root string, all, written []string) (*linker, error) {
	lk := &linker{all: all, written: written}
	if root == "" {
		return lk, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if abs == filepath.Join(absRoot, "docs", "nodes") {
		lk.inPlace = true
		return lk, nil
	}
	rel, err := filepath.Rel(abs, absRoot)
	if err != nil {
		return nil, err
	}
	lk.rootRel = filepath.ToSlash(rel)
	return lk, nil
}

func (lk *linker) guide(b []byte) []byte {
	if lk.inPlace {
		return b
	}
	// One pass, the longer prefix first at each position.
	r := strings.NewReplacer("](../anomalies.md", "](anomalies.md",
		"[describe-json.md](../describe-json.md)", "docs/describe-json.md in the cosim repository")
	if lk.rootRel != "" {
		r = strings.NewReplacer("](../anomalies.md", "](anomalies.md",
			"](../../", "]("+lk.rootRel+"/",
			"](../", "]("+lk.rootRel+"/docs/")
	}
	return lk.guideLinks([]byte(r.Replace(string(b))), "")
}

var guideLink = regexp.MustCompile(`\[([^\]]*)\]\(((?:nodes/)?)([A-Za-z0-9_-]+)\.md(#[^)]*)?\)`)

// anomalies fixes the links of anomalies.md written beside the guides.
func (lk *linker) anomalies(b []byte) []byte { return lk.guideLinks(b, "nodes/") }

// guideLinks fixes the links to guides (prefix+TYPE.md): a written guide
// is a sibling; another links into the module's docs/nodes, or is plain
// text outside the module.
func (lk *linker) guideLinks(b []byte, prefix string) []byte {
	return guideLink.ReplaceAllFunc(b, func(m []byte) []byte {
		s := guideLink.FindSubmatch(m)
		text, pre, typ, frag := string(s[1]), string(s[2]), string(s[3]), string(s[4])
		switch {
		case pre != prefix || !slices.Contains(lk.all, typ):
			return m
		case slices.Contains(lk.written, typ):
			return []byte("[" + text + "](" + typ + ".md" + frag + ")")
		case lk.rootRel != "":
			return []byte("[" + text + "](" + lk.rootRel + "/docs/nodes/" + typ + ".md" + frag + ")")
		}
		return []byte(text)
	})
}
