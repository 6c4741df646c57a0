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
#include <math.h>
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

#define LOCK_WAIT_MS 2000

/* One counted core. */
struct msr_core {
	int core;
	int lock_fd;
	struct plan *plan;		/* c->plans[i] (the run's, not freed here) */
	int sibling_lock_fd;		/* NetBurst HT: the other thread's CPU shares the PMU (when not counted too) */
	bool journaled;
	bool use_rdpmc;
};

struct msr_state {
	unsigned n;
	struct msr_core *cores;		/* ascending */
	struct pmu **pmus;		/* per core, for the child's enable and the signal handler */
	struct interval_sampler sampler;
	bool sampled;			/* the sampler read this run's counters while it ran */
	uint64_t *finals;		/* -I: this run's counts per core, [k * SCHED_MAX_EVENTS + u] */
	const struct sched_slot **slots;	/* per core, its plan's */
};

static struct msr_state *
state(struct run_ctx *c)
{
	return c->state[0];
}

static void
verbose_plan(struct run_ctx *c, unsigned i)
{
	struct msr_state *s = state(c);
	const struct pmu_occupancy *occ = pmu_occupancy(s->pmus[i]);
	const struct plan *plan = s->cores[i].plan;
	char counter[16];

	const struct target *t = c->core_t ? c->core_t[i] : c->t;
	const struct stat_events *ev = run_core_events(c, i);

	fprintf(stderr, "pmustat: core %d (%s%s%s), table %s, %u run(s)\n", s->cores[i].core, t->key,
		c->core_t ? ", " : "", c->core_t ? cpu_core_type_name(t->cpu.core_type) : "",
		t->table || t->nb ? t->choice.table : "(architectural events only)", plan->nruns);
	for (unsigned k = 0; k < ev->nhw; k++) {
		char offcore[40] = "";
		struct event e;

		plan_counter_name(plan, k, counter, sizeof(counter));
		/* Which offcore response MSR it reads: its own, or the other one (with the other event code). */
		sched_slot_event(&ev->hw[k], &plan->slots[k], &e);
		if (e.extra_msr == MSR_OFFCORE_RSP_0 || e.extra_msr == MSR_OFFCORE_RSP_1)
			snprintf(offcore, sizeof(offcore), " (MSR_OFFCORE_RSP_%u)", e.extra_msr - MSR_OFFCORE_RSP_0);
		fprintf(stderr, "pmustat:   %-30s -> %s%s, run %u\n", ev->hw[k].name, counter, offcore,
			plan->slots[k].run + 1);
	}
	if (occ->busy_gp | occ->busy_fixed) {
		struct strbuf who = STRBUF_INIT;

		pmu_occupancy_describe(occ, occ->busy_gp, occ->busy_fixed, &who);
		fprintf(stderr, "pmustat: core %d: %s counters in use: %s\n", s->cores[i].core,
			c->o->force ? "taking" : "scheduled around", strbuf_str(&who));
		strbuf_free(&who);
	}
	backend_nb_verbose_busy(s->cores[i].core, occ);
}

static int
plan_cores(struct run_ctx *c, struct pmustat_error **err)
{
	struct msr_state *s = state(c);
	const struct pmu_occupancy **occ = calloc(s->n, sizeof(const struct pmu_occupancy *));
	uint64_t *gctrl = calloc(s->n, sizeof(*gctrl));
	struct plan **plans = calloc(s->n, sizeof(struct plan *));
	int rc = -ENOMEM;

	if (!occ || !gctrl || !plans) {
		err_set(err, rc, "out of memory");
		goto out;
	}
	for (unsigned i = 0; i < s->n; i++) {
		occ[i] = pmu_occupancy(s->pmus[i]);
		gctrl[i] = pmu_found_global_ctrl(s->pmus[i]);
	}
	rc = backend_msr_plan_all(c, occ, gctrl, NULL, false, plans, err);
	for (unsigned i = 0; i < s->n; i++)
		s->cores[i].plan = plans[i];
	/* The run keeps them (the report names each core's counters) and frees them. */
	c->plans = plans;
	plans = NULL;
out:
	free(occ);
	free(gctrl);
	free(plans);
	return rc;
}

/*
 * A killed --regions run left rdpmc allowed for every process: put back
 * what it found (--regions refuses on a journal it cannot apply; other
 * runs only say so).
 */
