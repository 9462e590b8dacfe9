package docs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cosimgo/cosim/anomalies"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/verification"
)

// ModuleRoot returns the nearest directory at or above dir that holds a
// go.mod file.
func ModuleRoot(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("docs: no go.mod at or above %s", dir)
		}
		d = parent
	}
}

// modulePath reads the module path from root/go.mod.
func modulePath(root string) (string, error) {
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if p, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(p), `"`), nil
		}
	}
	return "", fmt.Errorf("docs: %s/go.mod has no module line", root)
}

// PackageDir returns the directory of the module package with import path
// pkg, or an error when pkg is not in the module rooted at root.
func PackageDir(root, pkg string) (string, error) {
	mod, err := modulePath(root)
	if err != nil {
		return "", err
	}
	if pkg == mod {
		return root, nil
	}
	rel, ok := strings.CutPrefix(pkg, mod+"/")
	if !ok {
		return "", fmt.Errorf("docs: package %s is not in module %s", pkg, mod)
	}
	return filepath.Join(root, filepath.FromSlash(rel)), nil
}

// Examples returns the Example functions in the _test.go files of the
// module package pkg, by file name and then position.
func Examples(root, pkg string) ([]Example, error) {
	dir, err := PackageDir(root, pkg)
	if err != nil {
		return nil, err
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	var names []string
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		name := filepath.Base(p)
		files[name] = src
		names = append(names, name)
	}
	sort.Strings(names)
	return exampleSources(token.NewFileSet(), files, names)
}

// NewGuide gathers everything the guide of the registered type typ is
// rendered from: its default node, its anomaly records
// ([anomalies.ByID] of each metadata ID), its measurements
// ([verification.EvidenceFor]), the registered bodies a connector can
// attach to and, when root is the module root (not ""), the Example
// functions of its package.
func NewGuide(reg *node.Registry, typ, root string) (*Guide, error) {
	n, err := reg.New(typ, nil)
	if err != nil {
		return nil, err
	}
	m := n.Spec().Meta
	g := &Guide{Node: n, Anomalies: Records(m.Anomalies)}
	if g.Evidence, err = verification.EvidenceFor(m.Evidence...); err != nil {
		return nil, err
	}
	if isConnector(n) {
		if g.Bodies, err = Bodies(reg); err != nil {
			return nil, err
		}
	}
	if root != "" {
		if g.Examples, err = Examples(root, n.Spec().Package); err != nil {
			return nil, fmt.Errorf("docs: %s: examples: %w", typ, err)
		}
	}
	// A package may register several types (nodes/source): each guide
	// keeps the examples and measurements of its own type, leaving out
	// those named for a sibling (ExampleStep, subject "step").
	siblings := map[string]bool{}
	for _, name := range reg.Names() {
		if s, err := reg.Spec(name); err == nil && name != typ && s.Package == n.Spec().Package {
			siblings[strings.ToLower(name)] = true
		}
	}
	if len(siblings) > 0 {
		g.Examples = slices.DeleteFunc(g.Examples, func(ex Example) bool {
			suffix, _, _ := strings.Cut(strings.TrimPrefix(ex.Name, "Example"), "_")
			return siblings[strings.ToLower(suffix)]
		})
		g.Evidence = slices.DeleteFunc(g.Evidence, func(m verification.Measurement) bool { return siblings[strings.ToLower(m.Subject)] })
	}
	return g, nil
}

// Records returns the registry records of ids, in the order given,
// skipping IDs the registry does not know.
func Records(ids []string) []anomalies.Entry {
	var out []anomalies.Entry
	for _, id := range ids {
		if r, ok := anomalies.ByID(id); ok {
			out = append(out, r)
		}
	}
	return out
}

// Bodies returns the registered types whose default node implements
// node.Marker, sorted.
func Bodies(reg *node.Registry) ([]string, error) {
	var out []string
	for _, name := range reg.Names() {
		n, err := reg.New(name, nil)
		if err != nil {
			return nil, err
		}
		if _, ok := node.As[node.Marker](n); ok {
			out = append(out, name)
		}
	}
	return out, nil
}

// Files renders every generated file in memory, keyed by slash-separated
// path relative to the docs directory: nodes/TYPE.md for every registered
// type, nodes/README.md and anomalies.md. root is the module root, for
// the Example sections; "" leaves them out.
func Files(reg *node.Registry, root string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, name := range reg.Names() {
		g, err := NewGuide(reg, name, root)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if _, err := g.WriteTo(&b); err != nil {
			return nil, err
		}
		out["nodes/"+name+".md"] = b.Bytes()
	}
	var b bytes.Buffer
	if err := WriteIndex(&b, reg); err != nil {
		return nil, err
	}
	out["nodes/README.md"] = b.Bytes()
	b = bytes.Buffer{}
	if err := WriteAnomalies(&b, anomalies.All(), reg); err != nil {
		return nil, err
	}
	out["anomalies.md"] = b.Bytes()
	return out, nil
}

// Generate writes [Files] into the docs directory dir (docs/ of the
// module containing dir) and removes generated guides in dir/nodes whose
// type is no longer registered. Files that do not start with [Header] are
// never removed or overwritten silently: overwriting one is an error.
func Generate(dir string, reg *node.Registry) error {
	root, err := ModuleRoot(dir)
	if err != nil {
		return err
	}
	files, err := Files(reg, root)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "nodes"), 0o755); err != nil {
		return err
	}
	for _, name := range SortedNames(files) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if old, err := os.ReadFile(p); err == nil && !IsGenerated(old) {
			return fmt.Errorf("docs: %s exists and was not generated (no %q header); move it away first", p, Header)
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return err
		}
	}
	stale, err := StaleGenerated(dir, files)
	if err != nil {
		return err
	}
	for _, name := range stale {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			return err
		}
	}
	return nil
}

