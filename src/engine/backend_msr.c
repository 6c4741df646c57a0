/*
 * backend_msr.c - the MSR backend: pmustat programs the core's PMU itself
 * (pmu/pmu.h). Once: the core's lock, a killed run's journal put back,
 * the PMU saved and who holds what read, the plan made around them, and
 * the crash journal written before the first MSR write. Per run: the
 * run's program (counting off), the enable in the corked child, disable
 * and read after. At the end, on every path: everything restored, the
 * journal removed, the lock released.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "engine/backend.h"
#include "engine/plan.h"
#include "engine/requests.h"
#include "engine/run.h"
#include "engine/signals.h"
#include "engine/stat.h"
#include "engine/target.h"
#include "hw/cpulock.h"
#include "hw/hw.h"
#include "pmu/journal.h"
#include "pmu/pmu.h"
#include "pmu/snapshot.h"

#define LOCK_WAIT_MS 2000

struct msr_state {
	struct pmu *pmu;
	int lock_fd;
	bool journaled;
	bool use_rdpmc;
	struct interval_sampler sampler;
	bool sampled;			/* the sampler read this run's counters while it ran */
	uint64_t finals[SCHED_MAX_EVENTS];
};

static struct msr_state *
state(struct run_ctx *c)
{
	return c->state[0];
}

/* What the kernel says of its watchdog, for whom a busy counter belongs to. */
static void
hints_of(struct run_ctx *c, struct pmu_owner_hints *h)
{
	char wd[32] = "";

	memset(h, 0, sizeof(*h));
	if (c->hw && hw_read_file(c->hw, HW_FILE_NMI_WATCHDOG, wd, sizeof(wd)) == 0)
		h->watchdog_on = pmu_owner_watchdog_on(wd);
}

static int
make_plan(struct run_ctx *c, const struct pmu_occupancy *occ, const char *assumed_why, uint64_t global_ctrl,
	  bool gc_assumed, struct pmustat_error **err)
{
	struct plan_input in;

	memset(&in, 0, sizeof(in));
	in.core = c->core;
	in.caps = &c->t->cpu.pmu;
	in.events = c->ev->hw;
	in.nevents = c->ev->nhw;
	if (occ)
		in.occ = *occ;
	in.occupancy_assumed = assumed_why != NULL;
	in.assumed_why = assumed_why;
	in.global_ctrl = global_ctrl;
	in.global_ctrl_assumed = gc_assumed;
	in.force = c->o->force;
	in.no_rerun = c->o->no_rerun;
	return plan_make(&in, &c->plan, err);
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
	if (hw_msr_open(c->hw, c->core, false) != 0 ||
	    pmu_snapshot_read(c->hw, c->core, &c->t->cpu.pmu, &snap, NULL) != 0)
		return make_plan(c, NULL, "this core's MSRs are not readable", c->t->cpu.pmu.gp_mask, true, err);
	hints_of(c, &hints);
	pmu_snapshot_occupancy(&snap, &hints, &occ);
	return make_plan(c, &occ, NULL, snap.global_ctrl, false, err);
}

static void
verbose_plan(struct run_ctx *c)
{
	const struct pmu_occupancy *occ = pmu_occupancy(state(c)->pmu);
	char counter[16];

	fprintf(stderr, "pmustat: core %d (%s), table %s, %u run(s)\n", c->core, c->t->key,
		c->t->table ? c->t->choice.table : "(architectural events only)", c->plan->nruns);
	for (unsigned k = 0; k < c->ev->nhw; k++) {
		plan_counter_name(c->plan, k, counter, sizeof(counter));
		fprintf(stderr, "pmustat:   %-30s -> %s, run %u\n", c->ev->hw[k].name, counter, c->plan->slots[k].run + 1);
	}
	if (occ->busy_gp | occ->busy_fixed) {
		struct strbuf who = STRBUF_INIT;

		pmu_occupancy_describe(occ, occ->busy_gp, occ->busy_fixed, &who);
		fprintf(stderr, "pmustat: %s counters in use: %s\n", c->o->force ? "taking" : "scheduled around",
			strbuf_str(&who));
		strbuf_free(&who);
	}
}

