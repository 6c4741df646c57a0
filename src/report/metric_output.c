/*
 * metric_output.c - see metric_output.h.
 */
#include "report/metric_output.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "report/csv_records.h"
#include "report/json_text.h"
#include "report/output.h"

int
metric_name_matches(const char *query, const char *name)
{
	const char *area, *rest;

	if (strcasecmp(query, name) == 0)
		return 2;
	if (strncasecmp(name, "Info_", 5) != 0)
		return 0;
	area = name + 5;
	rest = strchr(area, '_');
	return rest && rest > area && strcasecmp(rest + 1, query) == 0 ? 1 : 0;
}

const struct metric_row *
metric_row_named(const struct metric_row *rows, unsigned n, const char *query)
{
	const struct metric_row *alias = NULL;
	unsigned aliases = 0;

	for (unsigned i = 0; i < n; i++) {
		int how = metric_name_matches(query, rows[i].name);

		if (how == 2)
			return &rows[i];
		if (how == 1) {
			alias = &rows[i];
			aliases++;
		}
	}
	return aliases == 1 ? alias : NULL;
}

/* "%" for percent, the unit's words otherwise. */
static const char *
unit_short(const struct metric_row *m)
{
	if (!m->unit || !m->unit[0])
		return "";
	return strcmp(m->unit, "percent") == 0 ? "%" : m->unit;
}

/*
 * A value for people: percentages with 2 decimals; ratios with 3 (an IPC
 * of exactly 2 is "2.000", in line with "1.250"), 3 digits when tiny;
 * from a million on, whole with thousands separators.
 */
static void
format_value(double v, bool percent, char *buf, size_t size)
{
	if (percent) {
		snprintf(buf, size, "%.2f", v);
	} else if (fabs(v) >= 1e6 && fabs(v) < 1e18) {
		if (v < 0)
			snprintf(buf, size, "%.0f", v);
		else
			output_thousands((uint64_t)(v + 0.5), buf, size);
	} else if (v != 0 && fabs(v) < 0.01) {
		snprintf(buf, size, "%.3g", v);
	} else {
		snprintf(buf, size, "%.3f", v);
	}
}

int
metric_output_unit_width(const struct metric_row *rows, unsigned n)
{
	size_t w = 3;

	for (unsigned i = 0; i < n; i++)
		if (strlen(unit_short(&rows[i])) > w)
			w = strlen(unit_short(&rows[i]));
	return (int)w;
}

/* -A: the metric on each core, a line each. */
static void
human_per_cpu(FILE *out, const struct metric_row *m, unsigned runs, int unit_width)
{
	bool percent = m->unit && strcmp(m->unit, "percent") == 0;

	for (unsigned c = 0; c < m->ncpus; c++) {
		const struct metric_cpu_value *v = &m->per_cpu[c];
		char cpu[16], value[64], note[METRIC_ROW_WHY_MAX + 64] = "";

		snprintf(cpu, sizeof(cpu), "CPU%d", v->cpu);
		if (v->valid)
			format_value(v->value, percent, value, sizeof(value));
		else
			snprintf(value, sizeof(value), "-");
		if (!v->valid)
			snprintf(note, sizeof(note), "  (no value: %s)", v->why);
		else if (m->run && runs > 1)
			snprintf(note, sizeof(note), "  (run %u)", m->run);
		fprintf(out, "%-8s%10s %-*s  %-30s%s\n", cpu, value, unit_width, v->valid ? unit_short(m) : "", m->name,
			note);
	}
}

void
metric_output_human(FILE *out, const struct metric_row *rows, unsigned n, bool repeat, unsigned runs,
		    bool per_cpu)
{
	int unit_width = metric_output_unit_width(rows, n);

	if (!n)
		return;
	fprintf(out, " Metrics (each from the events of one run):\n\n");
	for (unsigned i = 0; i < n; i++) {
		if (per_cpu && rows[i].per_cpu)
			human_per_cpu(out, &rows[i], runs, unit_width);
		else
			metric_output_human_row(out, &rows[i], repeat, runs, unit_width);
	}
	fprintf(out, "\n");
}

