/*
 * interval.c - the -I sampler thread.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "events/cpu.h"
#include "pmu/family.h"
#include "pmu/delta.h"
#include "hw/hw.h"
#include "engine/interval.h"
#include "pmu/msr.h"
#include "base/cpulist.h"
#include "base/clock.h"
#include "base/err.h"

/* The sampler a fatal signal must stop, while one runs. */
static struct interval_sampler *_Atomic signal_sampler;

/* The CPUs this process may use, less @cpus; false when none is left. */
static bool
other_cpus(const int *cpus, unsigned ncpus, cpu_set_t *set)
{
	if (sched_getaffinity(0, sizeof(*set), set) != 0)
		return false;
	for (unsigned k = 0; k < ncpus; k++)
		if (cpus[k] >= 0 && cpus[k] < CPU_SETSIZE)
			CPU_CLR(cpus[k], set);
	return CPU_COUNT(set) > 0;
}

/* Events of slot @i on core @c from its last reading to @raw; a reset is recorded. */
static uint64_t
step(struct interval_core *c, unsigned i, uint64_t raw)
{
	bool reset = false;
	uint64_t d = delta_step(c->last[i], raw, c->mask[i], &reset);

	if (reset && !c->reset[i]) {
		c->reset[i] = true;
		c->reset_from[i] = c->last[i];
	}
	return d;
}

/* Read every counter; with @emit, hand the events since the last emit to the callback. */
static void
sample(struct interval_sampler *s, bool emit)
{
	uint64_t deltas[SCHED_MAX_EVENTS];

	memset(deltas, 0, sizeof(deltas));
	memset(s->core_deltas, 0, (size_t)s->ncores * SCHED_MAX_EVENTS * sizeof(*s->core_deltas));
	/*
	 * Announce the reads, then look for a halt (the handler does the
	 * converse): either the handler sees the reads and waits for them, or
	 * this sees the halt and reads nothing. Sequentially consistent atomics.
	 */
	atomic_store(&s->in_read, 1);
	if (atomic_load(&s->halt)) {
		atomic_store(&s->in_read, 0);
		return;
	}
	for (unsigned k = 0; k < s->ncores; k++) {
		struct interval_core *c = &s->cores[k];
		uint64_t *cd = s->core_deltas + (size_t)k * SCHED_MAX_EVENTS;

		for (unsigned i = 0; i < s->n; i++) {
			uint64_t raw;
			int rc;

			if (!c->msr[i])
				continue;
			rc = hw_rdmsr(s->hw, c->cpu, c->msr[i], &raw);
			if (rc) {
				/* Reported once at the end; the final count is still read normally. */
				if (!s->read_error)
					s->read_error = rc;
				continue;
			}
			/* Modulo the width: one wrap between two samples is counted right. */
			c->total[i] += step(c, i, raw);
			c->last[i] = raw & c->mask[i];
			cd[i] = c->total[i] - c->reported[i];
			if (emit)
				c->reported[i] = c->total[i];
			deltas[i] += cd[i];
		}
	}
	s->reads++;
	atomic_store(&s->in_read, 0);
	/* Halted meanwhile: pmustat is going down; print nothing more. */
	if (!emit || atomic_load(&s->halt))
		return;
	s->emit(s->arg, clock_monotonic_seconds() - s->t0, deltas, s->core_deltas);
}

static void
add_ms(struct timespec *t, unsigned ms)
{
	t->tv_nsec += (long)ms * 1000000L;
	while (t->tv_nsec >= 1000000000L) {
		t->tv_nsec -= 1000000000L;
		t->tv_sec++;
	}
}

