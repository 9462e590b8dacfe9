// cvode_vdp5.c prints the first 400 steps CVODE takes on van der Pol (μ = 5) for
// TestBDFStepsMatchCVODE (bdf_cvode_test.go): step index, step size, order, time,
// y0, cumulative error-test failures, cumulative Newton convergence failures.
// Build and run with SUNDIALS 6 (Debian libsundials-dev 6.4.1):
//
//	gcc -o traj cvode_vdp5.c -lsundials_cvode -lsundials_nvecserial -lsundials_sunmatrixdense -lsundials_sunlinsoldense -lm && ./traj | head -60 > cvode_vdp5_steps.txt
#include <stdio.h>
#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunlinsol/sunlinsol_dense.h>
static int f(realtype t, N_Vector y, N_Vector yd, void *u) {
  double *Y = NV_DATA_S(y), *D = NV_DATA_S(yd);
  D[0] = Y[1]; D[1] = 5.0*(1-Y[0]*Y[0])*Y[1] - Y[0];
  return 0;
}
static int jac(realtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *u, N_Vector a, N_Vector b, N_Vector c) {
  double *Y = NV_DATA_S(y);
  SM_ELEMENT_D(J,0,0)=0; SM_ELEMENT_D(J,0,1)=1;
  SM_ELEMENT_D(J,1,0)=-10.0*Y[0]*Y[1]-1; SM_ELEMENT_D(J,1,1)=5.0*(1-Y[0]*Y[0]);
  return 0;
}
int main(void) {
  SUNContext ctx; SUNContext_Create(NULL, &ctx);
  N_Vector y = N_VNew_Serial(2, ctx);
  NV_Ith_S(y,0) = 2; NV_Ith_S(y,1) = 0.5;
  void *m = CVodeCreate(CV_BDF, ctx);
  CVodeInit(m, f, 0, y);
  CVodeSStolerances(m, 1e-6, 1e-8);
  SUNMatrix A = SUNDenseMatrix(2,2,ctx); SUNLinearSolver LS = SUNLinSol_Dense(y, A, ctx);
  CVodeSetLinearSolver(m, LS, A); CVodeSetJacFn(m, jac);
  CVodeSetStopTime(m, 20);
  for (int i = 0; i < 400; i++) {
    double t; int r = CVode(m, 20, y, &t, CV_ONE_STEP);
    double h; int q; CVodeGetLastStep(m, &h); CVodeGetLastOrder(m, &q);
    long ne, nc; CVodeGetNumErrTestFails(m, &ne); CVodeGetNumNonlinSolvConvFails(m,&nc);
    printf("%d %.17g %d %.17g %.17g %ld %ld\n", i, h, q, t, NV_Ith_S(y,0), ne, nc);
    if (r == CV_TSTOP_RETURN || t >= 20) break;
  }
}
