package calibrate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

// FreeParam is a free parameter: a real parameter "node.param" of a Tunable
// node, or a component "node.param[i]" of a vector one.
type FreeParam struct {
	Name string
	// Start is the starting value; nil means the parameter's value in the
	// Sim.
	Start *float64
	// Lo and Hi bound the parameter (use ±Inf for one side only). The
	// zero values, Lo = Hi = 0, mean unbounded. A bounded start must lie
	// strictly inside (Lo, Hi).
	Lo, Hi float64
}

// Param is the former name of FreeParam.
//
// Deprecated: use FreeParam (node.Param is a node's parameter declaration).
type Param = FreeParam

// bounds reports the bounds in effect (±Inf when none).
func (p FreeParam) bounds() (lo, hi float64) {
	if p.Lo == 0 && p.Hi == 0 {
		return math.Inf(-1), math.Inf(1)
	}
	return p.Lo, p.Hi
}

// Problem is what Fit fits: the free parameters of a Sim to data.
type Problem struct {
	// Sim is the model; Fit varies its free parameters with SetParams
	// and leaves them at the estimates (its state is not touched).
	Sim *graph.Sim
	// Free are the parameters to fit.
	Free []FreeParam
	// Data are the measurements: their columns name recorded fields.
	Data *Data
	// Options configure the runs (graph.Sim.Sensitivities): the mode
	// (its method with its options, the driver options) and End (zero:
	// the last data time). Fit sets Record and Output. A nil Mode (or nil
	// Options) means adaptive Dormand–Prince with rtol = 1e-10,
	// atol = 1e-12.
	Options *graph.SensitivityOptions
}

// Settings configure the optimizer. A nil *Settings means the defaults.
type Settings struct {
	// Method is "bfgs" (the default) or "lbfgs" (gonum optimize).
	Method string
	// GradientThreshold stops the optimizer when the largest component of
	// the gradient of the objective with respect to the transformed
	// parameters is below it. Zero means 1e-10 times the objective at the
	// start (at least 1e-14).
	GradientThreshold float64
	// MaxIterations bounds the optimizer's major iterations; zero means 200.
	MaxIterations int
	// IdentifiabilityTol is the relative singular value of the scaled
	// Gauss–Newton Jacobian below which a direction in parameter space is
	// not determined by the data; zero means 1e-7.
	IdentifiabilityTol float64
	// Significance is the probability (Result.PValue) below which the
	// data's stated noise (Data.Sigma) does not explain the residual;
	// zero means 1e-3.
	Significance float64
}

// Estimate is one fitted parameter.
type Estimate struct {
	Name  string
	Value float64
	// StdErr is the standard error from the Gauss–Newton approximation,
	// √(s²·[(JᵀWJ)⁻¹]_jj) with s² = Σ w·r²/(N − p); +Inf when the
	// parameter is not identifiable.
	StdErr float64
	// Identifiable is false when the data do not determine the parameter
	// (alone or in combination with others): its Value is then whatever
	// the optimizer left, typically the start, and means nothing.
	Identifiable bool
	// AtBound is true when the estimate is within 1e-6 of the range of a
	// bound: the standard error then understates the uncertainty.
	AtBound bool
}

// Result is the outcome of Fit.
type Result struct {
	Params []Estimate
	// Residual is the weighted sum of squared residuals Σ w·r² at the
	// estimates; RMS is √(Residual/N).
	Residual, RMS float64
	// N is the number of data values used (missing ones excluded).
	N int
	// Sigma2 is the residual variance s² = Residual/(N − p), with p the
	// number of identifiable parameters (NaN when N ≤ p).
	Sigma2 float64
	// Cov is the Gauss–Newton covariance of the identifiable parameters,
	// in Params order; rows and columns of unidentifiable ones are NaN.
	Cov [][]float64
	// Iterations, Evaluations (runs of the model with its sensitivities)
	// and the optimizer's Status.
	Iterations  int
	Evaluations int
	Status      optimize.Status
	// Stop is the optimizer's error when it stopped without reporting
	// convergence yet left a usable point: typically a line search that
	// can no longer decrease the objective, at the rounding level of the
	// exact gradient. Empty otherwise. Converged says whether the point
	// is a minimum either way.
	Stop string
	// Converged reports that the Gauss–Newton step from the estimates,
	// δ = (JᵀWJ)⁻¹JᵀWr, moves every identifiable parameter by less than
	// 1e-3 of its standard error (or 1e-9 of its value, for data the
	// model fits exactly): a further iteration would not change the
	// answer, whatever made the optimizer stop; and, when the data state
	// their noise (Data.Sigma), that the noise explains the residual
	// (PValue at least Settings.Significance), and that no value of a
	// jumping column is compared across an event (AcrossEvents is 0).
	// Warnings say why not.
	Converged bool
	// Unidentifiable names the parameters the data do not determine.
	Unidentifiable []string
	// PValue is, when the data state their noise (Data.Sigma), the
	// probability that noise of that size alone gives a residual at least
	// this large: the upper tail of the χ² distribution with N − p
	// degrees of freedom at Residual. NaN without Sigma.
	PValue float64
	// Jumping names the data columns that jump at the model's events (a
	// ball's velocity at a bounce). A value of such a column between the
	// model's event and the data's own jump is compared with the model on
	// the other side of the event (see Fit); AcrossEvents counts those
	// values at the estimates, 0 when every event falls between the same
	// data times in the model and in the data.
	Jumping      []string
	AcrossEvents int
	// Polished is true when the derivative-free search (Nelder–Mead, and
	// restarts) found a lower objective than the gradient method had
	// stopped at: the gradient method had stalled on a discontinuity of
	// the objective or a false minimum.
	Polished bool
	// Warnings say in words why the fit is not Converged; empty when it
	// is.
	Warnings []string
}

