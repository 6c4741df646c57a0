/*
 * sched.c - greedy batching with an exact bipartite matching per run.
 *
 * With at most PMU_MAX_GP counters and SCHED_MAX_EVENTS events, a run is
 * rebuilt by augmenting paths (Kuhn) each time an event is tried: cheap,
 * and it never fails to place a set of events that fits (a first-fit
 * assignment would, e.g. an unrestricted event on counter 0 blocking an
 * event restricted to counter 0).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "events/cpu.h"
#include "events/event.h"
#include "pmu/evtsel.h"
#include "pmu/msr.h"
#include "pmu/counter_sched.h"
#include "pmus/netburst/nb_regs.h"
#include "base/err.h"

struct run_state {
	uint32_t fixed_used;
	unsigned gp_members[PMU_MAX_GP + 1];
	unsigned ngp;
	bool taken_alone;
	/* Extra MSRs in use by this run and their values. */
	uint32_t extra_msr[PMU_MAX_GP];
	uint64_t extra_value[PMU_MAX_GP];
	unsigned nextra;
	bool perf_metrics;	/* a byte of IA32_PERF_METRICS is read after this run */
};

/* What pmustat may use on this core: counters, and offcore MSRs (bit o: MSR_OFFCORE_RSP_o). */
struct sched_free {
	uint32_t gp, fixed, offcore;
};

/*
 * Kuhn's augmenting path. The recursion is bounded: each level marks a
 * counter in @seen first, so it is at most PMU_MAX_GP (10) deep.
 */
static bool
augment(const uint32_t *allowed, unsigned member, uint32_t *seen, int *owner) /* NOLINT(misc-no-recursion) */
{
	/* A free counter first, lowest first: plans read in event order. */
	for (unsigned c = 0; c < PMU_MAX_GP; c++) {
		if ((allowed[member] & (1u << c)) && owner[c] < 0) {
			owner[c] = (int)member;
			return true;
		}
	}
	for (unsigned c = 0; c < PMU_MAX_GP; c++) {
		if (!(allowed[member] & (1u << c)) || (*seen & (1u << c)))
			continue;
		*seen |= 1u << c;
		if (owner[c] < 0 || augment(allowed, (unsigned)owner[c], seen, owner)) {
			owner[c] = (int)member;
			return true;
		}
	}
	return false;
}

/*
 * Match the GP members @m[0..n) (event indices) to counters. Returns true
 * and fills @counter_of (per member) when every member gets a counter.
 */
static bool
match(const struct event *ev, const unsigned *m, unsigned n, uint32_t gp_free,
      unsigned *counter_of)
{
	uint32_t allowed[PMU_MAX_GP + 1];
	int owner[PMU_MAX_GP];

	if (n > PMU_MAX_GP)
		return false;
	for (unsigned c = 0; c < PMU_MAX_GP; c++)
		owner[c] = -1;
	for (unsigned i = 0; i < n; i++) {
		uint32_t seen = 0;

		allowed[i] = ev[m[i]].gp_mask & gp_free;
		if (!augment(allowed, i, &seen, owner))
			return false;
	}
	if (counter_of) {
		for (unsigned c = 0; c < PMU_MAX_GP; c++)
			if (owner[c] >= 0)
				counter_of[owner[c]] = c;
	}
	return true;
}

/* May the run hold @value in extra MSR @msr? Not an offcore MSR another user's counters read. */
static bool
extra_fits(const struct run_state *rs, uint32_t msr, uint64_t value, uint32_t offcore_free)
{
	unsigned o = msr - MSR_OFFCORE_RSP_0;

	if (msr >= MSR_OFFCORE_RSP_0 && o < PMU_NUM_OFFCORE && !(offcore_free & (1u << o)))
		return false;
	for (unsigned i = 0; i < rs->nextra; i++)
		if (rs->extra_msr[i] == msr)
			return rs->extra_value[i] == value;
	return rs->nextra < PMU_MAX_GP;
}

/*
 * Which of @e's extra MSRs the run can give it: 0 its own (extra_msr, or
 * it needs none), 1 the other offcore MSR (alt_msr, with its own event
 * code), -1 neither (each holds another value in this run, or is read by
 * another user's counters).
 */
static int
extra_pick(const struct run_state *rs, const struct event *e, uint32_t offcore_free)
{
	if (!e->extra_msr || extra_fits(rs, e->extra_msr, e->extra_value, offcore_free))
		return 0;
	if (e->alt_msr && extra_fits(rs, e->alt_msr, e->alt_value, offcore_free))
		return 1;
	return -1;
}

