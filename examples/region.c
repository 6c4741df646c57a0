/*
 * examples/region.c - count code regions with pmustat.
 *
 *	cc -O2 -DPMUSTAT_REGIONS examples/region.c -o region \
 *		$(pkg-config --cflags --libs pmustat-region)
 *	./region				# not started by pmustat: runs as usual
 *	sudo pmustat --regions -e LLC_MISSES,INST_RETIRED.ANY -- ./region
 *
 * Without -DPMUSTAT_REGIONS the macros compile to nothing and the program
 * needs no library at all.
 */
#include <pmustat/region.h>

#include <stdio.h>
#include <stdlib.h>

#define N (1 << 22)

static int
cmp(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

int
main(void)
{
	unsigned *v = malloc(N * sizeof(*v));
	unsigned long long sum = 0;

	if (!v)
		return 1;
	for (unsigned i = 0; i < N; i++)
		v[i] = i * 2654435761u;

	/* A region may be entered any number of times: calls and sums add up. */
	for (int pass = 0; pass < 4; pass++) {
		PMUSTAT_REGION_BEGIN("scan");
		for (unsigned i = 0; i < N; i += 16)
			sum += v[(i * 97) % N];
		PMUSTAT_REGION_END("scan");
	}

	/* Regions nest; "sort" includes what "compare-pass" counts. */
	PMUSTAT_REGION_BEGIN("sort");
	qsort(v, N, sizeof(*v), cmp);
	PMUSTAT_REGION_BEGIN("compare-pass");
	for (unsigned i = 1; i < N; i++)
		sum += v[i - 1] <= v[i];
	PMUSTAT_REGION_END("compare-pass");
	PMUSTAT_REGION_END("sort");

	printf("%llu\n", sum);
	free(v);
	return 0;
}
