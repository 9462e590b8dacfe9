package scene

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

// This file checks a decoded scene's structure without a registry: names,
// run settings, transforms, recorded fields and integrator keys. Every
// problem is collected with its JSON path.

// checked is the result of Scene.check: every structural problem, and
// which nodes, connectors and edges they concern (by path, "nodes[2]"), so
// that Build can still build the others and report their problems too.
// fatal means nothing can be built (no nodes, limits exceeded).
type checked struct {
	errs  []error
	skip  map[string]bool
	fatal bool
}

// err is the joined error, nil when there are no problems.
func (c checked) err() error { return joinErrors(c.errs) }

// mark fills skip and fatal from the paths of errs.
func (c *checked) mark() {
	c.skip = map[string]bool{}
	for _, err := range c.errs {
		var e *Error
		if !errors.As(err, &e) {
			c.fatal = true
			continue
		}
		p, _, _ := strings.Cut(e.Path, " ")
		if p == "nodes" || p == "edges" || p == "scene" {
			c.fatal = true
		}
		if i := strings.IndexByte(p, ']'); i > 0 {
			c.skip[p[:i+1]] = true
		}
	}
}

func (sc *Scene) check() (c checked) {
	defer c.mark()
	var errs []error
	defer func() { c.errs = errs }()
	bad := func(path string, f string, a ...any) {
		errs = append(errs, &Error{Path: path, Err: fmt.Errorf(f, a...)})
	}
	if len(sc.Nodes) == 0 {
		bad("nodes", "a scene needs at least one node")
	}
	if len(sc.Nodes)+len(sc.Connectors) > MaxNodes {
		bad("nodes", "%d nodes is more than the limit of %d", len(sc.Nodes)+len(sc.Connectors), MaxNodes)
		return
	}
	if len(sc.Edges) > MaxEdges {
		bad("edges", "%d edges is more than the limit of %d", len(sc.Edges), MaxEdges)
		return
	}
	seen := map[string]string{}
	name := func(p, n string) {
		switch {
		case n == "":
			bad(p+".name", "missing")
		case strings.ContainsAny(n, ". \t\n[]"):
			bad(p+".name", "%q: names may not contain '.', '[', ']' or spaces (fields are named node.field)", n)
		default:
			if q, dup := seen[n]; dup {
				bad(p+".name", "%q is already the name of %s", n, q)
			} else {
				seen[n] = p
			}
		}
	}
	for i, n := range sc.Nodes {
		p := fmt.Sprintf("nodes[%d]", i)
		name(p, n.Name)
		if n.Type == "" {
			bad(p+".type", "missing")
		}
		errs = append(errs, n.checkSubsystem(p)...)
	}
	errs = append(errs, sc.Ports.check()...)
	for i, c := range sc.Connectors {
		p := fmt.Sprintf("connectors[%d]", i)
		name(p, c.Name)
		if c.Type == "" {
			bad(p+".type", "missing")
		}
		if len(c.Bodies) != 2 {
			bad(p+".bodies", "has %d names, want 2: the bodies of marker 0 and marker 1 (%q for a fixed world point)", len(c.Bodies), node.Ground)
		} else if b := c.Bodies[0]; b == c.Bodies[1] && b != node.Ground && b != "" {
			bad(p+".bodies", "both markers are on node %q: a connector acts between two bodies (or a body and %q); it cannot connect a node to itself", b, node.Ground)
		}
		if len(c.Local) != 0 && len(c.Local) != 2 {
			bad(p+".local", "has %d points, want 2 (or none: both at the origin)", len(c.Local))
		}
		for k, l := range c.Local {
			if len(l) != 3 {
				bad(fmt.Sprintf("%s.local[%d]", p, k), "has %d value%s, want 3 (x, y, z)", len(l), plural(len(l)))
			}
			for _, x := range l {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					bad(fmt.Sprintf("%s.local[%d]", p, k), "is not finite")
					break
				}
			}
		}
	}
	for i, e := range sc.Edges {
		p := fmt.Sprintf("edges[%d]", i)
		if e.From == "" {
			bad(p+".from", "missing")
		}
		if e.To == "" {
			bad(p+".to", "missing")
		}
		if t := e.Transform; t != nil {
			errs = append(errs, t.check(p+".transform")...)
		}
		fn, _, _ := strings.Cut(e.From, ".")
		tn, _, _ := strings.Cut(e.To, ".")
		if e.From != "" && fn == tn {
			bad(p, "%s -> %s wires node %q into its own input; a node's inputs come from other nodes (a self-wired input reads the node's own previous value, a loop the node must model itself)", e.From, e.To, fn)
		}
	}
	r := sc.Run
	if sc.isPart() {
		r = Run{Dt: 1, Steps: 1} // a part's run is its parent's
	}
	if !(r.Dt > 0) || math.IsInf(r.Dt, 0) {
		bad("run.dt", "%v: the step must be finite and positive", r.Dt)
	}
	if r.Steps < 0 {
		bad("run.steps", "%d is negative", r.Steps)
	}
	if math.IsNaN(r.End) || math.IsInf(r.End, 0) || r.End < 0 {
		bad("run.end", "%v: the end time must be finite and not negative", r.End)
	}
	if r.Steps == 0 && !(r.End > 0) {
		bad("run", "give steps or a positive end time")
	}
	if r.Steps > 0 && r.End > 0 {
		bad("run", "steps (%d) and end (%v) are both given; give one: steps runs steps·dt, end runs to that time", r.Steps, r.End)
	}
	if r.Steps == 0 && r.End > 0 && r.Dt > r.End {
		bad("run.dt", "%v is larger than the run, which ends at %v (runs start at 0): the run would step past its end", r.Dt, r.End)
	}
	if r.Dt > 0 && r.End/r.Dt > 1e9 || r.Steps > 1e9 {
		bad("run", "more than 1e9 steps")
	}
	if r.Workers < 0 {
		bad("run.workers", "%d is negative", r.Workers)
	}
	switch r.Mode {
	case "", coSimulation:
		if r.Integrator != nil {
			bad("run.integrator", "is for monolithic runs, but the mode is %s (nodes step themselves): set \"mode\": %q or remove it", coSimulation, monolithic)
		}
		if r.Coupling != nil {
			if _, err := r.Coupling.Strategy(); err != nil {
				bad("run.coupling", "%v", err)
			}
		}
	case monolithic:
		if r.Integrator == nil {
			bad("run.integrator", "missing: a monolithic run needs a method, e.g. {\"method\": \"rk4\"}; methods: %s", strings.Join(methodNames(), ", "))
		} else {
			errs = append(errs, r.Integrator.check("run.integrator")...)
		}
		if r.Coupling != nil {
			bad("run.coupling", "is for co-simulation; a monolithic run integrates all nodes together: remove it or set \"mode\": %q", coSimulation)
		}
	default:
		bad("run.mode", "%q is not a mode; use %s%s", r.Mode, strings.Join(modes, " or "), node.DidYouMean(r.Mode, modes))
	}
	if sc.Record.Every < 0 {
		bad("record.every", "%d is negative", sc.Record.Every)
	}
	if len(sc.Record.Times) > 0 {
		if !sc.adaptive() {
			bad("record.times", "dense output is for adaptive monolithic runs (run.integrator.adaptive); fixed-step runs record every record.every steps")
		}
		end := sc.EndTime()
		for i, t := range sc.Record.Times {
			if math.IsNaN(t) || t < 0 || t > end || i > 0 && t < sc.Record.Times[i-1] {
				bad(fmt.Sprintf("record.times[%d]", i), "%v: times must ascend within [0, %v], the end time", t, end)
				break
			}
		}
	}
	for i, f := range sc.Record.Fields {
		if _, _, _, err := splitField(f); err != nil {
			bad(fmt.Sprintf("record.fields[%d]", i), "%v", err)
		}
	}
	if l := sc.Loops; l != nil {
		for _, v := range []struct {
			key string
			v   float64
		}{{"rtol", l.RTol}, {"atol", l.ATol}, {"max_iter", float64(l.MaxIter)}, {"max_fallback_iter", float64(l.MaxFallbackIter)}} {
			if v.v < 0 || math.IsNaN(v.v) || math.IsInf(v.v, 0) {
				bad("loops."+v.key, "%v is negative or not finite (0: the default)", v.v)
			}
		}
	}
	sc.checkFMU(bad)
	return
}

