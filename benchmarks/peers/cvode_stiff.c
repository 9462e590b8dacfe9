/*
 * cvode_stiff: the CVODE peer of the classic stiff reference problems of
 * verification/stiff_test.go, so that their work counts can be stated
 * beside cosim's from one recognised code run with the same tolerances.
 * CVODE's variable-order BDF with Newton iteration, SUNDIALS' dense
 * direct linear solver and the analytic Jacobian (the same Jacobians
 * the Go tests give the integrators).
 *
 *   rober  Robertson's chemical kinetics, t in [0, 1e11], y0 = (1, 0, 0)
 *   vdpol  van der Pol in Hairer & Wanner's scaling, y1' = y2,
 *          y2' = mu*((1 - y1^2)*y2 - y1) with mu = 1e6, t in [0, 2],
 *          y0 = (2, 0)
 *   hires  the HIRES plant-physiology model, t in [0, 321.8122]
 *   orego  the Oregonator, t in [0, 360], y0 = (1, 2, 3)
 *
 * (Definitions as in the Test Set for IVP Solvers of Mazzia &
 * Magherini, University of Bari.)
 *
 * Usage: cvode_stiff problem rtol atol
 * Prints one JSON object: the final state and CVODE's counters.
 *
 * Built by the verification test with
 *   gcc -O2 -o cvode_stiff cvode_stiff.c -lsundials_cvode
 *       -lsundials_nvecserial -lsundials_sunmatrixdense
 *       -lsundials_sunlinsoldense -lm
 * against Debian's libsundials-dev (SUNDIALS 6.4).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#define J(i, j) SM_ELEMENT_D(Jm, i, j)

static int rober_f(sunrealtype t, N_Vector yv, N_Vector fv, void *ud) {
  (void)t;
  (void)ud;
  sunrealtype *y = N_VGetArrayPointer(yv), *f = N_VGetArrayPointer(fv);
  f[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
  f[2] = 3e7 * y[1] * y[1];
  f[1] = -f[0] - f[2];
  return 0;
}

static int rober_j(sunrealtype t, N_Vector yv, N_Vector fy, SUNMatrix Jm, void *ud, N_Vector a, N_Vector b, N_Vector c) {
  (void)t;
  (void)fy;
  (void)ud;
  (void)a;
  (void)b;
  (void)c;
  sunrealtype *y = N_VGetArrayPointer(yv);
  J(0, 0) = -0.04;
  J(0, 1) = 1e4 * y[2];
  J(0, 2) = 1e4 * y[1];
  J(2, 0) = 0;
  J(2, 1) = 6e7 * y[1];
  J(2, 2) = 0;
  J(1, 0) = 0.04;
  J(1, 1) = -1e4 * y[2] - 6e7 * y[1];
  J(1, 2) = -1e4 * y[1];
  return 0;
}

#define MU 1e6
static int vdpol_f(sunrealtype t, N_Vector yv, N_Vector fv, void *ud) {
  (void)t;
  (void)ud;
  sunrealtype *y = N_VGetArrayPointer(yv), *f = N_VGetArrayPointer(fv);
  f[0] = y[1];
  f[1] = MU * ((1 - y[0] * y[0]) * y[1] - y[0]);
  return 0;
}

static int vdpol_j(sunrealtype t, N_Vector yv, N_Vector fy, SUNMatrix Jm, void *ud, N_Vector a, N_Vector b, N_Vector c) {
  (void)t;
  (void)fy;
  (void)ud;
  (void)a;
  (void)b;
  (void)c;
  sunrealtype *y = N_VGetArrayPointer(yv);
  J(0, 0) = 0;
  J(0, 1) = 1;
  J(1, 0) = MU * (-2 * y[0] * y[1] - 1);
  J(1, 1) = MU * (1 - y[0] * y[0]);
  return 0;
}

static int hires_f(sunrealtype t, N_Vector yv, N_Vector fv, void *ud) {
  (void)t;
  (void)ud;
  sunrealtype *y = N_VGetArrayPointer(yv), *f = N_VGetArrayPointer(fv);
  f[0] = -1.71 * y[0] + 0.43 * y[1] + 8.32 * y[2] + 0.0007;
  f[1] = 1.71 * y[0] - 8.75 * y[1];
  f[2] = -10.03 * y[2] + 0.43 * y[3] + 0.035 * y[4];
  f[3] = 8.32 * y[1] + 1.71 * y[2] - 1.12 * y[3];
  f[4] = -1.745 * y[4] + 0.43 * y[5] + 0.43 * y[6];
  f[5] = -280 * y[5] * y[7] + 0.69 * y[3] + 1.71 * y[4] - 0.43 * y[5] + 0.69 * y[6];
  f[6] = 280 * y[5] * y[7] - 1.81 * y[6];
  f[7] = -f[6];
  return 0;
}

static int hires_j(sunrealtype t, N_Vector yv, N_Vector fy, SUNMatrix Jm, void *ud, N_Vector a, N_Vector b, N_Vector c) {
  (void)t;
  (void)fy;
  (void)ud;
  (void)a;
  (void)b;
  (void)c;
  sunrealtype *y = N_VGetArrayPointer(yv);
  SUNMatZero(Jm);
  J(0, 0) = -1.71;
  J(0, 1) = 0.43;
  J(0, 2) = 8.32;
  J(1, 0) = 1.71;
  J(1, 1) = -8.75;
  J(2, 2) = -10.03;
  J(2, 3) = 0.43;
  J(2, 4) = 0.035;
  J(3, 1) = 8.32;
  J(3, 2) = 1.71;
  J(3, 3) = -1.12;
  J(4, 4) = -1.745;
  J(4, 5) = 0.43;
  J(4, 6) = 0.43;
  J(5, 3) = 0.69;
  J(5, 4) = 1.71;
  J(5, 5) = -280 * y[7] - 0.43;
  J(5, 6) = 0.69;
  J(5, 7) = -280 * y[5];
  J(6, 5) = 280 * y[7];
  J(6, 6) = -1.81;
  J(6, 7) = 280 * y[5];
  J(7, 5) = -280 * y[7];
  J(7, 6) = 1.81;
  J(7, 7) = -280 * y[5];
  return 0;
}

#define OS 77.27
#define OW 0.161
#define OQ 8.375e-6
static int orego_f(sunrealtype t, N_Vector yv, N_Vector fv, void *ud) {
  (void)t;
  (void)ud;
  sunrealtype *y = N_VGetArrayPointer(yv), *f = N_VGetArrayPointer(fv);
  f[0] = OS * (y[1] - y[0] * y[1] + y[0] - OQ * y[0] * y[0]);
  f[1] = (-y[1] - y[0] * y[1] + y[2]) / OS;
  f[2] = OW * (y[0] - y[2]);
  return 0;
}

static int orego_j(sunrealtype t, N_Vector yv, N_Vector fy, SUNMatrix Jm, void *ud, N_Vector a, N_Vector b, N_Vector c) {
  (void)t;
  (void)fy;
  (void)ud;
  (void)a;
  (void)b;
  (void)c;
  sunrealtype *y = N_VGetArrayPointer(yv);
  J(0, 0) = OS * (-y[1] + 1 - 2 * OQ * y[0]);
  J(0, 1) = OS * (1 - y[0]);
  J(0, 2) = 0;
  J(1, 0) = -y[1] / OS;
  J(1, 1) = (-1 - y[0]) / OS;
  J(1, 2) = 1 / OS;
  J(2, 0) = OW;
  J(2, 1) = 0;
  J(2, 2) = -OW;
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: cvode_stiff rober|vdpol|hires|orego rtol atol\n");
    return 2;
  }
  const char *p = argv[1];
  double rtol = atof(argv[2]), atol = atof(argv[3]);
  CVRhsFn f;
  CVLsJacFn jf;
  int n;
  double y0[8] = {0}, tend;
  if (strcmp(p, "rober") == 0) {
    f = rober_f, jf = rober_j, n = 3, tend = 1e11;
    y0[0] = 1;
  } else if (strcmp(p, "vdpol") == 0) {
    f = vdpol_f, jf = vdpol_j, n = 2, tend = 2;
    y0[0] = 2;
  } else if (strcmp(p, "hires") == 0) {
    f = hires_f, jf = hires_j, n = 8, tend = 321.8122;
    y0[0] = 1, y0[7] = 0.0057;
  } else if (strcmp(p, "orego") == 0) {
    f = orego_f, jf = orego_j, n = 3, tend = 360;
    y0[0] = 1, y0[1] = 2, y0[2] = 3;
  } else {
    fprintf(stderr, "cvode_stiff: unknown problem %s\n", p);
    return 2;
  }
  SUNContext ctx;
  SUNContext_Create(NULL, &ctx);
  N_Vector y = N_VNew_Serial(n, ctx);
  for (int i = 0; i < n; i++) NV_Ith_S(y, i) = y0[i];
  void *mem = CVodeCreate(CV_BDF, ctx);
  CVodeInit(mem, f, 0, y);
  CVodeSStolerances(mem, rtol, atol);
  SUNMatrix A = SUNDenseMatrix(n, n, ctx);
  SUNLinearSolver LS = SUNLinSol_Dense(y, A, ctx);
  CVodeSetLinearSolver(mem, LS, A);
  CVodeSetJacFn(mem, jf);
  CVodeSetMaxNumSteps(mem, 10000000);
  CVodeSetStopTime(mem, tend);
  sunrealtype t;
  int flag = CVode(mem, tend, y, &t, CV_NORMAL);
  long nst, nfe, nje, nsetups, nni, ncfn, netf;
  CVodeGetNumSteps(mem, &nst);
  CVodeGetNumRhsEvals(mem, &nfe);
  CVodeGetNumJacEvals(mem, &nje);
  CVodeGetNumLinSolvSetups(mem, &nsetups);
  CVodeGetNumNonlinSolvIters(mem, &nni);
  CVodeGetNumNonlinSolvConvFails(mem, &ncfn);
  CVodeGetNumErrTestFails(mem, &netf);
  printf("{\"problem\":\"%s\",\"flag\":%d,\"t\":%.17g,\"y\":[", p, flag, t);
  for (int i = 0; i < n; i++) printf("%s%.17g", i ? "," : "", NV_Ith_S(y, i));
  printf("],\"steps\":%ld,\"rhs\":%ld,\"jac\":%ld,\"setups\":%ld,\"newton\":%ld,\"newton_fails\":%ld,\"err_fails\":%ld}\n",
         nst, nfe, nje, nsetups, nni, ncfn, netf);
  CVodeFree(&mem);
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  N_VDestroy(y);
  SUNContext_Free(&ctx);
  return flag < 0;
}
