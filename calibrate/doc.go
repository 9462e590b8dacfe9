// Package calibrate fits the parameters of any cosim model to measured
// data, with exact gradients through contacts.
//
// # Overview
//
// [Fit] minimises the weighted least-squares misfit
//
//	Φ(p) = ½·Σ_i Σ_k w_k·(y_k(t_i; p) − d_ik)²
//
// between a graph.Sim's recorded fields y_k and the data d ([Data], read
// from CSV by [ReadCSV]) over the free parameters p ([FreeParam]). The
// gradient ∂Φ/∂p = Σ w·r·∂y/∂p is exact: the sensitivities ∂y/∂p come
// from graph.Sim.Sensitivities, which integrates them with the state and
// maps them through located events (a ball's bounces) with the saltation
// jump. The optimizer is gonum's BFGS (or L-BFGS) over unbounded
// variables θ; bounds are imposed by a transform, not by projection:
// p = lo + (hi − lo)/(1 + e^{−θ}) between two bounds, lo + e^θ or hi − e^θ
// for one. Model values at data times are read from the adaptive
// integrator's dense output (interpolated, never snapped to steps).
//
// At the estimates, the Gauss–Newton approximation gives the covariance
// s²·(JᵀWJ)⁻¹, s² = Σ w·r²/(N − p), and the standard errors; when the
// data state their noise σ (Data.Sigma: w = 1/σ²), the covariance is
// (JᵀWJ)⁻¹ itself and the residual is tested against χ² with N − p
// degrees of freedom (Result.PValue): a residual the noise does not
// explain is never reported as converged.
//
// Hybrid models: a data column that jumps at the model's events (a
// ball's velocity at a bounce) makes Φ a staircase in the parameters, on
// whose steps a gradient method stops with a small gradient far from the
// minimum. Fit finds such columns from one run at the start, fits the
// continuous columns first when there are any, compares a jumping value
// that lies between the model's event and the data's jump with the other
// side of the event, polishes with gonum's derivative-free Nelder–Mead,
// and restarts from points around the start when the search stalls
// (Result.Jumping, AcrossEvents, Polished, Warnings; see [Fit]). A parameter
// the data cannot determine — no effect on the data, or part of a
// direction of the column-scaled Jacobian with a relative singular value
// below Settings.IdentifiabilityTol — is reported as unidentifiable, with
// an infinite standard error, not given a silent arbitrary value.
//
// # Invariants
//
//   - Fit changes only the free parameters of the Sim (SetParams), which
//     it leaves at the estimates; the Sim's state and time are untouched.
//   - The same problem gives the same estimates bit for bit: every run is
//     deterministic and the optimizer is sequential.
//   - Data are validated first (shape, each column once, ascending times,
//     finite values, weights or noise, more values than free parameters
//     unless the noise is stated); NaN marks a missing value and weight 0
//     a dropped column, neither of which is counted in N. [ReadCSV]
//     reads at most MaxDataBytes and MaxDataValues, numbers in the one
//     syntax of every cosim input (decimal: no "1_0", no hexadecimal).
//
// # Concurrency
//
// Fit runs on the calling goroutine and uses its Sim exclusively: do not
// step or tune the Sim while Fit runs. Distinct Sims may be fitted
// concurrently.
package calibrate
