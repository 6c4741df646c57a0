/*
 * bench-region-child - the program whose region calls scripts/bench-region
 * measures; one copy per way of linking libpmustat-region (shared, static,
 * and a static copy with rdtsc standing in for rdpmc).
 *
 *	bench-region-child count FD [same|alternate|recursive]
 *		begin/end once to warm up, write the address of marker() to
 *		FD, then twice: raise(SIGSTOP), window(pairs, then none),
 *		marker(). The tracer single-steps from each stop to marker():
 *		the difference is the pairs. same: one pair of one name (the
 *		common loop); alternate: two pairs of two names that take
 *		turns at one depth (each begin a miss); recursive: one pair
 *		inside an open pair of the same name (no reads).
 *	bench-region-child time N	N pairs (and N empty iterations),
 *		timed with CLOCK_MONOTONIC: "ns-per-pair X" on stdout.
 *
 * Four events, as pmustat's area in the environment says (or none).
 */
#include <pmustat/region.h>

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char name[] = "bench", other[] = "other";

__attribute__((noinline)) void marker(void);
__attribute__((noinline)) void window_one(int pair);
__attribute__((noinline)) void window_two(int pair);

/* The window measured: called through this pointer with and without its pairs alike. */
static void (*window)(int pair) = window_one;

__attribute__((noinline)) void
marker(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void
window_one(int pair)
{
	if (pair) {
		pmustat_region_begin(name);
		pmustat_region_end(name);
	}
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void
window_two(int pair)
{
	if (pair) {
		pmustat_region_begin(name);
		pmustat_region_end(name);
		pmustat_region_begin(other);
		pmustat_region_end(other);
	}
	__asm__ volatile("" ::: "memory");
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int
main(int argc, char **argv)
{
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "count") == 0) {
		const char *pattern = argc == 4 ? argv[3] : "same";
		bool recursive = strcmp(pattern, "recursive") == 0;
		uintptr_t addr = (uintptr_t)marker;
		int fd = atoi(argv[2]);

		if (strcmp(pattern, "alternate") == 0)
			window = window_two;
		if (recursive)
			pmustat_region_begin(name);
		window(1);	/* first call: the thread's slot and the region's record */
		if (write(fd, &addr, sizeof(addr)) != (ssize_t)sizeof(addr))
			return 2;
		close(fd);
		raise(SIGSTOP);
		window(1);
		marker();
		raise(SIGSTOP);
		window(0);
		marker();
		if (recursive)
			pmustat_region_end(name);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "time") == 0) {
		long n = atol(argv[2]);
		double t0, t1, t2;

		window(1);
		t0 = now_ns();
		for (long i = 0; i < n; i++)
			window(1);
		t1 = now_ns();
		for (long i = 0; i < n; i++)
			window(0);
		t2 = now_ns();
		printf("ns-per-pair %.2f\n", ((t1 - t0) - (t2 - t1)) / (double)n);
		return 0;
	}
	fprintf(stderr, "usage: bench-region-child count FD [same|alternate|recursive] | time N\n");
	return 2;
}