void
metric_output_human_row(FILE *out, const struct metric_row *m, bool repeat, unsigned runs, int unit_width)
{
	char value[64], note[METRIC_ROW_WHY_MAX + 64] = "";
	bool percent = m->unit && strcmp(m->unit, "percent") == 0;
	bool stats = repeat && m->nvalues > 0;

	/* With -r, perf's figure: the mean, and the standard error of the mean relative to it. */
	if (m->valid)
		format_value(stats ? m->mean : m->value, percent, value, sizeof(value));
	else
		snprintf(value, sizeof(value), "-");
	if (!m->valid)
		snprintf(note, sizeof(note), "  (no value: %s)", m->why);
	else if (m->run && runs > 1)
		snprintf(note, sizeof(note), "  (run %u)", m->run);
	/* Not for a spread that only rounding of equal values made. */
	if (m->valid && stats && m->nvalues > 1 && m->mean != 0 &&
	    100.0 * m->stddev / sqrt((double)m->nvalues) / fabs(m->mean) >= 0.005)
		snprintf(note + strlen(note), sizeof(note) - strlen(note), "  ( +-%6.2f%% )",
			 100.0 * m->stddev / sqrt((double)m->nvalues) / fabs(m->mean));
	if (m->valid && m->flagged == 1)
		snprintf(note + strlen(note), sizeof(note) - strlen(note), "  <== past Intel's threshold (%s)",
			 m->threshold ? m->threshold : "?");
	if (note[0])
		fprintf(out, "%18s %-*s  %-30s%s\n", value, unit_width, m->valid ? unit_short(m) : "", m->name, note);
	else
		fprintf(out, "%18s %-*s  %s\n", value, unit_width, m->valid ? unit_short(m) : "", m->name);
}

void
metric_output_interval_human(FILE *out, double time, const struct metric_row *rows, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		const struct metric_row *m = &rows[i];
		char value[64];

		if (m->valid)
			format_value(m->value, m->unit && strcmp(m->unit, "percent") == 0, value, sizeof(value));
		else
			snprintf(value, sizeof(value), "-");
		fprintf(out, "%14.6f %18s %-3s  %s%s%s%s\n", time, value, m->valid ? unit_short(m) : "", m->name,
			m->valid ? "" : "  (no value: ", m->valid ? "" : m->why, m->valid ? "" : ")");
	}
}

/* A metric's status: "counted" with a value, else "not_counted" and why (the reason field). */
static void
csv_status(struct csv_writer *w, bool valid, const char *why)
{
	csv_text(w, valid ? "counted" : "not_counted");
	csv_text(w, valid ? "" : why);
}

static void
csv_value(struct csv_writer *w, bool valid, double v)
{
	if (valid)
		csv_plain(w, v);
	else
		csv_text(w, "");
}

/* The record (csv_records.h): cpu, value, unit, name, run, status, reason, flagged, then -r's statistics. */
void
metric_output_csv(struct csv_writer *w, const struct metric_row *rows, unsigned n, bool repeat, bool per_cpu)
{
	for (unsigned i = 0; i < n; i++) {
		const struct metric_row *m = &rows[i];
		bool stats = repeat && m->valid && m->nvalues > 0;

		for (unsigned c = 0; per_cpu && m->per_cpu && c < m->ncpus; c++) {
			const struct metric_cpu_value *v = &m->per_cpu[c];

			csv_begin(w, CSV_METRIC);
			csv_printf(w, "CPU%d", v->cpu);
			csv_value(w, v->valid, v->value);
			csv_text(w, m->unit ? m->unit : "");
			csv_text(w, m->name);
			csv_printf(w, "%u", m->run);
			csv_status(w, v->valid, v->why);
			csv_end(w);
		}
		if (per_cpu && m->per_cpu)
			continue;
		csv_begin(w, CSV_METRIC);
		csv_text(w, "");
		/* With -r perf's figure, the mean; the median follows. */
		csv_value(w, m->valid, stats ? m->mean : m->value);
		csv_text(w, m->unit ? m->unit : "");
		csv_text(w, m->name);
		csv_printf(w, "%u", m->run);
		csv_status(w, m->valid, m->why);
		csv_text(w, m->flagged < 0 ? "" : m->flagged ? "1" : "0");
		if (stats) {
			csv_printf(w, "%u", m->nvalues);
			csv_plain(w, m->mean);
			csv_plain(w, m->value);
			csv_plain(w, m->min);
			csv_plain(w, m->max);
			csv_plain(w, m->stddev);
			csv_plain(w, m->mean != 0 ? 100.0 * m->stddev / sqrt((double)m->nvalues) / fabs(m->mean) : 0);
		}
		csv_end(w);
	}
}