static int
msr_begin(struct run_ctx *c, struct pmustat_error **err)
{
	struct pmu_owner_hints hints;
	struct msr_state *s = calloc(1, sizeof(*s));
	struct journal j;
	char *note = NULL;
	int rc;

	if (!s)
		return err_set(err, -ENOMEM, "out of memory");
	s->lock_fd = -1;
	c->state[0] = s;
	/* One pmustat per core. */
	s->lock_fd = cpulock_acquire(c->core, LOCK_WAIT_MS, err);
	if (s->lock_fd < 0)
		return s->lock_fd;
	/* A run killed mid-count left its journal: put back what it saved first. */
	rc = journal_recover(JOURNAL_DIR, c->core, c->hw, &c->t->cpu.pmu, &note, err);
	if (rc == 1)
		fprintf(stderr, "pmustat: %s\n", note);
	free(note);
	if (rc < 0)
		return rc;
	/* Save the PMU (reads only) and find who else uses it; hardware steps hold the signals. */
	signals_install();
	signals_block(true);
	hints_of(c, &hints);
	rc = pmu_open(&s->pmu, c->hw, c->core, &c->t->cpu.pmu, requests_uses_offcore(c->ev), &hints, err);
	if (rc)
		return rc;
	pmu_arm_signal_restore(s->pmu);
	if (c->o->force)
		pmu_take_busy(s->pmu);
	/* A frozen PMU counts nothing: refuse, or unfreeze with --force (set back at the end). */
	{
		const char *frozen = NULL;

		rc = pmu_check_frozen(s->pmu, c->o->force, &frozen, err);
		if (rc)
			return rc;
		if (frozen && (c->o->verbose || c->o->force))
			fprintf(stderr, "pmustat: core %d: %s\n", c->core, frozen);
	}
	/* Schedule around counters in use (refuse, naming them, when impossible). */
	rc = make_plan(c, pmu_occupancy(s->pmu), NULL, pmu_found_global_ctrl(s->pmu), false, err);
	if (rc)
		return rc;
	if (c->o->verbose)
		verbose_plan(c);
	/* What pmu_open() saved goes to the crash journal before the first write. */
	journal_arm_signal_remove(JOURNAL_DIR, c->core);
	rc = journal_from_programs(&j, s->pmu, c->plan->runs, c->plan->nruns, err);
	if (rc == 0)
		rc = journal_write(JOURNAL_DIR, &j, err);
	if (rc) {
		journal_arm_signal_remove(NULL, 0);
		return err_set(err, rc, "core %d: %s; pmustat keeps a journal so that a killed run can be undone, and counts only with one",
			       c->core, err_msg(*err));
	}
	s->journaled = true;
	s->use_rdpmc = hw_rdpmc_probe(c->hw, c->core) == 0;
	c->read_method = s->use_rdpmc ? "rdpmc" : "MSR reads";
	return 0;
}

static void
msr_end(struct run_ctx *c)
{
	struct msr_state *s = state(c);
	int rc;

	if (!s)
		return;
	if (s->pmu) {
		rc = pmu_restore(s->pmu);
		/* Failed, but nothing had changed (every write refused): no journal needed. */
		if (s->journaled && (rc >= 0 || journal_matches(JOURNAL_DIR, c->core, c->hw)))
			(void)journal_remove(JOURNAL_DIR, c->core);
		else if (s->journaled)
			fprintf(stderr, "pmustat: core %d: the journal of what was saved is kept; 'pmustat reset -C %d' retries the restore\n",
				c->core, c->core);
		journal_arm_signal_remove(NULL, 0);
		if (rc < 0)
			run_fail(c, rc, "core %d: restoring the PMU failed (%s); the counters may still be programmed: %s",
				 c->core, strerror(-rc), hw_msr_hint(rc, true));
		else if (rc == 1)
			fprintf(stderr, "pmustat: warning: core %d: a counter's old value could not be restored exactly (no full-width writes on this CPU)\n",
				c->core);
		pmu_arm_signal_restore(NULL);
		if (c->o->verbose) {
			unsigned long reads, writes, rdpmc;

			pmu_stats(s->pmu, &reads, &writes, &rdpmc);
			fprintf(stderr, "pmustat: %lu MSR reads, %lu MSR writes, %lu rdpmc; enable through %s\n", reads,
				writes, rdpmc,
				pmu_mode(s->pmu) == PMU_ENABLE_GLOBAL ? "IA32_PERF_GLOBAL_CTRL" : "per-counter enables");
		}
		pmu_close(s->pmu);
	}
	cpulock_release(s->lock_fd);
	signals_block(false);
	free(s);
	c->state[0] = NULL;
}

