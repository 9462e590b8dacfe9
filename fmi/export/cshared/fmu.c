/*
 * The C part of the c-shared binary of an FMU exported by cosim (FMI 3.0,
 * co-simulation): the fmi3 functions the master calls. Each checks its
 * pointers, converts the master's arrays and calls the Go function of the
 * same name in main.go (declared in _cgo_export.h), which runs the
 * instance's scene in this process; messages come back through
 * cosim_log, the trampoline to the master's logger.
 *
 * Built by `cosim export` with go build -buildmode=c-shared. The tests
 * build it with CGO_CFLAGS=-DCOSIM_FMI3_HEADERS and the standard's
 * headers, which checks every definition against the standard's
 * declaration (fmi3types.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "_cgo_export.h"

void cosim_log(inst *in, int status, const char *category, const char *message) {
    if (in && in->log) in->log(in->env, (fmi3Status)status, category, message);
}

#include "fmi3unsupported.h"

FMI3_Export fmi3Instance fmi3InstantiateCoSimulation(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath, fmi3Boolean visible,
    fmi3Boolean loggingOn, fmi3Boolean eventModeUsed, fmi3Boolean earlyReturnAllowed,
    const fmi3ValueReference requiredIntermediateVariables[], size_t nRequiredIntermediateVariables,
    fmi3InstanceEnvironment instanceEnvironment, fmi3LogMessageCallback logMessage,
    fmi3IntermediateUpdateCallback intermediateUpdate) {
    (void)visible, (void)earlyReturnAllowed, (void)requiredIntermediateVariables, (void)intermediateUpdate;
    if (instantiation_refused(eventModeUsed, nRequiredIntermediateVariables, instanceEnvironment, logMessage))
        return NULL;
    inst *in = calloc(1, sizeof *in);
    if (!in) return NULL;
    in->env = instanceEnvironment;
    in->log = logMessage;
    if (!resourcePath) {
        logf_(in, fmi3Error, "logStatusError", "fmi3InstantiateCoSimulation: no resourcePath: the FMU's scene is in its resources folder");
        free(in);
        return NULL;
    }
    if (cosimInstantiate(in, (char *)(instanceName ? instanceName : ""),
                         (char *)(instantiationToken ? instantiationToken : ""), (char *)resourcePath,
                         loggingOn ? 1 : 0) > fmi3Warning) {
        free(in);
        return NULL;
    }
    return in;
}

FMI3_Export void fmi3FreeInstance(fmi3Instance instance) {
    inst *in = instance;
    if (!in) return;
    cosimFree(in);
    free(in);
}

FMI3_Export fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t nCategories,
                                           const fmi3String categories[]) {
    (void)nCategories, (void)categories;
    if (!instance) return fmi3Error;
    return (fmi3Status)cosimSetDebugLogging(instance, loggingOn ? 1 : 0);
}

FMI3_Export fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                                   fmi3Float64 tolerance, fmi3Float64 startTime,
                                                   fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
    if (!instance) return fmi3Error;
    return (fmi3Status)cosimEnterInitializationMode(instance, toleranceDefined ? 1 : 0, tolerance, startTime,
                                                    stopTimeDefined ? 1 : 0, stopTime);
}

FMI3_Export fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
    if (!instance) return fmi3Error;
    return (fmi3Status)cosimExitInitializationMode(instance);
}

FMI3_Export fmi3Status fmi3Terminate(fmi3Instance instance) {
    if (!instance) return fmi3Error;
    return (fmi3Status)cosimTerminate(instance);
}

FMI3_Export fmi3Status fmi3Reset(fmi3Instance instance) {
    if (!instance) return fmi3Error;
    return (fmi3Status)cosimReset(instance);
}

/* Values cross to Go as 8-byte words (fmi/export.ValueType): Float64
 * and Int64 arrays are already that; Booleans are converted. */
enum { TYPE_FLOAT64 = 1, TYPE_INT64 = 2, TYPE_BOOLEAN = 3 };

static fmi3Status check(inst *in, const char *fn, const fmi3ValueReference vr[], size_t nvr, const void *values,
                        size_t nv) {
    if (!in) return fmi3Error;
    if ((nvr > 0 && !vr) || (nv > 0 && !values)) {
        logf_(in, fmi3Error, "logStatusError", "%s: NULL array", fn);
        return fmi3Error;
    }
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                      size_t nValueReferences, fmi3Float64 values[], size_t nValues) {
    if (check(instance, "fmi3GetFloat64", valueReferences, nValueReferences, values, nValues)) return fmi3Error;
    return (fmi3Status)cosimGet(instance, TYPE_FLOAT64, (uint32_t *)valueReferences, nValueReferences,
                                (uint64_t *)values, nValues);
}

