package coupling

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Accelerator computes the iterates of a fixed-point iteration u = G(u)
// over an interface vector of fixed length: given the current iterate u
// and its image g = G(u), Next writes u^{k+1}. It holds all its work
// storage from construction. An Accelerator is not safe for concurrent
// use; a graph owns one per iterated group and calls it from one
// goroutine, so its arithmetic (and its result) is the same for any
// number of workers.
type Accelerator interface {
	// Begin starts a step (a time window): iterates of earlier steps are
	// no longer differenced.
	Begin()
	// Next writes the next iterate into dst from u and g = G(u). dst
	// aliases neither; u and g are not modified.
	Next(dst, u, g []float64)
	// End closes the step after its last iterate was accepted.
	End()
	// Stats describes the accelerator's state.
	Stats() AccelStats
}

// AccelStats describes an accelerator.
type AccelStats struct {
	Accel     Accel
	Omega     float64 // the last relaxation factor used
	Columns   int     // IQN-ILS: columns in the least-squares problem
	Fallbacks int     // IQN-ILS: iterations that fell back to relaxation
	Dropped   int     // IQN-ILS: columns dropped by the filter
}

// NewAccelerator returns an accelerator for an interface of n values,
// with a's zero fields set to their defaults (see Iteration.Resolved).
func NewAccelerator(a Acceleration, n int) (Accelerator, error) {
	a = Iteration{Acceleration: a}.Resolved().Acceleration
	if n < 0 {
		panic(fmt.Sprintf("coupling: NewAccelerator with n = %d", n))
	}
	if !(a.Omega != 0) || math.IsInf(a.Omega, 0) || math.IsNaN(a.Omega) {
		return nil, fmt.Errorf("coupling: relaxation factor %v must be finite and nonzero", a.Omega)
	}
	switch a.Accel {
	case Relaxation:
		return &relaxation{omega: a.Omega}, nil
	case Aitken:
		if !(a.OmegaMax > 0) {
			return nil, fmt.Errorf("coupling: OmegaMax %v must be positive", a.OmegaMax)
		}
		return &aitken{omega0: a.Omega, max: a.OmegaMax, omega: a.Omega, rPrev: make([]float64, n), r: make([]float64, n)}, nil
	case IQNILS:
		return newIQNILS(a, n), nil
	}
	return nil, fmt.Errorf("coupling: unknown acceleration %q", string(a.Accel))
}

// relax writes dst = u + ω·(g − u).
func relax(dst, u, g []float64, omega float64) {
	for i := range dst {
		dst[i] = u[i] + omega*(g[i]-u[i])
	}
}

type relaxation struct{ omega float64 }

func (r *relaxation) Begin()                   {}
func (r *relaxation) End()                     {}
func (r *relaxation) Next(dst, u, g []float64) { relax(dst, u, g, r.omega) }
func (r *relaxation) Stats() AccelStats        { return AccelStats{Accel: Relaxation, Omega: r.omega} }

// aitken is Aitken's Δ² dynamic relaxation in the Irons–Tuck form used by
// Küttler & Wall (2008):
//
//	ω_k = −ω_{k−1} · r_{k−1}ᵀ(r_k − r_{k−1}) / |r_k − r_{k−1}|²,  r = G(u) − u,
//
// bounded to 0 < |ω_k| ≤ max. A step's first factor is
// sign(ω)·min(|ω|, ω0) of the last factor of the previous step (ω0 on the
// first step), as preCICE does.
type aitken struct {
	omega0, max float64
	omega       float64
	rPrev, r    []float64
	have        bool
}

func (a *aitken) Begin() {
	a.have = false
	a.omega = math.Copysign(min(math.Abs(a.omega), a.omega0), a.omega)
}

func (a *aitken) End() {}

func (a *aitken) Next(dst, u, g []float64) {
	for i := range a.r {
		a.r[i] = g[i] - u[i]
	}
	if a.have {
		var num, den float64
		for i, r := range a.r {
			d := r - a.rPrev[i]
			num += a.rPrev[i] * d
			den += d * d
		}
		w := -a.omega * num / den
		switch {
		case math.IsNaN(w) || math.IsInf(w, 0) || w == 0:
			// No new information (r did not change): keep ω.
		case math.Abs(w) > a.max:
			a.omega = math.Copysign(a.max, w)
		default:
			a.omega = w
		}
	}
	relax(dst, u, g, a.omega)
	a.rPrev, a.r = a.r, a.rPrev
	a.have = true
}

