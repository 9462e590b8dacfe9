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

static void logf_(inst *in, fmi3Status s, const char *cat, const char *f, ...) {
    if (!in || !in->log) return;
    char msg[1024];
    va_list ap;
    va_start(ap, f);
    vsnprintf(msg, sizeof msg, f, ap);
    va_end(ap);
    in->log(in->env, s, cat, msg);
}

FMI3_Export fmi3Instance fmi3InstantiateCoSimulation(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath, fmi3Boolean visible,
    fmi3Boolean loggingOn, fmi3Boolean eventModeUsed, fmi3Boolean earlyReturnAllowed,
    const fmi3ValueReference requiredIntermediateVariables[], size_t nRequiredIntermediateVariables,
    fmi3InstanceEnvironment instanceEnvironment, fmi3LogMessageCallback logMessage,
    fmi3IntermediateUpdateCallback intermediateUpdate) {
    (void)visible, (void)earlyReturnAllowed, (void)requiredIntermediateVariables, (void)intermediateUpdate;
    inst *in = calloc(1, sizeof *in);
    if (!in) return NULL;
    in->env = instanceEnvironment;
    in->log = logMessage;
    if (eventModeUsed) {
        logf_(in, fmi3Error, "logStatusError", "fmi3InstantiateCoSimulation: event mode is not supported (the FMU has no clocks and no events for the master to handle)");
        free(in);
        return NULL;
    }
    if (nRequiredIntermediateVariables > 0) {
        logf_(in, fmi3Error, "logStatusError", "fmi3InstantiateCoSimulation: intermediate variables are not supported (providesIntermediateUpdate is false)");
        free(in);
        return NULL;
    }
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

/* An FMU state is the id of the Go instance's state, and its serialized
 * bytes once asked for (kept until the state is taken again or freed). */
typedef struct {
    uint32_t id;
    uint8_t *bytes;
    size_t size;
    bool serialized;
} state;

FMI3_Export fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState *FMUState) {
    if (!instance || !FMUState) return fmi3Error;
    state *st = *FMUState;
    uint32_t id = 0;
    fmi3Status s = (fmi3Status)cosimGetFMUState(instance, st ? st->id : 0, &id);
    if (s > fmi3Warning) return s;
    if (!st) {
        st = calloc(1, sizeof *st);
        if (!st) {
            cosimFreeFMUState(instance, id);
            logf_(instance, fmi3Error, "logStatusError", "fmi3GetFMUState: out of memory");
            return fmi3Error;
        }
    }
    free(st->bytes);
    st->bytes = NULL;
    st->serialized = false;
    st->id = id;
    *FMUState = st;
    return s;
}

FMI3_Export fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState) {
    state *st = FMUState;
    if (!instance || !st) return fmi3Error;
    return (fmi3Status)cosimSetFMUState(instance, st->id);
}

FMI3_Export fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState *FMUState) {
    if (!instance || !FMUState) return fmi3Error;
    state *st = *FMUState;
    if (!st) return fmi3OK;
    fmi3Status s = (fmi3Status)cosimFreeFMUState(instance, st->id);
    free(st->bytes);
    free(st);
    *FMUState = NULL;
    return s;
}

/* serialize fetches a state's bytes from Go once (malloc'd there). */
static fmi3Status serialize(inst *in, state *st) {
    if (st->serialized) return fmi3OK;
    uint8_t *b = NULL;
    size_t n = 0;
    fmi3Status s = (fmi3Status)cosimSerializeFMUState(in, st->id, &b, &n);
    if (s > fmi3Warning) return s;
    st->bytes = b;
    st->size = n;
    st->serialized = true;
    return s;
}

FMI3_Export fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState, size_t *size) {
    state *st = FMUState;
    if (!instance || !st || !size) return fmi3Error;
    fmi3Status s = serialize(instance, st);
    if (s <= fmi3Warning) *size = st->size;
    return s;
}

FMI3_Export fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState FMUState, fmi3Byte serializedState[],
                                             size_t size) {
    state *st = FMUState;
    if (!instance || !st) return fmi3Error;
    fmi3Status s = serialize(instance, st);
    if (s > fmi3Warning) return s;
    if (size < st->size || (st->size > 0 && !serializedState)) {
        logf_(instance, fmi3Error, "logStatusError", "fmi3SerializeFMUState: a buffer of %zu bytes for a state of %zu (fmi3SerializedFMUStateSize)", size, st->size);
        return fmi3Error;
    }
    if (st->size > 0) memcpy(serializedState, st->bytes, st->size);
    return s;
}

FMI3_Export fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[], size_t size,
                                               fmi3FMUState *FMUState) {
    if (!instance || !FMUState || (size > 0 && !serializedState)) return fmi3Error;
    uint32_t id = 0;
    fmi3Status s = (fmi3Status)cosimDeserializeFMUState(instance, (uint8_t *)serializedState, size, &id);
    if (s > fmi3Warning) return s;
    state *st = *FMUState;
    if (st) {
        /* Overwrite the master's state in place. */
        cosimFreeFMUState(instance, st->id);
        free(st->bytes);
    } else {
        st = calloc(1, sizeof *st);
        if (!st) {
            cosimFreeFMUState(instance, id);
            return fmi3Error;
        }
    }
    st->id = id;
    st->bytes = NULL;
    st->serialized = false;
    *FMUState = st;
    return s;
}

static fmi3Status unsupported(fmi3Instance i, const char *fn, const char *why) {
    logf_(i, fmi3Error, "logStatusError", "%s: %s", fn, why);
    return fmi3Error;
}

#include "fmi3unsupported.h"
