/*
 * cosim's FMU host: the child process of the out-of-process FMI transport
 * (package fmi, isolate.go). It loads one FMU binary, makes one instance
 * of it and calls its functions as cosim asks, so that an FMU that
 * crashes, hangs or leaks takes down this process and not cosim, and so
 * that FMUs built with Go (whose runtime cannot share a process with
 * cosim's) can be imported.
 *
 * It is compiled by cosim itself, on first use, with the system's C
 * compiler, together with ../cfmi.c (the C wrappers of the in-process
 * transport, with COSIM_FMU_HOST defined), so the FMI function signatures
 * exist in one place only. cosim keeps the program in the user's cache
 * directory, keyed by a hash of the sources.
 *
 * Protocol. cosim writes requests to file descriptor 3 and reads replies
 * from file descriptor 4 (stdout and stderr are left to the FMU's own
 * printing, which cosim collects for its error messages). Every message
 * is a frame: a uint32 length (of what follows), a one-byte kind and the
 * payload, in the machine's byte order (both ends run on one machine).
 * Strings and byte strings are a uint32 length and the bytes.
 *
 *   - At start the host sends HELLO: the magic "cosim-fmu-host", the
 *     protocol version and its process id.
 *   - Each request is one frame whose kind is an operation (OP_*); the
 *     host answers with any number of LOG frames (what the FMU logged
 *     during the call: int32 status, category, message) and then one DONE
 *     frame (int32 status, then the operation's results) or one ERROR
 *     frame (a message: the request was malformed or memory ran out).
 *   - Functions are named by slots: BIND sends the names of the functions
 *     cosim will call, the host resolves each with dlsym and answers which
 *     exist; later requests give the slot of the function to call.
 *   - At end of input (cosim closed the pipe, or died) the host frees its
 *     instance, unless told not to, and exits.
 *
 * The host is single-threaded except for what the FMU does: a mutex
 * keeps a log message from another thread of the FMU from interleaving
 * with a reply.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "cfmi.h"

#define PROTOCOL_VERSION 1
#define IN_FD 3
#define OUT_FD 4
#define MAX_SLOTS 64
#define NUM_STATES 8
#define MAX_FRAME ((uint32_t)1 << 30)
#define MAX_MESSAGE 4096

/* Frame kinds. */
enum {
	K_HELLO = 1,
	K_LOG = 2,
	K_DONE = 3,
	K_ERROR = 4,
};

/* Operations. */
enum {
	OP_LOAD = 16,
	OP_BIND = 17,
	OP_INSTANTIATE = 18,
	OP_INST = 19,
	OP_INIT = 20,
	OP_GET = 21,
	OP_SET = 22,
	OP_DO_STEP = 23,
	OP_STEP_GET = 24,
	OP_SET_TIME = 25,
	OP_ARRAY = 26,
	OP_UPDATE = 27,
	OP_COMPLETED = 28,
	OP_DD = 29,
	OP_STATE = 30,
	OP_SET_STATE = 31,
	OP_SERIALIZE = 32,
	OP_DESERIALIZE = 33,
	OP_FREE = 34,
};

/* ---- output frames ------------------------------------------------------ */

typedef struct {
	unsigned char *p;
	size_t len, cap;
} buf_t;

static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;
static buf_t out;  /* the reply being built (main thread) */
static buf_t logb; /* a log frame (any thread, under out_mu) */

static void die(const char *what) {
	/* Nothing can be told to cosim: it sees the pipe close and reports
	 * the process's exit status with what was printed here. */
	fprintf(stderr, "cosim-fmu-host: %s\n", what);
	_exit(70);
}

static void grow(buf_t *b, size_t n) {
	if (b->len + n <= b->cap) return;
	size_t c = b->cap ? b->cap : 256;
	while (c < b->len + n) c *= 2;
	unsigned char *p = realloc(b->p, c);
	if (!p) die("out of memory");
	b->p = p;
	b->cap = c;
}

