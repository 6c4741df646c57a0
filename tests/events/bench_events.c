/*
 * bench-events: what a pmustat run pays for events before it counts
 * anything: load the largest table in events/ and resolve one event, and
 * parse a typical -e list. Prints figures; asserts nothing (goal: <= 5 ms
 * for load + lookup).
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "events/cpu.h"
#include "events/event_spec.h"
#include "events/event_table.h"
#include "base/err.h"

#define RUNS 50

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	static const struct pmu_caps caps = {
		.version = 4, .gp_counters = 4, .gp_mask = 0xf,
		.fixed_counters = 3, .fixed_mask = 0x7, .arch_events_len = 7,
	};
	struct pmustat_error *err = NULL;
	char largest[256] = "";
	off_t largest_size = 0;
	double t[RUNS], parse[RUNS];
	struct dirent *de;
	DIR *d;
	int i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s EVENTS_DIR\n", argv[0]);
		return 2;
	}
	d = opendir(argv[1]);
	if (!d) {
		perror(argv[1]);
		return 1;
	}
	while ((de = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;
		size_t len = strlen(de->d_name);

		if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", argv[1], de->d_name);
		if (stat(path, &st) == 0 && st.st_size > largest_size) {
			largest_size = st.st_size;
			snprintf(largest, sizeof(largest), "%.*s", (int)(len - 5), de->d_name);
		}
	}
	closedir(d);

	for (i = 0; i < RUNS; i++) {
		struct event_table *table;
		struct event *evs;
		size_t n;
		double t0 = now_ms(), t1;

		if (event_table_load(argv[1], largest, &table, &err) != 0) {
			fprintf(stderr, "%s\n", err_msg(err));
			return 1;
		}
		if (!event_table_find(table, "LONGEST_LAT_CACHE.MISS")) {
			fprintf(stderr, "%s: LONGEST_LAT_CACHE.MISS not found\n", largest);
			return 1;
		}
		t1 = now_ms();
		t[i] = t1 - t0;
		if (event_spec_parse("LLC_MISSES,cycles,instructions,MEM_LOAD_RETIRED.L3_MISS:uk,"
				     "cpu/event=0x2e,umask=0x41,cmask=1/", table, &caps, &evs, &n, &err) != 0) {
			fprintf(stderr, "%s\n", err_msg(err));
			return 1;
		}
		parse[i] = now_ms() - t1;
		free(evs);
		event_table_free(table);
	}
	qsort(t, RUNS, sizeof(t[0]), cmp_double);
	qsort(parse, RUNS, sizeof(parse[0]), cmp_double);
	printf("table %s (%lld bytes): load + lookup min %.2f ms, median %.2f ms, max %.2f ms (%d runs; goal <= 5 ms)\n",
	       largest, (long long)largest_size, t[0], t[RUNS / 2], t[RUNS - 1], RUNS);
	printf("parse of a 5-event -e list: min %.3f ms, median %.3f ms\n", parse[0], parse[RUNS / 2]);
	err_clear(&err);
	return 0;
}
