// cvode_hin_more.c prints the initial step size CVODE chooses
// (CVodeGetActualInitStep) for the problems of
// TestBDFInitialStepMatchesCVODEMoreA (muta_bdfhin_test.go), which reach
// the branches of the estimate that cvode_hin.c's problems do not: the
// bound 0.1·|tout − t0| away from t0 = 0, and a forcing switched on
// right after t0, whose difference-quotient estimate of y'' grows as
// the trial step shrinks (four iterations).
// Build and run with SUNDIALS 6 (Debian libsundials-dev 6.4.1):
//
//	gcc -o hinmore cvode_hin_more.c -lsundials_cvode -lsundials_nvecserial -lsundials_sunmatrixdense -lsundials_sunlinsoldense -lm && ./hinmore
#include <stdio.h>
#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunlinsol/sunlinsol_dense.h>
static int prob;
static double t0g, amp;
static int f(realtype t, N_Vector y, N_Vector yd, void *u) {
  double *Y = NV_DATA_S(y), *D = NV_DATA_S(yd);
  if (prob == 1) { D[0] = 1; D[1] = 2; }
  else { D[0] = t > t0g ? amp : 0; D[1] = -Y[1]; }
  return 0;
}
int main(void) {
  SUNContext ctx; SUNContext_Create(NULL, &ctx);
  struct { int p; double amp, y0, y1, t0, tout, rtol, atol; } cs[] = {
    {1, 0, 100, 100, 5, 6, 1e-6, 1e-8},
    {1, 0, 100, 100, -7, -6, 1e-6, 1e-8},
    {3, 1e4, 1, 1, 0, 10, 1e-6, 1e-8},
    {3, 1e4, 1, 1, 2, 12, 1e-6, 1e-8},
    {3, 1e2, 1, 1, 0, 1, 1e-4, 1e-6},
    {3, 1e6, 1, 1, 1, 3, 1e-8, 1e-10},
  };
  int n = sizeof cs / sizeof cs[0];
  for (int k = 0; k < n; k++) {
    prob = cs[k].p; t0g = cs[k].t0; amp = cs[k].amp;
    N_Vector y = N_VNew_Serial(2, ctx);
    NV_Ith_S(y,0) = cs[k].y0; NV_Ith_S(y,1) = cs[k].y1;
    void *m = CVodeCreate(CV_BDF, ctx);
    CVodeInit(m, f, cs[k].t0, y);
    CVodeSStolerances(m, cs[k].rtol, cs[k].atol);
    SUNMatrix A = SUNDenseMatrix(2,2,ctx); SUNLinearSolver LS = SUNLinSol_Dense(y, A, ctx);
    CVodeSetLinearSolver(m, LS, A);
    CVodeSetStopTime(m, cs[k].tout);
    double t; CVode(m, cs[k].tout, y, &t, CV_ONE_STEP);
    double h0; CVodeGetActualInitStep(m, &h0);
    printf("case %d: h0 = %.17g\n", k, h0);
  }
}
