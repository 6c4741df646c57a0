/*
 * pmu_nb.h - the NetBurst side of one core's PMU (pmu_nb.c), behind the
 * family table (nb_family.c): open and save, the allow-list, the write
 * rules, reads, what another user took mid-run, clear.
 */
#ifndef PMUSTAT_PMU_NB_H
#define PMUSTAT_PMU_NB_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/pmu_impl.h"

int pmu_nb_open_at(struct pmu *p, const struct pmu_owner_hints *hints, struct pmustat_error **err);
bool pmu_nb_allowed(const struct pmu *p, uint32_t msr);
struct pmu_reg *pmu_nb_reg_of(struct pmu *p, uint32_t msr);
const char *pmu_nb_refusal(const struct pmu *p, const struct pmu_write *w);
int pmu_nb_read(struct pmu *p, const struct sched_slot *slots, unsigned n, unsigned run, bool use_rdpmc,
		struct pmu_count *counts, struct pmustat_error **err);
/*
 * Before the disable (the family's before_disable): the run's CCCRs and
 * the ESCRs they select, read. A counter whose CCCR or ESCR another user
 * rewrote (perf on this CPU or on the Hyper-Threading sibling) is theirs
 * from then on: out of the disable and of the restore, with its counter
 * and, when rewritten, the ESCR; one whose enable alone was cleared is
 * stopped, still ours. 0, or -errno of the read of *@failed.
 */
int pmu_nb_find_taken(struct pmu *p, uint32_t *failed);
int pmu_nb_clear(struct pmu *p, uint32_t counters, struct pmustat_error **err);

#endif
