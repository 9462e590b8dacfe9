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

// Resolution is where an anomaly stands in cosim: unresolved ("open"),
// resolved or won't fix. It is an Entry's Status; its values are the
// strings of the JSON field "status".
type Resolution string

const (
	Unresolved Resolution = "open"     // reproduces today; its pinning test fails once it stops reproducing
	Resolved   Resolution = "resolved" // fixed; its regression test fails if it comes back
	WontFix    Resolution = "wont-fix" // by design; its test pins the documented behaviour
)

// Entry is one known defect: the registry's entry for it.
type Entry struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Description string   `json:"description"` // Markdown with $…$ math
	Severity    Severity `json:"severity"`
	// Components are the affected node types ("ball") and packages
	// ("graph", "integrators").
	Components []string   `json:"components"`
	Status     Resolution `json:"status"`
	Found      string     `json:"version_found"`
	Fixed      string     `json:"version_resolved,omitempty"`
	Workaround string     `json:"workaround,omitempty"`
	// Test is the test that pins the anomaly (open, wont-fix) or guards
	// against its return (resolved), as "import/path.TestName".
	Test string `json:"test"`
	// Source names the public document the record comes from, when it
	// comes from another code's documentation: title, version and section
	// (e.g. the MADDENING BallNode guide's Known Limitations).
	Source string `json:"source,omitempty"`
}

// All returns every record, sorted by ID. The slice is a fresh copy.
func All() []Entry {
	out := append([]Entry(nil), records...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// ByID returns the registry entry with the given ID, and whether there is one.
func ByID(id string) (Entry, bool) {
	for _, r := range records {
		if r.ID == id {
			return r, true
		}
	}
	return Entry{}, false
}

// Filter returns the records with the given status ("" for all), sorted
// by ID.
func Filter(status Resolution) []Entry {
	var out []Entry
	for _, r := range All() {
		if status == "" || r.Status == status {
			out = append(out, r)
		}
	}
	return out
}

// ForComponent returns the records that affect a node type or package.
func ForComponent(c string) []Entry {
	var out []Entry
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
func WriteJSON(w io.Writer, rs []Entry) error {
	if rs == nil {
		rs = []Entry{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rs)
}

// ParseResolution parses a status name ("open", "resolved", "wont-fix").
func ParseResolution(s string) (Resolution, error) {
	switch Resolution(s) {
	case Unresolved, Resolved, WontFix:
		return Resolution(s), nil
	}
	return "", fmt.Errorf("anomalies: unknown status %q (valid: open, resolved, wont-fix)", s)
}

// Former names, kept for Go callers: they collided with names that mean
// something else elsewhere in cosim (graph.Status is how a run ended,
// fmi.Open opens an FMU, source.Lookup is the lookup-table node,
// scene.Record says what a scene run records).

// Status is the former name of Resolution.
//
// Deprecated: use Resolution.
type Status = Resolution

// Open is the former name of Unresolved.
//
// Deprecated: use Unresolved.
const Open = Unresolved

// Record is the former name of Entry.
//
// Deprecated: use Entry.
type Record = Entry

// Lookup is the former name of ByID.
//
// Deprecated: use ByID.
func Lookup(id string) (Entry, bool) { return ByID(id) }

// ParseStatus is the former name of ParseResolution.
//
// Deprecated: use ParseResolution.
func ParseStatus(s string) (Resolution, error) { return ParseResolution(s) }