static void
extra_add(struct run_state *rs, const struct event *e, bool alt)
{
	uint32_t msr = alt ? e->alt_msr : e->extra_msr;

	if (!msr)
		return;
	for (unsigned i = 0; i < rs->nextra; i++)
		if (rs->extra_msr[i] == msr)
			return;
	rs->extra_msr[rs->nextra] = msr;
	rs->extra_value[rs->nextra] = alt ? e->alt_value : e->extra_value;
	rs->nextra++;
}

/* Try to add event @i to the run; true when it now belongs to it. */
static bool
try_add(struct run_state *rs, const struct event *ev, unsigned i,
	const struct pmu_caps *caps, const struct sched_free *free_, struct sched_slot *slot, unsigned run)
{
	const struct event *e = &ev[i];
	bool alone = e->flags & EVENT_F_TAKEN_ALONE;
	uint32_t gp_free = free_->gp, fixed_free = free_->fixed;
	int pick;

	/* Another core type's event (cpu_core/, cpu_atom/): nothing to count on this core. */
	if (e->flags & EVENT_F_OTHER_CORE_TYPE) {
		slot->kind = SCHED_NONE;
		slot->run = run;
		return true;
	}
	/* No counter of its own: it needs fixed counter 3 in its run (checked when the run is made). */
	if (e->flags & EVENT_F_PERF_METRICS) {
		slot->kind = SCHED_METRICS;
		slot->index = e->umask;
		slot->run = run;
		rs->perf_metrics = true;
		return true;
	}
	if (evtsel_fixed_ok(e, caps) && (fixed_free & (1u << e->fixed)) &&
	    !(rs->fixed_used & (1u << e->fixed)) && !e->extra_msr) {
		rs->fixed_used |= 1u << e->fixed;
		slot->kind = SCHED_FIXED;
		slot->index = (unsigned)e->fixed;
		slot->run = run;
		return true;
	}
	if (!(e->gp_mask & gp_free))
		return false;
	if (rs->taken_alone || (alone && rs->ngp > 0))
		return false;
	pick = extra_pick(rs, e, free_->offcore);
	if (pick < 0)
		return false;
	rs->gp_members[rs->ngp] = i;
	if (!match(ev, rs->gp_members, rs->ngp + 1, gp_free, NULL))
		return false;
	rs->ngp++;
	rs->taken_alone = alone;
	extra_add(rs, e, pick == 1);
	slot->kind = SCHED_GP;
	slot->alt = pick == 1;
	slot->run = run;
	return true;
}

static const char *
label(const struct event *e)
{
	return e->requested[0] ? e->requested : e->name;
}

static void
explain(const struct event *e, const struct pmu_caps *caps, const struct sched_free *fr, struct pmustat_error **err)
{
	uint32_t gp_free = fr->gp, fixed_free = fr->fixed;
	char fixed_txt[64] = "";

	/* Alone in a run it fails only for want of a counter or of its offcore MSRs. */
	if (e->extra_msr && (e->gp_mask & gp_free)) {
		char alt[40] = "";

		if (e->alt_msr)
			snprintf(alt, sizeof(alt), " or MSR_OFFCORE_RSP_%u (0x%x)", e->alt_msr - MSR_OFFCORE_RSP_0, e->alt_msr);
		err_set(err, -ENOSPC,
			"event %s needs MSR_OFFCORE_RSP_%u (0x%x)%s, and another user's counters read %s: pmustat never changes an offcore response value another counter counts with",
			label(e), e->extra_msr - MSR_OFFCORE_RSP_0, e->extra_msr, alt, e->alt_msr ? "both" : "it");
		return;
	}

	if (e->fixed >= 0 && evtsel_fixed_ok(e, caps))
		snprintf(fixed_txt, sizeof(fixed_txt), "fixed counter %d (%s) or ",
			 e->fixed, (fixed_free & (1u << e->fixed)) ? "free" : "in use");
	err_set(err, -ENOSPC, "event %s needs %sa general-purpose counter in mask 0x%x; the free ones are 0x%x",
		 label(e), fixed_txt, e->gp_mask & caps->gp_mask, gp_free);
}

/* Add @i and every unplaced event of its group (@grp) to @rs, or none of them. */
static bool
try_add_group(struct run_state *rs, const struct event *ev, unsigned n, unsigned i, const unsigned *grp,
	      const bool *placed, const struct pmu_caps *caps, const struct sched_free *fr,
	      struct sched_slot *slots, unsigned run)
{
	struct run_state before = *rs;

