/*
 * region_output.c - see region_output.h.
 */
#include "report/csv_records.h"
#include "report/region_output.h"

#include <string.h>

#include "events/event.h"
#include "report/metric_output.h"
#include "report/json_text.h"
#include "report/output.h"

void
region_output_human(FILE *out, const struct region_report *r, const struct stat_row *rows, unsigned nrows,
		    bool repeat)
{
	if (!r->attached) {
		fprintf(out, " Regions: none; the command did not use libpmustat-region (not linked, or built without -DPMUSTAT_REGIONS).\n\n");
		return;
	}
	if (r->nregions == 0) {
		fprintf(out, " Regions: none; the command began and ended no region.\n\n");
		return;
	}
	fprintf(out, " Regions%s:\n\n", repeat ? " (medians of the rounds)" : "");
	for (unsigned i = 0; i < r->nregions; i++) {
		const struct region_out *g = &r->regions[i];
		char calls[40];

		output_thousands(g->calls, calls, sizeof(calls));
		fprintf(out, " %s%s: %s call%s", g->name, g->truncated ? "..." : "", calls, g->calls == 1 ? "" : "s");
		if (g->threads > 1)
			fprintf(out, " in %u threads", g->threads);
		fprintf(out, "\n");
		for (unsigned k = 0; k < nrows; k++) {
			char value[40];

			if (!g->ev[k].applies)
				continue;
			if (g->ev[k].counted)
				output_thousands(g->ev[k].value, value, sizeof(value));
			else
				snprintf(value, sizeof(value), "<not counted>");
			fprintf(out, "%18s      %s\n", value, output_row_label(&rows[k]).text);
		}
		for (unsigned m = 0; m < g->nmetrics; m++)
			metric_output_human_row(out, &g->metrics[m], repeat, r->runs,
						metric_output_unit_width(g->metrics, g->nmetrics));
		if (r->per_thread && !g->per_thread)
			fprintf(out, "%24s per thread: none, the events took %u runs of the command (its threads differ from run to run)\n",
				"", r->runs);
		for (unsigned t = 0; r->per_thread && g->per_thread && t < g->nper_thread; t++) {
			const struct region_thread_out *th = &g->per_thread[t];

			output_thousands(th->calls, calls, sizeof(calls));
			fprintf(out, "%24s thread %d: %s call%s", "", th->tid, calls, th->calls == 1 ? "" : "s");
			for (unsigned k = 0; k < nrows; k++) {
				char value[40];

				if (!g->ev[k].applies || !th->counted[k])
					continue;
				output_thousands(th->sums[k], value, sizeof(value));
				fprintf(out, ", %s %s", value, output_row_label(&rows[k]).text);
			}
			fprintf(out, "\n");
		}
		fprintf(out, "\n");
	}
}

/* -A: a region's thread, a record per event. */
static void
thread_csv(struct csv_writer *w, const struct region_out *g, const struct region_thread_out *th,
	   const struct stat_row *rows, unsigned nrows)
{
	for (unsigned k = 0; k < nrows; k++) {
		if (!g->ev[k].applies)
			continue;
		csv_begin(w, CSV_REGION_THREAD);
		csv_text(w, g->name);
		csv_printf(w, "%d", th->tid);
		csv_printf(w, "%llu", (unsigned long long)th->calls);
		if (th->counted[k])
			csv_printf(w, "%llu", (unsigned long long)th->sums[k]);
		else
			csv_text(w, "<not counted>");
		csv_text(w, output_row_label(&rows[k]).text);
		csv_text(w, rows[k].ev->name);
		csv_end(w);
	}
}

