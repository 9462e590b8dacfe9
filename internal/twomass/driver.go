package twomass

import (
	"fmt"

	"github.com/cosimgo/cosim/integrators"
	"gonum.org/v1/gonum/mat"
)

// Trajectory is a run of the package driver.
type Trajectory struct {
	States []integrators.State // the start and every accepted step
	Memory integrators.Memory  // the last accepted memory
	Stats  integrators.Work    // work of the whole run (integrators.SecondOrderStepper.Work)
}

// Final returns the last state.
func (tr *Trajectory) Final() integrators.State { return tr.States[len(tr.States)-1] }

// Run steps the package driver of method m (Newmark or generalized-alpha)
// n times with dt from p.Start(), passing each accepted Outcome.Memory
// into the next Advance. With reset it passes an empty Memory every
// step instead: the step then starts from the physical acceleration
// −K·q_n, the MADDENING two-mass guide's negative control.
func Run(p Problem, m integrators.SecondOrderMethod, dt float64, n int, reset bool) (*Trajectory, error) {
	r, err := m.NewSecondOrder(p.System(), nil)
	if err != nil {
		return nil, err
	}
	st := p.Start()
	tr := &Trajectory{States: []integrators.State{st}}
	var h integrators.Memory
	for i := 0; i < n; i++ {
		if reset {
			h = integrators.Memory{}
		}
		res, err := r.Advance(st, h, dt)
		if err != nil {
			return nil, fmt.Errorf("twomass: %s step %d: %w", m.Name(), i+1, err)
		}
		h = res.Memory
		st = h.Latest.State
		tr.States = append(tr.States, st)
	}
	tr.Memory = h
	tr.Stats = r.Work()
	return tr, nil
}

// DriverAmplification builds the one-step amplification matrix of method
// m on one mode q̈ = −ω²q with ω·dt = omegaDt (dt = 1) by stepping the
// package driver from the unit states (q, v, a) = e_j with a history
// carrying a: column j is the (q, v, a) after one step.
func DriverAmplification(m integrators.SecondOrderMethod, omegaDt float64) (*mat.Dense, error) {
	w2 := omegaDt * omegaDt
	sys := integrators.SecondOrderFunc{NQ: 1, A: func(t float64, q, v, z, a, zd []float64) error {
		a[0] = -w2 * q[0]
		return nil
	}}
	r, err := m.NewSecondOrder(sys, nil)
	if err != nil {
		return nil, err
	}
	A := mat.NewDense(3, 3, nil)
	for j := range 3 {
		var e [3]float64
		e[j] = 1
		st := integrators.State{Q: []float64{e[0]}, V: []float64{e[1]}, Z: []float64{}}
		h := integrators.Memory{Latest: &integrators.MemoryEntry{State: st, A: []float64{e[2]}, ZDot: []float64{},
			Method: m.Name(), AlphaParams: m.Params(), NQ: 1}}
		res, err := r.Advance(st, h, 1)
		if err != nil {
			return nil, err
		}
		l := res.Memory.Latest
		A.Set(0, j, l.Q[0])
		A.Set(1, j, l.V[0])
		A.Set(2, j, l.A[0])
	}
	return A, nil
}
