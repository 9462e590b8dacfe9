package graph_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
)

// mutTsensScalar is a scalar field (state, output or input) named name.
func mutTsensScalar(name string) node.Field {
	return node.Field{Name: name, Shape: node.Scalar, Units: "1", Description: name}
}

// ---- build.go: initial states ----

// mutTsensNaNStart is a two-state node whose initial state is [0, NaN],
// carried on by its Update, x⁺ = x + dt.
type mutTsensNaNStart struct{ spec *node.Spec }

func (n *mutTsensNaNStart) Spec() *node.Spec { return n.spec }
func (n *mutTsensNaNStart) InitialState(dst []float64) {
	dst[0], dst[1] = 0, math.NaN()
}
func (n *mutTsensNaNStart) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0], dst[1] = x[0]+dt, x[1]+dt
	return nil
}

// mutTsensInfStart is mutTsensNaNStart with one state, +Inf.
type mutTsensInfStart struct{ spec *node.Spec }

func (n *mutTsensInfStart) Spec() *node.Spec           { return n.spec }
func (n *mutTsensInfStart) InitialState(dst []float64) { dst[0] = math.Inf(1) }
func (n *mutTsensInfStart) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = x[0] + dt
	return nil
}

// mutTsensCounter counts the steps at which its input u is positive,
// n⁺ = n + [u > 0]: a comparison, so a NaN input leaves n finite.
type mutTsensCounter struct{ spec *node.Spec }

func (n *mutTsensCounter) Spec() *node.Spec           { return n.spec }
func (n *mutTsensCounter) InitialState(dst []float64) { dst[0] = 0 }
func (n *mutTsensCounter) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = x[0]
	if in.Values[0] > 0 {
		dst[0]++
	}
	return nil
}

// A non-finite initial state is refused by Build, naming the node and
// the component (as SetState refuses the same values; docs/errors.md
// "Wiring"), wrapping node.ErrNonFinite: node "src",
// component src.x, not the counter that reads it through a plain edge.
// One problem per node, its first non-finite component: a second node
// whose initial state is +Inf is listed too.
func TestMutTsensNaNInitialStateRefusedAtBuild(t *testing.T) {
	g := graph.New()
	g.Add("count", &mutTsensCounter{spec: node.NewSpec(node.Spec{Type: "tstcount", State: []node.Field{mutTsensScalar("n")},
		Inputs: []node.Input{{Name: "u", Shape: node.Scalar, Units: "1", Description: "u"}}})})
	g.Add("src", &mutTsensNaNStart{spec: node.NewSpec(node.Spec{Type: "tstnan", State: []node.Field{mutTsensScalar("w"), mutTsensScalar("x")}})})
	g.Add("hot", &mutTsensInfStart{spec: node.NewSpec(node.Spec{Type: "tstinf", State: []node.Field{mutTsensScalar("y")}})})
	g.Connect("src.x", "count.u")
	s, err := g.Build()
	var be *graph.BuildError
	if s != nil || !errors.As(err, &be) || !errors.Is(err, node.ErrNonFinite) {
		t.Fatalf("Build = %v, %v; want a *BuildError wrapping node.ErrNonFinite", s, err)
	}
	want := []string{`node "src": initial state src.x is NaN: `, `node "hot": initial state hot.y is +Inf: `}
	if len(be.Problems) != len(want) {
		t.Fatalf("problems %v, want %d", be.Problems, len(want))
	}
	for i, p := range be.Problems {
		if !strings.HasPrefix(p.Error(), want[i]) {
			t.Errorf("problem %d: %q, want it to start %q", i, p, want[i])
		}
	}
}

// ---- sensitivity_inputs.go: the mode side of a switched row ----

// mutTsensFn is fnNode (x' = f(p), ∂f/∂x = 0 declared, no ∂f/∂p) whose
// parameter p SetParams accepts only within [lo, hi]: its row of ∂f/∂p
// is differenced and checked for a switch of mode.
type mutTsensFn struct {
	*fnNode
	lo, hi float64
}

func newMutTsensFn(p, lo, hi float64, f func(p float64) float64) *mutTsensFn {
	return &mutTsensFn{fnNode: newFnNode(p, func(_, p float64) float64 { return f(p) }), lo: lo, hi: hi}
}

func (n *mutTsensFn) SetParams(p map[string]any) error {
	if v := p["p"].(float64); v < n.lo || v > n.hi {
		return fmt.Errorf("p = %v outside [%v, %v]", v, n.lo, n.hi)
	}
	return n.fnNode.SetParams(p)
}

