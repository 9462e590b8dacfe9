package integrators

import (
	"fmt"
	"strconv"
	"strings"
)

// LinearSolver selects how the implicit and structural methods solve the
// linear system of every Newton iteration.
type LinearSolver int

const (
	// LinearAuto (the zero value) is dense LU for at most AutoDenseMax
	// unknowns and GMRES above.
	LinearAuto LinearSolver = iota
	// LinearDense factors the Newton matrix with dense LU (gonum) at every
	// iteration: exact, O(n²) memory and O(n³) time.
	LinearDense
	// LinearGMRES solves it with restarted GMRES(m), right-preconditioned
	// (LinearOptions.Preconditioner), to a relative residual given by the
	// forcing term (LinearOptions.Forcing): an inexact Newton method, O(nnz)
	// memory and time per iteration.
	LinearGMRES
	// LinearBanded is a direct banded LU with partial pivoting of the
	// sparse Newton matrix, its bandwidths taken from the pattern: exact
	// and O(n·kl·(kl+ku)), for Systems whose coupled unknowns are close
	// in the state order (chains built in order); on a general graph the
	// bandwidth, hence the cost, can reach that of dense LU. The matrix
	// is reused like GMRES's (LinearOptions.JacobianMaxAge), so Newton becomes
	// a chord iteration between assemblies.
	LinearBanded
)

// AutoDenseMax is the largest number of Newton unknowns for which
// LinearAuto uses dense LU. Measured on the stiff chain (W4 of package
// benchmarks, backward Euler and generalized-alpha, 100 steps of 1 ms,
// 1 to 48 masses): GMRES with block-Jacobi (reusing its matrix) was
// faster per step than dense LU (which forms and factors the Jacobian at
// every Newton iteration) from the smallest size, 2–10× from 12 unknowns
// on. Below 24 unknowns both take well under 0.1 ms per step, and there
// dense LU is kept for its exact Newton iteration (no Krylov tolerance,
// no matrix reuse); the W4 section of benchmarks/REPORT.md re-measures
// the crossover.
const AutoDenseMax = 24

var linearNames = [...]string{LinearAuto: "auto", LinearDense: "dense", LinearGMRES: "gmres", LinearBanded: "banded"}

// String returns the scene name of the solver: "auto", "dense", "gmres",
// "banded".
func (l LinearSolver) String() string {
	if l >= 0 && int(l) < len(linearNames) {
		return linearNames[l]
	}
	return "LinearSolver(" + strconv.Itoa(int(l)) + ")"
}

// Preconditioner selects the right preconditioner of GMRES.
type Preconditioner int

const (
	// PrecondBlockJacobi (the zero value) inverts the diagonal blocks of
	// the Newton matrix, one block per part of the system's partition
	// (Blocked: a graph's nodes), each by dense LU with pivoting. Without
	// a partition every unknown is its own block (point Jacobi).
	PrecondBlockJacobi Preconditioner = iota
	// PrecondILU0 is the incomplete LU factorization with zero fill-in
	// of the sparse Newton matrix.
	PrecondILU0
	// PrecondNone is unpreconditioned GMRES.
	PrecondNone
)

var precondNames = [...]string{PrecondBlockJacobi: "block-jacobi", PrecondILU0: "ilu0", PrecondNone: "none"}

// String returns the scene name: "block-jacobi", "ilu0", "none".
func (p Preconditioner) String() string {
	if p >= 0 && int(p) < len(precondNames) {
		return precondNames[p]
	}
	return "Preconditioner(" + strconv.Itoa(int(p)) + ")"
}

// Forcing selects the forcing terms η_k of the inexact Newton iteration:
// GMRES stops at ‖R_k + A_k·s_k‖ ≤ η_k·‖R_k‖.
type Forcing int

const (
	// ForcingEisenstatWalker (the zero value) is Eisenstat and Walker's
	// choice 1 (SIAM J. Sci. Comput. 17(1), 16–32, 1996):
	// η_k = |‖R_k‖ − ‖R_{k−1} + A_{k−1}·s_{k−1}‖| / ‖R_{k−1}‖, safeguarded
	// by η_k ≥ η_{k−1}^φ (φ = (1+√5)/2) when η_{k−1}^φ > 0.1, bounded to
	// [LinearOptions.KrylovTol, 0.9], with η_0 = 0.5: loose solves far from the
	// solution, tight ones near it, and η → KrylovTol on linear problems.
	ForcingEisenstatWalker Forcing = iota
	// ForcingConstant is η_k = KrylovTol at every iteration.
	ForcingConstant
)

var forcingNames = [...]string{ForcingEisenstatWalker: "eisenstat-walker", ForcingConstant: "constant"}

// String returns the scene name: "eisenstat-walker", "constant".
func (f Forcing) String() string {
	if f >= 0 && int(f) < len(forcingNames) {
		return forcingNames[f]
	}
	return "Forcing(" + strconv.Itoa(int(f)) + ")"
}

func parseName[T ~int](what, s string, names []string) (T, error) {
	for i, n := range names {
		if n == s {
			return T(i), nil
		}
	}
	return 0, fmt.Errorf("integrators: unknown %s %q; valid: %s", what, s, strings.Join(names, ", "))
}

// ParseLinearSolver returns the solver named s ("auto", "dense",
// "gmres", "banded"); the error lists the valid names.
func ParseLinearSolver(s string) (LinearSolver, error) {
	return parseName[LinearSolver]("linear solver", s, linearNames[:])
}

// ParsePreconditioner returns the preconditioner named s
// ("block-jacobi", "ilu0", "none"); the error lists the valid names.
func ParsePreconditioner(s string) (Preconditioner, error) {
	return parseName[Preconditioner]("preconditioner", s, precondNames[:])
}

// ParseForcing returns the forcing named s ("eisenstat-walker",
// "constant"); the error lists the valid names.
func ParseForcing(s string) (Forcing, error) {
	return parseName[Forcing]("forcing", s, forcingNames[:])
}

// LinearSolverNames, PreconditionerNames and ForcingNames list the valid
// names in order.
func LinearSolverNames() []string   { return append([]string(nil), linearNames[:]...) }
func PreconditionerNames() []string { return append([]string(nil), precondNames[:]...) }
func ForcingNames() []string        { return append([]string(nil), forcingNames[:]...) }
