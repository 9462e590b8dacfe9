package integrators

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// catalog lists the built-in methods, with default options, in the order
// Methods and Names give them.
var catalog = []Method{
	ForwardEuler{},
	SemiImplicitEuler{},
	Heun{},
	RK4{},
	DormandPrince{},
	BackwardEuler{},
	ImplicitTrapezoid{},
	Newmark{},
	GeneralizedAlpha{RhoInf: DefaultRhoInf},
	ESDIRK43{},
	ESDIRK32{},
	BDF{},
}

// Methods returns every built-in method in a fixed order, with default
// options (GeneralizedAlpha with ρ∞ = DefaultRhoInf): ForwardEuler,
// SemiImplicitEuler, Heun, RK4, DormandPrince, BackwardEuler,
// ImplicitTrapezoid, Newmark, GeneralizedAlpha, ESDIRK43, ESDIRK32, BDF.
func Methods() []Method { return slices.Clone(catalog) }

// ErrUnknownMethod is wrapped by the error of ByName for an unknown name.
var ErrUnknownMethod = errors.New("integrators: unknown method")

// registry holds the methods added with Register, by lower-case name.
// It is the package's one mutable state.
var registry struct {
	sync.RWMutex
	byName map[string]Method
	names  []string // in registration order
}

// ByName returns the method with the given stable name: a built-in one
// with its default options (Newmark β = ¼, γ = ½; generalized-alpha
// ρ∞ = DefaultRhoInf), or a method added with Register as it was
// registered. Names are matched without regard to case ("RK4" is "rk4");
// the error for an unknown name wraps ErrUnknownMethod, lists the valid
// names (Names) and suggests the nearest.
func ByName(name string) (Method, error) {
	for _, m := range catalog {
		if strings.EqualFold(m.Name(), name) {
			return m, nil
		}
	}
	registry.RLock()
	m, ok := registry.byName[strings.ToLower(name)]
	registry.RUnlock()
	if ok {
		return m, nil
	}
	names := Names()
	hint := ""
	lower := make([]string, len(names))
	for i, n := range names {
		lower[i] = strings.ToLower(n)
	}
	if i := slices.Index(lower, nearest(strings.ToLower(name), lower)); i >= 0 {
		hint = fmt.Sprintf("; did you mean %q?", names[i])
	}
	shown := name
	if len(shown) > 64 {
		shown = strings.ToValidUTF8(shown[:64], "") + "…"
	}
	return nil, fmt.Errorf("%w %q (want one of %s)%s", ErrUnknownMethod, shown, strings.Join(names, ", "), hint)
}

// Register adds a method defined outside this package to those ByName
// (and so scene files, the cosim command line and checkpoint readers)
// find by its Name. ByName then returns m itself, so its options are the
// defaults a scene gets. It returns an error for an invalid method (see
// Method), a built-in name, or a name already registered (names compare
// without regard to case). Register is safe for concurrent use; it is
// usually called from an init function or main before any lookup, and a
// registration lasts as long as the process.
func Register(m Method) error {
	if m == nil {
		return errors.New("integrators: Register: no Method (nil)")
	}
	if _, ok := m.(builtin); ok {
		return fmt.Errorf("integrators: Register: %s is built in; ByName already finds it", m.Name())
	}
	if err := checkCustom(m); err != nil {
		return err
	}
	registry.Lock()
	defer registry.Unlock()
	key := strings.ToLower(m.Name())
	if prev, ok := registry.byName[key]; ok {
		return fmt.Errorf("integrators: method %q is already registered (as %q)", m.Name(), prev.Name())
	}
	if registry.byName == nil {
		registry.byName = map[string]Method{}
	}
	registry.byName[key] = m
	registry.names = append(registry.names, m.Name())
	return nil
}

// Names returns the names ByName accepts: the built-in methods in the
// order of Methods, then the registered ones in registration order.
func Names() []string {
	names := make([]string, 0, len(catalog))
	for _, c := range catalog {
		names = append(names, c.Name())
	}
	registry.RLock()
	defer registry.RUnlock()
	return append(names, registry.names...)
}

// builtinName returns the built-in method name equal to name in any
// case, or "".
func builtinName(name string) string {
	for _, c := range catalog {
		if strings.EqualFold(c.Name(), name) {
			return c.Name()
		}
	}
	return ""
}

// nearest returns the name within edit distance 2 of s (or the one s is
// a prefix of) closest to it, or "".
func nearest(s string, names []string) string {
	if len(s) > 64 {
		return "" // no method name is that long; skip the O(len) distances
	}
	best, bestD := "", 3
	for _, n := range names {
		d := editDistance(s, n)
		if strings.HasPrefix(n, s) && len(s) >= 2 {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
