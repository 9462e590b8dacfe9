/*
 * W4, the stiff chain of package benchmarks, for the C peers (PETSc,
 * SUNDIALS): N masses of 1 kg between two fixed walls, joined by N+1
 * zero-length spring-dampers with k = 1e7 N/m and c = 10 N·s/m on every
 * axis, started at rest in the first mode u_i = A·sin(πi/(N+1)) along x.
 *
 * The state has cosim's layout (Sim.State of benchmarks.StiffChain): mass
 * i (0-based) holds [x, y, z, vx, vy, vz] at 6i.  With x_{-1} = x_N = 0
 * (the walls) the equations are, per axis d,
 *
 *   x_i' = v_i
 *   v_i' = (k·(x_{i-1} − 2x_i + x_{i+1}) + c·(v_{i-1} − 2v_i + v_{i+1})) / m
 *
 * so the Jacobian has 2 entries in every position row of the Newton
 * matrix (the diagonal and the velocity) and 6 in every velocity row (the
 * same axis of the mass and of its two neighbours): 24 per mass.
 *
 * Everything a peer shares with the others is here: the parameters, the
 * right-hand side, the Jacobian entries, the modal solution, timing and
 * the JSON line the report reads.
 */
#ifndef W4_H
#define W4_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define W4_MASS 1.0
#define W4_K 1e7
#define W4_C 10.0
#define W4_AMP 0.01
#define W4_DT 1e-3
#define W4_NEWTON_TOL 1e-10  /* max|Δx| ≤ tol·(1 + max|x|) */
#define W4_NEWTON_MAXIT 10   /* cosim's NewtonOptions.MaxIter default */
#define W4_KRYLOV_TOL 1e-6   /* cosim's LinearOptions.KrylovTol default */
#define W4_RESTART 30        /* GMRES(30) */
#define W4_KRYLOV_MAXIT 500  /* cosim's KrylovMaxIter default */
#define W4_JAC_AGE 20        /* cosim's JacobianMaxAge default: a new Newton matrix every 20 steps */

/* w4_init writes the initial state (6n values). */
static void w4_init(int n, double *y) {
  memset(y, 0, sizeof(double) * 6 * (size_t)n);
  for (int i = 0; i < n; i++) y[6 * i] = W4_AMP * sin(M_PI * (i + 1) / (double)(n + 1));
}

/* w4_rhs writes f(y) into f. */
static void w4_rhs(int n, const double *y, double *f) {
  const double km = W4_K / W4_MASS, cm = W4_C / W4_MASS;
  for (int i = 0; i < n; i++) {
    const double *me = y + 6 * i;
    double *fi = f + 6 * i;
    for (int d = 0; d < 3; d++) {
      double xl = i > 0 ? me[d - 6] : 0, vl = i > 0 ? me[d - 3] : 0;
      double xr = i + 1 < n ? me[d + 6] : 0, vr = i + 1 < n ? me[d + 9] : 0;
      fi[d] = me[d + 3];
      fi[d + 3] = km * (xl - 2 * me[d] + xr) + cm * (vl - 2 * me[d + 3] + vr);
    }
  }
}

/*
 * w4_exact writes the modal solution's displacement of every mass at t:
 * u_i = A·q(t)·sin(π(i+1)/(N+1)), q the damped first mode (the formula of
 * benchmarks.StiffChain.Exact).
 */
static void w4_exact(int n, double t, double *u) {
  double s = sin(M_PI / (2.0 * (n + 1)));
  double lam = 4 * s * s;
  double w = sqrt(W4_K * lam / W4_MASS);
  double sig = W4_C * lam / (2 * W4_MASS);
  double wd = sqrt(w * w - sig * sig);
  double q = exp(-sig * t) * (cos(wd * t) + sig / wd * sin(wd * t));
  for (int i = 0; i < n; i++) u[i] = W4_AMP * q * sin(M_PI * (i + 1) / (double)(n + 1));
}

/* w4_errors measures the state at t as benchmarks.StiffChain.Measure. */
static void w4_errors(int n, const double *y, double t, double *state, double *motion) {
  double *u = malloc(sizeof(double) * (size_t)n), *u0 = malloc(sizeof(double) * (size_t)n);
  w4_exact(n, t, u);
  w4_exact(n, 0, u0);
  double du = 0, dm = 0;
  for (int i = 0; i < n; i++) {
    du = fmax(du, fabs(y[6 * i] - u[i]));
    dm = fmax(dm, fabs(u[i] - u0[i]));
  }
  *state = du / W4_AMP;
  *motion = du / dm;
  free(u);
  free(u0);
}

static long long w4_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* w4_cpu is this process's user + system time in ns. */
static long long w4_cpu(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ((long long)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
         ((long long)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

/* w4_result is what a peer prints: the fields of the report's w4Result. */
typedef struct {
  int n, steps;
  const char *peer, *lib, *solver; /* lib: the library and its version */
  long long build, first, later, later_cpu; /* ns */
  long nfev, njev, nnewton, nlin, nsolve, nfact;
  double t;
} w4_result;

/* w4_print writes r (and, for N ≤ 100, the final state) as one JSON line. */
static void w4_print(const w4_result *r, const double *y) {
  double es, em;
  w4_errors(r->n, y, r->t, &es, &em);
  printf("{\"n\":%d,\"method\":\"backward-euler\",\"peer\":\"%s\",\"lib\":\"%s\",\"solver\":\"%s\",\"steps\":%d,"
         "\"build\":%lld,\"first_step\":%lld,\"later_steps\":%lld,\"later_cpu\":%lld,"
         "\"stats\":{\"Steps\":%d,\"FuncEvals\":%ld,\"JacEvals\":%ld,\"NewtonIters\":%ld,\"LinearSolves\":%ld,\"LinearIters\":%ld,\"Factorize\":%ld},"
         "\"errors\":{\"State\":%.17g,\"Motion\":%.17g},\"time\":%.17g",
         r->n, r->peer, r->lib, r->solver, r->steps, r->build, r->first, r->later, r->later_cpu, r->steps - 1, r->nfev, r->njev, r->nnewton,
         r->nsolve, r->nlin, r->nfact, es, em, r->t);
  if (r->n <= 100) {
    printf(",\"state\":[");
    for (int i = 0; i < 6 * r->n; i++) printf("%s%.17g", i ? "," : "", y[i]);
    printf("]");
  }
  printf("}\n");
}

#endif
