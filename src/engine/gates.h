/*
 * gates.h - the CI gates of a stat run: --check expressions and a
 * --baseline comparison after the runs (a failure turns exit 0 into 3),
 * and --save-baseline's record of a run that succeeded. What can be
 * checked before any hardware is: the baseline read and matched to this
 * CPU and table, the --save-baseline file opened (as the invoking user),
 * -I's second CPU.
 */
#ifndef PMUSTAT_GATES_H
#define PMUSTAT_GATES_H

#include <stdbool.h>
#include <stdio.h>

#include "engine/stat.h"
#include "report/baseline.h"
#include "report/check.h"
#include "report/outfile.h"

struct invoker;
struct pmustat_error;
struct region_report;
struct stat_report;
struct stat_row;
struct target;

/* Exists only when a run has a gate (--check, --baseline or --save-baseline): gates_prepare() makes it. */
struct gates {
	struct outfile baseline_file;		/* --save-baseline, open until written or dropped */
	bool baseline_open;
	struct baseline baseline;		/* --baseline, as read (its entries sized to the file) */
	struct check_result *results;		/* one per --check */
	struct baseline_cmp *cmp;		/* one per row, then per region and hardware row (REGION:EVENT) */
	unsigned ncmp;
	bool evaluated;
	bool failed;
};

/*
 * Before any hardware: *@g made when @o asks for a gate (NULL otherwise:
 * a run without one allocates nothing for them), the baseline read, the
 * file to save one opened. 0, or -errno with @err (*@g then still to be
 * freed with gates_free()).
 */
int
gates_prepare(struct gates **g, const struct stat_opts *o, const struct target *t, const struct invoker *inv,
	      struct pmustat_error **err);

/*
 * After the runs, when the command ran (nothing to do when @g is NULL): the checks and the comparison;
 * *@status 0 -> 3 on a failure. A name no row has may be REGION:EVENT, an
 * event of one of @regions (--regions; NULL without), or one of @metrics,
 * the values of -M's metrics.
 */
struct metric_row;

int
gates_evaluate(struct gates *g, const struct stat_opts *o, const struct stat_row *rows, unsigned nrows,
	       const struct region_report *regions, const struct metric_row *metrics, unsigned nmetrics, int *status,
	       struct pmustat_error **err);

/*
 * --save-baseline (nothing to do when @g is NULL): @rep as JSON when the run succeeded (status 0), the file
 * left as it was otherwise (said on @notes). 0, or -errno with @err: the
 * file could not be written (then it is as it was).
 */
int
gates_save_baseline(struct gates *g, const struct stat_opts *o, const struct stat_report *rep, bool ran,
		    int status, FILE *notes, struct pmustat_error **err);

/* What gates_prepare() made; NULL is nothing. */
void
gates_free(struct gates *g);

#endif