// A mode switch of f exactly at p₀, 4·10⁻⁶ below the upper end of p's
// range [0, 1]: f = p − p₀ from p₀ on (the mode in force at p₀), 1 below.
// The difference step h = 10⁻⁶·p₀ and the one-sided steps h and 2h stay
// in range, and so do the probes at h/16 that tell the converging side
// (modeSide): the row is f's right derivative, 1, so ∂x(T)/∂p = T (f is
// linear on that side: the one-sided difference is exact up to the
// rounding of p₀ + h − p₀, ~1e-10 relative; 1e-8).
func TestMutTsensModeSideNearRangeEnd(t *testing.T) {
	const T, p0 = 0.5, 1 - 4e-6
	n := newMutTsensFn(p0, 0, 1, func(p float64) float64 {
		if p >= p0 {
			return p - p0
		}
		return 1
	})
	d, err := fnSens(t, n, T)
	if err != nil || !numtest.Within(d, T, 1e-8*T) {
		t.Errorf("∂x/∂p = %.12g, %v; want %v", d, err, T)
	}
}

// The convergence test of a side (modeSide) accepts a change of the
// difference between the steps h and h/16 of half the difference itself,
// with a relative slack of 1e-8 for rounding: f = e + (8/7)·e²/h from p₀
// on (e = p − p₀), 1 below. Its differences are d = 1 + 8/7 at h and d₂
// = 1 + 8/(7·16) at h/16, |d₂ − d| = 15/14 = d/2 exactly, computed to
// ~1e-9 (the rounding of p₀ + h/16 − p₀ against h/16, 2e-9 relative):
// inside the slack (1e-8·d₂). The side below jumps (its difference grows
// 16 times), so the row is the right-hand one-sided second-order
// difference, exact for a quadratic: f'(p₀⁺) = 1, ∂x(T)/∂p = T (1e-8:
// the same rounding, over h and 2h).
func TestMutTsensModeSideHalfChange(t *testing.T) {
	const T, p0 = 0.5, 1.0
	h := 1e-6 * p0 // the graph's difference step of a parameter (fdParamStep)
	n := newMutTsensFn(p0, -10, 10, func(p float64) float64 {
		if e := p - p0; e >= 0 {
			return e + 8.0/7*e*e/h
		}
		return 1
	})
	d, err := fnSens(t, n, T)
	if err != nil || !numtest.Within(d, T, 1e-8*T) {
		t.Errorf("∂x/∂p = %.12g, %v; want %v", d, err, T)
	}
}

// ---- sensitivity_params.go: the time events a parameter moves ----

// mutTsensStep is clockNode (one time event at its parameter "at",
// output 0 before it and 1 from it on) whose SetParams accepts at only
// within [lo, 1].
func newMutTsensStep(at, lo float64) *clockNode {
	c := newClockNode(at)
	c.lo = lo
	return c
}

// A time event exactly at End belongs to the run ([t0, End], closed:
// the step's output at End is already 1). Its parameter at the lower end
// of its range [0.5, 1] is differenced one-sided, and at + h moves the
// event past End, where the output at End would be 0: the parameter
// moves the node's time events and is refused (ErrNotDifferentiable).
func TestMutTsensTimeEventAtEnd(t *testing.T) {
	mp, _ := masspoint.New(masspoint.Params{Mass: 1})
	g := graph.New()
	g.Add("m", mp)
	g.Add("st", newMutTsensStep(0.5, 0.5))
	_, err := mustBuild(t, g).Sensitivities(context.Background(), []string{"st.at"}, &graph.SensitivityOptions{End: 0.5})
	if !errors.Is(err, graph.ErrNotDifferentiable) || !strings.Contains(err.Error(), "moves the time events of node st") {
		t.Errorf("err = %v, want st.at refused for moving the event at End", err)
	}
}

// mutTsensTicks is a stateless source with time events at τ_k = k·δ for
// k = 1…10000 and one more at its parameter "last" (> 10000·δ); its
// output counts the events at or before t. Nothing in the graph reads it.
type mutTsensTicks struct {
	node.Stateless
	spec *node.Spec
	last float64
}

const mutTsensTickDt, mutTsensTickN = 1e-5, 10000

func newMutTsensTicks(last float64) *mutTsensTicks {
	return &mutTsensTicks{last: last, spec: node.NewSpec(node.Spec{
		Type:    "tstticks",
		Params:  []node.Param{{Name: "last", Kind: node.Real, Default: 0.15, Units: "s", Description: "the last event", Range: node.Finite()}},
		Outputs: []node.Field{mutTsensScalar("count")},
	})}
}

func (n *mutTsensTicks) Spec() *node.Spec { return n.spec }

// tau is the k-th event time, 1 ≤ k ≤ 10001.
func (n *mutTsensTicks) tau(k int) float64 {
	if k > mutTsensTickN {
		return n.last
	}
	return float64(k) * mutTsensTickDt
}

