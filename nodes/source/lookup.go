package source

import (
	"errors"
	"fmt"
	"math"

	"github.com/cosimgo/cosim/node"
)

// LookupName is the registry name of the lookup-table source.
const LookupName = "lookup"

// LookupType is the lookup-table source type, for a node.Registry.
func LookupType() node.Type { return node.Type{Name: LookupName, New: LookupFromMap} }

// MaxRows is the largest table a lookup source holds: at most MaxRows
// breakpoints and MaxRows values in all. Scene files are held to it when
// the loader reads a CSV file.
const MaxRows = 1 << 20

// Interpolation methods, the values of the "interpolation" parameter
// (named after it, as the Outside values are after "outside").
const (
	InterpolationHold   = "hold"   // zero-order hold: the value of the last breakpoint at or before t
	InterpolationLinear = "linear" // piecewise linear
	InterpolationPCHIP  = "pchip"  // monotone piecewise cubic Hermite (Fritsch–Carlson)
)

// The former names of the interpolation methods. Hold and Linear collided
// with coupling.Hold and coupling.Linear (a subcycling node's view of
// slower nodes, a coupling.Interpolation), which are the only Hold and
// Linear of the public vocabulary; the strings are unchanged, so scene
// files are not affected.
const (
	// Deprecated: use InterpolationHold.
	Hold = InterpolationHold
	// Deprecated: use InterpolationLinear.
	Linear = InterpolationLinear
	// Deprecated: use InterpolationPCHIP.
	PCHIP = InterpolationPCHIP
)

// Behaviours outside the table.
const (
	OutsideHold        = "hold"        // the end values
	OutsideExtrapolate = "extrapolate" // linearly, with the interpolant's end slope
	OutsideError       = "error"       // an error naming the node, the time and the table's range
)

// ErrOutsideTable is the cause of the error a lookup source with
// outside = "error" returns for a time before its first or after its last
// breakpoint.
var ErrOutsideTable = errors.New("time outside the lookup table")

// ErrFileParam: a lookup built in Go was given the scene-only parameter
// "file" (or "column", "time_column"); the scene loader reads the file.
var ErrFileParam = errors.New("the CSV file of a lookup is read by the scene loader")

// LookupParams are the lookup source's parameters.
type LookupParams struct {
	// Times are the breakpoints t_0 < t_1 < … in s (strictly increasing,
	// 1 to MaxRows of them). Required.
	Times []float64
	// Values are the table's values, row-major: len(Times) rows of n
	// components each, so n = len(Values)/len(Times). Required.
	Values []float64
	// Interpolation is InterpolationHold, InterpolationLinear or
	// InterpolationPCHIP. Default InterpolationLinear.
	Interpolation string
	// Outside is OutsideHold, OutsideExtrapolate or OutsideError. Default
	// OutsideHold.
	Outside string
	// Units of the output. Default "1".
	Units string
}

