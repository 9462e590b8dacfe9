/*
 * cvode_w4: the CVODE peer of W4 (benchmarks/stiffchain.go), the stiff
 * chain of N unit masses between two walls joined by N+1 linear
 * spring-dampers (k = 1e7 N/m, c = 10 N s/m on every world axis, zero
 * rest length), integrated from rest in its first mode to t_end by
 * CVODE's variable-order BDF with Newton iteration and SUNDIALS' direct
 * band linear solver, with an analytic band Jacobian.
 *
 * The state layout is cosim's for the chain built by StiffChain.Build:
 * per mass [x0 x1 x2 v0 v1 v2], masses in order, so the Jacobian has
 * upper bandwidth 6 (dv_i/dv_{i+1}) and lower bandwidth 9
 * (dv_i/dx_{i-1}).
 *
 * Usage: cvode_w4 N rtol atol t_end reps
 * Prints one JSON object: the work counters of the last repetition, the
 * errors against the damped modal solution (as StiffChain.Measure
 * computes them), the fastest repetition's wall and CPU time (CVodeCreate
 * to the last CVode return, i.e. solver set-up and integration; the
 * problem's initial vector is made before the clock starts; CPU is the
 * process's CPU time over the same span) and the process's peak resident
 * set (VmHWM).
 *
 * Built by `go run ./benchmarks/report` with
 *   gcc -O2 -o cvode_w4 cvode_w4.c -lsundials_cvode -lsundials_nvecserial
 *       -lsundials_sunmatrixband -lsundials_sunlinsolband -lm
 * against Debian's libsundials-dev (SUNDIALS 6.4).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunmatrix/sunmatrix_band.h>

#define MASS 1.0
#define STIFF 1e7
#define DAMP 10.0
#define AMP 0.01

static int N;

/* rhs: x' = v, m v' = sum of the spring-damper forces of the two
 * neighbours (walls at the origin, at rest). */
static int rhs(sunrealtype t, N_Vector yv, N_Vector ydotv, void *ud) {
  (void)t;
  (void)ud;
  const sunrealtype *y = N_VGetArrayPointer(yv);
  sunrealtype *f = N_VGetArrayPointer(ydotv);
  for (int i = 0; i < N; i++) {
    const sunrealtype *me = y + 6 * i;
    for (int a = 0; a < 3; a++) {
      sunrealtype x = me[a], v = me[3 + a];
      sunrealtype xl = 0, vl = 0, xr = 0, vr = 0;
      if (i > 0) {
        xl = me[a - 6];
        vl = me[3 + a - 6];
      }
      if (i < N - 1) {
        xr = me[a + 6];
        vr = me[3 + a + 6];
      }
      f[6 * i + a] = v;
      f[6 * i + 3 + a] = (-STIFF * (2 * x - xl - xr) - DAMP * (2 * v - vl - vr)) / MASS;
    }
  }
  return 0;
}

static int jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *ud, N_Vector t1, N_Vector t2,
               N_Vector t3) {
  (void)t;
  (void)y;
  (void)fy;
  (void)ud;
  (void)t1;
  (void)t2;
  (void)t3;
  SUNMatZero(J);
  for (int i = 0; i < N; i++) {
    for (int a = 0; a < 3; a++) {
      sunindextype rx = 6 * i + a, rv = 6 * i + 3 + a;
      SM_ELEMENT_B(J, rx, rv) = 1;
      SM_ELEMENT_B(J, rv, rx) = -2 * STIFF / MASS;
      SM_ELEMENT_B(J, rv, rv) = -2 * DAMP / MASS;
      if (i > 0) {
        SM_ELEMENT_B(J, rv, rx - 6) = STIFF / MASS;
        SM_ELEMENT_B(J, rv, rv - 6) = DAMP / MASS;
      }
      if (i < N - 1) {
        SM_ELEMENT_B(J, rv, rx + 6) = STIFF / MASS;
        SM_ELEMENT_B(J, rv, rv + 6) = DAMP / MASS;
      }
    }
  }
  return 0;
}

/* exact: the damped first mode, as StiffChain.Exact. */
static void exact(double t, double *u) {
  double s1 = sin(M_PI / (2.0 * (N + 1)));
  double lam = 4 * s1 * s1;
  double w = sqrt(STIFF * lam / MASS);
  double sg = DAMP * lam / (2 * MASS);
  double wd = sqrt(w * w - sg * sg);
  double q = exp(-sg * t) * (cos(wd * t) + sg / wd * sin(wd * t));
  for (int i = 1; i <= N; i++) u[i - 1] = AMP * q * sin(M_PI * i / (double)(N + 1));
}

