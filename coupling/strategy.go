package coupling

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Scheme is the name of a coupling scheme. The zero value means Jacobi.
type Scheme string

// Scheme names. They are stable: command lines and scene files use them.
const (
	// Jacobi: every node reads values at t_n; updates run concurrently.
	Jacobi Scheme = "jacobi"
	// GaussSeidel: nodes update in declared stages; a later stage reads
	// the already-updated state of earlier ones.
	GaussSeidel Scheme = "gauss-seidel"
	// Iterative: groups of nodes are re-advanced from the start-of-step
	// state until their interface values converge; nodes outside groups
	// step as Jacobi.
	Iterative Scheme = "iterative"
)

// String returns the scheme's name; the zero value is "jacobi".
func (s Scheme) String() string {
	if s == "" {
		return string(Jacobi)
	}
	return string(s)
}

// Accel names the acceleration of a group iteration: how the next
// iterate is computed from the current one and its image (an "acceleration
// method" in the literature; cosim keeps "method" for integration methods,
// package integrators). The zero value means Relaxation.
type Accel string

// Acceleration names (stable): command lines and scene files use them.
const (
	// Relaxation: u ← u + ω·(G(u) − u) with a constant ω (ω = 1 is plain
	// fixed-point iteration).
	Relaxation Accel = "relaxation"
	// Aitken: relaxation with Aitken's dynamic factor (Irons–Tuck form).
	Aitken Accel = "aitken"
	// IQNILS: interface quasi-Newton with an inverse Jacobian from least
	// squares (Degroote et al. 2009).
	IQNILS Accel = "iqn-ils"
)

// String returns the acceleration's name; the zero value is "relaxation".
func (m Accel) String() string {
	if m == "" {
		return string(Relaxation)
	}
	return string(m)
}

// Interpolation says what a subcycling node sees of slower nodes. The zero
// value means Hold.
type Interpolation string

// Interpolation names (stable).
const (
	// Hold: slower nodes are seen at one value for the whole macro step:
	// their state at t_n under Jacobi; inside an iterated group (implicit)
	// the current iterate of their end-of-step value.
	Hold Interpolation = "hold"
	// Linear: slower nodes are seen at their state linearly interpolated
	// between t_n and t_n+Δt (they are advanced first, so both end points
	// are computed values, not predictions; inside an iterated group the
	// end point is the current iterate), at the start of each substep
	// under Jacobi and at its end inside a group.
	Linear Interpolation = "linear"
)

// String returns the interpolation's name; the zero value is "hold".
func (i Interpolation) String() string {
	if i == "" {
		return string(Hold)
	}
	return string(i)
}

// Predictor is the extrapolation of a group's interface values that gives
// the first iterate of a step. The zero value means Constant.
type Predictor string

// Predictor names (stable).
const (
	// Constant: u⁰_{n+1} = u_n, the interface values at t_n.
	Constant Predictor = "constant"
	// LinearPredictor: u⁰_{n+1} = 2·u_n − u_{n−1} (Constant on the first
	// step after the coupling memory was reset; the graph keeps u_{n−1}
	// across Run calls and in checkpoints).
	LinearPredictor Predictor = "linear"
)

// String returns the predictor's name; the zero value is "constant".
func (p Predictor) String() string {
	if p == "" {
		return string(Constant)
	}
	return string(p)
}

// Policy says what happens when a group does not converge within
// Iteration.MaxIter iterations. The zero value means Stop.
type Policy string

// Policy names (stable).
const (
	// Stop ends the run with an error wrapping ErrNotConverged; the state
	// stays at t_n.
	Stop Policy = "stop"
	// Accept takes the last iterate, counts the step as non-converged in
	// the run's statistics and goes on.
	Accept Policy = "accept"
)

// String returns the policy's name; the zero value is "stop".
func (p Policy) String() string {
	if p == "" {
		return string(Stop)
	}
	return string(p)
}

// ErrNotConverged is the errors.Is target of a group iteration that did
// not converge within its iteration limit under the Stop policy.
var ErrNotConverged = errors.New("coupling: group iteration did not converge")

