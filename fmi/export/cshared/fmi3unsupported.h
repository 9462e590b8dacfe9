/*
 * What both binaries of an FMU exported by cosim refuse, and how they say
 * so: the arguments of fmi3InstantiateCoSimulation the FMU does not
 * support, and the fmi3 functions of the interfaces and types it does not
 * declare (an importer may resolve them all, and calling one returns
 * fmi3Error with a message to the logger naming the function and why).
 * The file including this one defines its instance type inst, holding
 * the master's instance environment env and logger log, first, and
 * includes <stdarg.h> and <stdio.h>.
 */

/* logf_ sends a message, formatted as printf formats, to the master's
 * logger of instance in (none: dropped). */
static void logf_(inst *in, fmi3Status s, const char *cat, const char *f, ...) {
    if (!in || !in->log) return;
    char msg[1024];
    va_list ap;
    va_start(ap, f);
    vsnprintf(msg, sizeof msg, f, ap);
    va_end(ap);
    in->log(in->env, s, cat, msg);
}

/* unsupported logs that the function fn is not supported, and why. */
static fmi3Status unsupported(fmi3Instance i, const char *fn, const char *why) {
    logf_(i, fmi3Error, "logStatusError", "%s: %s", fn, why);
    return fmi3Error;
}

/* instantiation_refused reports whether fmi3InstantiateCoSimulation must
 * refuse its arguments, telling the master's logger (log, with its
 * environment env) why: the FMU has no event mode and no intermediate
 * variables. It is checked before anything is allocated. */
static bool instantiation_refused(fmi3Boolean eventModeUsed, size_t nRequiredIntermediateVariables,
                                  fmi3InstanceEnvironment env, fmi3LogMessageCallback log) {
    const char *why = NULL;
    if (eventModeUsed)
        why = "fmi3InstantiateCoSimulation: event mode is not supported (the FMU has no clocks and no events for the master to handle)";
    else if (nRequiredIntermediateVariables > 0)
        why = "fmi3InstantiateCoSimulation: intermediate variables are not supported (providesIntermediateUpdate is false)";
    if (why && log) log(env, fmi3Error, "logStatusError", why);
    return why != NULL;
}

FMI3_Export const char *fmi3GetVersion(void) { return "3.0"; }

FMI3_Export fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName, fmi3String instantiationToken,
                                                      fmi3String resourcePath, fmi3Boolean visible,
                                                      fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment,
                                                      fmi3LogMessageCallback logMessage) {
    (void)instanceName, (void)instantiationToken, (void)resourcePath, (void)visible, (void)loggingOn;
    if (logMessage) logMessage(instanceEnvironment, fmi3Error, "logStatusError", "fmi3InstantiateModelExchange: this FMU is co-simulation only");
    return NULL;
}

FMI3_Export fmi3Instance fmi3InstantiateScheduledExecution(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath, fmi3Boolean visible,
    fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment, fmi3LogMessageCallback logMessage,
    fmi3ClockUpdateCallback clockUpdate, fmi3LockPreemptionCallback lockPreemption,
    fmi3UnlockPreemptionCallback unlockPreemption) {
    (void)instanceName, (void)instantiationToken, (void)resourcePath, (void)visible, (void)loggingOn;
    (void)clockUpdate, (void)lockPreemption, (void)unlockPreemption;
    if (logMessage) logMessage(instanceEnvironment, fmi3Error, "logStatusError", "fmi3InstantiateScheduledExecution: this FMU is co-simulation only");
    return NULL;
}

#define NO_TYPE "the FMU's variables are Float64, Int64 and Boolean"
#define NO_ME "the FMU is co-simulation only"
#define NO_SE "the FMU has no clocks"