func (a *aitken) Stats() AccelStats { return AccelStats{Accel: Aitken, Omega: a.omega} }

// iqnils is the interface quasi-Newton method with an approximation of
// the inverse Jacobian from a least-squares model (IQN-ILS, Degroote,
// Bathe & Vierendeels 2009). With residuals r_k = G(u_k) − u_k and images
// g_k = G(u_k), the columns are differences of consecutive iterates,
// newest first: V_i = r_{i+1} − r_i, W_i = g_{i+1} − g_i. The next iterate
// is
//
//	u_{k+1} = g_k + W·α,  α = argmin ‖V·α + r_k‖₂,
//
// solved by QR (gonum mat.QR). Columns whose part orthogonal to the
// newer columns, |R_ii|, is below filter·‖V_i‖ are dropped (oldest
// first in effect, since newer columns come first) and the QR is redone.
// Without columns, or when α is not finite, the step is a relaxation with
// ω0.
type iqnils struct {
	n, maxCols   int
	reuse        int
	omega0       float64
	filter       float64
	step         int
	cols         int       // columns held, newest first
	v, w         []float64 // column-major storage, maxCols × n each
	tag          []int     // step of each column
	rPrev, gPrev []float64
	r            []float64
	have         bool

	vm    []*mat.Dense    // vm[c]: n × c, the least-squares matrix with c columns
	rm    []*mat.Dense    // rm[c]: n × c, for R
	alpha []*mat.VecDense // alpha[c]: c
	rhs   *mat.VecDense   // −r_k
	qr    mat.QR

	fallbacks, dropped int
}

func newIQNILS(a Acceleration, n int) *iqnils {
	mc := n
	if a.MaxColumns > 0 {
		mc = min(mc, a.MaxColumns)
	}
	q := &iqnils{n: n, maxCols: mc, reuse: a.Reuse, omega0: a.Omega, filter: a.Filter,
		v: make([]float64, mc*n), w: make([]float64, mc*n), tag: make([]int, mc),
		rPrev: make([]float64, n), gPrev: make([]float64, n), r: make([]float64, n),
		vm: make([]*mat.Dense, mc+1), rm: make([]*mat.Dense, mc+1), alpha: make([]*mat.VecDense, mc+1)}
	for c := 1; c <= mc; c++ {
		q.vm[c] = mat.NewDense(n, c, nil)
		q.rm[c] = mat.NewDense(n, c, nil)
		q.alpha[c] = mat.NewVecDense(c, nil)
	}
	if n > 0 {
		q.rhs = mat.NewVecDense(n, nil)
	}
	return q
}

func (q *iqnils) Begin() {
	q.step++
	q.have = false
	for q.cols > 0 && q.tag[q.cols-1] < q.step-q.reuse {
		q.cols--
	}
}

func (q *iqnils) End() {}

func (q *iqnils) Stats() AccelStats {
	return AccelStats{Accel: IQNILS, Omega: q.omega0, Columns: q.cols, Fallbacks: q.fallbacks, Dropped: q.dropped}
}

// col returns column j of storage s.
func (q *iqnils) col(s []float64, j int) []float64 { return s[j*q.n : (j+1)*q.n] }

// drop removes column j.
func (q *iqnils) drop(j int) {
	n := q.n
	copy(q.v[j*n:], q.v[(j+1)*n:q.cols*n])
	copy(q.w[j*n:], q.w[(j+1)*n:q.cols*n])
	copy(q.tag[j:], q.tag[j+1:q.cols])
	q.cols--
}

