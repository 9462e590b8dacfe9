package fmi_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/fmitest"
	"github.com/cosimgo/cosim/node"
)

// TestSensitivityFMUParameter: graph sensitivities with respect to an
// imported FMU's parameter. The Reference Dahlquist (x' = −k·x, x0 = 1,
// k = 1) gives no directional derivatives with respect to parameters, so
// the graph differences its right-hand side over SetParams (which, on a
// model-exchange node, re-initializes the FMU with the new k). The exact
// sensitivity is ∂x(t)/∂k = −t·x0·exp(−k·t); the adaptive
// Dormand–Prince at RTol 1e-10 integrates state and sensitivity together,
// and the difference quotient (step 1e-6·|k|, central) is good to about
// 1e-9 relative on this linear right-hand side, so 1e-6 relative holds
// with margin.
func TestSensitivityFMUParameter(t *testing.T) {
	for _, ver := range []int{2, 3} {
		s := buildOne(t, "d", meNode(t, "Dahlquist", ver, nil))
		times := []float64{0.5, 1, 2, 4}
		res, err := s.Sensitivities(context.Background(), []string{"d.k"}, &graph.SensitivityOptions{
			End: 4, Output: times, Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{RTol: 1e-10, ATol: 1e-12}}})
		if err != nil {
			t.Fatalf("FMI %d: %v", ver, err)
		}
		for i, tt := range times {
			got, ok := res.At(i, "d.x", "d.k")
			if !ok {
				t.Fatalf("FMI %d: no ∂x/∂k at t=%v (columns %v)", ver, tt, res.Columns)
			}
			want := -tt * math.Exp(-tt)
			if rel := math.Abs(got-want) / math.Abs(want); rel > 1e-6 {
				t.Errorf("FMI %d: ∂x(%v)/∂k = %v, −t·exp(−t) = %v, relative error %.2g > 1e-6", ver, tt, got, want, rel)
			}
		}
		s.Close()
	}
	// A co-simulation node has no right-hand side: refused, named.
	f := fmitest.Reference(t, "Dahlquist", 3)
	cs, err := fmi.Load(f.Dir, fmi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.(interface{ Close() error }).Close()
	s := buildOne(t, "d", cs)
	defer s.Close()
	_, err = s.Sensitivities(context.Background(), []string{"d.k"}, &graph.SensitivityOptions{End: 1})
	if !errors.Is(err, graph.ErrNoDerivatives) {
		t.Errorf("co-simulation node: err = %v, want graph.ErrNoDerivatives", err)
	}
}

// TestMESetParams: a model-exchange node's SetParams of a fixed
// parameter resets the FMU and initializes it once with the new value
// (the Reference Dahlquist takes k only when instantiated or in
// initialization mode): a run then follows x' = −2·x, x(1) = exp(−2) to
// the integrator's tolerance (RTol 1e-10: 1e-8 relative with margin).
func TestMESetParams(t *testing.T) {
	for _, ver := range []int{2, 3} {
		n := meNode(t, "Dahlquist", ver, nil)
		if err := n.(node.Tunable).SetParams(map[string]any{"k": 2.0}); err != nil {
			t.Fatalf("FMI %d: %v", ver, err)
		}
		s := buildOne(t, "d", n)
		if _, err := s.Run(context.Background(), graph.Settings{End: 1, Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{RTol: 1e-10, ATol: 1e-12}}}); err != nil {
			t.Fatalf("FMI %d: %v", ver, err)
		}
		x, _ := s.Value("d.x")
		if rel := math.Abs(x[0]-math.Exp(-2)) / math.Exp(-2); rel > 1e-8 {
			t.Errorf("FMI %d: x(1) = %v after k = 2, exp(−2) = %v, relative error %.2g", ver, x[0], math.Exp(-2), rel)
		}
		s.Close()
	}
}
