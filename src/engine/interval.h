/*
 * interval.h - read the counters while the command runs: to see every
 * wrap, and for -I MS.
 *
 * A thread, kept off the counted cores when it may be, reads the run's
 * counters on every listed core with MSR reads through the hardware seam
 * (rdpmc would read the wrong core) at
 * least every INTERVAL_WRAP_MS, and every MS milliseconds with -I, and
 * keeps each counter's running total from the modular difference of two
 * readings (delta_step(): a step backwards is another user's reset, not a
 * wrap). A counter is exact however many times it wraps, with no
 * reliance on its overflow bit (which Linux's PMI handler clears), as long
 * as it counts fewer than 2^width events between two reads: 2^48 a second
 * on 48-bit counters, 2^40 (about 6 minutes of cycles at 3 GHz) on Core 2's
 * 40-bit ones. interval_total() is a counter's count on one core once it
 * is stopped. With -I, the per-interval deltas (summed over the cores, and
 * per core) go to a callback, and after the command
 * ends interval_finish() emits the last interval as the final count less
 * what was already reported, so the intervals add up to the total exactly.
 */
#ifndef PMUSTAT_INTERVAL_H
#define PMUSTAT_INTERVAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "pmu/counter_sched.h"

struct pmustat_error;

#define INTERVAL_MIN_MS 10
/* The longest gap between two reads of a counter during a run. */
#define INTERVAL_WRAP_MS 1000

struct hw;
struct pmu_caps;

/*
 * @deltas[i] for each slot i of the run (others 0), summed over the cores;
 * @core_deltas[k * SCHED_MAX_EVENTS + i] the same on the k-th core;
 * @time since interval_start().
 */
typedef void (*interval_emit_fn)(void *arg, double time, const uint64_t *deltas, const uint64_t *core_deltas);

/* One sampled core: the counters of this run there. */
struct interval_core {
	int cpu;
	uint32_t msr[SCHED_MAX_EVENTS];		/* 0: slot not in this run */
	uint64_t mask[SCHED_MAX_EVENTS];
	uint64_t last[SCHED_MAX_EVENTS];	/* raw reading at the last sample */
	uint64_t total[SCHED_MAX_EVENTS];	/* events up to that reading */
	uint64_t reported[SCHED_MAX_EVENTS];	/* sum of the deltas emitted */
	/* Another user reset the counter (delta_step()): the first time, from what reading. */
	bool reset[SCHED_MAX_EVENTS];
	uint64_t reset_from[SCHED_MAX_EVENTS];
};

struct interval_sampler {
	struct hw *hw;
	unsigned period_ms;		/* -I; 0: read to see wraps only */
	unsigned read_ms;		/* the gap between two reads */
	interval_emit_fn emit;		/* NULL without -I */
	void *arg;

	unsigned n;				/* slots */
	unsigned ncores;
	struct interval_core *cores;		/* ncores */
	uint64_t *core_deltas;			/* ncores * SCHED_MAX_EVENTS, for emit */
	unsigned reads;				/* samples taken */
	int read_error;				/* first -errno of a read, or 0 */

	double t0;
	/*
	 * A fatal signal's handler stops sampling before it restores the PMU
	 * (interval_halt_from_signal()): @halt says stop, @in_read says a
	 * sample is reading counters now.
	 */
	atomic_int halt;
	atomic_int in_read;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	bool running;
};

/*
 * Start sampling run @run on the @ncpus cores @cpus, of @slots[k][0..n)
 * on core k (each core's plan; counters zeroed and programmed, not
 * necessarily enabled yet): every @period_ms (-I) with @emit, and at least
 * every INTERVAL_WRAP_MS; @period_ms 0 and @emit NULL read for the wraps
 * only. The thread is pinned to the CPUs this process may use, less @cpus
 * (with -I there must be one; without, it runs where it may), and blocks
 * every signal. 0, or -errno with a message.
 */
int
interval_start(struct interval_sampler *s, struct hw *hw, const int *cpus, unsigned ncpus,
	       const struct pmu_caps *caps, const struct sched_slot *const *slots, unsigned n, unsigned run,
	       unsigned period_ms, interval_emit_fn emit, void *arg, struct pmustat_error **err);

/* Stop and join the thread (no more samples after it returns). */
void
interval_stop(struct interval_sampler *s);

/*
 * For a fatal signal's handler, before it restores the PMU: stop the
 * running sampler's reads. Returns once no sample reads a counter and none
 * will again (a sample whose reads were done is not emitted either).
 * Async-signal-safe; a no-op when no sampler runs.
 */
void
interval_halt_from_signal(void);

/*
 * Slot @i's count on the @k-th core, from its reading @raw taken after
 * the counter stopped: the running total plus the events since the last
 * sample (delta_step(): a reset since is recorded in the core's reset[]).
 * Call after interval_stop(), before interval_finish().
 */
uint64_t
interval_total(struct interval_sampler *s, unsigned k, unsigned i, uint64_t raw);

/*
 * -I: emit the last interval: @final[k * SCHED_MAX_EVENTS + i] (the run's
 * counts on the k-th core) less what the samples reported; nothing without
 * -I or with @final NULL. Then free what interval_start() allocated. Call
 * after interval_stop() and the final read.
 */
void
interval_finish(struct interval_sampler *s, const uint64_t *final);

#endif
