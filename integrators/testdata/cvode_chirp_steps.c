// cvode_chirp_steps.c prints the first 120 steps CVODE takes on
// y' = −50·(y − sin t²) + 2t·cos t² from y(0) = 0 (a stiff relaxation
// onto sin t², whose frequency grows with t), RTol 1e-6, ATol 1e-8,
// dense LU with the analytic Jacobian −50, stop time 10, for
// TestBDFStepsChirpMatchCVODEI (mut_bdforder_test.go): step index, step
// size, order, time, y, cumulative error-test failures, cumulative
// steps failed by the Newton iteration. CVODE reaches order 5, cuts the
// step after error-test failures, and weighs an order decrease a few
// steps after the step changed, where the estimate of the order q − 1
// error depends on the unequal past steps.
// Build and run with SUNDIALS 6 (Debian libsundials-dev 6.4.1):
//
//	gcc -o chirp cvode_chirp_steps.c -lsundials_cvode -lsundials_nvecserial -lsundials_sunmatrixdense -lsundials_sunlinsoldense -lm && ./chirp > cvode_chirp_steps.txt
#include <math.h>
#include <stdio.h>
#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunlinsol/sunlinsol_dense.h>
static int f(realtype t, N_Vector y, N_Vector yd, void *u) {
  NV_DATA_S(yd)[0] = -50 * (NV_DATA_S(y)[0] - sin(t*t)) + 2*t*cos(t*t);
  return 0;
}
static int jac(realtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *u, N_Vector a, N_Vector b, N_Vector c) {
  SM_ELEMENT_D(J,0,0) = -50;
  return 0;
}
int main(void) {
  SUNContext ctx; SUNContext_Create(NULL, &ctx);
  N_Vector y = N_VNew_Serial(1, ctx);
  NV_Ith_S(y,0) = 0;
  void *m = CVodeCreate(CV_BDF, ctx);
  CVodeInit(m, f, 0, y);
  CVodeSStolerances(m, 1e-6, 1e-8);
  SUNMatrix A = SUNDenseMatrix(1,1,ctx); SUNLinearSolver LS = SUNLinSol_Dense(y, A, ctx);
  CVodeSetLinearSolver(m, LS, A); CVodeSetJacFn(m, jac);
  CVodeSetStopTime(m, 10);
  for (int i = 0; i < 120; i++) {
    double t; int r = CVode(m, 10, y, &t, CV_ONE_STEP);
    double h; int q; CVodeGetLastStep(m, &h); CVodeGetLastOrder(m, &q);
    long ne, ns; CVodeGetNumErrTestFails(m, &ne); CVodeGetNumStepSolveFails(m, &ns);
    printf("%d %.17g %d %.17g %.17g %ld %ld\n", i, h, q, t, NV_Ith_S(y,0), ne, ns);
    if (r == CV_TSTOP_RETURN || t >= 10) break;
  }
}