static void
recover_rdpmc(struct run_ctx *c)
{
	struct pmustat_error *e = NULL;
	char *note = NULL;
	int rc = rdpmc_journal_recover(JOURNAL_DIR, c->hw, &note, &e);

	if (rc == 1 && note)
		fprintf(stderr, "pmustat: %s\n", note);
	else if (rc < 0 && rc != -EBUSY && !c->o->regions)
		fprintf(stderr, "pmustat: warning: %s\n", err_msg(e));
	free(note);
	err_clear(&e);
}

/* Lock, recover and open (reads only) every core, in ascending order. */
static int
open_cores(struct run_ctx *c, struct pmustat_error **err)
{
	struct msr_state *s = state(c);
	struct pmu_owner_hints hints;
	int rc;

	/* One pmustat per core; ascending, so runs with overlapping lists cannot deadlock. */
	for (unsigned i = 0; i < s->n; i++) {
		s->cores[i].lock_fd = cpulock_acquire(s->cores[i].core, LOCK_WAIT_MS, err);
		if (s->cores[i].lock_fd < 0)
			return s->cores[i].lock_fd;
	}
	/* A run killed mid-count left its journal: put back what it saved first. */
	for (unsigned i = 0; i < s->n; i++) {
		char *note = NULL;

		rc = journal_recover(JOURNAL_DIR, s->cores[i].core, c->hw, run_core_caps(c, i), &note, err);
		if (rc == 1)
			fprintf(stderr, "pmustat: %s\n", note);
		free(note);
		if (rc < 0)
			return rc;
	}
	for (unsigned i = 0; i < s->n; i++) {
		rc = backend_nb_lock_sibling(c, i, LOCK_WAIT_MS, &s->cores[i].sibling_lock_fd, err);
		if (rc < 0)
			return rc;
		rc = backend_nb_check_perfmon(c, s->cores[i].core, err);
		if (rc < 0)
			return rc;
	}
	recover_rdpmc(c);
	/* Save the PMUs (reads only) and find who else uses them; hardware steps hold the signals. */
	signals_install();
	signals_block(true);
	backend_msr_hints(c, &hints);
	for (unsigned i = 0; i < s->n; i++) {
		const struct pmu *like = NULL;

		/* IA32_PERF_CAPABILITIES describes the core type: read once per type. */
		for (unsigned j = 0; j < i && !like; j++)
			if (run_core_caps(c, j) == run_core_caps(c, i))
				like = s->pmus[j];
		/* The counters' values are read once the plan says which it uses. */
		rc = pmu_open_lean(&s->pmus[i], c->hw, s->cores[i].core, run_core_caps(c, i),
				   requests_uses_offcore(run_core_events(c, i)), &hints, like, err);
		if (rc)
			return rc;
		if (c->o->force)
			pmu_take_busy(s->pmus[i]);
	}
	pmu_arm_signal_restore_all(s->pmus, s->n);
	/* A frozen PMU counts nothing: refuse, or unfreeze with --force (set back at the end). */
	for (unsigned i = 0; i < s->n; i++) {
		const char *frozen = NULL;

		rc = pmu_check_frozen(s->pmus[i], c->o->force, &frozen, err);
		if (rc)
			return rc;
		if (frozen && (c->o->verbose || c->o->force))
			fprintf(stderr, "pmustat: core %d: %s\n", s->cores[i].core, frozen);
	}
	return 0;
}

/* What pmu_open() saved goes to each core's crash journal before the first write. */
static int
journal_cores(struct run_ctx *c, struct pmustat_error **err)
{
	struct msr_state *s = state(c);
	struct journal j;
	int rc;

	rc = journal_arm_signal_remove_cores(JOURNAL_DIR, c->cores, c->ncores);
	if (rc)
		return err_set(err, rc, "out of memory");
	for (unsigned i = 0; i < s->n; i++) {
		const struct plan *plan = s->cores[i].plan;
		uint32_t gp = 0, fixed = 0;

		for (unsigned r = 0; r < plan->nruns; r++) {
			gp |= plan->runs[r].gp;
			fixed |= plan->runs[r].fixed;
		}
		/* rdpmc reads the counters of the CPU it runs on (run_keep_off() moves pmustat off before the run). */
		if (s->cores[i].use_rdpmc)
			run_pin_self(s->cores[i].core, true);
		rc = pmu_save_counters(s->pmus[i], gp, fixed, s->cores[i].use_rdpmc, err);
		if (rc)
			return rc;
		rc = journal_from_programs(&j, s->pmus[i], plan->runs, plan->nruns, err);
		if (rc == 0)
			rc = journal_write(JOURNAL_DIR, &j, err);
		if (rc)
			return err_set(err, rc, "core %d: %s; pmustat keeps a journal so that a killed run can be undone, and counts only with one",
				       s->cores[i].core, err_msg(*err));
		s->cores[i].journaled = true;
	}
	return 0;
}