static bool
before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static void *
sampler_main(void *arg)
{
	struct interval_sampler *s = arg;
	struct timespec start, next_read, next_emit, next;

	clock_gettime(CLOCK_MONOTONIC, &start);
	next_read = next_emit = start;
	/* Deadlines from the start, so neither period drifts. */
	add_ms(&next_read, s->read_ms);
	if (s->emit)
		add_ms(&next_emit, s->period_ms);
	pthread_mutex_lock(&s->lock);
	while (!s->stop && !atomic_load(&s->halt)) {
		bool emit = s->emit && !before(&next_read, &next_emit);

		next = emit ? next_emit : next_read;
		while (!s->stop && pthread_cond_timedwait(&s->cond, &s->lock, &next) != ETIMEDOUT)
			;
		if (s->stop)
			break;
		pthread_mutex_unlock(&s->lock);
		sample(s, emit);
		pthread_mutex_lock(&s->lock);
		if (emit)
			add_ms(&next_emit, s->period_ms);
		/* The longest gap counts from the last read, whichever it was. */
		next_read = next;
		add_ms(&next_read, s->read_ms);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

int
interval_start(struct interval_sampler *s, struct hw *hw, const int *cpus, unsigned ncpus,
	       const struct pmu_caps *caps, const struct sched_slot *const *slots, unsigned n, unsigned run,
	       unsigned period_ms, interval_emit_fn emit, void *arg, struct pmustat_error **err)
{
	pthread_condattr_t cattr;
	pthread_attr_t attr;
	sigset_t all, old;
	cpu_set_t set;
	int rc;

	memset(s, 0, sizeof(*s));
	atomic_init(&s->halt, 0);
	atomic_init(&s->in_read, 0);
	s->hw = hw;
	s->period_ms = period_ms < INTERVAL_MIN_MS ? INTERVAL_MIN_MS : period_ms;
	s->read_ms = emit && s->period_ms < INTERVAL_WRAP_MS ? s->period_ms : INTERVAL_WRAP_MS;
	s->emit = emit;
	s->arg = arg;
	s->n = n;
	/*
	 * Off the counted cores; where pmustat may run on those cores alone
	 * (-a), there, as perf stat -a -I does: its reads and its lines are
	 * then in their counts, and the run's window says so (run.c).
	 */
	if (!other_cpus(cpus, ncpus, &set) && sched_getaffinity(0, sizeof(set), &set) != 0)
		CPU_ZERO(&set);
	s->cores = calloc(ncpus, sizeof(*s->cores));
	s->core_deltas = calloc((size_t)ncpus * SCHED_MAX_EVENTS, sizeof(*s->core_deltas));
	if (!s->cores || !s->core_deltas) {
		interval_finish(s, NULL);
		return err_set(err, -ENOMEM, "out of memory");
	}
	s->ncores = ncpus;
	for (unsigned k = 0; k < ncpus; k++) {
		struct interval_core *c = &s->cores[k];

		c->cpu = cpus[k];
		for (unsigned i = 0; i < n; i++) {
			if (slots[k][i].run != run)
				continue;
			if (slots[k][i].kind == SCHED_FIXED) {
				c->msr[i] = msr_fixed_ctr(slots[k][i].index);
				c->mask[i] = delta_width_mask(caps->fixed_width);
			} else if (slots[k][i].kind == SCHED_GP) {
				c->msr[i] = msr_pmc(slots[k][i].index);
				c->mask[i] = delta_width_mask(caps->gp_width);
			} else if (slots[k][i].kind == SCHED_NB && caps->family) {
				/* A counter of the family's own: a plain register, read as it is. */
				c->msr[i] = caps->family->plain_counter_msr + slots[k][i].index;
				c->mask[i] = delta_width_mask(caps->family->plain_counter_width);
			}
		}
	}
	pthread_condattr_init(&cattr);
	pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &cattr);
	pthread_condattr_destroy(&cattr);
	pthread_mutex_init(&s->lock, NULL);
	s->t0 = clock_monotonic_seconds();
	/* The thread starts with every signal blocked: handlers run in the main thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	/* Pinned from its first instruction: off the measured cores when it can be. */
	pthread_attr_init(&attr);
	if (CPU_COUNT(&set) > 0)
		(void)pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	rc = pthread_create(&s->thread, &attr, sampler_main, s);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		pthread_cond_destroy(&s->cond);
		pthread_mutex_destroy(&s->lock);
		interval_finish(s, NULL);
		return err_set(err, -rc, "-I: cannot start the sampling thread: %s", strerror(rc));
	}
	s->running = true;
	atomic_store(&signal_sampler, s);
	return 0;
}

void
interval_stop(struct interval_sampler *s)
{
	if (!s->running)
		return;
	atomic_store(&signal_sampler, NULL);
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	s->running = false;
}

void
interval_halt_from_signal(void)
{
	struct interval_sampler *s = atomic_load(&signal_sampler);
	const struct timespec step = { 0, 1000L * 1000 };

	if (!s)
		return;
	atomic_store(&s->halt, 1);
	/* A sample's reads take microseconds; a second is far beyond any. */
	for (int i = 0; i < 1000 && atomic_load(&s->in_read); i++)
		nanosleep(&step, NULL);
}

uint64_t
interval_total(struct interval_sampler *s, unsigned k, unsigned i, uint64_t raw)
{
	struct interval_core *c = &s->cores[k];

	return c->total[i] + step(c, i, raw);
}

void
interval_finish(struct interval_sampler *s, const uint64_t *final)
{
	uint64_t deltas[SCHED_MAX_EVENTS];

	memset(deltas, 0, sizeof(deltas));
	for (unsigned k = 0; final && s->emit && k < s->ncores; k++) {
		const struct interval_core *c = &s->cores[k];
		uint64_t *cd = s->core_deltas + (size_t)k * SCHED_MAX_EVENTS;

		for (unsigned i = 0; i < s->n; i++) {
			cd[i] = c->msr[i] ? final[(size_t)k * SCHED_MAX_EVENTS + i] - c->reported[i] : 0;
			deltas[i] += cd[i];
		}
	}
	if (final && s->ncores && s->emit)
		s->emit(s->arg, clock_monotonic_seconds() - s->t0, deltas, s->core_deltas);
	free(s->cores);
	free(s->core_deltas);
	s->cores = NULL;
	s->core_deltas = NULL;
	s->ncores = 0;
}
