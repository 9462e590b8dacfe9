package docs_test

import (
	"bufio"
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/google/go-cmp/cmp"

	"github.com/cosimgo/cosim/anomalies"
	"github.com/cosimgo/cosim/docs"
	"github.com/cosimgo/cosim/node/describe"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/verification"
)

func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := docs.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestDocsUpToDate regenerates every file in memory and compares it byte
// for byte with the file on disk, so a change to a node's metadata, the
// anomalies registry, the evidence file or the generator that is not
// followed by go generate fails here. It also fails for a generated guide
// left behind by a type that is no longer registered.
func TestDocsUpToDate(t *testing.T) {
	root := moduleRoot(t)
	want, err := docs.Files(nodes.Registry(), root)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "docs")
	for _, name := range docs.SortedNames(want) {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Errorf("docs are stale: run go generate ./docs\n%v", err)
			continue
		}
		if !bytes.Equal(got, want[name]) {
			t.Errorf("docs are stale: run go generate ./docs\ndocs/%s (-want +got):\n%s", name, cmp.Diff(string(want[name]), string(got)))
		}
	}
	stale, err := docs.StaleGenerated(dir, want)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range stale {
		t.Errorf("docs are stale: run go generate ./docs\ndocs/%s is generated but nothing generates it any more", name)
	}
}

// TestDeterministic renders everything twice; the bytes must agree.
func TestDeterministic(t *testing.T) {
	root := moduleRoot(t)
	a, err := docs.Files(nodes.Registry(), root)
	if err != nil {
		t.Fatal(err)
	}
	b, err := docs.Files(nodes.Registry(), root)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("two renderings differ (-first +second):\n%s", d)
	}
	for name, src := range a {
		if !docs.IsGenerated(src) {
			t.Errorf("%s does not start with %q", name, docs.Header)
		}
	}
}

// anomalyID is an anomaly ID anywhere in text: MADD-ANO-011,
// COSIM-ANO-001, or any other prefix.
var anomalyID = regexp.MustCompile(`\b[A-Z]+-ANO-\d+\b`)

// metaText calls f with every string in v (a node.Metadata, walked by
// reflection: fields, slices, maps, pointers and nested structs) and a
// path naming where it is, such as "Limitations[3]" or "Changelog[2].Change".
func metaText(v reflect.Value, path string, f func(path, text string)) {
	switch v.Kind() {
	case reflect.String:
		f(path, v.String())
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			metaText(v.Elem(), path, f)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			metaText(v.Index(i), fmt.Sprintf("%s[%d]", path, i), f)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			metaText(v.MapIndex(k), fmt.Sprintf("%s[%v]", path, k), f)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if sf := v.Type().Field(i); sf.IsExported() {
				p := sf.Name
				if path != "" {
					p = path + "." + sf.Name
				}
				metaText(v.Field(i), p, f)
			}
		}
	}
}

// TestAnomalyCrossReferences: every anomaly ID a node's metadata names,
// in Metadata.Anomalies or anywhere in its text (limitations, notes,
// mapping notes, changelog, ...), is a record in the anomalies registry,
// and every record that names a registered node type among its
// components is listed by that node's metadata, so a guide's Known
// Limitations section cannot miss one.
func TestAnomalyCrossReferences(t *testing.T) {
	reg := nodes.Registry()
	for _, name := range reg.Names() {
		s, _ := reg.Spec(name)
		for _, id := range s.Meta.Anomalies {
			if _, ok := anomalies.ByID(id); !ok {
				t.Errorf("%s: metadata names anomaly %s, which is not in the anomalies registry", name, id)
			}
		}
		metaText(reflect.ValueOf(s.Meta), "", func(path, text string) {
			for _, id := range anomalyID.FindAllString(text, -1) {
				if _, ok := anomalies.ByID(id); !ok {
					t.Errorf("%s: metadata %s mentions anomaly %s, which is not in the anomalies registry", name, path, id)
				}
			}
		})
		for _, r := range anomalies.ForComponent(name) {
			found := false
			for _, id := range s.Meta.Anomalies {
				found = found || id == r.ID
			}
			if !found {
				t.Errorf("%s: anomaly %s lists the node type among its components, but the node's Metadata.Anomalies does not name it", name, r.ID)
			}
		}
	}
}

