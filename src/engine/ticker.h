/*
 * ticker.h - a thread that calls a function every N milliseconds until
 * stopped: the perf backend's -I (engine/backend_perf.c reads the
 * kernel's counters on each tick). It blocks every signal (the main
 * thread takes them) and stops promptly: ticker_stop() wakes it.
 */
#ifndef PMUSTAT_TICKER_H
#define PMUSTAT_TICKER_H

#include <pthread.h>
#include <stdbool.h>

struct ticker {
	unsigned period_ms;
	void (*tick)(void *arg, double time);	/* @time: seconds since ticker_start() */
	void *arg;
	double t0;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	bool running;
};

/* Call @tick(@arg, time) every @period_ms from a new thread. 0, or -errno. */
int ticker_start(struct ticker *k, unsigned period_ms, void (*tick)(void *arg, double time), void *arg);

/* Stop and join it: no tick runs once it returns. A no-op when none runs. */
void ticker_stop(struct ticker *k);

#endif
