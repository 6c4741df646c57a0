/*
 * stat_metrics.h - the -M step of a stat run: Intel's metrics named with
 * -M (and in --check expressions), their events added to the requests so
 * that all events of one metric are counted in the same run, and after the
 * runs their values from that run's counts and the machine's constants
 * (DURATIONTIMEINMILLISECONDS: the wall time of that run).
 *
 *	stat_metrics_select()	before the requests: the table, the -M names
 *	stat_metrics_request()	after them: refusals, batches, pinned events
 *	stat_metrics_evaluate()	after the runs: one struct metric_row each
 *
 * A metric named on its own that cannot be counted (uncore events, retire
 * latency, an event this table lacks, more counters than one run has) ends
 * the run with 125 and the reason; a member of a group that cannot is a
 * warning, and its row has no value and the reason.
 */
#ifndef PMUSTAT_STAT_METRICS_H
#define PMUSTAT_STAT_METRICS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "metrics/metric_batch.h"
#include "metrics/metric_consts.h"
#include "metrics/metric_table.h"
#include "report/metric_output.h"

struct hw;
struct pmustat_error;
struct run_ctx;
struct stat_events;
struct stat_opts;
struct target;

struct stat_metrics {
	bool active;			/* -M given, or a --check names a metric */
	struct metric_table *mt;
	struct metric_list list;
	bool *named_alone;		/* per list entry: named as a metric, not only as a member of a group */
	struct metric_machine machine;
	struct metric_consts consts;
	struct metric_plan *plan;
	struct metric_batches batches;
	int *hw_of;			/* [k * plan->n_events + i]: hardware event counting plan event i for metric k */
	struct metric_row *rows;
	unsigned nrows;
	struct metric_cpu_value *cpu_values;	/* several cores: rows[k].per_cpu = cpu_values + k * ncores */
	/* -I: where the last interval of the current run ended (its time, and the TSC then). */
	unsigned iv_round, iv_run;
	double iv_time;
	uint64_t iv_tsc;
};

/*
 * Load this CPU's metric table and resolve -M's names, and the names of
 * --check expressions that are metrics. 0 (also when there is nothing to
 * do), or -errno with @err: an unknown metric or group ("did you mean"),
 * no metric table for this CPU.
 */
int stat_metrics_select(struct stat_metrics *m, const struct stat_opts *o, struct target *t,
			struct pmustat_error **err);

/* For requests_resolve(): whether a --check name is one of the metrics (not an event). */
bool stat_metrics_names(void *m, const char *name);

/*
 * The events the metrics need, into @ev, each metric's pinned to its run;
 * batched on the counters free on @core (read without writing when @hw can,
 * all of them otherwise, or with @force). 0, or -errno with @err.
 */
int stat_metrics_request(struct stat_metrics *m, const struct stat_opts *o, struct target *t, struct hw *hw,
			 int core, struct stat_events *ev, FILE *notes, struct pmustat_error **err);

/* After the runs: every metric's value (per round, their statistics with -r) into m->rows. */
void stat_metrics_evaluate(struct stat_metrics *m, const struct run_ctx *c);

/*
 * --regions: every metric's value from one code region's counts, laid out
 * as a run's (@values[h * repeat + round], @nvalues[h] per hardware event
 * h): each metric from its own run's sums, like the whole run's; a metric
 * that needs the run's duration has none (a region's time is not its
 * run's). A new array of *@n rows (free() it), or NULL (no -M, or out of
 * memory).
 */
struct metric_row *stat_metrics_evaluate_region(const struct stat_metrics *m, const struct run_ctx *c,
						const uint64_t *values, const unsigned *nvalues, unsigned *n);

/*
 * -I: the values over one interval of the metrics counted in run @run (1-based)
 * of round @round, from the hardware events' @deltas (per event, as the
 * sampler gives them) of the interval that ends @time seconds into the
 * run: DURATIONTIMEINMILLISECONDS is the interval's length, TSC its ticks
 * (read now, or the run's last reading once the counters stopped). Into
 * @rows (room for every metric); returns how many.
 */
unsigned stat_metrics_interval(struct stat_metrics *m, const struct run_ctx *c, unsigned round, unsigned run,
			       double time, const uint64_t *deltas, struct metric_row *rows);

void stat_metrics_free(struct stat_metrics *m);

#endif
