/*
 * output.c - human table, CSV and JSON for a stat run.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/event.h"
#include "report/json_text.h"
#include "report/output.h"

void
output_thousands(uint64_t v, char *buf, size_t size)
{
	char digits[32];
	size_t n, out = 0;

	n = (size_t)snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v);
	for (size_t i = 0; i < n && out + 1 < size; i++) {
		if (i > 0 && (n - i) % 3 == 0) {
			buf[out++] = ',';
			if (out + 1 >= size)
				break;
		}
		buf[out++] = digits[i];
	}
	buf[out] = '\0';
}

static bool
is_instructions(const struct event *e)
{
	return e->fixed == 0 || (e->code == 0xc0 && e->umask == 0x00);
}

static bool
is_core_cycles(const struct event *e)
{
	return e->fixed == 1 || (e->code == 0x3c && e->umask == 0x00);
}

static bool
is_branches(const struct event *e)
{
	return e->code == 0xc4 && e->umask == 0x00 && e->fixed < 0;
}

static bool
is_branch_misses(const struct event *e)
{
	return e->code == 0xc5 && e->umask == 0x00 && e->fixed < 0;
}

/* A counted row of the same run and ring filter as @row matching @pred. */
static const struct stat_row *
partner(const struct stat_report *rep, const struct stat_row *row,
	bool (*pred)(const struct event *))
{
	for (unsigned i = 0; i < rep->nrows; i++) {
		const struct stat_row *r = &rep->rows[i];

		if (r == row || !r->counted || r->run != row->run)
			continue;
		if (r->ev->usr != row->ev->usr || r->ev->os != row->ev->os)
			continue;
		if (pred(r->ev))
			return r;
	}
	return NULL;
}

static void
comment(const struct stat_report *rep, const struct stat_row *row, char *buf, size_t size)
{
	const struct stat_row *p;

	buf[0] = '\0';
	if (!row->counted)
		return;
	if (is_instructions(row->ev)) {
		p = partner(rep, row, is_core_cycles);
		if (p && p->value)
			snprintf(buf, size, "#  %6.2f  insn per cycle",
				 (double)row->value / (double)p->value);
	} else if (is_branch_misses(row->ev)) {
		p = partner(rep, row, is_branches);
		if (p && p->value)
			snprintf(buf, size, "#  %6.2f%% of all branches",
				 100.0 * (double)row->value / (double)p->value);
	}
}

static const char *
row_label(const struct stat_row *row)
{
	return row->ev->requested[0] ? row->ev->requested : row->ev->name;
}

static void
print_command(FILE *out, char *const *command)
{
	if (!command)
		return;
	for (unsigned i = 0; command[i]; i++)
		fprintf(out, "%s%s", i ? " " : "", command[i]);
}

/* @v rounded to one decimal, with thousands separators: "1,234,567", "1,234.5". */
static void
print_thousands_real(FILE *out, double v)
{
	char digits[40];
	double r = floor(v * 10 + 0.5) / 10;
	int tenth;

	if (!isfinite(v) || v < 0 || v >= 1.8e19) {
		fprintf(out, "%.1f", v);
		return;
	}
	tenth = (int)((r - floor(r)) * 10 + 0.5);
	output_thousands((uint64_t)floor(r), digits, sizeof(digits));
	fprintf(out, "%s", digits);
	if (tenth)
		fprintf(out, ".%d", tenth);
}

/* The second line of an event with -r: every statistic. */
static void
print_stats(FILE *out, const struct stat_row *row)
{
	const struct stats_summary *st = &row->stats;
	char min[32], max[32];

	output_thousands(st->min, min, sizeof(min));
	output_thousands(st->max, max, sizeof(max));
	fprintf(out, "%18s      %u run%s: median ", "", st->n, st->n == 1 ? "" : "s");
	print_thousands_real(out, st->median);
	fprintf(out, "  mean ");
	print_thousands_real(out, st->mean);
	fprintf(out, "  min %s  max %s  stddev ", min, max);
	print_thousands_real(out, st->stddev);
	fputc('\n', out);
}

