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
#include <stdio.h>

struct event;

#define OUTPUT_FORMAT_VERSION 1

struct stat_row {
	const struct event *ev;	/* name, requested, encoding */
	char counter[16];	/* "fixed0", "pmc3", or "-" */
	unsigned run;		/* 1-based; 0 when not counted */
	bool counted;
	uint64_t value;
	const char *status;	/* "counted", or why not */
	/* perf_event rows (issue 10); zero for MSR-counted rows. */
	const char *unit;	/* "ns" (task-clock), or NULL for a plain count */
	bool perf_times;	/* enabled/running below are the kernel's */
	uint64_t enabled;	/* ns the event was enabled */
	uint64_t running;	/* ns it was on a counter (< enabled: multiplexed) */
	char status_buf[128];	/* storage a status may point into */
};

struct stat_report {
	const char *version;		/* pmustat's */
	const char *cpu;		/* brand or mapfile key */
	int core;			/* -1 when not chosen yet */
	const char *event_table;	/* NULL: architectural events only */
	char *const *command;		/* argv, NULL-terminated; may be NULL */
	int exit_status;		/* pmustat's own exit status */
	bool command_ran;
	double elapsed;			/* seconds, summed over runs */
	unsigned runs;
	const char *read_method;	/* "rdpmc", "msr" or NULL */
	const char *error;		/* pmustat's failure, or NULL */
	const char *backend;		/* "msr", "perf", or NULL before the choice */
	bool software;			/* some rows were counted through perf_event */
	const struct stat_row *rows;
	unsigned nrows;
};

/* perf stat's table with comments (IPC, branch miss ratio) and caveats. */
void
output_human(FILE *out, const struct stat_report *rep);

/*
 * One line per event: value SEP unit SEP event SEP name SEP counter SEP run
 * SEP status (perf's first three fields, then pmustat's).
 */
void
output_csv(FILE *out, const struct stat_report *rep, const char *sep);

/* One JSON object and a newline. 0, or -ENOMEM / -EIO. */
int
output_json(FILE *out, const struct stat_report *rep);

/* @v with thousands separators ("1,234,567") into @buf. */
void
output_thousands(uint64_t v, char *buf, size_t size);

#endif
