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
#include "netburst/nb_regs.h"
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
};

/*
 * Kuhn's augmenting path. The recursion is bounded: each level marks a
 * counter in @seen first, so it is at most PMU_MAX_GP (8) deep.
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

static bool
extra_fits(const struct run_state *rs, const struct event *e)
{
	if (!e->extra_msr)
		return true;
	for (unsigned i = 0; i < rs->nextra; i++)
		if (rs->extra_msr[i] == e->extra_msr)
			return rs->extra_value[i] == e->extra_value;
	return rs->nextra < PMU_MAX_GP;
}

static void
extra_add(struct run_state *rs, const struct event *e)
{
	if (!e->extra_msr)
		return;
	for (unsigned i = 0; i < rs->nextra; i++)
		if (rs->extra_msr[i] == e->extra_msr)
			return;
	rs->extra_msr[rs->nextra] = e->extra_msr;
	rs->extra_value[rs->nextra] = e->extra_value;
	rs->nextra++;
}

/* Try to add event @i to the run; true when it now belongs to it. */
static bool
try_add(struct run_state *rs, const struct event *ev, unsigned i,
	const struct pmu_caps *caps, uint32_t gp_free, uint32_t fixed_free,
	struct sched_slot *slot, unsigned run)
{
	const struct event *e = &ev[i];
	bool alone = e->flags & EVENT_F_TAKEN_ALONE;

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
	if (!extra_fits(rs, e))
		return false;
	rs->gp_members[rs->ngp] = i;
	if (!match(ev, rs->gp_members, rs->ngp + 1, gp_free, NULL))
		return false;
	rs->ngp++;
	rs->taken_alone = alone;
	extra_add(rs, e);
	slot->kind = SCHED_GP;
	slot->run = run;
	return true;
}

static const char *
label(const struct event *e)
{
	return e->requested[0] ? e->requested : e->name;
}

static void
explain(const struct event *e, const struct pmu_caps *caps, uint32_t gp_free,
	uint32_t fixed_free, struct pmustat_error **err)
{
	char fixed_txt[64] = "";

	if (e->fixed >= 0 && evtsel_fixed_ok(e, caps))
		snprintf(fixed_txt, sizeof(fixed_txt), "fixed counter %d (%s) or ",
			 e->fixed, (fixed_free & (1u << e->fixed)) ? "free" : "in use");
	err_set(err, -ENOSPC, "event %s needs %sa general-purpose counter in mask 0x%x; the free ones are 0x%x",
		 label(e), fixed_txt, e->gp_mask & caps->gp_mask, gp_free);
}

int
sched_plan(const struct event *ev, unsigned n, const struct pmu_caps *caps,
	   uint32_t gp_free, uint32_t fixed_free, struct sched_slot *slots,
	   unsigned *runs, unsigned *bad, struct pmustat_error **err)
{
	bool placed[SCHED_MAX_EVENTS] = { false };
	unsigned left = n, run = 0;

	if (n > SCHED_MAX_EVENTS) {
		return err_set(err, -E2BIG, "%u events requested; pmustat counts at most %u at once",
			 n, (unsigned)SCHED_MAX_EVENTS);
	}
	gp_free &= caps->gp_mask;
	fixed_free &= caps->fixed_mask;

	/* An event that cannot go anywhere even alone fails the whole plan. */
	for (unsigned i = 0; i < n; i++) {
		struct run_state empty = { 0 };
		struct sched_slot probe;

		slots[i].kind = SCHED_NONE;
		slots[i].index = 0;
		slots[i].run = 0;
		if (!try_add(&empty, ev, i, caps, gp_free, fixed_free, &probe, 0)) {
			if (bad)
				*bad = i;
			explain(&ev[i], caps, gp_free, fixed_free, err);
			return -ENOSPC;
		}
	}

	while (left > 0) {
		struct run_state rs = { 0 };
		unsigned counter_of[PMU_MAX_GP + 1];

		for (unsigned i = 0; i < n; i++) {
			if (placed[i])
				continue;
			if (try_add(&rs, ev, i, caps, gp_free, fixed_free, &slots[i], run)) {
				placed[i] = true;
				left--;
			}
		}
		/* Cannot be empty: every event fits an empty run (checked above). */
		if (!match(ev, rs.gp_members, rs.ngp, gp_free, counter_of))
			return -EINVAL;
		for (unsigned k = 0; k < rs.ngp; k++)
			slots[rs.gp_members[k]].index = counter_of[k];
		run++;
	}
	*runs = run;
	return 0;
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
	case SCHED_NB:
		snprintf(buf, size, "%s", nb_counter_name(slot->index));
		break;
	default:
		snprintf(buf, size, "-");
		break;
	}
}
