/*
 * output.c - human table and CSV for a stat run (the JSON record: output_json.c).
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
#include "report/label.h"
#include "base/cpulist.h"
#include "report/metric_output.h"
#include "events/sim_events.h"
#include "report/output.h"
#include "report/comment.h"
#include "report/region_output.h"

/* -B, --big-num (the default, as perf's) or --no-big-num. */
static bool big_num = true;

void
output_set_big_num(bool on)
{
	big_num = on;
}

void
output_thousands(uint64_t v, char *buf, size_t size)
{
	char digits[32];
	size_t n, out = 0;

	n = (size_t)snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v);
	for (size_t i = 0; i < n && out + 1 < size; i++) {
		if (big_num && i > 0 && (n - i) % 3 == 0) {
			buf[out++] = ',';
			if (out + 1 >= size)
				break;
		}
		buf[out++] = digits[i];
	}
	buf[out] = '\0';
}

struct output_label
output_row_label(const struct stat_row *row)
{
	struct output_label l = { "" };

	label_of(row->ev, l.text, sizeof(l.text));
	return l;
}

/* The name column: 30 wide as perf's, wider when a name is, so annotations stay in line. */
static int
label_width(const struct stat_row *rows, unsigned nrows)
{
	size_t w = 30;

	for (unsigned i = 0; i < nrows; i++) {
		size_t n = strlen(output_row_label(&rows[i]).text);

		if (n > w)
			w = n;
	}
	return (int)w;
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

/*
 * Where a counted row counted: "  (run N, COUNTER)" over several runs (or
 * with @name_counter), then "  (on COUNTER: why)" off the counter it asked for.
 */
static void
where_of(const struct stat_report *rep, const struct stat_row *row, const char *counter, const char *note,
	 bool name_counter, char *buf, size_t size)
{
	buf[0] = '\0';
	if (!row->counted)
		return;
	if (rep->runs > 1)
		snprintf(buf, size, "  (run %u, %s)", row->run, counter);
	else if (name_counter)
		snprintf(buf, size, "  (%s)", counter);
	if (note[0])
		snprintf(buf + strlen(buf), size - strlen(buf), "  (on %s: %s)", counter, note);
}

/* Row @row's counter and its note on core @c of rep->cores. */
static const char *
cpu_counter(const struct stat_row *row, unsigned c, const char **note)
{
	*note = row->cpu_counters ? row->cpu_counters[c].note : row->counter_note;
	return row->cpu_counters ? row->cpu_counters[c].counter : row->counter;
}

/* Do the cores count @row on different counters (each line then names its own)? */
static bool
counters_differ(const struct stat_report *rep, const struct stat_row *row)
{
	for (unsigned c = 1; row->cpu_counters && c < rep->ncores; c++)
		if (strcmp(row->cpu_counters[c].counter, row->cpu_counters[0].counter) != 0)
			return true;
	return false;
}

/* -A: the row's count on each core, one line each, as perf stat -A prints it, and the counter it used there. */
/* A row's count as the table prints it: msec for task-clock, else the digits. */
static void
count_text(const struct stat_row *row, uint64_t v, char *buf, size_t size)
{
	if (row->unit && strcmp(row->unit, "ns") == 0)
		snprintf(buf, size, "%.2f msec", (double)v / 1e6);
	else
		output_thousands(v, buf, size);
}

/* The sum of a row's lines (-A, --per-thread, --per-core), with its comment: the line without them. */
static void
print_total(FILE *out, const struct stat_report *rep, const struct stat_row *row, int lead, int width, const char *label)
{
	char total[40], comment[EVENT_NAME_MAX + 8];

	count_text(row, row->value, total, sizeof(total));
	comment_of(rep, row, comment, sizeof(comment));
	fprintf(out, "%-*s%18s      %-*s %s\n", lead, "total", total, width, label, comment);
}

/* --per-thread, --per-core: a line per thread or core, each with its comment, then the total. */
static void
print_split(FILE *out, const struct stat_report *rep, const struct stat_row *row, int width, const char *label)
{
	for (unsigned i = 0; i < rep->nsplit; i++) {
		char value[40], comment[EVENT_NAME_MAX + 8];

		count_text(row, row->split_values[i], value, sizeof(value));
		comment_at(rep, row, (int)i, comment, sizeof(comment));
		fprintf(out, "%-20s%18s      %-*s %s\n", rep->split_labels[i], value, width, label, comment);
	}
	print_total(out, rep, row, 20, width, label);
}

static void
print_per_cpu(FILE *out, const struct stat_report *rep, const struct stat_row *row, int width, const char *label)
{
	bool differ = counters_differ(rep, row);
	char comment[EVENT_NAME_MAX + 8];

	for (unsigned c = 0; c < rep->ncores; c++) {
		char value[40], cpu[16], spread[64] = "", where[192];
		const char *note;
		const char *counter = cpu_counter(row, c, &note);

		where_of(rep, row, counter, note, differ, where, sizeof(where));

		count_text(row, row->cpu_values[c], value, sizeof(value));
		snprintf(cpu, sizeof(cpu), "CPU%d", rep->cores[c]);
		if (rep->repeat > 1 && row->nvalues > 0 && row->cpu_stats)
			snprintf(spread, sizeof(spread), "  ( +- %5.2f%% )", row->cpu_stats[c].rel_stddev_percent);
		comment_at(rep, row, (int)c, comment, sizeof(comment));
		fprintf(out, "%-8s%18s      %-*s %s%s%s\n", cpu, value, width, label, comment, where, spread);
	}
	/* The sum of the CPUs (the -A-less line), with its comment: likwid's Sum, perf's aggregate. */
	print_total(out, rep, row, 8, width, label);
}

/*
 * --backend sim: every count above is simulated; by what, under which
 * cache model, and what was fixed so that it is the same on every machine.
 */
static void
output_sim_footer(FILE *out, const struct stat_sim *sim)
{
	fprintf(out, " Simulated counts (backend sim): Valgrind %s %s, --cache-sim=yes --branch-sim=yes, not a CPU's counters.\n",
		sim->valgrind_version ? sim->valgrind_version : "?", sim->tool);
	fprintf(out, " Cache model (fixed, whatever this machine's caches):");
	for (unsigned i = 0; i < 3; i++)
		fprintf(out, "%s %s %u KiB %u-way %u-byte lines", i ? ";" : "", sim_caches[i].name,
			sim_caches[i].size / 1024, sim_caches[i].assoc, sim_caches[i].line);
	fprintf(out, ".\n Fixed for the command: glibc's CPU-dependent string functions off (GLIBC_TUNABLES glibc.cpu.hwcaps: the SSE2 versions on every x86-64 host) and its cache sizes; the environment is the command's own (its size moves the counts slightly).\n");
	fprintf(out, " %u process%s simulated and summed (children and exec'd programs traced).\n\n", sim->processes,
		sim->processes == 1 ? "" : "es");
}

void
output_human(FILE *out, const struct stat_report *rep)
{
	int width;
	char list[256];

	if (rep->npids || rep->ntids) {
		/* As perf stat -p and -t print it. */
		fprintf(out, "\n Performance counter stats for %s id '", rep->npids ? "process" : "thread");
		for (unsigned i = 0; i < rep->npids + rep->ntids; i++)
			fprintf(out, "%s%d", i ? "," : "", (int)(rep->npids ? rep->pids : rep->tids)[i]);
		fprintf(out, "'");
	} else if (!rep->command)
		fprintf(out, "\n Performance counter stats");
	else {
		fprintf(out, "\n Performance counter stats for '");
		print_command(out, rep->command);
		fprintf(out, "'");
	}
	if (rep->npids || rep->ntids || !rep->counts_cores) {
	} else if (rep->ncores > 1) {
		fprintf(out, " on cores %s", cpulist_format(rep->cores, rep->ncores, list, sizeof(list)));
	} else if (rep->core >= 0) {
		fprintf(out, " on core %d", rep->core);
	}
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

	width = label_width(rep->rows, rep->nrows);
	for (unsigned i = 0; i < rep->nrows; i++) {
		const struct stat_row *row = &rep->rows[i];
		char value[40], note[EVENT_NAME_MAX + 8], where[192], spread[192] = "";
		const struct output_label lab = output_row_label(row);
		const char *label = lab.text;

		if (row->counted && row->unit && strcmp(row->unit, "ns") == 0)
			snprintf(value, sizeof(value), "%.2f msec", (double)row->value / 1e6);
		else if (row->counted)
			output_thousands(row->value, value, sizeof(value));
		else
			snprintf(value, sizeof(value), "<%s>", row->status ? row->status : "not counted");
		comment_of(rep, row, note, sizeof(note));
		/* --metric-only: what is computed from the counts, not the counts (perf's). */
		if (rep->metric_only) {
			const char *text = note + strspn(note, "# ");

			if (text[0])
				fprintf(out, "%32s      %s\n", text, label);
			continue;
		}
		/* -v, nothing else to say: what the typed name resolved to. */
		if (rep->verbose && !note[0] && row->ev->name[0] &&
		    strcmp(row->ev->requested[0] ? row->ev->requested : row->ev->name, row->ev->name) != 0)
			snprintf(note, sizeof(note), "#  %s", row->ev->name);
		where_of(rep, row, row->counter, row->counter_note, false, where, sizeof(where));
		/* perf's spread, but the plain relative stddev (perf's is of the mean). */
		if (rep->repeat > 1 && row->nvalues > 0)
			snprintf(spread, sizeof(spread), "  ( +- %5.2f%% )", row->stats.rel_stddev_percent);
		/* Multiplexed or user-mode-only counts are raw: say so on the line. */
		if (row->counted && row->status && strcmp(row->status, "counted") != 0)
			snprintf(spread + strlen(spread), sizeof(spread) - strlen(spread), "  (%s)", row->status);
		if (rep->nsplit && row->split_values) {
			print_split(out, rep, row, width, label);
			continue;
		}
		if (rep->per_cpu && row->cpu_values) {
			print_per_cpu(out, rep, row, width, label);
			continue;
		}
		fprintf(out, "%18s      %-*s %s%s%s\n", value, width, label, note, where, spread);
		if (rep->repeat > 1 && row->nvalues > 0)
			print_stats(out, row);
	}
	fprintf(out, "\n");
	if (rep->regions && rep->command_ran)
		region_output_human(out, rep->regions, rep->rows, rep->nrows, rep->repeat > 1);
	metric_output_human(out, rep->metrics, rep->nmetrics, rep->repeat > 1, rep->runs, rep->per_cpu);
	if (rep->command_ran)
		fprintf(out, "%18.9f seconds time elapsed%s\n\n", rep->elapsed,
			rep->runs > 1 || rep->repeat > 1 ? " (all runs)" : "");
	if (rep->command_ran && rep->have_times)
		fprintf(out, "%18.9f seconds user\n%18.9f seconds sys\n\n", rep->user_time, rep->sys_time);
	if (rep->not_supported_why)
		fprintf(out, " Hardware events <not supported>: %s\n\n", rep->not_supported_why);
	if (rep->sw_not_supported_why)
		fprintf(out, " Software events <not supported>: %s\n\n", rep->sw_not_supported_why);
	if (rep->sim && rep->command_ran)
		output_sim_footer(out, rep->sim);
	else if (rep->read_method && rep->backend && strcmp(rep->backend, "perf") == 0 && rep->npids)
		fprintf(out, " Counted through perf_event (backend perf): %s own counts, all their threads and their children, from pmustat's start on.\n\n",
			rep->npids > 1 ? "the processes'" : "the process's");
	else if (rep->read_method && rep->backend && strcmp(rep->backend, "perf") == 0 && (!rep->command || rep->counts_cores))
		fprintf(out, " Counted through perf_event (backend perf): %s%s ran on the %s%s.\n\n",
			rep->cgroup ? "what the tasks of cgroup " : "everything that", rep->cgroup ? rep->cgroup : "",
			rep->ncores > 1 ? "cores" : "core", rep->command ? " while the command ran (-C, -a)" : "");
	else if (rep->read_method && rep->backend && strcmp(rep->backend, "perf") == 0)
		fprintf(out, " Counted through perf_event (backend perf): the command's own counts, all its threads and children, from its execve on%s%s%s.\n\n",
			rep->per_cpu ? "; one line per CPU of " : "",
			rep->per_cpu ? cpulist_format(rep->cores, rep->ncores, list, sizeof(list)) : "",
			rep->per_cpu ? ", what it counted while running there" : "");
	else if (rep->read_method && rep->ncores > 1)
		fprintf(out, " Counts read with %s (backend msr) on cores %s, %s: anything else that ran on them is included.%s\n\n",
			rep->read_method, cpulist_format(rep->cores, rep->ncores, list, sizeof(list)),
			rep->per_cpu ? "one line per core" : "summed over them",
			rep->software ? " Software events: through perf_event, everything on the counted cores too." : "");
	else if (rep->read_method)
		fprintf(out, " Counts read with %s (backend msr). Counts are per core: anything else that ran on core %d is included.%s\n\n",
			rep->read_method, rep->core,
			rep->software ? " Software events: through perf_event, everything on the counted core too." : "");
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

void
output_csv_field(FILE *out, const char *sep, bool first, const char *text)
{
	csv_field(out, sep, first, text);
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

/*
 * One event's CSV line: @cpu (-A: "CPU<N>" first, "" for an event not
 * counted per core; NULL without -A), @counter, @value and @stats the sum's
 * or the core's (each core's own counter).
 */
static void
csv_row(FILE *out, const struct stat_report *rep, const struct stat_row *row, const char *sep, const char *cpu,
	const char *counter, uint64_t value, const struct stats_summary *stats)
{
	if (cpu)
		csv_field(out, sep, true, cpu);
	if (row->counted)
		csv_number(out, sep, !cpu, "%llu", (unsigned long long)value);
	else if (row->status && strcmp(row->status, "not supported") == 0)
		csv_field(out, sep, !cpu, "<not supported>");
	else
		csv_field(out, sep, !cpu, "<not counted>");
	csv_field(out, sep, false, row->unit ? row->unit : "");
	csv_field(out, sep, false, output_row_label(row).text);
	csv_field(out, sep, false, row->ev->name);
	csv_field(out, sep, false, counter);
	csv_number(out, sep, false, "%u", row->run);
	csv_field(out, sep, false, row->status ? row->status : (row->counted ? "counted" : "not counted"));
	if (rep->repeat > 1 && row->nvalues > 0) {
		csv_number(out, sep, false, "%u", stats->n);
		csv_number(out, sep, false, "%.6g", stats->mean);
		csv_number(out, sep, false, "%.6g", stats->median);
		csv_number(out, sep, false, "%llu", (unsigned long long)stats->min);
		csv_number(out, sep, false, "%llu", (unsigned long long)stats->max);
		csv_number(out, sep, false, "%.6g", stats->stddev);
		csv_number(out, sep, false, "%.4f", stats->rel_stddev_percent);
	} else if (rep->repeat > 1) {
		csv_field(out, sep, false, "0");
		for (int k = 0; k < 6; k++)
			csv_field(out, sep, false, "");
	}
	fputc('\n', out);
}

void
output_csv(FILE *out, const struct stat_report *rep, const char *sep)
{
	static const char *const fields[] = { "value", "unit", "event", "name", "counter", "run", "status",
					      "runs", "mean", "median", "min", "max", "stddev", "rel_stddev_percent" };

	for (unsigned k = 0; rep->csv_header && k < (rep->repeat > 1 ? 14u : 7u); k++)
		csv_field(out, sep, k == 0, fields[k]);
	if (rep->csv_header)
		fputc('\n', out);
	for (unsigned i = 0; i < rep->nrows; i++) {
		const struct stat_row *row = &rep->rows[i];

		if (!rep->per_cpu) {
			csv_row(out, rep, row, sep, NULL, row->counter, row->value, &row->stats);
			continue;
		}
		if (!row->cpu_values) {
			csv_row(out, rep, row, sep, "", row->counter, row->value, &row->stats);
			continue;
		}
		for (unsigned c = 0; c < rep->ncores; c++) {
			char cpu[16];
			const char *note;

			snprintf(cpu, sizeof(cpu), "CPU%d", rep->cores[c]);
			csv_row(out, rep, row, sep, cpu, cpu_counter(row, c, &note), row->cpu_values[c],
				row->cpu_stats ? &row->cpu_stats[c] : &row->stats);
		}
	}
	if (rep->regions)
		region_output_csv(out, rep->regions, rep->rows, rep->nrows, sep);
	metric_output_csv(out, rep->metrics, rep->nmetrics, sep, rep->repeat > 1, rep->per_cpu, csv_field);
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
	for (unsigned i = 0; rep->baseline && i < rep->nbaseline; i++) {
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
	for (unsigned i = 0; rep->baseline && i < rep->nbaseline; i++) {
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

/* -I -A: row @i's count of the interval on each core, a line each. */
static void
interval_per_cpu(FILE *out, const struct stat_interval *iv, unsigned i, const char *sep)
{
	for (unsigned k = 0; k < iv->ncores; k++) {
		uint64_t v = iv->cpu_deltas[(size_t)i * iv->ncores + k];
		char cpu[16], value[40];

		snprintf(cpu, sizeof(cpu), "CPU%d", iv->cores[k]);
		if (sep) {
			csv_field(out, sep, true, "interval");
			csv_number(out, sep, false, "%.6f", iv->time);
			csv_number(out, sep, false, "%u", iv->round);
			csv_number(out, sep, false, "%u", iv->run);
			csv_field(out, sep, false, cpu);
			csv_number(out, sep, false, "%llu", (unsigned long long)v);
			csv_field(out, sep, false, output_row_label(&iv->rows[i]).text);
			fputc('\n', out);
			continue;
		}
		output_thousands(v, value, sizeof(value));
		fprintf(out, "%14.6f %-8s%18s      %s\n", iv->time, cpu, value, output_row_label(&iv->rows[i]).text);
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
			name = json_text(iv->rows[i].ev->requested[0] ? iv->rows[i].ev->requested : iv->rows[i].ev->name);
			text = name ? json_dumps(name, JSON_ENCODE_ANY) : NULL;
			fprintf(out, "%s{\"requested\": %s, \"value\": %llu", n++ ? ", " : "",
				text ? text : "\"\"", (unsigned long long)iv->deltas[i]);
			if (iv->cpu_deltas) {
				fprintf(out, ", \"per_cpu\": [");
				for (unsigned k = 0; k < iv->ncores; k++)
					fprintf(out, "%s{\"cpu\": %d, \"value\": %llu}", k ? ", " : "", iv->cores[k],
						(unsigned long long)iv->cpu_deltas[(size_t)i * iv->ncores + k]);
				fputc(']', out);
			}
			fputc('}', out);
			free(text);
			json_decref(name);
		}
		fputc(']', out);
		if (iv->nmetrics) {
			json_t *metrics = metric_output_json(iv->metrics, iv->nmetrics, false);
			char *text = metrics ? json_dumps(metrics, JSON_COMPACT) : NULL;

			fprintf(out, ", \"metrics\": %s", text ? text : "[]");
			free(text);
			json_decref(metrics);
		}
		fprintf(out, "}\n");
		fflush(out);
		return;
	}
	if (!sep && iv->header && iv->per_cpu && iv->cpu_deltas)
		fprintf(out, "#%13s %-8s%18s      %s\n", "time", "cpu", "counts", "event");
	else if (!sep && iv->header)
		fprintf(out, "#%13s %18s      %s\n", "time", "counts", "event");
	for (unsigned i = 0; i < iv->nrows; i++) {
		char value[40];

		if (iv->rows[i].run != iv->run)
			continue;
		if (iv->per_cpu && iv->cpu_deltas) {
			interval_per_cpu(out, iv, i, sep);
			continue;
		}
		if (sep) {
			csv_field(out, sep, true, "interval");
			csv_number(out, sep, false, "%.6f", iv->time);
			csv_number(out, sep, false, "%u", iv->round);
			csv_number(out, sep, false, "%u", iv->run);
			csv_number(out, sep, false, "%llu", (unsigned long long)iv->deltas[i]);
			csv_field(out, sep, false, output_row_label(&iv->rows[i]).text);
			fputc('\n', out);
			continue;
		}
		output_thousands(iv->deltas[i], value, sizeof(value));
		fprintf(out, "%14.6f %18s      %s\n", iv->time, value, output_row_label(&iv->rows[i]).text);
	}
	if (sep)
		metric_output_interval_csv(out, iv->time, iv->round, iv->run, iv->metrics, iv->nmetrics, sep, csv_field);
	else
		metric_output_interval_human(out, iv->time, iv->metrics, iv->nmetrics);
	fflush(out);
}
