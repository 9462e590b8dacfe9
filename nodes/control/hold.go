package control

import (
	"errors"
	"fmt"

	"github.com/cosimgo/cosim/node"
)

// ZOHName and UnitDelayName are the registry names of the zero-order
// hold and the unit delay.
const (
	ZOHName       = "zoh"
	UnitDelayName = "unitdelay"
)

// ZOHType registers the zero-order hold block: a new value at each call.
func ZOHType() node.Type {
	return node.Type{Name: ZOHName, New: func(m map[string]any) (node.Node, error) { return asNode(newHold(ZOHName, m)) }}
}

// UnitDelayType registers the unit delay block: a new value at each call.
func UnitDelayType() node.Type {
	return node.Type{Name: UnitDelayName, New: func(m map[string]any) (node.Node, error) { return asNode(newHold(UnitDelayName, m)) }}
}

// ErrStepTooLong is the cause of a sampled block's error when a
// co-simulation step is longer than what the block can represent (its
// sample period, or a transport delay).
var ErrStepTooLong = errors.New("step too long for the block")

// HoldParams are the parameters of a zero-order hold or a unit delay.
type HoldParams struct {
	// SampleTime is the sample period T_s in s, > 0. Default 0.1.
	SampleTime float64
	// Offset is the time of the first sample in s, ≥ 0. Default 0.
	Offset float64
	// Initial is the output before the first sample (zero-order hold) or
	// before the second (unit delay): one value for every component or
	// one per component. Default [0].
	Initial []float64
	// Size is the number of components. Default 1.
	Size int
	// Units of the input and the output. Default "1".
	Units string
}

func (p HoldParams) values() node.Values {
	ts := p.SampleTime
	if ts == 0 {
		ts = 0.1
	}
	return node.Values{"sample_time": ts, "offset": p.Offset, "initial": orDefault(p.Initial, 0), "size": orSize(p.Size), "units": orUnits(p.Units)}
}

var (
	zohParams = []node.Param{
		sampleTimeParam, offsetParam,
		perComponent("initial", 0, node.Finite(), "units", "Output before the first sample"),
		sizeParam,
		unitsParam("units", "Units of the input and the output"),
	}
	unitDelayParams = []node.Param{
		sampleTimeParam, offsetParam,
		perComponent("initial", 0, node.Finite(), "units", "Output until the second sample (the sample before the first)"),
		sizeParam,
		unitsParam("units", "Units of the input and the output"),
	}
)

// Sampler is a sampled block: a zero-order hold (y = u(t_k) on
// [t_k, t_{k+1})) or a unit delay (y = u(t_{k−1}) on [t_k, t_{k+1})).
// The zero-order hold has feedthrough (its output at a sample instant is
// the input there); the unit delay has none.
type Sampler struct {
	block
	delay bool
	g     grid
	// p is the parameter row: period, offset, then the initial output
	// (n values).
	p []float64
}

// ZOH and UnitDelay are the two kinds of Sampler, by name.
type (
	ZOH       = Sampler
	UnitDelay = Sampler
)

// Hold is the former name of Sampler. It collided with coupling.Hold (a
// subcycling node's view of slower nodes), the only Hold of the public
// vocabulary.
//
// Deprecated: use Sampler, or ZOH and UnitDelay.
type Hold = Sampler

var (
	_ node.Deriver     = (*Sampler)(nil)
	_ node.Outputter   = (*Sampler)(nil)
	_ node.Eventer     = (*Sampler)(nil)
	_ node.TimeEventer = (*Sampler)(nil)
	_ node.Tunable     = (*Sampler)(nil)
)

// NewZOH builds a zero-order hold from typed parameters.
func NewZOH(p HoldParams) (*Sampler, error) { return newHold(ZOHName, p.values()) }

// NewUnitDelay builds a unit delay from typed parameters.
func NewUnitDelay(p HoldParams) (*Sampler, error) { return newHold(UnitDelayName, p.values()) }