static void put(buf_t *b, const void *p, size_t n) {
	grow(b, n);
	if (n) memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put_u8(buf_t *b, unsigned v) { unsigned char c = (unsigned char)v; put(b, &c, 1); }
static void put_u32(buf_t *b, uint32_t v) { put(b, &v, 4); }
static void put_i32(buf_t *b, int32_t v) { put(b, &v, 4); }
static void put_f64(buf_t *b, double v) { put(b, &v, 8); }
static void put_bytes(buf_t *b, const void *p, size_t n) { put_u32(b, (uint32_t)n); put(b, p, n); }
static void put_str(buf_t *b, const char *s) { put_bytes(b, s ? s : "", s ? strlen(s) : 0); }

/* begin starts a frame of kind k in b (its length is patched by send). */
static void begin(buf_t *b, int k) {
	b->len = 0;
	put_u32(b, 0);
	put_u8(b, (unsigned)k);
}

static void write_all(const unsigned char *p, size_t n) {
	while (n > 0) {
		ssize_t w = write(OUT_FD, p, n);
		if (w < 0) {
			if (errno == EINTR) continue;
			/* cosim is gone: nothing to answer to. */
			_exit(0);
		}
		p += w;
		n -= (size_t)w;
	}
}

static void send_locked(buf_t *b) {
	uint32_t n = (uint32_t)(b->len - 4);
	memcpy(b->p, &n, 4);
	write_all(b->p, b->len);
}

static void send_frame(buf_t *b) {
	pthread_mutex_lock(&out_mu);
	send_locked(b);
	pthread_mutex_unlock(&out_mu);
}

/* goFMILog is the logger of cfmi.c's wrappers: every message the FMU logs
 * goes to cosim as a LOG frame at once, before the reply of the call. */
void goFMILog(uintptr_t handle, int status, char *category, char *message) {
	(void)handle;
	pthread_mutex_lock(&out_mu);
	begin(&logb, K_LOG);
	put_i32(&logb, status);
	put_str(&logb, category);
	size_t n = message ? strlen(message) : 0;
	if (n > MAX_MESSAGE) n = MAX_MESSAGE;
	put_bytes(&logb, message ? message : "", n);
	send_locked(&logb);
	pthread_mutex_unlock(&out_mu);
}

static void reply_error(const char *msg) {
	begin(&out, K_ERROR);
	put_str(&out, msg);
	send_frame(&out);
}

/* ---- input frames ------------------------------------------------------- */

static unsigned char *in;
static size_t in_cap;
static size_t in_len, in_off;
static bool in_bad; /* a read ran past the frame */

/* read_full reads n bytes; false at end of input. */
static bool read_full(void *p, size_t n) {
	unsigned char *c = p;
	while (n > 0) {
		ssize_t r = read(IN_FD, c, n);
		if (r == 0) return false;
		if (r < 0) {
			if (errno == EINTR) continue;
			return false;
		}
		c += r;
		n -= (size_t)r;
	}
	return true;
}

static bool read_frame(void) {
	uint32_t n;
	if (!read_full(&n, 4)) return false;
	if (n == 0 || n > MAX_FRAME + 1024) die("request frame of impossible length");
	if (n > in_cap) {
		free(in);
		in = malloc(n);
		if (!in) die("out of memory");
		in_cap = n;
	}
	if (!read_full(in, n)) return false;
	in_len = n;
	in_off = 0;
	in_bad = false;
	return true;
}

static const void *take(size_t n) {
	if (in_bad || in_len - in_off < n) {
		in_bad = true;
		return NULL;
	}
	const void *p = in + in_off;
	in_off += n;
	return p;
}

static unsigned get_u8(void) { const unsigned char *p = take(1); return p ? *p : 0; }
static uint32_t get_u32(void) { uint32_t v = 0; const void *p = take(4); if (p) memcpy(&v, p, 4); return v; }
static double get_f64(void) { double v = 0; const void *p = take(8); if (p) memcpy(&v, p, 8); return v; }

/* get_bytes returns a pointer into the frame (valid until the next read). */
static const void *get_bytes(uint32_t *n) {
	*n = get_u32();
	return take(*n);
}

/* get_str copies a string into a new NUL-terminated allocation. */
static char *get_str(void) {
	uint32_t n;
	const char *p = get_bytes(&n);
	if (!p) return NULL;
	char *s = malloc((size_t)n + 1);
	if (!s) die("out of memory");
	memcpy(s, p, n);
	s[n] = 0;
	return s;
}

/* ---- the instance ------------------------------------------------------- */

static void *lib;
static void *slots[MAX_SLOTS];
static int major;
static void *inst;
static cosim_env *env;
static void *cb2; /* FMI 2.0 callback functions */
static void *states[NUM_STATES];
static bool freed;
static int free_slot = -1, free_state_slot = -1; /* for freeing at end of input */

static void *slot(unsigned i) { return i < MAX_SLOTS ? slots[i] : NULL; }

/* scratch for values */
static unsigned char *scratch;
static size_t scratch_cap;

static void *scratch_buf(size_t n) {
	if (n == 0) n = 8;
	if (n > scratch_cap) {
		free(scratch);
		scratch = malloc(n);
		if (!scratch) die("out of memory");
		scratch_cap = n;
	}
	return scratch;
}

/* A request that names a function the host has not resolved, or a state
 * slot out of range, is a protocol error: cosim checks the functions it
 * needs before calling them. */
#define NEED(cond, what) do { if (!(cond)) { reply_error(what); return; } } while (0)

static void done_status(int s) {
	begin(&out, K_DONE);
	put_i32(&out, s);
}

static void op_load(void) {
	char *path = get_str();
	NEED(!in_bad && path, "LOAD: malformed request");
	NEED(lib == NULL, "LOAD: a binary is loaded already");
	char err[1024] = "";
	lib = cosim_dlopen(path, err, sizeof err);
	free(path);
	done_status(lib ? 0 : 1);
	put_str(&out, err);
	send_frame(&out);
}

static void op_bind(void) {
	NEED(lib != NULL, "BIND: no binary loaded");
	uint32_t n = get_u32();
	NEED(!in_bad && n <= MAX_SLOTS, "BIND: malformed request");
	unsigned char present[MAX_SLOTS];
	for (uint32_t i = 0; i < n; i++) {
		char *name = get_str();
		NEED(!in_bad && name, "BIND: malformed request");
		slots[i] = name[0] ? cosim_dlsym(lib, name) : NULL;
		present[i] = slots[i] != NULL;
		free(name);
	}
	done_status(0);
	put_bytes(&out, present, n);
	send_frame(&out);
}

static void op_instantiate(void) {
	unsigned m = get_u8(), cs = get_u8(), s = get_u8(), fs = get_u8(), fss = get_u8();
	char *name = get_str(), *token = get_str(), *res = get_str();
	NEED(!in_bad && name && token && res, "INSTANTIATE: malformed request");
	NEED(inst == NULL && !freed, "INSTANTIATE: the host has an instance already");
	NEED(slot(s) != NULL, "INSTANTIATE: function not resolved");
	major = (int)m;
	free_slot = (int)fs;
	free_state_slot = (int)fss;
	env = cosim_env_new(0);
	if (!env) die("out of memory");
	if (major == 2) {
		cb2 = cosim_fmi2_callbacks_new(env);
		if (!cb2) die("out of memory");
		inst = cosim_fmi2_instantiate(slot(s), name, cs ? 1 : 0, token, res, cb2, 0);
	} else if (cs) {
		inst = cosim_fmi3_instantiate_cs(slot(s), name, token, res, false, env);
	} else {
		inst = cosim_fmi3_instantiate_me(slot(s), name, token, res, false, env);
	}
	/* The FMU may keep these strings' addresses: they live as long as the
	 * process. */
	done_status(inst ? 0 : 1);
	send_frame(&out);
}

#define NEED_INST(what) NEED(inst != NULL && !freed, what ": no instance")

static void op_inst(void) {
	unsigned s = get_u8();
	NEED(!in_bad && slot(s), "INST: malformed request");
	NEED_INST("INST");
	int st = major == 2 ? cosim_fmi2_inst(slot(s), inst) : cosim_fmi3_inst(slot(s), inst);
	done_status(st);
	send_frame(&out);
}

static void op_init(void) {
	unsigned s = get_u8(), tolDef = get_u8();
	double tol = get_f64(), start = get_f64();
	unsigned stopDef = get_u8();
	double stop = get_f64();
	NEED(!in_bad && slot(s), "INIT: malformed request");
	NEED_INST("INIT");
	int st = major == 2 ? cosim_fmi2_setup(slot(s), inst, (int)tolDef, tol, start, (int)stopDef, stop)
	                    : cosim_fmi3_enter_init(slot(s), inst, tolDef != 0, tol, start, stopDef != 0, stop);
	done_status(st);
	send_frame(&out);
}

static void op_get(void) {
	unsigned s = get_u8(), size = get_u8();
	uint32_t nvr;
	const uint32_t *vr = get_bytes(&nvr);
	uint32_t n = get_u32();
	NEED(!in_bad && slot(s) && size >= 1 && size <= 8 && nvr % 4 == 0, "GET: malformed request");
	NEED((size_t)n * size <= MAX_FRAME, "GET: too many values");
	NEED_INST("GET");
	nvr /= 4;
	/* vr points into the request frame, which is 4-byte aligned after
	 * the 5-byte header plus the slot, size and length fields only by
	 * luck: copy it. */
	uint32_t *vrs = malloc((size_t)nvr * 4 + 4);
	if (!vrs) die("out of memory");
	memcpy(vrs, vr, (size_t)nvr * 4);
	void *vals = scratch_buf((size_t)n * size);
	memset(vals, 0, (size_t)n * size);
	int st = major == 2 ? cosim_fmi2_get(slot(s), inst, vrs, nvr, vals) : cosim_fmi3_get(slot(s), inst, vrs, nvr, vals, n);
	free(vrs);
	done_status(st);
	put_bytes(&out, vals, (size_t)n * size);
	send_frame(&out);
}

static void op_set(void) {
	unsigned s = get_u8();
	uint32_t nvr, nb;
	const uint32_t *vr = get_bytes(&nvr);
	uint32_t n = get_u32();
	const void *raw = get_bytes(&nb);
	NEED(!in_bad && slot(s) && nvr % 4 == 0, "SET: malformed request");
	NEED_INST("SET");
	nvr /= 4;
	uint32_t *vrs = malloc((size_t)nvr * 4 + 4);
	if (!vrs) die("out of memory");
	memcpy(vrs, vr, (size_t)nvr * 4);
	void *vals = scratch_buf(nb);
	memcpy(vals, raw, nb);
	int st = major == 2 ? cosim_fmi2_get(slot(s), inst, vrs, nvr, vals) : cosim_fmi3_get(slot(s), inst, vrs, nvr, vals, n);
	free(vrs);
	done_status(st);
	send_frame(&out);
}

/* fmi2_terminated asks an FMI 2.0 FMU whose fmi2DoStep returned Discard
 * whether it wants to terminate (fmi2Terminated = 3) and where it stopped
 * (fmi2LastSuccessfulTime = 2). */
static void fmi2_terminated(unsigned bs, unsigned rs, bool *term, double *last) {
	int v = 0;
	if (slot(bs) && cosim_fmi2_bool_status(slot(bs), inst, 3, &v) == 0 && v) {
		*term = true;
		double t;
		if (slot(rs) && cosim_fmi2_real_status(slot(rs), inst, 2, &t) == 0) *last = t;
	}
}

static void op_do_step(void) {
	unsigned s = get_u8(), bs = get_u8(), rs = get_u8();
	double t = get_f64(), h = get_f64();
	NEED(!in_bad && slot(s), "DO_STEP: malformed request");
	NEED_INST("DO_STEP");
	bool ev = false, term = false, early = false;
	double last = 0.0 / 0.0;
	int st;
	if (major == 2) {
		st = cosim_fmi2_do_step(slot(s), inst, t, h);
		if (st == 2) fmi2_terminated(bs, rs, &term, &last);
	} else {
		st = cosim_fmi3_do_step(slot(s), inst, t, h, &ev, &term, &early, &last);
	}
	done_status(st);
	put_u8(&out, ev);
	put_u8(&out, term);
	put_u8(&out, early);
	put_f64(&out, last);
	send_frame(&out);
}

static void op_step_get(void) {
	unsigned s = get_u8(), g = get_u8(), bs = get_u8(), rs = get_u8();
	double t = get_f64(), h = get_f64();
	uint32_t nvr;
	const uint32_t *vr = get_bytes(&nvr);
	uint32_t n = get_u32();
	NEED(!in_bad && slot(s) && slot(g) && nvr % 4 == 0, "STEP_GET: malformed request");
	NEED((size_t)n * 8 <= MAX_FRAME, "STEP_GET: too many values");
	NEED_INST("STEP_GET");
	nvr /= 4;
	uint32_t *vrs = malloc((size_t)nvr * 4 + 4);
	if (!vrs) die("out of memory");
	memcpy(vrs, vr, (size_t)nvr * 4);
	double *vals = scratch_buf((size_t)n * 8);
	memset(vals, 0, (size_t)n * 8);
	bool ev = false, term = false, early = false;
	double last = 0.0 / 0.0;
	int which = 0, st;
	if (major == 2) {
		st = cosim_fmi2_step_get(slot(s), slot(g), inst, t, h, vrs, nvr, vals, &which);
		if (st == 2 && which == 0) fmi2_terminated(bs, rs, &term, &last);
	} else {
		st = cosim_fmi3_step_get(slot(s), slot(g), inst, t, h, &ev, &term, &early, &last, vrs, nvr, vals, n, &which);
	}
	free(vrs);
	done_status(st);
	put_u8(&out, (unsigned)which);
	put_u8(&out, ev);
	put_u8(&out, term);
	put_u8(&out, early);
	put_f64(&out, last);
	put_bytes(&out, vals, (size_t)n * 8);
	send_frame(&out);
}

static void op_set_time(void) {
	unsigned s = get_u8();
	double t = get_f64();
	NEED(!in_bad && slot(s), "SET_TIME: malformed request");
	NEED_INST("SET_TIME");
	done_status(major == 2 ? cosim_fmi2_set_time(slot(s), inst, t) : cosim_fmi3_set_time(slot(s), inst, t));
	send_frame(&out);
}

static void op_array(void) {
	unsigned s = get_u8(), isGet = get_u8();
	uint32_t n = get_u32();
	NEED(!in_bad && slot(s) && (size_t)n * 8 <= MAX_FRAME, "ARRAY: malformed request");
	NEED_INST("ARRAY");
	double *x = scratch_buf((size_t)n * 8);
	if (isGet) {
		memset(x, 0, (size_t)n * 8);
	} else {
		uint32_t nb;
		const void *raw = get_bytes(&nb);
		NEED(!in_bad && nb == n * 8, "ARRAY: malformed request");
		memcpy(x, raw, nb);
	}
	int st = major == 2 ? cosim_fmi2_array(slot(s), inst, x, n) : cosim_fmi3_array(slot(s), inst, x, n);
	done_status(st);
	if (isGet) put_bytes(&out, x, (size_t)n * 8);
	send_frame(&out);
}

static void op_update(void) {
	unsigned s = get_u8();
	NEED(!in_bad && slot(s), "UPDATE: malformed request");
	NEED_INST("UPDATE");
	int flags[5] = {0};
	double next = 0;
	int st;
	if (major == 2) {
		st = cosim_fmi2_new_discrete(slot(s), inst, &flags[0], &flags[1], &flags[2], &flags[3], &flags[4], &next);
	} else {
		bool b[5] = {0};
		st = cosim_fmi3_update_discrete(slot(s), inst, &b[0], &b[1], &b[2], &b[3], &b[4], &next);
		for (int i = 0; i < 5; i++) flags[i] = b[i];
	}
	done_status(st);
	for (int i = 0; i < 5; i++) put_u8(&out, flags[i] != 0);
	put_f64(&out, next);
	send_frame(&out);
}

static void op_completed(void) {
	unsigned s = get_u8();
	NEED(!in_bad && slot(s), "COMPLETED: malformed request");
	NEED_INST("COMPLETED");
	int ev = 0, term = 0, st;
	if (major == 2) {
		st = cosim_fmi2_completed_step(slot(s), inst, &ev, &term);
	} else {
		bool e = false, tm = false;
		st = cosim_fmi3_completed_step(slot(s), inst, &e, &tm);
		ev = e;
		term = tm;
	}
	done_status(st);
	put_u8(&out, ev != 0);
	put_u8(&out, term != 0);
	send_frame(&out);
}

static void op_dd(void) {
	unsigned s = get_u8();
	uint32_t nu, nk, ns;
	const void *u = get_bytes(&nu);
	const void *k = get_bytes(&nk);
	const void *seed = get_bytes(&ns);
	uint32_t nsens = get_u32();
	NEED(!in_bad && slot(s) && nu % 4 == 0 && nk % 4 == 0 && ns % 8 == 0 && (size_t)nsens * 8 <= MAX_FRAME, "DD: malformed request");
	NEED_INST("DD");
	nu /= 4;
	nk /= 4;
	ns /= 8;
	/* copies, for alignment */
	size_t total = (size_t)nu * 4 + (size_t)nk * 4 + (size_t)ns * 8 + (size_t)nsens * 8 + 16;
	unsigned char *mem = malloc(total);
	if (!mem) die("out of memory");
	double *sd = (double *)mem;
	double *sens = sd + ns;
	uint32_t *uv = (uint32_t *)(sens + nsens);
	uint32_t *kv = uv + nu;
	memcpy(sd, seed, (size_t)ns * 8);
	memset(sens, 0, (size_t)nsens * 8);
	memcpy(uv, u, (size_t)nu * 4);
	memcpy(kv, k, (size_t)nk * 4);
	int st = major == 2 ? cosim_fmi2_dd(slot(s), inst, uv, nu, kv, nk, sd, sens)
	                    : cosim_fmi3_dd(slot(s), inst, uv, nu, kv, nk, sd, ns, sens, nsens);
	done_status(st);
	put_bytes(&out, sens, (size_t)nsens * 8);
	free(mem);
	send_frame(&out);
}

/* OP_STATE calls fmi3GetFMUState or fmi3FreeFMUState (same shape) on a
 * state slot. */
static void op_state(void) {
	unsigned s = get_u8(), i = get_u8();
	NEED(!in_bad && slot(s) && i < NUM_STATES, "STATE: malformed request");
	NEED_INST("STATE");
	int st = major == 2 ? cosim_fmi2_state(slot(s), inst, &states[i]) : cosim_fmi3_state(slot(s), inst, &states[i]);
	done_status(st);
	send_frame(&out);
}

static void op_set_state(void) {
	unsigned s = get_u8(), i = get_u8();
	NEED(!in_bad && slot(s) && i < NUM_STATES && states[i], "SET_STATE: malformed request or no state in the slot");
	NEED_INST("SET_STATE");
	done_status(major == 2 ? cosim_fmi2_set_state(slot(s), inst, states[i]) : cosim_fmi3_set_state(slot(s), inst, states[i]));
	send_frame(&out);
}

/* OP_SERIALIZE saves the current state in a state slot and serializes it:
 * DONE carries which function gave the status (0 GetFMUState, 1
 * SerializedFMUStateSize, 2 SerializeFMUState), the bytes and the size the
 * FMU reported (a size beyond the largest frame is not serialized). */
static void op_serialize(void) {
	unsigned gs = get_u8(), zs = get_u8(), ss = get_u8(), i = get_u8();
	NEED(!in_bad && slot(gs) && slot(zs) && slot(ss) && i < NUM_STATES, "SERIALIZE: malformed request");
	NEED_INST("SERIALIZE");
	int which = 0;
	int st = major == 2 ? cosim_fmi2_state(slot(gs), inst, &states[i]) : cosim_fmi3_state(slot(gs), inst, &states[i]);
	size_t size = 0;
	void *data = NULL;
	if (st == 0) {
		which = 1;
		st = major == 2 ? cosim_fmi2_state_size(slot(zs), inst, states[i], &size) : cosim_fmi3_state_size(slot(zs), inst, states[i], &size);
	}
	bool fits = size <= MAX_FRAME;
	if (st == 0 && fits) {
		which = 2;
		data = scratch_buf(size);
		st = major == 2 ? cosim_fmi2_serialize(slot(ss), inst, states[i], data, size) : cosim_fmi3_serialize(slot(ss), inst, states[i], data, size);
	}
	done_status(st);
	put_u8(&out, (unsigned)which);
	put_bytes(&out, data, st == 0 && fits ? size : 0);
	put_f64(&out, (double)size);
	send_frame(&out);
}

static void op_deserialize(void) {
	unsigned fs = get_u8(), ds = get_u8(), ss = get_u8(), i = get_u8();
	uint32_t nb;
	const void *raw = get_bytes(&nb);
	NEED(!in_bad && slot(fs) && slot(ds) && slot(ss) && i < NUM_STATES, "DESERIALIZE: malformed request");
	NEED_INST("DESERIALIZE");
	int which = 0, st = 0;
	if (states[i]) {
		st = major == 2 ? cosim_fmi2_state(slot(fs), inst, &states[i]) : cosim_fmi3_state(slot(fs), inst, &states[i]);
		states[i] = NULL;
	}
	if (st == 0) {
		which = 1;
		void *data = scratch_buf(nb);
		memcpy(data, raw, nb);
		st = major == 2 ? cosim_fmi2_deserialize(slot(ds), inst, data, nb, &states[i]) : cosim_fmi3_deserialize(slot(ds), inst, data, nb, &states[i]);
	}
	if (st == 0) {
		which = 2;
		st = major == 2 ? cosim_fmi2_set_state(slot(ss), inst, states[i]) : cosim_fmi3_set_state(slot(ss), inst, states[i]);
	}
	done_status(st);
	put_u8(&out, (unsigned)which);
	send_frame(&out);
}

/* release frees the saved states and the instance (once). */
static void release(int fslot, int fsslot) {
	if (freed || inst == NULL) return;
	freed = true;
	for (int i = 0; i < NUM_STATES; i++) {
		if (states[i] && fsslot >= 0 && slot((unsigned)fsslot)) {
			if (major == 2) cosim_fmi2_state(slot((unsigned)fsslot), inst, &states[i]);
			else cosim_fmi3_state(slot((unsigned)fsslot), inst, &states[i]);
		}
		states[i] = NULL;
	}
	if (fslot >= 0 && slot((unsigned)fslot)) {
		if (major == 2) cosim_fmi2_free(slot((unsigned)fslot), inst);
		else cosim_fmi3_free(slot((unsigned)fslot), inst);
	}
	inst = NULL;
}

static void op_free(void) {
	unsigned fs = get_u8(), fss = get_u8(), call = get_u8();
	NEED(!in_bad, "FREE: malformed request");
	if (call) {
		release((int)fs, (int)fss);
	} else {
		/* After Fatal nothing of the FMU may be called, FreeInstance
		 * included: the process's exit releases its memory. */
		freed = true;
		inst = NULL;
	}
	done_status(0);
	send_frame(&out);
}

int main(int argc, char **argv) {
#ifdef __linux__
	/* Die with cosim: a host left behind by a killed cosim would hold
	 * its FMU's resources forever. argv[1] is cosim's process id, to
	 * close the race with cosim dying before the prctl. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (argc > 1 && getppid() != (pid_t)atol(argv[1])) return 0;
#else
	(void)argc;
	(void)argv;
#endif
	signal(SIGPIPE, SIG_IGN);
	begin(&out, K_HELLO);
	put_str(&out, "cosim-fmu-host");
	put_u32(&out, PROTOCOL_VERSION);
	put_i32(&out, (int32_t)getpid());
	send_frame(&out);
	while (read_frame()) {
		unsigned op = get_u8();
		switch (op) {
		case OP_LOAD: op_load(); break;
		case OP_BIND: op_bind(); break;
		case OP_INSTANTIATE: op_instantiate(); break;
		case OP_INST: op_inst(); break;
		case OP_INIT: op_init(); break;
		case OP_GET: op_get(); break;
		case OP_SET: op_set(); break;
		case OP_DO_STEP: op_do_step(); break;
		case OP_STEP_GET: op_step_get(); break;
		case OP_SET_TIME: op_set_time(); break;
		case OP_ARRAY: op_array(); break;
		case OP_UPDATE: op_update(); break;
		case OP_COMPLETED: op_completed(); break;
		case OP_DD: op_dd(); break;
		case OP_STATE: op_state(); break;
		case OP_SET_STATE: op_set_state(); break;
		case OP_SERIALIZE: op_serialize(); break;
		case OP_DESERIALIZE: op_deserialize(); break;
		case OP_FREE: op_free(); break;
		default: reply_error("unknown operation"); break;
		}
	}
	/* cosim closed the pipe (or died) without freeing: free now, so that
	 * an FMU that writes files or holds licences releases them. */
	release(free_slot, free_state_slot);
	return 0;
}
