package graph_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/constant"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/table"
)

// tripNode is a two-state node driven by an input rate u (input 0): a'
// = u, b' = u, a(0) = 0, b(0) = B0. Its event "trip" is g = a − c + β −
// shift[0] (rising), β its input 1 (a bias), shift a vector parameter
// (zero unless set); the reset sets a⁺ = 0 and b⁺ = r·b +
// k·u + q·t + β (q a fixed rate, so the reset depends on time
// explicitly). It states every Jacobian exactly (∂f/∂u, ∂g/∂x, ∂g/∂u,
// ∂g/∂p, ∂R/∂x, ∂R/∂u, ∂R/∂p, ∂R/∂t) and checks the length of every
// buffer it is given, so a run's sensitivities go through the graph's
// use of each; its parameters do not enter f, which the graph differences
// over SetParams (zero).
type tripNode struct {
	spec    *node.Spec
	c, r, k float64
	shift   float64 // shift[0]
}

const tripB0, tripQ = 0.5, 0.4

func newTripNode(c, r, k float64) *tripNode {
	return &tripNode{c: c, r: r, k: k, spec: node.NewSpec(node.Spec{
		Type: "testtrip",
		State: []node.Field{
			{Name: "a", Shape: node.Scalar, Units: "m", Description: "the tripping state"},
			{Name: "b", Shape: node.Scalar, Units: "m", Description: "the kicked state"},
		},
		Inputs: []node.Input{
			{Name: "rate", Shape: node.Scalar, Units: "m/s", Description: "u", Default: []float64{0}},
			{Name: "bias", Shape: node.Scalar, Units: "m", Description: "β", Default: []float64{0}},
		},
		Params: []node.Param{
			{Name: "c", Kind: node.Real, Default: 1.0, Units: "m", Description: "threshold", Range: node.Finite()},
			{Name: "r", Kind: node.Real, Default: 0.5, Units: "1", Description: "gain", Range: node.Finite()},
			{Name: "k", Kind: node.Real, Default: 0.3, Units: "s", Description: "kick", Range: node.Finite()},
			{Name: "shift", Kind: node.Vector, Shape: node.Vec(1), Default: []float64{0}, Units: "m", Description: "threshold shift"},
		},
		Events: []node.Event{{Name: "trip", Direction: 1, Description: "a reaches c − β"}},
	})}
}

func (n *tripNode) Spec() *node.Spec { return n.spec }
func (n *tripNode) InitialState(dst []float64) {
	dst[0], dst[1] = 0, tripB0
}
func (n *tripNode) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	return nil
}
func (n *tripNode) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0], dst[1] = in.Values[0], in.Values[0]
	return nil
}
func (n *tripNode) DerivativesJacobian(t float64, x []float64, in node.Inputs, dstX, dstU []float64) error {
	clear(dstX)
	if dstU != nil {
		dstU[0], dstU[1], dstU[2], dstU[3] = 1, 0, 1, 0
	}
	return nil
}
func (n *tripNode) EventValues(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = x[0] - n.c + in.Values[1] - n.shift
	return nil
}
func (n *tripNode) Reset(event int, t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0], dst[1] = 0, n.r*x[1]+n.k*in.Values[0]+tripQ*t+in.Values[1]
	return nil
}
func (n *tripNode) EventValuesJacobian(event int, t float64, x []float64, in node.Inputs, dstX, dstU, dstP []float64) (float64, error) {
	if len(dstX) != 2 || len(dstU) != 2 || len(dstP) != 4 {
		return 0, fmt.Errorf("EventValuesJacobian: buffers of %d, %d, %d values, want 2, 2, 4", len(dstX), len(dstU), len(dstP))
	}
	dstX[0], dstX[1] = 1, 0
	dstU[0], dstU[1] = 0, 1
	dstP[0], dstP[1], dstP[2], dstP[3] = -1, 0, 0, 0 // shift, a vector, has no column
	return 0, nil
}
func (n *tripNode) ResetJacobian(event int, t float64, x []float64, in node.Inputs, dstX, dstU, dstP, dstT []float64) error {
	if len(dstX) != 4 || len(dstU) != 4 || len(dstP) != 8 || len(dstT) != 2 {
		return fmt.Errorf("ResetJacobian: buffers of %d, %d, %d, %d values, want 4, 4, 8, 2", len(dstX), len(dstU), len(dstP), len(dstT))
	}
	clear(dstX)
	clear(dstU)
	clear(dstP)
	dstX[3] = n.r                             // ∂b⁺/∂b
	dstU[2], dstU[3] = n.k, 1                 // ∂b⁺/∂u, ∂b⁺/∂β
	dstP[4+1], dstP[4+2] = x[1], in.Values[0] // ∂b⁺/∂r, ∂b⁺/∂k
	dstT[0], dstT[1] = 0, tripQ               // ∂b⁺/∂t
	return nil
}
func (n *tripNode) Params() node.Values {
	return node.Values{"c": n.c, "r": n.r, "k": n.k, "shift": []float64{n.shift}}
}
func (n *tripNode) SetParams(p map[string]any) error {
	for name, v := range p {
		if name == "shift" {
			n.shift = v.([]float64)[0]
			continue
		}
		f := v.(float64)
		switch name {
		case "c":
			n.c = f
		case "r":
			n.r = f
		case "k":
			n.k = f
		}
	}
	return nil
}

