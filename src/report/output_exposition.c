/*
 * output_exposition.c - a stat run's result in Prometheus's text
 * exposition format (0.0.4) or OpenMetrics 1.0 text (output.h says what
 * each sample is; man/pmustat.1, OUTPUT FORMATS, is the contract).
 *
 * Counters are raw monotonic totals, never rates: whatever reads them
 * takes rate() itself. A row that did not count has no counter sample,
 * only its validity gauge at 0 with the reason, never a zero that looks
 * like a count.
 */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "events/event.h"
#include "report/json_text.h"
#include "report/label.h"
#include "report/metric_output.h"
#include "report/output.h"

#define FAMILY_MAX (EVENT_NAME_MAX + 32)

/* @s with every character outside [a-z0-9] as one '_' (runs collapsed, none at the ends), lower case. */
static void
sanitize(const char *s, size_t n, char *buf, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < n && s[i] && o + 1 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		if (isalnum(c) && c < 0x80)
			buf[o++] = (char)tolower(c);
		else if (o && buf[o - 1] != '_')
			buf[o++] = '_';
	}
	while (o && buf[o - 1] == '_')
		o--;
	buf[o] = '\0';
}

/* The length of @name without a trailing ring modifier (":u", ":k", ":uk", ":ku"): the mode label carries it. */
static size_t
without_ring(const char *name)
{
	const char *colon = strrchr(name, ':');
	size_t n = strlen(name);

	if (colon && colon[1] && strspn(colon + 1, "uk") == strlen(colon + 1) && strlen(colon + 1) <= 2)
		return (size_t)(colon - name);
	return n;
}

static bool
row_in_seconds(const struct stat_row *row)
{
	return row->unit && strcmp(row->unit, "ns") == 0;
}

/*
 * The family of @row: "pmustat_" and the name as asked for, sanitized,
 * then "_seconds" for a clock (nanoseconds become seconds). The counter's
 * samples add "_total".
 */
static void
row_family(const struct stat_row *row, char *buf, size_t size)
{
	const char *name = row->ev->requested[0] ? row->ev->requested : row->ev->name;
	char base[EVENT_NAME_MAX];

	static const char *const reserved[] = { "info", "runs", "metric", "metric_valid", "exit_status",
						"elapsed_seconds", "event_valid", "run_median", "run_mean",
						"run_min", "run_max", "run_stddev" };

	sanitize(name, without_ring(name), base, sizeof(base));
	/* pmustat's own families keep their names: an event spelled like one gets "_event". */
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (strcmp(base, reserved[i]) == 0)
			snprintf(base + strlen(base), sizeof(base) - strlen(base), "_event");
	snprintf(buf, size, "pmustat_%s%s", base[0] ? base : "event", row_in_seconds(row) ? "_seconds" : "");
}

/*
 * @s as exposition text: valid UTF-8 (json_text's repair), '\\' and line
 * breaks escaped, and '"' when @quote (label values; OpenMetrics' HELP).
 */
static void
escaped(struct strbuf *b, const char *s, bool quote)
{
	json_t *j = json_text(s ? s : "");
	const char *t = j ? json_string_value(j) : "";

	for (; t && *t; t++) {
		if (*t == '\\' || (*t == '"' && quote))
			strbuf_printf(b, "\\%c", *t);
		else if (*t == '\n')
			strbuf_printf(b, "\\n");
		else
			strbuf_printf(b, "%c", *t);
	}
	json_decref(j);
}

static void
label(struct strbuf *b, const char *name, const char *value)
{
	strbuf_printf(b, "%s%s=\"", b->len ? "," : "", name);
	escaped(b, value, true);
	strbuf_printf(b, "\"");
}

/* The command line, words separated by spaces. */
static void
command_text(const struct stat_report *rep, struct strbuf *b)
{
	for (unsigned i = 0; rep->command && rep->command[i]; i++)
		strbuf_printf(b, "%s%s", i ? " " : "", rep->command[i]);
}