func (p LookupParams) values() node.Values {
	return node.Values{"times": p.Times, "values": p.Values,
		"interpolation": orText(p.Interpolation, InterpolationLinear), "outside": orText(p.Outside, OutsideHold), "units": orUnits(p.Units),
		"file": "", "column": "", "time_column": ""}
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

var lookupParams = []node.Param{
	{Name: "times", Kind: node.Vector, Shape: node.Vec(2), MaxLen: MaxRows, Default: []float64{0, 1}, Units: "s",
		Description: "Breakpoints $t_0 < t_1 < \\dots$, strictly increasing; each is a time event"},
	{Name: "values", Kind: node.Vector, Shape: node.Vec(2), MaxLen: MaxRows, Default: []float64{0, 1},
		Description: "Table values $v_{j,i}$, row-major: one row of $n$ components per breakpoint, so $n$ = len(values)/len(times)"},
	{Name: "interpolation", Kind: node.Text, Default: InterpolationLinear, Choices: []string{InterpolationHold, InterpolationLinear, InterpolationPCHIP},
		Description: "`hold` (zero-order hold), `linear`, or `pchip` (monotone cubic, Fritsch–Carlson)"},
	{Name: "outside", Kind: node.Text, Default: OutsideHold, Choices: []string{OutsideHold, OutsideExtrapolate, OutsideError},
		Description: "Before $t_0$ and after the last breakpoint: `hold` the end values, `extrapolate` linearly with the interpolant's end slope, or `error`"},
	unitsParam,
	{Name: "file", Kind: node.Text, Default: "",
		Description: "Scene files only: a CSV file, relative to the scene file, that the scene loader reads into `times` and `values` (header row of column names; at most 16 MiB and 2^20 rows)"},
	{Name: "column", Kind: node.Text, Default: "",
		Description: "Scene files only, with `file`: the name of the CSV column holding the values"},
	{Name: "time_column", Kind: node.Text, Default: "",
		Description: "Scene files only, with `file`: the name of the CSV column holding the times (empty: the first column)"},
}

// Lookup is a stateless source whose output is a function of time given
// by a table: breakpoints t_j and values v_j, interpolated by zero-order
// hold, linearly or by monotone cubic (PCHIP), with a declared behaviour
// outside the table. Every breakpoint is a time event (node.TimeEventer).
type Lookup struct {
	base
	// tab is what Outputs and the batch kernel read; SetParams
	// publishes it to the kernels.
	tab node.Published[table]
}

// table is a lookup's parameters in the form Outputs and the batch
// kernel read: the slices are never written after set builds them, so
// copies of a table share them.
type table struct {
	t      []float64 // breakpoints
	v      []float64 // values, row-major len(t) × n
	d      []float64 // PCHIP derivatives, row-major like v (nil otherwise)
	n      int
	interp uint8 // interpHold, interpLinear, interpPCHIP
	out    uint8 // outHold, outExtrapolate, outError
}

// The interpolation methods and outside behaviours as table reads them
// (no string comparison per evaluation).
const (
	interpLinear uint8 = iota
	interpHold
	interpPCHIP
)

const (
	outHold uint8 = iota
	outExtrapolate
	outError
)

var (
	_ node.Outputter   = (*Lookup)(nil)
	_ node.Tunable     = (*Lookup)(nil)
	_ node.TimeEventer = (*Lookup)(nil)
)

// NewLookup builds a lookup source from typed parameters.
func NewLookup(p LookupParams) (*Lookup, error) {
	vals, err := node.Resolve(LookupName, lookupParams, nil, p.values())
	if err != nil {
		return nil, err
	}
	return buildLookup(vals)
}

// LookupFromMap builds a lookup source from a name→value map (nil:
// defaults, the ramp from 0 to 1 over the first second). The parameters
// "file", "column" and "time_column" are for scene files, whose loader
// reads the CSV file into "times" and "values"; given here they are an
// error wrapping ErrFileParam.
func LookupFromMap(m map[string]any) (node.Node, error) {
	vals, err := node.Resolve(LookupName, lookupParams, nil, m)
	if err != nil {
		return nil, err
	}
	return buildLookup(vals)
}

// checkLookup applies the rules across parameters and returns the output
// size.
func checkLookup(vals node.Values) (int, error) {
	if err := checkUnits(LookupName, vals); err != nil {
		return 0, err
	}
	for _, name := range []string{"file", "column", "time_column"} {
		if f := vals.String(name); f != "" {
			return 0, &node.ParamError{Node: LookupName, Param: name, Value: f,
				Reason: fmt.Sprintf("is for scene files: %v (scene.LoadFile); from Go, read the file and pass times and values", ErrFileParam),
				Valid:  "\"\" outside a scene file"}
		}
	}
	ts, vs := vals.Floats("times"), vals.Floats("values")
	for j := 1; j < len(ts); j++ {
		if !(ts[j] > ts[j-1]) {
			return 0, &node.ParamError{Node: LookupName, Param: "times", Value: ts,
				Reason: fmt.Sprintf("is not strictly increasing: times[%d] = %s follows times[%d] = %s", j, node.FormatValue(ts[j]), j-1, node.FormatValue(ts[j-1])),
				Valid:  "strictly increasing breakpoints"}
		}
	}
	if len(vs)%len(ts) != 0 || len(vs)/len(ts) > MaxComponents {
		return 0, &node.ParamError{Node: LookupName, Param: "values", Value: vs,
			Reason: fmt.Sprintf("has %d values for %d breakpoints", len(vs), len(ts)),
			Valid:  fmt.Sprintf("n values per breakpoint (row-major), 1 ≤ n ≤ %d: a multiple of %d", MaxComponents, len(ts))}
	}
	return len(vs) / len(ts), nil
}

func buildLookup(vals node.Values) (*Lookup, error) {
	n, err := checkLookup(vals)
	if err != nil {
		return nil, err
	}
	l := &Lookup{base: base{n: n}}
	l.set(vals)
	l.spec = newSpec(LookupName, lookupParams, vals.String("units"), n, "The table interpolated at $t$", lookupMeta())
	return l, nil
}

func (l *Lookup) set(vals node.Values) {
	l.vals = vals
	tb := table{t: vals.Floats("times"), v: vals.Floats("values"), n: l.n}
	switch vals.String("interpolation") {
	case InterpolationHold:
		tb.interp = interpHold
	case InterpolationPCHIP:
		tb.interp = interpPCHIP
		tb.d = pchipSlopes(tb.t, tb.v, tb.n)
	}
	switch vals.String("outside") {
	case OutsideExtrapolate:
		tb.out = outExtrapolate
	case OutsideError:
		tb.out = outError
	}
	l.tab.Set(tb)
}

// upper returns the number of breakpoints at or before t (binary search;
// no allocation).
func (tb *table) upper(t float64) int {
	lo, hi := 0, len(tb.t)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if tb.t[m] <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// TimeEvents reports where t lies among the breakpoints: every breakpoint
// is a time event.
func (l *Lookup) TimeEvents(t float64) (int, float64, float64) {
	tb := l.tab.Get()
	k := tb.upper(t)
	prev, next := math.Inf(-1), math.Inf(1)
	if k > 0 {
		prev = tb.t[k-1]
	}
	if k < len(tb.t) {
		next = tb.t[k]
	}
	return k, prev, next
}

// Outputs writes the table interpolated at t into dst. Outside the table
// it holds, extrapolates, or (outside = "error") returns a
// *node.FieldError for "value" wrapping ErrOutsideTable.
func (l *Lookup) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	return l.tab.Get().eval(t, dst[:l.n])
}

// outside reports whether t is outside the table (before the first
// breakpoint or after the last) given k = upper(t).
func (tb *table) outside(t float64, k int) bool { return k == 0 || t > tb.t[len(tb.t)-1] }

// check returns the error eval returns at t, without writing anything:
// the batch kernel's path when nobody reads the output.
func (tb *table) check(t float64) error {
	if tb.out == outError && tb.outside(t, tb.upper(t)) {
		return tb.outsideError(t)
	}
	return nil
}

func (tb *table) outsideError(t float64) error {
	return &node.FieldError{Field: "value", Err: fmt.Errorf("%s: t = %s is outside the table [%s, %s] (outside: \"error\"): %w",
		LookupName, node.FormatValue(t), node.FormatValue(tb.t[0]), node.FormatValue(tb.t[len(tb.t)-1]), ErrOutsideTable)}
}

// eval writes the table interpolated at t into dst (n components): the
// arithmetic of Outputs and of the batch kernel.
func (tb *table) eval(t float64, dst []float64) error {
	n, last := tb.n, len(tb.t)-1
	k := tb.upper(t)
	switch {
	case tb.outside(t, k):
		end := 0
		if k != 0 {
			end = last
		}
		if tb.out == outError {
			return tb.outsideError(t)
		}
		copy(dst[:n], tb.v[end*n:end*n+n])
		if tb.out == outExtrapolate {
			dt := t - tb.t[end]
			for i := range n {
				dst[i] += tb.endSlope(end, i) * dt
			}
		}
		return nil
	case k == len(tb.t): // t is the last breakpoint
		copy(dst[:n], tb.v[last*n:last*n+n])
		return nil
	}
	j := k - 1 // t_j ≤ t < t_{j+1}
	v0, v1 := tb.v[j*n:j*n+n], tb.v[(j+1)*n:(j+1)*n+n]
	switch tb.interp {
	case interpHold:
		copy(dst[:n], v0)
	case interpLinear:
		s := (t - tb.t[j]) / (tb.t[j+1] - tb.t[j])
		for i := range n {
			dst[i] = v0[i] + s*(v1[i]-v0[i])
		}
	default: // PCHIP: cubic Hermite on [t_j, t_{j+1}]
		h := tb.t[j+1] - tb.t[j]
		s := (t - tb.t[j]) / h
		s2, s3 := s*s, s*s*s
		h00, h10, h01, h11 := 2*s3-3*s2+1, s3-2*s2+s, -2*s3+3*s2, s3-s2
		d0, d1 := tb.d[j*n:j*n+n], tb.d[(j+1)*n:(j+1)*n+n]
		for i := range n {
			dst[i] = h00*v0[i] + h*(h10*d0[i]+h11*d1[i]) + h01*v1[i]
		}
	}
	return nil
}

// endSlope is the interpolant's slope of component i at end breakpoint
// end (0 or the last), for linear extrapolation: 0 for hold and for a
// one-point table, the end segment's slope for linear, the end derivative
// for PCHIP.
func (tb *table) endSlope(end, i int) float64 {
	n := tb.n
	switch {
	case tb.interp == interpHold || len(tb.t) == 1:
		return 0
	case tb.interp == interpPCHIP:
		return tb.d[end*n+i]
	case end == 0:
		return (tb.v[n+i] - tb.v[i]) / (tb.t[1] - tb.t[0])
	}
	return (tb.v[end*n+i] - tb.v[(end-1)*n+i]) / (tb.t[end] - tb.t[end-1])
}

// pchipSlopes returns the derivatives of the monotone piecewise cubic
// Hermite interpolant at the breakpoints (Fritsch and Carlson 1980, with
// the weighted harmonic mean of Fritsch and Butland 1984 and the
// shape-preserving three-point end formula, as SciPy's
// PchipInterpolator): zero where the data has a local extremum, so the
// interpolant never overshoots monotone data. Two breakpoints: the
// secant slope. v is row-major len(t) × n.
func pchipSlopes(t, v []float64, n int) []float64 {
	m := len(t)
	d := make([]float64, len(v))
	if m < 2 {
		return d
	}
	del := func(j, i int) float64 { return (v[(j+1)*n+i] - v[j*n+i]) / (t[j+1] - t[j]) }
	for i := range n {
		if m == 2 {
			d[i], d[n+i] = del(0, i), del(0, i)
			continue
		}
		for j := 1; j < m-1; j++ {
			h0, h1 := t[j]-t[j-1], t[j+1]-t[j]
			a, b := del(j-1, i), del(j, i)
			if a == 0 || b == 0 || (a > 0) != (b > 0) {
				d[j*n+i] = 0
				continue
			}
			w1, w2 := 2*h1+h0, h1+2*h0
			d[j*n+i] = (w1 + w2) / (w1/a + w2/b)
		}
		d[i] = pchipEnd(t[1]-t[0], t[2]-t[1], del(0, i), del(1, i))
		d[(m-1)*n+i] = pchipEnd(t[m-1]-t[m-2], t[m-2]-t[m-3], del(m-2, i), del(m-3, i))
	}
	return d
}

// pchipEnd is the shape-preserving three-point end derivative from the
// end interval h0 with slope a and the next one h1 with slope b.
func pchipEnd(h0, h1, a, b float64) float64 {
	d := ((2*h0+h1)*a - h0*b) / (h0 + h1)
	switch {
	case sign(d) != sign(a):
		return 0
	case sign(a) != sign(b) && math.Abs(d) > 3*math.Abs(a):
		return 3 * a
	}
	return d
}

func sign(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// SetParams overrides parameters (all or nothing); the output size and
// units cannot change.
func (l *Lookup) SetParams(p map[string]any) error {
	vals, err := node.Resolve(LookupName, lookupParams, l.vals, p)
	if err != nil {
		return err
	}
	n, err := checkLookup(vals)
	if err != nil {
		return err
	}
	if n != l.n {
		return &node.ParamError{Node: LookupName, Param: "values", Value: vals.Floats("values"),
			Reason: fmt.Sprintf("would change the output size from %d to %d (edges were checked against it)", l.n, n),
			Valid:  fmt.Sprintf("%d values per breakpoint", l.n)}
	}
	if err := l.fixed(LookupName, vals); err != nil {
		return err
	}
	l.set(vals)
	return nil
}

func lookupMeta() node.Metadata {
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-107",
		Version:     "1.0.0",
		Stability:   node.Stable,
		Summary:     "A function of time from a table (inline, or a CSV column a scene file names): zero-order hold, linear or monotone cubic (PCHIP) interpolation, a declared behaviour outside the table, and every breakpoint a time event.",
		Equations: []string{
			`\text{hold: } y(t) = v_j, \qquad \text{linear: } y(t) = v_j + \frac{t - t_j}{t_{j+1} - t_j}(v_{j+1} - v_j), \qquad t_j \le t < t_{j+1}`,
			`\text{pchip: } y(t) = h_{00}(s)\,v_j + h_{10}(s)\,h\,d_j + h_{01}(s)\,v_{j+1} + h_{11}(s)\,h\,d_{j+1}, \quad h = t_{j+1} - t_j,\ s = (t - t_j)/h`,
			`d_j = \begin{cases} 0 & \delta_{j-1}\delta_j \le 0 \\ \dfrac{w_1 + w_2}{w_1/\delta_{j-1} + w_2/\delta_j} & \text{otherwise} \end{cases}, \quad w_1 = 2h_j + h_{j-1},\ w_2 = h_j + 2h_{j-1},\ \delta_j = \frac{v_{j+1} - v_j}{t_{j+1} - t_j}`,
		},
		EquationNotes: "$t_j$ are `times`, $v_j$ the rows of `values` (each of $n$ components, interpolated independently); $h_{00}, h_{10}, h_{01}, h_{11}$ are the cubic Hermite basis functions. " +
			"The PCHIP end derivatives use the shape-preserving three-point formula. The output is right-continuous at every breakpoint (hold jumps there).",
		Order: node.Order{Note: "Interpolation error for smooth data sampled at spacing h: O(h) for hold, O(h²) for linear; for pchip O(h³) on monotone data and O(h²) near an extremum of the data, where the slope is set to zero to preserve monotonicity (measured by TestLookupConvergence)."},
		Assumptions: []string{
			"Stateless: the output depends on time only",
			"Breakpoints are strictly increasing and values finite (checked at construction; a CSV file's row is named in the error)",
			timeEventNote,
		},
		Limitations: []string{
			"At most 2^20 breakpoints and 2^20 values in all; a CSV file at most 16 MiB",
			"Extrapolating a hold table holds (its slope is zero)",
			"Each Outputs call searches the table (O(log n)); there is no cached segment, so that concurrent evaluation stays safe",
			"PCHIP is C¹, not C²: its second derivative jumps at breakpoints (they are time events for that reason too)",
		},
		Mapping: []node.Mapping{
			{Term: `y(t)`, Identifier: pkgPath + ".Lookup.Outputs"},
			{Term: `d_j`, Identifier: pkgPath + ".pchipSlopes"},
			{Term: `d_0,\ d_{m-1}`, Identifier: pkgPath + ".pchipEnd"},
			{Term: `t_j \text{ (time events)}`, Identifier: pkgPath + ".Lookup.TimeEvents"},
		},
		References: []node.Reference{
			{Key: "Fritsch1980", Text: "Fritsch, F. N. and Carlson, R. E. (1980). Monotone piecewise cubic interpolation. SIAM J. Numer. Anal. 17(2), 238–246.", Note: "The monotonicity conditions."},
			{Key: "Fritsch1984", Text: "Fritsch, F. N. and Butland, J. (1984). A method for constructing local monotone piecewise cubic interpolants. SIAM J. Sci. Stat. Comput. 5(2), 300–304.", Note: "The weighted harmonic mean slopes."},
			{Key: "SciPy", Text: "SciPy interpolate.PchipInterpolator.", Note: "The same slopes and end formula; verified against independently computed values."},
			{Key: "Drake", Text: "Drake systems::TrajectorySource with PiecewisePolynomial (ZeroOrderHold, FirstOrderHold, Pchip).", Note: "The same three interpolations."},
		},
		Anomalies: []string{},
		Evidence:  []string{"COSIM-VER-107"},
		Changelog: []node.Change{{Version: "1.0.0", Date: changeDate, Change: "Initial implementation"}},
	}
}
