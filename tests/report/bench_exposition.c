/*
 * bench-exposition - what rendering one scrape costs: the exposition of 8
 * events on 64 cores (-A, 512 counter samples and their validity gauges),
 * as pmustat serve renders it for each GET /metrics. Prints the time per
 * rendering and the heap it holds; fails past 10 ms or 1 MiB (the goals
 * of a whole scrape). A figure, not a test: `meson test --benchmark
 * exposition-render`; the whole scrape end to end is bench_serve.py's.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/output.h"
#include "test_util.h"

#define NEV 8
#define NCORES 64

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int
main(void)
{
	static const char *const names[NEV] = { "INST_RETIRED.ANY", "CPU_CLK_UNHALTED.THREAD",
						"BR_INST_RETIRED.ALL_BRANCHES", "BR_MISP_RETIRED.ALL_BRANCHES",
						"LONGEST_LAT_CACHE.MISS", "LONGEST_LAT_CACHE.REFERENCE",
						"MEM_INST_RETIRED.ALL_LOADS", "MEM_INST_RETIRED.ALL_STORES" };
	static struct event ev[NEV];
	static struct stat_row rows[NEV];
	static uint64_t values[NEV][NCORES];
	static int cores[NCORES];
	static double ms[200];
	struct stat_report rep;
	struct mallinfo2 m0, m1;
	size_t len = 0;
	char *t;

	for (unsigned c = 0; c < NCORES; c++)
		cores[c] = (int)c;
	for (unsigned i = 0; i < NEV; i++) {
		ev[i] = test_event(names[i], 0xc0, 0, 0xf);
		ev[i].usr = true;
		rows[i].ev = &ev[i];
		rows[i].counted = true;
		rows[i].status = "counted";
		rows[i].help = "An event's description from its table, about as long as Intel's brief descriptions.";
		for (unsigned c = 0; c < NCORES; c++)
			values[i][c] = 123456789012ull + i * 1000 + c;
		rows[i].cpu_values = values[i];
	}
	memset(&rep, 0, sizeof(rep));
	rep.version = "0.1.0";
	rep.cpu = "Intel(R) Xeon(R) Platinum 8180 CPU @ 2.50GHz";
	rep.event_table = "skylakex";
	rep.backend = "msr";
	rep.cores = cores;
	rep.ncores = NCORES;
	rep.per_cpu = true;
	rep.live = true;
	rep.rows = rows;
	rep.nrows = NEV;
	for (unsigned k = 0; k < sizeof(ms) / sizeof(ms[0]); k++) {
		double t0 = now();

		t = output_exposition_text(&rep, EXPOSITION_OPENMETRICS);
		ms[k] = (now() - t0) * 1000;
		if (!t)
			return 1;
		len = strlen(t);
		free(t);
	}
	m0 = mallinfo2();
	t = output_exposition_text(&rep, EXPOSITION_OPENMETRICS);
	m1 = mallinfo2();
	qsort(ms, sizeof(ms) / sizeof(ms[0]), sizeof(ms[0]), cmp_double);
	printf("exposition of %d events on %d cores: %zu bytes; render median %.3f ms, max %.3f ms; heap held %zu bytes\n",
	       NEV, NCORES, len, ms[100], ms[199], (size_t)(m1.uordblks - m0.uordblks) + (m1.hblkhd - m0.hblkhd));
	free(t);
	return ms[100] < 10 && (m1.uordblks - m0.uordblks) + (m1.hblkhd - m0.hblkhd) < (1u << 20) ? 0 : 1;
}