void
output_human(FILE *out, const struct stat_report *rep)
{
	fprintf(out, "\n Performance counter stats for '");
	print_command(out, rep->command);
	fprintf(out, "'");
	if (rep->core >= 0)
		fprintf(out, " on core %d", rep->core);
	if (rep->repeat > 1 && rep->runs > 1)
		fprintf(out, " (%u rounds of %u runs, each event counted in one run per round)",
			rep->repeat, rep->runs);
	else if (rep->repeat > 1 && rep->rounds && rep->rounds < rep->repeat)
		fprintf(out, " (%u of %u runs: stopped at a failing run)", rep->rounds, rep->repeat);
	else if (rep->repeat > 1)
		fprintf(out, " (%u runs)", rep->repeat);
	else if (rep->runs > 1)
		fprintf(out, " (%u runs, each event counted in one)", rep->runs);
	fprintf(out, ":\n\n");

	for (unsigned i = 0; i < rep->nrows; i++) {
		const struct stat_row *row = &rep->rows[i];
		char value[40], note[EVENT_NAME_MAX + 8], where[192] = "", spread[192] = "";
		const char *label = row_label(row);

		if (row->counted && row->unit && strcmp(row->unit, "ns") == 0)
			snprintf(value, sizeof(value), "%.2f msec", (double)row->value / 1e6);
		else if (row->counted)
			output_thousands(row->value, value, sizeof(value));
		else
			snprintf(value, sizeof(value), "<%s>", row->status ? row->status : "not counted");
		comment(rep, row, note, sizeof(note));
		/* No ratio to show: say what the typed name resolved to. */
		if (!note[0] && row->ev->name[0] && strcmp(label, row->ev->name) != 0)
			snprintf(note, sizeof(note), "#  %s", row->ev->name);
		if (rep->runs > 1 && row->counted)
			snprintf(where, sizeof(where), "  (run %u, %s)", row->run, row->counter);
		/* Not on the counter it asked for: which one, and why. */
		if (row->counted && row->counter_note[0])
			snprintf(where + strlen(where), sizeof(where) - strlen(where), "  (on %s: %s)", row->counter,
				 row->counter_note);
		/* perf's spread, but the plain relative stddev (perf's is of the mean). */
		if (rep->repeat > 1 && row->nvalues > 0)
			snprintf(spread, sizeof(spread), "  ( +- %5.2f%% )", row->stats.rel_stddev_percent);
		/* Multiplexed or user-mode-only counts are raw: say so on the line. */
		if (row->counted && row->status && strcmp(row->status, "counted") != 0)
			snprintf(spread + strlen(spread), sizeof(spread) - strlen(spread), "  (%s)", row->status);
		fprintf(out, "%18s      %-30s %s%s%s\n", value, label, note, where, spread);
		if (rep->repeat > 1 && row->nvalues > 0)
			print_stats(out, row);
	}
	fprintf(out, "\n");
	if (rep->command_ran)
		fprintf(out, "%18.9f seconds time elapsed%s\n\n", rep->elapsed,
			rep->runs > 1 || rep->repeat > 1 ? " (all runs)" : "");
	if (rep->read_method && rep->backend && strcmp(rep->backend, "perf") == 0)
		fprintf(out, " Counted through perf_event (backend perf): the command's own counts, all its threads and children, from its execve on.\n\n");
	else if (rep->read_method)
		fprintf(out, " Counts read with %s (backend msr). Counts are per core: anything else that ran on core %d is included.%s\n\n",
			rep->read_method, rep->core,
			rep->software ? " Software events: through perf_event, the command's own." : "");
	if (rep->error)
		fprintf(out, " pmustat failed: %s\n\n", rep->error);
}

