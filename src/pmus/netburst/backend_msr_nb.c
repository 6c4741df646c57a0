/*
 * backend_msr_nb.c - see backend_msr_nb.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "events/event.h"
#include "pmus/netburst/backend_msr_nb.h"
#include "pmu/plan.h"
#include "pmus/netburst/plan_nb.h"
#include "engine/run.h"
#include "engine/target.h"
#include "hw/cpulock.h"
#include "hw/hw.h"
#include "pmus/netburst/nb_detect.h"
#include "pmus/netburst/nb_regs.h"
#include "pmu/journal.h"
#include "pmu/owner.h"

/* The counters the ESCR0s feed (thread 0's half) and the ESCR1s' (thread 1's). */
#define NB_HALF_T0 0x13333u
#define NB_HALF_T1 0x2ccccu

int
backend_nb_cores(struct run_ctx *c, struct pmustat_error **err)
{
	struct nb_core *nc;

	if (!c->t->live || !c->t->cpu.netburst.present || c->nb_cores)
		return 0;
	nc = calloc(c->ncores, sizeof(*nc));
	if (!nc)
		return err_set(err, -ENOMEM, "out of memory");
	c->nb_cores = nc;
	for (unsigned i = 0; i < c->ncores; i++) {
		struct netburst_caps nb;
		int rc = target_nb_core(c->t, c->hw, c->cores[i], &nb, &nc[i].sibling);

		if (rc < 0)
			return err_set(err, rc, "core %d: cannot read its CPUID (%s), which says which Hyper-Threading thread it is and so which ESCR bits (T0 or T1) count on it; nothing was written",
				       c->cores[i], strerror(-rc));
		nc[i].caps = c->t->cpu.pmu;
		nc[i].caps.nb_ht = nb.ht;
		nc[i].caps.nb_thread = nb.thread;
		nc[i].sibling_listed = -1;
	}
	for (unsigned i = 0; i < c->ncores; i++) {
		for (unsigned j = 0; nc[i].sibling >= 0 && j < c->ncores; j++)
			if (c->cores[j] == nc[i].sibling)
				nc[i].sibling_listed = (int)j;
		if (nc[i].sibling_listed < 0) {
			/* One thread of an HT core counted: its own half all the same, by preference. */
			if (nc[i].sibling >= 0 && nc[i].caps.nb_ht) {
				nc[i].avoid = nc[i].caps.nb_thread ? NB_HALF_T0 : NB_HALF_T1;
				nc[i].avoid_soft = true;
			}
			continue;
		}
		if (nc[i].caps.nb_thread == nc[nc[i].sibling_listed].caps.nb_thread)
			return err_set(err, -EINVAL, "cores %d and %d: their CPUID says they are the same Hyper-Threading thread of one core; nothing was written",
				       c->cores[i], nc[i].sibling);
		nc[i].avoid = nc[i].caps.nb_thread ? NB_HALF_T0 : NB_HALF_T1;
		/* Thread 0 counts the thread-independent events for both, once. */
		nc[i].core_wide_on_sibling = nc[i].caps.nb_thread == 1;
	}
	return 0;
}

void
backend_nb_plan_input(const struct run_ctx *c, unsigned i, struct plan_input *in)
{
	const struct nb_core *nc;

	if (!c->nb_cores)
		return;
	nc = &c->nb_cores[i];
	in->avoid_nb = nc->avoid;
	in->avoid_nb_soft = nc->avoid_soft;
	in->core_wide_on_sibling = nc->core_wide_on_sibling;
	in->sibling_core = nc->sibling;
}

void
backend_nb_note_core_wide(const struct run_ctx *c, unsigned i, const struct plan *plan)
{
	const struct nb_core *nc = c->nb_cores ? &c->nb_cores[i] : NULL;

	if (!nc || nc->sibling < 0 || nc->sibling_listed >= 0)
		return;
	for (unsigned k = 0; k < plan->in.nevents; k++)
		if ((plan->in.events[k].flags & EVENT_F_CORE_WIDE) && plan->slots[k].kind == SCHED_NB)
			fprintf(stderr, "pmustat: note: core %d: %s is thread-independent: its counter counts the events of both Hyper-Threading threads of the core, so its count includes what ran on core %d (the sibling) too\n",
				c->cores[i], plan->in.events[k].requested[0] ? plan->in.events[k].requested :
				plan->in.events[k].name, nc->sibling);
}

uint32_t
backend_nb_avoid(const struct run_ctx *c, unsigned i, bool *soft)
{
	*soft = c->nb_cores && c->nb_cores[i].avoid_soft;
	return c->nb_cores ? c->nb_cores[i].avoid : 0;
}

int
backend_nb_occupancy(struct hw *hw, int core, unsigned model, struct pmu_occupancy *occ)
{
	uint64_t cccr[NB_COUNTERS], escr[NB_ESCRS];

	if (hw_msr_open(hw, core, false) != 0)
		return -1;
	for (unsigned i = 0; i < NB_COUNTERS; i++)
		if (hw_rdmsr(hw, core, nb_cccr_msr(i), &cccr[i]) != 0)
			return -1;
	for (unsigned i = 0; i < NB_ESCRS; i++) {
		escr[i] = 0;
		if (nb_escr_exists(i, model) && hw_rdmsr(hw, core, nb_escr_get(i)->msr, &escr[i]) != 0)
			return -1;
	}
	pmu_owner_scan_nb(cccr, escr, NULL, occ);
	return 0;
}

int
backend_nb_lock_sibling(struct run_ctx *c, unsigned i, int wait_ms, int *fd, struct pmustat_error **err)
{
	int core = c->cores[i], sibling;
	char *note = NULL;
	int rc;

	if (!c->nb_cores || c->nb_cores[i].sibling < 0 || c->nb_cores[i].sibling_listed >= 0)
		return 0;
	sibling = c->nb_cores[i].sibling;
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
	uint64_t alone = plan_nb_escrs_alone(occ);
	char one[256];

	for (unsigned k = 0; k < NB_COUNTERS; k++) {
		if (!(occ->nb_busy & (1u << k)))
			continue;
		plan_nb_describe_busy(occ, k, one, sizeof(one));
		fprintf(stderr, "pmustat: core %d: scheduled around %s, another user's\n", core, one);
	}
	for (unsigned e = 0; e < NB_ESCRS; e++) {
		if (!(alone & (1ull << e)))
			continue;
		plan_nb_describe_escr(occ, e, one, sizeof(one));
		fprintf(stderr, "pmustat: core %d: scheduled around %s, another user's\n", core, one);
	}
}
