package node

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Stability says how settled a node's algorithm is.
type Stability int

const (
	Stable Stability = iota
	Evolving
	Experimental
	Deprecated
)

func (s Stability) String() string {
	switch s {
	case Stable:
		return "stable"
	case Evolving:
		return "evolving"
	case Experimental:
		return "experimental"
	case Deprecated:
		return "deprecated"
	}
	return fmt.Sprintf("Stability(%d)", int(s))
}

// MarshalText encodes the stability by name, for stable JSON.
func (s Stability) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// DefaultOrderTol is the bound on |p − Order.Temporal| between an
// observed order of accuracy p and the declared one when a node states no
// other (Order.TemporalTol zero): over the finest pair of a refinement
// ladder the next term of the error expansion moves p by O(Δt), far less
// than 0.1 once the asymptotic range is reached.
const DefaultOrderTol = 0.1

// Order is a declared order of accuracy. Spatial is 0 for nodes that
// integrate an ODE (no spatial discretization: "none").
type Order struct {
	Spatial  float64 `json:"spatial,omitempty"`
	Temporal float64 `json:"temporal"`
	// TemporalTol is the bound on |p − Temporal| an observed temporal
	// order p must meet; zero means DefaultOrderTol. A node that needs
	// another bound (a pre-asymptotic ladder, an order that is only
	// approached) sets it and says why in TolReason.
	TemporalTol float64 `json:"temporal_tol,omitempty"`
	// TolReason justifies a non-zero TemporalTol; it is required with one
	// and must be empty without one (Validate).
	TolReason string `json:"tol_reason,omitempty"`
	// Note qualifies the claim (which regime, which norm).
	Note string `json:"note,omitempty"`
}

// Tol returns the bound on |p − Temporal|: TemporalTol, or
// DefaultOrderTol when it is zero.
func (o Order) Tol() float64 {
	if o.TemporalTol == 0 {
		return DefaultOrderTol
	}
	return o.TemporalTol
}

// Validate reports an inconsistent declaration: a negative or non-finite
// order or tolerance, a TemporalTol without a TolReason, or a TolReason
// without a TemporalTol.
func (o Order) Validate() error {
	switch {
	case math.IsNaN(o.Spatial) || math.IsInf(o.Spatial, 0) || o.Spatial < 0:
		return fmt.Errorf("node: order: spatial order %v is not a finite non-negative number", o.Spatial)
	case math.IsNaN(o.Temporal) || math.IsInf(o.Temporal, 0) || o.Temporal < 0:
		return fmt.Errorf("node: order: temporal order %v is not a finite non-negative number", o.Temporal)
	case math.IsNaN(o.TemporalTol) || math.IsInf(o.TemporalTol, 0) || o.TemporalTol < 0:
		return fmt.Errorf("node: order: temporal tolerance %v is not a finite non-negative number", o.TemporalTol)
	case o.TemporalTol != 0 && strings.TrimSpace(o.TolReason) == "":
		return fmt.Errorf("node: order: temporal tolerance %v replaces the default %v without a TolReason", o.TemporalTol, DefaultOrderTol)
	case o.TemporalTol == 0 && o.TolReason != "":
		return fmt.Errorf("node: order: TolReason %q given without a TemporalTol", o.TolReason)
	}
	return nil
}

func (o Order) String() string {
	sp := "none"
	if o.Spatial != 0 {
		sp = strconv.FormatFloat(o.Spatial, 'g', -1, 64)
	}
	return fmt.Sprintf("spatial %s, temporal %s", sp, strconv.FormatFloat(o.Temporal, 'g', -1, 64))
}

// Mapping ties an equation term to the Go identifier that implements it,
// as "package-path.Identifier" or "package-path.Type.Method". A test parses
// the packages and checks every identifier exists. Term is Markdown: math
// goes between dollar signs ("$\dot v = g$ (gravity)"), words are plain.
type Mapping struct {
	Term       string `json:"term"`       // Markdown, math in $…$
	Identifier string `json:"identifier"` // e.g. "github.com/cosimgo/cosim/nodes/ball.Node.Update"
	Notes      string `json:"notes,omitempty"`
}

// Regime is a validated range of a parameter.
type Regime struct {
	Param string `json:"param"`
	Range string `json:"range"` // LaTeX or words, e.g. "$0$ – $1$"
	Notes string `json:"notes,omitempty"`
}

// Reference is a bibliographic reference.
type Reference struct {
	Key  string `json:"key"`  // e.g. "Hairer2006"
	Text string `json:"text"` // the citation
	Note string `json:"note,omitempty"`
}

// Change is one changelog entry.
type Change struct {
	Version string `json:"version"`
	Date    string `json:"date"` // YYYY-MM-DD
	Change  string `json:"change"`
}

// Metadata is what a node says about itself: which algorithm it runs, how
// accurately, under which assumptions, and what is known to be wrong with
// it. Documentation is generated from it; tests hold it to the code.
type Metadata struct {
	AlgorithmID string    `json:"algorithm_id"` // unique across node types, e.g. "MADD-NODE-001"
	Version     string    `json:"version"`      // semantic version of the algorithm
	Stability   Stability `json:"stability"`
	// Replacement says what to use instead, for a Deprecated node.
	Replacement string `json:"replacement,omitempty"`
	// DeprecatedSince is the cosim version that deprecated the node.
	DeprecatedSince string `json:"deprecated_since,omitempty"`
	Summary         string `json:"summary"`
	// Equations are the governing equations, each LaTeX display math
	// without delimiters.
	Equations []string `json:"equations"`
	// EquationNotes explains the symbols in Equations (Markdown, $…$ math).
	EquationNotes string `json:"equation_notes,omitempty"`
	// Discretization is the name of the scheme Update runs, exactly as the
	// integrators package names it (e.g. "semi-implicit-euler"); "" for a
	// stateless node. A test checks Update against that scheme applied to
	// Derivatives, so metadata can never name a scheme the code does not run.
	Discretization string `json:"discretization,omitempty"`
	// DiscretizationNotes describes the scheme in words and LaTeX.
	DiscretizationNotes string   `json:"discretization_notes,omitempty"`
	Order               Order    `json:"order"`
	Assumptions         []string `json:"assumptions"`
	Limitations         []string `json:"limitations"`
	Regimes             []Regime `json:"validated_regimes"`
	StabilityConditions []string `json:"stability_conditions"`
	// StableStep states the largest stable step of fixed-step explicit
	// stepping (a formula with units), or that there is none; nil when
	// the node has no state and no stiffness of its own to bound it.
	StableStep *StableStep `json:"stable_step,omitempty"`
	Mapping    []Mapping   `json:"implementation_mapping"`
	References []Reference `json:"references"`
	Anomalies  []string    `json:"anomalies"`             // anomaly IDs, e.g. "MADD-ANO-011"
	Evidence   []string    `json:"verification_evidence"` // benchmark IDs, e.g. "MADD-VER-010"
	Changelog  []Change    `json:"changelog"`
}
