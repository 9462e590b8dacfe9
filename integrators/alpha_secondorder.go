package integrators

import (
	"fmt"
	"slices"
)

// SecondOrderStepper: the Newmark family on a SecondOrder system with an
// explicit Memory (State, MemoryEntry, Memory, Advance).

// State is a second-order state at time T. Q and V have length nq, Z
// length nz.
type State struct {
	T       float64
	Q, V, Z []float64
}

// MemoryEntry is one accepted point of a second-order trajectory: the
// state, the algorithmic acceleration carried to the next step, the rate
// of the extra quantities from the final endpoint evaluation, and the
// method's identity and layout, used to reject foreign histories.
type MemoryEntry struct {
	State
	Clock  Clock     // time from step count; State.T == Clock.Now()
	A      []float64 // algorithmic acceleration (len nq)
	ZDot   []float64 // z' at the state (len nz)
	Method string    // MethodNewmark or MethodGeneralizedAlpha
	AlphaParams
	NQ, NZ int
	IDs    []int64 // DriverOptions.IDs of the stepper that wrote the entry
}

// Memory is the memory of a second-order trajectory. The zero Memory
// is empty: the next step starts from the physical acceleration
// a(t, q, v, z). The one-step schemes here need only the latest entry.
type Memory struct {
	Latest *MemoryEntry
}

// Empty reports whether h has no entry.
func (h Memory) Empty() bool { return h.Latest == nil }

// SecondOrderStepper runs Newmark or generalized-alpha on a SecondOrder
// system. It is a parameterized fixed-step runner: each Advance call takes
// the accepted state and Memory of the previous call and returns the
// next. It has no error estimator, dense output or event localization.
//
// A SecondOrderStepper is not safe for concurrent use; distinct ones are.
type SecondOrderStepper struct {
	m     methodInfo
	core  *alphaCore
	ids   []int64
	stats Work
	a0    []float64
	g0    []float64
}

// NewSecondOrder returns a SecondOrderStepper of Newmark for sys.
// DriverOptions.Output and MaxSteps do not apply (ErrNotApplicable).
func (m Newmark) NewSecondOrder(sys SecondOrder, o *DriverOptions) (*SecondOrderStepper, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	return newSecondOrder(m.info(), m.Newton, m.Linear, sys, o)
}

// NewSecondOrder returns a SecondOrderStepper of generalized-alpha for
// sys. DriverOptions.Output and MaxSteps do not apply (ErrNotApplicable).
func (m GeneralizedAlpha) NewSecondOrder(sys SecondOrder, o *DriverOptions) (*SecondOrderStepper, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	return newSecondOrder(m.info(), m.Newton, m.Linear, sys, o)
}

func newSecondOrder(m methodInfo, n NewtonOptions, l LinearOptions, sys SecondOrder, o *DriverOptions) (*SecondOrderStepper, error) {
	if err := checkFixedStep(o, m.Name+" (on a SecondOrder system)"); err != nil {
		return nil, err
	}
	s := o.settings()
	s.setSolver(n, l)
	c := resolve(s)
	if err := c.checkLinear(); err != nil {
		return nil, err
	}
	r := &SecondOrderStepper{m: m, ids: c.ids}
	r.core = newAlphaCore(m, sys, c, &r.stats)
	r.core.initLinear(false, nil, nil)
	r.a0 = make([]float64, r.core.nq)
	r.g0 = make([]float64, r.core.nz)
	return r, nil
}

// Method returns the method name.
func (r *SecondOrderStepper) Method() string { return r.m.Name }

// Order returns the declared order, 2.
func (r *SecondOrderStepper) Order() int { return r.m.Order }

// Params returns the method parameters.
func (r *SecondOrderStepper) Params() AlphaParams { return r.m.Alpha }

// Work returns the work done over the life of r.
func (r *SecondOrderStepper) Work() Work { return r.stats }

