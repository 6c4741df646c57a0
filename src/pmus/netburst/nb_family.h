/*
 * nb_family.h - the NetBurst PMU as a PMU family (pmu/family.h), for the
 * list of families (pmus/families.c).
 */
#ifndef PMUSTAT_NB_FAMILY_H
#define PMUSTAT_NB_FAMILY_H

#include "pmu/family.h"

extern const struct pmu_family pmu_family_netburst;

#endif