static int
msr_arm(struct run_ctx *c, unsigned run, struct runner_opts *ro, struct pmustat_error **err)
{
	/* Program, then fork: the child enables from its copy, made ready before fork(). */
	int rc = pmu_program(state(c)->pmu, &c->plan->runs[run], err);

	if (rc)
		return rc;
	ro->enable = pmu_enable;
	ro->arg = state(c)->pmu;
	return 0;
}

static int
msr_attach(struct run_ctx *c, unsigned run, pid_t pid, struct pmustat_error **err)
{
	(void)c;
	(void)run;
	(void)pid;
	(void)err;
	return 0;
}

/* Every run: reads at least once a second see every wrap (interval.h); -I emits too. */
static int
msr_sample_start(struct run_ctx *c, unsigned run, struct pmustat_error **err)
{
	int rc = interval_start(&state(c)->sampler, c->hw, c->core, &c->t->cpu.pmu, c->plan->slots, c->ev->nhw,
				run, c->o->interval_ms, c->o->interval_ms ? c->emit_interval : NULL, c->emit_arg, err);

	state(c)->sampled = rc == 0;
	return rc;
}

static void
msr_sample_stop(struct run_ctx *c, unsigned run)
{
	(void)run;
	interval_stop(&state(c)->sampler);
}

static void
msr_sample_finish(struct run_ctx *c, unsigned run)
{
	(void)run;
	interval_finish(&state(c)->sampler, state(c)->finals);
}

static int
msr_stop(struct run_ctx *c, unsigned run, struct pmustat_error **err)
{
	(void)run;
	/* The child may have enabled before it failed: always disable. */
	pmu_mark_enabled(state(c)->pmu);
	return pmu_disable(state(c)->pmu, err);
}

static int
msr_collect(struct run_ctx *c, unsigned run, struct pmustat_error **err)
{
	struct msr_state *s = state(c);
	struct pmu_count counts[SCHED_MAX_EVENTS];
	int rc;

	if (s->use_rdpmc)
		run_pin_self(c->core, true);
	rc = pmu_read(s->pmu, c->plan->slots, c->ev->nhw, run, s->use_rdpmc, counts, err);
	if (rc) {
		s->sampled = false;
		return rc;
	}
	memset(s->finals, 0, sizeof(s->finals));
	if (s->sampled && s->sampler.read_error)
		fprintf(stderr, "pmustat: warning: core %d: reading the counters during the run failed (%s); a counter that wrapped more than once between two good reads is undercounted\n",
			c->core, strerror(-s->sampler.read_error));
	for (unsigned u = 0; u < c->ev->nhw; u++) {
		if (c->plan->slots[u].run == run && counts[u].frozen) {
			fprintf(stderr, "pmustat: warning: core %d: the PMU was frozen during the run (IA32_PERF_GLOBAL_STATUS.CTR_Frz, bit 59: another user's PMI under IA32_DEBUGCTL.FREEZE_PERFMON_ON_PMI); the run's counts are not reported, and unfreezing is that user's business\n",
				c->core);
			break;
		}
	}
	for (unsigned u = 0; u < c->ev->nhw; u++) {
		if (c->plan->slots[u].run != run)
			continue;
		/*
		 * Counted through every wrap by the reads during the run, not by
		 * the overflow bit; a run too short for any read (under a
		 * second, when no counter can wrap) keeps pmu_read()'s count.
		 */
		if (s->sampled && s->sampler.reads > 0)
			counts[u].value = interval_total(&s->sampler, u, counts[u].raw);
		c->counts[u].counted = true;
		c->counts[u].value = counts[u].value;
		c->counts[u].status = "counted";
		/* Frozen by another user's PMI while the command ran: these are no counts. */
		if (counts[u].frozen) {
			c->counts[u].counted = false;
			c->counts[u].status = "not counted: PMU frozen (CTR_Frz)";
		}
		c->counts[u].run = run + 1;
		s->finals[u] = counts[u].value;
	}
	s->sampled = false;
	return 0;
}

static void
msr_discard(struct run_ctx *c, unsigned run)
{
	(void)c;
	(void)run;
}

const struct backend_ops backend_msr = {
	.name = "msr",
	.begin = msr_begin,
	.end = msr_end,
	.arm = msr_arm,
	.attach = msr_attach,
	.sample_start = msr_sample_start,
	.sample_stop = msr_sample_stop,
	.sample_finish = msr_sample_finish,
	.stop = msr_stop,
	.collect = msr_collect,
	.discard = msr_discard,
};
