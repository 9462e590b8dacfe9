package anomalies

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// Every record is complete and IDs are unique.
func TestRecords(t *testing.T) {
	id := regexp.MustCompile(`^(MADD|COSIM)-ANO-\d{3}$`)
	test := regexp.MustCompile(`^github\.com/cosimgo/cosim/[a-z0-9/]+\.Test\w+$`)
	seen := map[string]bool{}
	for _, r := range All() {
		if !id.MatchString(r.ID) {
			t.Errorf("%q: ID is not of the form MADD-ANO-nnn or COSIM-ANO-nnn", r.ID)
		}
		if seen[r.ID] {
			t.Errorf("%s: duplicate ID", r.ID)
		}
		seen[r.ID] = true
		if r.Title == "" || r.Description == "" || len(r.Components) == 0 || r.Found == "" {
			t.Errorf("%s: title, description, components or version found missing", r.ID)
		}
		switch r.Severity {
		case Critical, Major, Minor:
		default:
			t.Errorf("%s: severity %q", r.ID, r.Severity)
		}
		if _, err := ParseResolution(string(r.Status)); err != nil {
			t.Errorf("%s: %v", r.ID, err)
		}
		if (r.Status == Resolved) != (r.Fixed != "") {
			t.Errorf("%s: status %s with version resolved %q", r.ID, r.Status, r.Fixed)
		}
		if r.Status != Resolved && r.Workaround == "" {
			t.Errorf("%s: an unresolved anomaly needs a workaround", r.ID)
		}
		if !test.MatchString(r.Test) {
			t.Errorf("%s: test %q is not import/path.TestName", r.ID, r.Test)
		}
	}
}

func TestQueries(t *testing.T) {
	if r, ok := ByID("MADD-ANO-021"); !ok || r.Status != Resolved {
		t.Errorf("Lookup(MADD-ANO-021) = %+v, %v", r, ok)
	}
	for _, r := range Filter(Resolved) {
		if r.Status != Resolved {
			t.Errorf("Filter(resolved) returned %s (%s)", r.ID, r.Status)
		}
	}
	if len(Filter("")) != len(All()) {
		t.Error("Filter(\"\") is not All()")
	}
	if len(ForComponent("ball")) == 0 {
		t.Error("no ball anomalies")
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, All()); err != nil {
		t.Fatal(err)
	}
	var back []Entry
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || len(back) != len(All()) {
		t.Fatalf("JSON round trip: %v, %d records", err, len(back))
	}
	if !strings.Contains(buf.String(), `"version_found"`) {
		t.Error("JSON lacks version_found")
	}
	if _, err := ParseResolution("closed"); err == nil {
		t.Error("ParseStatus accepted closed")
	}
}
