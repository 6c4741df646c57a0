/*
 * ratios.h - the ratios the human table prints beside a count, as perf
 * does: insn per cycle, branch-miss and cache-miss rates. One place for
 * which two events each needs, so the engine keeps the pair in one run
 * (a ratio of counts from different runs of the command would mix runs)
 * and the table prints it only when the two came from the same run.
 */
#ifndef PMUSTAT_RATIOS_H
#define PMUSTAT_RATIOS_H

#include <stdbool.h>

struct event;

struct ratio {
	bool (*numerator)(const struct event *e);
	bool (*denominator)(const struct event *e);
	const char *unit;	/* after the value in the table's comment: "  insn per cycle" */
	double scale;		/* 100 for a percentage */
};

/* The ratio printed beside @numerator's count, or NULL. */
const struct ratio *
ratio_of(const struct event *numerator);

/* Whether @e counts core cycles (fixed counter 1 or its GP twin). */
bool
ratio_is_cycles(const struct event *e);

/* Whether a ratio needs @a and @b in the same run (either order, same rings). */
bool
ratio_pair(const struct event *a, const struct event *b);

#endif