// ErrUnsupported is the errors.Is target of a combination of options the
// schemes do not implement (multirate with Gauss–Seidel).
var ErrUnsupported = errors.New("coupling: unsupported combination")

// Defaults of Iteration and Acceleration fields whose zero value means
// "default".
const (
	DefaultATol       = 1e-10
	DefaultRTol       = 1e-8
	DefaultMaxIter    = 50
	DefaultOmega0     = 0.5 // first factor of Aitken and IQN-ILS
	DefaultOmegaMax   = 4.0 // bound on Aitken's |ω|
	DefaultFilter     = 1e-8
	defaultRelaxOmega = 1.0
)

// Upper limits that keep the work of one step bounded. A step's work is
// the product of the iterations of a group and the substeps of its
// fastest member, so each factor is capped; the graph also checks for
// cancellation between iterations and between substeps, so even a step
// at the limits can be stopped.
const (
	// MaxIterLimit is the largest Iteration.MaxIter: a fixed-point
	// iteration (accelerated or not) that has not converged in 10 000
	// evaluations of G is diverging or stagnating, and more iterations
	// only make the step unbounded; loosen ATol/RTol or shorten the step.
	MaxIterLimit = 10000
	// MaxRate is the largest rate of Strategy.Rates: a node that needs
	// more than 1 000 000 substeps per macro step wants a smaller macro
	// step (or its own integrator).
	MaxRate = 1000000
)

// Acceleration configures how a group's next iterate is computed from the
// current one, u, and its image G(u). The zero value is plain fixed-point
// iteration (relaxation with ω = 1).
type Acceleration struct {
	// Accel names the acceleration; zero means Relaxation.
	Accel Accel
	// Omega is the relaxation factor of Relaxation (zero means 1) and the
	// factor of the first iteration of Aitken and IQN-ILS (zero means
	// DefaultOmega0 = 0.5). Any finite nonzero value is accepted.
	Omega float64
	// OmegaMax bounds Aitken's dynamic factor: |ω| ≤ OmegaMax. Zero means
	// DefaultOmegaMax. Unused by the other methods.
	OmegaMax float64
	// Reuse is the number of past steps whose IQN-ILS columns are kept
	// (IQN-ILS(q)). Zero keeps only the current step's columns.
	Reuse int
	// Filter is IQN-ILS's column filter: a column whose part orthogonal to
	// the newer columns, |R_ii|, is below Filter times its norm is
	// dropped. Zero means DefaultFilter.
	Filter float64
	// MaxColumns bounds the IQN-ILS columns. Zero means the interface
	// dimension (more columns than rows are always dependent).
	MaxColumns int
}

// Iteration configures the group iteration of the Iterative scheme.
type Iteration struct {
	// Acceleration of the iteration; the zero value is plain fixed-point
	// iteration.
	Acceleration Acceleration
	// ATol and RTol: the group has converged when every interface value
	// satisfies |G(u)_i − u_i| ≤ ATol + RTol·|G(u)_i|. Zero means
	// DefaultATol and DefaultRTol.
	ATol, RTol float64
	// MaxIter bounds the evaluations of G per step. Zero means
	// DefaultMaxIter; at most MaxIterLimit.
	MaxIter int
	// Predictor gives the first iterate; zero means Constant.
	Predictor Predictor
	// OnFail says what happens without convergence; zero means Stop.
	OnFail Policy
}

// Resolved returns it with every zero field replaced by its documented
// default.
func (it Iteration) Resolved() Iteration {
	if it.ATol == 0 {
		it.ATol = DefaultATol
	}
	if it.RTol == 0 {
		it.RTol = DefaultRTol
	}
	if it.MaxIter == 0 {
		it.MaxIter = DefaultMaxIter
	}
	if it.Predictor == "" {
		it.Predictor = Constant
	}
	if it.OnFail == "" {
		it.OnFail = Stop
	}
	a := &it.Acceleration
	if a.Accel == "" {
		a.Accel = Relaxation
	}
	if a.Omega == 0 {
		a.Omega = DefaultOmega0
		if a.Accel == Relaxation {
			a.Omega = defaultRelaxOmega
		}
	}
	if a.OmegaMax == 0 {
		a.OmegaMax = DefaultOmegaMax
	}
	if a.Filter == 0 {
		a.Filter = DefaultFilter
	}
	return it
}

