/*
 * backend_msr_plan.c - the MSR backend's plans: each core's around who
 * holds what on it, kept to the same runs (and with --regions the same
 * counters) on every listed core; the --dry-run plan from reads only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/err.h"
#include "base/strbuf.h"
#include "engine/backend.h"
#include "pmus/netburst/backend_msr_nb.h"
#include "engine/backend_msr_plan.h"
#include "pmu/plan.h"
#include "engine/requests.h"
#include "engine/run.h"
#include "engine/signals.h"
#include "engine/stat.h"
#include "engine/target.h"
#include "hw/cpulock.h"
#include "hw/hw.h"
#include "pmu/journal.h"
#include "pmu/pmu.h"
#include "pmu/rdpmc_journal.h"
#include "pmu/snapshot.h"

/* What the kernel says of its watchdog, for whom a busy counter belongs to. */
void
backend_msr_hints(struct run_ctx *c, struct pmu_owner_hints *h)
{
	char wd[32] = "";

	memset(h, 0, sizeof(*h));
	if (c->hw && hw_read_file(c->hw, HW_FILE_NMI_WATCHDOG, wd, sizeof(wd)) == 0)
		h->watchdog_on = pmu_owner_watchdog_on(wd);
}

/* Listed core @i's plan (@i 0 also for the one core of a single-core run), from its core type's events. */
static int
make_plan_for(struct run_ctx *c, unsigned i, int core, const struct pmu_occupancy *occ, const char *assumed_why,
	      uint64_t global_ctrl, bool gc_assumed, uint32_t avoid_gp, uint32_t avoid_fixed, struct plan **out,
	      struct pmustat_error **err)
{
	const struct stat_events *ev = run_core_events(c, i);
	struct plan_input in;

	memset(&in, 0, sizeof(in));
	in.core = core;
	in.caps = run_core_caps(c, i);
	backend_nb_plan_input(c, i, &in);
	in.events = ev->hw;
	in.nevents = ev->nhw;
	in.pinned_run = ev->pinned_run;
	if (occ)
		in.occ = *occ;
	in.occupancy_assumed = assumed_why != NULL;
	in.assumed_why = assumed_why;
	in.global_ctrl = global_ctrl;
	in.global_ctrl_assumed = gc_assumed;
	in.force = c->o->force;
	in.no_rerun = c->o->no_rerun;
	in.avoid_gp = avoid_gp;
	in.avoid_fixed = avoid_fixed;
	return plan_make(&in, out, err);
}

static int
make_plan(struct run_ctx *c, const struct pmu_occupancy *occ, const char *assumed_why, uint64_t global_ctrl,
	  bool gc_assumed, struct pmustat_error **err)
{
	return make_plan_for(c, 0, c->core, occ, assumed_why, global_ctrl, gc_assumed, 0, 0, &c->plan, err);
}

/*
 * Do two plans count every event in the same run of the command, and with
 * @counters, on the same counter too? --regions needs that: a thread reads
 * one rdpmc index per event on whichever core it runs.
 */
static bool
same_runs(const struct plan *a, const struct plan *b, unsigned nevents, bool counters)
{
	if (a->nruns != b->nruns)
		return false;
	for (unsigned k = 0; k < nevents; k++) {
		/* Counted on one core type only (cpu_core/, cpu_atom/): no run on the other. */
		if (a->slots[k].kind == SCHED_NONE || b->slots[k].kind == SCHED_NONE)
			continue;
		if (a->slots[k].run != b->slots[k].run)
			return false;
		if (counters && (a->slots[k].kind != b->slots[k].kind || a->slots[k].index != b->slots[k].index))
			return false;
	}
	return true;
}

/*
 * Each core's plan around who holds what on it (@occ[i], and GLOBAL_CTRL
 * as found, @gctrl[i]): its own counters. Every core must count each event
 * in the same run of the command (a thread's events are summed over the
 * cores it ran on); when their own plans batch the events differently,
 * every core keeps to the counters free on all. A core that cannot take
 * the events refuses the whole run (its plan's error names it); nothing
 * has been written yet. @plans[0..ncores) are set (c->plan is plans[0]).
 */
