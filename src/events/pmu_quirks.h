/*
 * pmu_quirks.h - where CPUID.0AH does not tell the truth about the PMU.
 * The facts live in one table in pmu_quirks.c, with their sources.
 */
#ifndef PMUSTAT_PMU_QUIRKS_H
#define PMUSTAT_PMU_QUIRKS_H

struct cpu_info;

/* Correct cpu->pmu in place and set cpu->pmu.quirk when a quirk applies. */
void pmu_quirks_apply(struct cpu_info *cpu);

#endif