	if (!grp[i])
		return try_add(rs, ev, i, caps, fr, &slots[i], run);
	for (unsigned j = 0; j < n; j++) {
		if (placed[j] || grp[j] != grp[i])
			continue;
		if (!try_add(rs, ev, j, caps, fr, &slots[j], run)) {
			*rs = before;
			return false;
		}
	}
	return true;
}

/* The group of event @i as written: "{a,b,c}" into @buf. */
static void
group_text(const struct event *ev, unsigned n, unsigned i, char *buf, size_t size)
{
	size_t len = 0;

	snprintf(buf, size, "{");
	for (unsigned j = 0; j < n; j++) {
		if (ev[j].group != ev[i].group)
			continue;
		len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s", buf[1] ? "," : "", label(&ev[j]));
	}
	len = strlen(buf);
	snprintf(buf + len, size - len, "}");
}

/*
 * Each event's group as scheduled (@grp): a group pmustat formed for a
 * ratio (soft) that cannot fit one run is split; one the user wrote that
 * cannot fails the plan.
 */
static int
groups_that_fit(const struct event *ev, unsigned n, const struct pmu_caps *caps, const struct sched_free *fr,
		unsigned *grp, unsigned *bad, struct pmustat_error **err)
{
	uint32_t gp_free = fr->gp, fixed_free = fr->fixed;
	bool none[SCHED_MAX_EVENTS] = { false };
	struct sched_slot probe[SCHED_MAX_EVENTS];

	for (unsigned i = 0; i < n; i++)
		grp[i] = ev[i].group;
	for (unsigned i = 0; i < n; i++) {
		struct run_state empty = { 0 };
		char text[512];
		unsigned members = 0;
		bool first = true;

		if (!grp[i])
			continue;
		for (unsigned j = 0; j < i; j++)
			if (grp[j] == grp[i])
				first = false;
		if (!first || try_add_group(&empty, ev, n, i, grp, none, caps, fr, probe, 0))
			continue;
		if (ev[i].group_soft) {
			for (unsigned j = i; j < n; j++)
				if (ev[j].group == ev[i].group)
					grp[j] = 0;
			continue;
		}
		for (unsigned j = 0; j < n; j++)
			members += ev[j].group == ev[i].group;
		if (bad)
			*bad = i;
		group_text(ev, n, i, text, sizeof(text));
		return err_set(err, -ENOSPC,
			       "event group %s cannot be counted in one run: its %u events need more counters than the %u general-purpose (mask 0x%x) and fixed (mask 0x%x) ones free on this core, or events that exclude each other; make the group smaller, or drop the braces to count them in separate runs",
			       text, members, (unsigned)__builtin_popcount(gp_free), gp_free, fixed_free);
	}
	return 0;
}

int
sched_plan(const struct event *ev, unsigned n, const struct pmu_caps *caps,
	   uint32_t gp_free, uint32_t fixed_free, struct sched_slot *slots,
	   unsigned *runs, unsigned *bad, struct pmustat_error **err)
{
	return sched_plan_pinned(ev, n, NULL, caps, gp_free, fixed_free, slots, runs, bad, err);
}

int
sched_plan_pinned(const struct event *ev, unsigned n, const int *pinned, const struct pmu_caps *caps,
		  uint32_t gp_free, uint32_t fixed_free, struct sched_slot *slots,
		  unsigned *runs, unsigned *bad, struct pmustat_error **err)
{
	return sched_plan_offcore(ev, n, pinned, caps, gp_free, fixed_free, (1u << PMU_NUM_OFFCORE) - 1, slots, runs,
				  bad, err);
}

/* Pinned events of run @run that do not fit together: say which. */
static int
explain_pinned(const struct event *ev, unsigned i, unsigned run, uint32_t gp_free, struct pmustat_error **err)
{
	return err_set(err, -ENOSPC,
		       "event %s does not fit in run %u beside the events it must be counted with (the free general-purpose counters are 0x%x)",
		       label(&ev[i]), run + 1, gp_free);
}