// Group is a set of nodes iterated together (Iterative scheme). It should
// contain the connectors between its members: only values a group node
// reads from another group node are iterated.
type Group struct {
	Name  string   // reported in schedules, statistics and errors
	Nodes []string // node names; groups may not share a node
}

// Strategy describes how a graph's nodes exchange values within a step.
// It is a plain value: the graph package compiles it into an execution
// plan when a run starts. The zero value is explicit Jacobi.
type Strategy struct {
	// Scheme; zero means Jacobi.
	Scheme Scheme
	// Order lists the Gauss–Seidel stages: nodes of one stage update
	// concurrently, reading the state left by earlier stages. Stateful
	// nodes not listed form a last stage. Nil means one stage per
	// stateful node, in the order nodes were added. Only GaussSeidel.
	Order [][]string
	// Groups are the iterated groups of the Iterative scheme. Nil means
	// one group, "all", of every node.
	Groups []Group
	// Iteration configures every group's iteration (Iterative only).
	Iteration Iteration
	// Rates gives the substeps per macro step of subcycling nodes
	// (multirate; Jacobi and Iterative, not GaussSeidel): a node with
	// rate r updates r times per step with Δt/r (per iteration inside a
	// group). Nodes not listed have rate 1. Only stateful nodes may be
	// listed. A rate is at most MaxRate.
	Rates map[string]int
	// Interpolation: what subcycling nodes see of slower nodes (and, in
	// an iterated group whose slowest members subcycle, of the interface
	// iterate); zero means Hold. See the package documentation, Multirate.
	Interpolation Interpolation
}

// Validate checks the strategy on its own (names, ranges, combinations);
// the graph checks node names when a run starts.
func (s *Strategy) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("coupling: "+format, a...)) }
	switch s.Scheme {
	case "", Jacobi, GaussSeidel, Iterative:
	default:
		bad("unknown scheme %q (want %s)", string(s.Scheme), strings.Join(schemeNames(), ", "))
	}
	if len(s.Order) > 0 && s.Scheme != GaussSeidel {
		bad("Order is for %s, the scheme is %s", GaussSeidel, s.Scheme)
	}
	if len(s.Groups) > 0 && s.Scheme != Iterative {
		bad("Groups are for %s, the scheme is %s", Iterative, s.Scheme)
	}
	if len(s.Rates) > 0 && s.Scheme == GaussSeidel {
		errs = append(errs, fmt.Errorf("coupling: multirate (Rates) with %s: %w: multirate already orders the updates by rate, slowest first, each faster class reading the slower ones' new state (a Gauss–Seidel order of its own), which a declared stage order would contradict; use Rates with %s or %s", s.Scheme, ErrUnsupported, Jacobi, Iterative))
	}
	for _, name := range sortedKeys(s.Rates) {
		if r := s.Rates[name]; r < 1 {
			bad("rate of %q is %d; a rate is a positive number of substeps", name, r)
		} else if r > MaxRate {
			bad("rate of %q is %d, more than the limit MaxRate = %d substeps per step; use a smaller macro step", name, r, MaxRate)
		}
	}
	switch s.Interpolation {
	case "", Hold, Linear:
	default:
		bad("unknown interpolation %q (want hold, linear)", string(s.Interpolation))
	}
	it := s.Iteration
	for _, v := range []struct {
		name string
		x    float64
	}{{"ATol", it.ATol}, {"RTol", it.RTol}, {"OmegaMax", it.Acceleration.OmegaMax}, {"Filter", it.Acceleration.Filter}} {
		if !(v.x >= 0) || math.IsInf(v.x, 0) {
			bad("Iteration %s = %v must be finite and non-negative", v.name, v.x)
		}
	}
	if w := it.Acceleration.Omega; math.IsNaN(w) || math.IsInf(w, 0) {
		bad("Omega = %v must be finite", w)
	}
	if it.MaxIter < 0 || it.Acceleration.Reuse < 0 || it.Acceleration.MaxColumns < 0 {
		bad("MaxIter, Reuse and MaxColumns must be non-negative")
	}
	if it.MaxIter > MaxIterLimit {
		bad("Iteration MaxIter = %d is more than the limit MaxIterLimit = %d iterations per step; a group that has not converged by then will not: loosen ATol/RTol or shorten the step", it.MaxIter, MaxIterLimit)
	}
	switch it.Acceleration.Accel {
	case "", Relaxation, Aitken, IQNILS:
	default:
		bad("unknown acceleration %q (want relaxation, aitken, iqn-ils)", string(it.Acceleration.Accel))
	}
	switch it.Predictor {
	case "", Constant, LinearPredictor:
	default:
		bad("unknown predictor %q (want constant, linear)", string(it.Predictor))
	}
	switch it.OnFail {
	case "", Stop, Accept:
	default:
		bad("unknown policy %q (want stop, accept)", string(it.OnFail))
	}
	seen := map[string]bool{}
	for i, g := range s.Groups {
		if g.Name == "" {
			bad("group %d has no name", i)
		} else if seen[g.Name] {
			bad("two groups are named %q", g.Name)
		}
		seen[g.Name] = true
		if len(g.Nodes) == 0 {
			bad("group %q has no nodes", g.Name)
		}
	}
	return errors.Join(errs...)
}