/* The labels every sample of @row carries; @cpu >= 0: that core's (-A). */
static void
row_labels(const struct stat_report *rep, const struct stat_row *row, int cpu, const char *pmu, struct strbuf *b)
{
	if (cpu >= 0) {
		char n[16];

		snprintf(n, sizeof(n), "%d", cpu);
		label(b, "cpu", n);
	}
	label(b, "event", row->ev->name[0] ? row->ev->name : row->ev->requested);
	label(b, "mode", label_privilege(row->ev));
	label(b, "pmu", row->ev->flags & EVENT_F_SOFTWARE || row->unit ? "software" : pmu);
	label(b, "backend", rep->backend ? rep->backend : "none");
	if (rep->command) {
		struct strbuf c = STRBUF_INIT;

		command_text(rep, &c);
		label(b, "command", strbuf_str(&c));
		strbuf_free(&c);
	}
	if (rep->npids) {
		struct strbuf p = STRBUF_INIT;

		for (unsigned i = 0; i < rep->npids; i++)
			strbuf_printf(&p, "%s%d", i ? "," : "", (int)rep->pids[i]);
		label(b, "pid", strbuf_str(&p));
		strbuf_free(&p);
	}
}

/*
 * A family's metadata: HELP, TYPE, (OpenMetrics) UNIT. Prometheus's format
 * names a counter's family by its samples' name (with _total), OpenMetrics
 * without it.
 */
static void
family_header(struct strbuf *b, const char *family, bool counter, const char *unit, const char *help,
	      enum exposition fmt)
{
	const char *total = counter && fmt == EXPOSITION_PROMETHEUS ? "_total" : "";

	strbuf_printf(b, "# HELP %s%s ", family, total);
	escaped(b, help, fmt == EXPOSITION_OPENMETRICS);
	strbuf_printf(b, "\n# TYPE %s%s %s\n", family, total, counter ? "counter" : "gauge");
	if (unit && fmt == EXPOSITION_OPENMETRICS)
		strbuf_printf(b, "# UNIT %s %s\n", family, unit);
}

static void
sample_value(struct strbuf *b, double v)
{
	if (isnan(v))
		strbuf_printf(b, "NaN");
	else if (isinf(v))
		strbuf_printf(b, v > 0 ? "+Inf" : "-Inf");
	else if (v == floor(v) && fabs(v) < 9e15)
		strbuf_printf(b, "%.0f", v);
	else
		strbuf_printf(b, "%.17g", v);
}

static void
sample(struct strbuf *b, const char *name, const char *suffix, const char *labels, double v)
{
	strbuf_printf(b, labels[0] ? "%s%s{%s} " : "%s%s%s ", name, suffix, labels);
	sample_value(b, v);
	strbuf_printf(b, "\n");
}

/* A count in the family's unit: seconds for a clock's nanoseconds. */
static double
in_unit(const struct stat_row *row, double v)
{
	return row_in_seconds(row) ? v / 1e9 : v;
}

/* The total a counter sample holds: one run's count, or with -r the sum of every round's. */
static double
row_total(const struct stat_report *rep, const struct stat_row *row, int core_index)
{
	if (rep->repeat > 1 && row->nvalues > 0) {
		const struct stats_summary *st = core_index >= 0 && row->cpu_stats ? &row->cpu_stats[core_index] :
						 &row->stats;

		return in_unit(row, round(st->mean * st->n));
	}
	return in_unit(row, (double)(core_index >= 0 ? row->cpu_values[core_index] : row->value));
}

static const char *
core_pmu(const struct stat_report *rep, unsigned c)
{
	return rep->core_pmu && rep->core_pmu[c] ? rep->core_pmu[c] : rep->pmu ? rep->pmu : "cpu";
}

/* Whether rows @a and @b of one family are one series set: the same resolved event in the same rings. */
static bool
same_series(const struct stat_row *a, const struct stat_row *b)
{
	return strcmp(a->ev->name, b->ev->name) == 0 && a->ev->usr == b->ev->usr && a->ev->os == b->ev->os;
}

/*
 * Whether row @i is shown: the first row of its family with these labels.
 * Two spellings of one event in one ring ("instructions" and
 * "INSTRUCTIONS") are one count: the first one stands for both.
 */
static bool
row_shown(const struct stat_row *rows, unsigned i, char (*families)[FAMILY_MAX])
{
	for (unsigned j = 0; j < i; j++)
		if (strcmp(families[j], families[i]) == 0 && same_series(&rows[j], &rows[i]))
			return false;
	return true;
}

static bool
row_valid(const struct stat_row *row)
{
	return row->counted && (!row->status || strncmp(row->status, "counted", 7) == 0);
}

/* The counter samples of @row: one, or one per core with -A. */
static void
row_samples(struct strbuf *b, const struct stat_report *rep, const struct stat_row *row, const char *family)
{
	bool per_core = rep->per_cpu && row->cpu_values;

	if (!row->counted)
		return;	/* no count: its validity gauge says why */
	for (unsigned c = 0; c < (per_core ? rep->ncores : 1); c++) {
		struct strbuf l = STRBUF_INIT;

		row_labels(rep, row, per_core ? rep->cores[c] : -1, core_pmu(rep, per_core ? c : 0), &l);
		sample(b, family, "_total", strbuf_str(&l), row_total(rep, row, per_core ? (int)c : -1));
		strbuf_free(&l);
	}
}