// tripGraph: a free mass "m" moving at U along x (added first, so the
// trip node's state and inputs do not start at 0) whose velocity drives
// the trip node's rate (so the rate depends on the graph state, not on a
// parameter), a constant node giving its bias β, and a second free mass
// "m2" after it (x₀ = 0.25), which the trip's reset must leave alone.
func tripGraph(t *testing.T, U, beta float64) *graph.Sim {
	t.Helper()
	mp, _ := masspoint.New(masspoint.Params{Mass: 1, InitialVelocity: [3]float64{U, 0, 0}})
	m2, _ := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{0.25, 0, 0}})
	src, err := constant.New(constant.Params{Value: [3]float64{beta, 0, 0}, Units: "m"})
	if err != nil {
		t.Fatal(err)
	}
	g := graph.New()
	g.Add("m", mp)
	g.Add("src", src)
	g.Add("trip", newTripNode(1, 0.5, 0.3))
	g.Add("m2", m2)
	g.Connect("m.velocity", "trip.rate", graph.Via(graph.Component{Index: 0}))
	g.Connect("src.value", "trip.bias", graph.Via(graph.Component{Index: 0}))
	return mustBuild(t, g)
}

// The saltation map through a node's exact event and reset Jacobians,
// for a node whose state and inputs sit between other nodes' and whose
// event and reset read a state-driven input (the rate) and a
// parameter-driven one (the bias). Closed form (U = 2, β = 0.2, c = 1, r
// = 0.5, k = 0.3, q = 0.4, B0 = 0.5, T = 0.7; d = c − β): a = U·t
// reaches d at t* = d/U = 0.4; then a(T) = U·T − d and b(T) = r·(B0 + d)
// + k·U + q·d/U + β + U·T − d, so with s = r + q/U − 1:
// ∂a/∂(U, c, r, k, β) = (T, −1, 0, 0, 1), ∂b/∂(U, c, r, k, β) = (k −
// q·d/U² + T, s, B0 + d, U, 1 − s), ∂t*/∂(U, c, r, k, β) = (−d/U², 1/U,
// 0, 0, −1/U); the mass m has ∂x/∂U = T, and m2 ∂x/∂x₀ = 1. Everything
// is linear in t, so the adaptive method is exact up to rounding and the
// event tolerance (1e-14): 1e-9.
func TestMutSensTripSaltation(t *testing.T) {
	const U, beta, c, r, k, T = 2.0, 0.2, 1.0, 0.5, 0.3, 0.7
	const d, q = c - beta, tripQ
	s := r + q/U - 1
	params := []string{"m.initial_velocity[0]", "trip.c", "trip.r", "trip.k", "src.value[0]", "m2.initial_position[0]"}
	res, err := tripGraph(t, U, beta).Sensitivities(context.Background(), params, &graph.SensitivityOptions{End: T, Output: []float64{T},
		Record: []string{"m.position[0]", "trip.a", "trip.b", "m2.position[0]"}, Mode: graph.MonolithicAdaptive{Method: sensTightDP, Options: sensTightEvents}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float64{
		"m.position[0]":  {T, 0, 0, 0, 0, 0},
		"trip.a":         {T, -1, 0, 0, 1, 0},
		"trip.b":         {k - q*d/(U*U) + T, s, tripB0 + d, U, 1 - s, 0},
		"m2.position[0]": {0, 0, 0, 0, 0, 1},
	}
	values := map[string]float64{"m.position[0]": U * T, "trip.a": U*T - d, "trip.b": r*(tripB0+d) + k*U + q*d/U + beta + U*T - d, "m2.position[0]": 0.25}
	for col, w := range want {
		if v, _ := res.Value(0, col); !numtest.Within(v, values[col], 1e-9) {
			t.Errorf("%s(T) = %v, want %v", col, v, values[col])
		}
		for j, p := range params {
			if d, _ := res.At(0, col, p); !numtest.Within(d, w[j], 1e-9) {
				t.Errorf("∂%s/∂%s = %.12g, want %v", col, p, d, w[j])
			}
		}
	}
	if len(res.Events) != 1 || !numtest.Within(res.Events[0].T, d/U, 1e-12) {
		t.Fatalf("events %+v, want one at %v", res.Events, d/U)
	}
	for j, w := range []float64{-d / (U * U), 1 / U, 0, 0, -1 / U, 0} {
		if dt := res.Events[0].DT[j]; !numtest.Within(dt, w, 1e-9) {
			t.Errorf("∂t*/∂%s = %.12g, want %v", params[j], dt, w)
		}
	}
}

// A component of the trip node's vector parameter moves its event like
// the threshold c (g = a − (c + shift[0]) + β): the node's exact event
// and reset Jacobians have no column for it, so with it named they are
// differenced over the whole graph instead, and ∂/∂shift[0] equals ∂/∂c
// of TestMutSensTripSaltation: ∂a = −1, ∂b = r + q/U − 1, ∂t* = 1/U
// (1e-8: differenced event and reset maps), with c named beside it or
// not.
func TestMutSensTripVectorParam(t *testing.T) {
	const U, beta, r, T = 2.0, 0.2, 0.5, 0.7
	for _, params := range [][]string{{"trip.shift[0]", "trip.c"}, {"trip.shift[0]"}} {
		checkTripVector(t, U, beta, r, T, params)
	}
}

func checkTripVector(t *testing.T, U, beta, r, T float64, params []string) {
	t.Helper()
	res, err := tripGraph(t, U, beta).Sensitivities(context.Background(), params, &graph.SensitivityOptions{End: T, Output: []float64{T},
		Record: []string{"trip.a", "trip.b"}, Mode: graph.MonolithicAdaptive{Method: sensTightDP, Options: sensTightEvents}})
	if err != nil {
		t.Fatal(err)
	}
	for j, p := range params {
		da, _ := res.At(0, "trip.a", p)
		db, _ := res.At(0, "trip.b", p)
		if s := r + tripQ/U - 1; !numtest.Within(da, -1, 1e-8) || !numtest.Within(db, s, 1e-8) {
			t.Errorf("∂a/∂%s = %.12g (want -1), ∂b = %.12g (want %v)", p, da, db, s)
		}
		if len(res.Events) != 1 || !numtest.Within(res.Events[0].DT[j], 1/U, 1e-8) {
			t.Errorf("events %+v: want ∂t*/∂%s = %v", res.Events, p, 1/U)
		}
	}
}

// The bouncing ball after another stateful node with inputs (a free
// mass moving at 1 m/s, so the ball's state and inputs do not start at
// 0): one bounce before T = 0.8 (drop from h = 1 onto the table at z =
// 0, e = 0.8, G = 9.81). With d = h − z, t* = √(2d/G), V₁ = G·t*, τ = T
// − t*: x(T) = z + e·V₁·τ − G·τ²/2 and v(T) = e·V₁ − G·τ, so ∂x/∂h =
// (e·τ − e·t* + τ)/t*, ∂x/∂z = 1 − ∂x/∂h, ∂x/∂e = V₁·τ, ∂v/∂h = (1 +
// e)·G/V₁ = −∂v/∂z, ∂v/∂e = V₁, and ∂t*/∂h = 1/V₁ = −∂t*/∂z; the mass has
// ∂x/∂v₀ = T. 1e-8, as TestSensitivitiesThroughInputs (event tolerance
// 1e-14, Dormand–Prince at 1e-12 over a polynomial flight).
func TestMutSensBallAfterMass(t *testing.T) {
	const h, e, G, T = 1.0, 0.8, 9.81, 0.8
	p := ball.DefaultParams()
	p.InitialPosition, p.Elasticity = h, e
	b, _ := ball.New(p)
	tb, _ := table.New(table.DefaultParams())
	mp, _ := masspoint.New(masspoint.Params{Mass: 1, InitialVelocity: [3]float64{1, 0, 0}})
	g := graph.New()
	g.Add("m", mp)
	g.Add("ball", b)
	g.Add("table", tb)
	g.Connect("table.position", "ball.table_position")
	s := mustBuild(t, g)
	params := []string{"m.initial_velocity[0]", "ball.initial_position", "ball.elasticity", "table.position"}
	res, err := s.Sensitivities(context.Background(), params, &graph.SensitivityOptions{End: T, Output: []float64{T},
		Record: []string{"m.position[0]", "ball.position", "ball.velocity"}, Mode: graph.MonolithicAdaptive{Method: sensTightDP, Options: sensTightEvents}})
	if err != nil {
		t.Fatal(err)
	}
	ts := math.Sqrt(2 * h / G)
	V1, tau := G*ts, T-ts
	dxdh := (e*tau - e*ts + tau) / ts
	want := map[string][]float64{
		"m.position[0]": {T, 0, 0, 0},
		"ball.position": {0, dxdh, V1 * tau, 1 - dxdh},
		"ball.velocity": {0, (1 + e) * G / V1, V1, -(1 + e) * G / V1},
	}
	for col, w := range want {
		for j, p := range params {
			if d, _ := res.At(0, col, p); !numtest.Within(d, w[j], 1e-8) {
				t.Errorf("∂%s/∂%s = %.12g, want %.12g", col, p, d, w[j])
			}
		}
	}
	if len(res.Events) != 1 {
		t.Fatalf("events %+v, want one bounce", res.Events)
	}
	for j, w := range []float64{0, 1 / V1, 0, -1 / V1} {
		if d := res.Events[0].DT[j]; !numtest.Within(d, w, 1e-8) {
			t.Errorf("∂t*/∂%s = %.12g, want %.12g", params[j], d, w)
		}
	}
}

// The accessors of a Sensitivity with two columns and two parameters:
// Series(c, p) is the column At(i, c, p) over every row, and a row index
// past the last (len(Times)) is reported missing by At and Value rather
// than read. The reference is the documented layout D[i][k·len(Params)
// + j].
func TestMutSensAccessors(t *testing.T) {
	res := &graph.Sensitivity{
		Params:  []string{"p", "q"},
		Columns: []string{"x", "y"},
		Times:   []float64{0, 1},
		Values:  [][]float64{{1, 2}, {3, 4}},
		D:       [][]float64{{10, 11, 12, 13}, {20, 21, 22, 23}},
	}
	for k, c := range res.Columns {
		for j, p := range res.Params {
			s := res.Series(c, p)
			for i := range res.Times {
				want := res.D[i][k*2+j]
				if d, ok := res.At(i, c, p); !ok || d != want || s[i] != want {
					t.Errorf("row %d ∂%s/∂%s: At %v (%v), Series %v; want %v", i, c, p, d, ok, s[i], want)
				}
			}
		}
	}
	if _, ok := res.At(2, "x", "p"); ok {
		t.Error("At(2) of two rows reported present")
	}
	if _, ok := res.Value(2, "x"); ok {
		t.Error("Value(2) of two rows reported present")
	}
}
