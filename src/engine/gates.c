/*
 * gates.c - see gates.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/exit_codes.h"
#include "base/invoker.h"
#include "engine/gates.h"
#include "engine/interval.h"
#include "engine/regions.h"
#include "engine/target.h"
#include "events/event.h"
#include "report/metric_output.h"
#include "report/output.h"

int
gates_prepare(struct gates *g, const struct stat_opts *o, const struct target *t, const struct invoker *inv,
	      struct pmustat_error **err)
{
	const struct baseline *b = &g->baseline;
	const char *table = t->table_rc == 0 ? t->choice.table : "";
	struct invoker_fs fs;
	int rc;

	/* Opened now (as the invoking user), written only when the run succeeds. */
	if (o->save_baseline) {
		rc = outfile_open(&g->baseline_file, "--save-baseline", o->save_baseline, inv, err);
		if (rc)
			return rc;
		g->baseline_open = true;
	}
	if (!o->baseline)
		return 0;
	/* Read with the invoking user's rights: root's files are not theirs to compare with. */
	rc = invoker_fs_enter(inv, &fs, err);
	if (rc == 0) {
		rc = baseline_load(o->baseline, &g->baseline, err);
		invoker_fs_leave(&fs);
	}
	if (rc)
		return rc;
	/* Simulated and hardware counts never compare, whatever --allow-cpu-mismatch says. */
	if ((strcmp(b->backend, "sim") == 0) != (o->backend == BACKEND_SIM))
		return err_set(err, -EINVAL,
			       "baseline %s holds %s counts (backend %s), this run counts %s (backend %s): simulated and hardware counts do not compare; record the baseline with %s",
			       o->baseline, strcmp(b->backend, "sim") == 0 ? "simulated" : "hardware",
			       b->backend[0] ? b->backend : "msr or perf", o->backend == BACKEND_SIM ? "simulated" : "hardware",
			       backend_name(o->backend), o->backend == BACKEND_SIM ? "--backend sim" : "a hardware backend");
	/* The simulation does not depend on the CPU that ran it. */
	if (o->allow_cpu_mismatch || o->backend == BACKEND_SIM)
		return 0;
	if (strcmp(b->cpu_model, t->key) != 0)
		return err_set(err, -EINVAL,
			       "baseline %s was recorded on %s (%s), this is %s (%s): counts of different CPU models do not compare; record a baseline on this CPU, or pass --allow-cpu-mismatch",
			       o->baseline, b->cpu_model, b->cpu[0] ? b->cpu : "?", t->key, t->label);
	if (strcmp(b->event_table, table) != 0)
		return err_set(err, -EINVAL,
			       "baseline %s was counted with event table '%s', this run uses '%s': the same names may not be the same events; record a baseline with this table, or pass --allow-cpu-mismatch",
			       o->baseline, b->event_table[0] ? b->event_table : "(none)", table[0] ? table : "(none)");
	return 0;
}

struct rows_view {
	const struct stat_row *rows;
	unsigned nrows;
	const struct region_report *regions;
	const struct metric_row *metrics;
	unsigned nmetrics;
};

/* @agg of a row's, a region's or a metric's statistics over the rounds (the median by default). */
static double
pick(enum check_agg agg, double median, double mean, double min, double max)
{
	switch (agg) {
	case CHECK_AGG_MEAN:
		return mean;
	case CHECK_AGG_MIN:
		return min;
	case CHECK_AGG_MAX:
		return max;
	default:
		return median;
	}
}

/* @agg of counts summarised in @st. */
static double
aggregate(const struct stats_summary *st, enum check_agg agg)
{
	return pick(agg, st->median, st->mean, (double)st->min, (double)st->max);
}

/*
 * --check's view of a row: @agg of its counts; else with --regions of a
 * region's row (REGION:EVENT); else of a metric's values (-M).
 */
static int
lookup_event(void *ctx, const char *event, enum check_agg agg, double *value)
{
	const struct rows_view *v = ctx;
	const struct region_value *rv;
	const struct metric_row *m;

	for (unsigned i = 0; i < v->nrows; i++) {
		const struct stat_row *row = &v->rows[i];

		if (!check_event_matches(event, row->ev->requested, row->ev->name))
			continue;
		if (!row->counted || row->nvalues == 0)
			return -ENOENT;
		*value = aggregate(&row->stats, agg);
		return 0;
	}
	rv = regions_lookup(v->regions, v->rows, v->nrows, event);
	if (rv) {
		if (!rv->counted)
			return -ENOENT;
		*value = aggregate(&rv->stats, agg);
		return 0;
	}
	m = metric_row_named(v->metrics, v->nmetrics, event);
	if (!m || !m->valid)
		return -ENOENT;
	/* A metric with a value has the statistics of at least one round; value is their median. */
	*value = pick(agg, m->value, m->mean, m->min, m->max);
	return 0;
}

