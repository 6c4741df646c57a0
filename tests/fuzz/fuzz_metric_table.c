/*
 * fuzz_metric_table.c - metric tables (metric_table_load, events/metrics/
 * *.json) and what pmustat does with one it accepted: -M selection, the
 * plan of events against the shipped Skylake event table, evaluation and
 * fitting.
 *
 * Input: the whole file, written as metrics/fuzz.json in a private
 * directory and loaded as table "fuzz" (a valid seed says "table": "fuzz").
 *
 * Checked: a refusal has a message and leaves no table; every metric of an
 * accepted table is found by its names; a selection holds valid indices,
 * each once; a plan maps the slots a formula reads to its events, a refused
 * metric has its reason; values are finite or null with a reason.
 */
#include "fuzz_util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "events/cpu.h"
#include "events/event_table.h"
#include "metrics/metric_plan.h"
#include "metrics/metric_table.h"
#include "pmu/counter_sched.h"
#include "base/err.h"

static struct event_table *skylake;
static char metrics_dir[PATH_MAX], metrics_file[PATH_MAX];

static const struct pmu_caps caps = {
	.version = 4, .gp_counters = 4, .gp_mask = 0xf, .gp_width = 48, .fixed_counters = 3,
	.fixed_mask = 0x7, .fixed_width = 48, .arch_events_len = 7,
};

/* Runs before fuzz_util's own cleanup, which does not descend into directories. */
static void
remove_metrics_dir(void)
{
	unlink(metrics_file);
	rmdir(metrics_dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct pmustat_error *err = NULL;

	(void)argc;
	(void)argv;
	if ((size_t)snprintf(metrics_dir, sizeof(metrics_dir), "%s/metrics", fuzz_tmpdir()) >=
		    sizeof(metrics_dir) ||
	    (size_t)snprintf(metrics_file, sizeof(metrics_file), "%s/fuzz.json", metrics_dir) >=
		    sizeof(metrics_file))
		fuzz_fail("temporary path too long");
	if (mkdir(metrics_dir, 0700) != 0)
		fuzz_fail("mkdir %s failed", metrics_dir);
	atexit(remove_metrics_dir);
	if (event_table_load(fuzz_events_dir(), "skylake", &skylake, &err) != 0)
		fuzz_fail("%s", err_msg(err));
	err_clear(&err);
	return 0;
}

static void
write_input(const uint8_t *data, size_t size)
{
	FILE *f = fopen(metrics_file, "we");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		fuzz_fail("cannot write %s", metrics_file);
}

static void
exercise(const struct metric_table *t)
{
	static const char *const specs[] = { "TmaL1", "TopdownL1,tma_L2_group", "Summary" };
	struct metric_list list = { 0, 0, NULL };
	struct metric_consts c;
	struct metric_plan *plan = NULL;
	struct pmustat_error *err = NULL;
	double values[SCHED_MAX_EVENTS * 4];

	for (size_t s = 0; s < sizeof(specs) / sizeof(specs[0]); s++)
		if (metric_table_select(t, specs[s], &list, &err) == -EINVAL && !err_msg(err)[0])
			fuzz_fail("selection refused without a message");
	if (metric_table_count(t) && metric_table_select(t, metric_table_get(t, 0)->name, &list, &err) != 0)
		fuzz_fail("metric 0 not selected by its own name: %s", err_msg(err));
	for (unsigned i = 0; i < list.n; i++) {
		if (list.metric[i] >= metric_table_count(t))
			fuzz_fail("selected metric %u of %zu", list.metric[i], metric_table_count(t));
		for (unsigned j = 0; j < i; j++)
			if (list.metric[j] == list.metric[i])
				fuzz_fail("metric %u selected twice", list.metric[i]);
	}
	/* Planning every metric is quadratic in events: a few suffice. */
	if (list.n > 16)
		list.n = 16;
	memset(&c, 0, sizeof(c));
	c.value[METRIC_CONST_SMT_ON] = 0;
	c.value[METRIC_CONST_DURATION_MS] = 100;
	c.known = 1u << METRIC_CONST_SMT_ON | 1u << METRIC_CONST_DURATION_MS;
	if (metric_plan_build(t, &list, &c, skylake, &caps, true, false, &plan, &err) != 0) {
		metric_list_free(&list);
		err_clear(&err);
		return;
	}
	for (unsigned i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		values[i] = i % 4 ? 1000.0 * i : 0;
	for (unsigned k = 0; k < plan->n_metrics; k++) {
		const struct metric_plan_metric *m = &plan->metrics[k];
		struct metric_result r;
		struct metric_fit fit;

		if (m->refused != (m->refusal[0] != '\0'))
			fuzz_fail("metric %u: refused %d, reason '%s'", k, m->refused, m->refusal);
		for (unsigned s = 0; s < m->n_slots; s++)
			if (m->event_of_slot[s] >= (int)plan->n_events ||
			    (m->refused && m->event_of_slot[s] >= 0))
				fuzz_fail("metric %u slot %u -> event %d of %u", k, s,
					  m->event_of_slot[s], plan->n_events);
		if (plan->n_events <= sizeof(values) / sizeof(values[0])) {
			metric_plan_eval(plan, t, k, values, &c, &r);
			if (r.valid ? !isfinite(r.value) : !r.why[0])
				fuzz_fail("metric %u: value %g, why '%s'", k, r.value, r.why);
		}
		if (metric_plan_fit(plan, t, k, &caps, 0xf, 0x7, &fit, &err) != 0)
			fuzz_fail("fit failed: %s", err_msg(err));
	}
	metric_plan_free(plan);
	metric_list_free(&list);
	err_clear(&err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct metric_table *t = NULL;
	struct pmustat_error *err = NULL;
	int ret;

	write_input(data, size);
	ret = metric_table_load(fuzz_tmpdir(), "fuzz", &t, &err);
	if (ret != 0) {
		if (t || (ret != -EINVAL && ret != -ENOMEM) || !err_msg(err)[0])
			fuzz_fail("refusal %d with table %p, message '%s'", ret, (void *)t, err_msg(err));
		err_clear(&err);
		return 0;
	}
	for (size_t i = 0; i < metric_table_count(t); i++) {
		const struct metric_desc *d = metric_table_get(t, i);

		if (!d->name || !d->formula || !d->groups || !d->unit || !d->description)
			fuzz_fail("metric %zu: NULL field", i);
		if (metric_table_find(t, d->name) != (long)i ||
		    (d->perf_name && metric_table_find(t, d->perf_name) != (long)i))
			fuzz_fail("metric %zu '%s' not found by its names", i, d->name);
		for (unsigned k = 0; k < d->n_threshold_metrics; k++)
			if (d->threshold_metrics[k] >= metric_table_count(t))
				fuzz_fail("metric %zu: threshold names metric %u", i,
					  d->threshold_metrics[k]);
	}
	if (metric_table_get(t, metric_table_count(t)))
		fuzz_fail("metric_table_get past the end");
	exercise(t);
	metric_table_free(t);
	err_clear(&err);
	return 0;
}
