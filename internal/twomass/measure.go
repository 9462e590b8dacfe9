package twomass

import (
	"math"
	"slices"

	"github.com/cosimgo/cosim/integrators"
)

// Row is one row of the MADDENING two-mass guide's table, measured through the package
// driver on [Seed] at dt = 0.1 s over 120 steps.
type Row struct {
	Label        string           `json:"label"`
	Method       string           `json:"method"`
	RhoInf       *float64         `json:"rho_inf,omitempty"` // nil for Newmark
	SlowEnergy   float64          `json:"slow_energy"`       // fraction of the initial slow modal energy retained at 12 s
	FastEnergy   float64          `json:"fast_energy"`       // fraction of the initial fast modal energy retained at 12 s
	SlowPhaseLag float64          `json:"slow_phase_lag"`    // rad, see Problem.SlowPhaseLag
	Work         integrators.Work `json:"work"`              // counted work of the run
}

// Measure returns the table row of one trajectory of p.
func Measure(p Problem, v Variant, tr *Trajectory) Row {
	st := tr.Final()
	slow, fast := p.EnergyRatios(st)
	r := Row{Label: v.Label, Method: v.Method.Name(), SlowEnergy: slow, FastEnergy: fast,
		SlowPhaseLag: p.SlowPhaseLag(st), Work: tr.Stats}
	if v.Method.Name() == integrators.MethodGeneralizedAlpha {
		rho := v.Method.Params().RhoInf
		r.RhoInf = &rho
	}
	return r
}

// Table runs every variant on the two-mass problem and returns the rows and
// the trajectories, in the order of Variants.
func Table() ([]Row, []*Trajectory, error) {
	p := Seed()
	var rows []Row
	var trs []*Trajectory
	for _, v := range Variants() {
		tr, err := Run(p, v.Method, SeedDt, SeedSteps, false)
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, Measure(p, v, tr))
		trs = append(trs, tr)
	}
	return rows, trs, nil
}

// refinementSteps is the step-count ladder of the refinement study over
// [0, ResolvedEnd]; orders are taken from the finest pair (320 → 640).
var refinementSteps = []int{40, 80, 160, 320, 640}

// RefinementSteps returns the step-count ladder of the refinement study;
// the caller owns the slice.
func RefinementSteps() []int { return slices.Clone(refinementSteps) }

// Refinement is the refinement study of one variant on [Resolved]: the
// error at ResolvedEnd, hypot of the two modal displacement errors,
// carrying the algorithmic acceleration and resetting it every step.
type Refinement struct {
	Label        string    `json:"label"`
	Steps        []int     `json:"steps"`
	Dt           []float64 `json:"dt"`
	Carried      []float64 `json:"error_carried"`
	Reset        []float64 `json:"error_reset"`
	OrderCarried float64   `json:"order_carried"` // log2(e(n)/e(2n)), finest pair
	OrderReset   float64   `json:"order_reset"`
}

// Refine runs the refinement study of v over steps (nil: RefinementSteps).
func Refine(v Variant, steps []int) (Refinement, error) {
	if steps == nil {
		steps = refinementSteps
	}
	p := Resolved()
	ref := Refinement{Label: v.Label, Steps: steps}
	z, _ := p.Exact(ResolvedEnd)
	for _, n := range steps {
		dt := ResolvedEnd / float64(n)
		ref.Dt = append(ref.Dt, dt)
		for _, reset := range []bool{false, true} {
			tr, err := Run(p, v.Method, dt, n, reset)
			if err != nil {
				return ref, err
			}
			s, f := Modal(tr.Final().Q)
			e := math.Hypot(s-z[0], f-z[1])
			if reset {
				ref.Reset = append(ref.Reset, e)
			} else {
				ref.Carried = append(ref.Carried, e)
			}
		}
	}
	ref.OrderCarried = Order(ref.Carried)
	ref.OrderReset = Order(ref.Reset)
	return ref, nil
}

// Order returns the observed order of a ladder of errors at step counts
// n, 2n, 4n, ...: log2(e_{k−1}/e_k) over the finest pair.
func Order(errs []float64) float64 {
	k := len(errs)
	return math.Log2(errs[k-2] / errs[k-1])
}

// MaxDisplacementDiff returns max over steps and masses of |a − b|.
func MaxDisplacementDiff(tr *Trajectory, ref [][2]float64) float64 {
	worst := 0.0
	for i, st := range tr.States {
		for j := range 2 {
			worst = math.Max(worst, math.Abs(st.Q[j]-ref[i][j]))
		}
	}
	return worst
}

// ReferenceParams returns the independent reference's parameters for a
// variant's method: AverageAcceleration for registered Newmark,
// Classical(ρ∞) for generalized-alpha.
func ReferenceParams(m integrators.SecondOrderMethod) Params {
	if m.Name() == integrators.MethodNewmark {
		return AverageAcceleration()
	}
	return Classical(m.Params().RhoInf)
}

// Series is a time series of the two-mass run of one variant, for plotting.
type Series struct {
	Label      string    `json:"label"`
	T          []float64 `json:"t"`
	Slow       []float64 `json:"slow_displacement"` // slow modal displacement z₁
	FastEnergy []float64 `json:"fast_energy"`       // fraction of the initial fast modal energy
}

// SeriesOf returns the time series of a trajectory of p.
func SeriesOf(p Problem, label string, tr *Trajectory) Series {
	s := Series{Label: label}
	for _, st := range tr.States {
		z, _ := Modal(st.Q)
		_, fe := p.EnergyRatios(st)
		s.T = append(s.T, st.T)
		s.Slow = append(s.Slow, z)
		s.FastEnergy = append(s.FastEnergy, fe)
	}
	return s
}