func (q *iqnils) Next(dst, u, g []float64) {
	n := q.n
	for i := range q.r {
		q.r[i] = g[i] - u[i]
	}
	if q.have && q.maxCols > 0 {
		// Push the newest difference at the front, dropping the oldest
		// column when full.
		if q.cols == q.maxCols {
			q.cols--
		}
		copy(q.v[n:(q.cols+1)*n], q.v[:q.cols*n])
		copy(q.w[n:(q.cols+1)*n], q.w[:q.cols*n])
		copy(q.tag[1:q.cols+1], q.tag[:q.cols])
		q.cols++
		for i := 0; i < n; i++ {
			q.v[i] = q.r[i] - q.rPrev[i]
			q.w[i] = g[i] - q.gPrev[i]
		}
		q.tag[0] = q.step
	}
	copy(q.rPrev, q.r)
	copy(q.gPrev, g)
	q.have = true

	hadCols := q.cols > 0
	if !q.quasiNewton(dst, g) {
		if hadCols {
			q.fallbacks++
		}
		relax(dst, u, g, q.omega0)
	}
}

// quasiNewton writes g + W·α into dst and reports whether it could: there
// are columns left after filtering and the result is finite.
func (q *iqnils) quasiNewton(dst, g []float64) bool {
	for q.cols > 0 {
		c := q.cols
		vm := q.vm[c]
		for j := 0; j < c; j++ {
			for i, x := range q.col(q.v, j) {
				vm.Set(i, j, x)
			}
		}
		q.qr.Factorize(vm)
		rm := q.rm[c]
		q.qr.RTo(rm)
		bad := -1
		for j := 0; j < c; j++ {
			norm := 0.0
			for _, x := range q.col(q.v, j) {
				norm = math.Hypot(norm, x)
			}
			if !(math.Abs(rm.At(j, j)) > q.filter*norm) {
				bad = j
				break
			}
		}
		if bad >= 0 {
			q.drop(bad)
			q.dropped++
			continue
		}
		for i, x := range q.r {
			q.rhs.SetVec(i, -x)
		}
		al := q.alpha[c]
		if err := q.qr.SolveVecTo(al, false, q.rhs); err != nil {
			if _, ok := err.(mat.Condition); !ok {
				return false
			}
		}
		for i := range dst {
			s := g[i]
			for j := 0; j < c; j++ {
				s += q.w[j*q.n+i] * al.AtVec(j)
			}
			dst[i] = s
		}
		for _, x := range dst {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return false
			}
		}
		return true
	}
	return false
}

// Converged reports whether the iterate u has converged against its
// image g = G(u): |g_i − u_i| ≤ atol + rtol·|g_i| for every i. It also
// returns the residual's maximum norm max_i |g_i − u_i| (NaN if any value
// is not finite, which never converges).
func Converged(u, g []float64, atol, rtol float64) (bool, float64) {
	ok := true
	res := 0.0
	for i, gi := range g {
		d := math.Abs(gi - u[i])
		if !(d <= atol+rtol*math.Abs(gi)) {
			ok = false
		}
		if d > res || math.IsNaN(d) {
			res = d
		}
		if math.IsNaN(d) || math.IsInf(d, 0) {
			return false, math.NaN()
		}
	}
	return ok, res
}

// Predict writes the first iterate of a step into dst from the interface
// values at t_n (now) and at t_{n−1} (prev, nil when there is none):
// Constant copies now; LinearPredictor writes 2·now − prev (now when prev
// is nil).
func (p Predictor) Predict(dst, now, prev []float64) {
	if p != LinearPredictor || prev == nil {
		copy(dst, now)
		return
	}
	for i := range dst {
		dst[i] = 2*now[i] - prev[i]
	}
}

// AccelState is the memory an accelerator carries from one step to the
// next, as plain data (JSON-serialisable) for checkpoints: restoring it
// into an accelerator built with the same Acceleration and dimension
// makes the following steps bit-identical to those of the accelerator it
// was saved from. Relaxation carries nothing; Aitken its last factor;
// IQN-ILS its step count and the columns kept for reuse.
type AccelState struct {
	// Accel names the accelerator (the JSON key is "method", as it was
	// when the type was named Method: the format does not change).
	Accel Accel `json:"method"`
	// Omega is Aitken's last factor: the next step starts from
	// sign(ω)·min(|ω|, ω0).
	Omega float64 `json:"omega,omitempty"`
	// Step is the number of steps IQN-ILS has begun; Tags[i] is the step
	// that produced column i.
	Step int `json:"step,omitempty"`
	// V and W are the IQN-ILS columns, newest first, each of the
	// interface dimension.
	V    [][]float64 `json:"v,omitempty"`
	W    [][]float64 `json:"w,omitempty"`
	Tags []int       `json:"tags,omitempty"`
	// Fallbacks and Dropped are IQN-ILS's counters (AccelStats).
	Fallbacks int `json:"fallbacks,omitempty"`
	Dropped   int `json:"dropped,omitempty"`
}

