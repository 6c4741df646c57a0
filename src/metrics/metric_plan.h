/*
 * metric_plan.h - what a list of metrics needs counted on this machine: a
 * value the engine schedules, then feeds the counts back into.
 *
 * metric_plan_build() walks each metric's formula under the machine's
 * constants (metric_expr_uses: with SMT off no _ANY event, the branch of
 * `x if smt_on else y` not taken is dropped), resolves each event it reads
 * against the event table as -e would (event_spec.h: same names, same
 * refusals), and deduplicates the events across metrics. A metric that
 * cannot be counted is kept, refused, with the reason; the engine decides
 * whether a refusal ends the run (a metric named on its own) or is a warning
 * (a member of a group):
 *
 *   "Info_System_DRAM_BW_Use needs uncore events (UNC_ARB_TRK_REQUESTS.ALL),
 *    which pmustat does not program"
 *   "Info_Thread_IPC needs retire latency (...:retire_latency), which
 *    pmustat does not measure"
 *   "X needs event Y, which the skylake table does not have"
 *   "X needs event Y: <the -e refusal, e.g. PEBS-only, MSR 0x3f7>"
 *
 * Events that are not table events: TSC (rdtsc), and on Ice Lake and later
 * P-cores the top-down fractions PERF_METRICS.* of IA32_PERF_METRICS
 * (0x329), which are read with fixed counter 3 (TOPDOWN.SLOTS): the plan
 * lists them with their kind, and the metric says it needs them.
 */
#ifndef PMUSTAT_METRIC_PLAN_H
#define PMUSTAT_METRIC_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events/event.h"
#include "metrics/metric_expr.h"

struct pmustat_error;

struct event_table;
struct metric_list;
struct metric_table;
struct pmu_caps;

enum metric_event_kind {
	METRIC_EVENT_CORE,		/* a core event: .ev is resolved */
	METRIC_EVENT_TSC,		/* the time-stamp counter */
	METRIC_EVENT_PERF_METRICS,	/* a byte of IA32_PERF_METRICS; .ev is TOPDOWN.SLOTS (FC3) */
};

/* IA32_PERF_METRICS fields: byte n is bits 8n+7:8n. */
enum metric_perf_metrics_field {
	PERF_METRICS_RETIRING,
	PERF_METRICS_BAD_SPECULATION,
	PERF_METRICS_FRONTEND_BOUND,
	PERF_METRICS_BACKEND_BOUND,
	PERF_METRICS_HEAVY_OPERATIONS,
	PERF_METRICS_BRANCH_MISPREDICTS,
	PERF_METRICS_FETCH_LATENCY,
	PERF_METRICS_MEMORY_BOUND,
};

struct metric_plan_event {
	char name[EVENT_NAME_MAX];	/* as the first metric wrote it ("IDQ.MS_UOPS:c1") */
	enum metric_event_kind kind;
	int field;			/* PERF_METRICS: enum metric_perf_metrics_field, else -1 */
	struct event ev;		/* CORE, PERF_METRICS; zero for TSC */
};

#define METRIC_REFUSAL_MAX 320

struct metric_plan_metric {
	unsigned metric;		/* index in the metric table */
	bool refused;
	char refusal[METRIC_REFUSAL_MAX];	/* why, naming the metric; "" when not refused */
	/* Per slot of the metric's formula: index into plan->events, or -1 (not read). */
	unsigned n_slots;
	int *event_of_slot;
	unsigned consts_used;		/* bits of enum metric_const the formula reads */
	bool needs_perf_metrics;	/* reads IA32_PERF_METRICS */
	bool needs_tsc;
};

struct metric_plan {
	unsigned n_events;
	struct metric_plan_event *events;
	unsigned n_metrics;
	struct metric_plan_metric *metrics;	/* in the list's order */
};

/*
 * Plan @list of @mt, whose events are in @et (NULL: architectural events
 * only), on a PMU with @caps, counting in the rings @usr/@os unless an
 * event says otherwise (Intel's :SUP, :USER). Returns 0 and *@out (free with
 * metric_plan_free), or -ENOMEM / -EINVAL (a broken table) with @err set.
 * Refused metrics are not errors: see ->refused.
 */
int metric_plan_build(const struct metric_table *mt, const struct metric_list *list,
		      const struct metric_consts *consts, const struct event_table *et,
		      const struct pmu_caps *caps, bool usr, bool os,
		      struct metric_plan **out, struct pmustat_error **err);
void metric_plan_free(struct metric_plan *plan);

/* The first refusal as an error: -EINVAL with its message, or 0 when none. */
int metric_plan_refusal(const struct metric_plan *plan, struct pmustat_error **err);

/*
 * Evaluate metric @k of the plan from the counted values (@values[i] for
 * plan->events[i]; PERF_METRICS fields as their raw 8-bit values or scaled
 * to slots, the formulas normalise them) and the constants. A refused
 * metric is null with its refusal as the reason.
 */
void metric_plan_eval(const struct metric_plan *plan, const struct metric_table *mt,
		      unsigned k, const double *values, const struct metric_consts *consts,
		      struct metric_result *out);

/* Whether all events of one metric fit in one run. */
struct metric_fit {
	bool fits;
	unsigned events;		/* distinct events the metric reads */
	unsigned gp_needed;		/* programmable counters they need */
	unsigned gp_available;		/* programmable counters free */
	unsigned fixed_needed;		/* fixed counters they occupy */
};

/*
 * Can metric @k be counted in one run with the counters @gp_free and
 * @fixed_free (the PMU's, less those someone else holds)? Places its events
 * with the scheduler (sched.h: counter masks, fixed counters, taken-alone
 * and offcore rules). Returns 0 and *@out; when it does not fit, @err says
 * so with the numbers ("Frontend_Bound needs 5 programmable counters in one
 * run; this core has 4 free"). A refused metric fits trivially (0 events).
 */
int metric_plan_fit(const struct metric_plan *plan, const struct metric_table *mt,
		    unsigned k, const struct pmu_caps *caps, uint32_t gp_free,
		    uint32_t fixed_free, struct metric_fit *out, struct pmustat_error **err);

#endif
