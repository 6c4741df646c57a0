/*
 * regions.h - `pmustat --regions`: the step of a stat run that lets the
 * command count its own code regions with libpmustat-region
 * (include/pmustat/region.h, src/region/region_abi.h).
 *
 * It takes part in the run loop like a backend (struct backend_ops, after
 * the hardware backend, whose plan it reads):
 *  - begin: puts back the rdpmc setting a killed run left (its journal),
 *    then makes rdpmc usable by the command: the rdpmc file set to 2,
 *    journaled first and armed for the fatal-signal handler; refused with
 *    the reason when it cannot be (not root, no such file). With the perf
 *    backend (engine/regions_perf.h) nothing changes: refused only where
 *    the kernel counts no hardware event or the rdpmc file is 0;
 *  - arm (each run): the shared area with the rdpmc ECX and width of each
 *    event of that run's batch (perf: its perf_event_attr, the child then
 *    opening the self-read events), PMUSTAT_REGION_FD in the command's
 *    environment, the fd inherited by the command right before the enable;
 *  - collect: the area read back (validated) into per-region sums, each
 *    event's from the run that counted it; every round's kept for -r;
 *  - end (every path): the rdpmc file as it was found, the journal removed.
 * The whole-run counts are the hardware backend's, unchanged.
 */
#ifndef PMUSTAT_REGIONS_H
#define PMUSTAT_REGIONS_H

#include <stdbool.h>

#include "engine/run.h"
#include "report/region_output.h"

struct stat_metrics;
struct stat_row;

extern const struct backend_ops regions_step;

/*
 * After the rounds: the regions as the report shows them, per stat row
 * (@rows, @nrows: the rows of the report, @row_event[r] the counted event
 * of row r, hardware events below @nhw), with -M's metrics (@m, NULL:
 * none) from each region's sums. NULL when --regions was not asked for or
 * nothing was set up. Valid until regions_free().
 */
const struct region_report *
regions_report(struct run_ctx *c, const struct stat_row *rows, unsigned nrows, const unsigned *row_event,
	       unsigned nhw, const struct stat_metrics *m);

/*
 * REGION:EVENT (a check's name; the event as a row is spelled, :modifiers
 * included): that region's value of that row, or NULL when no region or
 * row is so named.
 */
const struct region_value *
regions_lookup(const struct region_report *r, const struct stat_row *rows, unsigned nrows, const char *query);

void
regions_free(struct run_ctx *c);

#endif
