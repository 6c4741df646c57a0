/*
 * bench-metrics: what metrics cost before and after a run: load the largest
 * metric table in events/metrics/ (every formula parsed), plan all of its
 * metrics against its event table, and evaluate them. Prints figures;
 * asserts nothing. `meson test --benchmark -C BUILD --suite metrics`.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "events/cpu.h"
#include "events/event_table.h"
#include "metrics/metric_plan.h"
#include "metrics/metric_table.h"
#include "base/err.h"

#define RUNS 30

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

static void
report(const char *what, double *t)
{
	qsort(t, RUNS, sizeof(*t), cmp_double);
	printf("%-44s min %7.2f ms, median %7.2f ms (%d runs)\n", what, t[0], t[RUNS / 2], RUNS);
}

/* Why metrics are refused, per table, with SMT off: figures for the notes. */
static const char *const reasons[] = {
	"needs uncore events", "needs retire latency", "MSR 0x3f7", "PEBS",
	"with the EQ bit", "summed over both SMT threads", "does not have", "AnyThread",
	"CHAS_PER_SOCKET",
};
#define N_REASONS (sizeof(reasons) / sizeof(reasons[0]))

static void
census(const char *events_dir, const struct metric_consts *c)
{
	struct pmustat_error *err = NULL;
	char dir[PATH_MAX];
	unsigned total[N_REASONS + 1] = { 0 }, metrics = 0, refused = 0;
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/metrics", events_dir);
	d = opendir(dir);
	if (!d)
		return;
	printf("\nrefused with SMT off (uncore, retire latency, MSR 0x3f7, PEBS-only, EQ, other):\n");
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char name[256];
		struct metric_table *t;
		struct event_table *et;
		struct metric_list all = { 0, 0, NULL };
		struct metric_plan *plan;
		unsigned by[N_REASONS + 1] = { 0 }, n = 0;
		struct pmu_caps caps;
		bool v5;

		if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(len - 5), de->d_name);
		/* Ice Lake on: perfmon v5 (Lion Cove v6), 8 PMCs, fixed counter 3; v4 and 4 PMCs before. */
		v5 = strncmp(name, "haswell", 7) != 0 && strncmp(name, "broadwell", 9) != 0 &&
		     strncmp(name, "skylake", 7) != 0 && strcmp(name, "cascadelakex") != 0;
		caps = (struct pmu_caps){
			.version = !v5 ? 4 : strstr(name, "lioncove") ? 6 : 5, .gp_counters = v5 ? 8 : 4, .gp_mask = v5 ? 0xff : 0xf,
			.fixed_counters = v5 ? 4 : 3, .fixed_mask = v5 ? 0xf : 0x7,
			.arch_events_len = 8, .anythread_deprecated = v5,
		};
		if (metric_table_load(events_dir, name, &t, &err) != 0 ||
		    event_table_load(events_dir, name, &et, &err) != 0) {
			fprintf(stderr, "%s\n", err_msg(err));
			continue;
		}
		all.metric = malloc(metric_table_count(t) * sizeof(*all.metric));
		for (size_t i = 0; all.metric && i < metric_table_count(t); i++)
			all.metric[all.n++] = (unsigned)i;
		if (all.metric && metric_plan_build(t, &all, c, et, &caps, true, false, &plan, &err) == 0) {
			for (unsigned k = 0; k < plan->n_metrics; k++) {
				const char *why = plan->metrics[k].refusal;
				size_t r;

				if (!plan->metrics[k].refused)
					continue;
				for (r = 0; r < N_REASONS && !strstr(why, reasons[r]); r++)
					;
				by[r]++;
				total[r]++;
				n++;
			}
			metric_plan_free(plan);
		}
		printf("  %-24s %3u of %3zu:", name, n, metric_table_count(t));
		for (size_t r = 0; r <= N_REASONS; r++)
			if (by[r])
				printf(" %s %u;", r < N_REASONS ? reasons[r] : "other", by[r]);
		putchar('\n');
		metrics += (unsigned)metric_table_count(t);
		refused += n;
		metric_list_free(&all);
		event_table_free(et);
		metric_table_free(t);
	}
	closedir(d);
	printf("  all tables: %u of %u refused:", refused, metrics);
	for (size_t r = 0; r <= N_REASONS; r++)
		if (total[r])
			printf(" %s %u;", r < N_REASONS ? reasons[r] : "other", total[r]);
	putchar('\n');
	err_clear(&err);
}

