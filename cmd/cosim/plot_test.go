package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlotFormats: every figure format the error text lists is written
// in that format (the file's magic bytes), and an unknown extension is a
// usage error that lists every format that would have worked.
func TestPlotFormats(t *testing.T) {
	dir := t.TempDir()
	hist := filepath.Join(dir, "h.csv")
	if err := os.WriteFile(hist, []byte("t,a\n0,1\n1,2\n2,0\n3,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	magic := map[string][]string{
		".png": {"\x89PNG"}, ".svg": {"<?xml", "<svg"}, ".pdf": {"%PDF"}, ".jpg": {"\xff\xd8\xff"}, ".jpeg": {"\xff\xd8\xff"},
		".tif": {"II*\x00", "MM\x00*"}, ".tiff": {"II*\x00", "MM\x00*"},
	}
	for _, ext := range figureFormats {
		if !strings.Contains(figureFormatList, ext) {
			t.Errorf("figureFormatList %q does not name %s", figureFormatList, ext)
		}
		want, ok := magic[ext]
		if !ok {
			t.Errorf("no magic bytes known for %s", ext)
			continue
		}
		out := filepath.Join(dir, "p"+ext)
		if code, _, errs := cosim(t, "plot", hist, "-o", out); code != 0 {
			t.Errorf("plot -o p%s: exit %d: %s", ext, code, errs)
			continue
		}
		b, _ := os.ReadFile(out)
		found := false
		for _, m := range want {
			found = found || bytes.HasPrefix(b, []byte(m))
		}
		if !found {
			t.Errorf("p%s starts with %q, not as a %s file does", ext, b[:min(len(b), 8)], ext)
		}
	}
	code, _, errs := cosim(t, "plot", hist, "-o", filepath.Join(dir, "p.bmp"))
	if code != 2 {
		t.Errorf("plot -o p.bmp: exit %d, want 2", code)
	}
	for _, ext := range figureFormats {
		mustContain(t, "the error for p.bmp", errs, ext)
	}
	// EPS is refused: gonum/plot writes it with a header PostScript
	// readers do not recognise.
	if code, _, errs := cosim(t, "plot", hist, "-o", filepath.Join(dir, "p.eps")); code != 2 {
		t.Errorf("plot -o p.eps: exit %d, want 2 (%s)", code, errs)
	}
}
