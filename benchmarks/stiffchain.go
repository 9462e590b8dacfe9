package benchmarks

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// W4 stiff-chain parameters: the W1 chain with stiff connectors, where
// only implicit methods can take a 1 ms step (ω_max·dt ≈ 6.3 at
// k = 1e7 N/m, m = 1 kg, while explicit Euler needs ω·dt < 2).
const (
	StiffMass      = 1.0  // m, kg
	StiffStiffness = 1e7  // k, N/m on every world axis
	StiffDamping   = 10.0 // c, N·s/m on every world axis
	StiffAmplitude = 0.01 // A, m, of the first mode
	StiffDt        = 1e-3 // s
)

// StiffChain is W4: N masspoints (1 kg) between two walls, joined by N+1
// springdampers (k = 1e7 N/m, c = 10 N·s/m on every axis, zero length),
// starting at rest in the first mode u_i = A·sin(πi/(N+1)) along x. Its
// exact solution is the damped modal one of [Chain] with these k and c:
// ω_1 = 2·√(k/m)·sin(π/(2(N+1))), σ_1 = c·λ_1/(2m), λ_1 = 4·sin²(π/(2(N+1))).
type StiffChain struct{ N int }

func (c StiffChain) lambda() float64 {
	s := math.Sin(math.Pi / float64(2*(c.N+1)))
	return 4 * s * s
}

// Omega returns ω_1, the undamped circular frequency of the first mode.
func (c StiffChain) Omega() float64 { return math.Sqrt(StiffStiffness * c.lambda() / StiffMass) }

// Exact writes the exact displacement of every mass at time t into u.
func (c StiffChain) Exact(t float64, u []float64) {
	w := c.Omega()
	s := StiffDamping * c.lambda() / (2 * StiffMass)
	wd := math.Sqrt(w*w - s*s)
	sn, cs := math.Sincos(wd * t)
	q := math.Exp(-s*t) * (cs + s/wd*sn)
	for i := 1; i <= c.N; i++ {
		u[i-1] = StiffAmplitude * q * math.Sin(math.Pi*float64(i)/float64(c.N+1))
	}
}

// Build builds the chain from the real nodes, masses "m1".."mN" first
// (flat state [x(3), v(3)] per mass), then connectors "s0".."sN".
func (c StiffChain) Build() (*graph.Sim, error) {
	g, err := c.Graph()
	if err != nil {
		return nil, err
	}
	return g.Build()
}

// Graph is the chain's graph before Build (Build's node names and order).
func (c StiffChain) Graph() (*graph.Graph, error) {
	g := graph.New()
	names := make([]string, c.N+2)
	for i := 1; i <= c.N; i++ {
		u := StiffAmplitude * math.Sin(math.Pi*float64(i)/float64(c.N+1))
		m, err := masspoint.New(masspoint.Params{Mass: StiffMass, InitialPosition: [3]float64{u, 0, 0}})
		if err != nil {
			return nil, err
		}
		names[i] = fmt.Sprintf("m%d", i)
		g.Add(names[i], m)
	}
	p := springdamper.DefaultParams()
	p.Stiffness = [3]float64{StiffStiffness, StiffStiffness, StiffStiffness}
	p.Damping = [3]float64{StiffDamping, StiffDamping, StiffDamping}
	for j := 0; j <= c.N; j++ {
		if _, err := springdamper.Connect(g, fmt.Sprintf("s%d", j), p, node.Body(names[j]), node.Body(names[j+1])); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// StiffErrors measures a W4 state against the modal solution at t.
type StiffErrors struct {
	// State is max_i |u_i − u*_i| / A.
	State float64
	// Motion is max_i |u_i − u*_i| / max_i |u*_i(t) − u_i(0)|: the error
	// relative to how far the chain moved (mode 1 of long chains hardly
	// moves in a few steps).
	Motion float64
}

// Measure compares state (Sim.State layout) with the exact solution.
func (c StiffChain) Measure(state []float64, t float64) StiffErrors {
	u, u0 := make([]float64, c.N), make([]float64, c.N)
	c.Exact(t, u)
	c.Exact(0, u0)
	var du, dm float64
	for i := range u {
		du = math.Max(du, math.Abs(state[6*i]-u[i]))
		dm = math.Max(dm, math.Abs(u[i]-u0[i]))
	}
	return StiffErrors{State: du / StiffAmplitude, Motion: du / dm}
}

// StiffRun is one W4 measurement.
type StiffRun struct {
	N       int
	Method  string
	Solver  string // "dense", "gmres+block-jacobi", "gmres+ilu0", ...
	Steps   int
	Wall    time.Duration // stepping only (not Build)
	Stats   integrators.Work
	Errors  StiffErrors
	State   []float64 // final state, kept only when asked
	BuildAt time.Duration
}

// PerStep returns the wall time per step.
func (r StiffRun) PerStep() time.Duration { return r.Wall / time.Duration(max(r.Steps, 1)) }

// stiffSolvers are the W4 solver configurations by name (StiffSolver).
var stiffSolvers = map[string]integrators.LinearOptions{
	"dense":              {Solver: integrators.LinearDense},
	"gmres+block-jacobi": {Solver: integrators.LinearGMRES, Preconditioner: integrators.PrecondBlockJacobi},
	"gmres+ilu0":         {Solver: integrators.LinearGMRES, Preconditioner: integrators.PrecondILU0},
	"banded":             {Solver: integrators.LinearBanded},
}

// StiffSolver returns the W4 solver configuration of that name.
func StiffSolver(name string) (integrators.LinearOptions, bool) {
	s, ok := stiffSolvers[name]
	return s, ok
}

// RunStiff builds W4 of n masses and runs steps steps of StiffDt with
// implicit method m with the named solver through Sim.RunMonolithic.
func RunStiff(n int, m integrators.NewtonMethod, solver string, steps int, keepState bool) (StiffRun, error) {
	lin, ok := StiffSolver(solver)
	if !ok {
		return StiffRun{}, fmt.Errorf("benchmarks: unknown W4 solver %q", solver)
	}
	c := StiffChain{N: n}
	t0 := time.Now()
	s, err := c.Build()
	if err != nil {
		return StiffRun{}, err
	}
	r := StiffRun{N: n, Method: m.Name(), Solver: solver, BuildAt: time.Since(t0)}
	newton, _ := m.Solver()
	res, err := s.RunMonolithic(context.Background(), m.WithSolver(newton, lin), nil, graph.Settings{Dt: StiffDt, Steps: steps})
	if err != nil {
		return r, err
	}
	r.Steps, r.Wall, r.Stats = res.Steps, res.Wall, res.Integrator.Work
	st := s.State(nil)
	r.Errors = c.Measure(st, s.Time())
	if keepState {
		r.State = st
	}
	return r, nil
}
