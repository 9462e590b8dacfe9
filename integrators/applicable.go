package integrators

import (
	"errors"
	"fmt"
)

// ErrNotApplicable is wrapped by the error of Method.New, NewAdaptive and
// Integrate for a Settings field the method does not use: setting it is
// a mistake (a tolerance believed to be in force that is not), never
// silently ignored.
var ErrNotApplicable = errors.New("integrators: setting does not apply")

// Groups of Settings fields by the methods that use them.
const (
	useEvents   = 1 << iota // EventTol, ZenoLimit, ZenoSpacing: every method
	useAdaptive             // the Dormand–Prince driver (NewAdaptive, Integrate)
	useNewton               // Newton and linear solver: implicit and structural
)

// setField is one non-zero Settings field and the group that uses it.
type setField struct {
	name  string
	group int
}

// setFields lists the non-zero fields of s.
func setFields(s *Settings) []setField {
	if s == nil {
		return nil
	}
	var out []setField
	add := func(set bool, name string, g int) {
		if set {
			out = append(out, setField{name, g})
		}
	}
	add(s.RTol != 0, "RTol", useAdaptive)
	add(s.ATol != 0, "ATol", useAdaptive)
	add(s.InitialStep != 0, "InitialStep", useAdaptive)
	add(s.MinStep != 0, "MinStep", useAdaptive)
	add(s.MaxStep != 0, "MaxStep", useAdaptive)
	add(s.MaxSteps != 0, "MaxSteps", useAdaptive)
	add(s.FixedStep != 0, "FixedStep", useAdaptive)
	add(s.Output != nil, "Output", useAdaptive)
	add(s.EventTol != 0, "EventTol", useEvents)
	add(s.ZenoLimit != 0, "ZenoLimit", useEvents)
	add(s.ZenoSpacing != 0, "ZenoSpacing", useEvents)
	add(s.NewtonTol != 0, "NewtonTol", useNewton)
	add(s.NewtonMaxIter != 0, "NewtonMaxIter", useNewton)
	add(s.LinearSolver != 0, "LinearSolver", useNewton)
	add(s.Preconditioner != 0, "Preconditioner", useNewton)
	add(s.KrylovTol != 0, "KrylovTol", useNewton)
	add(s.KrylovRestart != 0, "KrylovRestart", useNewton)
	add(s.KrylovMaxIter != 0, "KrylovMaxIter", useNewton)
	add(s.Forcing != 0, "Forcing", useNewton)
	add(s.MatrixFree, "MatrixFree", useNewton)
	add(s.JacobianMaxAge != 0, "JacobianMaxAge", useNewton)
	// Positions, Velocities and IDs describe the system (its
	// position/velocity pairs, the layout of its state), not an option of
	// a method: they are true whichever method runs, so every method
	// accepts them.
	return out
}

// uses returns the groups of Settings fields that m's fixed-step Stepper
// (Method.New) uses.
func (m Method) uses() int {
	switch m.Kind {
	case UserDefined:
		// A caller's scheme reads the Newton settings only if it says
		// so; the adaptive driver's it cannot.
		if n, ok := m.scheme.(NewtonScheme); ok && n.UsesNewton() {
			return useEvents | useNewton
		}
		return useEvents
	case Explicit:
		return useEvents
	default: // Implicit, Structural
		return useEvents | useNewton
	}
}

// adaptiveUses is what NewAdaptive and Integrate use.
const adaptiveUses = useEvents | useAdaptive

// checkApplicable returns an error wrapping ErrNotApplicable naming the
// first field of s that who (a method name and driver) does not use.
func checkApplicable(s *Settings, uses int, who string) error {
	for _, f := range setFields(s) {
		if f.group&uses != 0 {
			continue
		}
		why := ""
		switch f.group {
		case useAdaptive:
			why = "it is a setting of the adaptive Dormand–Prince driver (NewAdaptive, Integrate)"
		case useNewton:
			why = "it is a setting of the Newton iteration of the implicit and structural methods"
		}
		return fmt.Errorf("%w: %s does not use Settings.%s (%s); leave it zero", ErrNotApplicable, who, f.name, why)
	}
	return nil
}

// NewtonScheme is an optional capability of a Scheme: an implicit
// method of the caller's that reads the Newton and linear-solver
// Settings (NewtonTol through JacobianMaxAge) says so with UsesNewton
// returning true. For any other Scheme those settings are an error
// wrapping ErrNotApplicable, as for the built-in explicit methods.
type NewtonScheme interface {
	Scheme
	UsesNewton() bool
}