static int
msr_begin(struct run_ctx *c, struct pmustat_error **err)
{
	struct msr_state *s = calloc(1, sizeof(*s));
	bool rdpmc = true;
	int rc;

	if (!s)
		return err_set(err, -ENOMEM, "out of memory");
	c->state[0] = s;
	/* NetBurst: each core's thread (its T0/T1 bits) and sibling, from its CPUID. */
	rc = backend_nb_cores(c, err);
	if (rc)
		return rc;
	s->cores = calloc(c->ncores, sizeof(*s->cores));
	s->pmus = calloc(c->ncores, sizeof(struct pmu *));
	s->finals = calloc((size_t)c->ncores * SCHED_MAX_EVENTS, sizeof(*s->finals));
	s->slots = calloc(c->ncores, sizeof(const struct sched_slot *));
	if (!s->cores || !s->pmus || !s->finals || !s->slots)
		return err_set(err, -ENOMEM, "out of memory");
	s->n = c->ncores;
	for (unsigned i = 0; i < s->n; i++) {
		s->cores[i].core = c->cores[i];
		s->cores[i].lock_fd = -1;
		s->cores[i].sibling_lock_fd = -1;
	}
	rc = open_cores(c, err);
	if (rc)
		return rc;
	/* Schedule around counters in use (refuse, naming them and the core, when impossible). */
	rc = plan_cores(c, err);
	if (rc)
		return rc;
	for (unsigned i = 0; i < s->n; i++) {
		/* Planning that succeeds plans every listed core; a core without a plan is a bug, not a run. */
		if (!s->cores[i].plan)
			return err_set(err, -EINVAL, "core %d: no counter plan was made for it (a pmustat bug; please report it)",
				       s->cores[i].core);
		s->slots[i] = s->cores[i].plan->slots;
	}
	for (unsigned i = 0; c->o->verbose && i < s->n; i++)
		verbose_plan(c, i);
	/* Before the journal: the counters' values are saved the way they are read after the run. */
	for (unsigned i = 0; i < s->n; i++)
		rdpmc = rdpmc && hw_rdpmc_probe(c->hw, s->cores[i].core) == 0;
	for (unsigned i = 0; i < s->n; i++)
		s->cores[i].use_rdpmc = rdpmc;
	c->read_method = rdpmc ? "rdpmc" : "MSR reads";
	return journal_cores(c, err);
}

/* Restore core @i, remove its journal; the first failure goes to c->error. */
static void
end_core(struct run_ctx *c, unsigned i, unsigned long *stats)
{
	struct msr_state *s = state(c);
	struct msr_core *mc = &s->cores[i];
	int rc;

	if (s->pmus[i]) {
		unsigned long reads, writes, rdpmc;

		rc = pmu_restore(s->pmus[i]);
		/* Failed, but nothing had changed (every write refused): no journal needed. */
		if (mc->journaled && (rc >= 0 || journal_matches(JOURNAL_DIR, mc->core, c->hw)))
			(void)journal_remove(JOURNAL_DIR, mc->core);
		else if (mc->journaled)
			fprintf(stderr, "pmustat: core %d: the journal of what was saved is kept; 'pmustat reset -C %d' retries the restore\n",
				mc->core, mc->core);
		if (rc < 0)
			run_fail(c, rc, "core %d: restoring the PMU failed (%s); the counters may still be programmed: %s",
				 mc->core, strerror(-rc), hw_msr_hint(rc, true));
		else if (rc == 1)
			fprintf(stderr, "pmustat: warning: core %d: a counter's old value could not be restored exactly (no full-width writes on this CPU)\n",
				mc->core);
		pmu_stats(s->pmus[i], &reads, &writes, &rdpmc);
		stats[0] += reads;
		stats[1] += writes;
		stats[2] += rdpmc;
	} else if (mc->journaled) {
		(void)journal_remove(JOURNAL_DIR, mc->core);
	}
}

