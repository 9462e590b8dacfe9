/*
 * The types of FMI 3.0's C API that the binaries of an FMU exported by
 * cosim use (the shim of the process binary, fmi/export/shim/fmu.c, and
 * the C part of the c-shared binary, fmi/export/cshared/fmu.c). With
 * -DCOSIM_FMI3_HEADERS they come from the standard's fmi3Functions.h
 * (the tests compile both binaries so, which checks every definition
 * against the standard's declaration); without it, from the standard's
 * definitions repeated here, so that exporting needs no FMI headers.
 */
#ifndef COSIM_FMI3TYPES_H
#define COSIM_FMI3TYPES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef COSIM_FMI3_HEADERS
#include "fmi3Functions.h"
#else
#define FMI3_Export __attribute__((visibility("default")))
typedef void *fmi3Instance;
typedef void *fmi3InstanceEnvironment;
typedef void *fmi3FMUState;
typedef uint32_t fmi3ValueReference;
typedef float fmi3Float32;
typedef double fmi3Float64;
typedef int8_t fmi3Int8;
typedef uint8_t fmi3UInt8;
typedef int16_t fmi3Int16;
typedef uint16_t fmi3UInt16;
typedef int32_t fmi3Int32;
typedef uint32_t fmi3UInt32;
typedef int64_t fmi3Int64;
typedef uint64_t fmi3UInt64;
typedef bool fmi3Boolean;
typedef char fmi3Char;
typedef const fmi3Char *fmi3String;
typedef uint8_t fmi3Byte;
typedef const fmi3Byte *fmi3Binary;
typedef bool fmi3Clock;
typedef enum { fmi3OK, fmi3Warning, fmi3Discard, fmi3Error, fmi3Fatal } fmi3Status;
typedef enum { fmi3Independent, fmi3Constant, fmi3Fixed, fmi3Tunable, fmi3Discrete, fmi3Dependent } fmi3DependencyKind;
typedef enum { fmi3IntervalNotYetKnown, fmi3IntervalUnchanged, fmi3IntervalChanged } fmi3IntervalQualifier;
typedef void (*fmi3LogMessageCallback)(fmi3InstanceEnvironment, fmi3Status, fmi3String, fmi3String);
typedef void (*fmi3ClockUpdateCallback)(fmi3InstanceEnvironment);
typedef void (*fmi3IntermediateUpdateCallback)(fmi3InstanceEnvironment, fmi3Float64, fmi3Boolean, fmi3Boolean,
                                               fmi3Boolean, fmi3Boolean, fmi3Boolean *, fmi3Float64 *);
typedef void (*fmi3LockPreemptionCallback)(void);
typedef void (*fmi3UnlockPreemptionCallback)(void);
#endif

#endif
