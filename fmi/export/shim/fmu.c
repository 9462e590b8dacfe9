/*
 * The binary of an FMU exported by cosim (FMI 3.0, co-simulation).
 *
 * Each instance is a cosim process — the cosim program in the FMU's
 * resources folder, started as "cosim fmu-serve RESOURCES" — that runs the
 * scene in resources/scene.json. This library forwards every fmi3 call to
 * it over a Unix socket pair (the process's standard input and output) in
 * the protocol of fmi/export/protocol.go, and hands the messages it
 * returns to the master's logger. Nothing of Go runs in the master's
 * process: the library loads beside other FMUs, built with Go or not, and
 * a crash of the scene's run is an fmi3Fatal, not a crash of the master.
 *
 * Compiled by `cosim export --binary process` with the system's C
 * compiler (cc -shared -fPIC), beside the two headers it shares with the
 * c-shared binary (fmi/export/cshared: fmi3types.h, the API's types,
 * fmi3state.h, FMU states, and fmi3unsupported.h, its messages to the
 * master's logger and what the FMU refuses). The tests compile it with -DCOSIM_FMI3_HEADERS against the standard's
 * fmi3Functions.h, which checks every definition against the standard's
 * declaration.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fmi3types.h"

/* The protocol (fmi/export/protocol.go). */
enum {
    PROTOCOL_VERSION = 1,
    OP_INSTANTIATE = 1, OP_ENTER_INIT = 2, OP_EXIT_INIT = 3, OP_SET = 4, OP_GET = 5, OP_DO_STEP = 6,
    OP_TERMINATE = 7, OP_RESET = 8, OP_GET_STATE = 9, OP_SET_STATE = 10, OP_FREE_STATE = 11,
    OP_SERIALIZE = 12, OP_DESERIALIZE = 13, OP_FREE = 14, OP_DEBUG_LOGGING = 15,
    TYPE_FLOAT64 = 1, TYPE_INT64 = 2, TYPE_BOOLEAN = 3,
};

typedef struct {
    uint8_t *b;
    size_t n, cap;
} buf;

typedef struct {
    char *name;
    fmi3InstanceEnvironment env;
    fmi3LogMessageCallback log;
    int fd;    /* our end of the socket pair; -1 once the process is gone */
    pid_t pid; /* the cosim process; 0 once reaped */
    buf req, rep;
    size_t rd; /* read position in rep */
} inst;

#include "fmi3unsupported.h"

static bool grow(buf *b, size_t more) {
    if (b->n + more <= b->cap) return true;
    size_t c = b->cap ? b->cap : 256;
    while (c < b->n + more) c *= 2;
    uint8_t *p = realloc(b->b, c);
    if (!p) return false;
    b->b = p;
    b->cap = c;
    return true;
}

static void put(buf *b, const void *p, size_t n) {
    if (grow(b, n)) {
        memcpy(b->b + b->n, p, n);
        b->n += n;
    }
}

static void put_u8(buf *b, uint8_t x) { put(b, &x, 1); }
static void put_u32(buf *b, uint32_t x) { put(b, &x, 4); } /* little-endian machines only (see protocol.go) */
static void put_f64(buf *b, double x) { put(b, &x, 8); }
static void put_str(buf *b, const char *s) {
    if (!s) s = "";
    uint32_t n = (uint32_t)strlen(s);
    put_u32(b, n);
    put(b, s, n);
}

static void begin(inst *in, uint32_t op) {
    in->req.n = 0;
    put_u32(&in->req, op);
    put_u32(&in->req, 0);
}

static bool get(inst *in, void *p, size_t n) {
    if (in->rd + n > in->rep.n) return false;
    memcpy(p, in->rep.b + in->rd, n);
    in->rd += n;
    return true;
}

/* gone reaps the process after the connection failed, saying how it
 * ended. */