// StateSaver is implemented by every accelerator NewAccelerator returns.
// SaveState copies the memory carried to the next step; RestoreState
// replaces it, rejecting a state of another method or dimension or with
// values that are not finite, and changing nothing then. Both are called
// between steps (after End, before Begin).
type StateSaver interface {
	SaveState() AccelState
	RestoreState(AccelState) error
}

func (r *relaxation) SaveState() AccelState { return AccelState{Accel: Relaxation} }

func (r *relaxation) RestoreState(st AccelState) error { return checkAccel(st, Relaxation) }

func (a *aitken) SaveState() AccelState { return AccelState{Accel: Aitken, Omega: a.omega} }

func (a *aitken) RestoreState(st AccelState) error {
	if err := checkAccel(st, Aitken); err != nil {
		return err
	}
	if !(st.Omega != 0) || math.IsInf(st.Omega, 0) || math.Abs(st.Omega) > a.max {
		return fmt.Errorf("coupling: aitken state: factor %v is not finite, nonzero and within ±%v", st.Omega, a.max)
	}
	a.omega = st.Omega
	return nil
}

func (q *iqnils) SaveState() AccelState {
	st := AccelState{Accel: IQNILS, Step: q.step, Fallbacks: q.fallbacks, Dropped: q.dropped}
	for j := 0; j < q.cols; j++ {
		st.V = append(st.V, append([]float64(nil), q.col(q.v, j)...))
		st.W = append(st.W, append([]float64(nil), q.col(q.w, j)...))
		st.Tags = append(st.Tags, q.tag[j])
	}
	return st
}

func (q *iqnils) RestoreState(st AccelState) error {
	if err := checkAccel(st, IQNILS); err != nil {
		return err
	}
	c := len(st.Tags)
	switch {
	case len(st.V) != c || len(st.W) != c:
		return fmt.Errorf("coupling: iqn-ils state: %d V and %d W columns for %d tags", len(st.V), len(st.W), c)
	case c > q.maxCols:
		return fmt.Errorf("coupling: iqn-ils state: %d columns, at most %d kept", c, q.maxCols)
	case st.Step < 0 || st.Fallbacks < 0 || st.Dropped < 0:
		return fmt.Errorf("coupling: iqn-ils state: negative counter")
	}
	for j := 0; j < c; j++ {
		if len(st.V[j]) != q.n || len(st.W[j]) != q.n {
			return fmt.Errorf("coupling: iqn-ils state: column %d has %d and %d values, the interface %d", j, len(st.V[j]), len(st.W[j]), q.n)
		}
		if st.Tags[j] > st.Step || st.Tags[j] < 0 || j > 0 && st.Tags[j] > st.Tags[j-1] {
			return fmt.Errorf("coupling: iqn-ils state: column %d from step %d (of %d) is out of order", j, st.Tags[j], st.Step)
		}
		for k := range st.V[j] {
			if v, w := st.V[j][k], st.W[j][k]; v-v != 0 || w-w != 0 {
				return fmt.Errorf("coupling: iqn-ils state: column %d is not finite", j)
			}
		}
	}
	for j := 0; j < c; j++ {
		copy(q.col(q.v, j), st.V[j])
		copy(q.col(q.w, j), st.W[j])
		q.tag[j] = st.Tags[j]
	}
	q.cols, q.step, q.fallbacks, q.dropped, q.have = c, st.Step, st.Fallbacks, st.Dropped, false
	return nil
}

func checkAccel(st AccelState, m Accel) error {
	if st.Accel != m {
		return fmt.Errorf("coupling: accelerator state of %s restored into %s", st.Accel, m)
	}
	return nil
}