static void
counters(struct strbuf *b, const struct stat_report *rep, char (*families)[FAMILY_MAX], enum exposition fmt)
{
	for (unsigned i = 0; i < rep->nrows; i++) {
		const struct stat_row *row = &rep->rows[i];
		char help[EVENT_NAME_MAX + 600];
		bool first = true;

		for (unsigned j = 0; j < i && first; j++)
			first = strcmp(families[j], families[i]) != 0;
		if (!first)
			continue;	/* written with the first row of its family */
		snprintf(help, sizeof(help), "%s%s%s", row->help && row->help[0] ? row->help : "pmustat count of ",
			 row->help && row->help[0] ? "" : (row->ev->name[0] ? row->ev->name : row->ev->requested),
			 row_in_seconds(row) ? " (exported in seconds)" : "");
		family_header(b, families[i], true, row_in_seconds(row) ? "seconds" : NULL, help, fmt);
		for (unsigned k = i; k < rep->nrows; k++)
			if (strcmp(families[k], families[i]) == 0 && row_shown(rep->rows, k, families))
				row_samples(b, rep, &rep->rows[k], families[k]);
	}
}

/* Per row: 1 when its count is whole and exact, 0 with the reason (not counted, taken, multiplexed). */
static void
validity(struct strbuf *b, const struct stat_report *rep, char (*families)[FAMILY_MAX], enum exposition fmt)
{
	if (!rep->nrows)
		return;
	family_header(b, "pmustat_event_valid", false, NULL,
		      "1 when the counter of the same labels (name) holds the whole, exact count; 0 with the reason: not counted, not supported, taken by another user, multiplexed (a raw, partial count)",
		      fmt);
	for (unsigned i = 0; i < rep->nrows; i++) {
		const struct stat_row *row = &rep->rows[i];
		struct strbuf l = STRBUF_INIT;
		char name[FAMILY_MAX + 8];

		if (!row_shown(rep->rows, i, families))
			continue;
		snprintf(name, sizeof(name), "%s_total", families[i]);
		label(&l, "name", name);
		row_labels(rep, row, -1, core_pmu(rep, 0), &l);
		label(&l, "reason", row->status ? row->status : (row->counted ? "counted" : "not counted"));
		sample(b, "pmustat_event_valid", "", strbuf_str(&l), row_valid(row) ? 1 : 0);
		strbuf_free(&l);
	}
}

/* -r: each row's statistics over the rounds as gauges, in the counter's unit. */
static void
run_statistics(struct strbuf *b, const struct stat_report *rep, char (*families)[FAMILY_MAX], enum exposition fmt)
{
	static const char *const what[] = { "median", "mean", "min", "max", "stddev" };

	if (rep->repeat <= 1)
		return;
	for (unsigned w = 0; w < sizeof(what) / sizeof(what[0]); w++) {
		char family[64], help[160];

		snprintf(family, sizeof(family), "pmustat_run_%s", what[w]);
		snprintf(help, sizeof(help), "the %s of one run's count over the -r rounds (seconds for clocks)", what[w]);
		family_header(b, family, false, NULL, help, fmt);
		for (unsigned i = 0; i < rep->nrows; i++) {
			const struct stat_row *row = &rep->rows[i];
			const struct stats_summary *st = &row->stats;
			double v[] = { st->median, st->mean, (double)st->min, (double)st->max, st->stddev };
			struct strbuf l = STRBUF_INIT;
			char name[FAMILY_MAX + 8];

			if (!row->counted || row->nvalues == 0 || !row_shown(rep->rows, i, families))
				continue;
			snprintf(name, sizeof(name), "%s_total", families[i]);
			label(&l, "name", name);
			row_labels(rep, row, -1, core_pmu(rep, 0), &l);
			sample(b, family, "", strbuf_str(&l), in_unit(row, v[w]));
			strbuf_free(&l);
		}
	}
	family_header(b, "pmustat_runs", false, NULL, "how many times the command ran (-r)", fmt);
	sample(b, "pmustat_runs", "", "", rep->rounds ? rep->rounds : rep->repeat);
}

