package control

import (
	"fmt"

	"github.com/cosimgo/cosim/node"
)

// TransportDelayName is the registry name of the transport delay.
const TransportDelayName = "transportdelay"

// TransportDelayType registers the transport delay.
var TransportDelayType = node.Type{Name: TransportDelayName, New: func(m map[string]any) (node.Node, error) { return asNode(newTransportDelay(m)) }}

// MaxDelaySamples is the largest number of samples a transport delay
// keeps per delay.
const MaxDelaySamples = 10000

// TransportDelayParams are the transport delay's parameters.
type TransportDelayParams struct {
	// Delay T in s, > 0. Default 1.
	Delay float64
	// Samples N per delay: the history is sampled every T/N. Default 100.
	Samples int
	// Initial is the input's history before the run (one value for every
	// component or one per component). Default [0].
	Initial []float64
	// Size is the number of components. Default 1.
	Size int
	// Units of the input and the output. Default "1".
	Units string
}

func (p TransportDelayParams) values() node.Values {
	d, s := p.Delay, p.Samples
	if d == 0 {
		d = 1
	}
	if s == 0 {
		s = 100
	}
	return node.Values{"delay": d, "samples": s, "initial": orDefault(p.Initial, 0), "size": orSize(p.Size), "units": orUnits(p.Units)}
}

var transportDelayParams = []node.Param{
	{Name: "delay", Kind: node.Real, Default: 1.0, Units: "s", Range: node.Positive(), Description: "The delay $T$"},
	{Name: "samples", Kind: node.Integer, Default: 100, Units: "1", Range: node.Between(1, MaxDelaySamples),
		Description: "Number $N$ of history samples per delay: the input is sampled every $h = T/N$ (time events) and interpolated linearly; the error is at most $h^2/8$ times the input's largest second derivative. Fixed after construction (it sizes the state)"},
	perComponent("initial", 0, node.Finite(), "units", "The input's value before the run: the output until $T$ after the start"),
	sizeParam,
	unitsParam("units", "Units of the input and the output"),
}

// TransportDelay delays its input by T: y(t) = u(t − T), from a history
// of the input sampled every h = T/N (kept in the state, a ring of N + 3
// samples) and interpolated linearly. It has no feedthrough.
type TransportDelay struct {
	block
	g   grid
	cap int // ring length, N + 3
	ns  int // N
	// p is the parameter row: T, then the initial history (n values).
	p []float64
}

var (
	_ node.Deriver     = (*TransportDelay)(nil)
	_ node.Outputter   = (*TransportDelay)(nil)
	_ node.Eventer     = (*TransportDelay)(nil)
	_ node.TimeEventer = (*TransportDelay)(nil)
	_ node.Tunable     = (*TransportDelay)(nil)
)

// NewTransportDelay builds a transport delay from typed parameters.
func NewTransportDelay(p TransportDelayParams) (*TransportDelay, error) {
	return newTransportDelay(p.values())
}

func newTransportDelay(given map[string]any) (*TransportDelay, error) {
	vals, err := node.Resolve(TransportDelayName, transportDelayParams, nil, given)
	if err != nil {
		return nil, err
	}
	n := vals.Int("size")
	if err := checkTransportDelay(vals, n); err != nil {
		return nil, err
	}
	d := &TransportDelay{block: block{typ: TransportDelayName, params: transportDelayParams, fixed: []string{"samples", "size", "units"}, n: n}, ns: vals.Int("samples")}
	d.cap = d.ns + 3
	d.set(vals)
	sh, units := shapeOf(n), vals.String("units")
	d.spec = node.NewSpec(node.Spec{
		Type:    TransportDelayName,
		Package: pkgPath,
		Params:  transportDelayParams,
		State: []node.Field{
			{Name: "history", Shape: node.Vec(d.cap * n), Units: units, Description: "Ring of the last N + 3 samples of the input: sample $k$ in slot $k \\bmod (N+3)$, $n$ values each"},
			{Name: "first", Shape: node.Scalar, Units: "1", Description: "Index of the first sample taken ($-1$: none yet); the history before it is `initial`"},
			{Name: "sample", Shape: node.Scalar, Units: "1", Description: "Index of the newest sample taken ($-1$: none yet)"},
		},
		Inputs:  []node.Input{{Name: "in", Shape: sh, Units: units, Combine: node.Additive, Description: "The input $u$ (edges into it are summed)"}},
		Outputs: []node.Field{{Name: "out", Shape: sh, Units: units, Description: "The delayed input $u(t - T)$, interpolated linearly between history samples"}},
		Events:  []node.Event{sampleEvent},
		Meta:    transportDelayMeta(),
	})
	return d, nil
}