void
region_output_csv(struct csv_writer *w, const struct region_report *r, const struct stat_row *rows, unsigned nrows)
{
	for (unsigned i = 0; i < r->nregions; i++) {
		const struct region_out *g = &r->regions[i];

		for (unsigned k = 0; k < nrows; k++) {
			if (!g->ev[k].applies)
				continue;
			csv_begin(w, CSV_REGION);
			csv_text(w, g->name);
			csv_printf(w, "%llu", (unsigned long long)g->calls);
			if (g->ev[k].counted)
				csv_printf(w, "%llu", (unsigned long long)g->ev[k].value);
			else
				csv_text(w, "<not counted>");
			csv_text(w, output_row_label(&rows[k]).text);
			csv_text(w, rows[k].ev->name);
			csv_end(w);
		}
		for (unsigned t = 0; r->per_thread && g->per_thread && t < g->nper_thread; t++)
			thread_csv(w, g, &g->per_thread[t], rows, nrows);
		for (unsigned m = 0; m < g->nmetrics; m++)
			metric_output_region_csv(w, g->name, &g->metrics[m]);
	}
}

static json_t *
value_json(const struct region_value *v, const struct stat_row *row)
{
	json_t *o = json_object(), *values = json_array();

	if (!o || !values) {
		json_decref(o);
		json_decref(values);
		return NULL;
	}
	for (unsigned i = 0; i < v->nvalues; i++)
		json_array_append_new(values, json_integer((json_int_t)v->values[i]));
	json_object_set_new(o, "name", json_text(row->ev->name));
	json_object_set_new(o, "requested", json_text(row->ev->requested));
	json_object_set_new(o, "value", v->counted ? json_integer((json_int_t)v->value) : json_null());
	json_object_set_new(o, "values", values);
	json_object_set_new(o, "stats", output_json_stats(&v->stats, v->nvalues));
	return o;
}

static json_t *
threads_json(const struct region_out *g, const struct stat_row *rows, unsigned nrows)
{
	json_t *a;

	if (!g->per_thread)
		return json_null();
	a = json_array();
	for (unsigned t = 0; a && t < g->nper_thread; t++) {
		const struct region_thread_out *th = &g->per_thread[t];
		json_t *o = json_object(), *ev = json_array();

		if (!o || !ev) {
			json_decref(o);
			json_decref(ev);
			break;
		}
		for (unsigned k = 0; k < nrows; k++) {
			json_t *e;

			if (!g->ev[k].applies || !(e = json_object()))
				continue;
			json_object_set_new(e, "name", json_text(rows[k].ev->name));
			json_object_set_new(e, "requested", json_text(rows[k].ev->requested));
			json_object_set_new(e, "value", th->counted[k] ? json_integer((json_int_t)th->sums[k]) : json_null());
			json_array_append_new(ev, e);
		}
		json_object_set_new(o, "tid", json_integer(th->tid));
		json_object_set_new(o, "calls", json_integer((json_int_t)th->calls));
		json_object_set_new(o, "events", ev);
		json_array_append_new(a, o);
	}
	return a;
}

json_t *
region_output_json(const struct region_report *r, const struct stat_row *rows, unsigned nrows)
{
	json_t *a = json_array();

	for (unsigned i = 0; a && i < r->nregions; i++) {
		const struct region_out *g = &r->regions[i];
		json_t *o = json_object(), *ev = json_array();

		if (!o || !ev) {
			json_decref(o);
			json_decref(ev);
			json_decref(a);
			return NULL;
		}
		for (unsigned k = 0; k < nrows; k++)
			if (g->ev[k].applies)
				json_array_append_new(ev, value_json(&g->ev[k], &rows[k]));
		json_object_set_new(o, "name", json_text(g->name));
		json_object_set_new(o, "truncated", json_boolean(g->truncated));
		json_object_set_new(o, "calls", json_integer((json_int_t)g->calls));
		json_object_set_new(o, "threads", json_integer(g->threads));
		json_object_set_new(o, "events", ev);
		json_object_set_new(o, "per_thread", threads_json(g, rows, nrows));
		if (r->with_metrics)
			json_object_set_new(o, "metrics", metric_output_json(g->metrics, g->nmetrics, r->repeat));
		json_array_append_new(a, o);
	}
	return a;
}
