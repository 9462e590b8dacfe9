package graph_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// doc.go's "Reading order" names every file of the package, so that a
// file added without a place in it fails here rather than leaving the
// next reader without a map.
func TestReadingOrderNamesEveryFile(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	_, order, ok := strings.Cut(string(doc), "// # Reading order")
	if !ok {
		t.Fatal(`doc.go has no "# Reading order" section`)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f == "doc.go" || strings.HasSuffix(f, "_test.go") {
			continue
		}
		if !strings.Contains(order, f) {
			t.Errorf("%s is not in doc.go's reading order", f)
		}
	}
}
