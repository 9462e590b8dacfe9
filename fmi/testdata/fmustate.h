/*
 * The FMU-state functions of cosim's test FMUs (testfmu, stepevent):
 * an FMU state is a copy of the instance. The file including this one
 * defines its instance type Instance, with the master's environment env
 * and logger logger, first; a state set keeps the instance's own env and
 * logger, so that a state taken from one instance and set into another
 * logs to the second one's master.
 */

fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState *state) {
	if (!*state) {
		*state = malloc(sizeof(Instance));
		if (!*state) return fmi3Error;
	}
	memcpy(*state, instance, sizeof(Instance));
	return fmi3OK;
}

fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState state) {
	Instance *s = instance;
	fmi3InstanceEnvironment env = s->env;
	fmi3LogMessageCallback logger = s->logger;
	memcpy(s, state, sizeof(Instance));
	s->env = env;
	s->logger = logger;
	return fmi3OK;
}

fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState *state) {
	(void)instance;
	free(*state);
	*state = NULL;
	return fmi3OK;
}

fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState state, size_t *size) {
	(void)instance; (void)state;
	*size = sizeof(Instance);
	return fmi3OK;
}

fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState state, fmi3Byte buf[], size_t size) {
	(void)instance;
	if (size != sizeof(Instance)) return fmi3Error;
	memcpy(buf, state, size);
	return fmi3OK;
}

fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte buf[], size_t size, fmi3FMUState *state) {
	(void)instance;
	if (size != sizeof(Instance)) return fmi3Error;
	if (!*state) {
		*state = malloc(sizeof(Instance));
		if (!*state) return fmi3Error;
	}
	memcpy(*state, buf, size);
	return fmi3OK;
}
