package node

import (
	"fmt"
	"math"
	"strings"
)

// This file declares how nodes state the largest step at which explicit
// fixed-step stepping stays stable: in their metadata, as a formula for
// people ([StableStep]), and at run time, as a number for graphs
// ([StepLimiter], with [MarkerMass] for the bodies a connector joins).

// StableStep is a node's statement, in Metadata.StableStep, of the
// largest step Δt for which fixed-step explicit stepping of it stays
// bounded: in co-simulation every body advances by semi-implicit Euler
// with the forces of the step's start held over the step, and a stiff
// element makes that blow up beyond the limit. A node whose limit depends
// on the bodies it joins (a spring between masses) states the formula in
// the symbols of its own and its bodies' parameters; a graph evaluates it
// through [StepLimiter].
type StableStep struct {
	// Limit is the bound as LaTeX display math without delimiters, e.g.
	// `\Delta t < 2\sqrt{\mu / k}`; "" when the scheme has no stability
	// limit (Unconditional).
	Limit string `json:"limit,omitempty"`
	// Units are the units of the bound ("s").
	Units string `json:"units,omitempty"`
	// Unconditional says the node's stepping is stable at every Δt (the
	// accuracy still depends on it); Limit is then empty.
	Unconditional bool `json:"unconditional,omitempty"`
	// Notes explains the symbols, the scheme the bound is for and how it
	// was derived (Markdown, $…$ math).
	Notes string `json:"notes"`
	// Computed says the node implements [StepLimiter], so that graphs
	// evaluate the bound and warn when the step exceeds it.
	Computed bool `json:"computed,omitempty"`
}

// Validate reports an inconsistent statement: a bound without units or
// notes, or both a bound and Unconditional (or neither).
func (s *StableStep) Validate() error {
	switch {
	case s == nil:
		return nil
	case s.Unconditional && s.Limit != "":
		return fmt.Errorf("node: stable step: both Unconditional and the limit %q", s.Limit)
	case !s.Unconditional && strings.TrimSpace(s.Limit) == "":
		return fmt.Errorf("node: stable step: no limit and not Unconditional")
	case s.Limit != "" && strings.TrimSpace(s.Units) == "":
		return fmt.Errorf("node: stable step: the limit %q has no units", s.Limit)
	case strings.TrimSpace(s.Notes) == "":
		return fmt.Errorf("node: stable step: no notes explaining the bound")
	case s.Unconditional && s.Computed:
		return fmt.Errorf("node: stable step: Computed with an unconditional scheme")
	}
	return nil
}

// StepLimit is a stable step evaluated for one node in its graph.
type StepLimit struct {
	// Dt is the largest stable step (s); +Inf when there is none.
	Dt float64
	// Why names the bound with its numbers, e.g. "axis y: 2/ω with
	// ω² = k/μ = 1000 s⁻², damping 250 N s/m, μ = 5 kg", for messages.
	Why string
}

// NoStepLimit returns the StepLimit of a node with no finite bound
// (Dt = +Inf).
func NoStepLimit() StepLimit { return StepLimit{Dt: math.Inf(1)} }

// StepLimiter is the capability of a node whose explicit stepping is
// stable only below a step that it can compute: a stiff connector from
// its stiffness and the masses of the bodies it joins, which it reads
// through their [MarkerMass] capability. StableStepAt receives the node's
// state and inputs at the start of a run (a connector's inputs carry its
// bodies' marker fields) and returns the limit, or NoStepLimit(). It is
// called once per run, off the per-step path, and must not retain x or
// in.
type StepLimiter interface {
	StableStepAt(t float64, x []float64, in Inputs) StepLimit
}

// StepBounder is an optional companion of [StepLimiter] for a node
// whose StepLimit.Why costs more to build than the bound itself:
// StableDtAt returns exactly the Dt that StableStepAt returns for the
// same arguments, without Why. A graph checks every limiter at the start
// of each run, so it asks a StepBounder for the number and calls
// StableStepAt only for the nodes whose bound the step exceeds. The same
// rules as StableStepAt apply.
type StepBounder interface {
	StableDtAt(t float64, x []float64, in Inputs) float64
}

// MarkerMass is the capability of a [Marker] body that states its
// inertia at a marker, so that a connector can compute its stable step.
// MarkerInverseMass writes the inverse effective mass of the marker at
// local along the world axes x, y and z into dst: the acceleration of the
// marker along axis i per unit force along axis i (1/kg). A point mass
// writes 1/m on every axis; a rigid body adds the rotational part
// (r × eᵢ)ᵀ I⁻¹ (r × eᵢ) of its world inertia I and moment arm r; a body
// that cannot move along an axis writes 0 there. x is the body's state
// over its MarkerFields, as for the other Marker methods.
type MarkerMass interface {
	MarkerInverseMass(x []float64, local [3]float64, dst *[3]float64)
}

// SpringStableStep is the stable step of semi-implicit Euler for one
// damped oscillator ẍ + c ẋ + ω² x = 0 with the spring and damper forces
// of the step's start: the iteration is stable when
// ω²Δt² + 2cΔt < 4, that is Δt < (√(c² + 4ω²) − c)/ω² (2/ω undamped).
// Derivation: the step maps (v, x) by a matrix with trace 2 − cΔt − ω²Δt²
// and determinant 1 − cΔt; the Jury conditions |det| < 1 and
// |trace| < 1 + det reduce to the bound above. It returns +Inf when
// ω² ≤ 0 (no restoring spring) and c ≥ 0, and 2/c when ω² ≤ 0 < c (the
// damper alone: |1 − cΔt| < 1). A negative damping is unstable at every
// step; it returns +Inf for it too, because no step helps.
func SpringStableStep(omega2, c float64) float64 {
	if c < 0 {
		return math.Inf(1)
	}
	if omega2 <= 0 {
		if c == 0 {
			return math.Inf(1)
		}
		return 2 / c
	}
	return (math.Sqrt(c*c+4*omega2) - c) / omega2
}
