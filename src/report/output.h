/*
 * output.h - print the result of a stat run: perf stat's human table, -x
 * SEP CSV, or one JSON object. All three are written to a FILE* (stderr
 * unless -o) and never print anything else.
 *
 * The CSV and JSON layouts are a contract: JSON carries format_version
 * (OUTPUT_FORMAT_VERSION), bumped on any incompatible change.
 */
#ifndef PMUSTAT_OUTPUT_H
#define PMUSTAT_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>
#include <stdio.h>
#include <sys/types.h>

#include "events/event.h"
#include "report/baseline.h"
#include "report/check.h"
#include "report/stats.h"

struct event;
struct region_report;
struct metric_row;

#define OUTPUT_FORMAT_VERSION 1

/* Where a row counted on one core: each core's plan places its events on its own counters. */
struct stat_cpu_counter {
	char counter[16];	/* as stat_row.counter */
	char note[96];		/* as stat_row.counter_note */
};

struct stat_row {
	const struct event *ev;	/* name, requested, encoding */
	char counter[16];	/* "fixed0", "pmc3", or "-" */
	/* Why not on the counter it asked for ("fixed counter 1 is held by the NMI watchdog"), or "". */
	char counter_note[96];
	unsigned run;		/* 1-based; 0 when not counted */
	bool counted;
	uint64_t value;
	const char *status;	/* "counted", or why not */
	/*
	 * Every run's count (-r N: up to N), and their statistics when
	 * nvalues > 0; value is then the median, rounded half up.
	 */
	const uint64_t *values;
	unsigned nvalues;
	struct stats_summary stats;
	/* perf_event rows; zero for MSR-counted rows. */
	const char *unit;	/* "ns" (task-clock), or NULL for a plain count */
	bool perf_times;	/* enabled/running below are the kernel's */
	uint64_t enabled;	/* ns the event was enabled */
	uint64_t running;	/* ns it was on a counter (< enabled: multiplexed) */
	char status_buf[128];	/* storage a status may point into */
	/*
	 * Per core of stat_report.cores (hardware rows counted; NULL
	 * otherwise): the count on each, with -r the median of its rounds,
	 * and their statistics when nvalues > 0; value is their sum.
	 */
	const uint64_t *cpu_values;
	const struct stats_summary *cpu_stats;
	/* Per core as cpu_values: its counter there (NULL: counter on every core). */
	const struct stat_cpu_counter *cpu_counters;
	/* --per-thread, --per-core: the count of each of stat_report.split_labels (NULL: none). */
	const uint64_t *split_values;
};

/* --backend sim: what simulated the counts (the cache model is events/sim_events.h's). */
struct stat_sim {
	const char *valgrind_version;	/* "3.19.0", NULL before Valgrind was found */
	const char *tool;		/* "cachegrind" */
	const char *glibc_tunables;	/* what the command's glibc was told */
	unsigned processes;		/* processes summed in the last run (0: none ran) */
};

struct stat_report {
	const char *version;		/* pmustat's */
	const char *cpu;		/* brand or mapfile key */
	int core;			/* -1 when not chosen yet */
	const int *cores;		/* every core counted, ascending (@core is the first) */
	unsigned ncores;		/* 0: not chosen yet */
	bool per_cpu;			/* -A: one line per core */
	bool listed_cores;		/* -C LIST or -a: the JSON has cores and per_cpu */
	bool counts_cores;		/* every count is the cores' (run_counts_cores()), not the command's own */
	bool metric_only;		/* --metric-only: the human table has the comments and metrics, no counts */
	const char *cgroup;		/* -G: the cgroup whose tasks were counted on the cores */
	/*
	 * --per-thread ("sleep-1234") or --per-core ("S0-D0-C1" and its CPUs):
	 * the human table's lines of each row with split_values, then its total.
	 */
	const char *const *split_labels;
	unsigned nsplit;
	const pid_t *tids;		/* -t: the threads counted */
	unsigned ntids;
	const char *event_table;	/* NULL: architectural events only */
	char *const *command;		/* argv, NULL-terminated; NULL: counted without one */
	const pid_t *pids;		/* -p: the processes counted */
	unsigned npids;			/* 0 without -p */
	int exit_status;		/* pmustat's own exit status */
	bool command_ran;
	double elapsed;			/* seconds, summed over runs */
	bool have_times;		/* user_time and sys_time are the command's */
	double user_time, sys_time;	/* its CPU time in user and kernel mode, seconds, summed over runs */
	/* Why the rows "not supported" (the default set without a PMU) are, or NULL. */
	const char *not_supported_why;
	/* Why the default set's software events are "not supported" (perf_event_open refused), or NULL. */
	const char *sw_not_supported_why;
	unsigned runs;
	const char *read_method;	/* "rdpmc", "msr" or NULL */
	const char *window;		/* "exact", "approximate", or NULL (the command did not run) */
	const char *error;		/* pmustat's failure, or NULL */
	const char *backend;		/* "msr", "perf", "sim", or NULL before the choice */
	const struct stat_sim *sim;	/* --backend sim, else NULL */
	bool software;			/* some rows were counted through perf_event */
	const struct stat_row *rows;
	unsigned nrows;
	const char *cpu_model;		/* the mapfile key (GenuineIntel-6-5E) or NULL */
	unsigned repeat;		/* -r N (1 without); rows carry stats when > 1 */
	unsigned rounds;		/* of those, the rounds run (fewer: stopped at a failure) */
	/* --check: the expressions and their results (NULL results: not evaluated). */
	const struct check *checks;
	const struct check_result *check_results;
	unsigned nchecks;
	/* --baseline FILE: one comparison per row, then per region and row (NULL: no baseline). */
	const char *baseline_path;
	const struct baseline_cmp *baseline;
	unsigned nbaseline;
	bool tolerance_both;
	bool gate_failed;		/* a check or a comparison failed */
	bool json_one_line;		/* -I: every JSON record is one line */
	bool verbose;			/* -v: the table's comment names the resolved event */
	bool csv_header;		/* --csv-header: the CSV starts with the field names */
	const struct region_report *regions;	/* --regions (report/region_output.h), else NULL */
	/* -M: the metrics' values (report/metric_output.h); with_metrics: -M was given. */
	const struct metric_row *metrics;
	unsigned nmetrics;
	bool with_metrics;
};