static void
msr_end(struct run_ctx *c)
{
	struct msr_state *s = state(c);
	unsigned long stats[3] = { 0, 0, 0 };

	if (!s)
		return;
	for (unsigned i = 0; s->pmus && i < s->n; i++)
		end_core(c, i, stats);
	(void)journal_arm_signal_remove_cores(NULL, NULL, 0);
	pmu_arm_signal_restore_all(NULL, 0);
	if (c->o->verbose && s->pmus && s->n && s->pmus[0])
		fprintf(stderr, "pmustat: %lu MSR reads, %lu MSR writes, %lu rdpmc%s%s; enable through %s\n", stats[0],
			stats[1], stats[2], s->n > 1 ? " on " : "", s->n > 1 ? "every core" : "",
			pmu_mode(s->pmus[0]) == PMU_ENABLE_GLOBAL ? "IA32_PERF_GLOBAL_CTRL" : "per-counter enables");
	for (unsigned i = 0; s->pmus && i < s->n; i++)
		pmu_close(s->pmus[i]);
	/* Released in reverse, after every core is restored. */
	for (unsigned i = s->n; s->cores && i-- > 0;) {
		cpulock_release(s->cores[i].sibling_lock_fd);
		cpulock_release(s->cores[i].lock_fd);
	}
	signals_block(false);
	interval_finish(&s->sampler, NULL);
	free(s->cores);
	free(s->pmus);
	free(s->finals);
	free(s->slots);
	free(s);
	c->state[0] = NULL;
}

/* The child's enable, right before execve: every core's, in order. Async-signal-safe. */
static int
enable_cores(void *arg)
{
	struct msr_state *s = arg;

	for (unsigned i = 0; i < s->n; i++) {
		int rc = pmu_enable(s->pmus[i]);

		if (rc)
			return rc;
	}
	return 0;
}

static int
msr_arm(struct run_ctx *c, unsigned run, struct runner_opts *ro, struct pmustat_error **err)
{
	struct msr_state *s = state(c);

	/* Program every core, then fork: the child enables from its copy, made ready before fork(). */
	for (unsigned i = 0; i < s->n; i++) {
		int rc = pmu_program(s->pmus[i], &s->cores[i].plan->runs[run], err);

		if (rc)
			return rc;
	}
	ro->enable = enable_cores;
	ro->arg = s;
	return 0;
}

/* Every run: reads at least once a second see every wrap (interval.h); -I emits too. */
static int
msr_sample_start(struct run_ctx *c, unsigned run, struct pmustat_error **err)
{
	int rc = interval_start(&state(c)->sampler, c->hw, c->cores, c->ncores, &c->t->cpu.pmu, state(c)->slots,
				c->ev->nhw, run, c->o->interval_ms, c->o->interval_ms ? c->emit_interval : NULL,
				c->emit_arg, err);

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
	struct msr_state *s = state(c);
	struct pmustat_error *e = NULL;
	int first = 0;

	(void)run;
	/* The child may have enabled before it failed: always disable, every core. */
	for (unsigned i = 0; i < s->n; i++) {
		int rc;

		pmu_mark_enabled(s->pmus[i]);
		rc = pmu_disable(s->pmus[i], &e);
		if (rc && !first) {
			first = rc;
			err_move(err, &e);
		}
		err_clear(&e);
	}
	return first;
}

/* A counter another user programmed or stopped while the command ran: say whose it is now. */
static void
warn_taken(const struct run_ctx *c, int core, unsigned u, const struct sched_slot *slot, const struct pmu_count *n)
{
	char name[16];

	if (slot->kind == SCHED_GP)
		snprintf(name, sizeof(name), "pmc%u", slot->index);
	else
		snprintf(name, sizeof(name), "fixed%u", slot->kind == SCHED_METRICS ? PERF_METRICS_FIXED : slot->index);
	if (n->refiltered)
		fprintf(stderr, "pmustat: warning: core %d: another user (perf?) rewrote MSR_OFFCORE_RSP_%u (0x%x) during the run (0x%llx, not what pmustat wrote): %s counted other responses since and is not reported; that MSR is left to that user as it is\n",
			core, n->filter_msr - MSR_OFFCORE_RSP_0, n->filter_msr, (unsigned long long)n->filter_rsp,
			c->ev->hw[u].name);
	else if (n->taken && slot->kind == SCHED_GP)
		fprintf(stderr, "pmustat: warning: core %d: another user (perf?) programmed %s during the run (IA32_PERFEVTSEL%u = 0x%llx, not what pmustat wrote): %s is not reported, and the counter is left to that user as it is\n",
			core, name, slot->index, (unsigned long long)n->ctl, c->ev->hw[u].name);
	else if (n->taken)
		fprintf(stderr, "pmustat: warning: core %d: another user (perf?) programmed %s during the run (its IA32_FIXED_CTR_CTRL field = 0x%llx, not what pmustat wrote): %s is not reported, and the counter is left to that user as it is\n",
			core, name, (unsigned long long)n->ctl, c->ev->hw[u].name);
	else
		fprintf(stderr, "pmustat: warning: core %d: another user cleared the enable of %s during the run: %s is not reported\n",
			core, name, c->ev->hw[u].name);
}

