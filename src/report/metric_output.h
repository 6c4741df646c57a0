/*
 * metric_output.h - the values of the metrics of a stat run (-M), as the
 * engine evaluated them, in the human table, -x CSV and --json. Called
 * from output.c after the events; prints nothing else.
 */
#ifndef PMUSTAT_METRIC_OUTPUT_H
#define PMUSTAT_METRIC_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#define METRIC_ROW_WHY_MAX 320

/* A metric's value on one core of -C LIST or -a, from that core's counts alone. */
struct metric_cpu_value {
	int cpu;
	bool valid;
	double value;			/* with -r the median of the rounds' values */
	char why[METRIC_ROW_WHY_MAX];
};

struct metric_row {
	const char *name;		/* Intel's ("Frontend_Bound") */
	const char *unit;		/* "percent" (already x100), "per instruction", or "" */
	const char *groups;		/* "TmaL1;PGO", or "" */
	const char *threshold;		/* Intel's threshold text, or NULL */
	unsigned run;			/* 1-based run of its events; 0: not counted */
	bool valid;			/* false: no value (null), why says why */
	double value;			/* the value; with -r the median of the rounds' values */
	char why[METRIC_ROW_WHY_MAX];
	int flagged;			/* 1 past Intel's threshold, 0 not, -1 unknown */
	/* -r: the rounds that gave a value, and their statistics. */
	unsigned nvalues;
	double mean, min, max, stddev;
	/* Several cores: the value on each (NULL with one core or not counted). */
	const struct metric_cpu_value *per_cpu;
	unsigned ncpus;
};

/*
 * Does @query (a --check name) name the metric @name? 2: its name, any
 * case; 1: its short name, the part after "Info_<Area>_" of an Info
 * metric ("IPC" for Info_Thread_IPC, which callers take only when one
 * metric has it); 0: no.
 */
int metric_name_matches(const char *query, const char *name);

/* The metric row @query names (its name, else the only one with that short name), or NULL. */
const struct metric_row *metric_row_named(const struct metric_row *rows, unsigned n, const char *query);

/*
 * The metrics under the events' table: value, unit, name, and the run of
 * its events when there are several runs; no value: why; past Intel's
 * threshold: marked. With -r, the mean and perf's "( +- X% )" (the
 * standard error of the mean, relative to it). With
 * @per_cpu (-A), a line per core ("CPU3") instead, from its counts alone.
 */
void metric_output_human(FILE *out, const struct metric_row *rows, unsigned n, bool repeat, unsigned runs,
			 bool per_cpu);
/* One metric's line of that table, its unit in a column @unit_width wide. */
void metric_output_human_row(FILE *out, const struct metric_row *m, bool repeat, unsigned runs, int unit_width);
/* The unit column's width for @rows: the longest unit ("%", "per instruction"), at least 3. */
int metric_output_unit_width(const struct metric_row *rows, unsigned n);

/*
 * CSV "metric" records (csv_records.h), one per metric; with @per_cpu
 * (-A) one per core instead, its "cpu" field CPU<N>. With -r the value is
 * the mean, then the statistics fields. No value: value empty, status
 * "not_counted", reason why.
 */
struct csv_writer;
void metric_output_csv(struct csv_writer *w, const struct metric_row *rows, unsigned n, bool repeat, bool per_cpu);

/*
 * -I: one interval's metric values, under its counts. Human: a line each,
 * time, value, unit, name (or "-" and why not). CSV: "interval-metric" records.
 */
void metric_output_interval_human(FILE *out, double time, const struct metric_row *rows, unsigned n);
void metric_output_interval_csv(struct csv_writer *w, double time, unsigned round, unsigned run,
				const struct metric_row *rows, unsigned n);

/* --regions -M: region @region's metric @m as a "region-metric" record. */
void metric_output_region_csv(struct csv_writer *w, const char *region, const struct metric_row *m);

/* The "metrics" array of the JSON record, with per_cpu on several cores (NULL: out of memory). */
json_t *metric_output_json(const struct metric_row *rows, unsigned n, bool repeat);

#endif
