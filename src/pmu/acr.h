/*
 * acr.h - v6 auto counter reload (CPUID.23H.2): another user's reload
 * configuration of a counter, which Linux clears only lazily.
 */
#ifndef PMUSTAT_ACR_H
#define PMUSTAT_ACR_H

#include <stdint.h>

#include "pmu/msr.h"

struct hw;
struct pmu_caps;

/*
 * IA32_PMC_GPn_CFG_B of each GP counter of @cpu that has one (caps'
 * acr_gp_mask and gp_mask) into @cfg_b[n], 0 for the others. A non-zero
 * one reloads counter n (with CFG_C) whenever a counter it names
 * overflows: the counter is not free, whatever its EVTSEL says. Only read,
 * never written. 0, or the -errno of the read that failed, its MSR in
 * *@msr; *@reads += the MSR reads done.
 */
int
acr_cfg_b_read(struct hw *hw, int cpu, const struct pmu_caps *caps, uint64_t cfg_b[PMU_MAX_GP], uint32_t *msr,
	       unsigned long *reads);

#endif