// check validates a transform's kind and the settings of its kind; path
// is where it is ("edges[2].transform"). Decode also rejects the keys of
// other kinds even when they are zero.
func (t *Transform) check(path string) []error {
	var errs []error
	bad := func(field string, f string, a ...any) {
		errs = append(errs, &Error{Path: path + field, Err: fmt.Errorf(f, a...)})
	}
	switch t.Kind {
	case "scale":
		if t.Factor == 0 {
			bad(".factor", "missing: a scale transform needs a non-zero factor, e.g. {\"kind\": \"scale\", \"factor\": 1000, \"from\": \"kN\", \"to\": \"N\"}")
		} else if math.IsNaN(t.Factor) || math.IsInf(t.Factor, 0) {
			bad(".factor", "%v is not finite", t.Factor)
		}
	case "component":
		if t.Index < 0 {
			bad(".index", "%d is negative", t.Index)
		}
	case "embed":
		if t.Len < 1 {
			bad(".len", "missing or less than 1: an embed transform needs the length of the vector, e.g. {\"kind\": \"embed\", \"axis\": 1, \"len\": 3}")
		} else if t.Axis < 0 || t.Axis >= t.Len {
			bad(".axis", "%d is outside a vector of %d components", t.Axis, t.Len)
		}
	default:
		bad(".kind", "%q is not a transform kind%s", t.Kind, node.DidYouMean(t.Kind, transformKinds))
		return errs
	}
	// Settings of another kind, given non-zero.
	for _, k := range []struct {
		key string
		set bool
	}{{"factor", t.Factor != 0}, {"from", t.From != ""}, {"to", t.To != ""}, {"index", t.Index != 0}, {"axis", t.Axis != 0}, {"len", t.Len != 0}} {
		if k.set && !slices.Contains(transformKeys[t.Kind], k.key) {
			bad("."+k.key, "is not a setting of the %s transform, which takes %s", t.Kind, strings.Join(transformKeys[t.Kind], ", "))
		}
	}
	return errs
}