int
backend_msr_plan_all(struct run_ctx *c, const struct pmu_occupancy *const *occ, const uint64_t *gctrl,
		     const char *assumed_why, bool gc_assumed, struct plan **plans, struct pmustat_error **err)
{
	uint32_t common_gp = ~0u, common_fixed = ~0u;
	bool same = true;
	int rc;

	for (unsigned pass = 0; pass < 2; pass++) {
		for (unsigned i = 0; i < c->ncores; i++) {
			uint32_t avoid_gp = 0, avoid_fixed = 0;

			if (pass == 1) {
				avoid_gp = plans[i]->gp_free & ~common_gp;
				avoid_fixed = plans[i]->fixed_free & ~common_fixed;
				plan_free(plans[i]);
				plans[i] = NULL;
			}
			rc = make_plan_for(c, i, c->cores[i], occ[i], assumed_why, gctrl[i], gc_assumed, avoid_gp,
					   avoid_fixed, &plans[i], err);
			c->plan = plans[0];
			if (rc) {
				if (c->ncores > 1)
					err_append(err, "; nothing was written on any of the cores");
				return rc;
			}
			common_gp &= plans[i]->gp_free;
			common_fixed &= plans[i]->fixed_free;
			if (i > 0 && !same_runs(plans[0], plans[i], c->ev->nhw, c->o->regions))
				same = false;
		}
		if (same)
			return 0;
		/* The second pass keeps to the counters free on every core. */
		if (pass == 0 && c->o->verbose)
			fprintf(stderr, "pmustat: the cores' own plans batch the events differently; every core uses only the counters free on all\n");
		same = true;
	}
	for (unsigned i = 0; c->o->regions && i < c->ncores; i++) {
		bool soft;

		if (backend_nb_avoid(c, i, &soft) && !soft)
			return err_set(err, -EBUSY, "--regions: cores %d and %d are the two Hyper-Threading threads of one NetBurst core, each counting on its own half of their shared counters, and a region reads one counter number per event wherever its thread runs; list one thread of each core with -C; nothing was written on any of the cores",
				       c->cores[i], c->nb_cores[i].sibling);
	}
	if (c->o->regions)
		return err_set(err, -EBUSY, "--regions: the cores cannot count each event on the same counter in the same run of the command (counters in use differ between them); give one core with -C, or fewer events; nothing was written on any of the cores");
	return err_set(err, -EBUSY, "the cores cannot count the events in the same runs of the command; nothing was written on any of the cores");
}

/*
 * --dry-run on several cores: each core's plan from its snapshot (reads
 * only), or, when one core's MSRs cannot be read, every counter assumed
 * free on all.
 */
static int
plan_dry_cores(struct run_ctx *c, struct pmustat_error **err)
{
	struct pmu_owner_hints hints;
	struct pmu_snapshot snap;
	struct pmu_occupancy *occ = calloc(c->ncores, sizeof(*occ));
	const struct pmu_occupancy **occp = calloc(c->ncores, sizeof(const struct pmu_occupancy *));
	uint64_t *gctrl = calloc(c->ncores, sizeof(*gctrl));
	const char *assumed = NULL;
	int rc = -ENOMEM;

	c->plans = calloc(c->ncores, sizeof(struct plan *));
	if (!occ || !occp || !gctrl || !c->plans) {
		err_set(err, rc, "out of memory");
		goto out;
	}
	backend_msr_hints(c, &hints);
	for (unsigned i = 0; i < c->ncores && !assumed; i++) {
		/* NetBurst: around the CCCRs another user enabled, read only. */
		if (c->t->cpu.netburst.present) {
			if (backend_nb_occupancy(c->hw, c->cores[i], c->t->cpu.pmu.nb_model, &occ[i]) != 0)
				assumed = "a core's MSRs are not readable";
			occp[i] = &occ[i];
			continue;
		}
		if (hw_msr_open(c->hw, c->cores[i], false) != 0 ||
		    pmu_snapshot_read(c->hw, c->cores[i], run_core_caps(c, i), &snap, NULL) != 0) {
			assumed = "a core's MSRs are not readable";
			break;
		}
		pmu_snapshot_occupancy(&snap, &hints, &occ[i]);
		occp[i] = &occ[i];
		gctrl[i] = snap.global_ctrl;
	}
	for (unsigned i = 0; assumed && i < c->ncores; i++) {
		occp[i] = NULL;
		gctrl[i] = run_core_caps(c, i)->gp_mask;
	}
	rc = backend_msr_plan_all(c, occp, gctrl, assumed, assumed != NULL, c->plans, err);
out:
	free(occ);
	free(occp);
	free(gctrl);
	return rc;
}

int
backend_msr_plan_dry(struct run_ctx *c, struct pmustat_error **err)
{
	struct pmu_owner_hints hints;
	struct pmu_occupancy occ;
	struct pmu_snapshot snap;

	/* A CPU of a dump, or no MSR access here: nobody holds anything, the power-up state. */
	if (!c->t->live)
		return make_plan(c, NULL, "a CPU of a dump", c->t->cpu.pmu.gp_mask, true, err);
	if (c->t->cpu.netburst.present) {
		int rc = backend_nb_cores(c, err);

		if (rc)
			return rc;
	}
	if (c->ncores > 1)
		return plan_dry_cores(c, err);
	/* A live NetBurst core: around the CCCRs another user enabled, read only. */
	if (c->t->cpu.netburst.present) {
		memset(&occ, 0, sizeof(occ));
		if (backend_nb_occupancy(c->hw, c->core, c->t->cpu.pmu.nb_model, &occ) != 0)
			return make_plan(c, NULL, "this core's MSRs are not readable", 0, true, err);
		return make_plan(c, &occ, NULL, 0, false, err);
	}
	if (hw_msr_open(c->hw, c->core, false) != 0 ||
	    pmu_snapshot_read(c->hw, c->core, &c->t->cpu.pmu, &snap, NULL) != 0)
		return make_plan(c, NULL, "this core's MSRs are not readable", c->t->cpu.pmu.gp_mask, true, err);
	backend_msr_hints(c, &hints);
	pmu_snapshot_occupancy(&snap, &hints, &occ);
	return make_plan(c, &occ, NULL, snap.global_ctrl, false, err);
}
