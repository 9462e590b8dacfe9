// Declarations of the C side of cosim's in-process FMI transport
// (cfmi.c): the FMI 2.0 and 3.0 function signatures it calls, written
// from the standard's documented C API, and the wrappers Go calls with a
// function pointer found by dlsym. Go cannot call a C function pointer
// directly; each wrapper casts the pointer to its signature and calls it.
//
// Values cross as the C types of the FMI API: fmi3Boolean is C's bool,
// fmi2Boolean an int; every status is an int (fmi2Status and fmi3Status
// are enumerations OK, Warning, Discard, Error, Fatal and, for FMI 2.0,
// Pending).

#ifndef COSIM_CFMI_H
#define COSIM_CFMI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// The instance environment cosim gives every instance: the cgo.Handle of
// the Go log sink that collects the instance's messages.
typedef struct {
	uintptr_t handle;
} cosim_env;

#ifdef COSIM_FMU_HOST
// The logger every instance's messages go to: cgo's exported Go function
// in cosim's process, the host's own function in the FMU host program.
void goFMILog(uintptr_t handle, int status, char *category, char *message);
#endif

// dlopen/dlsym/dlclose; the error text, when any, is copied into err.
void *cosim_dlopen(const char *path, char *err, size_t errlen);
void *cosim_dlsym(void *lib, const char *name);
int cosim_dlclose(void *lib, char *err, size_t errlen);

// Environments and FMI 2.0 callback structs are allocated in C memory,
// since the FMU may keep their addresses for the instance's lifetime.
cosim_env *cosim_env_new(uintptr_t handle);
void cosim_env_free(cosim_env *env);
void *cosim_fmi2_callbacks_new(cosim_env *env);
void cosim_fmi2_callbacks_free(void *cb);

// FMI 3.0.
void *cosim_fmi3_instantiate_cs(void *f, const char *name, const char *token, const char *resources, bool logging, cosim_env *env);
void *cosim_fmi3_instantiate_me(void *f, const char *name, const char *token, const char *resources, bool logging, cosim_env *env);
void cosim_fmi3_free(void *f, void *inst);
int cosim_fmi3_inst(void *f, void *inst);
int cosim_fmi3_enter_init(void *f, void *inst, bool tolDefined, double tol, double start, bool stopDefined, double stop);
int cosim_fmi3_get(void *f, void *inst, const uint32_t *vr, size_t nvr, void *values, size_t nvalues);
int cosim_fmi3_do_step(void *f, void *inst, double t, double h, bool *eventNeeded, bool *terminate, bool *early, double *last);
// fmi3DoStep and, when it returns OK, fmi3GetFloat64 of vr: one call from
// Go per communication step. *which is 0 when DoStep's status is
// returned, 1 when GetFloat64's.
int cosim_fmi3_step_get(void *fstep, void *fget, void *inst, double t, double h, bool *eventNeeded, bool *terminate, bool *early,
                        double *last, const uint32_t *vr, size_t nvr, double *values, size_t nvalues, int *which);
int cosim_fmi3_set_time(void *f, void *inst, double t);
int cosim_fmi3_array(void *f, void *inst, double *x, size_t n);
int cosim_fmi3_update_discrete(void *f, void *inst, bool *needUpdate, bool *terminate, bool *nominalsChanged, bool *valuesChanged, bool *nextDefined, double *next);
int cosim_fmi3_completed_step(void *f, void *inst, bool *enterEvent, bool *terminate);
int cosim_fmi3_dd(void *f, void *inst, const uint32_t *unknowns, size_t nu, const uint32_t *knowns, size_t nk, const double *seed, size_t ns, double *sens, size_t nsens);
int cosim_fmi3_state(void *f, void *inst, void **state);
int cosim_fmi3_set_state(void *f, void *inst, void *state);
int cosim_fmi3_state_size(void *f, void *inst, void *state, size_t *size);
int cosim_fmi3_serialize(void *f, void *inst, void *state, void *buf, size_t size);
int cosim_fmi3_deserialize(void *f, void *inst, const void *buf, size_t size, void **state);

// FMI 2.0.
void *cosim_fmi2_instantiate(void *f, const char *name, int type, const char *guid, const char *resources, void *callbacks, int logging);
void cosim_fmi2_free(void *f, void *inst);
int cosim_fmi2_inst(void *f, void *inst);
int cosim_fmi2_setup(void *f, void *inst, int tolDefined, double tol, double start, int stopDefined, double stop);
int cosim_fmi2_get(void *f, void *inst, const unsigned int *vr, size_t nvr, void *values);
int cosim_fmi2_do_step(void *f, void *inst, double t, double h);
// fmi2GetBooleanStatus and fmi2GetRealStatus with a status kind
// (fmi2LastSuccessfulTime = 2, fmi2Terminated = 3).
int cosim_fmi2_bool_status(void *f, void *inst, int kind, int *value);
int cosim_fmi2_real_status(void *f, void *inst, int kind, double *value);
int cosim_fmi2_step_get(void *fstep, void *fget, void *inst, double t, double h, const unsigned int *vr, size_t nvr, double *values, int *which);
int cosim_fmi2_set_time(void *f, void *inst, double t);
int cosim_fmi2_array(void *f, void *inst, double *x, size_t n);
int cosim_fmi2_new_discrete(void *f, void *inst, int *needUpdate, int *terminate, int *nominalsChanged, int *valuesChanged, int *nextDefined, double *next);
int cosim_fmi2_completed_step(void *f, void *inst, int *enterEvent, int *terminate);
int cosim_fmi2_dd(void *f, void *inst, const unsigned int *unknowns, size_t nu, const unsigned int *knowns, size_t nk, const double *seed, double *sens);
int cosim_fmi2_state(void *f, void *inst, void **state);
int cosim_fmi2_set_state(void *f, void *inst, void *state);
int cosim_fmi2_state_size(void *f, void *inst, void *state, size_t *size);
int cosim_fmi2_serialize(void *f, void *inst, void *state, void *buf, size_t size);
int cosim_fmi2_deserialize(void *f, void *inst, const void *buf, size_t size, void **state);

#endif
