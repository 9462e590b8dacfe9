package fmi_test

import (
	"context"
	"errors"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/fmitest"
	"github.com/cosimgo/cosim/internal/numtest"
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

// TestSensitivityRefusedDiscrete: a model-exchange FMU whose
// sensitivities cannot be right — events or discrete state kept inside
// it, which differencing over SetParams would re-initialize and whose
// event updates cannot be differentiated — is refused before the run,
// with an error wrapping graph.ErrNotDifferentiable that names the node,
// the FMU and the reason: BouncingBall (an event indicator), Stair (a
// discrete counter and time events) and cosim's step-event test FMU
// (discrete outputs), in both FMI versions where the FMU has them.
func TestSensitivityRefusedDiscrete(t *testing.T) {
	cases := []struct {
		name  string
		node  func() node.Node
		param string
		why   string
	}{
		{"BouncingBall 2", func() node.Node { return meNode(t, "BouncingBall", 2, nil) }, "bb.e", "1 event indicator(s)"},
		{"BouncingBall 3", func() node.Node { return meNode(t, "BouncingBall", 3, nil) }, "bb.e", "1 event indicator(s)"},
		{"Stair 2", func() node.Node { return meNode(t, "Stair", 2, nil) }, "bb.rtol", "discrete variables it computes (counter)"},
		{"Stair 3", func() node.Node { return meNode(t, "Stair", 3, nil) }, "bb.rtol", "a time event at t=1"},
	}
	for _, c := range cases {
		s := buildOne(t, "bb", c.node())
		_, err := s.Sensitivities(context.Background(), []string{c.param}, &graph.SensitivityOptions{End: 1})
		if !errors.Is(err, graph.ErrNotDifferentiable) {
			t.Fatalf("%s: err = %v, want graph.ErrNotDifferentiable", c.name, err)
		}
		if c.name == "BouncingBall 3" {
			docQuotes(t, err)
		}
		for _, w := range []string{"node bb", "FMU " + strings.Fields(c.name)[0], c.why} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.name, err, w)
			}
		}
		s.Close()
	}
	s := stepEventSim(t, nil)
	_, err := s.Sensitivities(context.Background(), []string{"se.threshold"}, &graph.SensitivityOptions{End: 1})
	if !errors.Is(err, graph.ErrNotDifferentiable) || !strings.Contains(err.Error(), "n, te") {
		t.Errorf("step-event FMU: err = %v, want graph.ErrNotDifferentiable naming its discrete outputs n, te", err)
	}
}

// TestSensitivityVanDerPol: the Reference VanDerPol (x0' = x1, x1' =
// μ(1 − x0²)x1 − x0, μ = 1, x(0) = (2, 0)) is differentiated with
// respect to μ (it has no events or discrete state). Reference: an
// independent computation, the central difference of two runs at
// μ ± 1e-4 integrated with Dormand–Prince at RTol 1e-12 (truncation
// O(1e-8) relative for this smooth dependence, integration error ~1e-10
// divided by 2e-4: ~1e-7 absolute; measured: 1.5e-8), so the two
// agree to 1e-6 absolute (the derivatives are about 1.3).
func TestSensitivityVanDerPol(t *testing.T) {
	const T, h = 2.0, 1e-4
	tight := graph.MonolithicAdaptive{Method: integrators.DormandPrince{RTol: 1e-12, ATol: 1e-14}}
	for _, ver := range []int{2, 3} {
		s := buildOne(t, "v", meNode(t, "VanDerPol", ver, nil))
		res, err := s.Sensitivities(context.Background(), []string{"v.mu"}, &graph.SensitivityOptions{End: T, Output: []float64{T}, Mode: tight})
		if err != nil {
			t.Fatalf("FMI %d: %v", ver, err)
		}
		s.Close()
		end := func(mu float64) []float64 {
			s := buildOne(t, "v", meNode(t, "VanDerPol", ver, map[string]any{"mu": mu}))
			defer s.Close()
			if _, err := s.Run(context.Background(), graph.Settings{End: T, Mode: tight}); err != nil {
				t.Fatal(err)
			}
			return slices.Concat(value(t, s, "v.x0"), value(t, s, "v.x1"))
		}
		hi, lo := end(1+h), end(1-h)
		for i, f := range []string{"v.x0", "v.x1"} {
			got, ok := res.At(0, f, "v.mu")
			if !ok {
				t.Fatalf("FMI %d: no ∂%s/∂μ (columns %v)", ver, f, res.Columns)
			}
			if want := (hi[i] - lo[i]) / (2 * h); !numtest.Within(got, want, 1e-6) {
				t.Errorf("FMI %d: ∂%s(%v)/∂μ = %v, central difference of two runs %v", ver, f, T, got, want)
			}
		}
	}
}

func value(t *testing.T, s *graph.Sim, f string) []float64 {
	t.Helper()
	v, err := s.Value(f)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// docQuotes fails unless docs/errors.md quotes err as the code words it.
func docQuotes(t *testing.T, err error) {
	t.Helper()
	doc, rerr := os.ReadFile("../docs/errors.md")
	if rerr != nil {
		t.Fatal(rerr)
	}
	if !strings.Contains(string(doc), err.Error()) {
		t.Errorf("docs/errors.md does not quote this error as the code words it now:\n%v", err)
	}
}