// splitField splits a recorded field "node.field" or "node.field[i]"
// into its node, field and component (-1 for the whole field).
func splitField(f string) (nn, fn string, comp int, err error) {
	comp = -1
	base := f
	if i := strings.IndexByte(f, '['); i >= 0 {
		k, aerr := strconv.Atoi(strings.TrimSuffix(f[i+1:], "]"))
		if !strings.HasSuffix(f, "]") || aerr != nil || k < 0 {
			return "", "", 0, fmt.Errorf("%q: the component must be a non-negative integer, as in node.field[1]", f)
		}
		base, comp = f[:i], k
	}
	// At the last '.': the node is a path through subsystems,
	// "leg2.knee.spring.position".
	i := strings.LastIndexByte(base, '.')
	if i < 0 {
		i = len(base)
	}
	nn, fn = base[:i], strings.TrimPrefix(base[i:], ".")
	if nn == "" || fn == "" || strings.HasPrefix(nn, ".") || strings.Contains(nn, "..") {
		return "", "", 0, fmt.Errorf("%q is not of the form node.field or node.field[i]", f)
	}
	return nn, fn, comp, nil
}

// methodNames are the methods a scene may name: the built-in ones and
// those a program registered (integrators.Register).
func methodNames() []string { return integrators.Names() }

// check validates the integrator settings; path is where they are.
func (in *IntegrationMethod) check(path string) []error {
	var errs []error
	bad := func(field string, f string, a ...any) {
		errs = append(errs, &Error{Path: path + field, Err: fmt.Errorf(f, a...)})
	}
	m, err := integrators.ByName(in.Method)
	if in.Method == "" {
		bad(".method", "missing; one of %s", strings.Join(methodNames(), ", "))
	} else if err != nil {
		bad(".method", "%q is not a method%s; one of %s", in.Method, node.DidYouMean(in.Method, methodNames()), strings.Join(methodNames(), ", "))
	}
	_, isGA := m.(integrators.GeneralizedAlpha)
	_, isNewmark := m.(integrators.Newmark)
	_, isAdaptive := m.(integrators.AdaptiveMethod)
	_, implicit := m.(integrators.NewtonMethod)
	if in.RhoInf != nil {
		if !isGA {
			bad(".rho_inf", "is a parameter of %s, not of %q", integrators.MethodGeneralizedAlpha, in.Method)
		} else if r := *in.RhoInf; !(r >= 0 && r <= 1) {
			bad(".rho_inf", "%v is outside [0, 1]", r)
		}
	}
	for _, v := range []struct {
		name string
		x    *float64
	}{{".beta", in.Beta}, {".gamma", in.Gamma}} {
		if v.x == nil {
			continue
		}
		if !isNewmark {
			bad(v.name, "is a parameter of %s, not of %q", integrators.MethodNewmark, in.Method)
		} else if math.IsNaN(*v.x) || math.IsInf(*v.x, 0) || *v.x < 0 || v.name == ".beta" && *v.x == 0 {
			bad(v.name, "%v: newmark needs beta > 0 and gamma >= 0", *v.x)
		}
	}
	if in.Adaptive && err == nil && !isAdaptive {
		bad(".adaptive", "%s has no error control; an adaptive run takes %s, %s, %s or %s", in.Method, integrators.MethodDormandPrince, integrators.MethodBDF, integrators.MethodESDIRK43, integrators.MethodESDIRK32)
	}
	for _, v := range []struct {
		name string
		x    float64
	}{{".rtol", in.RTol}, {".atol", in.ATol}, {".initial_step", in.InitialStep}, {".min_step", in.MinStep}, {".max_step", in.MaxStep}, {".event_tol", in.EventTol}} {
		if v.x == 0 {
			continue
		}
		switch {
		case !in.Adaptive:
			bad(v.name, "is a setting of the adaptive integrator; set \"adaptive\": true (with %s, %s, %s or %s) or remove it", integrators.MethodDormandPrince, integrators.MethodBDF, integrators.MethodESDIRK43, integrators.MethodESDIRK32)
		case !(v.x > 0) || math.IsInf(v.x, 0):
			bad(v.name, "%v must be finite and positive", v.x)
		default:
			// The tolerance floor is the integrators' own rule
			// (integrators.MinRTol, MinATol), the one every adaptive
			// method applies when it starts.
			var c integrators.StepControl
			switch v.name {
			case ".rtol":
				c.RTol = v.x
			case ".atol":
				c.ATol = v.x
			}
			var ce *integrators.ControlError
			if errors.As(c.Check(), &ce) {
				bad(v.name, "%v %s", v.x, ce.Reason)
			}
		}
	}
	if in.MaxSteps != 0 && !in.Adaptive {
		bad(".max_steps", "is a setting of the adaptive integrator; set \"adaptive\": true or remove it")
	} else if in.MaxSteps < 0 {
		bad(".max_steps", "%d is negative", in.MaxSteps)
	}
	if err == nil && !implicit && (in.NewtonTol != 0 || in.NewtonMaxIter != 0) {
		bad("", "newton_tol and newton_max_iter are for implicit methods; %s is explicit", in.Method)
	}
	if !(in.NewtonTol >= 0) || math.IsInf(in.NewtonTol, 0) {
		bad(".newton_tol", "%v must be finite and not negative", in.NewtonTol)
	}
	if in.NewtonMaxIter < 0 {
		bad(".newton_max_iter", "%d is negative", in.NewtonMaxIter)
	}
	errs = append(errs, in.checkLinear(path, err == nil && !implicit)...)
	return errs
}