// seedHeadings returns the section headings of a seed guide (lines
// ending in "#", as the seeds were copied from rendered HTML), without
// the title.
func seedHeadings(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	heading := regexp.MustCompile(`^([A-Z][A-Za-z0-9 ]*)#$`)
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := heading.FindStringSubmatch(strings.TrimSpace(sc.Text())); m != nil {
			out = append(out, m[1])
		}
	}
	if len(out) < 2 {
		t.Fatalf("%s: found only %d headings", path, len(out))
	}
	return out[1:]
}

// seedSectionsFile is the testdata copy of the seed guides' section lists,
// so that TestGuidesMatchSeedSections runs where the seeds are not (a
// fresh clone in CI). Format: "# <seed file>" starts a seed, then one
// heading a line, in order; blank lines and "//" comments are ignored.
const seedSectionsFile = "testdata/seed-sections.txt"

// readSeedSections parses seedSectionsFile.
func readSeedSections(t *testing.T) map[string][]string {
	t.Helper()
	src, err := os.ReadFile(seedSectionsFile)
	if err != nil {
		t.Fatalf("the testdata copy of the seeds' sections is missing: %v", err)
	}
	out := map[string][]string{}
	seed := ""
	for i, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "//"):
		case strings.HasPrefix(line, "# "):
			seed = strings.TrimPrefix(line, "# ")
			out[seed] = []string{}
		case seed == "":
			t.Fatalf("%s:%d: heading %q before any \"# <seed file>\" line", seedSectionsFile, i+1, line)
		default:
			out[seed] = append(out[seed], line)
		}
	}
	return out
}

// TestGuidesMatchSeedSections: the ball and rigidbody2d guides have every
// section the seed guides have, in the seeds' order. The seeds live in
// shared/seeds beside the module (../shared/seeds from its root); their
// section lists are copied in docs/testdata/seed-sections.txt, which the
// test checks against the seeds when they are there and uses alone when
// they are not.
func TestGuidesMatchSeedSections(t *testing.T) {
	seeds := filepath.Join(moduleRoot(t), "..", "shared", "seeds")
	haveSeeds := true
	if _, err := os.Stat(seeds); err != nil {
		haveSeeds = false
		t.Logf("seed guides not found at %s: checking against the copy of their sections in docs/%s", seeds, seedSectionsFile)
	}
	copied := readSeedSections(t)
	reg := nodes.Registry()
	for _, c := range []struct{ typ, seed string }{
		{"ball", "ball-node.md"},
		{"rigidbody2d", "rigid-body-2d-node.md"},
	} {
		t.Run(c.typ, func(t *testing.T) {
			sections, ok := copied[c.seed]
			if !ok {
				t.Fatalf("docs/%s has no section list for %s", seedSectionsFile, c.seed)
			}
			if haveSeeds {
				fromSeed := seedHeadings(t, filepath.Join(seeds, c.seed))
				if d := cmp.Diff(fromSeed, sections); d != "" {
					t.Fatalf("docs/%s is out of date for %s: copy the seed's headings into it (-seed +testdata):\n%s", seedSectionsFile, c.seed, d)
				}
			}
			if _, err := reg.Spec(c.typ); err != nil {
				t.Skipf("%s is not registered yet: %v", c.typ, err)
			}
			g, err := docs.NewGuide(reg, c.typ, moduleRoot(t))
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if _, err := g.WriteTo(&b); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, line := range strings.Split(b.String(), "\n") {
				if h, ok := strings.CutPrefix(line, "## "); ok {
					got = append(got, h)
				}
			}
			at := 0
			for _, want := range sections {
				i := indexFrom(got, want, at)
				if i < 0 {
					t.Errorf("guide lacks section %q after %q (sections: %q)", want, got[max(at-1, 0)], got)
					continue
				}
				at = i + 1
			}
		})
	}
}

func indexFrom(s []string, v string, from int) int {
	for i := from; i < len(s); i++ {
		if strings.EqualFold(s[i], v) {
			return i
		}
	}
	return -1
}

// TestDescribeJSONDocumented: docs/describe-json.md mentions, as `name`,
// every JSON field name of describe.Description and of the types nested in
// it, and of the records cosim describe puts in Extra, so the reference
// cannot drift from the struct tags.
func TestDescribeJSONDocumented(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(moduleRoot(t), "docs", "describe-json.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	names := map[string]string{}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[describe.Description](),
		reflect.TypeFor[anomalies.Entry](),
		reflect.TypeFor[verification.Measurement](),
	} {
		jsonFields(typ, typ.Name(), names, map[reflect.Type]bool{})
	}
	names["anomaly_records"] = "Description.extra"
	names["verification_evidence"] = "Description.extra"
	for name, where := range names {
		if !strings.Contains(text, "`"+name+"`") {
			t.Errorf("docs/describe-json.md does not document the JSON field `%s` (%s)", name, where)
		}
	}
	for _, c := range node.CapabilityNames() {
		if !strings.Contains(text, "`"+c+"`") {
			t.Errorf("docs/describe-json.md does not list the capability `%s` (node.CapabilityNames)", c)
		}
	}
}

