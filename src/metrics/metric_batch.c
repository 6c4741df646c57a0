/*
 * metric_batch.c - see metric_batch.h.
 */
#include "metrics/metric_batch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "events/event_spec.h"
#include "metrics/metric_table.h"
#include "pmu/counter_sched.h"

unsigned
metric_batch_events(const struct metric_plan *plan, unsigned k, unsigned *idx)
{
	const struct metric_plan_metric *pm = &plan->metrics[k];
	unsigned n = 0;

	for (unsigned s = 0; s < pm->n_slots; s++) {
		int i = pm->event_of_slot[s];
		bool dup = false;

		if (i < 0 || plan->events[i].kind == METRIC_EVENT_TSC)
			continue;
		for (unsigned j = 0; j < n && !dup; j++)
			dup = event_spec_same(&plan->events[idx[j]].ev, &plan->events[i].ev);
		if (!dup)
			idx[n++] = (unsigned)i;
	}
	return n;
}

/* The events of one run so far, each once. */
struct run_events {
	struct event ev[SCHED_MAX_EVENTS];
	unsigned n;
};

/* Would @r plus the events @idx[0..n) of @plan fit one run? Adds them when they do. */
static bool
try_join(struct run_events *r, const struct metric_plan *plan, const unsigned *idx, unsigned n,
	 const struct pmu_caps *caps, uint32_t gp_free, uint32_t fixed_free)
{
	struct sched_slot slots[SCHED_MAX_EVENTS];
	struct run_events t = *r;
	unsigned runs = 0;

	for (unsigned j = 0; j < n; j++) {
		const struct event *e = &plan->events[idx[j]].ev;
		bool dup = false;

		for (unsigned i = 0; i < t.n && !dup; i++)
			dup = event_spec_same(&t.ev[i], e);
		if (dup)
			continue;
		if (t.n == SCHED_MAX_EVENTS)
			return false;
		t.ev[t.n++] = *e;
	}
	if (t.n && sched_plan(t.ev, t.n, caps, gp_free, fixed_free, slots, &runs, NULL, NULL) != 0)
		return false;
	if (runs > 1)
		return false;
	*r = t;
	return true;
}

int
metric_batch(const struct metric_plan *plan, const struct metric_table *mt,
	     const struct pmu_caps *caps, uint32_t gp_free, uint32_t fixed_free,
	     struct metric_batches *out, struct pmustat_error **err)
{
	struct run_events *runs = NULL;
	unsigned *idx = NULL;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->run_of = calloc(plan->n_metrics ? plan->n_metrics : 1, sizeof(*out->run_of));
	out->why = calloc(plan->n_metrics ? plan->n_metrics : 1, sizeof(*out->why));
	idx = calloc(plan->n_events ? plan->n_events : 1, sizeof(*idx));
	/* At most one run per metric. */
	runs = calloc(plan->n_metrics ? plan->n_metrics : 1, sizeof(*runs));
	if (!out->run_of || !out->why || !idx || !runs) {
		rc = err_set(err, -ENOMEM, "metrics: out of memory");
		goto out;
	}
	for (unsigned k = 0; k < plan->n_metrics; k++) {
		const struct metric_plan_metric *pm = &plan->metrics[k];
		unsigned n, r;

		out->run_of[k] = METRIC_NO_RUN;
		if (pm->refused) {
			snprintf(out->why[k], sizeof(out->why[k]), "%s", pm->refusal);
			continue;
		}
		n = metric_batch_events(plan, k, idx);
		for (r = 0; r < out->nruns; r++)
			if (try_join(&runs[r], plan, idx, n, caps, gp_free, fixed_free))
				break;
		if (r == out->nruns && !try_join(&runs[r], plan, idx, n, caps, gp_free, fixed_free)) {
			struct pmustat_error *e = NULL;
			struct metric_fit fit;

			rc = metric_plan_fit(plan, mt, k, caps, gp_free, fixed_free, &fit, &e);
			if (rc == -ENOMEM) {
				err_free(e);
				rc = err_set(err, -ENOMEM, "metrics: out of memory");
				goto out;
			}
			rc = 0;
			if (e)
				snprintf(out->why[k], sizeof(out->why[k]), "%s", err_msg(e));
			else
				snprintf(out->why[k], sizeof(out->why[k]),
					 "%s needs %u events in one run, more than pmustat counts at once",
					 metric_table_get(mt, pm->metric)->name, n);
			err_free(e);
			continue;
		}
		if (r == out->nruns)
			out->nruns++;
		out->run_of[k] = r;
	}
out:
	free(idx);
	free(runs);
	if (rc)
		metric_batches_free(out);
	return rc;
}

void
metric_batches_free(struct metric_batches *b)
{
	free(b->run_of);
	free(b->why);
	memset(b, 0, sizeof(*b));
}
