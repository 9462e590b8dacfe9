package benchmarks

import (
	"fmt"
	"math"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// Chain parameters of W1 and W1b.
const (
	ChainMass      = 1.0    // m, kg
	ChainStiffness = 1000.0 // k, N/m, along every world axis
	ChainDamping   = 1.0    // c, N·s/m, along every world axis
	ChainAmplitude = 0.01   // A, m: amplitude of the initial mode
	ChainDt        = 1e-3   // s
	ChainSteps     = 1000
)

// Chain describes the chain of N masses: its modes and initial state.
// Masses are numbered 1..N; connector j (0..N) joins mass j to mass j+1,
// mass 0 and mass N+1 being the walls (ground markers at the origin).
// The springs have zero length, so the chain is in equilibrium with every
// mass at the origin and u_i is the x coordinate of mass i.
type Chain struct {
	N int
	// Modes holds the modal amplitudes a_j (j = 1..N, Modes[j-1]) of the
	// initial displacement u_i(0) = Σ_j a_j·sin(jπi/(N+1)); the initial
	// velocity is zero. W1 excites mode 1 only (a_1 = A); W1b every mode.
	Modes []float64
}

// Mode1 is W1: the first mode alone, u_i(0) = A·sin(πi/(N+1)).
func Mode1(n int) Chain {
	return Chain{N: n, Modes: []float64{ChainAmplitude}}
}

// AllModes is W1b: every mode, a_j = A/j, so the initial shape has a
// corner at every mass and the stiff top of the spectrum is excited.
func AllModes(n int) Chain {
	a := make([]float64, n)
	for j := range a {
		a[j] = ChainAmplitude / float64(j+1)
	}
	return Chain{N: n, Modes: a}
}

// Omega returns the undamped circular frequency of mode j of the chain,
// ω_j = 2·√(k/m)·sin(jπ/(2(N+1))): the eigenvalues of the tridiagonal
// stiffness matrix k·tridiag(−1, 2, −1) are k·λ_j with
// λ_j = 4·sin²(jπ/(2(N+1))).
func (c Chain) Omega(j int) float64 {
	return 2 * math.Sqrt(ChainStiffness/ChainMass) * math.Sin(float64(j)*math.Pi/float64(2*(c.N+1)))
}

// Damping returns σ_j = ζ_j·ω_j and the damping ratio ζ_j of mode j. The
// dampers have the same tridiagonal pattern as the springs, so the modes
// decouple: q̈ + (c·λ_j/m)·q̇ + (k·λ_j/m)·q = 0, hence
// σ_j = c·λ_j/(2m) and ζ_j = c·ω_j/(2k).
func (c Chain) Damping(j int) (sigma, zeta float64) {
	w := c.Omega(j)
	zeta = ChainDamping * w / (2 * ChainStiffness)
	return zeta * w, zeta
}

// modal returns q_j(t)/q_j(0) and q̇_j(t)/q_j(0) for q_j(0) given and
// q̇_j(0) = 0 (underdamped):
//
//	q(t) = q0·e^{−σt}·(cos ω_d t + (σ/ω_d)·sin ω_d t)
//	q̇(t) = −q0·e^{−σt}·(ω²/ω_d)·sin ω_d t,  ω_d = √(ω² − σ²).
func (c Chain) modal(j int, t float64) (q, qd float64) {
	w := c.Omega(j)
	s, _ := c.Damping(j)
	wd := math.Sqrt(w*w - s*s)
	e := math.Exp(-s * t)
	sn, cs := math.Sincos(wd * t)
	return e * (cs + s/wd*sn), -e * w * w / wd * sn
}

// Exact writes the exact displacement and velocity of every mass at time
// t into u and v (len N): the damped modal solution. It costs
// O(N·len(Modes)).
func (c Chain) Exact(t float64, u, v []float64) {
	clear(u)
	clear(v)
	for jj, a := range c.Modes {
		if a == 0 {
			continue
		}
		j := jj + 1
		q, qd := c.modal(j, t)
		for i := 1; i <= c.N; i++ {
			phi := math.Sin(float64(j*i%(2*(c.N+1))) * math.Pi / float64(c.N+1))
			u[i-1] += a * q * phi
			v[i-1] += a * qd * phi
		}
	}
}

// Initial returns u_i(0).
func (c Chain) Initial() []float64 {
	u := make([]float64, c.N)
	c.Exact(0, u, make([]float64, c.N))
	return u
}

// Build builds the chain graph from the real nodes: masses "m1".."mN"
// (masspoint, 1 kg, no gravity, starting at (u_i(0), 0, 0) at rest)
// added first, so the flat state is [x_i, v_i] per mass in order, then
// connectors "s0".."sN" (springdamper, k and c on every axis, zero offset)
// from the wall or mass j to mass j+1 or the wall; each mass's additive
// "force" input sums −f of connector i−1 and +f of connector i, in that
// order.
func (c Chain) Build() (*graph.Sim, error) {
	g := graph.New()
	u := c.Initial()
	names := make([]string, c.N+2)
	names[0], names[c.N+1] = "", ""
	for i := 1; i <= c.N; i++ {
		m, err := masspoint.New(masspoint.Params{Mass: ChainMass, InitialPosition: [3]float64{u[i-1], 0, 0}})
		if err != nil {
			return nil, err
		}
		names[i] = fmt.Sprintf("m%d", i)
		g.Add(names[i], m)
	}
	p := springdamper.DefaultParams()
	p.Stiffness = [3]float64{ChainStiffness, ChainStiffness, ChainStiffness}
	p.Damping = [3]float64{ChainDamping, ChainDamping, ChainDamping}
	for j := 0; j <= c.N; j++ {
		if _, err := springdamper.Connect(g, fmt.Sprintf("s%d", j), p, node.Body(names[j]), node.Body(names[j+1])); err != nil {
			return nil, err
		}
	}
	return g.Build()
}

// Errors measures a chain state against the exact solution at time t.
// State is the flat state [x(3), v(3)] per mass (Sim.State layout).
type Errors struct {
	// State is max_i |u_i − u*_i| / A: the displacement error relative to
	// the initial amplitude.
	State float64
	// Motion is max_i |u_i − u*_i| / max_i |u*_i(t) − u_i(0)|: the error
	// relative to how far the chain has moved. At N = 100 000 mode 1 has
	// a period of about 6 300 s and moves by 5e-9 m in 1 s, so State
	// cannot tell a frozen chain from a right one; Motion can.
	Motion float64
	// Velocity is max_i |v_i − v*_i| / max_i |v*_i|.
	Velocity float64
	// Transverse is max |y|, |z| over positions and velocities: exactly 0
	// for a right run (nothing excites the other axes).
	Transverse float64
}

// Measure compares state with the exact solution at t.
func (c Chain) Measure(state []float64, t float64) Errors {
	u, v := make([]float64, c.N), make([]float64, c.N)
	c.Exact(t, u, v)
	u0 := c.Initial()
	var du, dm, dv, vm, tr, amp float64
	for i := 0; i < c.N; i++ {
		x := state[6*i : 6*i+6]
		du = math.Max(du, math.Abs(x[0]-u[i]))
		dm = math.Max(dm, math.Abs(u[i]-u0[i]))
		dv = math.Max(dv, math.Abs(x[3]-v[i]))
		vm = math.Max(vm, math.Abs(v[i]))
		amp = math.Max(amp, math.Abs(u0[i]))
		for _, k := range []int{1, 2, 4, 5} {
			tr = math.Max(tr, math.Abs(x[k]))
		}
	}
	return Errors{State: du / amp, Motion: du / dm, Velocity: dv / vm, Transverse: tr}
}

// InitialState returns the flat initial state [x(3), v(3)] per mass.
func (c Chain) InitialState() []float64 {
	u := c.Initial()
	y := make([]float64, 6*c.N)
	for i, ui := range u {
		y[6*i] = ui
	}
	return y
}
