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
 * threshold: marked. With -r, the median and a line of statistics. With
 * @per_cpu (-A), a line per core ("CPU3") instead, from its counts alone.
 */
void metric_output_human(FILE *out, const struct metric_row *rows, unsigned n, bool repeat, unsigned runs,
			 bool per_cpu);
/* One metric's line of that table (and its statistics line with -r). */
void metric_output_human_row(FILE *out, const struct metric_row *m, bool repeat, unsigned runs);

/*
 * One CSV record per metric: "metric" SEP value SEP unit SEP name SEP run SEP
 * status SEP flagged; with -r then runs SEP mean SEP median SEP min SEP max
 * SEP stddev. An empty value is no value; status is "counted" or why not.
 * With @per_cpu (-A), one record per core instead, "CPU3" SEP first, as
 * the events' (flagged empty, no statistics).
 * @field writes one field as output.c quotes them.
 */
void metric_output_csv(FILE *out, const struct metric_row *rows, unsigned n, const char *sep, bool repeat,
		       bool per_cpu, void (*field)(FILE *out, const char *sep, bool first, const char *text));

/*
 * -I: one interval's metric values, under its counts. Human: a line each,
 * time, value, unit, name (or "-" and why not). CSV: "interval-metric" SEP
 * time SEP round SEP run SEP value SEP unit SEP name SEP status SEP flagged.
 */
void metric_output_interval_human(FILE *out, double time, const struct metric_row *rows, unsigned n);
void metric_output_interval_csv(FILE *out, double time, unsigned round, unsigned run, const struct metric_row *rows,
				unsigned n, const char *sep,
				void (*field)(FILE *out, const char *sep, bool first, const char *text));

/* The "metrics" array of the JSON record, with per_cpu on several cores (NULL: out of memory). */
json_t *metric_output_json(const struct metric_row *rows, unsigned n, bool repeat);

#endif
