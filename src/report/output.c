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
#include "base/text.h"
#include "events/sim_events.h"
#include "report/output.h"
#include "report/comment.h"
#include "report/csv_records.h"
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
	size_t n;

	label_of(row->ev, l.text, sizeof(l.text));
	/* A software event the kernel let count in user mode only: perf's task-clock:u. */
	n = strlen(l.text);
	if (row->user_only && n + 2 < sizeof(l.text) && !(n >= 2 && strcmp(l.text + n - 2, ":u") == 0))
		memcpy(l.text + n, ":u", 3);
	return l;
}

enum output_status
output_status_of(const struct stat_row *row)
{
	const char *st = row->status ? row->status : (row->counted ? "counted" : "not counted");

	if (strncmp(st, "not supported", 13) == 0)
		return OUTPUT_NOT_SUPPORTED;
	if (!row->counted)
		return OUTPUT_NOT_COUNTED;
	return strncmp(st, "multiplexed", 11) == 0 ? OUTPUT_MULTIPLEXED : OUTPUT_COUNTED;
}

const char *
output_status_name(enum output_status st)
{
	static const char *const names[] = { "counted", "multiplexed", "not_counted", "not_supported" };

	return names[st];
}

const char *
output_status_reason(const struct stat_row *row)
{
	const char *st = row->status ? row->status : "";
	const char *colon;

	if (strcmp(st, "counted") == 0 || strcmp(st, "not counted") == 0 || strcmp(st, "not supported") == 0)
		return "";
	/* "not counted: WHY" -> "WHY"; "multiplexed: running 50.0% of the time" as it is. */
	if (strncmp(st, "not ", 4) == 0 && (colon = strstr(st, ": ")))
		return colon + 2;
	return st;
}

bool
output_is_perf_metrics(const struct stat_row *row)
{
	return (row->ev->flags & EVENT_F_PERF_METRICS) != 0;
}

