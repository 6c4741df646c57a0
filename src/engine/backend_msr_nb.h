/*
 * backend_msr_nb.h - what the MSR backend does only on a NetBurst PMU:
 * one core per run, the Hyper-Threading sibling's lock, IA32_MISC_ENABLE
 * checked, another user's CCCRs read for --dry-run, and -v's lines on them.
 */
#ifndef PMUSTAT_BACKEND_MSR_NB_H
#define PMUSTAT_BACKEND_MSR_NB_H

struct hw;
struct pmu_occupancy;
struct pmustat_error;
struct run_ctx;

/*
 * The refusal of a NetBurst run on several cores (c->ncores > 1): its
 * plan's T0/T1 bits and its sibling are the target core's. Returns -ENOTSUP.
 */
int
backend_nb_one_core(struct run_ctx *c, struct pmustat_error **err);

/*
 * Who holds what on NetBurst core @core, by reads only: the counters whose
 * CCCR is enabled and the ESCRs they select, into @occ (zeroed by the
 * caller). -1 when the MSRs cannot be read.
 */
int
backend_nb_occupancy(struct hw *hw, int core, struct pmu_occupancy *occ);

/*
 * With Hyper-Threading, @core's sibling shares its ESCRs, CCCRs and
 * counters: its lock into *@fd (waiting @wait_ms), and a killed run's
 * journal on it put back. 0 also when there is no sibling (*@fd stays -1).
 */
int
backend_nb_lock_sibling(struct run_ctx *c, int core, int wait_ms, int *fd, struct pmustat_error **err);

/* IA32_MISC_ENABLE[7] on @core when the PMU is NetBurst (read only): -ENODEV when clear. */
int
backend_nb_check_perfmon(struct run_ctx *c, int core, struct pmustat_error **err);

/* -v: the NetBurst counters of @occ another user enabled, on @core. */
void
backend_nb_verbose_busy(int core, const struct pmu_occupancy *occ);

#endif
