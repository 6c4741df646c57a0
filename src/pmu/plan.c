/*
 * plan.c - see plan.h. Pure: values in, a value out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "pmu/plan.h"
#include "pmu/family.h"
#include "events/cpu.h"
#include "events/event.h"
#include "pmu/evtsel.h"

static const char *
label(const struct event *e)
{
	return e->requested[0] ? e->requested : e->name;
}

/* Who, in a few words, for notes beside a count. */
static const char *
owner_short(enum pmu_owner o)
{
	switch (o) {
	case PMU_OWNER_NMI_WATCHDOG:
		return "the NMI watchdog";
	case PMU_OWNER_PERF:
		return "perf_events";
	case PMU_OWNER_PMUSTAT:
		return "another pmustat run";
	case PMU_OWNER_PMUSTAT_KILLED:
		return "a killed pmustat run";
	default:
		return "another user";
	}
}

/*
 * Event @k needs a counter nobody else holds and none is free: the refusal,
 * naming who holds what and what to do about it.
 */
static int
refuse_busy(const struct plan *p, unsigned k, struct pmustat_error **err)
{
	const struct plan_input *in = &p->in;
	const struct event *e = &in->events[k];
	struct strbuf who = STRBUF_INIT;
	int f = e->fixed;

	/*
	 * Fixed-only with no twin (reference cycles at the TSC rate): its GP
	 * encoding counts another clock, so it is never moved silently.
	 */
	if (f >= 0 && f < PMU_MAX_FIXED && !e->gp_mask && (in->occ.busy_fixed & (1u << f))) {
		pmu_occupancy_describe(&in->occ, 0, 1u << f, &who);
		err_set(err, -EBUSY,
			"core %d: event '%s' counts only on fixed counter %d, which is in use: %s. %s, stop that user, pick another core with -C, or take the counter with --force (pmustat restores it after)",
			in->core, label(e), f, strbuf_str(&who),
			f == 2 ? "On a general-purpose counter its encoding (0x3c/0x01) counts another clock; count that explicitly as CPU_CLK_UNHALTED.REF_XCLK (the reference clock at the bus or crystal rate)"
			       : "It has no general-purpose twin");
		strbuf_free(&who);
		return -EBUSY;
	}
	pmu_occupancy_describe(&in->occ, in->occ.busy_gp, in->occ.busy_fixed, &who);
	err_set(err, -ENOSPC,
		"core %d: counters busy: %s. In use: %s. Stop that user, pick another core with -C, or take the counters with --force (pmustat restores them after)",
		in->core, err_msg(*err), strbuf_str(&who));
	strbuf_free(&who);
	return -ENOSPC;
}

/* Does event select @v count through offcore MSR @msr, by @e's variants (its own and the other)? */
static bool
reads_offcore(uint64_t v, const struct event *e, uint32_t msr)
{
	unsigned code = v & 0xff, umask = (v >> 8) & 0xff;

	return (e->extra_msr == msr && code == e->code && umask == e->umask) ||
	       (e->alt_msr == msr && code == e->alt_code && umask == e->alt_umask);
}

/*
 * The offcore response MSRs pmustat may program (bit o: MSR_OFFCORE_RSP_o):
 * not one that a counter another user keeps reads. A counter reads
 * MSR_OFFCORE_RSP_o when its event select has the code and umask Intel's
 * table gives for that MSR, which every offcore event of a model shares
 * (0xB7/0xBB umask 1 on Skylake, 0x2A/0x2B on Golden Cove, 0xB7 umask 1/2
 * on Gracemont): the requested events' own variants say which. A counter
 * taken with --force gives its MSR up with it (restored at the end).
 */
static uint32_t
offcore_free(const struct plan *p)
{
	const struct plan_input *in = &p->in;
	uint32_t busy = in->occ.busy_gp & ~p->taken_gp, free_ = (1u << PMU_NUM_OFFCORE) - 1;

	for (unsigned c = 0; !in->kernel_counts && c < PMU_MAX_GP; c++) {
		if (!(busy & (1u << c)))
			continue;
		for (unsigned k = 0; k < in->nevents; k++)
			for (unsigned o = 0; o < PMU_NUM_OFFCORE; o++)
				if (reads_offcore(in->occ.evtsel[c], &in->events[k], MSR_OFFCORE_RSP_0 + o))
					free_ &= ~(1u << o);
	}
	return free_;
}