static long peak_rss_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  long kb = 0;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "VmHWM:", 6) == 0) kb = atol(line + 6);
  fclose(f);
  return kb;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void check(int flag, const char *what) {
  if (flag < 0) {
    fprintf(stderr, "cvode_w4: %s failed with flag %d\n", what, flag);
    exit(1);
  }
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: cvode_w4 N rtol atol t_end reps\n");
    return 2;
  }
  N = atoi(argv[1]);
  double rtol = atof(argv[2]), atol = atof(argv[3]), tend = atof(argv[4]);
  int reps = atoi(argv[5]);
  int n = 6 * N;
  SUNContext ctx;
  check(SUNContext_Create(NULL, &ctx), "SUNContext_Create");
  N_Vector y = N_VNew_Serial(n, ctx);
  double *u = malloc(sizeof(double) * N), *u0 = malloc(sizeof(double) * N);
  exact(0, u0);
  double best = INFINITY, bestCPU = INFINITY;
  long nst = 0, nfe = 0, nje = 0, nsetups = 0, nni = 0, ncfn = 0, netf = 0, nfeLS = 0;
  int qlast = 0;
  double hlast = 0, tret = 0;
  for (int r = 0; r < reps; r++) {
    sunrealtype *yd = N_VGetArrayPointer(y);
    memset(yd, 0, sizeof(double) * n);
    for (int i = 0; i < N; i++) yd[6 * i] = u0[i];
    double t0 = now(), c0 = cpu();
    void *mem = CVodeCreate(CV_BDF, ctx);
    check(CVodeInit(mem, rhs, 0, y), "CVodeInit");
    check(CVodeSStolerances(mem, rtol, atol), "CVodeSStolerances");
    SUNMatrix A = SUNBandMatrix(n, 6, 9, ctx);
    SUNLinearSolver LS = SUNLinSol_Band(y, A, ctx);
    check(CVodeSetLinearSolver(mem, LS, A), "CVodeSetLinearSolver");
    check(CVodeSetJacFn(mem, jac), "CVodeSetJacFn");
    check(CVodeSetMaxNumSteps(mem, 1000000), "CVodeSetMaxNumSteps");
    check(CVodeSetStopTime(mem, tend), "CVodeSetStopTime");
    check(CVode(mem, tend, y, &tret, CV_NORMAL), "CVode");
    double wall = now() - t0, used = cpu() - c0;
    if (wall < best) best = wall;
    if (used < bestCPU) bestCPU = used;
    CVodeGetNumSteps(mem, &nst);
    CVodeGetNumRhsEvals(mem, &nfe);
    CVodeGetNumJacEvals(mem, &nje);
    CVodeGetNumLinRhsEvals(mem, &nfeLS);
    CVodeGetNumLinSolvSetups(mem, &nsetups);
    CVodeGetNumNonlinSolvIters(mem, &nni);
    CVodeGetNumNonlinSolvConvFails(mem, &ncfn);
    CVodeGetNumErrTestFails(mem, &netf);
    CVodeGetLastOrder(mem, &qlast);
    CVodeGetLastStep(mem, &hlast);
    CVodeFree(&mem);
    SUNLinSolFree(LS);
    SUNMatDestroy(A);
  }
  exact(tret, u);
  const sunrealtype *yd = N_VGetArrayPointer(y);
  double du = 0, dm = 0;
  for (int i = 0; i < N; i++) {
    du = fmax(du, fabs(yd[6 * i] - u[i]));
    dm = fmax(dm, fabs(u[i] - u0[i]));
  }
  printf("{\"n\":%d,\"t\":%.17g,\"steps\":%ld,\"rhs\":%ld,\"rhs_ls\":%ld,\"jac\":%ld,\"setups\":%ld,\"newton\":%ld,"
         "\"newton_fails\":%ld,\"err_fails\":%ld,\"last_order\":%d,\"last_step\":%.17g,"
         "\"err_state\":%.17g,\"err_motion\":%.17g,\"wall_ns\":%.0f,\"cpu_ns\":%.0f,\"peak_rss_kb\":%ld}\n",
         N, tret, nst, nfe, nfeLS, nje, nsetups, nni, ncfn, netf, qlast, hlast, du / AMP, du / dm, best * 1e9,
         bestCPU * 1e9, peak_rss_kb());
  N_VDestroy(y);
  free(u);
  free(u0);
  SUNContext_Free(&ctx);
  return 0;
}
