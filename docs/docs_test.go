package docs_test

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cosimgo/cosim/anomalies"
	"github.com/cosimgo/cosim/docs"
	"github.com/cosimgo/cosim/node"
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

// TestAnomalyCrossReferences: every anomaly ID a node's metadata names is
// a record in the anomalies registry, and every record that names a
// registered node type among its components is listed by that node's
// metadata, so a guide's Known Limitations section cannot miss one.
func TestAnomalyCrossReferences(t *testing.T) {
	reg := nodes.Registry()
	for _, name := range reg.Names() {
		s, _ := reg.Spec(name)
		for _, id := range s.Meta.Anomalies {
			if _, ok := anomalies.Lookup(id); !ok {
				t.Errorf("%s: metadata names anomaly %s, which is not in the anomalies registry", name, id)
			}
		}
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

// TestGuidesMatchSeedSections: the ball and rigidbody2d guides have every
// section the seed guides have, in the seeds' order. The seeds live in
// shared/seeds beside the module (../shared/seeds from its root).
func TestGuidesMatchSeedSections(t *testing.T) {
	seeds := filepath.Join(moduleRoot(t), "..", "shared", "seeds")
	if _, err := os.Stat(seeds); err != nil {
		t.Skipf("seed guides not found at %s", seeds)
	}
	reg := nodes.Registry()
	for _, c := range []struct{ typ, seed string }{
		{"ball", "ball-node.md"},
		{"rigidbody2d", "rigid-body-2d-node.md"},
	} {
		t.Run(c.typ, func(t *testing.T) {
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
			for _, want := range seedHeadings(t, filepath.Join(seeds, c.seed)) {
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
// every JSON field name of node.Description and of the types nested in
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
		reflect.TypeFor[node.Description](),
		reflect.TypeFor[anomalies.Record](),
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
