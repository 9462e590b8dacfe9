/*
 * FMU states as both binaries of an FMU exported by cosim hand them to
 * the master: an fmi3FMUState is a state of this struct, holding the id
 * under which the instance's Go side (export.Instance) keeps the state
 * and, once the master asks for them, its serialized bytes (kept until
 * the state is taken again or freed). The file including this one
 * defines, first, its instance type inst, logf_ (a message to the
 * master's logger) and the transport of the five state operations, each
 * returning the Go side's status:
 *
 *     static fmi3Status state_get(inst *, uint32_t id, uint32_t *out);   // id 0: a new state
 *     static fmi3Status state_set(inst *, uint32_t id);
 *     static fmi3Status state_free(inst *, uint32_t id);
 *     static fmi3Status state_serialize(inst *, uint32_t id, uint8_t **bytes, size_t *n);  // malloc'd
 *     static fmi3Status state_deserialize(inst *, const uint8_t *bytes, size_t n, uint32_t *id);
 */

typedef struct {
    uint32_t id;
    uint8_t *bytes;
    size_t size;
    bool serialized;
} state;

FMI3_Export fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState *FMUState) {
    inst *in = instance;
    if (!in || !FMUState) return fmi3Error;
    state *st = *FMUState;
    uint32_t id = 0;
    fmi3Status s = state_get(in, st ? st->id : 0, &id);
    if (s > fmi3Warning) return s;
    if (!st) {
        st = calloc(1, sizeof *st);
        if (!st) {
            state_free(in, id);
            logf_(in, fmi3Error, "logStatusError", "fmi3GetFMUState: out of memory");
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
    return state_set(instance, st->id);
}

FMI3_Export fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState *FMUState) {
    if (!instance || !FMUState) return fmi3Error;
    state *st = *FMUState;
    if (!st) return fmi3OK;
    fmi3Status s = state_free(instance, st->id);
    free(st->bytes);
    free(st);
    *FMUState = NULL;
    return s;
}

/* serialize fetches a state's bytes once. */
static fmi3Status serialize(inst *in, state *st) {
    if (st->serialized) return fmi3OK;
    uint8_t *b = NULL;
    size_t n = 0;
    fmi3Status s = state_serialize(in, st->id, &b, &n);
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
    fmi3Status s = state_deserialize(instance, serializedState, size, &id);
    if (s > fmi3Warning) return s;
    state *st = *FMUState;
    if (st) {
        /* Overwrite the master's state in place: the Go side forgets
         * the old one. */
        state_free(instance, st->id);
        free(st->bytes);
    } else {
        st = calloc(1, sizeof *st);
        if (!st) {
            state_free(instance, id);
            return fmi3Error;
        }
    }
    st->id = id;
    st->bytes = NULL;
    st->serialized = false;
    *FMUState = st;
    return s;
}
