package export_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// cMaster is a small FMI 3.0 co-simulation master in C, written against
// the standard's headers, for what the Reference FMUs' master does not
// do: two instances of one FMU stepped at once from two threads, a start
// time other than 0, an FMU state's round trip, and timing fmi3DoStep.
// It loads the binary with dlopen and runs the oscillator (value
// references: 0 time, 1 m, 2 k[3], 3 F[3], 4 x[3]) with F = [0, 2, 0].
//
//	master SO RESOURCES TOKEN pair   two instances (m = 4 from t = 0;
//	                                 m = 2 from t = 1), each alone and then
//	                                 both at once in two threads; prints
//	                                 "same" when every value agrees bit for
//	                                 bit, and the m = 2 run from t = 1
//	                                 against one from t = 0
//	master SO RESOURCES TOKEN state  an FMU state taken at step 100,
//	                                 serialized, deserialized and set:
//	                                 steps 100–200 again give the same bits
//	master SO RESOURCES TOKEN bench N  N steps (DoStep and a Get of x);
//	                                 prints the nanoseconds per step
const cMaster = `#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fmi3Functions.h"

#define STEPS 300
#define H 0.001

static const char *res, *token;
static fmi3InstantiateCoSimulationTYPE *instantiate;
static fmi3FreeInstanceTYPE *freeInstance;
static fmi3EnterInitializationModeTYPE *enterInit;
static fmi3ExitInitializationModeTYPE *exitInit;
static fmi3SetFloat64TYPE *setF64;
static fmi3GetFloat64TYPE *getF64;
static fmi3DoStepTYPE *doStep;
static fmi3GetFMUStateTYPE *getState;
static fmi3SetFMUStateTYPE *setState;
static fmi3FreeFMUStateTYPE *freeState;
static fmi3SerializedFMUStateSizeTYPE *stateSize;
static fmi3SerializeFMUStateTYPE *serialize;
static fmi3DeserializeFMUStateTYPE *deserialize;

static void logger(fmi3InstanceEnvironment env, fmi3Status s, fmi3String cat, fmi3String msg) {
    fprintf(strcmp(env, "e") == 0 ? stdout : stderr, "[%s] %d %s: %s\n", (const char *)env, s, cat, msg);
}

static void must(fmi3Status s, const char *what) {
    if (s != fmi3OK) {
        fprintf(stderr, "%s: status %d\n", what, s);
        exit(1);
    }
}

static fmi3Instance start(const char *name, double m, double t0) {
    fmi3Instance in = instantiate(name, token, res, false, false, false, false, NULL, 0, (void *)name, logger, NULL);
    if (!in) {
        fprintf(stderr, "%s: instantiate failed\n", name);
        exit(1);
    }
    const fmi3ValueReference vm[1] = {1}, vF[1] = {3};
    const fmi3Float64 mv[1] = {m}, F[3] = {0, 2, 0};
    must(setF64(in, vm, 1, mv, 1), "set m");
    must(enterInit(in, false, 0, t0, false, 0), "enter initialization");
    must(setF64(in, vF, 1, F, 3), "set F");
    must(exitInit(in), "exit initialization");
    return in;
}

typedef struct {
    const char *name;
    double m, t0;
    double x[STEPS][3], t[STEPS];
} run;

static void step(fmi3Instance in, double t, double *x, double *tout) {
    const fmi3ValueReference vx[1] = {4}, vt[1] = {0};
    fmi3Boolean ev, term, early;
    fmi3Float64 last;
    must(doStep(in, t, H, true, &ev, &term, &early, &last), "doStep");
    must(getF64(in, vx, 1, x, 3), "get x");
    must(getF64(in, vt, 1, tout, 1), "get time");
}

static void *go(void *arg) {
    run *r = arg;
    fmi3Instance in = start(r->name, r->m, r->t0);
    for (int k = 0; k < STEPS; k++) step(in, r->t0 + k * H, r->x[k], &r->t[k]);
    freeInstance(in);
    return NULL;
}

static int same(const double *a, const double *b, int n) { return memcmp(a, b, n * sizeof(double)) == 0; }

static void *sym(void *lib, const char *name) {
    void *p = dlsym(lib, name);
    if (!p) {
        fprintf(stderr, "no %s\n", name);
        exit(1);
    }
    return p;
}

int main(int argc, char **argv) {
    if (argc < 5) return 2;
    res = argv[2], token = argv[3];
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    instantiate = sym(lib, "fmi3InstantiateCoSimulation");
    freeInstance = sym(lib, "fmi3FreeInstance");
    enterInit = sym(lib, "fmi3EnterInitializationMode");
    exitInit = sym(lib, "fmi3ExitInitializationMode");
    setF64 = sym(lib, "fmi3SetFloat64");
    getF64 = sym(lib, "fmi3GetFloat64");
    doStep = sym(lib, "fmi3DoStep");
    getState = sym(lib, "fmi3GetFMUState");
    setState = sym(lib, "fmi3SetFMUState");
    freeState = sym(lib, "fmi3FreeFMUState");
    stateSize = sym(lib, "fmi3SerializedFMUStateSize");
    serialize = sym(lib, "fmi3SerializeFMUState");
    deserialize = sym(lib, "fmi3DeserializeFMUState");
    if (strcmp(argv[4], "pair") == 0) {
        static run a = {"a", 4, 0}, b = {"b", 2, 1}, a1 = {"a1", 4, 0}, b1 = {"b1", 2, 1}, b0 = {"b0", 2, 0};
        go(&a1), go(&b1), go(&b0);
        pthread_t ta, tb;
        pthread_create(&ta, NULL, go, &a);
        pthread_create(&tb, NULL, go, &b);
        pthread_join(ta, NULL);
        pthread_join(tb, NULL);
        int ok = same(&a.x[0][0], &a1.x[0][0], 3 * STEPS) && same(&b.x[0][0], &b1.x[0][0], 3 * STEPS);
        printf("threads %s\n", ok ? "same" : "differ");
        printf("start time %s\n", same(&b.x[0][0], &b0.x[0][0], 3 * STEPS) ? "same" : "differ");
        printf("masses %s\n", same(&a.x[0][0], &b.x[0][0], 3 * STEPS) ? "same" : "differ");
        int times = 1;
        for (int k = 0; k < STEPS; k++)
            if (b.t[k] != 1 + k * H + H || a.t[k] != k * H + H) times = 0;
        printf("times %s\n", times ? "same" : "differ");
        return 0;
    }
    if (strcmp(argv[4], "state") == 0) {
        fmi3Instance in = start("s", 4, 0);
        static double x1[100][3], x2[100][3], t;
        for (int k = 0; k < 100; k++) step(in, k * H, x1[0], &t);
        fmi3FMUState st = NULL, st2 = NULL;
        must(getState(in, &st), "get state");
        size_t n = 0;
        must(stateSize(in, st, &n), "state size");
        fmi3Byte *buf = malloc(n);
        must(serialize(in, st, buf, n), "serialize");
        for (int k = 0; k < 100; k++) step(in, (100 + k) * H, x1[k], &t);
        must(deserialize(in, buf, n, &st2), "deserialize");
        must(setState(in, st2), "set state");
        for (int k = 0; k < 100; k++) step(in, (100 + k) * H, x2[k], &t);
        printf("state %s %zu bytes\n", same(&x1[0][0], &x2[0][0], 300) && fabs(t - 0.2) < 1e-12 ? "same" : "differ", n);
        must(setState(in, st), "set the first state");
        for (int k = 0; k < 100; k++) step(in, (100 + k) * H, x2[k], &t);
        printf("first state %s\n", same(&x1[0][0], &x2[0][0], 300) ? "same" : "differ");
        must(freeState(in, &st), "free state");
        must(freeState(in, &st2), "free state");
        free(buf);
        freeInstance(in);
        return 0;
    }
    if (strcmp(argv[4], "errors") == 0) {
        fmi3Instance bad = instantiate("e", "{not-the-token}", res, false, false, false, false, NULL, 0, "e", logger, NULL);
        printf("wrong token: %s\n", bad ? "instantiated" : "NULL");
        fmi3Instance in = start("e", 4, 0);
        fmi3GetFloat32TYPE *getF32 = sym(lib, "fmi3GetFloat32");
        const fmi3ValueReference vm[1] = {1}, vF[1] = {3};
        fmi3Float32 f32[1];
        printf("Float32: %d\n", getF32(in, vm, 1, f32, 1));
        const fmi3Float64 neg[1] = {-1}, nan3[3] = {0, NAN, 0};
        printf("m = -1: %d\n", setF64(in, vm, 1, neg, 1));
        printf("F = NaN: %d\n", setF64(in, vF, 1, nan3, 3));
        fmi3Boolean ev, term, early;
        fmi3Float64 last = -1;
        fmi3Status s = doStep(in, 0.3, H, true, &ev, &term, &early, &last);
        printf("step from 0.3: %d, last %g\n", s, last);
        freeInstance(in);
        return 0;
    }
    if (strcmp(argv[4], "bench") == 0 && argc > 5) {
        long n = atol(argv[5]);
        fmi3Instance in = start("bench", 5, 0);
        double x[3], t;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (long k = 0; k < n; k++) step(in, k * H, x, &t);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("%.1f\n", ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n);
        freeInstance(in);
        return 0;
    }
    return 2;
}
`