// Name is the strategy's short name: the scheme, with the acceleration
// for Iterative ("iterative:aitken") and "+multirate" when nodes
// subcycle.
func (s *Strategy) Name() string {
	n := s.Scheme.String()
	if s.Scheme == Iterative {
		n += ":" + s.Iteration.Acceleration.Accel.String()
	}
	if len(s.Rates) > 0 {
		n += "+multirate"
	}
	return n
}

// String renders the strategy in the syntax ParseStrategy reads, with
// every field that differs from its default; ParseStrategy(s.String())
// gives s back (up to defaults written out).
func (s Strategy) String() string {
	var b strings.Builder
	b.WriteString(s.Scheme.String())
	it := s.Iteration
	if s.Scheme == Iterative && it.Acceleration.Accel != "" {
		b.WriteString(":" + string(it.Acceleration.Accel))
	}
	kv := func(k, v string) { b.WriteString("," + k + "=" + v) }
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	if len(s.Order) > 0 {
		st := make([]string, len(s.Order))
		for i, o := range s.Order {
			st[i] = strings.Join(o, "+")
		}
		kv("order", strings.Join(st, "/"))
	}
	for _, g := range s.Groups {
		kv("group."+g.Name, strings.Join(g.Nodes, "+"))
	}
	a := it.Acceleration
	if a.Omega != 0 {
		kv("omega", f(a.Omega))
	}
	if a.OmegaMax != 0 {
		kv("omegamax", f(a.OmegaMax))
	}
	if a.Reuse != 0 {
		kv("reuse", strconv.Itoa(a.Reuse))
	}
	if a.Filter != 0 {
		kv("filter", f(a.Filter))
	}
	if a.MaxColumns != 0 {
		kv("columns", strconv.Itoa(a.MaxColumns))
	}
	if it.ATol != 0 {
		kv("atol", f(it.ATol))
	}
	if it.RTol != 0 {
		kv("rtol", f(it.RTol))
	}
	if it.MaxIter != 0 {
		kv("maxiter", strconv.Itoa(it.MaxIter))
	}
	if it.Predictor != "" {
		kv("predictor", string(it.Predictor))
	}
	if it.OnFail != "" {
		kv("onfail", string(it.OnFail))
	}
	for _, k := range sortedKeys(s.Rates) {
		kv("rate."+k, strconv.Itoa(s.Rates[k]))
	}
	if s.Interpolation != "" {
		kv("interp", string(s.Interpolation))
	}
	return b.String()
}

func sortedKeys(m map[string]int) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func schemeNames() []string {
	return []string{string(Jacobi), string(GaussSeidel), string(Iterative)}
}

