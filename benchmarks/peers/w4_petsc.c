/*
 * W4 with PETSc's TS: backward Euler (TSBEULER), Newton (SNESNEWTONLS
 * with the basic line search, i.e. full steps), restarted GMRES(30) with
 * right preconditioning, ILU(0) or point-block Jacobi (block 6, cosim's
 * block-Jacobi over the masses), on an AIJ matrix holding the Jacobian's
 * true non-zeros (24 per mass).
 *
 * Usage: w4_petsc N ilu|pbjacobi [steps]
 *
 * It solves W4 as cosim's -w4 child does (benchmarks/report/w4.go), with
 * the same Newton iteration:
 *   - predictor: the old state (TSBEULER's initial guess);
 *   - stopping test: after each update Δx, converged when
 *     max|Δx| ≤ 1e-10·(1 + max|x|), the new iterate x (a custom
 *     SNESSetConvergenceTest; the residual norm plays no part), at most
 *     10 iterations;
 *   - inexact Newton with Eisenstat–Walker choice 1: η_0 = 0.5,
 *     η_k = |‖F_k‖ − ‖F_{k−1} + J·s_{k−1}‖| / ‖F_{k−1}‖, safeguarded by
 *     η_{k−1}^φ when that exceeds 0.1, at most 0.9 (PETSc version 1 with
 *     those parameters; cosim also bounds η below by its KrylovTol 1e-6,
 *     PETSc does not, which makes no difference here: ILU(0) is exact on
 *     this matrix and one GMRES iteration reaches round-off);
 *   - GMRES(30), right preconditioning (its residual is the true one, as
 *     cosim's), zero initial guess, at most 500 iterations;
 *   - Jacobian reuse: the Newton matrix and its preconditioner are built
 *     at the first step and every 20 steps after (SNESSetLagJacobian and
 *     SNESSetLagPreconditioner −2 before those steps, −1 otherwise), as
 *     cosim's JacobianMaxAge = 20 does on this linear problem.
 * The residual is TS's implicit form F = (x − x_n)/dt − f(x), the Newton
 * matrix (1/dt)·I − ∂f/∂x: cosim's x − x_n − dt·f(x) and I − dt·∂f/∂x
 * divided by dt, so the Newton updates are the same up to rounding.
 *
 * It prints one JSON line (w4.h): times of the first step and of the
 * later ones, counts over the later steps, and the error at the end.
 */
#include <petscts.h>

#include "w4.h"

typedef struct {
  int n;
  long nfev, njev;
} ctx_t;

static PetscErrorCode ifunction(TS ts, PetscReal t, Vec X, Vec Xdot, Vec F, void *p) {
  ctx_t *c = p;
  const PetscScalar *x, *xd;
  PetscScalar *f;
  PetscFunctionBeginUser;
  c->nfev++;
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(VecGetArrayRead(Xdot, &xd));
  PetscCall(VecGetArray(F, &f));
  w4_rhs(c->n, x, f);
  for (int i = 0; i < 6 * c->n; i++) f[i] = xd[i] - f[i];
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(VecRestoreArrayRead(Xdot, &xd));
  PetscCall(VecRestoreArray(F, &f));
  PetscFunctionReturn(0);
}

