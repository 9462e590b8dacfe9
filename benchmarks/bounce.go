package benchmarks

import (
	"context"
	"math"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/table"
)

// W2 parameters: a ball dropped from rest at 10 m onto a table at 0 with
// restitution 0.9 under g = 9.81 m/s², for 10 s.
const (
	BounceHeight     = 10.0
	BounceElasticity = 0.9
	BounceGravity    = 9.81
	BounceEnd        = 10.0
)

// BounceImpacts returns the analytic impact times before end: the first
// at t1 = √(2h0/g), then flights of 2·e^k·v1/g with v1 = g·t1
// (1.4278431, 3.9979607, 6.3110666, 8.3928619 s for the W2 parameters).
func BounceImpacts(end float64) []float64 {
	t := math.Sqrt(2 * BounceHeight / BounceGravity)
	v := BounceGravity * t
	var out []float64
	for t < end {
		out = append(out, t)
		v *= BounceElasticity
		t += 2 * v / BounceGravity
	}
	return out
}

// BuildBounce builds the ball-and-table graph: "ball" (state position,
// velocity) with its table_position input fed by "table".
func BuildBounce() (*graph.Sim, error) {
	p := ball.DefaultParams()
	p.InitialPosition, p.Elasticity, p.Gravity = BounceHeight, BounceElasticity, -BounceGravity
	b, err := ball.New(p)
	if err != nil {
		return nil, err
	}
	tb, err := table.New(table.DefaultParams())
	if err != nil {
		return nil, err
	}
	g := graph.New()
	g.Add("ball", b)
	g.Add("table", tb)
	g.Connect("table.position", "ball.table_position")
	return g.Build()
}

// BounceResult is one W2 run: the impact times it found and its work.
type BounceResult struct {
	Impacts []float64 // detected impact times
	Steps   int       // accepted steps
	Evals   int       // right-hand sides (adaptive) or node updates (fixed step)
}

// MaxImpactError returns the largest |impact − analytic| over the
// analytic impacts, or +Inf when the count differs.
func (r BounceResult) MaxImpactError() float64 {
	want := BounceImpacts(BounceEnd)
	if len(r.Impacts) != len(want) {
		return math.Inf(1)
	}
	e := 0.0
	for i, t := range want {
		e = math.Max(e, math.Abs(r.Impacts[i]-t))
	}
	return e
}

// BounceAdaptive runs W2 with the event-localizing Dormand–Prince driver
// through the graph (Sim.Integrate) at tolerance tol (RTol = ATol).
func BounceAdaptive(tol float64) (BounceResult, error) {
	s, err := BuildBounce()
	if err != nil {
		return BounceResult{}, err
	}
	res, err := s.Integrate(context.Background(), BounceEnd, integrators.DormandPrince{RTol: tol, ATol: tol, MaxStep: 1}, nil)
	if err != nil {
		return BounceResult{}, err
	}
	out := BounceResult{Steps: res.Steps, Evals: res.Integrator.FuncEvals}
	for _, e := range res.Integrator.Events {
		out.Impacts = append(out.Impacts, e.T)
	}
	return out, nil
}

// BounceFixed runs W2 in co-simulation with fixed steps of dt: one
// Sim.Run recording the ball's velocity. The ball's Update resolves
// contact at the end of the step in which it passes the table, so an
// impact is seen at that step's end, where the velocity turns upward: the
// error is below dt by construction.
func BounceFixed(dt float64) (BounceResult, error) {
	s, err := BuildBounce()
	if err != nil {
		return BounceResult{}, err
	}
	res, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: 1}, Dt: dt, End: BounceEnd, Record: []string{"ball.velocity"}})
	if err != nil {
		return BounceResult{}, err
	}
	out := BounceResult{Steps: res.Steps, Evals: int(res.NodeUpdates)}
	h := res.History
	for i := 1; i < len(h.Rows); i++ {
		if h.Rows[i-1][0] < 0 && h.Rows[i][0] >= 0 {
			out.Impacts = append(out.Impacts, h.Times[i])
		}
	}
	return out, nil
}
