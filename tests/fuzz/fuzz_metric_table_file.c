/*
 * fuzz_metric_table_file.c - the compiled metric table's reader
 * (metric_table_file_parse), which a run trusts with pointers into a mapped
 * file and with parsed trees it evaluates as they are.
 *
 * Input: a compiled metric table named "fuzz" (seeds: tablec's output for
 * the metric-table seeds). Each input is parsed as it is, then with its
 * checksum rewritten to match (compiled_file_seal), so that mutations
 * reach the checks behind it. A table that loads is walked: every string
 * read, every metric found by its name, every formula and threshold
 * evaluated (no events counted, then every event 1).
 */
#include "fuzz_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "metrics/metric_expr.h"
#include "metrics/metric_table.h"
#include "metrics/metric_table_file.h"

static volatile size_t sink;

static void
evaluate(const struct metric_expr *e, unsigned n)
{
	static double ones[256];
	struct metric_consts consts = { .known = 0 };
	struct metric_env env = { NULL, 0, NULL, &consts };
	struct metric_result r;

	if (!e)
		return;
	if (ones[0] == 0)
		for (size_t i = 0; i < 256; i++)
			ones[i] = 1.0;
	metric_expr_eval(e, &env, &r);
	if (n <= 256) {
		env.events = ones;
		env.n_events = n;
		metric_expr_eval(e, &env, &r);
	}
	sink += r.valid;
}

static void
walk(const struct metric_table *t)
{
	size_t n = metric_table_count(t);

	if (strcmp(metric_table_name(t), "fuzz") != 0)
		fuzz_fail("table identity missing");
	sink += strlen(metric_table_source_file(t)) + strlen(metric_table_tma_version(t));
	for (size_t i = 0; i < n; i++) {
		const struct metric_desc *d = metric_table_get(t, i);

		if (!d || !d->name || !d->formula)
			fuzz_fail("metric %zu: NULL name or formula", i);
		sink += strlen(d->groups) + strlen(d->parent) + strlen(d->category) + strlen(d->unit) +
			strlen(d->description) + strlen(d->formula_text) +
			(d->perf_name ? strlen(d->perf_name) : 0);
		for (unsigned k = 0; k < d->n_events; k++)
			sink += strlen(d->events[k]);
		for (unsigned k = 0; k < d->n_threshold_metrics; k++)
			if (d->threshold_metrics[k] >= n)
				fuzz_fail("metric %zu: threshold metric %u of %zu", i, d->threshold_metrics[k], n);
		if (metric_table_find(t, d->name) < 0)
			fuzz_fail("metric %zu '%s' not found by its own name", i, d->name);
		evaluate(d->formula, d->n_events);
		evaluate(d->threshold, d->n_threshold_metrics);
	}
}

static int
load(const uint8_t *data, size_t size, const char *path, struct pmustat_error **err)
{
	struct metric_table *t = NULL;
	int ret = metric_table_file_parse(data, size, path, "fuzz", &t, err);

	if ((ret == 0) != (t != NULL))
		fuzz_fail("result %d with%s a table", ret, t ? "" : "out");
	if (t)
		walk(t);
	metric_table_free(t);
	return ret;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_compiled(data, size, load);
	return 0;
}
