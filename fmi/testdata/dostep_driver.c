/*
 * The C side of BenchmarkDoStep (cosim's own code): calls an FMI 3.0
 * co-simulation FMU's fmi3DoStep directly from C, as an importer written
 * in C would, to measure what the call itself costs without cosim.
 *
 * usage: dostep_driver BINARY TOKEN RESOURCES N H VR
 * prints: <ns per fmi3DoStep> <ns per fmi3DoStep + fmi3GetFloat64 of VR>
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fmi3FunctionTypes.h"

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void logger(fmi3InstanceEnvironment env, fmi3Status s, fmi3String cat, fmi3String msg) {
	(void)env; (void)s; (void)cat;
	fprintf(stderr, "%s\n", msg);
}

int main(int argc, char **argv) {
	if (argc != 7) {
		fprintf(stderr, "usage: %s BINARY TOKEN RESOURCES N H VR\n", argv[0]);
		return 2;
	}
	void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	long n = atol(argv[4]);
	double h = atof(argv[5]);
	fmi3ValueReference vr = (fmi3ValueReference)atol(argv[6]);
	fmi3InstantiateCoSimulationTYPE *inst = (fmi3InstantiateCoSimulationTYPE *)dlsym(lib, "fmi3InstantiateCoSimulation");
	fmi3EnterInitializationModeTYPE *enter = (fmi3EnterInitializationModeTYPE *)dlsym(lib, "fmi3EnterInitializationMode");
	fmi3ExitInitializationModeTYPE *exitInit = (fmi3ExitInitializationModeTYPE *)dlsym(lib, "fmi3ExitInitializationMode");
	fmi3DoStepTYPE *doStep = (fmi3DoStepTYPE *)dlsym(lib, "fmi3DoStep");
	fmi3GetFloat64TYPE *get = (fmi3GetFloat64TYPE *)dlsym(lib, "fmi3GetFloat64");
	fmi3FreeInstanceTYPE *freeInst = (fmi3FreeInstanceTYPE *)dlsym(lib, "fmi3FreeInstance");
	if (!inst || !enter || !exitInit || !doStep || !get || !freeInst) {
		fprintf(stderr, "missing functions\n");
		return 1;
	}
	double results[2];
	for (int withGet = 0; withGet < 2; withGet++) {
		fmi3Instance c = inst("bench", argv[2], argv[3], fmi3False, fmi3False, fmi3False, fmi3False, NULL, 0, NULL, logger, NULL);
		if (!c || enter(c, fmi3False, 0, 0, fmi3False, 0) != fmi3OK || exitInit(c) != fmi3OK) {
			fprintf(stderr, "initialization failed\n");
			return 1;
		}
		fmi3Boolean ev, term, early;
		fmi3Float64 last, x, sum = 0;
		double t0 = now();
		for (long i = 0; i < n; i++) {
			if (doStep(c, i * h, h, fmi3False, &ev, &term, &early, &last) != fmi3OK) {
				fprintf(stderr, "fmi3DoStep failed at step %ld\n", i);
				return 1;
			}
			if (withGet) {
				get(c, &vr, 1, &x, 1);
				sum += x;
			}
		}
		results[withGet] = (now() - t0) / n;
		if (sum == 12345.678) printf("#"); /* keep the reads */
		freeInst(c);
	}
	printf("%.3f %.3f\n", results[0], results[1]);
	return 0;
}
