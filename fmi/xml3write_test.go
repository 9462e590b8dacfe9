package fmi_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/internal/fmitest"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// xml3Models are the Reference FMUs whose FMI 3.0 descriptions
// EncodeFMI3 can write: those without Enumeration variables (which need
// type definitions it does not write).
var xml3Models = []string{"BouncingBall", "Dahlquist", "VanDerPol", "Stair", "Resource", "StateSpace"}

func readMD(t *testing.T, path string) *fmi.ModelDescription {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	md, err := fmi.ParseModelDescription(f)
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// TestEncodeFMI3RoundTrip: the FMI 3.0 description EncodeFMI3 writes
// reads back into the same ModelDescription — every Reference FMU's (the
// declared types aside: their units and bounds are written on the
// variables), NaN bounds and experiment fields equal.
func TestEncodeFMI3RoundTrip(t *testing.T) {
	root := fmitest.ReferenceRoot(t)
	for _, m := range xml3Models {
		md := readMD(t, filepath.Join(root, m, "FMI3.xml"))
		var buf bytes.Buffer
		if err := md.EncodeFMI3(&buf); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		back, err := fmi.ParseModelDescription(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%s: the written description does not read back: %v\n%s", m, err, buf.Bytes())
		}
		want := *md
		want.Variables = append([]fmi.Variable(nil), md.Variables...)
		for i := range want.Variables {
			want.Variables[i].DeclaredType = ""
		}
		if d := cmp.Diff(&want, back, cmpopts.EquateNaNs(), cmpopts.IgnoreUnexported(fmi.Variable{})); d != "" {
			t.Errorf("%s: read back differs (-want +got):\n%s", m, d)
		}
	}
	ft := readMD(t, filepath.Join(root, "Feedthrough", "FMI3.xml"))
	if err := ft.EncodeFMI3(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "is an Enumeration") {
		t.Errorf("Feedthrough (with an Enumeration variable): %v", err)
	}
	if err := readMD(t, filepath.Join(root, "Dahlquist", "FMI2.xml")).EncodeFMI3(&bytes.Buffer{}); err == nil {
		t.Error("an FMI 2.0 description was written as FMI 3.0")
	}
}

// Xmllint returns the path of xmllint (Debian libxml2-utils), or skips
// (fails under CI=true).
func xmllint(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("xmllint")
	if err != nil {
		fmitest.Missing(t, "xmllint is not installed (Debian package libxml2-utils): %v", err)
	}
	return p
}

// TestEncodeFMI3Schema: what EncodeFMI3 writes of every Reference FMU
// is valid against the standard's fmi3ModelDescription.xsd (xmllint).
func TestEncodeFMI3Schema(t *testing.T) {
	lint := xmllint(t)
	xsd := filepath.Join(fmitest.HeadersDir(t), "..", "schema", "fmi3ModelDescription.xsd")
	root := fmitest.ReferenceRoot(t)
	dir := t.TempDir()
	for _, m := range xml3Models {
		var buf bytes.Buffer
		if err := readMD(t, filepath.Join(root, m, "FMI3.xml")).EncodeFMI3(&buf); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, m+".xml")
		os.WriteFile(p, buf.Bytes(), 0o644)
		if out, err := exec.Command(lint, "--noout", "--schema", xsd, p).CombinedOutput(); err != nil {
			t.Errorf("%s: xmllint: %v\n%s", m, err, out)
		}
	}
}
