/*
 * nb_sched.c - greedy batching with an exact matching per run.
 *
 * Counters come in groups that the ESCRs feed whole (0-1, 2-3, 4-5, 6-7,
 * 8-9, 10-11, 12-13-16, 14-15-17), so a run fits exactly when every event
 * gets its own ESCR and no group is asked for more counters than it has
 * free: a flow from the events through their ESCRs to the groups. At most
 * 19 events are ever matched at once (18 counters, plus the one tried), so
 * plain augmenting paths on a 74-node graph are cheap.
 */
#include "pmus/netburst/nb_sched.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pmus/netburst/nb_regs.h"
#include "pmus/netburst/nb_spec.h"
#include "base/err.h"
#include "base/strbuf.h"

#define MAX_MEMBERS	(NB_COUNTERS + 1)
#define MAX_GROUPS	8
/* Source, events, ESCRs, groups, sink. */
#define MAX_NODES	(1 + MAX_MEMBERS + NB_ESCRS + MAX_GROUPS + 1)

struct groups {
	unsigned n;
	uint32_t counters[MAX_GROUPS];	/* the group's counters */
	unsigned of_escr[NB_ESCRS];	/* each ESCR's group */
};

struct net {
	unsigned nodes;
	uint8_t cap[MAX_NODES][MAX_NODES];	/* residual capacities */
};

static void
find_groups(struct groups *g)
{
	memset(g, 0, sizeof(*g));
	for (unsigned i = 0; i < NB_ESCRS; i++) {
		uint32_t c = nb_escr_get(i)->counters;
		unsigned k;

		for (k = 0; k < g->n && g->counters[k] != c; k++)
			;
		if (k == g->n)
			g->counters[g->n++] = c;
		g->of_escr[i] = k;
	}
}

/* The ESCRs event @e may use here. */
static uint64_t
usable_escrs(const struct nb_event *e, unsigned model, uint64_t escrs_free)
{
	uint64_t out = 0;

	for (unsigned i = 0; i < NB_ESCRS; i++)
		if ((e->escrs & escrs_free & (1ull << i)) && nb_escr_exists(i, model))
			out |= 1ull << i;
	return out;
}

static bool
augment(struct net *g, unsigned u, unsigned sink, bool *seen) /* NOLINT(misc-no-recursion) */
{
	/* Depth is bounded by the 4 layers; @seen stops cycles in the residual graph. */
	if (u == sink)
		return true;
	seen[u] = true;
	for (unsigned v = 0; v < g->nodes; v++) {
		if (!g->cap[u][v] || seen[v])
			continue;
		if (augment(g, v, sink, seen)) {
			g->cap[u][v]--;
			g->cap[v][u]++;
			return true;
		}
	}
	return false;
}

/*
 * Match the members @m[0..k) to ESCRs and counters. True when all fit;
 * then, if @slots, fills their escr and counter.
 */
static bool
match(const struct nb_event *ev, const unsigned *m, unsigned k, unsigned model,
      uint32_t counters_free, uint64_t escrs_free, const struct groups *gr,
      struct nb_slot *slots)
{
	struct net g;		/* 5.5 kB */
	unsigned src = 0, ev0 = 1, escr0 = ev0 + k, grp0 = escr0 + NB_ESCRS, sink = grp0 + gr->n;
	unsigned flow = 0;

	if (k > MAX_MEMBERS)
		return false;
	memset(&g, 0, sizeof(g));
	g.nodes = sink + 1;
	for (unsigned i = 0; i < k; i++) {
		uint64_t usable = usable_escrs(&ev[m[i]], model, escrs_free);

		g.cap[src][ev0 + i] = 1;
		for (unsigned e = 0; e < NB_ESCRS; e++)
			if (usable & (1ull << e))
				g.cap[ev0 + i][escr0 + e] = 1;
	}
	for (unsigned e = 0; e < NB_ESCRS; e++)
		g.cap[escr0 + e][grp0 + gr->of_escr[e]] = 1;
	for (unsigned j = 0; j < gr->n; j++)
		g.cap[grp0 + j][sink] = (uint8_t)__builtin_popcount(gr->counters[j] & counters_free);

	for (;;) {
		bool seen[MAX_NODES] = { false };

		if (!augment(&g, src, sink, seen))
			break;
		flow++;
	}
	if (flow != k)
		return false;
	if (slots) {
		uint32_t taken = 0;

		/* Counters in event order, lowest free first within the group. */
		for (unsigned i = 0; i < k; i++) {
			for (unsigned e = 0; e < NB_ESCRS; e++) {
				uint32_t avail;

				/* A used forward edge has residual capacity back. */
				if (!g.cap[escr0 + e][ev0 + i])
					continue;
				avail = gr->counters[gr->of_escr[e]] & counters_free & ~taken;
				slots[m[i]].escr = e;
				slots[m[i]].counter = (unsigned)__builtin_ctz(avail);
				taken |= 1u << slots[m[i]].counter;
				break;
			}
		}
	}
	return true;
}

static const char *
label(const struct nb_event *e)
{
	return e->requested[0] ? e->requested : e->name;
}