// checkLinear validates the linear-solver keys; explicit says the method
// has no Newton iteration to configure.
func (in *IntegrationMethod) checkLinear(path string, explicit bool) []error {
	var errs []error
	bad := func(field string, f string, a ...any) {
		errs = append(errs, &Error{Path: path + field, Err: fmt.Errorf(f, a...)})
	}
	if explicit && (in.LinearSolver != "" || in.Preconditioner != "" || in.Forcing != "" || in.KrylovTol != 0 ||
		in.KrylovRestart != 0 || in.KrylovMaxIter != 0 || in.MatrixFree || in.JacobianMaxAge != 0) {
		bad("", "linear_solver, preconditioner, forcing, krylov_tol, krylov_restart, krylov_max_iter, matrix_free and jacobian_max_age are for implicit methods; %s is explicit", in.Method)
	}
	names := []struct {
		key, v string
		valid  []string
	}{
		{".linear_solver", in.LinearSolver, integrators.LinearSolverNames()},
		{".preconditioner", in.Preconditioner, integrators.PreconditionerNames()},
		{".forcing", in.Forcing, integrators.ForcingNames()},
	}
	for _, n := range names {
		if n.v != "" && !slices.Contains(n.valid, n.v) {
			bad(n.key, "%q is not valid%s; one of %s", n.v, node.DidYouMean(n.v, n.valid), strings.Join(n.valid, ", "))
		}
	}
	if !(in.KrylovTol >= 0 && in.KrylovTol < 1) {
		bad(".krylov_tol", "%v must be in [0, 1)", in.KrylovTol)
	}
	for _, v := range []struct {
		key string
		x   int
	}{{".krylov_restart", in.KrylovRestart}, {".krylov_max_iter", in.KrylovMaxIter}, {".jacobian_max_age", in.JacobianMaxAge}} {
		if v.x < 0 {
			bad(v.key, "%d is negative", v.x)
		}
	}
	if in.LinearSolver == "dense" && (in.Preconditioner != "" || in.Forcing != "" || in.KrylovTol != 0 || in.KrylovRestart != 0 || in.KrylovMaxIter != 0 || in.MatrixFree || in.JacobianMaxAge != 0) {
		bad("", "preconditioner, forcing, krylov_* , matrix_free and jacobian_max_age configure GMRES; linear_solver is \"dense\"")
	}
	if in.LinearSolver == "banded" && (in.Preconditioner != "" || in.Forcing != "" || in.KrylovTol != 0 || in.KrylovRestart != 0 || in.KrylovMaxIter != 0 || in.MatrixFree) {
		bad("", "preconditioner, forcing, krylov_* and matrix_free configure GMRES; linear_solver is \"banded\" (a direct solver)")
	}
	return errs
}
