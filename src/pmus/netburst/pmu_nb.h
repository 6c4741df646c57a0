/*
 * pmu_nb.h - the NetBurst side of one core's PMU (pmu_nb.c), behind the
 * family table (nb_family.c): open and save, the allow-list, the write
 * rules, reads, clear.
 */
#ifndef PMUSTAT_PMU_NB_H
#define PMUSTAT_PMU_NB_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/pmu_impl.h"

int pmu_nb_open_at(struct pmu *p, struct pmustat_error **err);
bool pmu_nb_allowed(const struct pmu *p, uint32_t msr);
struct pmu_reg *pmu_nb_reg_of(struct pmu *p, uint32_t msr);
const char *pmu_nb_refusal(const struct pmu *p, const struct pmu_write *w);
int pmu_nb_read(struct pmu *p, const struct sched_slot *slots, unsigned n, unsigned run, bool use_rdpmc,
		struct pmu_count *counts, struct pmustat_error **err);
int pmu_nb_clear(struct pmu *p, uint32_t counters, struct pmustat_error **err);

#endif
