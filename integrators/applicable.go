package integrators

import (
	"errors"
	"fmt"
)

// ErrNotApplicable is wrapped by the error of a driver given an option
// that does not apply to it: DriverOptions.Output or MaxSteps for a
// fixed-step stepper (NewStepper, NewSecondOrder), or a DormandPrince
// controller field for the fixed-step Dormand–Prince stepper. Setting it
// is a mistake (a tolerance believed to be in force that is not), never
// silently ignored. Options of the other methods cannot be given to a
// method at all: each method's type carries only its own.
var ErrNotApplicable = errors.New("integrators: option does not apply")

// checkFixedStep returns an error wrapping ErrNotApplicable naming the
// first field of o that a fixed-step stepper of method who does not use.
func checkFixedStep(o *DriverOptions, who string) error {
	if o == nil {
		return nil
	}
	field := ""
	switch {
	case o.Output != nil:
		field = "Output"
	case o.MaxSteps != 0:
		field = "MaxSteps"
	default:
		return nil
	}
	return fmt.Errorf("%w: a fixed-step %s stepper does not use DriverOptions.%s (it is an option of the adaptive drivers: NewAdaptive, AdaptiveMethod.NewDriver, Integrate); leave it zero",
		ErrNotApplicable, who, field)
}