func newHold(typ string, given map[string]any) (*Sampler, error) {
	params := zohParams
	if typ == UnitDelayName {
		params = unitDelayParams
	}
	vals, err := node.Resolve(typ, params, nil, given)
	if err != nil {
		return nil, err
	}
	n := vals.Int("size")
	if err := checkHold(typ, vals, n); err != nil {
		return nil, err
	}
	h := &Sampler{block: block{typ: typ, params: params, fixed: []string{"size", "units"}, n: n}, delay: typ == UnitDelayName}
	h.set(vals)
	sh, units := shapeOf(n), vals.String("units")
	state := []node.Field{{Name: "held", Shape: sh, Units: units, Description: "The value held since the last sample (the output between samples)"}}
	meta, outDesc := zohMeta(), "The input at the last sample instant $u(t_k)$, $t_k \\le t$"
	if h.delay {
		state = append(state, node.Field{Name: "stored", Shape: sh, Units: units, Description: "The input at the last sample, output from the next one"})
		meta, outDesc = unitDelayMeta(), "The input one sample earlier, $u(t_{k-1})$"
	}
	state = append(state, node.Field{Name: "sample", Shape: node.Scalar, Units: "1", Description: "Index $k$ of the last sample taken ($-1$: none yet)"})
	h.spec = node.NewSpec(node.Spec{
		Type:        typ,
		Package:     pkgPath,
		Params:      params,
		State:       state,
		Inputs:      []node.Input{{Name: "in", Shape: sh, Units: units, Combine: node.Additive, Description: "The input $u$ (edges into it are summed)"}},
		Outputs:     []node.Field{{Name: "out", Shape: sh, Units: units, Description: outDesc}},
		Events:      []node.Event{sampleEvent},
		Feedthrough: !h.delay,
		Meta:        meta,
	})
	return h, nil
}

func checkHold(typ string, vals node.Values, n int) error {
	if err := checkPerComponent(typ, vals, n, "initial"); err != nil {
		return err
	}
	return checkUnits(typ, vals, "units")
}

func (h *Sampler) set(vals node.Values) {
	h.vals = vals
	h.g = grid{period: vals.Float("sample_time"), offset: vals.Float("offset")}
	h.p = append(h.p[:0], h.g.period, h.g.offset)
	init := vals.Floats("initial")
	for i := range h.n {
		h.p = append(h.p, comp(init, i))
	}
}

// index returns the state's sample-index slot.
func (h *Sampler) index(x []float64) float64 {
	if h.delay {
		return x[2*h.n]
	}
	return x[h.n]
}

// holdSample takes the samples due at t into dst: the arithmetic of
// Update and of the sample event's reset. A zero-order hold holds u; a
// unit delay outputs its stored sample and stores u. It returns the
// number of samples skipped: nonzero when more than one sample fell due
// since the last one taken (a unit delay then outputs its last stored
// sample), which only a monolithic run can cause (Update refuses a step
// longer than the period).
func holdSample(g grid, delay bool, n int, t float64, x, u, dst []float64) float64 {
	copy(dst, x)
	m := x[len(x)-1]
	j := g.index(t)
	if j <= m {
		return 0
	}
	if delay {
		copy(dst[:n], x[n:2*n])
		copy(dst[n:2*n], u[:n])
	} else {
		copy(dst[:n], u[:n])
	}
	dst[len(dst)-1] = j
	if m < 0 {
		return 0 // the first sample: the ones before the run are not samples of it
	}
	return j - m - 1
}

// InitialState writes the initial output and "no sample yet".
func (h *Sampler) InitialState(dst []float64) {
	n := h.n
	copy(dst[:n], h.p[2:2+n])
	if h.delay {
		copy(dst[n:2*n], h.p[2:2+n])
	}
	dst[h.spec.StateLayout.Size()-1] = -1
}