#define GETSET(T, t)                                                                                                    \
    FMI3_Export fmi3Status fmi3Get##T(fmi3Instance instance, const fmi3ValueReference valueReferences[],                \
                                      size_t nValueReferences, t values[], size_t nValues) {                           \
        (void)valueReferences, (void)nValueReferences, (void)values, (void)nValues;                                     \
        return unsupported(instance, "fmi3Get" #T, NO_TYPE);                                                           \
    }                                                                                                                   \
    FMI3_Export fmi3Status fmi3Set##T(fmi3Instance instance, const fmi3ValueReference valueReferences[],                \
                                      size_t nValueReferences, const t values[], size_t nValues) {                     \
        (void)valueReferences, (void)nValueReferences, (void)values, (void)nValues;                                     \
        return unsupported(instance, "fmi3Set" #T, NO_TYPE);                                                           \
    }
GETSET(Float32, fmi3Float32)
GETSET(Int8, fmi3Int8)
GETSET(UInt8, fmi3UInt8)
GETSET(Int16, fmi3Int16)
GETSET(UInt16, fmi3UInt16)
GETSET(Int32, fmi3Int32)
GETSET(UInt32, fmi3UInt32)
GETSET(UInt64, fmi3UInt64)
GETSET(String, fmi3String)

FMI3_Export fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                     size_t nValueReferences, size_t valueSizes[], fmi3Binary values[], size_t nValues) {
    (void)valueReferences, (void)nValueReferences, (void)valueSizes, (void)values, (void)nValues;
    return unsupported(instance, "fmi3GetBinary", NO_TYPE);
}
FMI3_Export fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                     size_t nValueReferences, const size_t valueSizes[], const fmi3Binary values[],
                                     size_t nValues) {
    (void)valueReferences, (void)nValueReferences, (void)valueSizes, (void)values, (void)nValues;
    return unsupported(instance, "fmi3SetBinary", NO_TYPE);
}
FMI3_Export fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, fmi3Clock values[]) {
    (void)valueReferences, (void)nValueReferences, (void)values;
    return unsupported(instance, "fmi3GetClock", NO_SE);
}
FMI3_Export fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, const fmi3Clock values[]) {
    (void)valueReferences, (void)nValueReferences, (void)values;
    return unsupported(instance, "fmi3SetClock", NO_SE);
}
FMI3_Export fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance, fmi3ValueReference valueReference,
                                                           size_t *nDependencies) {
    (void)valueReference, (void)nDependencies;
    return unsupported(instance, "fmi3GetNumberOfVariableDependencies", "the dependencies are in modelDescription.xml");
}
FMI3_Export fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference dependent,
                                                   size_t elementIndicesOfDependent[], fmi3ValueReference independents[],
                                                   size_t elementIndicesOfIndependents[],
                                                   fmi3DependencyKind dependencyKinds[], size_t nDependencies) {
    (void)dependent, (void)elementIndicesOfDependent, (void)independents, (void)elementIndicesOfIndependents;
    (void)dependencyKinds, (void)nDependencies;
    return unsupported(instance, "fmi3GetVariableDependencies", "the dependencies are in modelDescription.xml");
}