// Names returns the stable names ByName accepts: the schemes, then the
// accelerations (each meaning the Iterative scheme with it).
func Names() []string {
	return append(schemeNames(), string(Relaxation), string(Aitken), string(IQNILS))
}

// ByName returns the strategy with default settings for a name of Names:
// a scheme, or an acceleration (Accel) meaning Iterative with it.
func ByName(name string) (Strategy, error) {
	switch Scheme(name) {
	case Jacobi, GaussSeidel, Iterative:
		return Strategy{Scheme: Scheme(name)}, nil
	}
	switch Accel(name) {
	case Relaxation, Aitken, IQNILS:
		return Strategy{Scheme: Iterative, Iteration: Iteration{Acceleration: Acceleration{Accel: Accel(name)}}}, nil
	}
	return Strategy{}, fmt.Errorf("coupling: unknown strategy %q (want one of %s)", name, strings.Join(Names(), ", "))
}

// ParseStrategy reads a strategy from its text form, for command lines:
//
//	scheme[:acceleration][,key=value]...
//
// where scheme is a name of Names (an acceleration name alone means the
// Iterative scheme with it) and the keys are
//
//	order=a+b/c         Gauss–Seidel stages ('/' between stages, '+' within)
//	group.NAME=a+b+s    an iterated group
//	omega, omegamax, reuse, filter, columns     acceleration settings
//	atol, rtol, maxiter, predictor, onfail      iteration settings
//	rate.NODE=10        substeps per macro step
//	interp=hold|linear  multirate interpolation
//
// The result is validated with Strategy.Validate.
func ParseStrategy(text string) (Strategy, error) {
	parts := strings.Split(strings.TrimSpace(text), ",")
	head := strings.TrimSpace(parts[0])
	name, acc, hasAcc := strings.Cut(head, ":")
	s, err := ByName(name)
	if err != nil {
		return Strategy{}, err
	}
	if hasAcc {
		if s.Scheme != Iterative {
			return Strategy{}, fmt.Errorf("coupling: %q: an acceleration is for the %s scheme", text, Iterative)
		}
		s.Iteration.Acceleration.Accel = Accel(acc)
	}
	it := &s.Iteration
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok {
			return Strategy{}, fmt.Errorf("coupling: %q: %q is not key=value", text, p)
		}
		var err error
		fl := func(dst *float64) { *dst, err = strconv.ParseFloat(v, 64) }
		in := func(dst *int) { *dst, err = strconv.Atoi(v) }
		switch {
		case k == "order":
			for _, st := range strings.Split(v, "/") {
				s.Order = append(s.Order, strings.Split(st, "+"))
			}
		case strings.HasPrefix(k, "group."):
			s.Groups = append(s.Groups, Group{Name: strings.TrimPrefix(k, "group."), Nodes: strings.Split(v, "+")})
		case k == "omega":
			fl(&it.Acceleration.Omega)
		case k == "omegamax":
			fl(&it.Acceleration.OmegaMax)
		case k == "reuse":
			in(&it.Acceleration.Reuse)
		case k == "filter":
			fl(&it.Acceleration.Filter)
		case k == "columns":
			in(&it.Acceleration.MaxColumns)
		case k == "atol":
			fl(&it.ATol)
		case k == "rtol":
			fl(&it.RTol)
		case k == "maxiter":
			in(&it.MaxIter)
		case k == "predictor":
			it.Predictor = Predictor(v)
		case k == "onfail":
			it.OnFail = Policy(v)
		case strings.HasPrefix(k, "rate."):
			if s.Rates == nil {
				s.Rates = map[string]int{}
			}
			var r int
			in(&r)
			s.Rates[strings.TrimPrefix(k, "rate.")] = r
		case k == "interp":
			s.Interpolation = Interpolation(v)
		default:
			return Strategy{}, fmt.Errorf("coupling: %q: unknown key %q", text, k)
		}
		if err != nil {
			return Strategy{}, fmt.Errorf("coupling: %q: %s: %w", text, k, err)
		}
	}
	if err := s.Validate(); err != nil {
		return Strategy{}, err
	}
	return s, nil
}
