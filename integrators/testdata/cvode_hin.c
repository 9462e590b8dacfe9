// cvode_hin.c prints the initial step size CVODE chooses (CVodeGetActualInitStep)
// for the problems of TestBDFInitialStepMatchesCVODE (bdf_cvode_test.go).
// Build and run with SUNDIALS 6 (Debian libsundials-dev 6.4.1):
//
//	gcc -o hin cvode_hin.c -lsundials_cvode -lsundials_nvecserial -lsundials_sunmatrixdense -lsundials_sunlinsoldense -lm && ./hin
#include <stdio.h>
#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunlinsol/sunlinsol_dense.h>
static int prob;
static int f(realtype t, N_Vector y, N_Vector yd, void *u) {
  double *Y = NV_DATA_S(y), *D = NV_DATA_S(yd);
  if (prob == 0) { D[0] = Y[1]; D[1] = 2.0*(1-Y[0]*Y[0])*Y[1] - Y[0]; }
  else if (prob == 1) { D[0] = 1; D[1] = 2; }
  else { D[0] = -50*(Y[0]-t*t); D[1] = Y[0]*Y[1]*0.1 - Y[1]; }
  return 0;
}
int main(void) {
  SUNContext ctx; SUNContext_Create(NULL, &ctx);
  struct { int p; double y0, y1, t0, tout, rtol, atol; } cs[] = {
    {0, 2, 0, 0, 10, 1e-6, 1e-8}, {0, 2, 0, 0, 0.5, 1e-4, 1e-6},
    {1, 1, 1, 0, 1, 1e-6, 1e-8}, {2, 0, 1, 0, 3, 1e-6, 1e-9}, {2, 0, 1, 0, 3, 1e-3, 1e-3}, {2, 0.5, 1, 5, 6, 1e-6, 1e-9}, {0, 2, 0.5, -3, 40, 1e-8, 1e-10},
  };
  for (int k = 0; k < 7; k++) {
    prob = cs[k].p;
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