func checkTransportDelay(vals node.Values, n int) error {
	if err := checkPerComponent(TransportDelayName, vals, n, "initial"); err != nil {
		return err
	}
	return checkUnits(TransportDelayName, vals, "units")
}

func (d *TransportDelay) set(vals node.Values) {
	d.vals = vals
	t := vals.Float("delay")
	d.g = grid{period: t / float64(d.ns)}
	d.p = append(d.p[:0], t)
	init := vals.Floats("initial")
	for i := range d.n {
		d.p = append(d.p, comp(init, i))
	}
}

// history is a transport delay's state seen as a ring of samples.
type history struct {
	x        []float64
	n, cap   int
	initial  []float64
	first, m float64
}

func (d *TransportDelay) ring(x []float64) history {
	l := len(x)
	return history{x: x, n: d.n, cap: d.cap, initial: d.p[1 : 1+d.n], first: x[l-2], m: x[l-1]}
}

// slot returns sample k's n values (k within the ring).
func (h history) slot(k float64) []float64 {
	s := int(k) % h.cap
	return h.x[s*h.n : (s+1)*h.n]
}

// value returns sample k: the initial history before the first sample,
// the newest sample beyond it.
func (h history) value(k float64) []float64 {
	switch {
	case h.m < 0 || k < h.first:
		return h.initial
	case k > h.m:
		return h.slot(h.m)
	}
	return h.slot(k)
}

// delayOutput writes u(t − T) into dst: the samples j − N and j − N + 1
// around t − T (j the sample at or before t), interpolated at the
// position t has between samples j and j + 1 (T is exactly N periods,
// so the delayed instant keeps it). It returns false when the history no
// longer holds the samples needed (a state the block did not write).
func delayOutput(g grid, ns int, h history, t float64, dst []float64) bool {
	j := g.index(t)
	if j < 0 {
		copy(dst, h.initial)
		return true
	}
	k := j - float64(ns)
	if h.m >= 0 && k >= h.first && k < h.m-float64(h.cap)+1 {
		return false
	}
	a, b := h.value(k), h.value(k+1)
	if k < h.first {
		// The input's history before the run is constant; it jumps to the
		// first sample at its instant, T later here (a time event).
		b = a
	}
	t0, t1 := g.at(j), g.at(j+1)
	w := (t - t0) / (t1 - t0)
	for i := range dst {
		dst[i] = a[i] + w*(b[i]-a[i])
	}
	return true
}

// delaySample takes the samples due at t into dst (a copy of x): the
// arithmetic of Update and of the sample event's reset. The first sample
// is the input; when several are due at once (a co-simulation step longer
// than T/N) each is interpolated linearly between the newest stored
// sample and the input at t.
func delaySample(g grid, ns int, h history, t float64, u, dst []float64) {
	copy(dst, h.x)
	j := g.index(t)
	if j <= h.m {
		return
	}
	l := len(dst)
	out := history{x: dst, n: h.n, cap: h.cap}
	if h.m < 0 {
		copy(out.slot(j), u)
		dst[l-2], dst[l-1] = j, j
		return
	}
	prev := h.slot(h.m)
	tm := g.at(h.m)
	for k := max(h.m+1, j-float64(h.cap)+1); k <= j; k++ {
		w := (g.at(k) - tm) / (t - tm)
		s := out.slot(k)
		for i := range s {
			s[i] = prev[i] + w*(u[i]-prev[i])
		}
	}
	dst[l-1] = j
}

// InitialState writes an empty history: no sample yet.
func (d *TransportDelay) InitialState(dst []float64) {
	l := d.spec.StateLayout.Size()
	clear(dst[:l-2])
	dst[l-2], dst[l-1] = -1, -1
}

// Update takes the samples due at t. A step longer than the delay is an
// error wrapping ErrStepTooLong: the output would need the input after
// the step's start.
func (d *TransportDelay) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	if err := checkDt(TransportDelayName, dt); err != nil {
		return err
	}
	if dt > d.p[0] {
		return fmt.Errorf("%s: step dt = %s s is longer than the delay %s s: the output would need the input after the step's start: %w",
			TransportDelayName, node.FormatValue(dt), node.FormatValue(d.p[0]), ErrStepTooLong)
	}
	if err := d.g.checkIndex(TransportDelayName, t); err != nil {
		return err
	}
	delaySample(d.g, d.ns, d.ring(x), t, in.Values[:d.n], dst[:len(x)])
	return nil
}

// Derivatives writes zeros: the history changes only at samples.
func (d *TransportDelay) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	clear(dst[:len(x)])
	return nil
}

