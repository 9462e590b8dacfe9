// Package twomass is the two-mass, two-mode consumer of
// MADDENING's generalized-alpha guide ("Two masses, two known modes",
// MADDENING 0.4 documentation; the glossary, docs/glossary.md, cites it): the
// problem, runs of the package driver (integrators.SecondOrderStepper), an
// independent dense reference of the same recurrence, and the
// measurements (modal energy, phase lag, refinement order, spectral
// radius, counted work) shared by examples/structuralmodes,
// benchmarks/structuralmodes, benchmarks/generalizedalpha and the
// verification suite.
//
// # The problem
//
// Two unit masses, each tied to the ground by a spring, share a coupling
// spring: M = I and
//
//	K = [[g + c, −c], [−c, g + c]],  g = ω₁², c = (ω₂² − ω₁²)/2,
//
// so the in-phase mode (1, 1)/√2 has frequency ω₁ and the out-of-phase
// mode (1, −1)/√2 frequency ω₂. There is no damping and no forcing; with
// modal displacement amplitudes A_j and zero velocity the exact solution
// is z_j(t) = A_j·cos(ω_j t) and each modal energy ½ż_j² + ½ω_j²z_j² is
// constant. [Seed] is the MADDENING two-mass guide's problem (ω = 1 and 40 rad/s, A = 1 and
// 0.05: K = [[800.5, −799.5], [−799.5, 800.5]]), run at dt = 0.1 s for 120
// steps; the fast mode has 1.57 samples per period and is deliberately
// under-resolved. [Resolved] (ω = 1 and 3 rad/s, A = 1 and 0.5, T = 2 s)
// is the separate grid of the refinement study.
//
// # The driver and the reference
//
// [Run] steps the package driver with an explicit Memory, passing every
// accepted Outcome.Memory into the next call (the carried algorithmic
// acceleration); with reset it passes an empty Memory every step, the
// MADDENING two-mass guide's negative control (the physical acceleration −K·q refreshed
// every step, as the audited upstream source does).
//
// [Amplification] is the independent reference: the one-step map
// x_{n+1} = A·x_n, x = (q, v, a), of the generalized-alpha recurrence for
// M·q̈ + K·q = 0, written out as a dense linear system L·x_{n+1} = R·x_n
// (gonum mat) from the classical parameters computed here ([Classical]),
// without calling package integrators:
//
//	q_{n+1} − β·dt²·a_{n+1}                  = q_n + dt·v_n + (½ − β)·dt²·a_n
//	v_{n+1} − γ·dt·a_{n+1}                   = v_n + (1 − γ)·dt·a_n
//	(1 − αf)·K·q_{n+1} + (1 − αm)·a_{n+1}    = −αf·K·q_n − αm·a_n
//
// (force balance at the old-state weighted point, Chung & Hulbert 1993).
// [ReferenceRun] solves it every step, mode by mode (closed modal form),
// from the physical initial acceleration; [DenseRun] does the same with
// the dense 6×6 system in physical coordinates as a cross-check;
// [SpectralRadius] takes the largest eigenvalue modulus of the 3×3 map of
// one mode q̈ = −ω²q.
//
// # Invariants
//
// Every function is deterministic and allocates its results; nothing is
// shared between calls, so all are safe for concurrent use.
package twomass
