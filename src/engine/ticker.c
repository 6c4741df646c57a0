/*
 * ticker.c - see ticker.h.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "engine/ticker.h"

static void *
run(void *arg)
{
	struct ticker *k = arg;
	unsigned n = 0;

	pthread_mutex_lock(&k->lock);
	while (!k->stop) {
		double due = k->t0 + (double)(++n) * k->period_ms / 1000.0;
		struct timespec ts;
		int rc = 0;

		/* Each tick at its time from the start: no drift from the time the reads take. */
		ts.tv_sec = (time_t)due;
		ts.tv_nsec = (long)((due - (double)ts.tv_sec) * 1e9);
		while (!k->stop && rc != ETIMEDOUT)
			rc = pthread_cond_timedwait(&k->cond, &k->lock, &ts);
		if (k->stop)
			break;
		pthread_mutex_unlock(&k->lock);
		k->tick(k->arg, clock_monotonic_seconds() - k->t0);
		pthread_mutex_lock(&k->lock);
	}
	pthread_mutex_unlock(&k->lock);
	return NULL;
}

int
ticker_start(struct ticker *k, unsigned period_ms, void (*tick)(void *arg, double time), void *arg)
{
	pthread_condattr_t ca;
	sigset_t all, old;
	int rc;

	memset(k, 0, sizeof(*k));
	k->period_ms = period_ms;
	k->tick = tick;
	k->arg = arg;
	pthread_mutex_init(&k->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&k->cond, &ca);
	pthread_condattr_destroy(&ca);
	k->t0 = clock_monotonic_seconds();
	/* The thread inherits a mask holding every signal. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&k->thread, NULL, run, k);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		pthread_cond_destroy(&k->cond);
		pthread_mutex_destroy(&k->lock);
		return -rc;
	}
	k->running = true;
	return 0;
}

void
ticker_stop(struct ticker *k)
{
	if (!k->running)
		return;
	pthread_mutex_lock(&k->lock);
	k->stop = true;
	pthread_cond_signal(&k->cond);
	pthread_mutex_unlock(&k->lock);
	pthread_join(k->thread, NULL);
	pthread_cond_destroy(&k->cond);
	pthread_mutex_destroy(&k->lock);
	k->running = false;
}
