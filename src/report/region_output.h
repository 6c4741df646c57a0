/*
 * region_output.h - the code regions of a `pmustat --regions` run
 * (libpmustat-region's counts) in the three outputs: a block after the
 * text table, "region" records in -x CSV, and the JSON "regions" array.
 *
 * A region's values are per stat row (the same events and spellings as the
 * whole-run table): each the sum over the region's completed pairs in every
 * thread, taken in the run (batch) that counted the event; with -r, the
 * median over the rounds. Software rows are never counted in a region.
 */
#ifndef PMUSTAT_REGION_OUTPUT_H
#define PMUSTAT_REGION_OUTPUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/stats.h"

struct metric_row;
struct stat_row;

#define REGION_OUT_NAME_SIZE	64

/* One event of one region. */
struct region_value {
	bool applies;			/* a hardware event (software ones are not read in regions) */
	bool counted;
	uint64_t value;			/* the mean with -r, rounded half up (as the events') */
	const uint64_t *values;		/* every round's sum */
	unsigned nvalues;
	struct stats_summary stats;	/* when nvalues > 0 */
};

/* One region of one thread (a single run: threads are the same in every event's count). */
struct region_thread_out {
	int tid;
	uint64_t calls;
	const uint64_t *sums;		/* per row; software rows 0 */
	const bool *counted;		/* per row */
};

struct region_out {
	char name[REGION_OUT_NAME_SIZE];	/* valid UTF-8, no control characters */
	bool truncated;			/* the program's name was longer */
	uint64_t calls;			/* completed begin/end pairs, every thread, the last round */
	unsigned threads;		/* threads it ran in */
	const struct region_value *ev;	/* per stat row */
	const struct region_thread_out *per_thread;	/* NULL: not available (several runs) */
	unsigned nper_thread;
	const struct metric_row *metrics;	/* -M's, from the region's sums (report/metric_output.h) */
	unsigned nmetrics;
};

struct region_report {
	const struct region_out *regions;
	unsigned nregions;
	bool attached;			/* the program accepted the area in some run */
	bool per_thread;		/* -A: each region's threads in the text and CSV too */
	unsigned runs;			/* runs of the command per round (per thread needs one) */
	bool with_metrics;		/* -M: each region's metrics */
	bool repeat;			/* -r N > 1: the metrics' statistics in the JSON */
};

/*
 * The block after the text table: per region its calls, each event's sum
 * and -M's metrics; with -A a line per thread (or why there is none).
 */
void
region_output_human(FILE *out, const struct region_report *r, const struct stat_row *rows, unsigned nrows,
		    bool repeat);

/*
 * CSV records (csv_records.h): a "region" per region and event (value
 * "<not counted>" when that run did not see the region); with -A then a
 * "region-thread" per thread of the region and event; with -M a
 * "region-metric" per region and metric.
 */
struct csv_writer;
void
region_output_csv(struct csv_writer *w, const struct region_report *r, const struct stat_row *rows, unsigned nrows);

/*
 * [{"name", "calls", "threads", "truncated", "events": [{"name", "requested",
 * "value", "values", "stats"}], "per_thread": [{"tid", "calls", "events":
 * [{"name", "value"}]}] | null, "metrics": [as the record's "metrics"] (with
 * -M only)}]; NULL when out of memory.
 */
json_t *
region_output_json(const struct region_report *r, const struct stat_row *rows, unsigned nrows);

#endif
