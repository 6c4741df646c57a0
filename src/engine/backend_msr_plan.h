/*
 * backend_msr_plan.h - inside the MSR backend (backend_msr.c): the plans
 * of its cores (backend_msr_plan.c). backend_msr_plan_dry() itself is
 * declared in run.h with the other entry points.
 */
#ifndef PMUSTAT_BACKEND_MSR_PLAN_H
#define PMUSTAT_BACKEND_MSR_PLAN_H

#include <stdbool.h>
#include <stdint.h>

struct run_ctx;
struct plan;
struct pmu_occupancy;
struct pmu_owner_hints;
struct pmustat_error;

/* What the kernel says of its watchdog, for whom a busy counter belongs to. */
void
backend_msr_hints(struct run_ctx *c, struct pmu_owner_hints *h);

/*
 * Each listed core's plan around @occ[i] and GLOBAL_CTRL as found
 * (@gctrl[i]), every core counting each event in the same run (and with
 * --regions on the same counter); into @plans[0..ncores), c->plan is
 * plans[0]. Refuses the whole run, naming the core, when one cannot.
 */
int
backend_msr_plan_all(struct run_ctx *c, const struct pmu_occupancy *const *occ, const uint64_t *gctrl,
		     const char *assumed_why, bool gc_assumed, struct plan **plans, struct pmustat_error **err);

#endif