#define DERIV(F)                                                                                                        \
    FMI3_Export fmi3Status F(fmi3Instance instance, const fmi3ValueReference unknowns[], size_t nUnknowns,             \
                             const fmi3ValueReference knowns[], size_t nKnowns, const fmi3Float64 seed[], size_t nSeed, \
                             fmi3Float64 sensitivity[], size_t nSensitivity) {                                          \
        (void)unknowns, (void)nUnknowns, (void)knowns, (void)nKnowns, (void)seed, (void)nSeed, (void)sensitivity;      \
        (void)nSensitivity;                                                                                             \
        return unsupported(instance, #F, "the FMU provides no derivatives");                                           \
    }
DERIV(fmi3GetDirectionalDerivative)
DERIV(fmi3GetAdjointDerivative)

#define NOARGS(F, why) \
    FMI3_Export fmi3Status F(fmi3Instance instance) { return unsupported(instance, #F, why); }
NOARGS(fmi3EnterEventMode, "the FMU has no event mode (eventModeUsed is refused)")
NOARGS(fmi3EnterConfigurationMode, "the FMU has no structural parameters")
NOARGS(fmi3ExitConfigurationMode, "the FMU has no structural parameters")
NOARGS(fmi3EvaluateDiscreteStates, NO_SE)
NOARGS(fmi3EnterContinuousTimeMode, NO_ME)
NOARGS(fmi3EnterStepMode, "the FMU has no event mode: it is in step mode after fmi3ExitInitializationMode")

FMI3_Export fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                              size_t nValueReferences, fmi3Float64 intervals[],
                                              fmi3IntervalQualifier qualifiers[]) {
    (void)valueReferences, (void)nValueReferences, (void)intervals, (void)qualifiers;
    return unsupported(instance, "fmi3GetIntervalDecimal", NO_SE);
}
FMI3_Export fmi3Status fmi3GetIntervalFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                               size_t nValueReferences, fmi3UInt64 counters[], fmi3UInt64 resolutions[],
                                               fmi3IntervalQualifier qualifiers[]) {
    (void)valueReferences, (void)nValueReferences, (void)counters, (void)resolutions, (void)qualifiers;
    return unsupported(instance, "fmi3GetIntervalFraction", NO_SE);
}
FMI3_Export fmi3Status fmi3GetShiftDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                           size_t nValueReferences, fmi3Float64 shifts[]) {
    (void)valueReferences, (void)nValueReferences, (void)shifts;
    return unsupported(instance, "fmi3GetShiftDecimal", NO_SE);
}
FMI3_Export fmi3Status fmi3GetShiftFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                            size_t nValueReferences, fmi3UInt64 counters[], fmi3UInt64 resolutions[]) {
    (void)valueReferences, (void)nValueReferences, (void)counters, (void)resolutions;
    return unsupported(instance, "fmi3GetShiftFraction", NO_SE);
}
FMI3_Export fmi3Status fmi3SetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                              size_t nValueReferences, const fmi3Float64 intervals[]) {
    (void)valueReferences, (void)nValueReferences, (void)intervals;
    return unsupported(instance, "fmi3SetIntervalDecimal", NO_SE);
}
FMI3_Export fmi3Status fmi3SetIntervalFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                               size_t nValueReferences, const fmi3UInt64 counters[],
                                               const fmi3UInt64 resolutions[]) {
    (void)valueReferences, (void)nValueReferences, (void)counters, (void)resolutions;
    return unsupported(instance, "fmi3SetIntervalFraction", NO_SE);
}
FMI3_Export fmi3Status fmi3SetShiftDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                           size_t nValueReferences, const fmi3Float64 shifts[]) {
    (void)valueReferences, (void)nValueReferences, (void)shifts;
    return unsupported(instance, "fmi3SetShiftDecimal", NO_SE);
}
FMI3_Export fmi3Status fmi3SetShiftFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                            size_t nValueReferences, const fmi3UInt64 counters[],
                                            const fmi3UInt64 resolutions[]) {
    (void)valueReferences, (void)nValueReferences, (void)counters, (void)resolutions;
    return unsupported(instance, "fmi3SetShiftFraction", NO_SE);
}
FMI3_Export fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean *discreteStatesNeedUpdate,
                                                fmi3Boolean *terminateSimulation,
                                                fmi3Boolean *nominalsOfContinuousStatesChanged,
                                                fmi3Boolean *valuesOfContinuousStatesChanged,
                                                fmi3Boolean *nextEventTimeDefined, fmi3Float64 *nextEventTime) {
    (void)discreteStatesNeedUpdate, (void)terminateSimulation, (void)nominalsOfContinuousStatesChanged;
    (void)valuesOfContinuousStatesChanged, (void)nextEventTimeDefined, (void)nextEventTime;
    return unsupported(instance, "fmi3UpdateDiscreteStates", "the FMU has no event mode");
}
FMI3_Export fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance, fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                                   fmi3Boolean *enterEventMode, fmi3Boolean *terminateSimulation) {
    (void)noSetFMUStatePriorToCurrentPoint, (void)enterEventMode, (void)terminateSimulation;
    return unsupported(instance, "fmi3CompletedIntegratorStep", NO_ME);
}
FMI3_Export fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time) {
    (void)time;
    return unsupported(instance, "fmi3SetTime", NO_ME);
}

#define ARRAY(F)                                                                  \
    FMI3_Export fmi3Status F(fmi3Instance instance, fmi3Float64 v[], size_t n) { \
        (void)v, (void)n;                                                         \
        return unsupported(instance, #F, NO_ME);                                 \
    }
FMI3_Export fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 continuousStates[],
                                               size_t nContinuousStates) {
    (void)continuousStates, (void)nContinuousStates;
    return unsupported(instance, "fmi3SetContinuousStates", NO_ME);
}
ARRAY(fmi3GetContinuousStateDerivatives)
ARRAY(fmi3GetEventIndicators)
ARRAY(fmi3GetContinuousStates)
ARRAY(fmi3GetNominalsOfContinuousStates)

FMI3_Export fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t *nEventIndicators) {
    (void)nEventIndicators;
    return unsupported(instance, "fmi3GetNumberOfEventIndicators", NO_ME);
}
FMI3_Export fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t *nContinuousStates) {
    (void)nContinuousStates;
    return unsupported(instance, "fmi3GetNumberOfContinuousStates", NO_ME);
}
FMI3_Export fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                                size_t nValueReferences, const fmi3Int32 orders[], fmi3Float64 values[],
                                                size_t nValues) {
    (void)valueReferences, (void)nValueReferences, (void)orders, (void)values, (void)nValues;
    return unsupported(instance, "fmi3GetOutputDerivatives", "the FMU provides no output derivatives");
}
FMI3_Export fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference clockReference,
                                                  fmi3Float64 activationTime) {
    (void)clockReference, (void)activationTime;
    return unsupported(instance, "fmi3ActivateModelPartition", NO_SE);
}