// Update takes the sample due at t, if any: in co-simulation a sample is
// taken by the first step at or after its instant. A step longer than
// the sample period is an error wrapping ErrStepTooLong (samples would
// be lost).
func (h *Sampler) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	if err := checkDt(h.typ, dt); err != nil {
		return err
	}
	if dt > h.g.period*(1+64*eps) {
		return fmt.Errorf("%s: step dt = %s s is longer than the sample period %s s, so samples between steps would be lost: %w",
			h.typ, node.FormatValue(dt), node.FormatValue(h.g.period), ErrStepTooLong)
	}
	if err := h.g.checkIndex(h.typ, t); err != nil {
		return err
	}
	holdSample(h.g, h.delay, h.n, t, x, in.Values, dst[:len(x)])
	return nil
}

// Derivatives writes zeros: the state changes only at samples.
func (h *Sampler) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	clear(dst[:len(x)])
	return nil
}

// Outputs writes the held value into dst, or, at a sample instant whose
// sample is not yet taken (a co-simulation step's start on the instant,
// to rounding), the value the sample gives: the input (zero-order hold)
// or the stored sample (unit delay). A sample overdue by more than
// rounding (a co-simulation step that does not divide the period, or a
// monolithic run that has not taken it yet) shows from the step after
// the one that takes it; until then the output holds.
func (h *Sampler) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	n := h.n
	src := x[:n]
	if j := h.g.index(t); j > h.index(x) && t-h.g.at(j) <= near(h.g.at(j)) {
		if h.delay {
			src = x[n : 2*n]
		} else {
			src = in.Values[:n]
		}
	}
	copy(dst[:n], src)
	return nil
}

// EventValues writes the sample event's value (see grid.event).
func (h *Sampler) EventValues(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = h.g.event(t, h.index(x))
	return nil
}

// Reset takes the sample due at t. A sample skipped since the last one
// taken (the run's integrator stepped over its instant; see the package
// documentation) is an error wrapping ErrSampleSkipped, naming it.
func (h *Sampler) Reset(event int, t float64, x []float64, in node.Inputs, dst []float64) error {
	if skipped := holdSample(h.g, h.delay, h.n, t, x, in.Values, dst[:len(x)]); skipped > 0 {
		k := x[len(x)-1] + 1
		return &node.FieldError{Field: "sample", Err: fmt.Errorf("%s: sample %s at t = %s s was not taken (taking sample %s at t = %s): "+
			"the run's integrator stepped over that instant, a time event of the graph's System (the integrators stop on every one); "+
			"integrate the graph's System itself, or use co-simulation: %w",
			h.typ, node.FormatValue(k), node.FormatValue(h.g.nominal(k)), node.FormatValue(k+skipped), node.FormatValue(t), ErrSampleSkipped)}
	}
	return nil
}

// TimeEvents reports the sample instants.
func (h *Sampler) TimeEvents(t float64) (int, float64, float64) { return h.g.timeEvents(t) }

// SetParams overrides parameters (all or nothing); the size and units
// cannot change.
func (h *Sampler) SetParams(p map[string]any) error {
	vals, err := h.resolve(p)
	if err != nil {
		return err
	}
	if err := checkHold(h.typ, vals, h.n); err != nil {
		return err
	}
	h.set(vals)
	return nil
}

// sampledStable is the stable-step statement of the sampled blocks.
var sampledStable = &node.StableStep{Unconditional: true,
	Notes: "The block has no dynamics of its own: it copies values at sample instants. A co-simulation step longer than the sample period is refused (ErrStepTooLong), not unstable."}

// sampledDiscretization is the discretization note of the sampled blocks.
const sampledDiscretization = "Between samples the state is constant (Derivatives are zero) and Update leaves it unchanged, which is the exact solution " +
	"(the conformance checker's `exact-hold`); at a sample instant Update applies the same map as the `sample` event's reset. Samples are exact " +
	"(the input's value at the instant, to rounding) when the co-simulation step divides the sample period, and in monolithic runs, where the event " +
	"fires on the instant"

