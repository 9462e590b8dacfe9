package anomalies

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
)

// Severity grades an anomaly's effect on results.
type Severity string

const (
	Critical Severity = "critical" // wrong results without warning in ordinary use
	Major    Severity = "major"    // wrong results in a documented regime, or a missing guarantee
	Minor    Severity = "minor"    // a nuisance, a documentation gap, a cost
)

// Status is where an anomaly stands in cosim.
type Status string

const (
	Open     Status = "open"     // reproduces today; its pinning test fails once it stops reproducing
	Resolved Status = "resolved" // fixed; its regression test fails if it comes back
	WontFix  Status = "wont-fix" // by design; its test pins the documented behaviour
)

// Record is one known defect.
type Record struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Description string   `json:"description"` // Markdown with $…$ math
	Severity    Severity `json:"severity"`
	// Components are the affected node types ("ball") and packages
	// ("graph", "integrators").
	Components []string `json:"components"`
	Status     Status   `json:"status"`
	Found      string   `json:"version_found"`
	Fixed      string   `json:"version_resolved,omitempty"`
	Workaround string   `json:"workaround,omitempty"`
	// Test is the test that pins the anomaly (open, wont-fix) or guards
	// against its return (resolved), as "import/path.TestName".
	Test string `json:"test"`
	// Source names the public document the record comes from, when it
	// comes from another code's documentation: title, version and section
	// (e.g. the MADDENING BallNode guide's Known Limitations).
	Source string `json:"source,omitempty"`
}

// All returns every record, sorted by ID. The slice is a fresh copy.
func All() []Record {
	out := append([]Record(nil), records...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Lookup returns the record with the given ID.
func Lookup(id string) (Record, bool) {
	for _, r := range records {
		if r.ID == id {
			return r, true
		}
	}
	return Record{}, false
}

// Filter returns the records with the given status ("" for all), sorted
// by ID.
func Filter(status Status) []Record {
	var out []Record
	for _, r := range All() {
		if status == "" || r.Status == status {
			out = append(out, r)
		}
	}
	return out
}

// ForComponent returns the records that affect a node type or package.
func ForComponent(c string) []Record {
	var out []Record
	for _, r := range All() {
		for _, rc := range r.Components {
			if rc == c {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// WriteJSON writes records as an indented JSON array.
func WriteJSON(w io.Writer, rs []Record) error {
	if rs == nil {
		rs = []Record{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rs)
}

// ParseStatus parses a status name.
func ParseStatus(s string) (Status, error) {
	switch Status(s) {
	case Open, Resolved, WontFix:
		return Status(s), nil
	}
	return "", fmt.Errorf("anomalies: unknown status %q (valid: open, resolved, wont-fix)", s)
}
