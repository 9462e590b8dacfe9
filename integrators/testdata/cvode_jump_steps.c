// cvode_jump_steps.c prints the first steps CVODE takes on a linear
// problem whose forcing jumps at t = 1 (y₀' = −y₀ + 10·[t ≥ 1],
// y₁' = y₀ − 2y₁, from (1, 0), RTol 1e-6, ATol 1e-8, dense LU with the
// analytic Jacobian, stop time 3) for TestBDFStepsOverJumpMatchCVODEA
// (muta_bdfjump_test.go): step index, step size, order, time, y0,
// cumulative error-test failures, cumulative Newton convergence
// failures. The jump, met at a high order, makes the error test fail
// repeatedly, so that the order drops to 1 and the step is cut again
// at order 1.
// Build and run with SUNDIALS 6 (Debian libsundials-dev 6.4.1):
//
//	gcc -o jump cvode_jump_steps.c -lsundials_cvode -lsundials_nvecserial -lsundials_sunmatrixdense -lsundials_sunlinsoldense -lm && ./jump > cvode_jump_steps.txt
#include <stdio.h>
#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunlinsol/sunlinsol_dense.h>
static int f(realtype t, N_Vector y, N_Vector yd, void *u) {
  double *Y = NV_DATA_S(y), *D = NV_DATA_S(yd);
  D[0] = -Y[0] + (t >= 1 ? 10 : 0); D[1] = Y[0] - 2*Y[1];
  return 0;
}
static int jac(realtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *u, N_Vector a, N_Vector b, N_Vector c) {
  SM_ELEMENT_D(J,0,0)=-1; SM_ELEMENT_D(J,0,1)=0;
  SM_ELEMENT_D(J,1,0)=1; SM_ELEMENT_D(J,1,1)=-2;
  return 0;
}
int main(void) {
  SUNContext ctx; SUNContext_Create(NULL, &ctx);
  N_Vector y = N_VNew_Serial(2, ctx);
  NV_Ith_S(y,0) = 1; NV_Ith_S(y,1) = 0;
  void *m = CVodeCreate(CV_BDF, ctx);
  CVodeInit(m, f, 0, y);
  CVodeSStolerances(m, 1e-6, 1e-8);
  SUNMatrix A = SUNDenseMatrix(2,2,ctx); SUNLinearSolver LS = SUNLinSol_Dense(y, A, ctx);
  CVodeSetLinearSolver(m, LS, A); CVodeSetJacFn(m, jac);
  CVodeSetStopTime(m, 3);
  for (int i = 0; i < 400; i++) {
    double t; int r = CVode(m, 3, y, &t, CV_ONE_STEP);
    double h; int q; CVodeGetLastStep(m, &h); CVodeGetLastOrder(m, &q);
    long ne, nc; CVodeGetNumErrTestFails(m, &ne); CVodeGetNumNonlinSolvConvFails(m,&nc);
    printf("%d %.17g %d %.17g %.17g %ld %ld\n", i, h, q, t, NV_Ith_S(y,0), ne, nc);
    if (r == CV_TSTOP_RETURN || t >= 3) break;
  }
}
