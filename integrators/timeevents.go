package integrators

// TimeEventSystem is an optional capability of a System whose right-hand
// side is not smooth at times known in advance: a step or pulse in a
// source, a table's breakpoints. NextTimeEvent returns the first such
// time strictly after t, or +Inf when there is none; it must be a pure
// function of t that does not allocate.
//
// The adaptive drivers (Dormand–Prince's Adaptive with
// DormandPrince.FixedStep zero, ESDIRK's and BDF's) never step across a
// time event: a step that would reach it ends exactly on it, with its
// last stages (BDF: its corrector) evaluated at the largest float below
// it (the left limit, so that neither the error estimate nor the dense
// output sees the jump), and the next step starts from a fresh
// evaluation of f there (the right limit; BDF restarts its history at
// order 1). State events (EventSystem) are located as before within
// each step. Fixed-step methods and the fixed-step mode of Adaptive do
// not look at time events: they sample f at their own stage times.
type TimeEventSystem interface {
	NextTimeEvent(t float64) float64
}