// transform maps an unbounded θ to a parameter within its bounds:
// p = lo + (hi − lo)/(1 + e^{−θ}) for two bounds (logistic), lo + e^θ or
// hi − e^θ for one, θ itself for none.
type transform struct{ lo, hi float64 }

func (tr transform) p(th float64) float64 {
	switch lo, hi := !math.IsInf(tr.lo, 0), !math.IsInf(tr.hi, 0); {
	case lo && hi:
		return tr.lo + (tr.hi-tr.lo)/(1+math.Exp(-th))
	case lo:
		return tr.lo + math.Exp(th)
	case hi:
		return tr.hi - math.Exp(th)
	}
	return th
}

// dp is dp/dθ at θ.
func (tr transform) dp(th float64) float64 {
	switch lo, hi := !math.IsInf(tr.lo, 0), !math.IsInf(tr.hi, 0); {
	case lo && hi:
		e := math.Exp(-math.Abs(th))
		return (tr.hi - tr.lo) * e / ((1 + e) * (1 + e))
	case lo:
		return math.Exp(th)
	case hi:
		return -math.Exp(th)
	}
	return 1
}

func (tr transform) theta(p float64) float64 {
	switch lo, hi := !math.IsInf(tr.lo, 0), !math.IsInf(tr.hi, 0); {
	case lo && hi:
		return math.Log((p - tr.lo) / (tr.hi - p))
	case lo:
		return math.Log(p - tr.lo)
	case hi:
		return math.Log(tr.hi - p)
	}
	return p
}

// fitter evaluates the objective, its gradient and the residual Jacobian
// from one sensitivity run per distinct θ.
type fitter struct {
	ctx    context.Context
	p      *Problem
	tr     []transform
	tuners []node.Tunable
	pnames []string
	comps  []int
	orig   []any // the parameters' values before Fit (whole vectors)
	opts   graph.SensitivityOptions
	rowOf  []int // data row i ↔ result row
	evals  int

	jumps     []map[string]bool // per data column, the events it jumps at (hybrid.go)
	alt       [][]alternative   // per jumping column, the other side's values
	lastTheta []float64
	f         float64
	grad      []float64 // ∂Φ/∂p
	J         [][]float64
	r         []float64
	across    int  // values compared across an event (hybrid.go)
	skip      bool // leave out the jumping columns (the first stage of a hybrid fit)
	err       error
}

