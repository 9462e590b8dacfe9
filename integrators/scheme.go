package integrators

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Scheme is a fixed-step integration method defined outside this
// package, in the way gonum's optimize.Method lets a caller bring its own
// optimizer: the package wraps it in a Method (Custom) that every driver
// of a Method accepts — Method.New, graph.Sim.RunMonolithic, and scenes
// and the cosim command line once registered (Register).
//
// New returns a Stepper for sys. The Settings passed are the caller's,
// after this package has checked that the caller set none that the
// Scheme does not use: only the event settings and the system's pairs
// and IDs, and the Newton settings if it is a NewtonScheme (see
// Method.New); the event settings are applied by the package, which
// wraps the Stepper to locate events as it does for its own methods
// (re-stepping from Init, or from Checkpoint/Restore when the Stepper is
// a Checkpointer). The Stepper's Method and Order must return the
// Scheme's Name and Order.
//
// A Scheme value is used concurrently by the goroutines that call New;
// it must not change after Custom or Register.
type Scheme interface {
	// Name is the method's stable name: not empty, at most 64 bytes,
	// and (ignoring case) not the name of a built-in method.
	Name() string
	// Order is the declared global order of accuracy, at least 1.
	Order() int
	// New returns a fixed-step Stepper of the method for sys.
	New(sys System, s *Settings) (Stepper, error)
}

// Custom returns the Method of a caller-defined Scheme: its Name and
// Order are the Scheme's and its Kind is UserDefined. The Scheme is checked
// (name, order) when the Method is used.
func Custom(s Scheme) Method {
	if s == nil {
		return Method{Kind: UserDefined}
	}
	return Method{Name: s.Name(), Order: s.Order(), Kind: UserDefined, scheme: s}
}

// Scheme returns the caller-defined Scheme of a Custom method, or nil for
// a built-in one.
func (m Method) Scheme() Scheme { return m.scheme }

// Same reports whether a and b are the same method with the same
// parameters. Unlike ==, it never panics on a Custom method whose Scheme
// is not comparable: such methods are the same when their names, orders
// and Scheme dynamic types agree.
func Same(a, b Method) (same bool) {
	if a.Name != b.Name || a.Order != b.Order || a.Kind != b.Kind || a.Alpha != b.Alpha {
		return false
	}
	if a.scheme == nil || b.scheme == nil {
		return a.scheme == nil && b.scheme == nil
	}
	if fmt.Sprintf("%T", a.scheme) != fmt.Sprintf("%T", b.scheme) {
		return false
	}
	defer func() {
		if recover() != nil {
			same = true // a non-comparable dynamic type: the same by type, name and order
		}
	}()
	return a.scheme == b.scheme
}

// Equal reports Same(m, o); go-cmp uses it to compare methods.
func (m Method) Equal(o Method) bool { return Same(m, o) }

func (m Method) checkScheme() error {
	s := m.scheme
	if s == nil {
		return errors.New("integrators: a Custom method needs a Scheme (integrators.Custom(nil))")
	}
	name := s.Name()
	switch {
	case name == "" || len(name) > 64 || strings.TrimSpace(name) != name:
		return fmt.Errorf("integrators: custom method name %q must be 1 to 64 bytes without surrounding spaces", name)
	case builtinName(name) != "":
		return fmt.Errorf("integrators: custom method %q takes the name of the built-in %s", name, builtinName(name))
	case s.Order() < 1:
		return fmt.Errorf("integrators: custom method %s declares order %d; want at least 1", name, s.Order())
	case m.Name != name || m.Order != s.Order():
		return fmt.Errorf("integrators: custom method %s (order %d) was changed after Custom (now %s, order %d)", m.Name, m.Order, name, s.Order())
	}
	return nil
}

func builtinName(name string) string {
	for _, c := range catalog {
		if strings.EqualFold(c.Name, name) {
			return c.Name
		}
	}
	return ""
}

// registry holds the Schemes added with Register, by lower-case name.
var registry struct {
	sync.RWMutex
	byName map[string]Scheme
	names  []string // in registration order
}

// Register adds s to the methods that ByName (and so scene files and the
// cosim command line) find by name. It returns an error for an invalid
// Scheme, a built-in name, or a name already registered (names compare
// without regard to case). Register is safe for concurrent use; it is
// usually called from an init function or main before any lookup.
func Register(s Scheme) error {
	m := Custom(s)
	if err := m.checkScheme(); err != nil {
		return err
	}
	registry.Lock()
	defer registry.Unlock()
	key := strings.ToLower(m.Name)
	if prev, ok := registry.byName[key]; ok {
		return fmt.Errorf("integrators: method %q is already registered (as %q)", m.Name, prev.Name())
	}
	if registry.byName == nil {
		registry.byName = map[string]Scheme{}
	}
	registry.byName[key] = s
	registry.names = append(registry.names, m.Name)
	return nil
}

// registered returns the registered Scheme named name (any case).
func registered(name string) (Scheme, bool) {
	registry.RLock()
	defer registry.RUnlock()
	s, ok := registry.byName[strings.ToLower(name)]
	return s, ok
}

// Names returns the names ByName accepts: the built-in methods in the
// order of Methods, then the registered ones in registration order.
func Names() []string {
	names := make([]string, 0, len(catalog))
	for _, c := range catalog {
		names = append(names, c.Name)
	}
	registry.RLock()
	defer registry.RUnlock()
	return append(names, slices.Clone(registry.names)...)
}

// Params are the parameters of a method chosen by name, as a scene file
// or a command line gives them (keys beta, gamma, rho_inf); a nil field
// means the method's default.
type Params struct {
	Beta, Gamma *float64 // MethodNewmark (default β = ¼, γ = ½)
	RhoInf      *float64 // MethodGeneralizedAlpha (default DefaultRhoInf)
}

// Configure returns the method named name (ByName: any case, built-in or
// registered) with parameters p, checked as Method.New checks them. A
// parameter the method does not take is an error wrapping
// ErrNotApplicable that names it: β and γ belong to newmark, ρ∞ to
// generalized-alpha.
func Configure(name string, p Params) (Method, error) {
	m, err := ByName(name)
	if err != nil {
		return m, err
	}
	if p.RhoInf != nil && m.Name != MethodGeneralizedAlpha {
		return Method{}, fmt.Errorf("%w: rho_inf is a parameter of %s, not of %s", ErrNotApplicable, MethodGeneralizedAlpha, m.Name)
	}
	if (p.Beta != nil || p.Gamma != nil) && m.Name != MethodNewmark {
		return Method{}, fmt.Errorf("%w: beta and gamma are parameters of %s, not of %s", ErrNotApplicable, MethodNewmark, m.Name)
	}
	switch {
	case p.RhoInf != nil:
		m = GeneralizedAlpha(*p.RhoInf)
	case p.Beta != nil || p.Gamma != nil:
		b, g := m.Alpha.Beta, m.Alpha.Gamma
		if p.Beta != nil {
			b = *p.Beta
		}
		if p.Gamma != nil {
			g = *p.Gamma
		}
		m = Newmark(b, g)
	}
	if err := m.validate(); err != nil {
		return Method{}, err
	}
	return m, nil
}