// Outputs writes u(t − T) into dst.
func (d *TransportDelay) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	if !delayOutput(d.g, d.ns, d.ring(x), t, dst[:d.n]) {
		return &node.FieldError{Field: "history", Err: fmt.Errorf("%s: the history (newest sample %s) does not reach back to t − T = %s",
			TransportDelayName, node.FormatValue(x[len(x)-1]), node.FormatValue(t-d.p[0]))}
	}
	return nil
}

// EventValues writes the sample event's value (see grid.event).
func (d *TransportDelay) EventValues(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = d.g.event(t, x[len(x)-1])
	return nil
}

// Reset takes the samples due at t.
func (d *TransportDelay) Reset(event int, t float64, x []float64, in node.Inputs, dst []float64) error {
	delaySample(d.g, d.ns, d.ring(x), t, in.Values[:d.n], dst[:len(x)])
	return nil
}

// TimeEvents reports the history's sample instants, every T/N.
func (d *TransportDelay) TimeEvents(t float64) (int, float64, float64) { return d.g.timeEvents(t) }

// SetParams overrides parameters (all or nothing); the number of
// samples, the size and the units cannot change.
func (d *TransportDelay) SetParams(p map[string]any) error {
	vals, err := d.resolve(p)
	if err != nil {
		return err
	}
	if err := checkTransportDelay(vals, d.n); err != nil {
		return err
	}
	d.set(vals)
	return nil
}

func transportDelayMeta() node.Metadata {
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-516",
		Version:     "1.1.0",
		Stability:   node.Stable,
		Summary:     "A transport delay y(t) = u(t − T): a dead time (a conveyor, a network, a sensor's latency), from a sampled history of the input interpolated linearly.",
		Equations: []string{
			`y(t) = u(t - T)`,
			`y(t) \approx u_{j-N} + \frac{t - t_j}{h}\,(u_{j-N+1} - u_{j-N}), \qquad t_j \le t < t_{j+1}, \qquad t_j = j\,h, \quad h = T/N`,
		},
		EquationNotes: "$u$ is the input `in`, $y$ the output `out`, $T$ the `delay`, $N$ `samples`; $u_k$ is the input sampled at $t_k$, and before the " +
			"first sample the history is `initial`. Because $T$ is exactly $N$ sample periods, the delayed instant $t - T$ sits between samples " +
			"$j - N$ and $j - N + 1$ at the same fraction as $t$ between $t_j$ and $t_{j+1}$: the output's kinks are on sample instants, which are " +
			"time events.",
		Discretization: "exact-hold",
		DiscretizationNotes: "Between samples the history is constant (Derivatives are zero) and Update leaves it unchanged (the conformance checker's " +
			"`exact-hold`); at a sample instant Update applies the same map as the `sample` event's reset. A co-simulation step that covers several " +
			"instants fills them by linear interpolation between the newest sample and the input at the step.",
		Order: node.Order{Temporal: 1, Note: "The history's interpolation error is $O(h^2)$ in $h = T/N$; co-simulation adds the held input's first-order error when the step does not divide $h$."},
		Assumptions: []string{
			sampleNote,
			startNote,
			"The input is smooth between samples: the output's error is at most $h^2/8 \\max|\\ddot u|$ (linear interpolation of exact samples) in monolithic runs and in co-simulation with a step that divides $h$; a step that does not divide $h$ adds up to $\\Delta t \\max|\\dot u|$",
		},
		Limitations: []string{
			"The sample instants are time events: an adaptive run ends a step at least every $h = T/N$, so $N$ trades accuracy for steps",
			"A co-simulation step longer than $T$ is an error (ErrStepTooLong); with $T < \\Delta t + h$ the output holds the newest sample, adding up to $(\\Delta t + h - T)\\max|\\dot u|$",
			"The delay is a parameter, not a signal: a variable delay is not modelled",
			"The history is part of the state ($(N+3)\\,n$ values), so checkpoints keep it and a restored run continues exactly",
		},
		StabilityConditions: []string{"No dynamics of its own; a delay inside a feedback loop limits the loop gain that keeps the loop stable."},
		StableStep:          sampledStable,
		Mapping: []node.Mapping{
			{Term: `y(t) \approx u(t - T)`, Identifier: pkgPath + ".delayOutput"},
			{Term: "sampling every $h$", Identifier: pkgPath + ".delaySample", Notes: "shared by Update and the event's reset"},
			{Term: `t_j`, Identifier: pkgPath + ".grid.at", Notes: "time events and the sample event"},
		},
		References: []node.Reference{refSimulink, refFranklin},
		Anomalies:  []string{"COSIM-ANO-005"},
		Evidence:   []string{"COSIM-VER-506"},
		Changelog:  []node.Change{{Version: "1.0.0", Date: changeDate, Change: "Initial implementation"}, sampledChange},
	}
}
