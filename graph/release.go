package graph

import "runtime/debug"

// This file returns the heap's free pages to the operating system before
// the first assembly of a large implicit run.
//
// The first step of an implicit run is its resident peak: it allocates the
// Newton matrix, its factors and the integrator's vectors, about as much
// again as the Sim. By then the heap holds pages freed by Build (the
// user's Graph, once Build returns and the caller drops it) and the
// Jacobian plan's working sets (per-node column sets, owners, marks),
// garbage as soon as the plan is built. Freed pages stay resident: the
// runtime returns them to the system only gradually, and the new arrays,
// a few large contiguous runs each, mostly do not fit in the holes that
// freed small objects leave. So the peak was the live heap plus 40–45 MB
// of free pages at N = 100 000 on W4 (70 B/state). Collecting and
// returning them once, when the plan is built, brings the peak to the
// live heap (benchmarks/README, the memory section).
//
// The release is a full collection (debug.FreeOSMemory), tens of
// milliseconds at 10⁵ nodes against the hundreds the plan and the first
// assembly take there, so only plans of releaseStates states or more do
// it: small graphs, run thousands of times in a sweep, never pay for it.
// Whether the garbage is worth it cannot be read without collecting
// (runtime/metrics counts free pages only after a collection), and a
// plan that large always leaves tens of megabytes.

// releaseStates is the size of a System, in states, from which building
// its Jacobian plan returns the heap's free pages to the system.
const releaseStates = 1 << 16

// releaseFreePages returns the heap's free pages to the operating system
// when a plan of nx states has been built (see above).
func releaseFreePages(nx int) {
	if nx >= releaseStates {
		debug.FreeOSMemory()
	}
}
