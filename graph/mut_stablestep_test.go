package graph_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// statedLimit is a spring whose stated stable step is dt, whatever its
// inputs.
type statedLimit struct {
	*spring
	dt float64
}

func (n *statedLimit) StableStepAt(t float64, x []float64, in node.Inputs) node.StepLimit {
	return node.StepLimit{Dt: n.dt, Why: "stated"}
}

// TestNonPositiveStepLimitsLeftOut: a stated limit that is not a
// positive step (0 or negative: no step would be stable) cannot be
// acted on — a warning "use dt < 0 s" could not be followed — and is
// left out of StableSteps and StepWarnings, as a NaN limit is (the node
// could not tell); a positive one next to it is kept.
func TestNonPositiveStepLimitsLeftOut(t *testing.T) {
	for _, lim := range []float64{0, -1} {
		g := graph.New()
		g.Add("a", newMass(1, 0))
		g.Add("b", newMass(1, 1))
		g.Add("s", &statedLimit{spring: newSpring(800), dt: lim})
		g.Add("r", &statedLimit{spring: newSpring(800), dt: 0.02})
		for _, sp := range []string{"s", "r"} {
			g.Connect("a.x", sp+".a")
			g.Connect("b.x", sp+".b")
			g.Connect(sp+".fa", "a.force")
			g.Connect(sp+".fb", "b.force")
		}
		sim, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		ws, err := sim.StepWarnings(0.05)
		if err != nil || len(ws) != 1 || ws[0].Node != "r" {
			t.Errorf("limit %v: StepWarnings(0.05) = %v, %v; want only r's (0.02 s)", lim, ws, err)
		}
		limits, err := sim.StableSteps()
		if err != nil || len(limits) != 1 || limits[0].Node != "r" || limits[0].Dt != 0.02 {
			t.Errorf("limit %v: StableSteps = %+v, %v; want only r at 0.02 s", lim, limits, err)
		}
	}
}

// probe is a feedthrough node copying its input x to its output y: a
// limiter reading y reads another node's output, not a state.
type probe struct {
	node.Stateless
	spec *node.Spec
}

func newProbe() *probe {
	return &probe{spec: node.NewSpec(node.Spec{
		Type:        "probe",
		Inputs:      []node.Input{{Name: "x", Units: "m", Description: "value copied", Combine: node.Replacing}},
		Outputs:     []node.Field{{Name: "y", Units: "m", Description: "the input"}},
		Feedthrough: true,
	})}
}

func (n *probe) Spec() *node.Spec { return n.spec }
func (n *probe) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = in.Values[0]
	return nil
}

// readLimit states a stable step read from its input (in seconds per
// metre of it): a limiter whose limit depends on another node's output,
// as a connector's depends on its bodies' marker fields.
type readLimit struct {
	node.Stateless
	spec *node.Spec
}

func newReadLimit() *readLimit {
	return &readLimit{spec: node.NewSpec(node.Spec{
		Type:        "read-limit",
		Inputs:      []node.Input{{Name: "a", Units: "m", Description: "the limit in s per m", Combine: node.Replacing}},
		Outputs:     []node.Field{{Name: "f", Units: "N", Description: "no force"}},
		Feedthrough: true,
	})}
}

func (n *readLimit) Spec() *node.Spec { return n.spec }
func (n *readLimit) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = 0
	return nil
}
func (n *readLimit) StableStepAt(t float64, x []float64, in node.Inputs) node.StepLimit {
	return node.StepLimit{Dt: in.Values[0], Why: fmt.Sprintf("read %g", in.Values[0])}
}

// TestStepWarningsSeeCurrentOutputs: StepWarnings is StableSteps
// filtered by dt (its documentation), and StableSteps evaluates the
// outputs first "so that every node sees its inputs, exactly as the next
// step will": a limiter whose limit is read from another node's output
// (mass a's position through a probe) must see that output at the state
// set last, not one left from before. After SetState (which leaves the
// outputs stale) to a.x = 0.05 the limit is 0.05 s and dt = 0.1 s warns;
// after a.x = 0.2 it is 0.2 s and dt = 0.1 s does not; StepWarnings is
// asked first each time, before anything else evaluates the outputs.
func TestStepWarningsSeeCurrentOutputs(t *testing.T) {
	g := graph.New()
	g.Add("a", newMass(1, 1))
	g.Add("p", newProbe())
	g.Add("l", newReadLimit())
	g.Connect("a.x", "p.x")
	g.Connect("p.y", "l.a")
	g.Connect("l.f", "a.force")
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		x    float64
		warn bool
	}{{0.05, true}, {0.2, false}, {0.05, true}} {
		if err := sim.SetState([]float64{c.x, 0}, 0); err != nil {
			t.Fatal(err)
		}
		ws, err := sim.StepWarnings(0.1)
		if err != nil || (len(ws) == 1) != c.warn || c.warn && ws[0].Dt != c.x {
			t.Errorf("a.x = %v: StepWarnings(0.1) = %v, %v; want a warning %v (limit %v s)", c.x, ws, err, c.warn, c.x)
		}
		limits, err := sim.StableSteps()
		if err != nil || len(limits) != 1 || limits[0].Dt != c.x {
			t.Errorf("a.x = %v: StableSteps = %+v, %v; want l at %v s", c.x, limits, err, c.x)
		}
	}
}

// TestStepHintErrorMessage: the hint is the cause's message followed by
// each warning, in parentheses: "cause (likely explicit instability:
// w1; w2)"; a StepHintError without warnings adds nothing to the cause
// (no hint, no parenthesis).
func TestStepHintErrorMessage(t *testing.T) {
	cause := fmt.Errorf("step 7: %w", node.ErrNonFinite)
	ws := []graph.StepWarning{
		{StepLimit: graph.StepLimit{Node: "s1", Dt: 0.05, Why: "2/ω"}, Step: 0.1},
		{StepLimit: graph.StepLimit{Node: "s2", Dt: 0.02, Why: "2/ω'"}, Step: 0.1},
	}
	err := graph.WithStepHint(cause, ws)
	want := cause.Error() + " (likely explicit instability: dt = 0.1 s exceeds the stable step 0.05 s of node s1, 2/ω; " +
		"dt = 0.1 s exceeds the stable step 0.02 s of node s2, 2/ω')"
	if err.Error() != want || !errors.Is(err, node.ErrNonFinite) {
		t.Errorf("hinted error\n%q\nwant\n%q", err, want)
	}
	if got := (&graph.StepHintError{Err: cause}).Error(); got != cause.Error() {
		t.Errorf("without warnings: %q, want the cause's message %q", got, cause.Error())
	}
}
