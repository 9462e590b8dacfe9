//go:build cgo && unix

// The C side of cosim's in-process FMI transport; cfmi.h documents it.
// The FMI signatures below are the standard's (FMI 2.0 and 3.0 C APIs),
// written out here so that the project builds without the standard's
// headers. The same file is compiled into cosim's FMU host program
// (host/fmuhost.c, the out-of-process transport) with COSIM_FMU_HOST
// defined: goFMILog is then the host's, not cgo's.

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfmi.h"
#ifndef COSIM_FMU_HOST
#include "_cgo_export.h"
#endif

static void copy_dlerror(char *err, size_t errlen) {
	const char *e = dlerror();
	if (err && errlen > 0) {
		snprintf(err, errlen, "%s", e ? e : "unknown dlopen error");
	}
}

void *cosim_dlopen(const char *path, char *err, size_t errlen) {
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		copy_dlerror(err, errlen);
	}
	return h;
}

void *cosim_dlsym(void *lib, const char *name) { return dlsym(lib, name); }

int cosim_dlclose(void *lib, char *err, size_t errlen) {
	int r = dlclose(lib);
	if (r != 0) {
		copy_dlerror(err, errlen);
	}
	return r;
}

cosim_env *cosim_env_new(uintptr_t handle) {
	cosim_env *e = calloc(1, sizeof(cosim_env));
	if (e) {
		e->handle = handle;
	}
	return e;
}

void cosim_env_free(cosim_env *env) { free(env); }

// ---- logging -------------------------------------------------------------

static void cosim_log3(void *env, int status, const char *category, const char *message) {
	cosim_env *e = env;
	if (e) {
		goFMILog(e->handle, status, (char *)category, (char *)message);
	}
}

// FMI 2.0's logger takes a printf format and arguments.
static void cosim_log2(void *env, const char *instance, int status, const char *category, const char *message, ...) {
	(void)instance;
	cosim_env *e = env;
	if (!e || !message) {
		return;
	}
	va_list args;
	va_start(args, message);
	va_list copy;
	va_copy(copy, args);
	int n = vsnprintf(NULL, 0, message, copy);
	va_end(copy);
	if (n < 0) {
		va_end(args);
		goFMILog(e->handle, status, (char *)category, (char *)message);
		return;
	}
	char *buf = malloc((size_t)n + 1);
	if (!buf) {
		va_end(args);
		goFMILog(e->handle, status, (char *)category, (char *)message);
		return;
	}
	vsnprintf(buf, (size_t)n + 1, message, args);
	va_end(args);
	goFMILog(e->handle, status, (char *)category, buf);
	free(buf);
}

// ---- FMI 3.0 --------------------------------------------------------------

typedef void (*fmi3Log)(void *, int, const char *, const char *);
typedef void *(*fmi3InstantiateCS)(const char *, const char *, const char *, bool, bool, bool, bool,
                                   const uint32_t *, size_t, void *, fmi3Log, void *);
typedef void *(*fmi3InstantiateME)(const char *, const char *, const char *, bool, bool, void *, fmi3Log);
typedef void (*fmi3Free)(void *);
typedef int (*fmi3Inst)(void *);
typedef int (*fmi3EnterInit)(void *, bool, double, double, bool, double);
typedef int (*fmi3Values)(void *, const uint32_t *, size_t, void *, size_t);
typedef int (*fmi3DoStep)(void *, double, double, bool, bool *, bool *, bool *, double *);
typedef int (*fmi3SetTime)(void *, double);
typedef int (*fmi3Array)(void *, double *, size_t);
typedef int (*fmi3UpdateDiscrete)(void *, bool *, bool *, bool *, bool *, bool *, double *);
typedef int (*fmi3Completed)(void *, bool, bool *, bool *);
typedef int (*fmi3DD)(void *, const uint32_t *, size_t, const uint32_t *, size_t, const double *, size_t, double *, size_t);
typedef int (*fmi3State)(void *, void **);
typedef int (*fmi3SetState)(void *, void *);
typedef int (*fmi3StateSize)(void *, void *, size_t *);
typedef int (*fmi3Serialize)(void *, void *, void *, size_t);
typedef int (*fmi3Deserialize)(void *, const void *, size_t, void **);

void *cosim_fmi3_instantiate_cs(void *f, const char *name, const char *token, const char *resources, bool logging, cosim_env *env) {
	// eventModeUsed and earlyReturnAllowed are false: cosim steps to the
	// end of every communication step.
	return ((fmi3InstantiateCS)f)(name, token, resources, false, logging, false, false, NULL, 0, env, cosim_log3, NULL);
}

void *cosim_fmi3_instantiate_me(void *f, const char *name, const char *token, const char *resources, bool logging, cosim_env *env) {
	return ((fmi3InstantiateME)f)(name, token, resources, false, logging, env, cosim_log3);
}

void cosim_fmi3_free(void *f, void *inst) { ((fmi3Free)f)(inst); }

int cosim_fmi3_inst(void *f, void *inst) { return ((fmi3Inst)f)(inst); }

