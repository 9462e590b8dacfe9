package graph

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/cosimgo/cosim/integrators"
)

// RunMonolithic advances the simulation in monolithic mode: the graph's
// stateful nodes form one system (Sim.System) and method steps it with a
// fixed step set.Dt, re-evaluating connector outputs at every stage. It is
// the counterpart of Run, which lets each node step itself
// (co-simulation); the caller picks per run. Steps, End, Record and Every
// mean what they mean for Run; Workers and Grain are ignored (integrator
// stages are sequential). isettings configures the method (nil: its
// defaults).
//
// On an error (a failed Newton iteration, a non-finite value, a node
// error) the state is the last accepted one and the error is a
// *integrators.StepError wrapping the cause. Cancellation stops within one
// step. Stepping allocates nothing for the explicit methods.
func (s *Sim) RunMonolithic(ctx context.Context, method integrators.Method, isettings *integrators.Settings, set Settings) (*Result, error) {
	steps, err := s.prepareRun(set)
	if err != nil {
		return nil, err
	}
	st, err := s.monoStepper(method, isettings)
	if err != nil {
		return nil, err
	}
	res := &Result{Workers: 1}
	rec, err := s.startRecording(set, steps, res)
	if err != nil {
		return nil, err
	}
	every := max(set.Every, 1)
	done := ctx.Done()
	start := time.Now()
	for k := 0; k < steps; k++ {
		select {
		case <-done:
			err = ctx.Err()
		default:
		}
		if err != nil {
			break
		}
		if err = st.Step(set.Dt); err != nil {
			break
		}
		_, y := st.State()
		copy(s.x, y)
		s.yFresh = false
		s.n++
		s.steps++
		res.Steps++
		if rec != nil && s.n%every == 0 {
			if err = rec.row(s); err != nil {
				break
			}
		}
	}
	res.Wall = time.Since(start)
	res.Time = s.Time()
	res.Integrator = st.Stats()
	return res, err
}

// monoState keeps the monolithic stepper between RunMonolithic calls, so
// that a method with memory (the implicit trapezoid's carried f, the
// Newmark family's algorithmic acceleration) resumes exactly where it
// stopped, and so that checkpoints carry that memory.
type monoState struct {
	method    integrators.Method
	isettings *integrators.Settings
	st        integrators.Stepper
}

// monoStepper returns the kept stepper when it is of the same method and
// still describes the simulation's state bit for bit (nothing else has
// stepped or set it since), and a fresh, initialised one otherwise.
func (s *Sim) monoStepper(method integrators.Method, isettings *integrators.Settings) (integrators.Stepper, error) {
	if m := s.mono; m != nil && m.method == method && s.monoCurrent() {
		return m.st, nil
	}
	s.mono = nil
	sys, err := s.System()
	if err != nil {
		return nil, err
	}
	st, err := method.New(sys, isettings)
	if err != nil {
		return nil, err
	}
	if err := st.Init(s.Time(), s.x); err != nil {
		return nil, err
	}
	s.mono = &monoState{method: method, isettings: isettings, st: st}
	return st, nil
}

// monoCurrent reports whether the kept stepper's state is the Sim's.
func (s *Sim) monoCurrent() bool {
	if s.mono == nil {
		return false
	}
	t, y := s.mono.st.State()
	if t != s.Time() || len(y) != len(s.x) {
		return false
	}
	for i := range y {
		if math.Float64bits(y[i]) != math.Float64bits(s.x[i]) {
			return false
		}
	}
	return true
}

// Integrate advances the simulation to end in monolithic mode with the
// adaptive Dormand–Prince 5(4) integrator, its dense output and event
// localization: node events (node.Eventer, such as the ball's contact) are
// located to isettings.EventTol and their reset maps applied. The state
// afterwards is the integrator's at end; the returned result records the
// located events, samples at isettings.Output and the work done.
func (s *Sim) Integrate(ctx context.Context, end float64, isettings *integrators.Settings) (*integrators.Result, error) {
	t0 := s.Time()
	if math.IsNaN(end) || !(end > t0) {
		return nil, fmt.Errorf("graph: Integrate: end %v must be after the current time %v", end, t0)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sys, err := s.System()
	if err != nil {
		return nil, err
	}
	res, err := integrators.Integrate(sys, t0, s.x, end, isettings)
	if res != nil && res.Y != nil {
		copy(s.x, res.Y)
		s.t0, s.n, s.dt, s.yFresh = res.T, 0, 0, false
	}
	return res, err
}