func zohMeta() node.Metadata {
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-514",
		Version:     "1.1.0",
		Stability:   node.Stable,
		Summary:     "A zero-order hold (sample and hold): the input sampled every T_s seconds and held in between, with the sample instants declared as time events.",
		Equations:   []string{`y(t) = u(t_k), \qquad t_k \le t < t_{k+1}, \qquad t_k = t_0 + k\,T_s`},
		EquationNotes: "$u$ is the input `in`, $y$ the output `out`, $T_s$ `sample_time`, $t_0$ `offset`; before the first sample $y$ is `initial`. " +
			"The output is right-continuous: at $t_k$ it is already $u(t_k)$, so it reads the input at that instant (feedthrough).",
		Discretization:      "exact-hold",
		DiscretizationNotes: sampledDiscretization + ".",
		Order:               node.Order{Temporal: 1, Note: "Samples are exact when the step divides the period (and in monolithic runs); otherwise a sample is taken up to one co-simulation step late."},
		Assumptions:         []string{sampleNote, startNote},
		Limitations: []string{
			"A co-simulation step longer than the sample period is an error (ErrStepTooLong)",
			"The output reads the input at sample instants (feedthrough): a feedthrough path from its output back to its input is an algebraic loop",
		},
		StabilityConditions: []string{"No dynamics of its own."},
		StableStep:          sampledStable,
		Mapping: []node.Mapping{
			{Term: `y(t) = u(t_k)`, Identifier: pkgPath + ".Sampler.Outputs"},
			{Term: "sampling at $t_k$", Identifier: pkgPath + ".holdSample", Notes: "shared by Update and the event's reset"},
			{Term: `t_k`, Identifier: pkgPath + ".grid.at", Notes: "time events and the sample event"},
			{Term: "sample event", Identifier: pkgPath + ".grid.event"},
		},
		References: []node.Reference{refFranklin, refSimulink, refDrake},
		Anomalies:  []string{"COSIM-ANO-005"},
		Evidence:   []string{"COSIM-VER-506"},
		Changelog:  []node.Change{{Version: "1.0.0", Date: changeDate, Change: "Initial implementation"}, sampledChange},
	}
}

func unitDelayMeta() node.Metadata {
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-515",
		Version:     "1.1.0",
		Stability:   node.Stable,
		Summary:     "A unit delay z⁻¹: the input sampled every T_s seconds, output one sample later and held in between; sample instants are time events.",
		Equations:   []string{`y(t) = u(t_{k-1}), \qquad t_k \le t < t_{k+1}, \qquad t_k = t_0 + k\,T_s`},
		EquationNotes: "$u$ is the input `in`, $y$ the output `out`, $T_s$ `sample_time`, $t_0$ `offset`; $u(t_{-1})$ is `initial`. The output never reads " +
			"the input at the same instant (no feedthrough), so a unit delay breaks an algebraic loop as a discrete controller's memory does.",
		Discretization:      "exact-hold",
		DiscretizationNotes: sampledDiscretization + ".",
		Order:               node.Order{Temporal: 1, Note: "Samples are exact when the step divides the period (and in monolithic runs); otherwise a sample is taken up to one co-simulation step late."},
		Assumptions:         []string{sampleNote, startNote},
		Limitations: []string{
			"A co-simulation step longer than the sample period is an error (ErrStepTooLong)",
		},
		StabilityConditions: []string{"No dynamics of its own."},
		StableStep:          sampledStable,
		Mapping: []node.Mapping{
			{Term: `y(t) = u(t_{k-1})`, Identifier: pkgPath + ".Sampler.Outputs"},
			{Term: "sampling at $t_k$", Identifier: pkgPath + ".holdSample", Notes: "shared by Update and the event's reset"},
			{Term: `t_k`, Identifier: pkgPath + ".grid.at", Notes: "time events and the sample event"},
		},
		References: []node.Reference{refFranklin, refSimulink},
		Anomalies:  []string{"COSIM-ANO-005"},
		Evidence:   []string{"COSIM-VER-506"},
		Changelog:  []node.Change{{Version: "1.0.0", Date: changeDate, Change: "Initial implementation"}, sampledChange},
	}
}
