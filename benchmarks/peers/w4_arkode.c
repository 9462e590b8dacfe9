/*
 * W4 with SUNDIALS ARKODE (ARKStep): backward Euler as a one-stage DIRK
 * (Butcher table c = 1, A = 1, b = 1) with a fixed step, Newton with
 * SUNDIALS' band LU (SUNLinSol_Band, partial pivoting, as cosim's
 * LinearBanded) on the band of the Jacobian (lower bandwidth 9, upper 6 in
 * the state order [x, y, z, vx, vy, vz] per mass).
 *
 * Usage: w4_arkode N [steps]
 *
 * The Newton iteration is cosim's (benchmarks/report/w4.go):
 *   - predictor: the old state (ARKStepSetPredictorMethod 0);
 *   - stopping test: after each update Δ, converged when
 *     max|Δ| ≤ 1e-10·(1 + max|z|), z the new stage value (a custom
 *     SUNNonlinSolSetConvTestFn replacing ARKODE's WRMS test; ARKODE's
 *     tolerances then play no part), at most 10 iterations;
 *   - the linear solves are exact (band LU);
 *   - Jacobian and factorization reuse: ARKODE evaluates the Jacobian and
 *     sets up (forms I − γJ and factors it) at the first step and every
 *     20 steps after (ARKStepSetJacEvalFrequency and
 *     ARKStepSetLSetupFrequency 20), as cosim's JacobianMaxAge = 20 does on
 *     this linear problem.
 * ARKODE's Newton system is z − y_n − h·f(z) = 0 with the matrix
 * I − h·∂f/∂z: cosim's.
 *
 * It prints one JSON line (w4.h).
 */
#include <arkode/arkode_arkstep.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_nonlinearsolver.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunnonlinsol/sunnonlinsol_newton.h>

#include "w4.h"

typedef struct {
  int n;
  void *ark;
  long nfev, njev;
} ctx_t;

static int rhs(realtype t, N_Vector y, N_Vector f, void *p) {
  ctx_t *c = p;
  c->nfev++;
  w4_rhs(c->n, N_VGetArrayPointer(y), N_VGetArrayPointer(f));
  return 0;
}

/* jac writes ∂f/∂y into the band matrix J. */
static int jac(realtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *p, N_Vector t1, N_Vector t2, N_Vector t3) {
  ctx_t *c = p;
  const double km = W4_K / W4_MASS, cm = W4_C / W4_MASS;
  c->njev++;
  SUNMatZero(J);
  for (int i = 0; i < c->n; i++) {
    for (int d = 0; d < 3; d++) {
      sunindextype x = 6 * i + d, v = x + 3;
      SM_ELEMENT_B(J, x, v) = 1;
      if (i > 0) SM_ELEMENT_B(J, v, x - 6) = km, SM_ELEMENT_B(J, v, v - 6) = cm;
      SM_ELEMENT_B(J, v, x) = -2 * km;
      SM_ELEMENT_B(J, v, v) = -2 * cm;
      if (i + 1 < c->n) SM_ELEMENT_B(J, v, x + 6) = km, SM_ELEMENT_B(J, v, v + 6) = cm;
    }
  }
  return 0;
}

/* converged is cosim's Newton test: max|Δ| ≤ tol·(1 + max|z|). */
static int converged(SUNNonlinearSolver nls, N_Vector ycor, N_Vector del, realtype tol, N_Vector ewt, void *p) {
  ctx_t *c = p;
  realtype tcur, gamma;
  N_Vector zpred, z, fi, sdata;
  void *ud;
  ARKStepGetNonlinearSystemData(c->ark, &tcur, &zpred, &z, &fi, &gamma, &sdata, &ud);
  const double *zp = N_VGetArrayPointer(zpred), *yc = N_VGetArrayPointer(ycor), *d = N_VGetArrayPointer(del);
  double dm = 0, xm = 0;
  for (int i = 0; i < 6 * c->n; i++) {
    dm = fmax(dm, fabs(d[i]));
    xm = fmax(xm, fabs(zp[i] + yc[i]));
  }
  if (isnan(dm) || isnan(xm)) return SUN_NLS_CONV_RECVR;
  return dm <= W4_NEWTON_TOL * (1 + xm) ? SUN_NLS_SUCCESS : SUN_NLS_CONTINUE;
}