bool
output_csv_separator_ok(const char *sep)
{
	return sep[0] && !strpbrk(sep, "\"\r\n");
}

/*
 * One CSV field, after a separator unless it is the first (RFC 4180): in
 * double quotes, with each quote doubled, when it holds the separator, a
 * quote or a line break; as it is otherwise.
 */
static void
csv_field(FILE *out, const char *sep, bool first, const char *text)
{
	if (!first)
		fputs(sep, out);
	if (!strstr(text, sep) && !strpbrk(text, "\"\r\n")) {
		fputs(text, out);
		return;
	}
	fputc('"', out);
	for (const char *c = text; *c; c++) {
		if (*c == '"')
			fputc('"', out);
		fputc(*c, out);
	}
	fputc('"', out);
}

/* A number as a CSV field (the separator may be '.' or a digit: quoted then too). */
static void
csv_number(FILE *out, const char *sep, bool first, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void
csv_number(FILE *out, const char *sep, bool first, const char *fmt, ...)
{
	char buf[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	csv_field(out, sep, first, buf);
}

void
output_csv(FILE *out, const struct stat_report *rep, const char *sep)
{
	for (unsigned i = 0; i < rep->nrows; i++) {
		const struct stat_row *row = &rep->rows[i];

		if (row->counted)
			csv_number(out, sep, true, "%llu", (unsigned long long)row->value);
		else
			csv_field(out, sep, true, "<not counted>");
		csv_field(out, sep, false, row->unit ? row->unit : "");
		csv_field(out, sep, false, row_label(row));
		csv_field(out, sep, false, row->ev->name);
		csv_field(out, sep, false, row->counter);
		csv_number(out, sep, false, "%u", row->run);
		csv_field(out, sep, false, row->status ? row->status : (row->counted ? "counted" : "not counted"));
		if (rep->repeat > 1 && row->nvalues > 0) {
			csv_number(out, sep, false, "%u", row->stats.n);
			csv_number(out, sep, false, "%.6g", row->stats.mean);
			csv_number(out, sep, false, "%.6g", row->stats.median);
			csv_number(out, sep, false, "%llu", (unsigned long long)row->stats.min);
			csv_number(out, sep, false, "%llu", (unsigned long long)row->stats.max);
			csv_number(out, sep, false, "%.6g", row->stats.stddev);
			csv_number(out, sep, false, "%.4f", row->stats.rel_stddev_percent);
		} else if (rep->repeat > 1) {
			csv_field(out, sep, false, "0");
			for (int k = 0; k < 6; k++)
				csv_field(out, sep, false, "");
		}
		fputc('\n', out);
	}
	for (unsigned i = 0; rep->check_results && i < rep->nchecks; i++) {
		const struct check_result *r = &rep->check_results[i];

		csv_field(out, sep, true, "check");
		csv_field(out, sep, false, r->passed ? "PASS" : "FAIL");
		if (r->defined) {
			csv_number(out, sep, false, "%.17g", r->lhs);
			csv_number(out, sep, false, "%.17g", r->rhs);
		} else {
			csv_field(out, sep, false, "");
			csv_field(out, sep, false, "");
		}
		csv_field(out, sep, false, rep->checks[i].text);
		fputc('\n', out);
	}
	for (unsigned i = 0; rep->baseline && i < rep->nrows; i++) {
		const struct baseline_cmp *c = &rep->baseline[i];

		if (!c->in_baseline)
			continue;
		csv_field(out, sep, true, "baseline");
		csv_field(out, sep, false, c->passed ? "PASS" : "FAIL");
		if (c->counted) {
			csv_number(out, sep, false, "%.17g", c->value);
			csv_number(out, sep, false, "%.17g", c->base);
		} else {
			csv_field(out, sep, false, "");
			csv_field(out, sep, false, "");
		}
		/* Grown from 0: no percentage. */
		if (c->counted && isfinite(c->change_percent))
			csv_number(out, sep, false, "%.4f", c->change_percent);
		else
			csv_field(out, sep, false, "");
		csv_number(out, sep, false, "%.4f", c->tolerance_percent);
		csv_field(out, sep, false, c->event);
		fputc('\n', out);
	}
}

/* "1000" for a whole value, else "0.0125". */
static void
print_number(FILE *out, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		fprintf(out, "%.0f", v);
	else
		fprintf(out, "%.6g", v);
}

void
output_gate_lines(FILE *out, const struct stat_report *rep)
{
	for (unsigned i = 0; rep->check_results && i < rep->nchecks; i++) {
		const struct check_result *r = &rep->check_results[i];

		fprintf(out, "%s  %s  (", r->passed ? "PASS" : "FAIL", rep->checks[i].text);
		if (!r->defined) {
			fprintf(out, "%s)\n", r->why);
			continue;
		}
		fprintf(out, "measured ");
		print_number(out, r->lhs);
		if (check_rhs_has_event(&rep->checks[i])) {
			fprintf(out, " %s ", check_op_text(rep->checks[i].op));
			print_number(out, r->rhs);
		}
		fprintf(out, ")\n");
	}
	for (unsigned i = 0; rep->baseline && i < rep->nrows; i++) {
		const struct baseline_cmp *c = &rep->baseline[i];

		if (!c->in_baseline)
			continue;
		fprintf(out, "%s  baseline %s  (", c->passed ? "PASS" : "FAIL", c->event);
		if (!c->counted) {
			fprintf(out, "not counted %s)\n", c->base != 0 || c->value != 0 ? "now" : "now or then");
			continue;
		}
		print_number(out, c->value);
		fprintf(out, " vs ");
		print_number(out, c->base);
		if (isfinite(c->change_percent))
			fprintf(out, ": %+.2f%%", c->change_percent);
		else
			fprintf(out, ": up from 0");
		fprintf(out, ", tolerance %s%g%%)\n", rep->tolerance_both ? "+-" : "+", c->tolerance_percent);
	}
}

void
output_interval(FILE *out, const struct stat_interval *iv, const char *sep, bool json)
{
	if (json) {
		fprintf(out, "{\"format_version\": %d, \"type\": \"interval\", \"time\": %.6f, \"round\": %u, \"run\": %u, \"events\": [",
			OUTPUT_FORMAT_VERSION, iv->time, iv->round, iv->run);
		for (unsigned i = 0, n = 0; i < iv->nrows; i++) {
			json_t *name;
			char *text;

			if (iv->rows[i].run != iv->run)
				continue;
			/* Names are table text: let jansson escape them. */
			name = json_text(row_label(&iv->rows[i]));
			text = name ? json_dumps(name, JSON_ENCODE_ANY) : NULL;
			fprintf(out, "%s{\"requested\": %s, \"value\": %llu}", n++ ? ", " : "",
				text ? text : "\"\"", (unsigned long long)iv->deltas[i]);
			free(text);
			json_decref(name);
		}
		fprintf(out, "]}\n");
		fflush(out);
		return;
	}
	if (!sep && iv->header)
		fprintf(out, "#%13s %18s      %s\n", "time", "counts", "event");
	for (unsigned i = 0; i < iv->nrows; i++) {
		char value[40];

		if (iv->rows[i].run != iv->run)
			continue;
		if (sep) {
			csv_field(out, sep, true, "interval");
			csv_number(out, sep, false, "%.6f", iv->time);
			csv_number(out, sep, false, "%u", iv->round);
			csv_number(out, sep, false, "%u", iv->run);
			csv_number(out, sep, false, "%llu", (unsigned long long)iv->deltas[i]);
			csv_field(out, sep, false, row_label(&iv->rows[i]));
			fputc('\n', out);
			continue;
		}
		output_thousands(iv->deltas[i], value, sizeof(value));
		fprintf(out, "%14.6f %18s      %s\n", iv->time, value, row_label(&iv->rows[i]));
	}
	fflush(out);
}

static json_t *
json_values(const struct stat_row *row)
{
	json_t *a = json_array();

	for (unsigned i = 0; a && i < row->nvalues; i++)
		json_array_append_new(a, json_integer((json_int_t)row->values[i]));
	return a;
}

/* A double as JSON; null when not finite (JSON has no infinity). */
static json_t *
json_num(double v)
{
	if (!isfinite(v))
		return json_null();
	if (v == floor(v) && fabs(v) < 9e15)
		return json_integer((json_int_t)v);
	return json_real(v);
}

static json_t *
json_stats(const struct stat_row *row)
{
	const struct stats_summary *st = &row->stats;
	json_t *o;

	if (row->nvalues == 0)
		return json_null();
	o = json_object();
	if (!o)
		return NULL;
	json_object_set_new(o, "runs", json_integer(st->n));
	json_object_set_new(o, "mean", json_num(st->mean));
	json_object_set_new(o, "median", json_num(st->median));
	json_object_set_new(o, "min", json_integer((json_int_t)st->min));
	json_object_set_new(o, "max", json_integer((json_int_t)st->max));
	json_object_set_new(o, "stddev", json_num(st->stddev));
	json_object_set_new(o, "rel_stddev_percent", json_num(st->rel_stddev_percent));
	return o;
}

static json_t *
json_checks(const struct stat_report *rep, json_t *failed)
{
	json_t *a = json_array();

	for (unsigned i = 0; a && rep->check_results && i < rep->nchecks; i++) {
		const struct check_result *r = &rep->check_results[i];
		json_t *o = json_object();

		if (!o)
			break;
		json_object_set_new(o, "expression", json_text(rep->checks[i].text));
		json_object_set_new(o, "passed", json_boolean(r->passed));
		json_object_set_new(o, "value", r->defined ? json_num(r->lhs) : json_null());
		json_object_set_new(o, "limit", r->defined ? json_num(r->rhs) : json_null());
		json_object_set_new(o, "error", r->defined ? json_null() : json_text(r->why));
		json_array_append_new(a, o);
		if (!r->passed)
			json_array_append_new(failed, json_text(rep->checks[i].text));
	}
	return a;
}

static json_t *
json_baseline(const struct stat_report *rep, json_t *failed)
{
	json_t *o, *a;

	if (!rep->baseline)
		return json_null();
	o = json_object();
	a = json_array();
	if (!o || !a) {
		json_decref(o);
		json_decref(a);
		return NULL;
	}
	json_object_set_new(o, "file", json_text(rep->baseline_path ? rep->baseline_path : ""));
	json_object_set_new(o, "tolerance_both", json_boolean(rep->tolerance_both));
	for (unsigned i = 0; i < rep->nrows; i++) {
		const struct baseline_cmp *c = &rep->baseline[i];
		json_t *e;
		char what[BASELINE_NAME_MAX + 16];

		if (!c->in_baseline)
			continue;
		e = json_object();
		if (!e)
			break;
		json_object_set_new(e, "requested", json_text(c->event));
		json_object_set_new(e, "passed", json_boolean(c->passed));
		json_object_set_new(e, "value", c->counted ? json_num(c->value) : json_null());
		json_object_set_new(e, "baseline", c->counted ? json_num(c->base) : json_null());
		json_object_set_new(e, "change_percent", c->counted ? json_num(c->change_percent) : json_null());
		json_object_set_new(e, "tolerance_percent", json_num(c->tolerance_percent));
		json_array_append_new(a, e);
		if (!c->passed) {
			snprintf(what, sizeof(what), "baseline %s", c->event);
			json_array_append_new(failed, json_text(what));
		}
	}
	json_object_set_new(o, "comparisons", a);
	return o;
}

int
output_json(FILE *out, const struct stat_report *rep)
{
	json_t *root, *events, *command;
	int rc = 0;

	root = json_object();
	events = json_array();
	command = json_array();
	if (!root || !events || !command) {
		json_decref(root);
		json_decref(events);
		json_decref(command);
		return -ENOMEM;
	}
	for (unsigned i = 0; rep->command && rep->command[i]; i++)
		json_array_append_new(command, json_text(rep->command[i]));
	for (unsigned i = 0; i < rep->nrows; i++) {
		const struct stat_row *row = &rep->rows[i];
		json_t *o = json_object();

		if (!o) {
			rc = -ENOMEM;
			break;
		}
		json_object_set_new(o, "name", json_text(row->ev->name));
		json_object_set_new(o, "requested", json_text(row->ev->requested));
		json_object_set_new(o, "value", row->counted ? json_integer((json_int_t)row->value) : json_null());
		json_object_set_new(o, "counter", json_string(row->counter));
		json_object_set_new(o, "counter_note", row->counter_note[0] ? json_string(row->counter_note) : json_null());
		json_object_set_new(o, "run", json_integer(row->run));
		json_object_set_new(o, "status", json_text(row->status ? row->status :
					(row->counted ? "counted" : "not counted")));
		json_object_set_new(o, "values", json_values(row));
		json_object_set_new(o, "stats", json_stats(row));
		json_object_set_new(o, "unit", row->unit ? json_string(row->unit) : json_null());
		json_object_set_new(o, "time_enabled_ns", row->perf_times ? json_integer((json_int_t)row->enabled) : json_null());
		json_object_set_new(o, "time_running_ns", row->perf_times ? json_integer((json_int_t)row->running) : json_null());
		json_array_append_new(events, o);
	}
	json_object_set_new(root, "format_version", json_integer(OUTPUT_FORMAT_VERSION));
	json_object_set_new(root, "type", json_string("stat"));
	json_object_set_new(root, "pmustat_version", json_string(rep->version ? rep->version : ""));
	json_object_set_new(root, "cpu", rep->cpu ? json_text(rep->cpu) : json_null());
	json_object_set_new(root, "cpu_model", rep->cpu_model ? json_string(rep->cpu_model) : json_null());
	json_object_set_new(root, "core", rep->core >= 0 ? json_integer(rep->core) : json_null());
	json_object_set_new(root, "event_table", rep->event_table ? json_string(rep->event_table) : json_null());
	json_object_set_new(root, "command", command);
	json_object_set_new(root, "exit_status", json_integer(rep->exit_status));
	json_object_set_new(root, "runs", json_integer(rep->runs));
	json_object_set_new(root, "repeat", json_integer(rep->repeat ? rep->repeat : 1));
	json_object_set_new(root, "elapsed_seconds", rep->command_ran ? json_real(rep->elapsed) : json_null());
	json_object_set_new(root, "backend", rep->backend ? json_string(rep->backend) : json_null());
	json_object_set_new(root, "read_method", rep->read_method ? json_string(rep->read_method) : json_null());
	json_object_set_new(root, "window", rep->window ? json_string(rep->window) : json_null());
	json_object_set_new(root, "error", rep->error ? json_text(rep->error) : json_null());
	json_object_set_new(root, "events", events);
	{
		json_t *failed = json_array();

		json_object_set_new(root, "checks", json_checks(rep, failed));
		json_object_set_new(root, "baseline", json_baseline(rep, failed));
		json_object_set_new(root, "gate_failed", json_boolean(rep->gate_failed));
		json_object_set_new(root, "failed", failed);
	}
	if (rc == 0 && json_dumpf(root, out, (rep->json_one_line ? JSON_COMPACT : JSON_INDENT(2)) |
				   JSON_PRESERVE_ORDER) != 0)
		rc = -EIO;
	if (rc == 0)
		fputc('\n', out);
	json_decref(root);
	return rc;
}