int
sched_plan_offcore(const struct event *ev, unsigned n, const int *pinned, const struct pmu_caps *caps,
		   uint32_t gp_free, uint32_t fixed_free, uint32_t offcore_free, struct sched_slot *slots,
		   unsigned *runs, unsigned *bad, struct pmustat_error **err)
{
	struct sched_free fr_ = { 0 };
	const struct sched_free *fr = &fr_;
	bool placed[SCHED_MAX_EVENTS] = { false };
	unsigned grp[SCHED_MAX_EVENTS];
	unsigned left = n, run = 0, pinned_runs = 0;
	int rc;

	if (n > SCHED_MAX_EVENTS) {
		return err_set(err, -E2BIG, "%u events requested; pmustat counts at most %u at once",
			 n, (unsigned)SCHED_MAX_EVENTS);
	}
	gp_free &= caps->gp_mask;
	fixed_free &= caps->fixed_mask;
	fr_.gp = gp_free;
	fr_.fixed = fixed_free;
	fr_.offcore = offcore_free;

	/* An event that cannot go anywhere even alone fails the whole plan. */
	for (unsigned i = 0; i < n; i++) {
		struct run_state empty = { 0 };
		struct sched_slot probe;

		slots[i].kind = SCHED_NONE;
		slots[i].index = 0;
		slots[i].run = 0;
		slots[i].alt = false;
		if (pinned && pinned[i] >= 0 && (unsigned)pinned[i] + 1 > pinned_runs)
			pinned_runs = (unsigned)pinned[i] + 1;
		if (!try_add(&empty, ev, i, caps, fr, &probe, 0)) {
			if (bad)
				*bad = i;
			explain(&ev[i], caps, fr, err);
			return -ENOSPC;
		}
	}
	rc = groups_that_fit(ev, n, caps, fr, grp, bad, err);
	if (rc)
		return rc;

	while (left > 0 || run < pinned_runs) {
		struct run_state rs = { 0 };
		unsigned counter_of[PMU_MAX_GP + 1];

		/* The events that must be counted together in this run, first. */
		for (unsigned i = 0; pinned && i < n; i++) {
			if (pinned[i] != (int)run)
				continue;
			if (!try_add(&rs, ev, i, caps, fr, &slots[i], run)) {
				if (bad)
					*bad = i;
				return explain_pinned(ev, i, run, gp_free, err);
			}
			placed[i] = true;
			left--;
		}
		for (unsigned i = 0; i < n; i++) {
			if (placed[i] || (pinned && pinned[i] >= 0))
				continue;
			if (!try_add_group(&rs, ev, n, i, grp, placed, caps, fr, slots, run))
				continue;
			for (unsigned j = 0; j < n; j++) {
				if (!placed[j] && (j == i || (grp[i] && grp[j] == grp[i]))) {
					placed[j] = true;
					left--;
				}
			}
		}
		/* Cannot be empty: every event fits an empty run (checked above). */
		if (!match(ev, rs.gp_members, rs.ngp, gp_free, counter_of))
			return -EINVAL;
		if (rs.perf_metrics && !(rs.fixed_used & (1u << PERF_METRICS_FIXED))) {
			for (unsigned i = 0; i < n; i++)
				if ((ev[i].flags & EVENT_F_PERF_METRICS) && slots[i].run == run && placed[i] && bad)
					*bad = i;
			return err_set(err, -ENOSPC,
				       "run %u reads IA32_PERF_METRICS, which needs fixed counter 3 (TOPDOWN.SLOTS) counting in the same run",
				       run + 1);
		}
		for (unsigned k = 0; k < rs.ngp; k++)
			slots[rs.gp_members[k]].index = counter_of[k];
		run++;
	}
	*runs = run;
	return 0;
}

void
sched_slot_event(const struct event *ev, const struct sched_slot *slot, struct event *out)
{
	*out = *ev;
	if (slot->kind != SCHED_GP || !slot->alt || !ev->alt_msr)
		return;
	out->code = ev->alt_code;
	out->umask = ev->alt_umask;
	out->extra_msr = ev->alt_msr;
	out->extra_value = ev->alt_value;
	out->alt_msr = 0;
}

void
sched_counter_name(const struct sched_slot *slot, char *buf, size_t size)
{
	switch (slot->kind) {
	case SCHED_FIXED:
		snprintf(buf, size, "fixed%u", slot->index);
		break;
	case SCHED_GP:
		snprintf(buf, size, "pmc%u", slot->index);
		break;
	case SCHED_METRICS:
		snprintf(buf, size, "metrics%u", slot->index);
		break;
	case SCHED_NB:
		snprintf(buf, size, "%s", nb_counter_name(slot->index));
		break;
	default:
		snprintf(buf, size, "-");
		break;
	}
}
