package source

import (
	"github.com/cosimgo/cosim/node"
)

// StepName is the registry name of the step source.
const StepName = "step"

// StepType is the step source type, for a node.Registry.
func StepType() node.Type { return node.Type{Name: StepName, New: StepFromMap} }

// StepParams are the step source's parameters. Initial and Final have one
// value per output component, or one value for all (nil: the default).
type StepParams struct {
	// Time T of the step in s. Default 1.
	Time float64
	// Initial value y₀ before T. Default [0].
	Initial []float64
	// Final value y₁ from T on. Default [1].
	Final []float64
	// Units of the output. Default "1".
	Units string
}

// DefaultStepParams returns a unit step at t = 1 s.
func DefaultStepParams() StepParams { return StepParams{Time: 1} }

func (p StepParams) values() node.Values {
	return node.Values{"time": p.Time, "initial": orDefault(p.Initial, 0), "final": orDefault(p.Final, 1), "units": orUnits(p.Units)}
}

var stepParams = []node.Param{
	{Name: "time", Kind: node.Real, Default: 1.0, Units: "s", Description: "Step time $T$: the output is $y_1$ from $T$ on (a time event)"},
	perComponent("initial", 0, "", "Value $y_0$ before $T$, in the output units"),
	perComponent("final", 1, "", "Value $y_1$ from $T$ on, in the output units"),
	unitsParam,
}

var stepVectors = []string{"initial", "final"}

// Step is a stateless source that jumps from y₀ to y₁ at time T
// (right-continuous: y(T) = y₁). T is a time event (node.TimeEventer).
type Step struct {
	base
	// rowParams is T, then y₀ (n values), then y₁ (n values)
	// (stepRow).
	rowParams
}

var (
	_ node.Outputter   = (*Step)(nil)
	_ node.Tunable     = (*Step)(nil)
	_ node.TimeEventer = (*Step)(nil)
)

// NewStep builds a step source from typed parameters.
func NewStep(p StepParams) (*Step, error) {
	vals, err := node.Resolve(StepName, stepParams, nil, p.values())
	if err != nil {
		return nil, err
	}
	return buildStep(vals)
}

// StepFromMap builds a step source from a name→value map (nil: defaults).
func StepFromMap(m map[string]any) (node.Node, error) {
	vals, err := node.Resolve(StepName, stepParams, nil, m)
	if err != nil {
		return nil, err
	}
	return buildStep(vals)
}

func buildStep(vals node.Values) (*Step, error) {
	if err := checkUnits(StepName, vals); err != nil {
		return nil, err
	}
	n, err := size(StepName, vals, stepVectors...)
	if err != nil {
		return nil, err
	}
	s := &Step{base: base{n: n}}
	s.set(vals)
	s.spec = newSpec(StepName, stepParams, vals.String("units"), n, "The step: $y_0$ before $T$, $y_1$ from $T$ on", stepMeta())
	return s, nil
}

func (s *Step) set(vals node.Values) {
	s.vals = vals
	y0, y1 := vals.Floats("initial"), vals.Floats("final")
	p := make([]float64, 1+2*s.n)
	p[0] = vals.Float("time")
	for i := range s.n {
		p[1+i], p[1+s.n+i] = comp(y0, i), comp(y1, i)
	}
	s.row.Set(p)
}

// stepRow writes y₀ before T and y₁ from T on into dst, from a parameter
// row p (see Step): the arithmetic of Outputs and of the batch kernel.
func stepRow(t float64, p, dst []float64) {
	n := len(dst)
	v := p[1 : 1+n]
	if t >= p[0] {
		v = p[1+n : 1+2*n]
	}
	copy(dst, v)
}

// Outputs writes y₀ before T and y₁ from T on into dst.
func (s *Step) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	stepRow(t, s.params(), dst[:s.n])
	return nil
}

// TimeEvents reports the step time T as the source's one time event.
func (s *Step) TimeEvents(t float64) (int, float64, float64) { return oneEvent(t, s.params()[0]) }

// SetParams overrides parameters (all or nothing); the output size and
// units cannot change.
func (s *Step) SetParams(p map[string]any) error {
	vals, err := node.Resolve(StepName, stepParams, s.vals, p)
	if err != nil {
		return err
	}
	if _, err := size(StepName, vals, stepVectors...); err != nil {
		return err
	}
	if err := s.fixed(StepName, vals, stepVectors...); err != nil {
		return err
	}
	s.set(vals)
	return nil
}

// timeEventNote is the assumption every source with time events states.
const timeEventNote = "Its discontinuities are declared as time events (node.TimeEventer): in monolithic mode the adaptive Dormand–Prince integrator (graph.Sim.Integrate) ends a step exactly on each and restarts from the far side; fixed-step methods and co-simulation sample the output at their step times and do not see them"

func stepMeta() node.Metadata {
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-104",
		Version:     "1.0.0",
		Stability:   node.Stable,
		Summary:     "A step source of any vector size: y₀ before the step time, y₁ from it on, with the step declared as a time event.",
		Equations:   []string{`y_i(t) = \begin{cases} y_{0,i} & t < T \\ y_{1,i} & t \ge T \end{cases}`},
		EquationNotes: "$T$ is `time`, $y_{0,i}$ `initial` and $y_{1,i}$ `final` per output component $i$ (one value applies to every component). " +
			"The output is right-continuous: at $t = T$ it is already $y_1$.",
		Order: node.Order{Note: "Exact: evaluated in closed form at the time it is asked for."},
		Assumptions: []string{
			"Stateless: the output depends on time only",
			timeEventNote,
		},
		Limitations: []string{
			"An ideal (zero rise time) step: a smooth ramp-up is a ramp, a pulse or a lookup table",
			"In co-simulation the step is seen from the first macro step whose start time is at or after $T$",
			"At most 64 components",
		},
		Mapping: []node.Mapping{
			{Term: `y_i(t)`, Identifier: pkgPath + ".Step.Outputs"},
			{Term: `T \text{ (time event)}`, Identifier: pkgPath + ".Step.TimeEvents"},
		},
		References: []node.Reference{
			{Key: "Simulink", Text: "MathWorks Simulink, Step block: step time, initial value, final value.", Note: "Same parametrization."},
			{Key: "Hairer1993", Text: "Hairer, E., Nørsett, S. P. and Wanner, G. (1993). Solving Ordinary Differential Equations I, 2nd ed. Springer. Section II.6 (dense output, discontinuities).", Note: "Why an integrator should stop on a discontinuity rather than step over it."},
		},
		Anomalies: []string{},
		Evidence:  []string{"COSIM-VER-103"},
		Changelog: []node.Change{{Version: "1.0.0", Date: changeDate, Change: "Initial implementation"}},
	}
}