/* A counted row's figure for people: msec for task-clock, a share of slots for a PERF_METRICS byte. */
static void
human_value(const struct stat_row *row, uint64_t v, char *buf, size_t size)
{
	if (row->unit && strcmp(row->unit, "ns") == 0)
		snprintf(buf, size, "%.2f msec", (double)v / 1e6);
	else if (output_is_perf_metrics(row))
		snprintf(buf, size, "%.2f %%", 100.0 * (double)v / 255.0);
	else
		output_thousands(v, buf, size);
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
	for (unsigned i = 0; command[i]; i++) {
		fprintf(out, "%s", i ? " " : "");
		text_put(out, command[i]);
	}
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

/* perf stat -r's "( +- X% )", the standard error of the mean relative to it; nothing when 0. */
static void
noise(double rel_stderr_percent, char *buf, size_t size)
{
	if (rel_stderr_percent != 0)
		snprintf(buf, size, "  ( +-%6.2f%% )", rel_stderr_percent);
	else
		buf[0] = '\0';
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
/* The sum of a row's lines (-A, --per-thread, --per-core), with its comment: the line without them. */
static void
print_total(FILE *out, const struct stat_report *rep, const struct stat_row *row, int lead, int width, const char *label)
{
	char total[40], comment[EVENT_NAME_MAX + 8];

	human_value(row, row->value, total, sizeof(total));
	comment_of(rep, row, comment, sizeof(comment));
	fprintf(out, "%-*s%18s      %-*s %s\n", lead, "total", total, width, label, comment);
}

/* --per-thread, --per-core: a line per thread or core, each with its comment, then the total. */
static void
print_split(FILE *out, const struct stat_report *rep, const struct stat_row *row, int width, const char *label)
{
	for (unsigned i = 0; i < rep->nsplit; i++) {
		char value[40], comment[EVENT_NAME_MAX + 8];

		human_value(row, row->split_values[i], value, sizeof(value));
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

		human_value(row, row->cpu_values[c], value, sizeof(value));
		snprintf(cpu, sizeof(cpu), "CPU%d", rep->cores[c]);
		if (rep->repeat > 1 && row->nvalues > 0 && row->cpu_stats)
			noise(row->cpu_stats[c].rel_stderr_percent, spread, sizeof(spread));
		comment_at(rep, row, (int)c, comment, sizeof(comment));
		fprintf(out, "%-8s%18s      %-*s %s%s%s\n", cpu, value, width, label, comment, where, spread);
	}
	/* The sum of the CPUs (the -A-less line), with its comment: likwid's Sum, perf's aggregate. */
	print_total(out, rep, row, 8, width, label);
}

/* A row's "#" comment (IPC, CPUs utilized, ...), or with -v the event a typed name resolved to. */
static void
row_comment(const struct stat_report *rep, const struct stat_row *row, char *buf, size_t size)
{
	comment_of(rep, row, buf, size);
	if (!buf[0] && row->counted && output_is_perf_metrics(row))
		snprintf(buf, size, "#  of slots (IA32_PERF_METRICS byte %llu/255)", (unsigned long long)row->value);
	if (rep->verbose && !buf[0] && row->ev->name[0] &&
	    strcmp(row->ev->requested[0] ? row->ev->requested : row->ev->name, row->ev->name) != 0)
		snprintf(buf, size, "#  %s", row->ev->name);
}

/* The comment column: as wide as the widest comment, so what follows a comment stays in line. */
static int
comment_width(const struct stat_report *rep)
{
	size_t w = 0;

	for (unsigned i = 0; i < rep->nrows; i++) {
		char note[EVENT_NAME_MAX + 8];

		row_comment(rep, &rep->rows[i], note, sizeof(note));
		if (strlen(note) > w)
			w = strlen(note);
	}
	return (int)w;
}

/*
 * -r: perf's footer, the mean wall time of a round and its standard error,
 * at 2 more digits than the error's first, and the error relative to the mean.
 */
static void
print_elapsed_stats(FILE *out, const struct stats_summary *ns)
{
	double mean = ns->mean / 1e9, err = ns->stderr_mean / 1e9;
	int precision = (err > 1 ? 0 : err > 0 ? (int)lround(ceil(-log10(err))) : 7) + 2;
	char pct[40];

	noise(ns->rel_stderr_percent, pct, sizeof(pct));
	fprintf(out, " %17.*f +- %.*f seconds time elapsed%s\n\n", precision, mean, precision, err, pct);
}

static bool
any_user_only(const struct stat_report *rep)
{
	for (unsigned i = 0; i < rep->nrows; i++)
		if (rep->rows[i].user_only)
			return true;
	return false;
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
	int width, note_width;
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
	note_width = comment_width(rep);
	for (unsigned i = 0; i < rep->nrows; i++) {
		const struct stat_row *row = &rep->rows[i];
		char value[40], note[EVENT_NAME_MAX + 8], where[192], spread[192] = "";
		char line[sizeof(value) + 2 * sizeof(note) + sizeof(where) + sizeof(spread) + 64];
		const struct output_label lab = output_row_label(row);
		const char *label = lab.text;
		enum output_status st = output_status_of(row);
		const char *reason = output_status_reason(row);

		if (row->counted)
			human_value(row, row->value, value, sizeof(value));
		else
			snprintf(value, sizeof(value), "<%s>", st == OUTPUT_NOT_SUPPORTED ? "not supported" : "not counted");
		row_comment(rep, row, note, sizeof(note));
		/* --metric-only: what is computed from the counts, not the counts (perf's). */
		if (rep->metric_only) {
			const char *text = note + strspn(note, "# ");

			if (text[0])
				fprintf(out, "%32s      %s\n", text, label);
			continue;
		}
		where_of(rep, row, row->counter, row->counter_note, false, where, sizeof(where));
		if (rep->repeat > 1 && row->nvalues > 0)
			noise(row->stats.rel_stderr_percent, spread, sizeof(spread));
		/* Why not counted, or that a count is multiplexed: whole, after the name (never cut to a column). */
		if (reason[0])
			snprintf(spread + strlen(spread), sizeof(spread) - strlen(spread), "  (%s)", reason);
		if (rep->nsplit && row->split_values) {
			print_split(out, rep, row, width, label);
			continue;
		}
		if (rep->per_cpu && row->cpu_values) {
			print_per_cpu(out, rep, row, width, label);
			continue;
		}
		snprintf(line, sizeof(line), "%18s      %-*s %-*s%s%s", value, width, label, note_width, note, where,
			 spread);
		for (size_t n = strlen(line); n > 0 && line[n - 1] == ' '; n--)
			line[n - 1] = '\0';
		fprintf(out, "%s\n", line);
	}
	fprintf(out, "\n");
	if (rep->regions && rep->command_ran)
		region_output_human(out, rep->regions, rep->rows, rep->nrows, rep->repeat > 1);
	metric_output_human(out, rep->metrics, rep->nmetrics, rep->repeat > 1, rep->runs, rep->per_cpu);
	if (rep->command_ran && rep->round_elapsed.n > 1)
		print_elapsed_stats(out, &rep->round_elapsed);
	else if (rep->command_ran)
		fprintf(out, "%18.9f seconds time elapsed%s\n\n", rep->elapsed, rep->runs > 1 ? " (all runs)" : "");
	/* perf prints the command's CPU times for one run only; -r's are in --json. */
	if (rep->command_ran && rep->have_times && rep->round_elapsed.n <= 1)
		fprintf(out, "%18.9f seconds user\n%18.9f seconds sys\n\n", rep->user_time, rep->sys_time);
	if (rep->not_supported_why)
		fprintf(out, " Hardware events <not supported>: %s\n\n", rep->not_supported_why);
	if (any_user_only(rep))
		fprintf(out, " Software events marked :u counted user mode only: kernel.perf_event_paranoid lets users count no kernel mode; as root 'sysctl kernel.perf_event_paranoid=1' adds it, or run pmustat as root.\n\n");
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

/* A count in the CSV's unit: msec for task-clock (as perf prints it, to the ns), else as counted. */
static double
csv_scaled(const struct stat_row *row, double v)
{
	return row->unit && strcmp(row->unit, "ns") == 0 ? v / 1e6 : v;
}

static const char *
csv_unit(const struct stat_row *row)
{
	if (row->unit && strcmp(row->unit, "ns") == 0)
		return "msec";
	return output_is_perf_metrics(row) ? "/255 slots" : "";
}

/*
 * One "count" record (csv_records.h): @cpu "CPU<N>" with -A ("" for the
 * sum), @counter, @value and @stats the sum's or the core's.
 */
static void
csv_row(struct csv_writer *w, const struct stat_report *rep, const struct stat_row *row, const char *cpu,
	const char *counter, uint64_t value, const struct stats_summary *stats)
{
	enum output_status st = output_status_of(row);

	csv_begin(w, CSV_COUNT);
	csv_text(w, cpu);
	if (row->counted && row->unit && strcmp(row->unit, "ns") == 0)
		csv_plain(w, csv_scaled(row, (double)value));
	else if (row->counted)
		csv_printf(w, "%llu", (unsigned long long)value);
	else
		csv_text(w, st == OUTPUT_NOT_SUPPORTED ? "<not supported>" : "<not counted>");
	csv_text(w, csv_unit(row));
	csv_text(w, output_row_label(row).text);
	csv_text(w, row->ev->name);
	csv_text(w, counter);
	csv_printf(w, "%u", row->run);
	csv_text(w, output_status_name(st));
	csv_text(w, output_status_reason(row));
	if (rep->repeat > 1 && row->nvalues > 0) {
		csv_printf(w, "%u", stats->n);
		csv_plain(w, csv_scaled(row, stats->mean));
		csv_plain(w, csv_scaled(row, stats->median));
		csv_plain(w, csv_scaled(row, (double)stats->min));
		csv_plain(w, csv_scaled(row, (double)stats->max));
		csv_plain(w, csv_scaled(row, stats->stddev));
		csv_plain(w, stats->rel_stderr_percent);
	} else if (rep->repeat > 1) {
		csv_text(w, "0");
	}
	csv_end(w);
}

void
output_csv(FILE *out, const struct stat_report *rep, const char *sep)
{
	unsigned own_headers = 0;
	struct csv_writer w = { out, sep, NULL, CSV_COUNT, 0 };

	if (rep->csv_header)
		w.headers = rep->csv_headers ? rep->csv_headers : &own_headers;
	for (unsigned i = 0; i < rep->nrows; i++) {
		const struct stat_row *row = &rep->rows[i];

		if (!rep->per_cpu || !row->cpu_values) {
			csv_row(&w, rep, row, "", row->counter, row->value, &row->stats);
			continue;
		}
		for (unsigned c = 0; c < rep->ncores; c++) {
			char cpu[16];
			const char *note;

			snprintf(cpu, sizeof(cpu), "CPU%d", rep->cores[c]);
			csv_row(&w, rep, row, cpu, cpu_counter(row, c, &note), row->cpu_values[c],
				row->cpu_stats ? &row->cpu_stats[c] : &row->stats);
		}
	}
	if (rep->regions)
		region_output_csv(&w, rep->regions, rep->rows, rep->nrows);
	metric_output_csv(&w, rep->metrics, rep->nmetrics, rep->repeat > 1, rep->per_cpu);
	for (unsigned i = 0; rep->check_results && i < rep->nchecks; i++) {
		const struct check_result *r = &rep->check_results[i];

		csv_begin(&w, CSV_CHECK);
		csv_text(&w, r->passed ? "PASS" : "FAIL");
		if (r->defined) {
			csv_plain(&w, r->lhs);
			csv_plain(&w, r->rhs);
		} else {
			csv_text(&w, "");
			csv_text(&w, "");
		}
		csv_text(&w, rep->checks[i].text);
		csv_end(&w);
	}
	for (unsigned i = 0; rep->baseline && i < rep->nbaseline; i++) {
		const struct baseline_cmp *c = &rep->baseline[i];

		if (!c->in_baseline)
			continue;
		csv_begin(&w, CSV_BASELINE);
		csv_text(&w, c->passed ? "PASS" : "FAIL");
		if (c->counted) {
			csv_plain(&w, c->value);
			csv_plain(&w, c->base);
		} else {
			csv_text(&w, "");
			csv_text(&w, "");
		}
		/* Grown from 0: no percentage. */
		if (c->counted && isfinite(c->change_percent))
			csv_printf(&w, "%.4f", c->change_percent);
		else
			csv_text(&w, "");
		csv_printf(&w, "%.4f", c->tolerance_percent);
		csv_text(&w, c->event);
		csv_end(&w);
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

/* One "interval" record: @cpu "CPU<N>" with -A, else "". */
static void
interval_csv(struct csv_writer *w, const struct stat_interval *iv, unsigned i, const char *cpu, uint64_t v)
{
	const struct stat_row *row = &iv->rows[i];

	csv_begin(w, CSV_INTERVAL);
	csv_printf(w, "%.6f", iv->time);
	csv_printf(w, "%u", iv->round);
	csv_printf(w, "%u", iv->run);
	csv_text(w, cpu);
	if (row->unit && strcmp(row->unit, "ns") == 0)
		csv_plain(w, csv_scaled(row, (double)v));
	else
		csv_printf(w, "%llu", (unsigned long long)v);
	csv_text(w, csv_unit(row));
	csv_text(w, output_row_label(row).text);
	csv_end(w);
}

/* -I -A: row @i's count of the interval on each core, a line each. */
static void
interval_per_cpu(FILE *out, const struct stat_interval *iv, unsigned i, struct csv_writer *w)
{
	for (unsigned k = 0; k < iv->ncores; k++) {
		uint64_t v = iv->cpu_deltas[(size_t)i * iv->ncores + k];
		char cpu[16], value[40];

		snprintf(cpu, sizeof(cpu), "CPU%d", iv->cores[k]);
		if (w) {
			interval_csv(w, iv, i, cpu, v);
			continue;
		}
		output_thousands(v, value, sizeof(value));
		fprintf(out, "%14.6f %-8s%18s      %s\n", iv->time, cpu, value, output_row_label(&iv->rows[i]).text);
	}
}

void
output_interval(FILE *out, const struct stat_interval *iv, const char *sep, bool json)
{
	struct csv_writer w = { out, sep, iv->csv_headers, CSV_INTERVAL, 0 };

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
			interval_per_cpu(out, iv, i, sep ? &w : NULL);
			continue;
		}
		if (sep) {
			interval_csv(&w, iv, i, "", iv->deltas[i]);
			continue;
		}
		output_thousands(iv->deltas[i], value, sizeof(value));
		fprintf(out, "%14.6f %18s      %s\n", iv->time, value, output_row_label(&iv->rows[i]).text);
	}
	if (sep)
		metric_output_interval_csv(&w, iv->time, iv->round, iv->run, iv->metrics, iv->nmetrics);
	else
		metric_output_interval_human(out, iv->time, iv->metrics, iv->nmetrics);
	fflush(out);
}
