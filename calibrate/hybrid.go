package calibrate

import (
	"math"
	"slices"
	"sort"

	"github.com/cosimgo/cosim/graph"
)

// This file handles data columns that jump at the model's events (a
// ball's velocity at each bounce). Their least-squares misfit is
// discontinuous in the parameters: when a parameter moves an event across
// a data time, the model's value there jumps from one side of the event
// to the other, and a gradient method stops on a step of that staircase,
// far from the minimum, with a small gradient. Fit detects such columns
// once, and compares a value next to one of the model's events with the
// side of the event that explains it (branchResiduals).

// jumpTol is the relative size (to the column's largest magnitude over
// the run) above which a column's change across an event is a jump.
const jumpTol = 1e-6

// detectJumps runs the model once at the start with its default output
// (both sides of every located event) and returns, for every data column,
// the names of the events it jumps at (nil for a column continuous at
// every event). Runs without two-sided event rows (fixed-step methods)
// detect nothing.
func (f *fitter) detectJumps() ([]map[string]bool, error) {
	opts := f.opts
	opts.Output = nil
	names := make([]string, len(f.p.Free))
	for j, fp := range f.p.Free {
		names[j] = fp.Name
	}
	res, err := f.p.Sim.Sensitivities(f.ctx, names, &opts)
	if err != nil {
		return nil, wrap(err)
	}
	ncol := len(f.p.Data.Columns)
	scale := make([]float64, ncol)
	for _, row := range res.Values {
		for k, v := range row[:ncol] {
			scale[k] = math.Max(scale[k], math.Abs(v))
		}
	}
	jumps := make([]map[string]bool, ncol)
	next := 0
	for _, ev := range res.Events {
		// The rows before and after the reset share the event's time.
		i := next
		for i+1 < len(res.Times) && !(res.Times[i] == ev.T && res.Times[i+1] == ev.T) {
			i++
		}
		if i+1 >= len(res.Times) {
			continue
		}
		next = i + 2
		for k := range ncol {
			if math.Abs(res.Values[i+1][k]-res.Values[i][k]) > jumpTol*scale[k] {
				if jumps[k] == nil {
					jumps[k] = map[string]bool{}
				}
				jumps[k][ev.Name] = true
			}
		}
	}
	return jumps, nil
}

// hybrid reports whether some data column jumps at an event.
func (f *fitter) hybrid() bool {
	return slices.ContainsFunc(f.jumps, func(m map[string]bool) bool { return m != nil })
}

// continuousCount is the number of data values in columns without jumps
// (not missing, weight above 0).
func (f *fitter) continuousCount() int {
	d := f.p.Data
	n := 0
	for _, row := range d.Values {
		for k, v := range row {
			if f.jumps[k] == nil && !math.IsNaN(v) && d.weight(k) > 0 {
				n++
			}
		}
	}
	return n
}

// setSkip leaves the jumping columns out of the objective (or back in),
// and forgets the cached evaluation, which was of the other objective.
func (f *fitter) setSkip(skip bool) {
	f.skip = skip
	f.lastTheta = nil
}

// alternative is the value a sample of a jumping column would have on
// the other side of a nearby event, with its derivatives.
type alternative struct {
	ok bool
	y  float64
	d  []float64
}

// branchAlternatives returns, for column k, the value each data time
// would have on the other side of the model's nearest event that column k
// jumps at: y ∓ J, with J the event's jump in the column extrapolated
// linearly to the event time from the samples on either side (exact for a
// velocity under constant acceleration), and its derivatives, including
// the event time's (∂T/∂p). Data times farther than halfway to the next
// event have none.
func (f *fitter) branchAlternatives(res *graph.Sensitivity, k int, alt []alternative) {
	d := f.p.Data
	np := len(f.p.Free)
	val := func(i int) float64 { return res.Values[f.rowOf[i]][k] }
	der := func(i, j int) float64 { return res.D[f.rowOf[i]][k*np+j] }
	var evs []graph.SensitivityEvent
	for _, ev := range res.Events {
		if f.jumps[k][ev.Name] {
			evs = append(evs, ev)
		}
	}
	n := len(d.Times)
	for e, ev := range evs {
		lo, hi := math.Inf(-1), math.Inf(1)
		if e > 0 {
			lo = (evs[e-1].T + ev.T) / 2
		}
		if e+1 < len(evs) {
			hi = (ev.T + evs[e+1].T) / 2
		}
		// a: the last data time before the event, b = a+1 the first at or
		// after it.
		b := sort.SearchFloat64s(d.Times, ev.T)
		a := b - 1
		if a < 0 || b >= n {
			continue // no samples on one side: the jump cannot be measured
		}
		prevT, nextT := math.Inf(-1), math.Inf(1)
		if e > 0 {
			prevT = evs[e-1].T
		}
		if e+1 < len(evs) {
			nextT = evs[e+1].T
		}
		// Slopes on each side, from two samples of the same piece.
		sa, sb := 0.0, 0.0
		dsa, dsb := make([]float64, np), make([]float64, np)
		if a >= 1 && d.Times[a-1] > prevT && d.Times[a] > d.Times[a-1] {
			h := d.Times[a] - d.Times[a-1]
			sa = (val(a) - val(a-1)) / h
			for j := range np {
				dsa[j] = (der(a, j) - der(a-1, j)) / h
			}
		}
		if b+1 < n && d.Times[b+1] < nextT && d.Times[b+1] > d.Times[b] {
			h := d.Times[b+1] - d.Times[b]
			sb = (val(b+1) - val(b)) / h
			for j := range np {
				dsb[j] = (der(b+1, j) - der(b, j)) / h
			}
		}
		// J = post(T) − pre(T), pre(T) = y_a + sa·(T − t_a),
		// post(T) = y_b − sb·(t_b − T).
		J := (val(b) - sb*(d.Times[b]-ev.T)) - (val(a) + sa*(ev.T-d.Times[a]))
		dJ := make([]float64, np)
		for j := range np {
			dT := 0.0
			if j < len(ev.DT) {
				dT = ev.DT[j]
			}
			dpost := der(b, j) - dsb[j]*(d.Times[b]-ev.T) + sb*dT
			dpre := der(a, j) + dsa[j]*(ev.T-d.Times[a]) + sa*dT
			dJ[j] = dpost - dpre
		}
		for i := range n {
			t := d.Times[i]
			if t < lo || t >= hi {
				continue
			}
			sign := 1.0 // before the event: the other side is after it
			if t >= ev.T {
				sign = -1
			}
			ai := &alt[i]
			ai.ok = true
			ai.y = val(i) + sign*J
			ai.d = ai.d[:0]
			for j := range np {
				ai.d = append(ai.d, der(i, j)+sign*dJ[j])
			}
		}
	}
}
