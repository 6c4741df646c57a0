/*
 * stats.h - statistics of one event's counts over repeated runs (-r N).
 * Pure: no hardware, no I/O.
 */
#ifndef PMUSTAT_STATS_H
#define PMUSTAT_STATS_H

#include <stdbool.h>
#include <stdint.h>

struct stats_summary {
	unsigned n;			/* runs that counted the event */
	double mean;
	double median;			/* middle value; mean of the two middle ones when n is even */
	/*
	 * The median exactly, as a count: rounded half up when it is a half
	 * (@median_half). A double holds every integer only up to 2^53; a
	 * 64-bit count is reported from this, never from @median.
	 */
	uint64_t median_count;
	bool median_half;
	/* The mean exactly, as a count, rounded half up: what -r reports for an event (perf's mean). */
	uint64_t mean_count;
	uint64_t min;
	uint64_t max;
	double stddev;			/* sample standard deviation (n - 1); 0 when n < 2 */
	double rel_stddev_percent;	/* 100 * stddev / mean; 0 when the mean is 0 */
	/* perf stat's "( +- X% )": the standard error of the mean, stddev / sqrt(n). */
	double stderr_mean;
	double rel_stderr_percent;	/* 100 * stderr_mean / mean; 0 when the mean is 0 */
};

/*
 * Summarise @values[0..n). 0, or -EINVAL when n == 0 (then @out is zeroed).
 * @values is not modified.
 */
int
stats_compute(const uint64_t *values, unsigned n, struct stats_summary *out);

#endif
