package integrators

// TimeEventSystem is an optional capability of a System whose right-hand
// side is not smooth at times known in advance: a step or pulse in a
// source, a table's breakpoints. NextTimeEvent returns the first such
// time strictly after t, or +Inf when there is none; it must be a pure
// function of t that does not allocate.
//
// Every driver ends a step exactly on each time event: a step of an
// adaptive driver (Dormand–Prince, also in its fixed-step mode, ESDIRK,
// BDF) that would reach one ends on it, and a fixed-step method's Step
// (NewStepper) ends a sub-step on each inside the caller's step; the
// stages of the step that ends on a time event are evaluated at times
// below it (the last at the largest float below it: the left limit, so
// that neither the error estimate nor the dense output sees the jump),
// and the next step starts from a fresh evaluation of f there (the right
// limit; BDF restarts its history at order 1). State events
// (EventSystem) are evaluated there as at any step end (see "Events" in
// the package documentation).
type TimeEventSystem interface {
	NextTimeEvent(t float64) float64
}
