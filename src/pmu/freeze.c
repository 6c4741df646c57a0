/*
 * freeze.c - a PMU frozen by someone else's PMI (SDM vol. 3B, "Freezing
 * LBR and Performance Counters on PMI"; v4's IA32_PERF_GLOBAL_STATUS
 * CTR_Frz and LBR_Frz): while CTR_Frz is set no counter counts, whatever
 * the enables say, so a run would report zeros as if they were counts.
 */
#include <errno.h>
#include <stdio.h>

#include "base/err.h"
#include "pmu/msr.h"
#include "pmu/pmu.h"
#include "pmu/pmu_impl.h"
#include "pmu/pmu_regs.h"

int
pmu_unfreeze_now(struct pmu *p, struct pmustat_error **err)
{
	int rc;

	if (!p->unfreeze)
		return 0;
	rc = pmu_wr(p, MSR_IA32_PERF_GLOBAL_STATUS_RESET, GLOBAL_STATUS_CTR_FRZ);
	if (rc)
		return pmu_fail(p, rc, "writing", MSR_IA32_PERF_GLOBAL_STATUS_RESET, true, err);
	p->unfreeze = false;
	p->unfroze = true;
	return 0;
}

int
pmu_check_frozen(struct pmu *p, bool force, const char **note, struct pmustat_error **err)
{
	uint64_t st = p->status_saved;

	if (note)
		*note = NULL;
	if (p->caps.version < 4)
		return 0;
	if (!(st & GLOBAL_STATUS_CTR_FRZ)) {
		if ((st & GLOBAL_STATUS_LBR_FRZ) && note)
			*note = "the LBRs are frozen (IA32_PERF_GLOBAL_STATUS.LBR_Frz, bit 58: a PMI under IA32_DEBUGCTL.FREEZE_LBRS_ON_PMI, as perf's LBR call stacks set it); the counters are not, and count";
		return 0;
	}
	if (!force)
		return err_set(err, -EBUSY,
			       "core %d: the PMU is frozen: IA32_PERF_GLOBAL_STATUS.CTR_Frz (bit 59)%s is set, so no counter counts. A PMI froze it under IA32_DEBUGCTL.FREEZE_PERFMON_ON_PMI (set by Linux 4.20 to 5.9 with counter freezing, on by default in 4.20 and from 5.0 only with perf_v4_pmi=1, or by a tool that programs the PMU itself; perf's LBR call stacks freeze only the LBRs) and that PMI's owner has not unfrozen it; writing bit 59 to IA32_PERF_GLOBAL_STATUS_RESET (0x390) clears it, which is the owner's business: end that profiler, pick another core with -C, or run with --force (pmustat clears CTR_Frz for the run and sets it back after)",
			       p->cpu, (st & GLOBAL_STATUS_LBR_FRZ) ? " and LBR_Frz (bit 58)" : "");
	/* Cleared with the first program, after the crash journal has recorded the freeze. */
	p->unfreeze = true;
	if (note)
		*note = "--force: cleared IA32_PERF_GLOBAL_STATUS.CTR_Frz (the PMU was frozen) for the run; it is set back after";
	return 0;
}
