// cvode_hin_ties.c prints the initial step size CVODE chooses
// (CVodeGetActualInitStep) for the problems of
// TestBDFInitialStepTiesMatchCVODEI (mut_bdfhin_test.go): y' = 1 + c(t)·t
// from y(0) = 0 to tout = 40.96 with ATol 1 (RTol 1e-6), so that the
// bound on the step is hub = 1/|f(0)| = 1, the lower bound
// hlb = 100·2^-52·40.96 = 2^-40 and the first trial step 2^-20, and the
// estimate of ‖y''‖ at a trial step hg is exactly c(hg). c is piecewise
// constant, chosen so that the trials land on the estimate's ties:
// case 0: ‖y''‖·hub² = 2 at every trial (c = 2);
// case 1: the ratio of the new to the trial step is exactly 2 at the
// second trial (c = 2^13, then 2^11, then 2^10);
// case 2: that ratio is exactly 1/2 at the second trial (c = 2^13, then
// 2^15, then 2^14).
// Build and run with SUNDIALS 6 (Debian libsundials-dev 6.4.1):
//
//	gcc -o hinties cvode_hin_ties.c -lsundials_cvode -lsundials_nvecserial -lsundials_sunmatrixdense -lsundials_sunlinsoldense -lm && ./hinties
#include <stdio.h>
#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunlinsol/sunlinsol_dense.h>
static int prob;
static double c(double t) {
  switch (prob) {
  case 0: return 2;
  case 1: return t < 0x1p-10 ? 0x1p13 : t < 0.02 ? 0x1p11 : 0x1p10;
  default: return t < 0x1p-10 ? 0x1p13 : t < 0.01 ? 0x1p14 : 0x1p15;
  }
}
static int f(realtype t, N_Vector y, N_Vector yd, void *u) {
  NV_DATA_S(yd)[0] = 1 + c(t) * t;
  return 0;
}
int main(void) {
  SUNContext ctx; SUNContext_Create(NULL, &ctx);
  for (prob = 0; prob < 3; prob++) {
    N_Vector y = N_VNew_Serial(1, ctx);
    NV_Ith_S(y,0) = 0;
    void *m = CVodeCreate(CV_BDF, ctx);
    CVodeInit(m, f, 0, y);
    CVodeSStolerances(m, 1e-6, 1);
    SUNMatrix A = SUNDenseMatrix(1,1,ctx); SUNLinearSolver LS = SUNLinSol_Dense(y, A, ctx);
    CVodeSetLinearSolver(m, LS, A);
    CVodeSetStopTime(m, 40.96);
    double t; CVode(m, 40.96, y, &t, CV_ONE_STEP);
    double h0; CVodeGetActualInitStep(m, &h0);
    printf("case %d: h0 = %.17g\n", prob, h0);
  }
}