// Fit fits the free parameters so that the Sim's recorded fields match
// the data in the weighted least-squares sense, Φ = ½·Σ_i Σ_k w_k·(y_k(t_i)
// − d_ik)², with the exact gradient ∂Φ/∂p = Σ w·r·∂y/∂p from
// graph.Sim.Sensitivities (through located events), minimised by gonum's
// BFGS or L-BFGS over unbounded variables θ: bounded parameters are
// mapped by the transforms of FreeParam (logistic between two bounds,
// exponential for one). Model values at data times come from the
// adaptive method's dense output (the run's Output is the data's times);
// a fixed-step method needs every data time on its step grid, and a time
// off the grid is an error, not snapped. Standard errors come from the
// Gauss–Newton approximation at the estimates — scaled by the residual
// variance, or by the stated noise when Data.Sigma is given; parameters
// the data do not determine (a singular value of the column-scaled
// Jacobian below IdentifiabilityTol, or no effect on the data at all) are
// reported as unidentifiable with an infinite standard error rather than
// given an arbitrary value.
//
// Hybrid models: a data column that jumps at the model's events (a
// ball's velocity at each bounce; Fit finds them from one run at the
// start, Result.Jumping) makes Φ discontinuous wherever a parameter moves
// an event across a data time, and a gradient method stalls on such a
// step with a small gradient. Fit therefore compares each value of such a
// column that lies within half the way to the neighbouring events with
// whichever side of the model's event explains it better — the other
// side's value is the model's minus the event's jump, extrapolated
// linearly to the event time — so that a value the data record after
// their jump but the model before its own is not charged the whole jump
// (Result.AcrossEvents counts them at the estimates). It then polishes the
// gradient method's point with the derivative-free Nelder–Mead method
// (gonum optimize), restarting the gradient method from any better point.
// When the data state their noise and it does not explain the residual,
// it also restarts from points around the start, and if that does not
// help the result is not Converged and Warnings say why.
//
// Fit leaves the free parameters at the estimates (SetParams) and the
// Sim's state untouched; on an error it puts them back at their values
// before the call. The state still holds the initial state of the
// parameters the Sim was built with: when a free parameter sets an
// initial condition (a ball's initial_position), rebuild the Sim before
// running the fitted model. Fit is not safe for concurrent use with the
// Sim.
func Fit(ctx context.Context, p *Problem, set *Settings) (_ *Result, retErr error) {
	if p == nil || p.Sim == nil || p.Data == nil {
		return nil, errors.New("calibrate: Fit needs a Problem with a Sim and Data")
	}
	if len(p.Free) == 0 {
		return nil, errors.New("calibrate: no free parameters")
	}
	if err := p.Data.check(); err != nil {
		return nil, err
	}
	if n := p.Data.count(); n <= len(p.Free) && p.Data.Sigma == nil {
		return nil, fmt.Errorf("calibrate: %d data values for %d free parameters: nothing is left to estimate the noise from, so the standard errors would be undefined; give more data than parameters, or state the measurement noise", n, len(p.Free))
	}
	var s Settings
	if set != nil {
		s = *set
	}
	if s.MaxIterations == 0 {
		s.MaxIterations = 200
	}
	if s.IdentifiabilityTol == 0 {
		s.IdentifiabilityTol = 1e-7
	}
	if s.Significance == 0 {
		s.Significance = 1e-3
	}
	switch strings.ToLower(s.Method) {
	case "", "bfgs", "lbfgs", "l-bfgs":
	default:
		return nil, fmt.Errorf("calibrate: method %q: want bfgs or lbfgs", s.Method)
	}
	f, theta0, err := newFitter(ctx, p)
	if err != nil {
		return nil, err
	}
	defer func() {
		if retErr != nil {
			f.restore()
		}
	}()
	if f.jumps, err = f.detectJumps(); err != nil {
		return nil, err
	}
	f0, err := f.eval(theta0)
	if err != nil {
		return nil, err
	}
	if s.GradientThreshold == 0 {
		s.GradientThreshold = math.Max(1e-10*f0, 1e-14)
	}
	var sr searched
	if f.hybrid() && f.continuousCount() > len(p.Free) {
		// Continuation: the columns without jumps first (their misfit is
		// continuous in the parameters), then every column from there.
		f.setSkip(true)
		c0, err := f.eval(theta0)
		if err != nil {
			return nil, err
		}
		first := f.search(theta0, c0, &s)
		f.setSkip(false)
		if f0, err = f.eval(first.x); err != nil {
			return nil, err
		}
		sr = f.search(first.x, f0, &s)
		sr.iters += first.iters
	} else {
		sr = f.search(theta0, f0, &s)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f.stalled(sr, &s) {
		// The noise does not explain the residual, or the model's events
		// fall between other data times than the data's jumps: try again
		// from points around the start, keep the best.
		for _, start := range f.starts(theta0) {
			fs, err := f.eval(start)
			if err != nil || ctx.Err() != nil {
				continue
			}
			alt := f.search(start, fs, &s)
			sr.iters += alt.iters
			if alt.f < sr.f {
				alt.iters = sr.iters
				alt.polished = max(alt.polished, 1)
				sr = alt
			}
			if !f.stalled(sr, &s) {
				break
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	// Re-evaluate at the estimates (the cache may hold a trial point).
	fbest, err := f.eval(sr.x)
	if err != nil {
		return nil, err
	}
	if sr.err != nil && sr.polished == 0 && !acceptable(sr.err, fbest, f0) {
		return nil, fmt.Errorf("calibrate: the optimizer stopped: %w (objective %g from %g)", sr.err, fbest, f0)
	}
	res := f.report(sr.x, s.IdentifiabilityTol)
	res.Iterations, res.Evaluations, res.Status = sr.iters, f.evals, sr.status
	res.Polished = sr.polished > 0
	if sr.err != nil && sr.polished == 0 {
		res.Stop = sr.err.Error()
	}
	f.judge(res, &s)
	return res, nil
}

// searched is the outcome of a search: the best point, its objective,
// the gradient method's last status and error, the major iterations of
// every method, and how many derivative-free rounds improved the point.
type searched struct {
	x        []float64
	f        float64
	status   optimize.Status
	err      error
	iters    int
	polished int
}

// search minimises from θ0 (objective f0): the gradient method, then,
// for a hybrid objective or one whose residual the stated noise does not
// explain, rounds of Nelder–Mead each followed by the gradient method
// again, while they lower the objective.
func (f *fitter) search(theta0 []float64, f0 float64, s *Settings) searched {
	sr := f.gradient(theta0, f0, s)
	if sr.f > f0 || sr.x == nil {
		sr.x, sr.f = theta0, f0
	}
	if !f.hybrid() && !(f.p.Data.Sigma != nil && f.noisePValue(sr.f) < s.Significance) {
		return sr
	}
	for round := 0; round < 5 && f.ctx.Err() == nil; round++ {
		nx, nf, nit := f.nelderMead(sr.x, sr.f)
		sr.iters += nit
		if !(nf < sr.f-1e-9*math.Abs(sr.f)) {
			break
		}
		sr.x, sr.f = nx, nf
		sr.polished++
		g := f.gradient(sr.x, sr.f, s)
		sr.iters += g.iters
		sr.status, sr.err = g.status, g.err
		if g.x != nil && g.f < sr.f {
			sr.x, sr.f = g.x, g.f
		}
	}
	return sr
}

// gradient runs the gradient method (BFGS or L-BFGS) from θ0.
func (f *fitter) gradient(theta0 []float64, f0 float64, s *Settings) searched {
	var method optimize.Method = &optimize.BFGS{}
	if m := strings.ToLower(s.Method); m == "lbfgs" || m == "l-bfgs" {
		method = &optimize.LBFGS{}
	}
	prob := optimize.Problem{
		Func: func(th []float64) float64 {
			v, err := f.eval(th)
			if err != nil {
				return math.Inf(1)
			}
			return v
		},
		Grad: func(g, th []float64) {
			if _, err := f.eval(th); err != nil {
				for j := range g {
					g[j] = math.NaN()
				}
				return
			}
			for j := range g {
				g[j] = f.grad[j] * f.tr[j].dp(th[j])
			}
		},
	}
	oset := &optimize.Settings{
		GradientThreshold: s.GradientThreshold,
		MajorIterations:   s.MaxIterations,
		Converger:         &optimize.FunctionConverge{Absolute: 1e-15 * math.Max(f0, 1e-300), Relative: 1e-15, Iterations: 20},
	}
	ores, oerr := optimize.Minimize(prob, append([]float64(nil), theta0...), oset, method)
	sr := searched{f: math.Inf(1), status: optimize.NotTerminated, err: oerr}
	if ores != nil {
		sr.x, sr.f, sr.status, sr.iters = ores.X, ores.F, ores.Status, ores.MajorIterations
	}
	return sr
}

// nelderMead searches from θ0 with gonum's Nelder–Mead over u, θ = θ0 +
// h⊙u, h_j = max(|θ0_j|, 1)/10: the first simplex steps a tenth of each
// coordinate's size. It returns the best point, its objective and the
// method's major iterations.
func (f *fitter) nelderMead(theta0 []float64, f0 float64) ([]float64, float64, int) {
	np := len(theta0)
	h := make([]float64, np)
	for j, v := range theta0 {
		h[j] = math.Max(math.Abs(v), 1) / 10
	}
	th := make([]float64, np)
	at := func(u []float64) []float64 {
		for j := range th {
			th[j] = theta0[j] + h[j]*u[j]
		}
		return th
	}
	prob := optimize.Problem{Func: func(u []float64) float64 {
		v, err := f.eval(at(u))
		if err != nil {
			return math.Inf(1)
		}
		return v
	}}
	oset := &optimize.Settings{
		FuncEvaluations: 60*np + 60,
		Converger:       &optimize.FunctionConverge{Absolute: 1e-15 * math.Max(f0, 1e-300), Relative: 1e-12, Iterations: 10*np + 10},
	}
	ores, _ := optimize.Minimize(prob, make([]float64, np), oset, &optimize.NelderMead{SimplexSize: 1})
	if ores == nil || !(ores.F < f0) {
		return theta0, f0, 0
	}
	return append([]float64(nil), at(ores.X)...), ores.F, ores.MajorIterations
}

// stalled reports whether the search ended where the stated noise does
// not explain the residual, or where values of a jumping column are
// compared across an event (the model's events and the data's jumps fall
// between different data times).
func (f *fitter) stalled(sr searched, s *Settings) bool {
	if f.p.Data.Sigma != nil && f.noisePValue(sr.f) < s.Significance {
		return true
	}
	if !f.hybrid() {
		return false
	}
	if _, err := f.eval(sr.x); err != nil {
		return false
	}
	return f.across > 0
}

// starts are the restarts of a stalled fit (see stalled): θ0 moved by ±1 (a factor e for a one-sided bound, about a
// quarter of the range between two) along each coordinate in turn.
func (f *fitter) starts(theta0 []float64) [][]float64 {
	var out [][]float64
	for j := range theta0 {
		for _, d := range []float64{-1, 1} {
			th := append([]float64(nil), theta0...)
			th[j] += d * math.Max(1, math.Abs(th[j])/4)
			out = append(out, th)
		}
	}
	return out
}

// noisePValue is the probability that the stated noise alone gives a
// residual 2·phi (Σ w·r²) at least this large: the upper tail of χ² with
// N − p degrees of freedom, p the free parameters; NaN without
// Data.Sigma.
func (f *fitter) noisePValue(phi float64) float64 {
	if f.p.Data.Sigma == nil {
		return math.NaN()
	}
	dof := f.p.Data.count() - len(f.p.Free)
	if dof < 1 {
		dof = 1
	}
	return distuv.ChiSquared{K: float64(dof)}.Survival(2 * phi)
}

// judge completes the result: the noise test (Converged is false when the
// stated noise does not explain the residual) and the warnings.
func (f *fitter) judge(res *Result, s *Settings) {
	d := f.p.Data
	res.PValue = math.NaN()
	for k, m := range f.jumps {
		if m != nil {
			res.Jumping = append(res.Jumping, d.Columns[k])
		}
	}
	res.AcrossEvents = f.across
	if !res.Converged {
		res.Warnings = append(res.Warnings, "a Gauss–Newton step from the estimates would still move them by more than 1e-3 of their standard errors")
	}
	if d.Sigma != nil {
		dof := res.N - (len(res.Params) - len(res.Unidentifiable))
		res.PValue = distuv.ChiSquared{K: float64(max(dof, 1))}.Survival(res.Residual)
		if res.PValue < s.Significance {
			res.Converged = false
			res.Warnings = append(res.Warnings, fmt.Sprintf("the stated noise does not explain the residual: Σw·r² = %.4g for %d degrees of freedom (χ² upper tail P = %.2g, below %g); the model, the data or the noise is wrong, or the fit is in a false minimum", res.Residual, dof, res.PValue, s.Significance))
		}
	}
	if res.AcrossEvents > 0 {
		res.Converged = false
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d values of %s lie between one of the model's events and the data's own jump and were compared with the other side of the event: the fitted event times do not match the data's (a false minimum, or a model whose events differ from the data's)", res.AcrossEvents, strings.Join(res.Jumping, ", ")))
	}
}

// acceptable says an optimizer error still leaves a usable fit: a line
// search that cannot improve further near the minimum (the exact
// gradient's rounding), after the objective has dropped.
func acceptable(err error, f, f0 float64) bool {
	return errors.Is(err, optimize.ErrLinesearcherFailure) || errors.Is(err, optimize.ErrNoProgress) || strings.Contains(err.Error(), "linesearch") && f <= f0
}

func newFitter(ctx context.Context, p *Problem) (*fitter, []float64, error) {
	f := &fitter{ctx: ctx, p: p}
	if p.Options != nil {
		f.opts = *p.Options
	}
	if f.opts.Mode == nil {
		f.opts.Mode = graph.MonolithicAdaptive{Method: defaultMethod}
	}
	d := p.Data
	t0 := p.Sim.Time()
	if f.opts.End == 0 {
		f.opts.End = d.Times[len(d.Times)-1]
	}
	if d.Times[0] < t0 || d.Times[len(d.Times)-1] > f.opts.End {
		return nil, nil, fmt.Errorf("calibrate: data times [%v, %v] outside the run [%v, %v]", d.Times[0], d.Times[len(d.Times)-1], t0, f.opts.End)
	}
	if !(f.opts.End > t0) {
		return nil, nil, fmt.Errorf("calibrate: the run must end after its start %v (End %v)", t0, f.opts.End)
	}
	// Name a column the model does not record before any run (the run's
	// own error would come through two layers of prefixes).
	for _, c := range d.Columns {
		v, err := p.Sim.Value(c)
		if err != nil {
			return nil, nil, fmt.Errorf("calibrate: data column %s is not a field of the model: %w", c, err)
		}
		if len(v) != 1 {
			// One data column is one component: a vector's would be
			// matched against the wrong columns of the run.
			return nil, nil, fmt.Errorf("calibrate: data column %s is a field of %d components: name one per column, %s[0] …", c, len(v), c)
		}
	}
	f.opts.Record = d.Columns
	if f.opts.Adaptive() {
		f.opts.Output = d.Times
		f.rowOf = make([]int, len(d.Times))
		for i := range f.rowOf {
			f.rowOf[i] = i
		}
	} else {
		f.opts.Output, f.opts.RecordEvery = nil, 1
		dt := f.opts.Dt
		for i, t := range d.Times {
			k := math.Round((t - t0) / dt)
			if !(dt > 0) || math.Abs(t0+k*dt-t) > 1e-9*dt {
				return nil, nil, fmt.Errorf("calibrate: data time %v (row %d) is not on the fixed-step grid %v + k·%v: fixed-step runs have no dense output and Fit does not snap times; use the adaptive method", t, i+1, t0, dt)
			}
			f.rowOf = append(f.rowOf, int(k))
		}
	}
	theta0 := make([]float64, len(p.Free))
	seen := map[string]bool{}
	for j, fp := range p.Free {
		if seen[fp.Name] {
			return nil, nil, fmt.Errorf("calibrate: parameter %s is free twice", fp.Name)
		}
		seen[fp.Name] = true
		tun, pname, comp, cur, err := lookupParam(p.Sim, fp.Name)
		if err != nil {
			return nil, nil, err
		}
		lo, hi := fp.bounds()
		if !(lo < hi) {
			return nil, nil, fmt.Errorf("calibrate: parameter %s: bounds [%v, %v] are empty", fp.Name, lo, hi)
		}
		start := cur
		if fp.Start != nil {
			start = *fp.Start
		}
		if math.IsNaN(start) || math.IsInf(start, 0) {
			return nil, nil, fmt.Errorf("calibrate: parameter %s: start %v is not finite", fp.Name, start)
		}
		if !(start > lo && start < hi) {
			return nil, nil, fmt.Errorf("calibrate: parameter %s: start %v is not strictly inside its bounds (%v, %v)", fp.Name, start, lo, hi)
		}
		f.tr = append(f.tr, transform{lo, hi})
		f.tuners, f.pnames, f.comps = append(f.tuners, tun), append(f.pnames, pname), append(f.comps, comp)
		orig := tun.Params()[pname]
		if v, ok := orig.([]float64); ok {
			orig = append([]float64(nil), v...)
		}
		f.orig = append(f.orig, orig)
		theta0[j] = f.tr[j].theta(start)
	}
	return f, theta0, nil
}

// defaultMethod is the method of a fit whose options name none.
var defaultMethod = integrators.DormandPrince{RTol: 1e-10, ATol: 1e-12}

// lookupParam finds a free parameter's node and current value.
func lookupParam(s *graph.Sim, name string) (node.Tunable, string, int, float64, error) {
	// At the last '.': nodes of subsystems are named by their paths
	// ("leg2.knee.spring.stiffness").
	i := strings.LastIndexByte(name, '.')
	if i <= 0 {
		return nil, "", 0, 0, fmt.Errorf("calibrate: parameter %q: want node.param or node.param[i]", name)
	}
	nn, pn := name[:i], name[i+1:]
	comp := -1
	if b := strings.IndexByte(pn, '['); b > 0 && strings.HasSuffix(pn, "]") {
		var k int
		if _, err := fmt.Sscanf(pn[b:], "[%d]", &k); err != nil || k < 0 {
			return nil, "", 0, 0, fmt.Errorf("calibrate: parameter %q: bad component index", name)
		}
		comp, pn = k, pn[:b]
	}
	n, ok := s.Node(nn)
	if !ok {
		return nil, "", 0, 0, fmt.Errorf("calibrate: parameter %q: no node %q (nodes: %s)", name, nn, strings.Join(s.Names(), ", "))
	}
	tun, ok := node.As[node.Tunable](n)
	if !ok {
		return nil, "", 0, 0, fmt.Errorf("calibrate: parameter %q: node %s is not Tunable", name, nn)
	}
	v, ok := tun.Params()[pn]
	if !ok {
		return nil, "", 0, 0, fmt.Errorf("calibrate: parameter %q: node %s has no parameter %q", name, nn, pn)
	}
	switch x := v.(type) {
	case float64:
		if comp < 0 {
			return tun, pn, comp, x, nil
		}
	case []float64:
		if comp >= 0 && comp < len(x) {
			return tun, pn, comp, x[comp], nil
		}
		if comp < 0 {
			return nil, "", 0, 0, fmt.Errorf("calibrate: parameter %q is a vector: name one component, %s[i]", name, name)
		}
	}
	return nil, "", 0, 0, fmt.Errorf("calibrate: parameter %q is not a real value (or component) to fit", name)
}

// restore puts the free parameters back at their values before Fit.
func (f *fitter) restore() {
	for j, tun := range f.tuners {
		_ = tun.SetParams(map[string]any{f.pnames[j]: f.orig[j]})
	}
}

// setAll installs the parameters p(θ).
func (f *fitter) setAll(th []float64) error {
	for j, tun := range f.tuners {
		v := f.tr[j].p(th[j])
		var val any = v
		if f.comps[j] >= 0 {
			vec := append([]float64(nil), tun.Params()[f.pnames[j]].([]float64)...)
			vec[f.comps[j]] = v
			val = vec
		}
		if err := tun.SetParams(map[string]any{f.pnames[j]: val}); err != nil {
			return fmt.Errorf("calibrate: %s = %v: %w", f.p.Free[j].Name, v, err)
		}
	}
	return nil
}

// eval runs the model with its sensitivities at θ (once per distinct θ)
// and returns Φ.
func (f *fitter) eval(th []float64) (float64, error) {
	if f.lastTheta != nil && equal(th, f.lastTheta) {
		return f.f, f.err
	}
	f.lastTheta = append(f.lastTheta[:0], th...)
	f.f, f.err = f.run(th)
	return f.f, f.err
}

func equal(a, b []float64) bool {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return len(a) == len(b)
}

func (f *fitter) run(th []float64) (float64, error) {
	if err := f.ctx.Err(); err != nil {
		return 0, err
	}
	if err := f.setAll(th); err != nil {
		return 0, err
	}
	f.evals++
	names := make([]string, len(f.p.Free))
	for j, fp := range f.p.Free {
		names[j] = fp.Name
	}
	opts := f.opts
	res, err := f.p.Sim.Sensitivities(f.ctx, names, &opts)
	if err != nil {
		return 0, wrap(err)
	}
	d := f.p.Data
	np := len(names)
	if last := f.rowOf[len(f.rowOf)-1]; last >= len(res.Times) {
		return 0, fmt.Errorf("calibrate: the run ended at %v before the data time %v", res.Times[len(res.Times)-1], d.Times[len(d.Times)-1])
	}
	if f.alt == nil {
		f.alt = make([][]alternative, len(d.Columns))
	}
	for k, m := range f.jumps {
		if m == nil {
			continue
		}
		if f.alt[k] == nil {
			f.alt[k] = make([]alternative, len(d.Times))
		}
		for i := range f.alt[k] {
			f.alt[k][i].ok = false
		}
		f.branchAlternatives(res, k, f.alt[k])
	}
	f.grad = make([]float64, np)
	f.J, f.r = f.J[:0], f.r[:0]
	f.across = 0
	var phi float64
	for i := range d.Times {
		row := f.rowOf[i]
		for k := range d.Columns {
			v := d.Values[i][k]
			w := d.weight(k)
			if math.IsNaN(v) || w == 0 || f.skip && f.jumps[k] != nil {
				continue
			}
			r := res.Values[row][k] - v
			dy := res.D[row][k*np : (k+1)*np]
			if f.alt != nil && f.alt[k] != nil {
				// A value the other side of an event explains better.
				if a := f.alt[k][i]; a.ok && math.Abs(a.y-v) < math.Abs(r) {
					r, dy = a.y-v, a.d
					f.across++
				}
			}
			phi += 0.5 * w * r * r
			sw := math.Sqrt(w)
			jr := make([]float64, np)
			for j := 0; j < np; j++ {
				f.grad[j] += w * r * dy[j]
				jr[j] = sw * dy[j]
			}
			f.J = append(f.J, jr)
			f.r = append(f.r, sw*r)
		}
	}
	return phi, nil
}

// wrap prefixes an error of the model's run with "calibrate: ", unless
// it already names its package (graph: …, node …): one prefix, not a
// chain of them.
func wrap(err error) error {
	msg := err.Error()
	for _, pre := range []string{"graph: ", "integrators: ", "node ", "calibrate: "} {
		if strings.HasPrefix(msg, pre) {
			return err
		}
	}
	return fmt.Errorf("calibrate: %w", err)
}

// report computes the estimates' standard errors and identifiability at θ
// (just evaluated).
func (f *fitter) report(th []float64, tol float64) *Result {
	np := len(th)
	res := &Result{N: len(f.r)}
	for _, r := range f.r {
		res.Residual += r * r
	}
	if res.N > 0 {
		res.RMS = math.Sqrt(res.Residual / float64(res.N))
	}
	// Identifiability from the column-scaled Jacobian's singular values.
	ident := make([]bool, np)
	norms := make([]float64, np)
	for j := 0; j < np; j++ {
		for _, row := range f.J {
			norms[j] += row[j] * row[j]
		}
		norms[j] = math.Sqrt(norms[j])
		ident[j] = norms[j] > 0
	}
	if res.N > 0 {
		Js := mat.NewDense(res.N, np, nil)
		for i, row := range f.J {
			for j, v := range row {
				if norms[j] > 0 {
					Js.Set(i, j, v/norms[j])
				}
			}
		}
		var svd mat.SVD
		if svd.Factorize(Js, mat.SVDThin) {
			sv := svd.Values(nil)
			var V mat.Dense
			svd.VTo(&V)
			for q, s := range sv {
				if s > tol*sv[0] {
					continue
				}
				for j := 0; j < np; j++ {
					if math.Abs(V.At(j, q)) > 0.1 {
						ident[j] = false
					}
				}
			}
		}
	} else {
		clear(ident)
	}
	var idx []int
	for j := range ident {
		if ident[j] {
			idx = append(idx, j)
		}
	}
	pid := len(idx)
	res.Sigma2 = math.NaN()
	if res.N > pid {
		res.Sigma2 = res.Residual / float64(res.N-pid)
	}
	// With the noise stated, the weights are 1/σ² and (JᵀWJ)⁻¹ is the
	// covariance itself; without, the residual variance scales it.
	scale := res.Sigma2
	if f.p.Data.Sigma != nil {
		scale = 1
	}
	res.Cov = make([][]float64, np)
	for j := range res.Cov {
		res.Cov[j] = make([]float64, np)
		for k := range res.Cov[j] {
			res.Cov[j][k] = math.NaN()
		}
	}
	if pid > 0 {
		var JtJ mat.SymDense
		Jid := mat.NewDense(res.N, pid, nil)
		for i, row := range f.J {
			for a, j := range idx {
				Jid.Set(i, a, row[j])
			}
		}
		JtJ.SymOuterK(1, Jid.T())
		var inv mat.Dense
		if err := inv.Inverse(&JtJ); err == nil {
			for a, j := range idx {
				for b, k := range idx {
					res.Cov[j][k] = scale * inv.At(a, b)
				}
			}
			// The Gauss–Newton step from here.
			var jtr, step mat.VecDense
			jtr.MulVec(Jid.T(), mat.NewVecDense(res.N, f.r))
			step.MulVec(&inv, &jtr)
			res.Converged = true
			for a, j := range idx {
				v := f.tr[j].p(th[j])
				lim := math.Max(1e-3*math.Sqrt(res.Cov[j][j]), 1e-9*math.Abs(v))
				if !(math.Abs(step.AtVec(a)) <= lim) {
					res.Converged = false
				}
			}
		} else {
			clear(ident)
		}
	}
	for j := 0; j < np; j++ {
		fp := f.p.Free[j]
		v := f.tr[j].p(th[j])
		lo, hi := fp.bounds()
		e := Estimate{Name: fp.Name, Value: v, Identifiable: ident[j], StdErr: math.Inf(1)}
		if ident[j] {
			e.StdErr = math.Sqrt(res.Cov[j][j])
		} else {
			res.Unidentifiable = append(res.Unidentifiable, fp.Name)
		}
		span := hi - lo
		if math.IsInf(span, 0) {
			span = math.Max(1, math.Abs(v))
		}
		e.AtBound = v-lo <= 1e-6*span || hi-v <= 1e-6*span
		res.Params = append(res.Params, e)
	}
	sort.Strings(res.Unidentifiable)
	return res
}
