/*
 * backend_msr_nb.h - what the MSR backend does only on a NetBurst PMU:
 * each core's thread and sibling, the Hyper-Threading sibling's lock, IA32_MISC_ENABLE
 * checked, another user's CCCRs read for --dry-run, and -v's lines on them.
 */
#ifndef PMUSTAT_BACKEND_MSR_NB_H
#define PMUSTAT_BACKEND_MSR_NB_H

#include <stdint.h>

#include "events/cpu.h"

struct hw;
struct plan;
struct plan_input;
struct pmu_occupancy;
struct pmustat_error;
struct run_ctx;

/* A NetBurst core of the run, as its own CPUID says. */
struct nb_core {
	struct pmu_caps caps;		/* the target's, with this core's thread (T0/T1 bits) */
	int sibling;			/* its Hyper-Threading sibling CPU, or -1 */
	int sibling_listed;		/* the sibling's index in c->cores, or -1 */
	uint32_t avoid;			/* counters it leaves to its sibling (plan_input.avoid_nb) */
	bool avoid_soft;		/* the sibling is not counted: avoid is a preference (avoid_nb_soft) */
	bool core_wide_on_sibling;	/* thread 1 of a listed pair: the sibling counts the core-wide events */
};

/*
 * A live NetBurst PMU: each counted core's thread and sibling into
 * c->nb_cores (freed with the run's state). The two threads of a core
 * share one set of ESCRs and counters, so each keeps to its half, as
 * Linux's p4 driver splits them: thread 0 the counters the ESCR0s feed
 * (0, 1, 4, 5, 8, 9, 12, 13, 16), thread 1 the ESCR1s' (2, 3, 6, 7, 10,
 * 11, 14, 15, 17). When both are counted that is a must; when one is, a
 * preference, so that perf on the sibling finds its own half free.
 * 0 (also with nothing to do), or -errno.
 */
int
backend_nb_cores(struct run_ctx *c, struct pmustat_error **err);

/* The counters core @i leaves to its sibling (0 without), and whether only by preference (*@soft). */
uint32_t
backend_nb_avoid(const struct run_ctx *c, unsigned i, bool *soft);

/*
 * Core @i's plan input, NetBurst part: the counters it leaves to its
 * sibling and whether the sibling counts the core-wide (thread-independent)
 * events for both. Nothing without a NetBurst PMU.
 */
void
backend_nb_plan_input(const struct run_ctx *c, unsigned i, struct plan_input *in);

/*
 * Say on stderr what a core-wide (thread-independent) event of core @i's
 * plan counts when its Hyper-Threading sibling is not listed: both
 * threads' events, the sibling's included.
 */
void
backend_nb_note_core_wide(const struct run_ctx *c, unsigned i, const struct plan *plan);

/*
 * Who holds what on NetBurst core @core (of model @model), by reads only:
 * its CCCRs and ESCRs under pmu_owner_scan_nb()'s rule, into @occ (zeroed
 * by the caller). -1 when the MSRs cannot be read.
 */
int
backend_nb_occupancy(struct hw *hw, int core, unsigned model, struct pmu_occupancy *occ);

/*
 * With Hyper-Threading, core @i's sibling shares its ESCRs, CCCRs and
 * counters: unless it is counted too (then it is locked already), its
 * lock into *@fd (waiting @wait_ms), and a killed run's journal on it put
 * back. 0 also when there is no sibling (*@fd stays -1).
 */
int
backend_nb_lock_sibling(struct run_ctx *c, unsigned i, int wait_ms, int *fd, struct pmustat_error **err);

/* IA32_MISC_ENABLE[7] on @core when the PMU is NetBurst (read only): -ENODEV when clear. */
int
backend_nb_check_perfmon(struct run_ctx *c, int core, struct pmustat_error **err);

/* -v: the NetBurst counters of @occ another user enabled, on @core. */
void
backend_nb_verbose_busy(int core, const struct pmu_occupancy *occ);

#endif
