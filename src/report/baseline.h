/*
 * baseline.h - --save-baseline / --baseline: compare this run's counts (and
 * -M's metric values) with a saved JSON result (the --json record of an
 * earlier run).
 *
 * A baseline file is untrusted input: at most BASELINE_MAX_BYTES, parsed
 * with jansson (duplicate keys refused), every field used is validated and
 * a problem is reported naming the file and the field. Pure but for
 * reading the file.
 */
#ifndef PMUSTAT_BASELINE_H
#define PMUSTAT_BASELINE_H

#include <stdbool.h>
#include <stddef.h>

struct pmustat_error;

#define BASELINE_MAX_BYTES (16u << 20)
#define BASELINE_MAX_EVENTS 256
/* Events and REGION:EVENT entries (--regions) together. */
#define BASELINE_MAX_ENTRIES 4096
#define BASELINE_NAME_MAX 160
#define BASELINE_MAX_TOLERANCES 64

/* One event of a baseline, or of the current run. */
struct baseline_event {
	char name[BASELINE_NAME_MAX];		/* as resolved */
	char requested[BASELINE_NAME_MAX];	/* as typed */
	bool counted;
	double value;				/* with -r, the median */
};

struct baseline {
	char cpu_model[64];	/* the mapfile key, e.g. GenuineIntel-6-5E */
	char cpu[128];		/* brand, for messages */
	char event_table[128];	/* "" when architectural events only */
	char backend[16];	/* "msr", "perf", "sim"; "" when the record has none */
	char sim_version[32];	/* backend sim: the Valgrind version that simulated it, "" unknown */
	/*
	 * The events, then each region's as REGION:EVENT (both names), when the
	 * file has "regions", then -M's metrics by name (value: the metric's).
	 */
	struct baseline_event events[BASELINE_MAX_ENTRIES];
	unsigned nevents;
};

/*
 * Read and validate @path. 0, or -errno with "PATH: ..." naming the field
 * in @err (-EINVAL for a malformed file, -EFBIG above the size limit).
 */
int
baseline_load(const char *path, struct baseline *b, struct pmustat_error **err);

/* "REGION:EVENT" into @buf: how a region's event is named in checks, tolerances and comparisons. */
void
baseline_region_name(char *buf, size_t size, const char *region, const char *event);

struct baseline_tolerance {
	char event[BASELINE_NAME_MAX];	/* "" for the default */
	double percent;
};

struct baseline_tolerances {
	double default_percent;		/* 0 unless --tolerance N% */
	struct baseline_tolerance per_event[BASELINE_MAX_TOLERANCES];
	unsigned n;
	bool both;			/* --tolerance-both: shrinking fails too */
};

/*
 * One --tolerance argument: "2%", "2" (percent too), or "EVENT=1%". 0, or
 * -EINVAL with a message in @err.
 */
int
baseline_parse_tolerance(const char *arg, struct baseline_tolerances *t, struct pmustat_error **err);

/* The tolerance (percent) that applies to an event. */
double
baseline_tolerance_for(const struct baseline_tolerances *t, const struct baseline_event *e);

struct baseline_cmp {
	char event[BASELINE_NAME_MAX];	/* as typed in this run */
	bool in_baseline;		/* false: new event, not compared */
	bool counted;			/* counted now and in the baseline */
	double value, base;
	double change_percent;		/* 100 * (value - base) / base; 0 when both 0 */
	double tolerance_percent;
	bool passed;
};

/*
 * Compare @cur[0..n) with @b into @out[0..n). Returns the number of failed
 * comparisons. An event not in the baseline passes (nothing to compare);
 * one not counted now or then fails; growth from 0 fails unless the value
 * is 0 too.
 */
unsigned
baseline_compare(const struct baseline *b, const struct baseline_event *cur, unsigned n,
		 const struct baseline_tolerances *t, struct baseline_cmp *out);

#endif