static fmi3Status gone(inst *in, const char *fn, const char *what) {
    if (in->fd >= 0) close(in->fd);
    in->fd = -1;
    if (in->pid > 0) {
        /* The connection fails as the process exits: give it 100 ms to
         * become reapable, so that what ended it can be told, then end
         * it ourselves. */
        int ws = 0;
        bool killed = false;
        pid_t r = 0;
        for (int i = 0; i < 20 && (r = waitpid(in->pid, &ws, WNOHANG)) == 0; i++) {
            struct timespec ts = {0, 5000000};
            nanosleep(&ts, NULL);
        }
        if (r == 0) {
            kill(in->pid, SIGKILL);
            waitpid(in->pid, &ws, 0);
            killed = true;
        }
        in->pid = 0;
        if (killed) {
            logf_(in, fmi3Fatal, "logStatusFatal", "%s: the cosim process running the scene stopped answering (%s), and was killed", fn, what);
            return fmi3Fatal;
        }
        if (WIFSIGNALED(ws)) {
            logf_(in, fmi3Fatal, "logStatusFatal", "%s: the cosim process running the scene died of signal %d (%s)", fn, WTERMSIG(ws), what);
            return fmi3Fatal;
        }
        if (WIFEXITED(ws)) {
            logf_(in, fmi3Fatal, "logStatusFatal", "%s: the cosim process running the scene exited with status %d (%s; its error is on standard error)", fn, WEXITSTATUS(ws), what);
            return fmi3Fatal;
        }
    }
    logf_(in, fmi3Fatal, "logStatusFatal", "%s: the cosim process running the scene is gone (%s)", fn, what);
    return fmi3Fatal;
}

/* call sends the request built since begin and reads the reply, handing
 * its messages to the logger; the results are then read with get. */
