/*
 * stats.c - mean, median, min, max and standard deviation of counts.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/stats.h"

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int
stats_compute(const uint64_t *values, unsigned n, struct stats_summary *out)
{
	uint64_t *sorted;
	double sum = 0, sq = 0;
	unsigned mid;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return -EINVAL;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, values, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_u64);
	out->n = n;
	out->min = sorted[0];
	out->max = sorted[n - 1];
	/* Halves first: two counts near 2^64 must not overflow. */
	mid = n / 2;
	if (n % 2) {
		out->median_count = sorted[mid];
		out->median = (double)sorted[mid];
	} else {
		uint64_t a = sorted[mid - 1], b = sorted[mid];

		out->median_half = (a & 1) != (b & 1);
		out->median_count = a / 2 + b / 2 + ((a & 1) + (b & 1) + 1) / 2;
		out->median = (double)a / 2.0 + (double)b / 2.0;
	}
	/* Quotients and remainders apart: the sum of n counts near 2^64 overflows, a double rounds above 2^53. */
	uint64_t quotients = 0, remainders = 0;

	for (unsigned i = 0; i < n; i++) {
		quotients += sorted[i] / n;
		remainders += sorted[i] % n;
		sum += (double)sorted[i];
	}
	out->mean_count = quotients + (remainders + n / 2) / n;
	out->mean = sum / n;
	/* Two passes: sum of squares about the mean, not E[x^2] - E[x]^2 (cancellation). */
	for (unsigned i = 0; i < n; i++) {
		double d = (double)sorted[i] - out->mean;

		sq += d * d;
	}
	out->stddev = n > 1 ? sqrt(sq / (n - 1)) : 0.0;
	out->rel_stddev_percent = out->mean != 0 ? 100.0 * out->stddev / out->mean : 0.0;
	out->stderr_mean = out->stddev / sqrt((double)n);
	out->rel_stderr_percent = out->mean != 0 ? 100.0 * out->stderr_mean / out->mean : 0.0;
	free(sorted);
	return 0;
}
