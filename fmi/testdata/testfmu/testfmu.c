/*
 * A tiny FMI 3.0 co-simulation FMU for cosim's importer tests (cosim's own
 * code, compiled by the tests against the standard's headers in
 * ../shared/fmi/fmi-standard/headers).
 *
 * x' = k·u, integrated exactly over each step (u held): x += k·u·h.
 * Parameters make it misbehave on purpose: from t >= fail_at, fmi3DoStep
 * returns fail_status (1 Warning, 2 Discard, 3 Error, 4 Fatal) after
 * logging why; from t >= nan_at, x reads NaN. With the environment
 * variable COSIM_TESTFMU_LOG set, every instantiation, termination and
 * free is appended to that file ("instantiate NAME", …), so tests count
 * them. Compiled with -DOMIT_DOSTEP it lacks fmi3DoStep.
 *
 * For cosim's out-of-process mode it can also misbehave the way an FMU
 * can take its process down: from t >= misbehave_at, fmi3DoStep does
 * what misbehave says: 1 dereferences NULL (a segmentation fault), 2 loops
 * forever, 3 writes bytes that are not cosim's protocol into file
 * descriptor 4 (the host's reply pipe), 4 exits with status 3, 5 prints a
 * line on stderr and aborts.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmi3Functions.h"

typedef struct {
	double time, x, u, k, fail_at, nan_at, misbehave_at;
	int fail_status, misbehave;
	int initialized;
	char name[128];
	fmi3InstanceEnvironment env;
	fmi3LogMessageCallback logger;
} Instance;

enum { VR_TIME, VR_X, VR_U, VR_K, VR_FAIL_AT, VR_FAIL_STATUS, VR_NAN_AT, VR_MISBEHAVE_AT, VR_MISBEHAVE };

static void record(const char *what, const char *name) {
	const char *path = getenv("COSIM_TESTFMU_LOG");
	if (!path || !*path) return;
	FILE *f = fopen(path, "a");
	if (!f) return;
	fprintf(f, "%s %s\n", what, name);
	fclose(f);
}

static void say(Instance *s, fmi3Status status, const char *category, const char *fmt, double a, double b) {
	if (!s->logger) return;
	char buf[256];
	snprintf(buf, sizeof buf, fmt, a, b);
	s->logger(s->env, status, category, buf);
}

static void defaults(Instance *s) {
	s->time = 0;
	s->x = 0;
	s->u = 1;
	s->k = 1;
	s->fail_at = 1e300;
	s->fail_status = fmi3Error;
	s->nan_at = 1e300;
	s->misbehave_at = 1e300;
	s->misbehave = 0;
	s->initialized = 0;
}

const char *fmi3GetVersion(void) { return fmi3Version; }

fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t n, const fmi3String categories[]) {
	(void)instance; (void)loggingOn; (void)n; (void)categories;
	return fmi3OK;
}

fmi3Instance fmi3InstantiateCoSimulation(fmi3String instanceName, fmi3String token, fmi3String resourcePath,
	fmi3Boolean visible, fmi3Boolean loggingOn, fmi3Boolean eventModeUsed, fmi3Boolean earlyReturnAllowed,
	const fmi3ValueReference required[], size_t nRequired, fmi3InstanceEnvironment env,
	fmi3LogMessageCallback logger, fmi3IntermediateUpdateCallback intermediate) {
	(void)resourcePath; (void)visible; (void)loggingOn; (void)eventModeUsed; (void)earlyReturnAllowed;
	(void)required; (void)nRequired; (void)intermediate;
	if (strcmp(token, "{cosim-testfmu-1}") != 0) {
		if (logger) logger(env, fmi3Error, "logStatusError", "wrong instantiation token");
		return NULL;
	}
	Instance *s = calloc(1, sizeof(Instance));
	if (!s) return NULL;
	defaults(s);
	snprintf(s->name, sizeof s->name, "%s", instanceName);
	s->env = env;
	s->logger = logger;
	record("instantiate", s->name);
	return s;
}

void fmi3FreeInstance(fmi3Instance instance) {
	Instance *s = instance;
	if (!s) return;
	record("free", s->name);
	free(s);
}

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean tolDefined, fmi3Float64 tol,
	fmi3Float64 start, fmi3Boolean stopDefined, fmi3Float64 stop) {
	(void)tolDefined; (void)tol; (void)stopDefined; (void)stop;
	Instance *s = instance;
	s->time = start;
	return fmi3OK;
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
	((Instance *)instance)->initialized = 1;
	return fmi3OK;
}

fmi3Status fmi3Terminate(fmi3Instance instance) {
	record("terminate", ((Instance *)instance)->name);
	return fmi3OK;
}

fmi3Status fmi3Reset(fmi3Instance instance) {
	Instance *s = instance;
	defaults(s);
	return fmi3OK;
}

fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, fmi3Float64 v[], size_t nv) {
	Instance *s = instance;
	if (nv != nvr) return fmi3Error;
	for (size_t i = 0; i < nvr; i++) {
		switch (vr[i]) {
		case VR_TIME: v[i] = s->time; break;
		case VR_X: v[i] = s->time >= s->nan_at ? NAN : s->x; break;
		case VR_U: v[i] = s->u; break;
		case VR_K: v[i] = s->k; break;
		case VR_FAIL_AT: v[i] = s->fail_at; break;
		case VR_NAN_AT: v[i] = s->nan_at; break;
		case VR_MISBEHAVE_AT: v[i] = s->misbehave_at; break;
		default:
			say(s, fmi3Error, "logStatusError", "fmi3GetFloat64: no Float64 variable %g%.0g", (double)vr[i], 0);
			return fmi3Error;
		}
	}
	return fmi3OK;
}

fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, const fmi3Float64 v[], size_t nv) {
	Instance *s = instance;
	if (nv != nvr) return fmi3Error;
	for (size_t i = 0; i < nvr; i++) {
		switch (vr[i]) {
		case VR_U: s->u = v[i]; break;
		case VR_K: s->k = v[i]; break;
		case VR_FAIL_AT: s->fail_at = v[i]; break;
		case VR_NAN_AT: s->nan_at = v[i]; break;
		case VR_MISBEHAVE_AT: s->misbehave_at = v[i]; break;
		default:
			say(s, fmi3Error, "logStatusError", "fmi3SetFloat64: variable %g cannot be set%.0g", (double)vr[i], 0);
			return fmi3Error;
		}
	}
	return fmi3OK;
}

fmi3Status fmi3GetInt32(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, fmi3Int32 v[], size_t nv) {
	Instance *s = instance;
	if (nv != nvr) return fmi3Error;
	for (size_t i = 0; i < nvr; i++) {
		if (vr[i] == VR_FAIL_STATUS) v[i] = s->fail_status;
		else if (vr[i] == VR_MISBEHAVE) v[i] = s->misbehave;
		else return fmi3Error;
	}
	return fmi3OK;
}

fmi3Status fmi3SetInt32(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, const fmi3Int32 v[], size_t nv) {
	Instance *s = instance;
	if (nv != nvr) return fmi3Error;
	for (size_t i = 0; i < nvr; i++) {
		if (vr[i] == VR_FAIL_STATUS) s->fail_status = v[i];
		else if (vr[i] == VR_MISBEHAVE) s->misbehave = v[i];
		else return fmi3Error;
	}
	return fmi3OK;
}

#ifndef OMIT_DOSTEP
fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 t, fmi3Float64 h, fmi3Boolean noSetPrior,
	fmi3Boolean *eventNeeded, fmi3Boolean *terminate, fmi3Boolean *earlyReturn, fmi3Float64 *last) {
	(void)noSetPrior;
	Instance *s = instance;
	*eventNeeded = fmi3False;
	*terminate = fmi3False;
	*earlyReturn = fmi3False;
	if (t >= s->misbehave_at) {
		static const char garbage[] = "\xff\xff\xff\x7fthis is not cosim's protocol";
		volatile int *null = NULL;
		switch (s->misbehave) {
		case 1: *null = 1; break;
		case 2: for (;;) pause(); break;
		case 3: if (write(4, garbage, sizeof garbage) < 0) return fmi3Error; break;
		case 4: exit(3);
		case 5: fprintf(stderr, "testfmu: giving up at t=%g\n", t); fflush(stderr); abort();
		}
	}
	if (t >= s->fail_at) {
		say(s, (fmi3Status)s->fail_status, "logStatusError", "DoStep from t=%g fails as asked (fail_at = %g)", t, s->fail_at);
		*last = t;
		return (fmi3Status)s->fail_status;
	}
	s->x += s->k * s->u * h;
	s->time = t + h;
	*last = s->time;
	return fmi3OK;
}
#endif

#include "../fmustate.h"