static fmi3Status call(inst *in, const char *fn) {
    if (in->fd < 0) {
        logf_(in, fmi3Fatal, "logStatusFatal", "%s: the cosim process running the scene is gone", fn);
        return fmi3Fatal;
    }
    if (in->req.n < 8) return fmi3Fatal; /* out of memory building it */
    uint32_t len = (uint32_t)(in->req.n - 8);
    memcpy(in->req.b + 4, &len, 4);
    for (size_t off = 0; off < in->req.n;) {
        ssize_t k = send(in->fd, in->req.b + off, in->req.n - off, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return gone(in, fn, strerror(errno));
        off += (size_t)k;
    }
    uint32_t head[2];
    for (size_t off = 0; off < sizeof head;) {
        ssize_t k = recv(in->fd, (char *)head + off, sizeof head - off, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return gone(in, fn, k == 0 ? "the connection closed" : strerror(errno));
        off += (size_t)k;
    }
    in->rep.n = 0;
    in->rd = 0;
    if (!grow(&in->rep, head[1])) return gone(in, fn, "out of memory for its reply");
    for (size_t off = 0; off < head[1];) {
        ssize_t k = recv(in->fd, in->rep.b + off, head[1] - off, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return gone(in, fn, "its reply was cut short");
        off += (size_t)k;
    }
    in->rep.n = head[1];
    uint32_t nlog = 0;
    get(in, &nlog, 4);
    for (uint32_t i = 0; i < nlog; i++) {
        uint32_t st = 0, nc = 0, nm = 0;
        get(in, &st, 4);
        get(in, &nc, 4);
        if (in->rd + nc > in->rep.n) break;
        char *cat = strndup((char *)in->rep.b + in->rd, nc);
        in->rd += nc;
        get(in, &nm, 4);
        if (in->rd + nm > in->rep.n) {
            free(cat);
            break;
        }
        char *msg = strndup((char *)in->rep.b + in->rd, nm);
        in->rd += nm;
        if (in->log && cat && msg) in->log(in->env, (fmi3Status)st, cat, msg);
        free(cat);
        free(msg);
    }
    if (head[0] > fmi3Fatal) return gone(in, fn, "it replied with garbage");
    return (fmi3Status)head[0];
}

static fmi3Status simple(fmi3Instance i, uint32_t op, const char *fn) {
    inst *in = i;
    if (!in) return fmi3Error;
    begin(in, op);
    return call(in, fn);
}

/* free_instance ends the process (asking it to, then waiting) and frees
 * everything. */
static void free_instance(inst *in) {
    if (in->fd >= 0) {
        begin(in, OP_FREE);
        call(in, "fmi3FreeInstance");
        if (in->fd >= 0) close(in->fd);
        in->fd = -1;
    }
    if (in->pid > 0) {
        int ws;
        waitpid(in->pid, &ws, 0);
        in->pid = 0;
    }
    free(in->req.b);
    free(in->rep.b);
    free(in->name);
    free(in);
}

/* resourceDir turns the resourcePath argument (a path, or in FMUs
 * written for FMI 2 importers a file:// URI) into a directory path with
 * a trailing slash. */
static char *resource_dir(const char *p) {
    if (!p) return NULL;
    if (strncmp(p, "file://", 7) == 0) {
        p += 7;
        if (strncmp(p, "localhost/", 10) == 0) p += 9;
    }
    size_t n = strlen(p);
    char *d = malloc(n + 2);
    if (!d) return NULL;
    memcpy(d, p, n + 1);
    if (n == 0 || d[n - 1] != '/') strcat(d, "/");
    return d;
}

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
    in->name = strdup(instanceName ? instanceName : "");
    in->env = instanceEnvironment;
    in->log = logMessage;
    in->fd = -1;
    char *dir = resource_dir(resourcePath);
    if (!dir) {
        logf_(in, fmi3Error, "logStatusError", "fmi3InstantiateCoSimulation: no resourcePath: the FMU's scene and its cosim program are in its resources folder");
        free_instance(in);
        return NULL;
    }
    size_t n = strlen(dir);
    char *prog = malloc(n + 8);
    if (!prog) {
        free(dir);
        free_instance(in);
        return NULL;
    }
    memcpy(prog, dir, n);
    strcpy(prog + n, "cosim");
    struct stat st;
    if (stat(prog, &st) != 0) {
        logf_(in, fmi3Error, "logStatusError", "fmi3InstantiateCoSimulation: %s: %s (the FMU's resources folder holds the cosim program that runs its scene)", prog, strerror(errno));
        free(prog), free(dir), free_instance(in);
        return NULL;
    }
    if (!(st.st_mode & S_IXUSR)) chmod(prog, st.st_mode | S_IXUSR | S_IXGRP | S_IXOTH); /* lost by an unzip */
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        logf_(in, fmi3Error, "logStatusError", "fmi3InstantiateCoSimulation: socketpair: %s", strerror(errno));
        free(prog), free(dir), free_instance(in);
        return NULL;
    }
    pid_t pid = fork();
    if (pid < 0) {
        logf_(in, fmi3Error, "logStatusError", "fmi3InstantiateCoSimulation: fork: %s", strerror(errno));
        close(sv[0]), close(sv[1]);
        free(prog), free(dir), free_instance(in);
        return NULL;
    }
    if (pid == 0) {
        /* The child: the socket is its standard input and output
         * (dup2 clears close-on-exec); standard error stays the
         * master's, where a crash of the run is reported. */
        if (dup2(sv[1], 0) < 0 || dup2(sv[1], 1) < 0) _exit(126);
        char *argv[] = {"cosim", "fmu-serve", dir, NULL};
        execv(prog, argv);
        fprintf(stderr, "cosim FMU %s: cannot start %s: %s\n", in->name, prog, strerror(errno));
        _exit(127);
    }
    close(sv[1]);
    free(prog);
    free(dir);
    in->fd = sv[0];
    in->pid = pid;
    begin(in, OP_INSTANTIATE);
    put_u32(&in->req, PROTOCOL_VERSION);
    put_str(&in->req, instantiationToken);
    put_str(&in->req, instanceName);
    put_u8(&in->req, loggingOn ? 1 : 0);
    fmi3Status s = call(in, "fmi3InstantiateCoSimulation");
    if (s > fmi3Warning) {
        free_instance(in);
        return NULL;
    }
    return in;
}

FMI3_Export void fmi3FreeInstance(fmi3Instance instance) {
    if (instance) free_instance(instance);
}

FMI3_Export fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t nCategories,
                                           const fmi3String categories[]) {
    (void)nCategories, (void)categories;
    inst *in = instance;
    if (!in) return fmi3Error;
    begin(in, OP_DEBUG_LOGGING);
    put_u8(&in->req, loggingOn ? 1 : 0);
    return call(in, "fmi3SetDebugLogging");
}

