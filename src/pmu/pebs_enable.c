/*
 * pebs_enable.c - see pebs_enable.h.
 */
#include "events/cpu.h"
#include "hw/hw.h"
#include "pmu/msr.h"
#include "pmu/pebs_enable.h"

int
pebs_enable_read(struct hw *hw, int cpu, const struct pmu_caps *caps, uint64_t *val, uint32_t *msr,
		 unsigned long *reads)
{
	uint64_t misc;
	int rc;

	*val = 0;
	if (!caps->ds)
		return 0;
	*msr = MSR_IA32_MISC_ENABLE;
	++*reads;
	rc = hw_rdmsr(hw, cpu, MSR_IA32_MISC_ENABLE, &misc);
	if (rc)
		return rc;
	if (misc & MISC_ENABLE_PEBS_UNAVAIL)
		return 0;
	*msr = MSR_IA32_PEBS_ENABLE;
	++*reads;
	return hw_rdmsr(hw, cpu, MSR_IA32_PEBS_ENABLE, val);
}