func (r *SecondOrderStepper) checkHistory(st State, e *MemoryEntry) error {
	p := r.m.Alpha
	nq, nz := r.core.nq, r.core.nz
	switch {
	case e.Method != r.m.Name:
		return &StateMismatchError{Field: "method", Want: r.m.Name, Got: e.Method}
	case e.RhoInf != p.RhoInf:
		return &StateMismatchError{Field: "rho_inf", Want: fmtF(p.RhoInf), Got: fmtF(e.RhoInf)}
	case e.Beta != p.Beta:
		return &StateMismatchError{Field: "beta", Want: fmtF(p.Beta), Got: fmtF(e.Beta)}
	case e.Gamma != p.Gamma:
		return &StateMismatchError{Field: "gamma", Want: fmtF(p.Gamma), Got: fmtF(e.Gamma)}
	case e.AlphaM != p.AlphaM:
		return &StateMismatchError{Field: "alpha_m", Want: fmtF(p.AlphaM), Got: fmtF(e.AlphaM)}
	case e.AlphaF != p.AlphaF:
		return &StateMismatchError{Field: "alpha_f", Want: fmtF(p.AlphaF), Got: fmtF(e.AlphaF)}
	case e.NQ != nq || len(e.A) != nq:
		return &StateMismatchError{Field: "nq", Want: fmt.Sprint(nq), Got: fmt.Sprint(e.NQ)}
	case e.NZ != nz || len(e.ZDot) != nz:
		return &StateMismatchError{Field: "nz", Want: fmt.Sprint(nz), Got: fmt.Sprint(e.NZ)}
	case !slices.Equal(e.IDs, r.ids):
		return &StateMismatchError{Field: "ids", Want: fmt.Sprint(r.ids), Got: fmt.Sprint(e.IDs)}
	case e.T != st.T:
		return &StateMismatchError{Field: "time", Want: fmtF(st.T), Got: fmtF(e.T)}
	}
	return nil
}

// Advance takes one step of size dt > 0 from st.
//
// If h is empty, the step starts from the physical acceleration at st
// (one extra evaluation). Otherwise h.Latest must come from a stepper
// with the same method, parameters, layout (nq, nz, IDs) and time st.T;
// a mismatch returns a *StateMismatchError naming the field, wrapping
// ErrStateMismatch, with Status StateMismatch. The carried
// acceleration does not depend on dt, so a shorter step (for example to
// land on an output time) keeps it.
//
// On success the Outcome's Memory.Latest holds the new state (fresh
// slices) and the Outcome's Work the work of this call. On failure
// (Newton non-convergence, non-finite values, user error) the returned
// error is a *StepError, Status says why, and neither st nor h is
// touched: the caller still holds the accepted state and Memory.
func (r *SecondOrderStepper) Advance(st State, h Memory, dt float64) (Outcome, error) {
	checkStep(dt)
	nq, nz := r.core.nq, r.core.nz
	if len(st.Q) != nq || len(st.V) != nq || len(st.Z) != nz {
		panic(fmt.Sprintf("integrators: Advance: state lengths (%d, %d, %d), want (%d, %d, %d)",
			len(st.Q), len(st.V), len(st.Z), nq, nq, nz))
	}
	before := r.stats
	fail := func(err error) (Outcome, error) {
		if se, ok := err.(*StepError); ok && se.Step == 0 {
			se.Step = r.stats.Steps + 1
		}
		r.stats.Rejected++
		return Outcome{Status: TerminationOf(err), Work: r.stats.Sub(before), T: st.T}, err
	}
	clk := Clock{Base: st.T}
	if e := h.Latest; e != nil {
		if err := r.checkHistory(st, e); err != nil {
			return Outcome{Status: StateMismatch, T: st.T}, err
		}
		copy(r.a0, e.A)
		copy(r.g0, e.ZDot)
		if e.Clock.Now() == st.T {
			clk = e.Clock
		}
	} else if err := r.core.physical(st.T, st.Q, st.V, st.Z, r.a0, r.g0); err != nil {
		return fail(err)
	}
	nc := clk.next(dt)
	t1 := nc.Now()
	if err := r.core.step(st.T, t1, dt, st.Q, st.V, st.Z, r.a0, r.g0); err != nil {
		return fail(err)
	}
	r.stats.Steps++
	c := r.core
	e := &MemoryEntry{
		State:  State{T: t1, Q: cloneF(c.q1), V: cloneF(c.v1), Z: cloneF(c.z1)},
		Clock:  nc,
		A:      cloneF(c.a1),
		ZDot:   cloneF(c.g1),
		Method: r.m.Name, AlphaParams: r.m.Alpha,
		NQ: nq, NZ: nz, IDs: slices.Clone(r.ids),
	}
	return Outcome{Status: Success, Work: r.stats.Sub(before), T: t1, Memory: Memory{Latest: e}}, nil
}
