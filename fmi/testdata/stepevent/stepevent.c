/*
 * A tiny FMI 3.0 model-exchange FMU for cosim's importer tests (cosim's
 * own code, compiled by the tests against the standard's headers in
 * ../shared/fmi/fmi-standard/headers): an FMU that asks for step events.
 *
 * x' = 1 + n, x(0) = 0. fmi3CompletedIntegratorStep asks for event mode
 * (a step event) when the accepted step ends with x >= threshold; the
 * event update then sets x to 0, adds 1 to n and records the time in te.
 * So between events x(t) = (1 + n)·(t − te) exactly, and the derivative
 * jumps at every event: an importer that kept its integrator's memory of
 * the derivative across the event would leave that line. From
 * t >= stop_at, fmi3CompletedIntegratorStep asks to terminate.
 */
#include <stdlib.h>
#include <string.h>

#include "fmi3Functions.h"

typedef struct {
	double time, x, n, te, threshold, stop_at;
	fmi3InstanceEnvironment env;
	fmi3LogMessageCallback logger;
} Instance;

enum { VR_TIME, VR_X, VR_DER_X, VR_N, VR_TE, VR_THRESHOLD, VR_STOP_AT };

static void defaults(Instance *s) {
	s->time = 0;
	s->x = 0;
	s->n = 0;
	s->te = 0;
	s->threshold = 1;
	s->stop_at = 1e300;
}

const char *fmi3GetVersion(void) { return fmi3Version; }

fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t n, const fmi3String categories[]) {
	(void)instance; (void)loggingOn; (void)n; (void)categories;
	return fmi3OK;
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName, fmi3String token, fmi3String resourcePath,
	fmi3Boolean visible, fmi3Boolean loggingOn, fmi3InstanceEnvironment env, fmi3LogMessageCallback logger) {
	(void)instanceName; (void)resourcePath; (void)visible; (void)loggingOn;
	if (strcmp(token, "{cosim-stepevent-1}") != 0) {
		if (logger) logger(env, fmi3Error, "logStatusError", "wrong instantiation token");
		return NULL;
	}
	Instance *s = calloc(1, sizeof(Instance));
	if (!s) return NULL;
	defaults(s);
	s->env = env;
	s->logger = logger;
	return s;
}

void fmi3FreeInstance(fmi3Instance instance) { free(instance); }

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean tolDefined, fmi3Float64 tol,
	fmi3Float64 start, fmi3Boolean stopDefined, fmi3Float64 stop) {
	(void)tolDefined; (void)tol; (void)stopDefined; (void)stop;
	((Instance *)instance)->time = start;
	return fmi3OK;
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) { (void)instance; return fmi3OK; }
fmi3Status fmi3Terminate(fmi3Instance instance) { (void)instance; return fmi3OK; }

fmi3Status fmi3Reset(fmi3Instance instance) {
	defaults(instance);
	return fmi3OK;
}

fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, fmi3Float64 v[], size_t nv) {
	Instance *s = instance;
	if (nv != nvr) return fmi3Error;
	for (size_t i = 0; i < nvr; i++) {
		switch (vr[i]) {
		case VR_TIME: v[i] = s->time; break;
		case VR_X: v[i] = s->x; break;
		case VR_DER_X: v[i] = 1 + s->n; break;
		case VR_N: v[i] = s->n; break;
		case VR_TE: v[i] = s->te; break;
		case VR_THRESHOLD: v[i] = s->threshold; break;
		case VR_STOP_AT: v[i] = s->stop_at; break;
		default: return fmi3Error;
		}
	}
	return fmi3OK;
}

fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, const fmi3Float64 v[], size_t nv) {
	Instance *s = instance;
	if (nv != nvr) return fmi3Error;
	for (size_t i = 0; i < nvr; i++) {
		switch (vr[i]) {
		case VR_X: s->x = v[i]; break;
		case VR_THRESHOLD: s->threshold = v[i]; break;
		case VR_STOP_AT: s->stop_at = v[i]; break;
		default: return fmi3Error;
		}
	}
	return fmi3OK;
}

fmi3Status fmi3EnterEventMode(fmi3Instance instance) { (void)instance; return fmi3OK; }
fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance) { (void)instance; return fmi3OK; }

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance, fmi3Boolean noSetFMUStatePriorToCurrentPoint,
	fmi3Boolean *enterEventMode, fmi3Boolean *terminateSimulation) {
	(void)noSetFMUStatePriorToCurrentPoint;
	Instance *s = instance;
	*enterEventMode = s->x >= s->threshold;
	*terminateSimulation = s->time >= s->stop_at;
	return fmi3OK;
}

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean *discreteStatesNeedUpdate,
	fmi3Boolean *terminateSimulation, fmi3Boolean *nominalsChanged, fmi3Boolean *valuesChanged,
	fmi3Boolean *nextEventTimeDefined, fmi3Float64 *nextEventTime) {
	Instance *s = instance;
	*discreteStatesNeedUpdate = fmi3False;
	*terminateSimulation = fmi3False;
	*nominalsChanged = fmi3False;
	*nextEventTimeDefined = fmi3False;
	*nextEventTime = 0;
	*valuesChanged = fmi3False;
	if (s->x >= s->threshold) {
		s->x = 0;
		s->n += 1;
		s->te = s->time;
		*valuesChanged = fmi3True;
	}
	return fmi3OK;
}

fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time) {
	((Instance *)instance)->time = time;
	return fmi3OK;
}

fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 x[], size_t nx) {
	if (nx != 1) return fmi3Error;
	((Instance *)instance)->x = x[0];
	return fmi3OK;
}

fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 x[], size_t nx) {
	if (nx != 1) return fmi3Error;
	x[0] = ((Instance *)instance)->x;
	return fmi3OK;
}

fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 dx[], size_t nx) {
	if (nx != 1) return fmi3Error;
	dx[0] = 1 + ((Instance *)instance)->n;
	return fmi3OK;
}

fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 z[], size_t nz) {
	(void)instance; (void)z;
	return nz == 0 ? fmi3OK : fmi3Error;
}

/* stepevent.xml declares canGetAndSetFMUState only: the serialization
 * functions the header defines too are not called. */
#include "../fmustate.h"