static void
explain(const struct nb_event *e, unsigned model, uint32_t counters_free, uint64_t escrs_free,
	struct pmustat_error **err)
{
	struct strbuf b = STRBUF_INIT;

	strbuf_printf(&b, "event %s needs one of", label(e));
	for (unsigned i = 0; i < NB_ESCRS; i++) {
		const struct nb_escr *x = nb_escr_get(i);
		const char *why = NULL;

		if (!(e->escrs & (1ull << i)))
			continue;
		if (!nb_escr_exists(i, model))
			why = "absent on this model";
		else if (!(escrs_free & (1ull << i)))
			why = "in use";
		else if (!(x->counters & counters_free))
			why = "its counters are in use";
		strbuf_printf(&b, " %s (%s)", x->name, why ? why : "free");
	}
	err_set(err, -ENOSPC, "%s", strbuf_str(&b));
	strbuf_free(&b);
}

/* Whether @add[0..na) fit the run beside @members[0..k) (which @members has room after). */
static bool
fits(const struct nb_event *ev, unsigned *members, unsigned k, const unsigned *add, unsigned na, unsigned model,
     uint32_t counters_free, uint64_t escrs_free, const struct groups *gr)
{
	if (k + na > MAX_MEMBERS)
		return false;
	memcpy(members + k, add, na * sizeof(*add));
	return match(ev, members, k + na, model, counters_free, escrs_free, gr, NULL);
}

/* The unplaced members of @i's group (@i first) into @out: how many, at most MAX_MEMBERS. */
static unsigned
group_of(const struct nb_event *ev, unsigned n, unsigned i, const bool *placed, unsigned *out)
{
	unsigned k = 0;

	out[k++] = i;
	for (unsigned j = 0; j < n && k < MAX_MEMBERS; j++)
		if (j != i && !placed[j] && ev[i].group && ev[j].group == ev[i].group)
			out[k++] = j;
	return k;
}

int
nb_sched_plan(const struct nb_event *ev, unsigned n, unsigned model, uint32_t counters_free,
	      uint64_t escrs_free, struct nb_slot *slots, unsigned *runs, unsigned *bad,
	      struct pmustat_error **err)
{
	bool placed[SCHED_MAX_EVENTS] = { false };
	unsigned left = n, run = 0;
	struct groups gr;

	if (n > SCHED_MAX_EVENTS) {
		return err_set(err, -E2BIG, "%u events requested; pmustat counts at most %u at once",
			 n, (unsigned)SCHED_MAX_EVENTS);
	}
	counters_free &= (1u << NB_COUNTERS) - 1;
	find_groups(&gr);
	for (unsigned i = 0; i < n; i++) {
		memset(&slots[i], 0, sizeof(slots[i]));
		if (!match(ev, &i, 1, model, counters_free, escrs_free, &gr, NULL)) {
			if (bad)
				*bad = i;
			explain(&ev[i], model, counters_free, escrs_free, err);
			return -ENOSPC;
		}
	}
	/* A {group} is counted in one run: it must fit one on its own. */
	for (unsigned i = 0; i < n; i++) {
		unsigned members[MAX_MEMBERS], k;

		if (!ev[i].group || ev[i].group_soft)
			continue;
		k = group_of(ev, n, i, placed, members);
		if (k == 0 || !match(ev, members, k, model, counters_free, escrs_free, &gr, NULL)) {
			if (bad)
				*bad = i;
			return err_set(err, -ENOSPC,
				       "the group of %s does not fit one run: its events need more ESCRs or counters than are free together (an ESCR selects one event at a time); split the group, or count fewer of its events",
				       label(&ev[i]));
		}
	}
	while (left > 0) {
		unsigned members[MAX_MEMBERS], k = 0;

		for (unsigned i = 0; i < n && k < NB_COUNTERS; i++) {
			unsigned add[MAX_MEMBERS], na = 1;

			if (placed[i])
				continue;
			add[0] = i;
			/* A group's members go in with its first, all or none (a soft one alone if need be). */
			if (ev[i].group)
				na = group_of(ev, n, i, placed, add);
			if (!fits(ev, members, k, add, na, model, counters_free, escrs_free, &gr)) {
				if (na == 1 || !ev[i].group_soft)
					continue;
				na = 1;
				if (!fits(ev, members, k, add, na, model, counters_free, escrs_free, &gr))
					continue;
			}
			memcpy(members + k, add, na * sizeof(*add));
			for (unsigned a = 0; a < na; a++) {
				placed[add[a]] = true;
				slots[add[a]].run = run;
			}
			k += na;
			left -= na;
		}
		/* Cannot fail: the members matched as they were added. */
		if (!match(ev, members, k, model, counters_free, escrs_free, &gr, slots))
			return -EINVAL;
		run++;
	}
	*runs = run;
	return 0;
}

void
nb_sched_slot_name(const struct nb_slot *slot, char *buf, size_t size)
{
	const struct nb_escr *x = nb_escr_get(slot->escr);

	snprintf(buf, size, "MSR_%s via %s", nb_counter_name(slot->counter), x ? x->name : "?");
}