// buildCMaster compiles cMaster against the standard's headers and
// unpacks the oscillator exported with the binary; it returns the
// master's path and its first three arguments.
func buildCMaster(t testing.TB, binary string) (master string, args []string) {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "master.c")
	if err := os.WriteFile(src, []byte(cMaster), 0o644); err != nil {
		t.Fatal(err)
	}
	master = filepath.Join(dir, "master")
	out, err := exec.Command("gcc", "-O2", "-Wall", "-Werror", "-I"+shared+"/fmi-standard/headers", src, "-o", master, "-ldl", "-lpthread", "-lm").CombinedOutput()
	if err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	fmu := unzip(t, oscillatorFMU(t, binary), filepath.Join(dir, "Oscillator"))
	md, err := os.ReadFile(filepath.Join(fmu, "modelDescription.xml"))
	if err != nil {
		t.Fatal(err)
	}
	tok := strings.SplitN(strings.SplitN(string(md), `instantiationToken="`, 2)[1], `"`, 2)[0]
	return master, []string{filepath.Join(fmu, "binaries/x86_64-linux/Oscillator.so"), filepath.Join(fmu, "resources") + "/", tok}
}

// runCMaster runs the master and returns its standard output.
func runCMaster(t testing.TB, master string, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(master, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("master %v: %v\n%s%s", args[3:], err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// TestInstancesFromThreads runs two instances of each binary in one C
// master, stepped at once from two threads, with different masses and
// start times: each gives the bits it gives alone (instances share
// nothing; calls from any thread work). The instance started at t = 1
// reports its time from 1 and gives the bits of the same run from 0 (the
// oscillator does not depend on time), and the two masses give
// different motions (the comparison can fail).
func TestInstancesFromThreads(t *testing.T) {
	for _, binary := range binaries {
		t.Run(binary, func(t *testing.T) {
			master, args := buildCMaster(t, binary)
			out := runCMaster(t, master, append(args, "pair")...)
			want := "threads same\nstart time same\nmasses differ\ntimes same\n"
			if out != want {
				t.Errorf("master:\n%s\nwant:\n%s", out, want)
			}
		})
	}
}

// TestStateRoundTripFromC takes an FMU state at t = 0.1, serializes it,
// steps on to 0.2, deserializes it into a new state and sets it: the
// steps to 0.2 again give the same bits, and so does returning to the
// state first taken (both binaries).
func TestStateRoundTripFromC(t *testing.T) {
	for _, binary := range binaries {
		t.Run(binary, func(t *testing.T) {
			master, args := buildCMaster(t, binary)
			out := runCMaster(t, master, append(args, "state")...)
			if !strings.HasPrefix(out, "state same ") || !strings.Contains(out, "first state same\n") {
				t.Errorf("master:\n%s", out)
			}
			t.Logf("%s", out)
		})
	}
}

// TestErrorsReachTheLogger makes each binary refuse calls from C: the
// status is fmi3Error (fmi3Fatal and no instance for a wrong token), and
// the master's logger receives the reason, naming the function, the
// variable and the time.
func TestErrorsReachTheLogger(t *testing.T) {
	for _, binary := range binaries {
		t.Run(binary, func(t *testing.T) {
			master, args := buildCMaster(t, binary)
			out := runCMaster(t, master, append(args, "errors")...)
			for _, want := range []string{
				"[e] 4 logStatusError: instantiation token {not-the-token} does not match the FMU's",
				"wrong token: NULL\n",
				"[e] 3 logStatusError: fmi3GetFloat32: the FMU's variables are Float64, Int64 and Boolean\nFloat32: 3\n",
				"[e] 3 logStatusError: fmi3SetFloat64: m = -1 is below its min 0\nm = -1: 3\n",
				"[e] 3 logStatusError: fmi3SetFloat64: input F[1] = NaN at t = 0 is not finite\nF = NaN: 3\n",
				"[e] 3 logStatusError: fmi3DoStep: currentCommunicationPoint = 0.3, and the FMU is at t = 0\nstep from 0.3: 3, last 0\n",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("the master's output lacks %q; it is:\n%s", want, out)
				}
			}
		})
	}
}

// BenchmarkDoStepFromC is one fmi3DoStep of the oscillator (one scene
// step) and an fmi3GetFloat64 of its position, called from C, for each
// binary: the per-step cost a C master pays. The time is the C master's
// own clock per step (ns/step), over b.N steps.
func BenchmarkDoStepFromC(b *testing.B) {
	for _, binary := range binaries {
		b.Run(binary, func(b *testing.B) {
			master, args := buildCMaster(b, binary)
			n := max(b.N, 1000)
			out := runCMaster(b, master, append(args, "bench", strconv.Itoa(n))...)
			ns, err := strconv.ParseFloat(strings.TrimSpace(out), 64)
			if err != nil {
				b.Fatal(out)
			}
			b.ReportMetric(ns, "ns/step")
		})
	}
}
