/*
 * arch_family.c - Intel's architectural PMU as a family. Its operations
 * are pmu/'s own code, the defaults of pmu/family.h (every member NULL):
 * IA32_PERFEVTSELx and IA32_PMCx, the fixed counters, GLOBAL_CTRL and
 * GLOBAL_STATUS, the offcore response MSRs, PERF_METRICS.
 */
#include "pmus/intel/arch_family.h"

#include "events/cpu.h"

/* CPUID leaf 0xA reports a PMU: cpu_decode() has filled struct pmu_caps from it. */
static bool
detect(const struct cpu_raw_data_t *raw, struct cpu_info *out)
{
	(void)raw;
	return out->vendor == CPU_VENDOR_INTEL && out->pmu.version > 0;
}

const struct pmu_family pmu_family_architectural = {
	.name = "architectural",
	.title = "architectural",
	.detect = detect,
};