FMI3_Export fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                                   fmi3Float64 tolerance, fmi3Float64 startTime,
                                                   fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
    inst *in = instance;
    if (!in) return fmi3Error;
    begin(in, OP_ENTER_INIT);
    put_u8(&in->req, toleranceDefined ? 1 : 0);
    put_f64(&in->req, tolerance);
    put_f64(&in->req, startTime);
    put_u8(&in->req, stopTimeDefined ? 1 : 0);
    put_f64(&in->req, stopTime);
    return call(in, "fmi3EnterInitializationMode");
}

FMI3_Export fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
    return simple(instance, OP_EXIT_INIT, "fmi3ExitInitializationMode");
}

FMI3_Export fmi3Status fmi3Terminate(fmi3Instance instance) { return simple(instance, OP_TERMINATE, "fmi3Terminate"); }
FMI3_Export fmi3Status fmi3Reset(fmi3Instance instance) { return simple(instance, OP_RESET, "fmi3Reset"); }

/* setv and getv carry the values of one type as 8-byte words. */
static fmi3Status setv(inst *in, const char *fn, uint8_t type, const fmi3ValueReference vr[], size_t nvr,
                       const void *values, size_t nv) {
    if (!in) return fmi3Error;
    if (nvr > UINT32_MAX || nv > UINT32_MAX) {
        logf_(in, fmi3Error, "logStatusError", "%s: too many values", fn);
        return fmi3Error;
    }
    begin(in, OP_SET);
    put_u8(&in->req, type);
    put_u32(&in->req, (uint32_t)nvr);
    for (size_t i = 0; i < nvr; i++) put_u32(&in->req, vr[i]);
    put_u32(&in->req, (uint32_t)nv);
    for (size_t i = 0; i < nv; i++) {
        uint64_t w = 0;
        switch (type) {
        case TYPE_FLOAT64: memcpy(&w, (const double *)values + i, 8); break;
        case TYPE_INT64: w = (uint64_t)((const int64_t *)values)[i]; break;
        case TYPE_BOOLEAN: w = ((const fmi3Boolean *)values)[i] ? 1 : 0; break;
        }
        put(&in->req, &w, 8);
    }
    return call(in, fn);
}

static fmi3Status getv(inst *in, const char *fn, uint8_t type, const fmi3ValueReference vr[], size_t nvr,
                       void *values, size_t nv) {
    if (!in) return fmi3Error;
    if (nvr > UINT32_MAX || nv > UINT32_MAX) {
        logf_(in, fmi3Error, "logStatusError", "%s: too many values", fn);
        return fmi3Error;
    }
    begin(in, OP_GET);
    put_u8(&in->req, type);
    put_u32(&in->req, (uint32_t)nvr);
    for (size_t i = 0; i < nvr; i++) put_u32(&in->req, vr[i]);
    put_u32(&in->req, (uint32_t)nv);
    fmi3Status s = call(in, fn);
    if (s > fmi3Warning) return s;
    if (in->rep.n - in->rd != nv * 8) return gone(in, fn, "it replied with the wrong number of values");
    for (size_t i = 0; i < nv; i++) {
        uint64_t w = 0;
        get(in, &w, 8);
        switch (type) {
        case TYPE_FLOAT64: memcpy((double *)values + i, &w, 8); break;
        case TYPE_INT64: ((int64_t *)values)[i] = (int64_t)w; break;
        case TYPE_BOOLEAN: ((fmi3Boolean *)values)[i] = w != 0; break;
        }
    }
    return s;
}

