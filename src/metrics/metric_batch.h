/*
 * metric_batch.h - which run of the command counts each metric: all the
 * events of one metric in the same run, so that a ratio is never built
 * from two runs, and metrics that do not fit together in runs of their own.
 *
 * First fit, in the order the metrics were named: a metric joins the first
 * run whose events and its own, together, fit the free counters in one run
 * (the scheduler places them: counter masks, fixed counters, taken-alone
 * and offcore rules); otherwise it opens a run. An event two metrics of
 * different runs need is counted in each of them. A metric whose events
 * never fit one run is refused with the numbers (metric_plan_fit()). Pure.
 */
#ifndef PMUSTAT_METRIC_BATCH_H
#define PMUSTAT_METRIC_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "metrics/metric_plan.h"

struct pmu_caps;
struct pmustat_error;

#define METRIC_NO_RUN (~0u)

struct metric_batches {
	unsigned nruns;
	unsigned *run_of;		/* per plan metric: 0-based run, METRIC_NO_RUN when refused */
	/* Per plan metric: why it is not counted ("" when it is); refused metrics' own reason. */
	char (*why)[METRIC_REFUSAL_MAX];
};

/*
 * Batch the metrics of @plan (of @mt) on counters @gp_free / @fixed_free of
 * a PMU with @caps. Metrics the plan refused, and those that never fit one
 * run, get METRIC_NO_RUN and their reason. 0, or -ENOMEM with @err.
 */
int metric_batch(const struct metric_plan *plan, const struct metric_table *mt,
		 const struct pmu_caps *caps, uint32_t gp_free, uint32_t fixed_free,
		 struct metric_batches *out, struct pmustat_error **err);
void metric_batches_free(struct metric_batches *b);

/*
 * The distinct PMU events metric @k reads (TSC aside; the IA32_PERF_METRICS
 * fields as their TOPDOWN.SLOTS): indices into plan->events, into @idx
 * (room for plan->n_events). Returns how many.
 */
unsigned metric_batch_events(const struct metric_plan *plan, unsigned k, unsigned *idx);

#endif
