/*
 * arch_family.h - Intel's architectural PMU (CPUID leaf 0xA) as a PMU
 * family (pmu/family.h), for the list of families (pmus/families.c).
 */
#ifndef PMUSTAT_ARCH_FAMILY_H
#define PMUSTAT_ARCH_FAMILY_H

#include "pmu/family.h"

extern const struct pmu_family pmu_family_architectural;

#endif
