package verification

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
)

// Measurement is one number the verification suite measured: an observed
// order of accuracy, a reproduced reference value, an error norm. The
// suite writes every measurement to testdata/evidence.json (go test
// ./verification -update), fails when that file is stale, and the
// documentation generator renders it as each node's Verification Evidence,
// so a guide never claims a number no test produced.
type Measurement struct {
	// ID is the benchmark ID, e.g. "MADD-VER-010".
	ID string `json:"id"`
	// Subject is the node type ("ball") or component ("integrators") measured.
	Subject string `json:"subject"`
	// Quantity says what was measured, e.g. "observed temporal order (joint norm)".
	Quantity string `json:"quantity"`
	// Value is the measured value, rounded to Digits significant digits.
	Value float64 `json:"value"`
	// Reference is the declared or published value it is compared with.
	Reference float64 `json:"reference"`
	// Bound states the acceptance criterion, e.g. "|p − 1| ≤ 0.1".
	Bound string `json:"bound"`
	// Method describes how (ladder, norm, regime, where the reference comes from).
	Method string `json:"method"`
	// Test is the test that measured it, "verification.TestName".
	Test string `json:"test"`
	// Pass reports whether the value met the bound when recorded.
	Pass bool `json:"pass"`
}

// Key identifies a measurement within the evidence file.
func (m Measurement) Key() string { return m.ID + "|" + m.Subject + "|" + m.Quantity }

//go:embed testdata/evidence.json
var evidenceJSON []byte

// Evidence returns the recorded measurements, sorted by ID, subject and
// quantity.
func Evidence() ([]Measurement, error) {
	var ms []Measurement
	if err := json.Unmarshal(evidenceJSON, &ms); err != nil {
		return nil, fmt.Errorf("verification: testdata/evidence.json: %w", err)
	}
	SortMeasurements(ms)
	return ms, nil
}

// EvidenceFor returns the measurements whose ID is one of ids.
func EvidenceFor(ids ...string) ([]Measurement, error) {
	all, err := Evidence()
	if err != nil {
		return nil, err
	}
	var out []Measurement
	for _, m := range all {
		for _, id := range ids {
			if m.ID == id {
				out = append(out, m)
				break
			}
		}
	}
	return out, nil
}

// SortMeasurements sorts by key.
func SortMeasurements(ms []Measurement) {
	sort.Slice(ms, func(i, j int) bool { return ms[i].Key() < ms[j].Key() })
}
