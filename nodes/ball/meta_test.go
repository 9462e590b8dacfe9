package ball_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/ball"
)

// TestMappingNamesTheScheme: the implementation mapping points at the
// methods that implement the equations (docs.TestMappingIdentifiersExist
// checks that every identifier exists, for every node).
func TestMappingNamesTheScheme(t *testing.T) {
	n, _ := ball.FromMap(nil)
	s := n.Spec()
	prefix := s.Package + "."
	for _, want := range []string{"Node.Update", "Node.Derivatives", "Node.Spec"} {
		found := false
		for _, m := range s.Meta.Mapping {
			found = found || m.Identifier == prefix+want
		}
		if !found {
			t.Errorf("no mapping to %s", want)
		}
	}
}

// TestMetadata holds the metadata to the MADDENING BallNode guide and to the
// port's decisions.
func TestMetadata(t *testing.T) {
	n, _ := ball.FromMap(nil)
	m := n.Spec().Meta
	if m.AlgorithmID != "MADD-NODE-001" || m.Version != "1.2.0" || m.Stability != node.Stable || m.Summary == "" {
		t.Errorf("identity: %q %q %v %q", m.AlgorithmID, m.Version, m.Stability, m.Summary)
	}
	if m.Discretization != "semi-implicit-euler" {
		t.Errorf("Discretization = %q", m.Discretization)
	}
	if want := (node.Order{Temporal: 1, Note: "1st order globally in the smooth regime; no order is claimed across a contact"}); m.Order != want {
		t.Errorf("Order = %+v", m.Order)
	}
	for _, eq := range m.Equations {
		if strings.ContainsAny(eq, "$") || strings.Contains(eq, `\[`) || strings.Contains(eq, `\(`) {
			t.Errorf("equation %q has math delimiters", eq)
		}
	}
	if want := []string{"MADD-ANO-011", "MADD-ANO-013", "MADD-ANO-018", "MADD-ANO-021", "COSIM-ANO-001", "COSIM-ANO-002", "COSIM-ANO-004"}; !cmp.Equal(m.Anomalies, want) {
		t.Errorf("Anomalies = %v", m.Anomalies)
	}
	if !cmp.Equal(m.Evidence, []string{"MADD-VER-010", "MADD-VER-012"}) {
		t.Errorf("Evidence = %v", m.Evidence)
	}
	var keys []string
	for _, r := range m.References {
		keys = append(keys, r.Key)
	}
	if !cmp.Equal(keys, []string{"Hairer2006", "LeVeque2007", "Roache2002"}) {
		t.Errorf("References = %v", keys)
	}
	var dates []string
	for _, c := range m.Changelog {
		dates = append(dates, c.Date)
	}
	if !cmp.Equal(dates, []string{"2025-03-01", "2026-09-20", "2026-12-02", "2026-12-03", "2026-12-04"}) {
		t.Errorf("Changelog dates = %v", dates)
	}
	var regimes []string
	for _, r := range m.Regimes {
		regimes = append(regimes, r.Param)
	}
	if !cmp.Equal(regimes, []string{"elasticity", "timestep"}) {
		t.Errorf("Regimes = %v", regimes)
	}
	all := strings.Join(m.Limitations, "\n")
	for _, want := range []string{"−0.009", "0.0", "COSIM-ANO-001", "MADD-ANO-021", "Tunnelling", "COSIM-ANO-002, resolved", "$e\\,|g|\\,\\Delta t/(1+e)$"} {
		if !strings.Contains(all, want) {
			t.Errorf("Limitations do not mention %q", want)
		}
	}
	if ss := m.StableStep; ss == nil || !ss.Unconditional || ss.Computed || ss.Validate() != nil {
		t.Errorf("StableStep = %+v: want an unconditional, valid statement", ss)
	}
	if len(m.Assumptions) == 0 || len(m.StabilityConditions) == 0 || m.EquationNotes == "" || m.DiscretizationNotes == "" {
		t.Error("empty metadata sections")
	}
}
