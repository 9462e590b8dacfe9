package scene

import (
	"fmt"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
)

// This file turns a scene's run section into the settings of the packages
// that run it: graph.Settings, a coupling.Strategy, an integration method
// and its integrators.DriverOptions.

// Monolithic reports whether the run is monolithic ("mode":
// "monolithic"): graph.Monolithic, or graph.MonolithicAdaptive when its
// integrator is adaptive.
func (r *Run) Monolithic() bool { return r.Mode == monolithic }

// adaptive reports whether the scene runs the adaptive integrator.
func (sc *Scene) adaptive() bool {
	return sc.Run.Monolithic() && sc.Run.Integrator != nil && sc.Run.Integrator.Adaptive
}

// EndTime is the time the run ends at: Steps·Dt when Steps is set, End
// otherwise. Runs start at 0.
func (sc *Scene) EndTime() float64 {
	if sc.Run.Steps > 0 {
		return float64(sc.Run.Steps) * sc.Run.Dt
	}
	return sc.Run.End
}

// Configure returns the integration method of a monolithic scene, from
// the registry (integrators.ByName) with the scene's parameters and
// options set on it, and its driver options (the adaptive driver's step
// budget and the event tolerance). It returns an error when the name is
// unknown; Scene validation reports the keys that do not apply to the
// method.
func (in *IntegrationMethod) Configure() (integrators.Method, *integrators.DriverOptions, error) {
	m, err := integrators.ByName(in.Method)
	if err != nil {
		return nil, nil, err
	}
	switch b := m.(type) {
	case integrators.Newmark:
		if in.Beta != nil {
			b.Beta = *in.Beta
		}
		if in.Gamma != nil {
			b.Gamma = *in.Gamma
		}
		m = b
	case integrators.GeneralizedAlpha:
		if in.RhoInf != nil {
			b.RhoInf = *in.RhoInf
		}
		m = b
	}
	if am, ok := m.(integrators.AdaptiveMethod); ok {
		m = am.WithControl(integrators.StepControl{RTol: in.RTol, ATol: in.ATol, InitialStep: in.InitialStep, MinStep: in.MinStep, MaxStep: in.MaxStep})
	}
	if nm, ok := m.(integrators.NewtonMethod); ok {
		m = nm.WithSolver(integrators.NewtonOptions{Tol: in.NewtonTol, MaxIter: in.NewtonMaxIter}, integrators.LinearOptions{
			Solver:         parsed(integrators.ParseLinearSolver, in.LinearSolver),
			Preconditioner: parsed(integrators.ParsePreconditioner, in.Preconditioner),
			Forcing:        parsed(integrators.ParseForcing, in.Forcing),
			KrylovTol:      in.KrylovTol, KrylovRestart: in.KrylovRestart, KrylovMaxIter: in.KrylovMaxIter,
			MatrixFree: in.MatrixFree, JacobianMaxAge: in.JacobianMaxAge,
		})
	}
	return m, &integrators.DriverOptions{MaxSteps: in.MaxSteps, EventTol: in.EventTol}, nil
}

// parsed returns the value named s, or the zero value (the default) for
// "" (check has rejected unknown names).
func parsed[T any](parse func(string) (T, error), s string) T {
	var zero T
	if s == "" {
		return zero
	}
	v, err := parse(s)
	if err != nil {
		return zero
	}
	return v
}

// Strategy returns the coupling.Strategy the settings describe, validated
// by coupling.Strategy.Validate (node names are checked when a run
// starts).
func (c *Coupling) Strategy() (*coupling.Strategy, error) {
	scheme := c.Scheme
	if scheme == "" {
		scheme = string(coupling.Jacobi) // the default, as for no coupling section
	}
	st, err := coupling.ByName(scheme)
	if err != nil {
		return nil, err
	}
	if c.Acceleration != "" {
		if st.Scheme != coupling.Iterative {
			return nil, fmt.Errorf("acceleration %q is for the %s scheme, the scheme is %s", c.Acceleration, coupling.Iterative, st.Scheme)
		}
		st.Iteration.Acceleration.Accel = coupling.Accel(c.Acceleration)
	}
	it := &st.Iteration
	a := &it.Acceleration
	a.Omega, a.OmegaMax, a.Reuse, a.Filter, a.MaxColumns = c.Omega, c.OmegaMax, c.Reuse, c.Filter, c.MaxColumns
	it.ATol, it.RTol, it.MaxIter = c.ATol, c.RTol, c.MaxIter
	it.Predictor, it.OnFail = coupling.Predictor(c.Predictor), coupling.Policy(c.OnFail)
	st.Order = c.Order
	for _, g := range c.Groups {
		st.Groups = append(st.Groups, coupling.Group{Name: g.Name, Nodes: g.Nodes})
	}
	st.Rates = c.Rates
	st.Interpolation = coupling.Interpolation(c.Interpolation)
	if err := st.Validate(); err != nil {
		return nil, err
	}
	return &st, nil
}

// Settings returns the graph run settings of the scene, in its mode
// (runSettings); settings that Decode reports as invalid are left unset.
func (sc *Scene) Settings() graph.Settings {
	set, _ := sc.runSettings()
	return set
}