func jsonFields(t reflect.Type, where string, out map[string]string, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = where + "." + f.Name
		jsonFields(f.Type, t.Name(), out, seen)
	}
}

// goIdent is a qualified Go identifier in prose: pkg.Ident or
// pkg.Type.Method, with pkg a lower-case package name and the rest
// exported. Matches preceded by '.', '/' or a word character are part of
// a longer path (maddening.nodes.ball.BallNode) and are skipped.
var goIdent = regexp.MustCompile(`([a-z][a-z0-9]*)\.([A-Z][A-Za-z0-9_]*(?:\.[A-Z][A-Za-z0-9_]*)?)\b`)

// modulePackages maps each package name in the module to the import paths
// of the packages with that name (main packages and testdata excluded).
func modulePackages(t *testing.T, root string) map[string][]string {
	t.Helper()
	const module = "github.com/cosimgo/cosim"
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if base := d.Name(); path != root && (strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") || base == "testdata" || base == "vendor") {
			return filepath.SkipDir
		}
		files, _ := filepath.Glob(filepath.Join(path, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly)
			if err != nil {
				return err
			}
			if name := af.Name.Name; name != "main" {
				rel, _ := filepath.Rel(root, path)
				ipath := module
				if rel != "." {
					ipath += "/" + filepath.ToSlash(rel)
				}
				out[name] = append(out[name], ipath)
			}
			break
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkGoIdents returns an error for every qualified Go identifier in
// text that does not resolve to a declaration in the module: an unknown
// package, or a package that declares no such identifier (or type method).
func checkGoIdents(r *resolver, pkgs map[string][]string, text string) []error {
	var errs []error
	for _, m := range goIdent.FindAllStringSubmatchIndex(text, -1) {
		if m[0] > 0 {
			if c := text[m[0]-1]; c == '.' || c == '/' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
				continue
			}
		}
		pkg, ident := text[m[2]:m[3]], text[m[4]:m[5]]
		paths := pkgs[pkg]
		if len(paths) == 0 {
			errs = append(errs, fmt.Errorf("%s.%s: no package %s in the module", pkg, ident, pkg))
			continue
		}
		var last error
		for _, p := range paths {
			if last = r.resolve(p + "." + ident); last == nil {
				break
			}
		}
		if last != nil {
			errs = append(errs, fmt.Errorf("%s.%s: %v", pkg, ident, last))
		}
	}
	return errs
}

// TestAnomalyIdentifiersExist: every Go identifier an anomaly record's
// title, description or workaround names as pkg.Ident or pkg.Type.Method
// exists in the module, found by parsing its packages as
// TestMappingIdentifiersExist does, so a workaround cannot send a reader
// to an API that is not there.
func TestAnomalyIdentifiersExist(t *testing.T) {
	root := moduleRoot(t)
	r := &resolver{root: root, pkgs: map[string]*pkgDecls{}}
	pkgs := modulePackages(t, root)
	// The check itself: it accepts what exists and rejects what does not.
	for text, want := range map[string]int{
		"graph.Sim.Integrate, integrators.NewAdaptive, springdamper.Connect": 0,
		"integrators.DormandPrinceDriver with events":                        1,
		"graph.Sim.NoSuchMethod, nosuchpkg.Thing":                            2,
		"jax.grad, maddening.nodes.ball.BallNode, 0.5 s, e.g. Update":        0,
	} {
		if errs := checkGoIdents(r, pkgs, text); len(errs) != want {
			t.Errorf("checkGoIdents(%q) = %v, want %d errors", text, errs, want)
		}
	}
	for _, rec := range anomalies.All() {
		for field, text := range map[string]string{"title": rec.Title, "description": rec.Description, "workaround": rec.Workaround} {
			for _, err := range checkGoIdents(r, pkgs, text) {
				t.Errorf("%s: %s names %v", rec.ID, field, err)
			}
		}
	}
}