/*
 * A counter that stepped backwards between two reads: another user reset
 * it (Linux's PMI handler zeroes fixed counter 3 on a PERF_METRICS
 * overflow); the count holds what was read before and what counted since.
 */
static void
warn_reset(const struct run_ctx *c, int core, unsigned u, const struct sched_slot *slot,
	   const struct interval_core *sampled)
{
	if (!sampled->reset[u])
		return;
	fprintf(stderr, "pmustat: warning: core %d: another user reset %s%u (%s) during the run: it stepped back from %llu, which no wrap does within a read's second (Linux's PMI handler zeroes fixed counter 3 on a PERF_METRICS overflow); the count keeps what was read before the reset and what counted since, and misses the events between the last read and the reset (under a second's worth)\n",
		core, slot->kind == SCHED_GP ? "pmc" : "fixed", slot->index, c->ev->hw[u].name,
		(unsigned long long)sampled->reset_from[u]);
}

/* Whether another user reset this core's fixed counter 3 in @run (and with it PERF_METRICS). */
static bool
slots_reset(const struct plan *plan, unsigned n, unsigned run, const struct interval_core *sampled, bool was_sampled)
{
	for (unsigned u = 0; was_sampled && u < n; u++)
		if (plan->slots[u].run == run && plan->slots[u].kind == SCHED_FIXED &&
		    plan->slots[u].index == PERF_METRICS_FIXED)
			return sampled->reset[u];
	return false;
}

/*
 * A byte of IA32_PERF_METRICS that is not the run's: its own counts
 * overflowed (GLOBAL_STATUS[48], which only a fold and reset of the pair
 * would have kept), or another user reset the pair mid-run (Linux's PMI
 * handler does on that overflow): the bytes are fractions of part of the
 * run's slots at best.
 */
static void
warn_metrics(int core, bool overflowed)
{
	if (overflowed)
		fprintf(stderr, "pmustat: warning: core %d: IA32_PERF_METRICS overflowed during the run (IA32_PERF_GLOBAL_STATUS bit 48): its top-down fractions are not reported; a shorter command, or --backend perf (Linux folds and resets the pair on that overflow), counts them\n",
			core);
	else
		fprintf(stderr, "pmustat: warning: core %d: another user reset fixed counter 3 and IA32_PERF_METRICS during the run (Linux's PMI handler does on a PERF_METRICS overflow): its top-down fractions would be of the slots since, and are not reported\n",
			core);
}

/* This core's TOPDOWN.SLOTS in @run (fixed counter 3), which its IA32_PERF_METRICS bytes are fractions of. */
static uint64_t
slots_of(const struct plan *plan, unsigned n, unsigned run, const struct pmu_count *counts)
{
	for (unsigned u = 0; u < n; u++)
		if (plan->slots[u].run == run && plan->slots[u].kind == SCHED_FIXED &&
		    plan->slots[u].index == PERF_METRICS_FIXED)
			return counts[u].value;
	return 0;
}

/*
 * A byte of IA32_PERF_METRICS is a fraction (of 255) of its own core's
 * slots: several cores' bytes are not added but weighted by each core's
 * slots, so the sum is what one core doing all their work would show,
 * and the top-down metrics computed from it are the cores' together.
 */
struct perf_metrics_sum {
	double weighted[SCHED_MAX_EVENTS];	/* byte x slots, over the cores */
	double slots[SCHED_MAX_EVENTS];
	bool read[SCHED_MAX_EVENTS];		/* a byte of some core's register */
};

