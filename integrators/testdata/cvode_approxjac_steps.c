// cvode_approxjac_steps.c prints the steps CVODE takes on
// y' = −k(t)·(y − cos t) − sin t from y(0) = 1 (solution cos t), whose
// stiffness k jumps from 10 to 1e5 at t = 1, with a user Jacobian that
// is 0.8 times the true one (−0.8·k(t)), RTol 1e-6, ATol 1e-8, dense LU,
// stop time 3, for TestBDFStepsApproxJacobianMatchCVODEI
// (mut_bdforder_test.go): step index, step size, order, time, y,
// cumulative error-test failures, cumulative steps failed by the Newton
// iteration (CVodeGetNumStepSolveFails), and, last, the cumulative
// failures of the Newton iteration itself, those retried with a fresh
// Jacobian included (CVodeGetNumNonlinSolvConvFails). After the jump the Newton iteration with the Jacobian from
// before it diverges; CVODE retries it with a fresh one, with which the
// iteration contracts by 1/4 per iteration (1 − 1/0.8), so that whether
// and when it meets the convergence test depends on the test's bound.
// Build and run with SUNDIALS 6 (Debian libsundials-dev 6.4.1):
//
//	gcc -o approxjac cvode_approxjac_steps.c -lsundials_cvode -lsundials_nvecserial -lsundials_sunmatrixdense -lsundials_sunlinsoldense -lm && ./approxjac | head -60 > cvode_approxjac_steps.txt
#include <math.h>
#include <stdio.h>
#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunlinsol/sunlinsol_dense.h>
static double k(double t) { return t >= 1 ? 1e5 : 10; }
static int f(realtype t, N_Vector y, N_Vector yd, void *u) {
  NV_DATA_S(yd)[0] = -k(t) * (NV_DATA_S(y)[0] - cos(t)) - sin(t);
  return 0;
}
static int jac(realtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *u, N_Vector a, N_Vector b, N_Vector c) {
  SM_ELEMENT_D(J,0,0) = -0.8 * k(t);
  return 0;
}
int main(void) {
  SUNContext ctx; SUNContext_Create(NULL, &ctx);
  N_Vector y = N_VNew_Serial(1, ctx);
  NV_Ith_S(y,0) = 1;
  void *m = CVodeCreate(CV_BDF, ctx);
  CVodeInit(m, f, 0, y);
  CVodeSStolerances(m, 1e-6, 1e-8);
  SUNMatrix A = SUNDenseMatrix(1,1,ctx); SUNLinearSolver LS = SUNLinSol_Dense(y, A, ctx);
  CVodeSetLinearSolver(m, LS, A); CVodeSetJacFn(m, jac);
  CVodeSetStopTime(m, 3);
  for (int i = 0; i < 400; i++) {
    double t; int r = CVode(m, 3, y, &t, CV_ONE_STEP);
    double h; int q; CVodeGetLastStep(m, &h); CVodeGetLastOrder(m, &q);
    long ne, ns, nc; CVodeGetNumErrTestFails(m, &ne); CVodeGetNumStepSolveFails(m, &ns); CVodeGetNumNonlinSolvConvFails(m, &nc);
    printf("%d %.17g %d %.17g %.17g %ld %ld %ld\n", i, h, q, t, NV_Ith_S(y,0), ne, ns, nc);
    if (r == CV_TSTOP_RETURN || t >= 3) break;
  }
}