void
metric_output_interval_csv(struct csv_writer *w, double time, unsigned round, unsigned run,
			   const struct metric_row *rows, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		const struct metric_row *m = &rows[i];

		csv_begin(w, CSV_INTERVAL_METRIC);
		csv_printf(w, "%.6f", time);
		csv_printf(w, "%u", round);
		csv_printf(w, "%u", run);
		csv_value(w, m->valid, m->value);
		csv_text(w, m->unit ? m->unit : "");
		csv_text(w, m->name);
		csv_status(w, m->valid, m->why);
		csv_text(w, m->flagged < 0 ? "" : m->flagged ? "1" : "0");
		csv_end(w);
	}
}

void
metric_output_region_csv(struct csv_writer *w, const char *region, const struct metric_row *m)
{
	csv_begin(w, CSV_REGION_METRIC);
	csv_text(w, region);
	csv_value(w, m->valid, m->value);
	csv_text(w, m->unit ? m->unit : "");
	csv_text(w, m->name);
	csv_printf(w, "%u", m->run);
	csv_status(w, m->valid, m->why);
	csv_text(w, m->flagged < 0 ? "" : m->flagged ? "1" : "0");
	csv_end(w);
}

json_t *
metric_output_json(const struct metric_row *rows, unsigned n, bool repeat)
{
	json_t *a = json_array();

	for (unsigned i = 0; a && i < n; i++) {
		const struct metric_row *m = &rows[i];
		json_t *o = json_object();

		if (!o) {
			json_decref(a);
			return NULL;
		}
		json_object_set_new(o, "name", json_text(m->name));
		json_object_set_new(o, "value", m->valid ? json_real(m->value) : json_null());
		json_object_set_new(o, "reason", m->valid ? json_null() : json_text(m->why));
		json_object_set_new(o, "unit", m->unit && m->unit[0] ? json_text(m->unit) : json_null());
		json_object_set_new(o, "group", json_text(m->groups ? m->groups : ""));
		json_object_set_new(o, "threshold", m->threshold ? json_text(m->threshold) : json_null());
		json_object_set_new(o, "flagged", m->flagged < 0 ? json_null() : json_boolean(m->flagged));
		json_object_set_new(o, "run", m->run ? json_integer(m->run) : json_null());
		if (repeat && m->nvalues)
			json_object_set_new(o, "stats", json_pack("{s:I, s:f, s:f, s:f, s:f, s:f}", "n",
								  (json_int_t)m->nvalues, "mean", m->mean, "median",
								  m->value, "min", m->min, "max", m->max, "stddev",
								  m->stddev));
		else
			json_object_set_new(o, "stats", json_null());
		if (m->per_cpu) {
			json_t *pc = json_array();

			for (unsigned c = 0; pc && c < m->ncpus; c++) {
				const struct metric_cpu_value *v = &m->per_cpu[c];

				json_array_append_new(pc, json_pack("{s:I, s:o, s:o}", "cpu", (json_int_t)v->cpu, "value",
								    v->valid ? json_real(v->value) : json_null(), "reason",
								    v->valid ? json_null() : json_text(v->why)));
			}
			json_object_set_new(o, "per_cpu", pc ? pc : json_null());
		}
		json_array_append_new(a, o);
	}
	return a;
}
