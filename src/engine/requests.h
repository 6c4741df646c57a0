/*
 * requests.h - the names the user asked to count, resolved: every -e term,
 * the default set without -e, and the events a --check names that are not
 * asked for otherwise.
 *
 * An event is counted once however often and however it is spelled (the
 * same encoding: event_spec_same(); `-e cycles,cycles`, or a --check on
 * BR_MISP_RETIRED.ALL_BRANCHES beside the default branch-misses) and
 * reported under each spelling used: one row per spelling, each pointing
 * at the event counted for it. Hardware events are counted on the PMU,
 * software events by the kernel; the rows of hardware events come first.
 */
#ifndef PMUSTAT_REQUESTS_H
#define PMUSTAT_REQUESTS_H

#include <stdbool.h>

#include "events/event.h"

struct pmustat_error;
struct stat_opts;
struct target;

/* The most hardware events of the default set. */
#define REQUESTS_MAX_DEFAULTS 8

struct stat_events {
	struct event *hw;		/* counted on the PMU, in the order first asked */
	unsigned nhw;
	struct event *sw;		/* counted by the kernel */
	unsigned nsw;
	struct event *rows;		/* one per spelling: its name and requested text */
	unsigned nrows;
	unsigned *row_event;		/* per row: i < nhw: hw[i]; else sw[i - nhw] */
	int *pinned_run;		/* per hardware event: the run it must be in (a metric's), or -1 */
	unsigned cap_hw, cap_sw, cap_rows;
	unsigned groups;		/* the highest event.group given out */
	/*
	 * How names resolve, set by requests_resolve(): simulated events
	 * (--backend sim, events/sim_events.h); the kernel's generic events
	 * (--backend perf on a CPU pmustat does not program); else the CPU's.
	 */
	bool simulated;
	bool kernel_generic;
	/*
	 * The default set on a CPU pmustat cannot count (a VM without a PMU):
	 * its hardware events, by name only, reported "not supported" after
	 * the rows, and why (one line for them all).
	 */
	struct event unsupported[REQUESTS_MAX_DEFAULTS];
	unsigned nunsupported;
	char unsupported_why[512];
};

/*
 * Resolve @o's names against @t (its table is loaded when a name is not an
 * alias or a raw event). 0, or -errno with @err: an unknown or refused
 * event, hardware events on a CPU pmustat cannot count, nothing to count.
 * A default event this CPU lacks is left out (said with -v). Without -e:
 * perf's default set, the software events task-clock, context-switches,
 * cpu-migrations and page-faults and the hardware ones; on a CPU pmustat
 * cannot count (no PMU) the hardware ones go to out->unsupported and the
 * software ones still count. A name given with -e that cannot be counted
 * always fails.
 * With --backend sim every name is a simulated event (sim_events.h; the
 * default set: instructions, L1-dcache-loads, L1-dcache-load-misses,
 * LLC-load-misses, branches, branch-misses) and any other is refused,
 * naming what the simulation counts. With --backend perf on a CPU whose
 * PMU pmustat does not program, perf's generic names are the kernel's
 * generic events (event_spec_parse_kernel()).
 * -M alone counts no default set. A --check name for which @skip (may be
 * NULL) says true is not an event (a metric).
 */
int
requests_resolve(const struct stat_opts *o, struct target *t, struct stat_events *out,
		 bool (*skip)(void *ctx, const char *name), void *skip_ctx, struct pmustat_error **err);

/*
 * Count @e in run @run (0-based), for a metric whose events must all come
 * from one run: the same event already pinned there, or asked for with -e
 * and not pinned yet, is reused; otherwise it is counted again, with a row
 * of its own. Returns its index in ->hw, or -errno with @err.
 */
int
requests_add_pinned(struct stat_events *s, const struct event *e, int run, struct pmustat_error **err);

/* The counted event of row @r. */
const struct event *
requests_row_event(const struct stat_events *e, unsigned r);

/* Whether any hardware event needs an offcore response MSR. */
bool
requests_uses_offcore(const struct stat_events *e);

void
requests_free(struct stat_events *e);

#endif
