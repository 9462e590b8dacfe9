/*
 * What the C part of the c-shared binary (fmu.c) and its Go part
 * (main.go) share: an instance as the master holds it, and the trampoline
 * through which Go calls the master's logger.
 */
#ifndef COSIM_BRIDGE_H
#define COSIM_BRIDGE_H
#include "fmi3types.h"

/* An instance: the handle of its Go side (runtime/cgo.Handle) and the
 * master's logger with its environment. */
typedef struct inst {
    uintptr_t h;
    fmi3InstanceEnvironment env;
    fmi3LogMessageCallback log;
} inst;

/* cosim_log hands one message to the instance's logger (none: dropped). */
void cosim_log(inst *in, int status, const char *category, const char *message);
#endif