func (n *mutTsensTicks) TimeEvents(t float64) (k int, prev, next float64) {
	k = min(max(int(t/mutTsensTickDt), 0), mutTsensTickN)
	for k > 0 && n.tau(k) > t {
		k--
	}
	for k <= mutTsensTickN && n.tau(k+1) <= t {
		k++
	}
	prev, next = math.Inf(-1), math.Inf(1)
	if k > 0 {
		prev = n.tau(k)
	}
	if k <= mutTsensTickN {
		next = n.tau(k + 1)
	}
	return k, prev, next
}
func (n *mutTsensTicks) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	k, _, _ := n.TimeEvents(t)
	dst[0] = float64(k)
	return nil
}
func (n *mutTsensTicks) Params() node.Values { return node.Values{"last": n.last} }
func (n *mutTsensTicks) SetParams(p map[string]any) error {
	n.last = p["last"].(float64)
	return nil
}

// The check for moved time events lists at most the first 10000 events
// of a node in [t0, End] (a bound on its cost for a dense event source):
// a parameter that moves only the 10001st is not refused. Here nothing
// reads the ticking node, so the sensitivity of the free mass beside it
// (v₀ = 1) is still the closed form's, ∂x(t)/∂last = 0 exactly, while
// its position is x = t (1e-12: RK4 on a linear flight, with the steps
// the time events cut). A parameter moving the first event is refused
// (TestSensitivitiesTimeEvents).
func TestMutTsensTimeEventListBound(t *testing.T) {
	const T = 0.2
	tk := newMutTsensTicks(0.15)
	if k, prev, next := tk.TimeEvents(T); k != mutTsensTickN+1 || prev != 0.15 || !math.IsInf(next, 1) {
		t.Fatalf("the ticks have %d events before End (last %v, next %v), want 10001", k, prev, next)
	}
	mp, _ := masspoint.New(masspoint.Params{Mass: 1, InitialVelocity: [3]float64{1, 0, 0}})
	g := graph.New()
	g.Add("m", mp)
	g.Add("tk", tk)
	res, err := mustBuild(t, g).Sensitivities(context.Background(), []string{"tk.last"}, &graph.SensitivityOptions{End: T, Dt: 0.05,
		Record: []string{"m.position[0]"}, Mode: graph.Monolithic{Method: integrators.RK4{}}})
	if err != nil {
		t.Fatal(err)
	}
	last := len(res.Times) - 1
	if x, _ := res.Value(last, "m.position[0]"); res.Times[last] != T || !numtest.Within(x, T, 1e-12) {
		t.Fatalf("x(%v) = %v, want x(%v) = %v", res.Times[last], x, T, T)
	}
	if d, _ := res.At(last, "m.position[0]", "tk.last"); d != 0 {
		t.Errorf("∂x/∂last = %v, want 0", d)
	}
}

// ---- subsystem.go: the order of Meta ----

// mutTsensMarked is a stateless node without ports whose metadata lists
// one known anomaly, id, and declares temporal order 2.
type mutTsensMarked struct {
	node.Stateless
	spec *node.Spec
}

func newMutTsensMarked(id string) *mutTsensMarked {
	return &mutTsensMarked{spec: node.NewSpec(node.Spec{Type: "tstmarked", Meta: node.Metadata{Anomalies: []string{id}, Order: node.Order{Temporal: 2}}})}
}

func (n *mutTsensMarked) Spec() *node.Spec { return n.spec }

// A subsystem's Meta lists its inner nodes' anomalies in node order, the
// order of the flattened graph (a nested subsystem's nodes where it was
// added: after the nodes added before it), and takes OrderFrom from the
// first node in that order among those declaring the lowest order. The
// expected order is the built graph's own (Sim.Names of a graph holding
// the subsystem).
func TestMutTsensMetaNodeOrder(t *testing.T) {
	inner := graph.New()
	inner.Add("b", newMutTsensMarked("T-2"))
	mid := graph.New()
	mid.Add("a", newMutTsensMarked("T-1"))
	mid.AddSubsystem("sub", graph.NewSubsystem(inner))
	mid.Add("c", newMutTsensMarked("T-3"))
	outer := graph.New()
	outer.AddSubsystem("s", graph.NewSubsystem(mid))
	names := mustBuild(t, outer).Names()
	if want := []string{"s.a", "s.sub.b", "s.c"}; fmt.Sprint(names) != fmt.Sprint(want) {
		t.Fatalf("flattened names %v, want %v", names, want)
	}
	m := graph.NewSubsystem(mid).Meta()
	var got []string
	for _, a := range m.Anomalies {
		got = append(got, "s."+a.Node+":"+a.ID)
	}
	if want := []string{"s.a:T-1", "s.sub.b:T-2", "s.c:T-3"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("anomalies %v, want %v", got, want)
	}
	if m.OrderFrom != "a" || m.Order.Temporal != 2 || m.Nodes != 3 {
		t.Errorf("order %v from %q, %d nodes; want 2 from a, 3 nodes", m.Order.Temporal, m.OrderFrom, m.Nodes)
	}
}
