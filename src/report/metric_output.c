/*
 * metric_output.c - see metric_output.h.
 */
#include "report/metric_output.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

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
 * A value for people: percentages with 2 decimals, whole numbers with
 * thousands separators, else 3 decimals (3 digits when tiny).
 */
static void
format_value(double v, bool percent, char *buf, size_t size)
{
	if (percent) {
		snprintf(buf, size, "%.2f", v);
	} else if (v == floor(v) && fabs(v) < 1e18) {
		if (v < 0)
			snprintf(buf, size, "%.0f", v);
		else
			output_thousands((uint64_t)v, buf, size);
	} else if (fabs(v) < 0.01) {
		snprintf(buf, size, "%.3g", v);
	} else {
		snprintf(buf, size, "%.3f", v);
	}
}

/* -A: the metric on each core, a line each. */
static void
human_per_cpu(FILE *out, const struct metric_row *m, unsigned runs)
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
		fprintf(out, "%-8s%10s %-3s  %-30s%s\n", cpu, value, v->valid ? unit_short(m) : "", m->name, note);
	}
}

void
metric_output_human(FILE *out, const struct metric_row *rows, unsigned n, bool repeat, unsigned runs,
		    bool per_cpu)
{
	if (!n)
		return;
	fprintf(out, " Metrics (each from the events of one run):\n\n");
	for (unsigned i = 0; i < n; i++) {
		if (per_cpu && rows[i].per_cpu)
			human_per_cpu(out, &rows[i], runs);
		else
			metric_output_human_row(out, &rows[i], repeat, runs);
	}
	fprintf(out, "\n");
}

void
metric_output_human_row(FILE *out, const struct metric_row *m, bool repeat, unsigned runs)
{
	char value[64], note[METRIC_ROW_WHY_MAX + 64] = "";
	bool percent = m->unit && strcmp(m->unit, "percent") == 0;

	if (m->valid)
		format_value(m->value, percent, value, sizeof(value));
	else
		snprintf(value, sizeof(value), "-");
	if (!m->valid)
		snprintf(note, sizeof(note), "  (no value: %s)", m->why);
	else if (m->run && runs > 1)
		snprintf(note, sizeof(note), "  (run %u)", m->run);
	if (m->valid && m->flagged == 1)
		snprintf(note + strlen(note), sizeof(note) - strlen(note), "  <== past Intel's threshold (%s)",
			 m->threshold ? m->threshold : "?");
	fprintf(out, "%18s %-3s  %-30s%s\n", value, m->valid ? unit_short(m) : "", m->name, note);
	if (repeat && m->nvalues > 0) {
		char mean[64], min[64], max[64], sd[64];

		format_value(m->mean, percent, mean, sizeof(mean));
		format_value(m->min, percent, min, sizeof(min));
		format_value(m->max, percent, max, sizeof(max));
		format_value(m->stddev, percent, sd, sizeof(sd));
		fprintf(out, "%18s       %u run%s: median %s  mean %s  min %s  max %s  stddev %s\n", "",
			m->nvalues, m->nvalues == 1 ? "" : "s", value, mean, min, max, sd);
	}
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

static void
csv_num(FILE *out, const char *sep, double v,
	void (*field)(FILE *out, const char *sep, bool first, const char *text))
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.17g", v);
	field(out, sep, false, buf);
}

/* The fields every metric record has: value (empty: none), unit, name. */
static void
csv_value_unit_name(FILE *out, const char *sep, const struct metric_row *m, bool valid, double value,
		    void (*field)(FILE *out, const char *sep, bool first, const char *text))
{
	if (valid)
		csv_num(out, sep, value, field);
	else
		field(out, sep, false, "");
	field(out, sep, false, m->unit ? m->unit : "");
	field(out, sep, false, m->name);
}

/* -A: "CPU3" SEP "metric" SEP value SEP unit SEP name SEP run SEP status SEP "" per core. */
static void
csv_per_cpu(FILE *out, const struct metric_row *m, const char *sep,
	    void (*field)(FILE *out, const char *sep, bool first, const char *text))
{
	for (unsigned c = 0; c < m->ncpus; c++) {
		const struct metric_cpu_value *v = &m->per_cpu[c];
		char buf[16];

		snprintf(buf, sizeof(buf), "CPU%d", v->cpu);
		field(out, sep, true, buf);
		field(out, sep, false, "metric");
		csv_value_unit_name(out, sep, m, v->valid, v->value, field);
		snprintf(buf, sizeof(buf), "%u", m->run);
		field(out, sep, false, buf);
		field(out, sep, false, v->valid ? "counted" : v->why);
		field(out, sep, false, "");
		fputc('\n', out);
	}
}

void
metric_output_csv(FILE *out, const struct metric_row *rows, unsigned n, const char *sep, bool repeat,
		  bool per_cpu, void (*field)(FILE *out, const char *sep, bool first, const char *text))
{
	for (unsigned i = 0; i < n; i++) {
		const struct metric_row *m = &rows[i];
		char run[16];

		if (per_cpu && m->per_cpu) {
			csv_per_cpu(out, m, sep, field);
			continue;
		}

		field(out, sep, true, "metric");
		csv_value_unit_name(out, sep, m, m->valid, m->value, field);
		snprintf(run, sizeof(run), "%u", m->run);
		field(out, sep, false, run);
		field(out, sep, false, m->valid ? "counted" : m->why);
		field(out, sep, false, m->flagged < 0 ? "" : m->flagged ? "1" : "0");
		if (repeat) {
			snprintf(run, sizeof(run), "%u", m->nvalues);
			field(out, sep, false, run);
			if (m->nvalues) {
				csv_num(out, sep, m->mean, field);
				csv_num(out, sep, m->value, field);
				csv_num(out, sep, m->min, field);
				csv_num(out, sep, m->max, field);
				csv_num(out, sep, m->stddev, field);
			} else {
				for (unsigned k = 0; k < 5; k++)
					field(out, sep, false, "");
			}
		}
		fputc('\n', out);
	}
}

void
metric_output_interval_csv(FILE *out, double time, unsigned round, unsigned run, const struct metric_row *rows,
			   unsigned n, const char *sep,
			   void (*field)(FILE *out, const char *sep, bool first, const char *text))
{
	for (unsigned i = 0; i < n; i++) {
		const struct metric_row *m = &rows[i];
		char buf[32];

		field(out, sep, true, "interval-metric");
		snprintf(buf, sizeof(buf), "%.6f", time);
		field(out, sep, false, buf);
		snprintf(buf, sizeof(buf), "%u", round);
		field(out, sep, false, buf);
		snprintf(buf, sizeof(buf), "%u", run);
		field(out, sep, false, buf);
		csv_value_unit_name(out, sep, m, m->valid, m->value, field);
		field(out, sep, false, m->valid ? "counted" : m->why);
		field(out, sep, false, m->flagged < 0 ? "" : m->flagged ? "1" : "0");
		fputc('\n', out);
	}
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
