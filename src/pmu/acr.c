/*
 * acr.c - see acr.h.
 */
#include <string.h>

#include "events/cpu.h"
#include "hw/hw.h"
#include "pmu/acr.h"

int
acr_cfg_b_read(struct hw *hw, int cpu, const struct pmu_caps *caps, uint64_t cfg_b[PMU_MAX_GP], uint32_t *msr,
	       unsigned long *reads)
{
	uint32_t has = caps->version >= 6 ? caps->acr_gp_mask & caps->gp_mask : 0;

	memset(cfg_b, 0, PMU_MAX_GP * sizeof(cfg_b[0]));
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		int rc;

		if (!((has >> i) & 1))
			continue;
		*msr = msr_acr_cfg_b(i);
		++*reads;
		rc = hw_rdmsr(hw, cpu, *msr, &cfg_b[i]);
		if (rc)
			return rc;
	}
	return 0;
}