int cosim_fmi3_enter_init(void *f, void *inst, bool tolDefined, double tol, double start, bool stopDefined, double stop) {
	return ((fmi3EnterInit)f)(inst, tolDefined, tol, start, stopDefined, stop);
}

// Every fmi3Get<Type> and fmi3Set<Type> of a numeric or Boolean type has
// this shape: (instance, value references, count, values, count).
int cosim_fmi3_get(void *f, void *inst, const uint32_t *vr, size_t nvr, void *values, size_t nvalues) {
	return ((fmi3Values)f)(inst, vr, nvr, values, nvalues);
}

int cosim_fmi3_do_step(void *f, void *inst, double t, double h, bool *eventNeeded, bool *terminate, bool *early, double *last) {
	// noSetFMUStatePriorToCurrentPoint is false: cosim may restore an
	// earlier state (re-stepped coupling iterations, checkpoints).
	return ((fmi3DoStep)f)(inst, t, h, false, eventNeeded, terminate, early, last);
}

int cosim_fmi3_step_get(void *fstep, void *fget, void *inst, double t, double h, bool *eventNeeded, bool *terminate, bool *early,
                        double *last, const uint32_t *vr, size_t nvr, double *values, size_t nvalues, int *which) {
	*which = 0;
	int s = ((fmi3DoStep)fstep)(inst, t, h, false, eventNeeded, terminate, early, last);
	if (s != 0) {
		return s;
	}
	*which = 1;
	return ((fmi3Values)fget)(inst, vr, nvr, values, nvalues);
}

int cosim_fmi3_set_time(void *f, void *inst, double t) { return ((fmi3SetTime)f)(inst, t); }

// fmi3SetContinuousStates, fmi3GetContinuousStates,
// fmi3GetContinuousStateDerivatives and fmi3GetEventIndicators share
// this shape.
int cosim_fmi3_array(void *f, void *inst, double *x, size_t n) { return ((fmi3Array)f)(inst, x, n); }

int cosim_fmi3_update_discrete(void *f, void *inst, bool *needUpdate, bool *terminate, bool *nominalsChanged, bool *valuesChanged, bool *nextDefined, double *next) {
	return ((fmi3UpdateDiscrete)f)(inst, needUpdate, terminate, nominalsChanged, valuesChanged, nextDefined, next);
}

int cosim_fmi3_completed_step(void *f, void *inst, bool *enterEvent, bool *terminate) {
	return ((fmi3Completed)f)(inst, false, enterEvent, terminate);
}

int cosim_fmi3_dd(void *f, void *inst, const uint32_t *unknowns, size_t nu, const uint32_t *knowns, size_t nk, const double *seed, size_t ns, double *sens, size_t nsens) {
	return ((fmi3DD)f)(inst, unknowns, nu, knowns, nk, seed, ns, sens, nsens);
}

// fmi3GetFMUState and fmi3FreeFMUState share this shape.
int cosim_fmi3_state(void *f, void *inst, void **state) { return ((fmi3State)f)(inst, state); }

int cosim_fmi3_set_state(void *f, void *inst, void *state) { return ((fmi3SetState)f)(inst, state); }

int cosim_fmi3_state_size(void *f, void *inst, void *state, size_t *size) { return ((fmi3StateSize)f)(inst, state, size); }

int cosim_fmi3_serialize(void *f, void *inst, void *state, void *buf, size_t size) {
	return ((fmi3Serialize)f)(inst, state, buf, size);
}

int cosim_fmi3_deserialize(void *f, void *inst, const void *buf, size_t size, void **state) {
	return ((fmi3Deserialize)f)(inst, buf, size, state);
}

// ---- FMI 2.0 --------------------------------------------------------------

typedef void (*fmi2Log)(void *, const char *, int, const char *, const char *, ...);
typedef struct {
	fmi2Log logger;
	void *(*allocateMemory)(size_t, size_t);
	void (*freeMemory)(void *);
	void (*stepFinished)(void *, int);
	void *componentEnvironment;
} fmi2Callbacks;

typedef void *(*fmi2Instantiate)(const char *, int, const char *, const char *, const fmi2Callbacks *, int, int);
typedef void (*fmi2Free)(void *);
typedef int (*fmi2Inst)(void *);
typedef int (*fmi2Setup)(void *, int, double, double, int, double);
typedef int (*fmi2Values)(void *, const unsigned int *, size_t, void *);
typedef int (*fmi2DoStep)(void *, double, double, int);
typedef int (*fmi2SetTime)(void *, double);
typedef int (*fmi2Array)(void *, double *, size_t);
typedef struct {
	int newDiscreteStatesNeeded;
	int terminateSimulation;
	int nominalsOfContinuousStatesChanged;
	int valuesOfContinuousStatesChanged;
	int nextEventTimeDefined;
	double nextEventTime;
} fmi2EventInfo;
typedef int (*fmi2NewDiscrete)(void *, fmi2EventInfo *);
typedef int (*fmi2Completed)(void *, int, int *, int *);
typedef int (*fmi2DD)(void *, const unsigned int *, size_t, const unsigned int *, size_t, const double *, double *);
typedef int (*fmi2State)(void *, void **);
typedef int (*fmi2SetState)(void *, void *);
typedef int (*fmi2StateSize)(void *, void *, size_t *);
typedef int (*fmi2Serialize)(void *, void *, void *, size_t);
typedef int (*fmi2Deserialize)(void *, const void *, size_t, void **);