FMI3_Export fmi3Status fmi3GetInt64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, fmi3Int64 values[], size_t nValues) {
    if (check(instance, "fmi3GetInt64", valueReferences, nValueReferences, values, nValues)) return fmi3Error;
    return (fmi3Status)cosimGet(instance, TYPE_INT64, (uint32_t *)valueReferences, nValueReferences,
                                (uint64_t *)values, nValues);
}

FMI3_Export fmi3Status fmi3GetBoolean(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                      size_t nValueReferences, fmi3Boolean values[], size_t nValues) {
    if (check(instance, "fmi3GetBoolean", valueReferences, nValueReferences, values, nValues)) return fmi3Error;
    uint64_t *w = calloc(nValues ? nValues : 1, 8);
    if (!w) return fmi3Error;
    fmi3Status s = (fmi3Status)cosimGet(instance, TYPE_BOOLEAN, (uint32_t *)valueReferences, nValueReferences, w, nValues);
    if (s <= fmi3Warning)
        for (size_t i = 0; i < nValues; i++) values[i] = w[i] != 0;
    free(w);
    return s;
}

FMI3_Export fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                      size_t nValueReferences, const fmi3Float64 values[], size_t nValues) {
    if (check(instance, "fmi3SetFloat64", valueReferences, nValueReferences, values, nValues)) return fmi3Error;
    return (fmi3Status)cosimSet(instance, TYPE_FLOAT64, (uint32_t *)valueReferences, nValueReferences,
                                (uint64_t *)values, nValues);
}

FMI3_Export fmi3Status fmi3SetInt64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, const fmi3Int64 values[], size_t nValues) {
    if (check(instance, "fmi3SetInt64", valueReferences, nValueReferences, values, nValues)) return fmi3Error;
    return (fmi3Status)cosimSet(instance, TYPE_INT64, (uint32_t *)valueReferences, nValueReferences,
                                (uint64_t *)values, nValues);
}

FMI3_Export fmi3Status fmi3SetBoolean(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                      size_t nValueReferences, const fmi3Boolean values[], size_t nValues) {
    if (check(instance, "fmi3SetBoolean", valueReferences, nValueReferences, values, nValues)) return fmi3Error;
    uint64_t *w = calloc(nValues ? nValues : 1, 8);
    if (!w) return fmi3Error;
    for (size_t i = 0; i < nValues; i++) w[i] = values[i] ? 1 : 0;
    fmi3Status s = (fmi3Status)cosimSet(instance, TYPE_BOOLEAN, (uint32_t *)valueReferences, nValueReferences, w, nValues);
    free(w);
    return s;
}

FMI3_Export fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                                  fmi3Float64 communicationStepSize, fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                  fmi3Boolean *eventHandlingNeeded, fmi3Boolean *terminateSimulation,
                                  fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime) {
    (void)noSetFMUStatePriorToCurrentPoint;
    if (!instance) return fmi3Error;
    if (eventHandlingNeeded) *eventHandlingNeeded = false;
    if (earlyReturn) *earlyReturn = false;
    if (terminateSimulation) *terminateSimulation = false;
    double last = currentCommunicationPoint;
    fmi3Status s = (fmi3Status)cosimDoStep(instance, currentCommunicationPoint, communicationStepSize, &last);
    if (lastSuccessfulTime) *lastSuccessfulTime = last;
    return s;
}

/* The transport of FMU states (fmi3state.h): calls into Go. */
static fmi3Status state_get(inst *in, uint32_t id, uint32_t *out) { return (fmi3Status)cosimGetFMUState(in, id, out); }
static fmi3Status state_set(inst *in, uint32_t id) { return (fmi3Status)cosimSetFMUState(in, id); }
static fmi3Status state_free(inst *in, uint32_t id) { return (fmi3Status)cosimFreeFMUState(in, id); }
static fmi3Status state_serialize(inst *in, uint32_t id, uint8_t **bytes, size_t *n) {
    return (fmi3Status)cosimSerializeFMUState(in, id, bytes, n);
}
static fmi3Status state_deserialize(inst *in, const uint8_t *bytes, size_t n, uint32_t *id) {
    return (fmi3Status)cosimDeserializeFMUState(in, (uint8_t *)bytes, n, id);
}

#include "fmi3state.h"