// StaleGenerated lists the generated files (Markdown starting with
// [Header]) under dir/nodes and dir that are not in files: guides of node
// types that are no longer registered.
func StaleGenerated(dir string, files map[string][]byte) ([]string, error) {
	var out []string
	for _, sub := range []string{".", "nodes"} {
		paths, err := filepath.Glob(filepath.Join(dir, sub, "*.md"))
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			name := path.Join(sub, filepath.Base(p))
			if _, ok := files[name]; ok {
				continue
			}
			src, err := os.ReadFile(p)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				return nil, err
			}
			if IsGenerated(src) {
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// IsGenerated reports whether a file starts with [Header].
func IsGenerated(src []byte) bool { return bytes.HasPrefix(src, []byte(Header)) }

// SortedNames returns the keys of files, sorted.
func SortedNames(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for k := range files {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// OrderText is a type's declared order for tables: "none (stateless)"
// when the node integrates nothing.
func OrderText(m node.Metadata) string {
	if m.Discretization == "" {
		return "none (stateless)"
	}
	return m.Order.String()
}

// WriteIndex writes docs/nodes/README.md: one row per registered type.
func WriteIndex(out io.Writer, reg *node.Registry) error {
	w := new(bytes.Buffer)
	fmt.Fprintf(w, "%s\n\n# Node guides\n\n", Header)
	para(w, "One guide per registered node type, generated from the node's own metadata and spec, the anomalies registry and the verification evidence file by `go generate ./docs`. Every anomaly is listed in [anomalies.md](../anomalies.md); `cosim describe TYPE --json` prints the same data as JSON ([describe-json.md](../describe-json.md)).")
	var rerr error
	table(w, []string{"Type", "Algorithm ID", "Version", "Stability", "Declared order", "Anomalies", "Guide"}, func(row func(...string)) {
		for _, name := range reg.Names() {
			s, err := reg.Spec(name)
			if err != nil {
				rerr = err
				return
			}
			m := s.Meta
			stab := m.Stability.String()
			if m.Stability == node.Deprecated && m.Replacement != "" {
				stab += " (use " + m.Replacement + ")"
			}
			var anom []string
			for _, id := range m.Anomalies {
				anom = append(anom, "["+id+"](../anomalies.md#"+anchor(id)+")")
			}
			row("`"+name+"`", m.AlgorithmID, m.Version, stab, OrderText(m), strings.Join(anom, ", "), "["+name+".md]("+name+".md)")
		}
	})
	if rerr != nil {
		return rerr
	}
	_, err := out.Write(w.Bytes())
	return err
}

// WriteAnomalies writes docs/anomalies.md: every record, grouped by
// status (open, wont-fix, resolved), each with the registered node types
// whose metadata lists it (reg may be nil).
func WriteAnomalies(out io.Writer, recs []anomalies.Entry, reg *node.Registry) error {
	w := new(bytes.Buffer)
	fmt.Fprintf(w, "%s\n\n# Known anomalies\n\n", Header)
	para(w, "Every known defect of cosim and of the algorithms it ports from other codes (MADDENING's node guides, Exudyn's item reference; see `docs/glossary.md` in the repository), from the registry in the `anomalies` package (`cosim anomalies` prints it; `cosim anomalies --json` as JSON). Each record names the test that pins it: an open or won't-fix anomaly's test fails once the behaviour changes, a resolved one's fails if it comes back.")
	listedBy := map[string][]string{}
	if reg != nil {
		for _, name := range reg.Names() {
			s, err := reg.Spec(name)
			if err != nil {
				return err
			}
			for _, id := range s.Meta.Anomalies {
				listedBy[id] = append(listedBy[id], name)
			}
		}
	}
	groups := []struct {
		status anomalies.Resolution
		title  string
	}{{anomalies.Unresolved, "Open"}, {anomalies.WontFix, "Won't fix"}, {anomalies.Resolved, "Resolved"}}
	recs = append([]anomalies.Entry(nil), recs...)
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].ID < recs[j].ID })
	for _, gr := range groups {
		var in []anomalies.Entry
		for _, r := range recs {
			if r.Status == gr.status {
				in = append(in, r)
			}
		}
		fmt.Fprintf(w, "## %s\n\n", gr.title)
		if len(in) == 0 {
			para(w, "None.")
			continue
		}
		for _, r := range in {
			fmt.Fprintf(w, "<a id=\"%s\"></a>\n\n### %s: %s\n\n", anchor(r.ID), r.ID, sentenceNoDot(r.Title))
			para(w, r.Description)
			table(w, []string{"Field", "Value"}, func(row func(...string)) {
				row("Severity", string(r.Severity))
				row("Status", string(r.Status))
				row("Components", strings.Join(r.Components, ", "))
				row("Found", r.Found)
				if r.Fixed != "" {
					row("Resolved in", r.Fixed)
				}
				if r.Workaround != "" {
					row("Workaround", r.Workaround)
				}
				test := "Pinning test"
				if r.Status == anomalies.Resolved {
					test = "Regression test"
				}
				row(test, "`"+r.Test+"`")
				if r.Source != "" {
					row("Source", r.Source)
				}
				if by := listedBy[r.ID]; len(by) > 0 {
					links := make([]string, len(by))
					for i, t := range by {
						links[i] = "[" + t + "](nodes/" + t + ".md)"
					}
					row("Node guides", strings.Join(links, ", "))
				}
			})
		}
	}
	_, err := out.Write(w.Bytes())
	return err
}