FMI3_Export fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                      size_t nValueReferences, fmi3Float64 values[], size_t nValues) {
    return getv(instance, "fmi3GetFloat64", TYPE_FLOAT64, valueReferences, nValueReferences, values, nValues);
}
FMI3_Export fmi3Status fmi3GetInt64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, fmi3Int64 values[], size_t nValues) {
    return getv(instance, "fmi3GetInt64", TYPE_INT64, valueReferences, nValueReferences, values, nValues);
}
FMI3_Export fmi3Status fmi3GetBoolean(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                      size_t nValueReferences, fmi3Boolean values[], size_t nValues) {
    return getv(instance, "fmi3GetBoolean", TYPE_BOOLEAN, valueReferences, nValueReferences, values, nValues);
}
FMI3_Export fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                      size_t nValueReferences, const fmi3Float64 values[], size_t nValues) {
    return setv(instance, "fmi3SetFloat64", TYPE_FLOAT64, valueReferences, nValueReferences, values, nValues);
}
FMI3_Export fmi3Status fmi3SetInt64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, const fmi3Int64 values[], size_t nValues) {
    return setv(instance, "fmi3SetInt64", TYPE_INT64, valueReferences, nValueReferences, values, nValues);
}
FMI3_Export fmi3Status fmi3SetBoolean(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                      size_t nValueReferences, const fmi3Boolean values[], size_t nValues) {
    return setv(instance, "fmi3SetBoolean", TYPE_BOOLEAN, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                                  fmi3Float64 communicationStepSize, fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                  fmi3Boolean *eventHandlingNeeded, fmi3Boolean *terminateSimulation,
                                  fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime) {
    (void)noSetFMUStatePriorToCurrentPoint;
    inst *in = instance;
    if (!in) return fmi3Error;
    if (eventHandlingNeeded) *eventHandlingNeeded = false;
    if (earlyReturn) *earlyReturn = false;
    if (terminateSimulation) *terminateSimulation = false;
    begin(in, OP_DO_STEP);
    put_f64(&in->req, currentCommunicationPoint);
    put_f64(&in->req, communicationStepSize);
    fmi3Status s = call(in, "fmi3DoStep");
    if (s == fmi3Fatal && in->fd < 0) {
        if (terminateSimulation) *terminateSimulation = true;
        return s;
    }
    uint8_t term = 0;
    double last = currentCommunicationPoint;
    get(in, &term, 1);
    get(in, &last, 8);
    if (terminateSimulation) *terminateSimulation = term != 0;
    if (lastSuccessfulTime) *lastSuccessfulTime = last;
    return s;
}

/* The transport of FMU states (fmi3state.h): requests to the process. */
static fmi3Status state_get(inst *in, uint32_t id, uint32_t *out) {
    begin(in, OP_GET_STATE);
    put_u32(&in->req, id);
    fmi3Status s = call(in, "fmi3GetFMUState");
    if (s > fmi3Warning) return s;
    if (!get(in, out, 4)) return gone(in, "fmi3GetFMUState", "it replied without the state");
    return s;
}

static fmi3Status state_set(inst *in, uint32_t id) {
    begin(in, OP_SET_STATE);
    put_u32(&in->req, id);
    return call(in, "fmi3SetFMUState");
}

static fmi3Status state_free(inst *in, uint32_t id) {
    if (in->fd < 0) return fmi3OK; /* the process, and its states, are gone */
    begin(in, OP_FREE_STATE);
    put_u32(&in->req, id);
    return call(in, "fmi3FreeFMUState");
}

static fmi3Status state_serialize(inst *in, uint32_t id, uint8_t **bytes, size_t *size) {
    const char *fn = "fmi3SerializeFMUState";
    begin(in, OP_SERIALIZE);
    put_u32(&in->req, id);
    fmi3Status s = call(in, fn);
    if (s > fmi3Warning) return s;
    uint32_t n = 0;
    if (!get(in, &n, 4) || in->rep.n - in->rd < n) return gone(in, fn, "its serialized state was cut short");
    *bytes = malloc(n ? n : 1);
    if (!*bytes) {
        logf_(in, fmi3Error, "logStatusError", "%s: out of memory", fn);
        return fmi3Error;
    }
    get(in, *bytes, n);
    *size = n;
    return s;
}

static fmi3Status state_deserialize(inst *in, const uint8_t *bytes, size_t size, uint32_t *id) {
    const char *fn = "fmi3DeserializeFMUState";
    if (size > UINT32_MAX) {
        logf_(in, fmi3Error, "logStatusError", "%s: %zu bytes is not a state of this FMU", fn, size);
        return fmi3Error;
    }
    begin(in, OP_DESERIALIZE);
    put_u32(&in->req, (uint32_t)size);
    put(&in->req, bytes, size);
    fmi3Status s = call(in, fn);
    if (s > fmi3Warning) return s;
    if (!get(in, id, 4)) return gone(in, fn, "it replied without the state");
    return s;
}

#include "fmi3state.h"