void *cosim_fmi2_callbacks_new(cosim_env *env) {
	fmi2Callbacks *cb = calloc(1, sizeof(fmi2Callbacks));
	if (cb) {
		cb->logger = cosim_log2;
		cb->allocateMemory = calloc;
		cb->freeMemory = free;
		cb->stepFinished = NULL;
		cb->componentEnvironment = env;
	}
	return cb;
}

void cosim_fmi2_callbacks_free(void *cb) { free(cb); }

void *cosim_fmi2_instantiate(void *f, const char *name, int type, const char *guid, const char *resources, void *callbacks, int logging) {
	return ((fmi2Instantiate)f)(name, type, guid, resources, (const fmi2Callbacks *)callbacks, 0, logging);
}

void cosim_fmi2_free(void *f, void *inst) { ((fmi2Free)f)(inst); }

int cosim_fmi2_inst(void *f, void *inst) { return ((fmi2Inst)f)(inst); }

int cosim_fmi2_setup(void *f, void *inst, int tolDefined, double tol, double start, int stopDefined, double stop) {
	return ((fmi2Setup)f)(inst, tolDefined, tol, start, stopDefined, stop);
}

// fmi2GetReal/Integer/Boolean and fmi2SetReal/Integer/Boolean share this
// shape.
int cosim_fmi2_get(void *f, void *inst, const unsigned int *vr, size_t nvr, void *values) {
	return ((fmi2Values)f)(inst, vr, nvr, values);
}

int cosim_fmi2_do_step(void *f, void *inst, double t, double h) {
	return ((fmi2DoStep)f)(inst, t, h, 0);
}

typedef int (*fmi2BoolStatus)(void *, int, int *);
typedef int (*fmi2RealStatus)(void *, int, double *);

int cosim_fmi2_bool_status(void *f, void *inst, int kind, int *value) { return ((fmi2BoolStatus)f)(inst, kind, value); }

int cosim_fmi2_real_status(void *f, void *inst, int kind, double *value) { return ((fmi2RealStatus)f)(inst, kind, value); }

int cosim_fmi2_step_get(void *fstep, void *fget, void *inst, double t, double h, const unsigned int *vr, size_t nvr, double *values, int *which) {
	*which = 0;
	int s = ((fmi2DoStep)fstep)(inst, t, h, 0);
	if (s != 0) {
		return s;
	}
	*which = 1;
	return ((fmi2Values)fget)(inst, vr, nvr, values);
}

int cosim_fmi2_set_time(void *f, void *inst, double t) { return ((fmi2SetTime)f)(inst, t); }

int cosim_fmi2_array(void *f, void *inst, double *x, size_t n) { return ((fmi2Array)f)(inst, x, n); }

int cosim_fmi2_new_discrete(void *f, void *inst, int *needUpdate, int *terminate, int *nominalsChanged, int *valuesChanged, int *nextDefined, double *next) {
	fmi2EventInfo ei;
	memset(&ei, 0, sizeof ei);
	int s = ((fmi2NewDiscrete)f)(inst, &ei);
	*needUpdate = ei.newDiscreteStatesNeeded;
	*terminate = ei.terminateSimulation;
	*nominalsChanged = ei.nominalsOfContinuousStatesChanged;
	*valuesChanged = ei.valuesOfContinuousStatesChanged;
	*nextDefined = ei.nextEventTimeDefined;
	*next = ei.nextEventTime;
	return s;
}

int cosim_fmi2_completed_step(void *f, void *inst, int *enterEvent, int *terminate) {
	return ((fmi2Completed)f)(inst, 0, enterEvent, terminate);
}

int cosim_fmi2_dd(void *f, void *inst, const unsigned int *unknowns, size_t nu, const unsigned int *knowns, size_t nk, const double *seed, double *sens) {
	return ((fmi2DD)f)(inst, unknowns, nu, knowns, nk, seed, sens);
}

int cosim_fmi2_state(void *f, void *inst, void **state) { return ((fmi2State)f)(inst, state); }

int cosim_fmi2_set_state(void *f, void *inst, void *state) { return ((fmi2SetState)f)(inst, state); }

int cosim_fmi2_state_size(void *f, void *inst, void *state, size_t *size) { return ((fmi2StateSize)f)(inst, state, size); }

int cosim_fmi2_serialize(void *f, void *inst, void *state, void *buf, size_t size) {
	return ((fmi2Serialize)f)(inst, state, buf, size);
}

int cosim_fmi2_deserialize(void *f, void *inst, const void *buf, size_t size, void **state) {
	return ((fmi2Deserialize)f)(inst, buf, size, state);
}
