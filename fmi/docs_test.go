package fmi_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/fmitest"
)

// TestUnitTableInDocs holds the unit table of docs/fmi.md to MapUnit.
func TestUnitTableInDocs(t *testing.T) {
	doc, err := os.ReadFile("../docs/fmi.md")
	if err != nil {
		t.Fatal(err)
	}
	_, units, _ := strings.Cut(string(doc), "## Units")
	units, _, _ = strings.Cut(units, "\n## ")
	rows := regexp.MustCompile("(?m)^\\| `([^`]*)` \\| `([^`]*)` \\|$").FindAllStringSubmatch(units, -1)
	if len(rows) < 8 {
		t.Fatalf("found %d rows in the unit table of docs/fmi.md", len(rows))
	}
	for _, r := range rows {
		if got := fmi.MapUnit(r[1]); got != r[2] {
			t.Errorf("docs/fmi.md maps %q to %q; MapUnit gives %q", r[1], r[2], got)
		}
	}
}

// fmiErrors makes the FMU mistakes users meet, for real, with paths
// relative to a working directory of the test's so that messages are
// stable; docs/errors.md quotes every one (TestFMIErrorsDocumented).
func fmiErrors(t *testing.T) map[string]string {
	t.Helper()
	msgs := map[string]string{}
	add := func(key string, err error) {
		if err == nil {
			t.Fatalf("%s: no error", key)
		}
		// The platform is this machine's; the page quotes x86_64-linux.
		msgs[key] = strings.ReplaceAll(err.Error(), fmi.Platform(), "x86_64-linux")
	}
	ref := fmitest.Reference(t, "BouncingBall", 3)
	_, testZip := testFMU(t, "")
	_, noDoStep := testFMU(t, "nodostep")
	work := t.TempDir()
	t.Chdir(work)
	link := func(from, to string) {
		if err := os.Symlink(from, to); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile("garbage.fmu", []byte("not a zip"), 0o644)
	_, err := fmi.Open("garbage.fmu")
	add("archive", err)

	bb := copyDir(t, ref.Dir)
	os.Rename(bb, filepath.Join(work, "BouncingBall"))
	xml, _ := os.ReadFile("BouncingBall/modelDescription.xml")
	os.WriteFile("BouncingBall/modelDescription.xml", xml[:len(xml)/2], 0o644)
	_, err = fmi.Open("BouncingBall")
	add("xml", err)
	os.WriteFile("BouncingBall/modelDescription.xml", xml, 0o644)
	os.Rename(filepath.Join("BouncingBall", "binaries", fmi.Platform()), filepath.Join("BouncingBall", "binaries", "aarch64-darwin"))
	_, err = fmi.Open("BouncingBall")
	add("platform", err)

	link(noDoStep, "TestFMU.fmu")
	_, err = fmi.Load("TestFMU.fmu", fmi.Options{})
	add("missing", err)

	_, _, err = runTestFMU(t, "", map[string]any{"fail_at": 0.3, "fail_status": 3})
	add("status", err)
	_, _, err = runTestFMU(t, "", map[string]any{"nan_at": 0.25})
	add("nan", err)
	_, err = fmi.Load(testZip, fmi.Options{Params: map[string]any{"k": 11.0}})
	add("param", err)

	s, _, _ := runTestFMU(t, "nostate", nil)
	add("checkpoint", s.Checkpoint().Err)
	s.Close()
	s = iterGraph(t, "nostate")
	_, err = s.Run(context.Background(), graph.Settings{Dt: 0.1, Steps: 1, Mode: graph.CoSimulation{Coupling: &coupling.Strategy{Scheme: coupling.Iterative,
		Groups: []coupling.Group{{Name: "loop", Nodes: []string{"a", "b"}}}}}})
	add("restep", err)

	s, _, _ = runTestFMU(t, "", nil)
	s.SetState(make([]float64, s.StateSize()), 0.5)
	_, err = s.Run(context.Background(), graph.Settings{Dt: 0.1, Steps: 1})
	add("state", err)
	s.Close()

	f := fmitest.Reference(t, "Stair", 3)
	n, err := fmi.Load(f.Zip, fmi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := graph.New()
	g.Add("stair", n)
	ss, _ := g.Build()
	_, err = ss.Run(context.Background(), graph.Settings{Dt: 0.2, End: 10})
	add("terminate", err)
	ss.Close()
	msgs["cgo"] = fmi.ErrNeedsCgo.Error()
	return msgs
}

// TestFMIErrorsDocumented: docs/errors.md quotes every message of
// fmiErrors as the code words it.
func TestFMIErrorsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(fmitest.ModuleRoot(t), "docs", "errors.md"))
	if err != nil {
		t.Fatal(err)
	}
	for key, msg := range fmiErrors(t) {
		for _, line := range strings.Split(msg, "\n") {
			line = strings.TrimSpace(line)
			if !bytes.Contains(doc, []byte(line)) {
				t.Errorf("docs/errors.md does not quote the %s error as the code words it now:\n%s", key, line)
			}
		}
	}
}

// TestDocsCoverFMI: docs/fmi.md has the sections a user of FMI support
// needs — what is supported, what is not and why, the unit mapping, a
// worked example of import and one of export, how to run the Reference
// FMU tests, the performance — and the README has its section, pointing
// there, for import and for export.
func TestDocsCoverFMI(t *testing.T) {
	root := fmitest.ModuleRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "fmi.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"## A worked example", "## What is supported", "## Units", "## What is not supported, and why",
		"## Errors", "## Running the Reference FMU tests", "## Performance", "## Exporting a scene as an FMU"} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(h) + `$`).Match(doc) {
			t.Errorf("docs/fmi.md has no section %q", h)
		}
	}
	_, export, _ := strings.Cut(string(doc), "## Exporting a scene as an FMU")
	for _, want := range []string{"$ cosim export ", "xmllint --schema", "TestDoStepAllocatesNothing"} {
		if !strings.Contains(export, want) {
			t.Errorf("docs/fmi.md's export section does not say %q", want)
		}
	}
	// Scenes have no start time: the DefaultExperiment's is 0, and the
	// docs say why.
	if !regexp.MustCompile("`startTime` is always\\s+0: a scene starts at 0").MatchString(export) {
		t.Error("docs/fmi.md's export section does not say that DefaultExperiment's startTime is 0, and why")
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(readme), "\n## Importing FMUs")
	sec, _, _ = strings.Cut(sec, "\n## ")
	for _, want := range []string{`"type": "fmu"`, "cosim describe", "cosim export", "docs/fmi.md"} {
		if !ok || !strings.Contains(sec, want) {
			t.Errorf("README.md's FMI section does not mention %s", want)
		}
	}
}