/* One -I record: the counts of one interval of one run. */
struct stat_interval {
	double time;			/* seconds since the command started */
	unsigned round;			/* 1-based, of -r */
	unsigned run;			/* 1-based batch of events (stat_row.run) */
	const struct stat_row *rows;	/* the events; those of other runs are skipped */
	unsigned nrows;
	const uint64_t *deltas;		/* per row: counted during the interval */
	bool header;			/* human: print the column header first */
	/* With -C LIST or -a (cpu_deltas not NULL): per row i and core k, cpu_deltas[i * ncores + k]. */
	const int *cores;
	unsigned ncores;
	const uint64_t *cpu_deltas;
	bool per_cpu;			/* -A: one line per core */
	/* -M: the values of this run's metrics over the interval. */
	const struct metric_row *metrics;
	unsigned nmetrics;
};

/* perf stat's table with comments (IPC, branch miss ratio) and caveats. */
void
output_human(FILE *out, const struct stat_report *rep);

/*
 * One line per event (fields quoted as RFC 4180 says when they hold SEP, a
 * quote or a line break): value SEP unit SEP event SEP name SEP counter SEP run
 * SEP status (perf's first three fields, then pmustat's); with -r, then
 * runs SEP mean SEP median SEP min SEP max SEP stddev SEP rel_stddev%.
 * Then one record per check ("check" SEP PASS|FAIL SEP lhs SEP rhs SEP
 * expression) and per baseline comparison ("baseline" SEP PASS|FAIL SEP
 * value SEP baseline value SEP change% SEP tolerance% SEP event).
 */
void
output_csv(FILE *out, const struct stat_report *rep, const char *sep);

/*
 * Whether @sep can separate CSV fields: non-empty, with no double quote
 * and no line break (RFC 4180 quoting needs those). A field holding the
 * separator, a quote or a line break is written in double quotes, its
 * quotes doubled.
 */
bool
output_csv_separator_ok(const char *sep);

/* One CSV field, after @sep unless @first, quoted as output_csv() says. */
/* The name a row is shown under: as asked for, with its ring when restricted to one (label.h). */
struct output_label {
	char text[EVENT_NAME_MAX + 8];
};

struct output_label
output_row_label(const struct stat_row *row);

void
output_csv_field(FILE *out, const char *sep, bool first, const char *text);

/*
 * One JSON object and a newline (man/pmustat-output.schema.json); on one
 * line when rep->json_one_line (-I: JSON Lines). 0, or -ENOMEM / -EIO.
 */
int
output_json(FILE *out, const struct stat_report *rep);

/*
 * PASS/FAIL lines of the checks and the baseline comparisons, one each,
 * for people ("PASS  INST_RETIRED.ANY <= 1M  (measured 1000)").
 */
void
output_gate_lines(FILE *out, const struct stat_report *rep);

/*
 * One -I record: human lines, CSV lines ("interval" SEP time SEP round SEP
 * run SEP value SEP event; with -A "interval" SEP time SEP round SEP run
 * SEP CPU<N> SEP value SEP event per core) or one compact JSON object on
 * one line (with a list of cores, each event with per_cpu).
 */
void
output_interval(FILE *out, const struct stat_interval *iv, const char *sep, bool json);

/* A double as JSON (an integer when it is one; null when not finite). */
json_t *
output_json_num(double v);

/* -r statistics as JSON: {"runs", "mean", "median", "min", "max", "stddev", "rel_stddev_percent"}; null without values. */
json_t *
output_json_stats(const struct stats_summary *st, unsigned nvalues);

/* @v with thousands separators ("1,234,567") into @buf; without them after output_set_big_num(false). */
void
output_thousands(uint64_t v, char *buf, size_t size);

/* --no-big-num (false): the human table's counts as plain digits, as perf stat --no-big-num. */
void
output_set_big_num(bool on);

#endif