int
plan_make(const struct plan_input *in, struct plan **out, struct pmustat_error **err)
{
	const struct pmu_caps *caps = in->caps;
	uint32_t gp_mask = caps->gp_mask & ((1u << PMU_MAX_GP) - 1);
	uint32_t fixed_mask = caps->fixed_mask & ((1u << PMU_MAX_FIXED) - 1);
	uint32_t earlier_gp = 0, earlier_fixed = 0;
	struct plan *p;
	unsigned bad = 0;
	int rc;

	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return err_set(err, -ENOMEM, "out of memory");
	p->in = *in;
	p->gp_free = gp_mask;
	p->fixed_free = fixed_mask;
	if (!in->kernel_counts) {
		p->gp_free &= ~in->occ.busy_gp;
		p->fixed_free &= ~in->occ.busy_fixed;
		if (in->force) {
			p->taken_gp = in->occ.busy_gp & gp_mask;
			p->taken_fixed = in->occ.busy_fixed & fixed_mask;
			p->gp_free |= p->taken_gp;
			p->fixed_free |= p->taken_fixed;
		}
	}
	p->gp_free &= ~in->avoid_gp;
	p->fixed_free &= ~in->avoid_fixed;
	p->slots = calloc(in->nevents ? in->nevents : 1, sizeof(*p->slots));
	if (!p->slots) {
		plan_free(p);
		return err_set(err, -ENOMEM, "out of memory");
	}
	/* A family with its own scheduler and encoder makes the same plan. */
	if (caps->family && caps->family->plan) {
		rc = caps->family->plan(p, err);
		if (rc) {
			plan_free(p);
			return rc;
		}
		*out = p;
		return 0;
	}
	p->nruns = 0;
	if (in->nevents) {
		rc = sched_plan_offcore(in->events, in->nevents, in->pinned_run, caps, p->gp_free, p->fixed_free,
					offcore_free(p), p->slots, &p->nruns, &bad, err);
		if (rc == -ENOSPC && (in->occ.busy_gp | in->occ.busy_fixed) && !in->kernel_counts)
			rc = refuse_busy(p, bad, err);
		else if (rc < 0)
			rc = err_set(err, rc, "core %d: %s", in->core, err_msg(*err));
		if (rc) {
			plan_free(p);
			return rc;
		}
	}
	if (p->nruns > 1 && in->no_rerun) {
		if (in->kernel_counts)
			err_set(err, -E2BIG, "the %u events need %u runs of the command (%u general-purpose counters) and --no-rerun forbids that; count fewer events",
				in->nevents, p->nruns, caps->gp_counters);
		else
			err_set(err, -E2BIG, "core %d: the %u events need %u runs of the command (%u general-purpose counters free) and --no-rerun forbids that; count fewer events",
				in->core, in->nevents, p->nruns, (unsigned)__builtin_popcount(p->gp_free));
		plan_free(p);
		return -E2BIG;
	}
	p->runs = calloc(p->nruns ? p->nruns : 1, sizeof(*p->runs));
	if (!p->runs) {
		plan_free(p);
		return err_set(err, -ENOMEM, "out of memory");
	}
	for (unsigned r = 0; r < p->nruns; r++) {
		rc = pmu_program_build(caps, in->global_ctrl, in->occ.perf_metrics, in->events, p->slots, in->nevents, r, earlier_gp,
				       earlier_fixed, &p->runs[r], err);
		if (rc) {
			plan_free(p);
			return rc;
		}
		earlier_gp |= p->runs[r].gp;
		earlier_fixed |= p->runs[r].fixed;
	}
	*out = p;
	return 0;
}

int
plan_make_kernel(const struct plan_input *in, struct plan **out, struct pmustat_error **err)
{
	struct plan *p = calloc(1, sizeof(*p));

	if (p) {
		p->slots = calloc(in->nevents ? in->nevents : 1, sizeof(*p->slots));
		p->runs = calloc(1, sizeof(*p->runs));
	}
	if (!p || !p->slots || !p->runs) {
		plan_free(p);
		return err_set(err, -ENOMEM, "out of memory");
	}
	p->in = *in;
	p->nruns = 1;
	*out = p;
	return 0;
}

void
plan_free(struct plan *p)
{
	if (!p)
		return;
	free(p->slots);
	free(p->runs);
	free(p->family_runs);
	free(p);
}

const char *
plan_event_note(const struct plan *p, unsigned k, char *buf, size_t size)
{
	const struct event *e = &p->in.events[k];
	const struct sched_slot *s = &p->slots[k];
	int f = e->fixed;

	buf[0] = '\0';
	if (f < 0 || f >= PMU_MAX_FIXED || s->kind != SCHED_GP)
		return buf;
	if (!(p->in.caps->fixed_mask & (1u << f)))
		snprintf(buf, size, "this CPU has no fixed counter %d", f);
	else if (p->in.occ.busy_fixed & ~p->taken_fixed & (1u << f))
		snprintf(buf, size, "fixed counter %d is held by %s", f, owner_short(p->in.occ.fixed[f]));
	else if (!evtsel_fixed_ok(e, p->in.caps))
		snprintf(buf, size, "a fixed counter cannot apply its modifiers");
	else if (p->in.kernel_counts && (p->in.avoid_fixed & (1u << f)))
		snprintf(buf, size, "fixed counter %d is left to the regions' own copies of the events", f);
	else
		snprintf(buf, size, "fixed counter %d counts another event in this run", f);
	return buf;
}

void
plan_counter_name(const struct plan *p, unsigned k, char *buf, size_t size)
{
	sched_counter_name(&p->slots[k], buf, size);
}