int
main(int argc, char **argv)
{
	static const struct pmu_caps caps = {
		.version = 5, .gp_counters = 8, .gp_mask = 0xff, .fixed_counters = 4,
		.fixed_mask = 0xf, .arch_events_len = 8, .anythread_deprecated = true,
	};
	struct pmustat_error *err = NULL;
	char dir[PATH_MAX], largest[256] = "";
	off_t largest_size = 0;
	double load[RUNS], plan_t[RUNS], eval_t[RUNS];
	struct metric_consts c;
	struct event_table *et;
	struct dirent *de;
	unsigned refused = 0, evals = 0, nodes = 0;
	DIR *d;

	if (argc != 2) {
		fprintf(stderr, "usage: %s EVENTS_DIR\n", argv[0]);
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/metrics", argv[1]);
	d = opendir(dir);
	if (!d) {
		perror(dir);
		return 1;
	}
	while ((de = readdir(d))) {
		char path[PATH_MAX + 256];
		struct stat st;
		size_t len = strlen(de->d_name);

		if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) == 0 && st.st_size > largest_size) {
			largest_size = st.st_size;
			snprintf(largest, sizeof(largest), "%.*s", (int)(len - 5), de->d_name);
		}
	}
	closedir(d);
	if (event_table_load(argv[1], largest, &et, &err) != 0) {
		fprintf(stderr, "%s\n", err_msg(err));
		return 1;
	}
	memset(&c, 0, sizeof(c));
	c.value[METRIC_CONST_SMT_ON] = 1;
	c.value[METRIC_CONST_THREADS] = 2;
	c.value[METRIC_CONST_DURATION_MS] = 1000;
	c.value[METRIC_CONST_TSC_FREQ] = 2e9;
	c.known = 1u << METRIC_CONST_SMT_ON | 1u << METRIC_CONST_THREADS |
		  1u << METRIC_CONST_DURATION_MS | 1u << METRIC_CONST_TSC_FREQ;

	for (int r = 0; r < RUNS; r++) {
		struct metric_table *t;
		struct metric_list all = { 0, 0, NULL };
		struct metric_plan *plan;
		double t0 = now_ms(), t1, t2, t3, *values;

		if (metric_table_load(argv[1], largest, &t, &err) != 0) {
			fprintf(stderr, "%s\n", err_msg(err));
			return 1;
		}
		t1 = now_ms();
		all.metric = malloc(metric_table_count(t) * sizeof(*all.metric));
		for (size_t i = 0; all.metric && i < metric_table_count(t); i++)
			all.metric[all.n++] = (unsigned)i;
		if (!all.metric || metric_plan_build(t, &all, &c, et, &caps, true, false, &plan, &err) != 0) {
			fprintf(stderr, "plan: %s\n", err_msg(err));
			return 1;
		}
		t2 = now_ms();
		values = malloc((plan->n_events ? plan->n_events : 1) * sizeof(*values));
		for (unsigned i = 0; values && i < plan->n_events; i++)
			values[i] = 1e6 + i * 1237.0;
		refused = evals = nodes = 0;
		for (unsigned k = 0; values && k < plan->n_metrics; k++) {
			struct metric_result res;

			metric_plan_eval(plan, t, k, values, &c, &res);
			refused += plan->metrics[k].refused;
			evals++;
			nodes += metric_expr_size(metric_table_get(t, plan->metrics[k].metric)->formula);
		}
		t3 = now_ms();
		load[r] = t1 - t0;
		plan_t[r] = t2 - t1;
		eval_t[r] = t3 - t2;
		if (r == RUNS - 1)
			printf("table %s: %lld bytes, %zu metrics (%u formula nodes), %u events planned, %u refused\n",
			       largest, (long long)largest_size, metric_table_count(t), nodes,
			       plan->n_events, refused);
		free(values);
		metric_plan_free(plan);
		metric_list_free(&all);
		metric_table_free(t);
	}
	report("load (JSON + parse every formula)", load);
	report("plan every metric (resolve, dedup)", plan_t);
	report("evaluate every metric once", eval_t);
	printf("(%u evaluations per run)\n", evals);
	c.value[METRIC_CONST_SMT_ON] = 0;
	c.value[METRIC_CONST_THREADS] = 1;
	census(argv[1], &c);
	event_table_free(et);
	err_clear(&err);
	return 0;
}
