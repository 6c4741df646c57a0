/*
 * region-demo - a program with code regions, for pmustat --regions and
 * the test suite:
 *
 *	main thread:  1 outside, "hot" twice (100 each), "cold" once (10, then
 *	              "inner" nested in it (5), then 3 more), a second thread,
 *	              "rec" begun inside itself (4 inside both, 1 in the outer
 *	              only), 2 outside;
 *	worker thread: "hot" once (1000), "worker" once (7).
 *
 * Each number is a burst of UNITS of LONGEST_LAT_CACHE.MISS (0x2e/0x41) and
 * ten times as many INST_RETIRED.ANY (0xc0/0x00), in user mode. Under the
 * emulated PMU (libpmuemu.so preloaded) they are retired exactly through
 * pmuemu_retire(); on real hardware the demo does its own cache-missing
 * work instead and the counts are whatever the CPU counts. The main thread
 * waits for the worker, so the two never interleave on the counted core.
 *
 * Expected per region (units): hot 2 calls 200 + 1 call 1000 (worker),
 * cold 1 call 18, inner 1 call 5, rec 2 calls 5, worker 1 call 7; the whole
 * run 1233.
 */
#define PMUSTAT_REGIONS
#include <pmustat/region.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "emu_preload_api.h"

static pmuemu_retire_fn retire_fn;
static volatile uint64_t sink;

/* @n units of work: exact under the emulator, real cache misses otherwise. */
static void
work(uint64_t n)
{
	static char *buf;
	enum { BUF = 64 << 20, STRIDE = 4096 + 64 };

	if (retire_fn) {
		if (retire_fn(0x2e, 0x41, 3, n) != 0 || retire_fn(0xc0, 0x00, 3, 10 * n) != 0) {
			fprintf(stderr, "region-demo: pmuemu_retire failed\n");
			exit(2);
		}
		return;
	}
	if (!buf && !(buf = calloc(1, BUF))) {
		perror("region-demo");
		exit(2);
	}
	for (uint64_t i = 0; i < n; i++)
		sink += (uint64_t)buf[(i * STRIDE * 97) % BUF];
}

static void *
worker(void *arg)
{
	(void)arg;
	PMUSTAT_REGION_BEGIN("hot");
	work(1000);
	PMUSTAT_REGION_END("hot");
	PMUSTAT_REGION_BEGIN("worker");
	work(7);
	PMUSTAT_REGION_END("worker");
	return NULL;
}

int
main(void)
{
	pthread_t t;

	retire_fn = (pmuemu_retire_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "pmuemu_retire");
	work(1);
	for (int i = 0; i < 2; i++) {
		PMUSTAT_REGION_BEGIN("hot");
		work(100);
		PMUSTAT_REGION_END("hot");
	}
	PMUSTAT_REGION_BEGIN("cold");
	work(10);
	PMUSTAT_REGION_BEGIN("inner");
	work(5);
	PMUSTAT_REGION_END("inner");
	work(3);
	PMUSTAT_REGION_END("cold");

	if (pthread_create(&t, NULL, worker, NULL) != 0 || pthread_join(t, NULL) != 0) {
		fprintf(stderr, "region-demo: cannot run the worker thread\n");
		return 2;
	}

	PMUSTAT_REGION_BEGIN("rec");
	PMUSTAT_REGION_BEGIN("rec");
	work(4);
	PMUSTAT_REGION_END("rec");
	work(1);
	PMUSTAT_REGION_END("rec");
	work(2);
	return 0;
}
