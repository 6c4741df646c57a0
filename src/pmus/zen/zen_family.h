/*
 * zen_family.h - AMD's Zen core PMU (families 17h, 19h, 1Ah) as a PMU
 * family (pmu/family.h), for the list of families (pmus/families.c).
 */
#ifndef PMUSTAT_ZEN_FAMILY_H
#define PMUSTAT_ZEN_FAMILY_H

#include "pmu/family.h"

extern const struct pmu_family pmu_family_zen;

#endif
