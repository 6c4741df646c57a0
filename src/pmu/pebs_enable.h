/*
 * pebs_enable.h - another user's PEBS counters: IA32_PEBS_ENABLE, read only
 * where the CPU has it.
 */
#ifndef PMUSTAT_PEBS_ENABLE_H
#define PMUSTAT_PEBS_ENABLE_H

#include <stdint.h>

struct hw;
struct pmu_caps;

/*
 * IA32_PEBS_ENABLE of @cpu into *@val, or 0 where there is no PEBS: as
 * Linux decides (arch/x86/kernel/cpu/intel.c, X86_FEATURE_PEBS), only
 * with CPUID.1:EDX.DS and IA32_MISC_ENABLE[12] (PEBS unavailable) clear.
 * KVM sets that bit for a guest without PEBS, whose IA32_PEBS_ENABLE
 * raises #GP. MISC_ENABLE is read, never written. 0, or the -errno of
 * the read that failed, its MSR in *@msr; *@reads += the MSR reads done.
 */
int
pebs_enable_read(struct hw *hw, int cpu, const struct pmu_caps *caps, uint64_t *val, uint32_t *msr,
		 unsigned long *reads);

#endif