int
gates_evaluate(struct gates *g, const struct stat_opts *o, const struct stat_row *rows, unsigned nrows,
	       const struct region_report *regions, const struct metric_row *metrics, unsigned nmetrics, int *status,
	       struct pmustat_error **err)
{
	struct rows_view view = { rows, nrows, regions, metrics, nmetrics };
	struct baseline_event *cur;

	g->evaluated = true;
	for (unsigned k = 0; k < o->nchecks; k++) {
		check_eval(&o->checks[k], lookup_event, &view, &g->results[k]);
		if (!g->results[k].passed)
			g->failed = true;
	}
	if (o->baseline) {
		size_t ncur = nrows + (size_t)(regions ? regions->nregions : 0) * nrows + nmetrics;
		unsigned n = 0;

		cur = calloc(ncur ? ncur : 1, sizeof(*cur));
		g->cmp = calloc(ncur ? ncur : 1, sizeof(*g->cmp));
		if (!cur || !g->cmp) {
			free(cur);
			g->evaluated = false;
			return err_set(err, -ENOMEM, "out of memory");
		}
		for (unsigned i = 0; i < nrows; i++, n++) {
			snprintf(cur[n].name, sizeof(cur[n].name), "%s", rows[i].ev->name);
			snprintf(cur[n].requested, sizeof(cur[n].requested), "%s", rows[i].ev->requested);
			cur[n].counted = rows[i].counted && rows[i].nvalues > 0;
			cur[n].value = rows[i].stats.median;
		}
		/* REGION:EVENT, compared like events when the baseline has them too. */
		for (unsigned k = 0; regions && k < regions->nregions; k++) {
			const struct region_out *reg = &regions->regions[k];

			for (unsigned i = 0; i < nrows; i++) {
				if (!reg->ev[i].applies)
					continue;
				baseline_region_name(cur[n].name, sizeof(cur[n].name), reg->name, rows[i].ev->name);
				baseline_region_name(cur[n].requested, sizeof(cur[n].requested), reg->name,
						     rows[i].ev->requested);
				cur[n].counted = reg->ev[i].counted;
				cur[n].value = reg->ev[i].stats.median;
				n++;
			}
		}
		/* -M's metrics by name, their values (with -r the median) compared like counts. */
		for (unsigned k = 0; metrics && k < nmetrics; k++, n++) {
			snprintf(cur[n].name, sizeof(cur[n].name), "%s", metrics[k].name);
			snprintf(cur[n].requested, sizeof(cur[n].requested), "%s", metrics[k].name);
			cur[n].counted = metrics[k].valid;
			cur[n].value = metrics[k].value;
		}
		g->ncmp = n;
		if (baseline_compare(&g->baseline, cur, n, &o->tolerances, g->cmp))
			g->failed = true;
		free(cur);
	}
	/* The command's own failure wins; a gate only turns a 0 into EXIT_GATE_FAILED. */
	if (g->failed && *status == 0)
		*status = EXIT_GATE_FAILED;
	return 0;
}

int
gates_save_baseline(struct gates *g, const struct stat_opts *o, const struct stat_report *rep, bool ran,
		    int status, FILE *notes, struct pmustat_error **err)
{
	struct stat_report copy = *rep;

	if (!g->baseline_open)
		return 0;
	g->baseline_open = false;
	if (!ran || status != 0) {
		if (notes)
			fprintf(notes, "pmustat: --save-baseline %s: not written: %s\n", o->save_baseline,
				ran ? "the run failed (exit status not 0)" : "nothing was counted");
		outfile_abort(&g->baseline_file);
		return 0;
	}
	copy.json_one_line = false;
	if (output_json(g->baseline_file.f, &copy) != 0 && !ferror(g->baseline_file.f)) {
		outfile_abort(&g->baseline_file);
		return err_set(err, -ENOMEM, "--save-baseline %s: out of memory; the file was left as it was",
			       o->save_baseline);
	}
	return outfile_commit(&g->baseline_file, err);
}

void
gates_free(struct gates *g)
{
	if (g->baseline_open)
		outfile_abort(&g->baseline_file);
	g->baseline_open = false;
	free(g->cmp);
	g->cmp = NULL;
}