#define CHECK(call)                                          \
  do {                                                       \
    int _f = (call);                                         \
    if (_f < 0) {                                            \
      fprintf(stderr, "w4_arkode: %s = %d\n", #call, _f);    \
      return 1;                                              \
    }                                                        \
  } while (0)

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: w4_arkode N [steps]\n");
    return 2;
  }
  int n = atoi(argv[1]), steps = argc > 2 ? atoi(argv[2]) : 21;
  if (n < 1 || steps < 2) {
    fprintf(stderr, "w4_arkode: bad arguments\n");
    return 2;
  }
  long long t0 = w4_now();
  SUNContext sun;
  CHECK(SUNContext_Create(NULL, &sun));
  sunindextype dim = 6 * (sunindextype)n;
  ctx_t c = {.n = n};
  N_Vector y = N_VNew_Serial(dim, sun);
  w4_init(n, N_VGetArrayPointer(y));
  void *ark = ARKStepCreate(NULL, rhs, 0, y, sun);
  if (!ark) return 1;
  c.ark = ark;
  CHECK(ARKStepSetUserData(ark, &c));
  /* Backward Euler: one stage, c = 1, A = 1, b = 1, no embedding. */
  realtype A[1] = {1}, b[1] = {1}, cc[1] = {1};
  ARKodeButcherTable be = ARKodeButcherTable_Create(1, 1, 0, cc, A, b, NULL);
  CHECK(ARKStepSetTables(ark, 1, 0, be, NULL));
  CHECK(ARKStepSetFixedStep(ark, W4_DT));
  CHECK(ARKStepSStolerances(ark, 1e-6, 1e-9)); /* required by ARKODE; unused by the custom Newton test */
  CHECK(ARKStepSetMaxNumSteps(ark, 10 * steps));
  CHECK(ARKStepSetPredictorMethod(ark, 0));
  SUNMatrix J = SUNBandMatrix(dim, 6, 9, sun);
  SUNLinearSolver LS = SUNLinSol_Band(y, J, sun);
  CHECK(ARKStepSetLinearSolver(ark, LS, J));
  CHECK(ARKStepSetJacFn(ark, jac));
  CHECK(ARKStepSetJacEvalFrequency(ark, W4_JAC_AGE));
  CHECK(ARKStepSetLSetupFrequency(ark, W4_JAC_AGE));
  SUNNonlinearSolver NLS = SUNNonlinSol_Newton(y, sun);
  CHECK(ARKStepSetNonlinearSolver(ark, NLS));
  CHECK(SUNNonlinSolSetConvTestFn(NLS, converged, &c));
  CHECK(ARKStepSetMaxNonlinIters(ark, W4_NEWTON_MAXIT));
  /* No stop time: with one, ARKODE 6.4 returned at it a value that is not
     the step's solution (the mean of the old state and the new one), where
     ARK_ONE_STEP without it returns the step's own. */
  long long build = w4_now() - t0;

  long long first = 0, later = 0, cpu0 = 0;
  long fev0 = 0, jev0 = 0, nni0 = 0, nset0 = 0;
  realtype t = 0;
  for (int k = 0; k < steps; k++) {
    if (k == 1) {
      long nni, nset;
      ARKStepGetNumNonlinSolvIters(ark, &nni);
      ARKStepGetNumLinSolvSetups(ark, &nset);
      fev0 = c.nfev, jev0 = c.njev, nni0 = nni, nset0 = nset;
      cpu0 = w4_cpu();
    }
    long long s = w4_now();
    int flag = ARKStepEvolve(ark, (k + 1) * W4_DT, y, &t, ARK_ONE_STEP);
    long long e = w4_now() - s;
    if (flag < 0) {
      fprintf(stderr, "w4_arkode: step %d failed: %s\n", k + 1, ARKStepGetReturnFlagName(flag));
      return 1;
    }
    if (k == 0) first = e;
    else later += e;
  }
  long long cpu = w4_cpu() - cpu0;
  long nni, nset;
  ARKStepGetNumNonlinSolvIters(ark, &nni);
  ARKStepGetNumLinSolvSetups(ark, &nset);
  w4_result r = {.n = n, .steps = steps, .peer = "arkode", .lib = "SUNDIALS " SUNDIALS_VERSION " ARKODE", .solver = "banded", .build = build, .first = first, .later = later,
                 .later_cpu = cpu, .nfev = c.nfev - fev0, .njev = c.njev - jev0, .nnewton = nni - nni0, .nlin = 0,
                 .nsolve = nni - nni0, .nfact = nset - nset0, .t = t};
  w4_print(&r, N_VGetArrayPointer(y));
  ARKStepFree(&ark);
  ARKodeButcherTable_Free(be);
  SUNNonlinSolFree(NLS);
  SUNLinSolFree(LS);
  SUNMatDestroy(J);
  N_VDestroy(y);
  SUNContext_Free(&sun);
  return 0;
}