/* ijacobian writes shift·I − ∂f/∂x, row by row. */
static PetscErrorCode ijacobian(TS ts, PetscReal t, Vec X, Vec Xdot, PetscReal shift, Mat A, Mat B, void *p) {
  ctx_t *c = p;
  const double km = W4_K / W4_MASS, cm = W4_C / W4_MASS;
  PetscFunctionBeginUser;
  c->njev++;
  for (int i = 0; i < c->n; i++) {
    for (int d = 0; d < 3; d++) {
      PetscInt row = 6 * i + d, cols[6];
      PetscScalar v[6];
      cols[0] = row;
      cols[1] = row + 3;
      v[0] = shift;
      v[1] = -1;
      PetscCall(MatSetValues(B, 1, &row, 2, cols, v, INSERT_VALUES));
      row += 3;
      int k = 0;
      if (i > 0) {
        cols[k] = 6 * (i - 1) + d, v[k++] = -km;
        cols[k] = 6 * (i - 1) + d + 3, v[k++] = -cm;
      }
      cols[k] = 6 * i + d, v[k++] = 2 * km;
      cols[k] = 6 * i + d + 3, v[k++] = shift + 2 * cm;
      if (i + 1 < c->n) {
        cols[k] = 6 * (i + 1) + d, v[k++] = -km;
        cols[k] = 6 * (i + 1) + d + 3, v[k++] = -cm;
      }
      PetscCall(MatSetValues(B, 1, &row, k, cols, v, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  if (A != B) {
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(0);
}

/* converged is cosim's Newton test: max|Δx| ≤ tol·(1 + max|x|). */
static PetscErrorCode converged(SNES snes, PetscInt it, PetscReal xnorm, PetscReal snorm, PetscReal fnorm, SNESConvergedReason *reason,
                                void *p) {
  Vec X, Y;
  PetscReal dx, xm;
  PetscFunctionBeginUser;
  *reason = SNES_CONVERGED_ITERATING;
  if (it == 0) PetscFunctionReturn(0);
  PetscCall(SNESGetSolution(snes, &X));
  PetscCall(SNESGetSolutionUpdate(snes, &Y));
  PetscCall(VecNorm(Y, NORM_INFINITY, &dx));
  PetscCall(VecNorm(X, NORM_INFINITY, &xm));
  if (PetscIsInfOrNanReal(dx) || PetscIsInfOrNanReal(fnorm)) {
    *reason = SNES_DIVERGED_FNORM_NAN;
  } else if (dx <= W4_NEWTON_TOL * (1 + xm)) {
    *reason = SNES_CONVERGED_SNORM_RELATIVE;
  } else if (it >= W4_NEWTON_MAXIT) {
    *reason = SNES_DIVERGED_MAX_IT;
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: w4_petsc N ilu|pbjacobi [steps]\n");
    return 2;
  }
  int n = atoi(argv[1]), steps = argc > 3 ? atoi(argv[3]) : 21;
  const char *pcname = argv[2];
  int ilu = strcmp(pcname, "ilu") == 0;
  if (n < 1 || steps < 2 || (!ilu && strcmp(pcname, "pbjacobi") != 0)) {
    fprintf(stderr, "w4_petsc: bad arguments\n");
    return 2;
  }
  /* No options database from the command line: the configuration is this file. */
  int pargc = 1;
  char **pargv = argv;
  PetscCall(PetscInitialize(&pargc, &pargv, NULL, NULL));
  long long t0 = w4_now();
  ctx_t c = {.n = n};
  PetscInt dim = 6 * n;
  Vec X;
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, dim, &X));
  PetscScalar *x;
  PetscCall(VecGetArray(X, &x));
  w4_init(n, x);
  PetscCall(VecRestoreArray(X, &x));

  Mat J;
  PetscInt *nnz = malloc(sizeof(PetscInt) * (size_t)dim);
  for (int i = 0; i < n; i++)
    for (int d = 0; d < 3; d++) nnz[6 * i + d] = 2, nnz[6 * i + d + 3] = 2 + 2 * (i > 0) + 2 * (i + 1 < n);
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, dim, dim, 0, nnz, &J));
  free(nnz);
  PetscCall(MatSetBlockSize(J, 6));
  PetscCall(MatSetOption(J, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));

  TS ts;
  PetscCall(TSCreate(PETSC_COMM_SELF, &ts));
  PetscCall(TSSetProblemType(ts, TS_NONLINEAR));
  PetscCall(TSSetType(ts, TSBEULER));
  PetscCall(TSSetIFunction(ts, NULL, ifunction, &c));
  PetscCall(TSSetIJacobian(ts, J, J, ijacobian, &c));
  PetscCall(TSSetTime(ts, 0));
  PetscCall(TSSetTimeStep(ts, W4_DT));
  PetscCall(TSSetMaxSteps(ts, steps));
  PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(TSSetSolution(ts, X));

  SNES snes;
  PetscCall(TSGetSNES(ts, &snes));
  PetscCall(SNESSetType(snes, SNESNEWTONLS));
  SNESLineSearch ls;
  PetscCall(SNESGetLineSearch(snes, &ls));
  PetscCall(SNESLineSearchSetType(ls, SNESLINESEARCHBASIC));
  PetscCall(SNESSetTolerances(snes, 0, 0, 0, W4_NEWTON_MAXIT, -1));
  PetscCall(SNESSetConvergenceTest(snes, converged, NULL, NULL));
  PetscCall(SNESKSPSetUseEW(snes, PETSC_TRUE));
  PetscCall(SNESKSPSetParametersEW(snes, 1, 0.5, 0.9, 1.0, (1 + sqrt(5.0)) / 2, (1 + sqrt(5.0)) / 2, 0.1));
  PetscCall(SNESSetLagJacobianPersists(snes, PETSC_TRUE));
  PetscCall(SNESSetLagPreconditionerPersists(snes, PETSC_TRUE));

  KSP ksp;
  PC pc;
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPGMRESSetRestart(ksp, W4_RESTART));
  PetscCall(KSPSetPCSide(ksp, PC_RIGHT));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetTolerances(ksp, W4_KRYLOV_TOL, 0, PETSC_DEFAULT, W4_KRYLOV_MAXIT));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, ilu ? PCILU : PCPBJACOBI));
  if (ilu) PetscCall(PCFactorSetLevels(pc, 0));
  PetscCall(TSSetUp(ts));
  long long build = w4_now() - t0;

  long long first = 0, later = 0, cpu0 = 0;
  long fev0 = 0, jev0 = 0, newton0 = 0, lin0 = 0;
  for (int k = 0; k < steps; k++) {
    if (k == 1) {
      fev0 = c.nfev, jev0 = c.njev;
      cpu0 = w4_cpu();
    }
    int fresh = k % W4_JAC_AGE == 0;
    PetscCall(SNESSetLagJacobian(snes, fresh ? -2 : -1));
    PetscCall(SNESSetLagPreconditioner(snes, fresh ? -2 : -1));
    long long s = w4_now();
    PetscCall(TSStep(ts));
    long long e = w4_now() - s;
    TSConvergedReason tr;
    PetscCall(TSGetConvergedReason(ts, &tr));
    if (tr < 0) {
      fprintf(stderr, "w4_petsc: step %d failed: %s\n", k + 1, TSConvergedReasons[tr]);
      return 1;
    }
    PetscInt it, li;
    PetscCall(SNESGetIterationNumber(snes, &it));
    PetscCall(SNESGetLinearSolveIterations(snes, &li));
    if (k == 0) {
      first = e;
    } else {
      later += e;
      newton0 += it, lin0 += li;
    }
  }
  long long cpu = w4_cpu() - cpu0;

  PetscReal t;
  PetscCall(TSGetTime(ts, &t));
  char lib[64];
  snprintf(lib, sizeof lib, "PETSc %d.%d.%d", PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR);
  const PetscScalar *y;
  PetscCall(VecGetArrayRead(X, &y));
  w4_result r = {.n = n, .steps = steps, .peer = "petsc", .lib = lib, .solver = ilu ? "gmres+ilu0" : "gmres+pbjacobi", .build = build, .first = first,
                 .later = later, .later_cpu = cpu, .nfev = c.nfev - fev0, .njev = c.njev - jev0, .nnewton = newton0, .nlin = lin0,
                 .nsolve = newton0, .nfact = c.njev - jev0, .t = t};
  w4_print(&r, y);
  PetscCall(VecRestoreArrayRead(X, &y));
  PetscCall(TSDestroy(&ts));
  PetscCall(MatDestroy(&J));
  PetscCall(VecDestroy(&X));
  PetscCall(PetscFinalize());
  return 0;
}
