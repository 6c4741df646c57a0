/*
 * backend_msr_nb.c - see backend_msr_nb.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "engine/backend_msr_nb.h"
#include "engine/run.h"
#include "engine/target.h"
#include "hw/cpulock.h"
#include "hw/hw.h"
#include "netburst/nb_detect.h"
#include "netburst/nb_regs.h"
#include "pmu/journal.h"
#include "pmu/owner.h"

int
backend_nb_one_core(struct run_ctx *c, struct pmustat_error **err)
{
	return err_set(err, -ENOTSUP,
		       "a NetBurst PMU counts on one core at a time, and %u were given (-C/-a); give one core with -C N, or run pmustat once per core",
		       c->ncores);
}

int
backend_nb_occupancy(struct hw *hw, int core, struct pmu_occupancy *occ)
{
	if (hw_msr_open(hw, core, false) != 0)
		return -1;
	for (unsigned i = 0; i < NB_COUNTERS; i++) {
		uint64_t v;
		int escr;

		if (hw_rdmsr(hw, core, nb_cccr_msr(i), &v) != 0)
			return -1;
		if (!(v & NB_CCCR_ENABLE))
			continue;
		occ->nb_busy |= 1u << i;
		occ->nb_cccr[i] = v;
		escr = nb_escr_for(i, NB_CCCR_GET_SELECT(v));
		if (escr >= 0)
			occ->nb_busy_escrs |= 1ull << escr;
	}
	return 0;
}

int
backend_nb_lock_sibling(struct run_ctx *c, int core, int wait_ms, int *fd, struct pmustat_error **err)
{
	int sibling = target_nb_sibling(c->t, c->hw);
	char *note = NULL;
	int rc;

	if (sibling < 0)
		return 0;
	*fd = cpulock_acquire(sibling, wait_ms, err);
	if (*fd < 0)
		return err_set(err, *fd,
			       "core %d: its Hyper-Threading sibling, core %d, shares the NetBurst PMU and is locked: %s; wait for that run, or count on another core with -C",
			       core, sibling, err_msg(*err));
	rc = journal_recover(JOURNAL_DIR, sibling, c->hw, &c->t->cpu.pmu, &note, err);
	if (rc == 1)
		fprintf(stderr, "pmustat: %s\n", note);
	free(note);
	return rc < 0 ? rc : 0;
}

int
backend_nb_check_perfmon(struct run_ctx *c, int core, struct pmustat_error **err)
{
	struct nb_misc misc;

	/* As Linux's p4 driver checks. */
	if (c->t->cpu.netburst.present && nb_probe(c->hw, core, &misc) == 0 && !misc.perfmon)
		return err_set(err, -ENODEV,
			       "core %d: IA32_MISC_ENABLE (0x1a0) bit 7 says performance monitoring is unavailable (0x%llx); nothing was written",
			       core, (unsigned long long)misc.value);
	return 0;
}

void
backend_nb_verbose_busy(int core, const struct pmu_occupancy *occ)
{
	for (unsigned k = 0; k < NB_COUNTERS; k++)
		if (occ->nb_busy & (1u << k))
			fprintf(stderr, "pmustat: core %d: scheduled around %s (MSR_%s = 0x%llx, enabled by another user)\n",
				core, nb_counter_name(k), nb_cccr_name(k), (unsigned long long)occ->nb_cccr[k]);
}