static int
msr_collect(struct run_ctx *c, unsigned run, struct pmustat_error **err)
{
	struct msr_state *s = state(c);
	struct pmu_count counts[SCHED_MAX_EVENTS];
	struct perf_metrics_sum pm;
	int rc;

	memset(s->finals, 0, (size_t)s->n * SCHED_MAX_EVENTS * sizeof(*s->finals));
	memset(&pm, 0, sizeof(pm));
	for (unsigned u = 0; u < c->ev->nhw; u++)
		if (c->plan->slots[u].run == run)
			c->counts[u].value = 0;
	if (s->sampled && s->sampler.read_error)
		fprintf(stderr, "pmustat: warning: reading the counters during the run failed (%s); a counter that wrapped more than once between two good reads is undercounted\n",
			strerror(-s->sampler.read_error));
	for (unsigned i = 0; i < s->n; i++) {
		const struct plan *plan = s->cores[i].plan;
		int core = s->cores[i].core;
		bool metrics_warned = false;

		/* A slot with no counter here (another core type's event) reads as 0. */
		memset(counts, 0, sizeof(counts));
		/* rdpmc reads the counters of the CPU it runs on. */
		if (s->cores[i].use_rdpmc)
			run_pin_self(core, true);
		rc = pmu_read(s->pmus[i], plan->slots, c->ev->nhw, run, s->cores[i].use_rdpmc, counts, err);
		if (rc) {
			s->sampled = false;
			return rc;
		}
		for (unsigned u = 0; u < c->ev->nhw; u++) {
			if (plan->slots[u].run == run && counts[u].frozen) {
				fprintf(stderr, "pmustat: warning: core %d: the PMU was frozen during the run (IA32_PERF_GLOBAL_STATUS.CTR_Frz, bit 59: another user's PMI under IA32_DEBUGCTL.FREEZE_PERFMON_ON_PMI); the run's counts are not reported, and unfreezing is that user's business\n",
					core);
				break;
			}
		}
		for (unsigned u = 0; u < c->ev->nhw; u++) {
			if (plan->slots[u].run != run)
				continue;
			/*
			 * Counted through every wrap by the reads during the run, not
			 * by the overflow bit; a run too short for any read (under a
			 * second, when no counter can wrap) keeps pmu_read()'s count.
			 * IA32_PERF_METRICS is no counter: read once, after the run.
			 */
			if (s->sampled && s->sampler.reads > 0 &&
			    (plan->slots[u].kind == SCHED_FIXED || plan->slots[u].kind == SCHED_GP)) {
				counts[u].value = interval_total(&s->sampler, i, u, counts[u].raw);
				warn_reset(c, core, u, &plan->slots[u], &s->sampler.cores[i]);
			}
			/* A core frozen by another user's PMI while the command ran leaves no count. */
			if (counts[u].frozen) {
				c->counts[u].counted = false;
				c->counts[u].status = "not counted: PMU frozen (CTR_Frz)";
			} else if (plan->slots[u].kind == SCHED_METRICS &&
				   (counts[u].overflowed || slots_reset(plan, c->ev->nhw, run, &s->sampler.cores[i], s->sampled))) {
				if (!metrics_warned)
					warn_metrics(core, counts[u].overflowed);
				metrics_warned = true;
				c->counts[u].counted = false;
				c->counts[u].status = counts[u].overflowed ? "not counted: PERF_METRICS overflowed" :
					"not counted: PERF_METRICS reset by another user";
			} else if (counts[u].taken || counts[u].stopped || counts[u].refiltered) {
				warn_taken(c, core, u, &plan->slots[u], &counts[u]);
				c->counts[u].counted = false;
				c->counts[u].status = counts[u].taken ? "not counted: counter taken by another user" :
					counts[u].refiltered ? "not counted: offcore response filter changed by another user" :
					"not counted: counter stopped by another user";
			} else if (i == 0) {
				c->counts[u].counted = true;
				c->counts[u].status = "counted";
			}
			c->counts[u].value += counts[u].value;
			if (plan->slots[u].kind == SCHED_METRICS) {
				uint64_t slots = slots_of(plan, c->ev->nhw, run, counts);

				pm.weighted[u] += (double)counts[u].value * (double)slots;
				pm.slots[u] += (double)slots;
				pm.read[u] = true;
			}
			c->counts[u].run = run + 1;
			c->core_counts[(size_t)u * s->n + i] = counts[u].value;
			s->finals[(size_t)i * SCHED_MAX_EVENTS + u] = counts[u].value;
		}
	}
	for (unsigned u = 0; s->n > 1 && u < c->ev->nhw; u++)
		if (pm.read[u])
			c->counts[u].value = pm.slots[u] > 0 ? (uint64_t)llround(pm.weighted[u] / pm.slots[u]) : 0;
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
	.attach = run_attach_nothing,
	.sample_start = msr_sample_start,
	.sample_stop = msr_sample_stop,
	.sample_finish = msr_sample_finish,
	.stop = msr_stop,
	.collect = msr_collect,
	.discard = msr_discard,
};