/* -M: each metric a gauge; a metric without a value has none (its _valid gauge says why). */
static void
metrics(struct strbuf *b, const struct stat_report *rep, enum exposition fmt)
{
	if (!rep->nmetrics)
		return;
	family_header(b, "pmustat_metric", false, NULL,
		      "an Intel TMA or Info metric (-M) computed from the counts of this run (label metric; unit in label unit)",
		      fmt);
	for (unsigned i = 0; i < rep->nmetrics; i++) {
		const struct metric_row *m = &rep->metrics[i];
		bool per_core = rep->per_cpu && m->per_cpu;

		for (unsigned c = 0; c < (per_core ? m->ncpus : 1); c++) {
			struct strbuf l = STRBUF_INIT;
			bool valid = per_core ? m->per_cpu[c].valid : m->valid;

			if (per_core) {
				char n[16];

				snprintf(n, sizeof(n), "%d", m->per_cpu[c].cpu);
				label(&l, "cpu", n);
			}
			label(&l, "metric", m->name);
			label(&l, "unit", m->unit ? m->unit : "");
			label(&l, "backend", rep->backend ? rep->backend : "none");
			if (valid)
				sample(b, "pmustat_metric", "", strbuf_str(&l), per_core ? m->per_cpu[c].value : m->value);
			strbuf_free(&l);
		}
	}
	family_header(b, "pmustat_metric_valid", false, NULL, "1 when the metric (-M) has a value, 0 with the reason", fmt);
	for (unsigned i = 0; i < rep->nmetrics; i++) {
		struct strbuf l = STRBUF_INIT;

		label(&l, "metric", rep->metrics[i].name);
		label(&l, "reason", rep->metrics[i].valid ? "counted" : rep->metrics[i].why);
		sample(b, "pmustat_metric_valid", "", strbuf_str(&l), rep->metrics[i].valid ? 1 : 0);
		strbuf_free(&l);
	}
}

/* What ran: pmustat, the CPU, the table (an info gauge), the exit status, the time counted. */
static void
run_facts(struct strbuf *b, const struct stat_report *rep, enum exposition fmt)
{
	struct strbuf l = STRBUF_INIT;

	label(&l, "version", rep->version ? rep->version : "");
	label(&l, "cpu", rep->cpu ? rep->cpu : "");
	label(&l, "event_table", rep->event_table ? rep->event_table : "");
	label(&l, "backend", rep->backend ? rep->backend : "none");
	family_header(b, "pmustat_info", false, NULL, "pmustat's version, the CPU and the event table it counted with", fmt);
	sample(b, "pmustat_info", "", strbuf_str(&l), 1);
	strbuf_free(&l);
	if (rep->live)
		return;
	family_header(b, "pmustat_exit_status", false, NULL,
		      "pmustat's exit status: the command's own, 128+N for signal N, 125 for pmustat's failure", fmt);
	sample(b, "pmustat_exit_status", "", "", rep->exit_status);
	if (rep->command_ran) {
		family_header(b, "pmustat_elapsed_seconds", false, "seconds", "wall-clock time counted (all runs)", fmt);
		sample(b, "pmustat_elapsed_seconds", "", "", rep->elapsed);
	}
}

char *
output_exposition_text(const struct stat_report *rep, enum exposition fmt)
{
	struct strbuf b = STRBUF_INIT;
	char (*families)[FAMILY_MAX] = calloc(rep->nrows ? rep->nrows : 1, sizeof(*families));

	if (!families)
		return NULL;
	for (unsigned i = 0; i < rep->nrows; i++)
		row_family(&rep->rows[i], families[i], sizeof(families[i]));
	counters(&b, rep, families, fmt);
	validity(&b, rep, families, fmt);
	run_statistics(&b, rep, families, fmt);
	metrics(&b, rep, fmt);
	run_facts(&b, rep, fmt);
	if (fmt == EXPOSITION_OPENMETRICS)
		strbuf_printf(&b, "# EOF\n");
	free(families);
	if (strbuf_failed(&b)) {
		strbuf_free(&b);
		return NULL;
	}
	return strbuf_take(&b);
}

int
output_exposition(FILE *out, const struct stat_report *rep, enum exposition fmt)
{
	char *text = output_exposition_text(rep, fmt);
	int rc = 0;

	if (!text)
		return -ENOMEM;
	if (fputs(text, out) == EOF)
		rc = -EIO;
	free(text);
	return rc;
}

int
output_exposition_parse(const char *name, enum exposition *fmt)
{
	if (strcmp(name, "prometheus") == 0)
		*fmt = EXPOSITION_PROMETHEUS;
	else if (strcmp(name, "openmetrics") == 0)
		*fmt = EXPOSITION_OPENMETRICS;
	else
		return -EINVAL;
	return 0;
}
