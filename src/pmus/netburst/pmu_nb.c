/*
 * pmu_nb.c - the NetBurst PMU behind struct pmu (pmu_impl.h): its 18
 * counters, 18 CCCRs and 43 or 45 ESCRs saved when opened, the rules a
 * write must pass, the reads of a run and the restore.
 *
 * Who holds what (pmu_owner_scan_nb()): a CCCR with its enable bit set is
 * another user's, and so are its counter and the ESCR its ESCR select
 * names for it, and an ESCR armed with USR/OS or tag bits; pmustat writes
 * none of them. Of the registers it may write, it sets only its
 * own fields: in a CCCR the enable, ESCR select, bits 17:16, compare,
 * complement, threshold and edge (never a PMI, cascade, FORCE_OVF or OVF
 * bit); in an ESCR the event select, event mask and the USR/OS bits of
 * the logical processor it counts on (never tagging, never the sibling
 * thread's T0/T1 bits). The restore (pmu_regs.c, in the order
 * nb_family.c lists) writes back every register written, CCCRs first, so
 * that nothing counts while the rest goes back, except what another user
 * took meanwhile (pmu_nb_find_taken(), the family's before_disable: a
 * CCCR or ESCR no longer as pmustat wrote it is that user's from then on).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "hw/hw.h"
#include "pmu/delta.h"
#include "pmu/pmu_impl.h"
#include "pmu/pmu_regs.h"
#include "pmus/netburst/pmu_nb.h"

/* The CCCR bits pmustat's own programming may set. */
#define NB_CCCR_OURS                                                                          \
	(NB_CCCR_ENABLE | NB_CCCR_ESCR_SELECT(7) | NB_CCCR_ACTIVE_THREAD(3) | NB_CCCR_COMPARE | \
	 NB_CCCR_COMPLEMENT | NB_CCCR_THRESHOLD(15) | NB_CCCR_EDGE)

static bool
escr_present(const struct pmu *p, unsigned i)
{
	return nb_escr_exists(i, p->caps.nb_model);
}

int
pmu_nb_open_at(struct pmu *p, const struct pmu_owner_hints *hints, struct pmustat_error **err)
{
	int rc = hw_msr_open(p->hw, p->cpu, true);

	if (rc)
		return err_set(err, rc, "core %d: cannot open the MSR device for writing: %s; %s", p->cpu,
			       strerror(-rc), hw_msr_hint(rc, true));
	for (unsigned i = 0; i < NB_COUNTERS; i++) {
		rc = pmu_reg_load(p, &p->nb_cccr[i], nb_cccr_msr(i));
		if (rc)
			return pmu_fail(p, rc, "reading", nb_cccr_msr(i), false, err);
		rc = pmu_reg_load(p, &p->nb_ctr[i], nb_counter_msr(i));
		if (rc)
			return pmu_fail(p, rc, "reading", nb_counter_msr(i), false, err);
	}
	for (unsigned i = 0; i < NB_ESCRS; i++) {
		if (!escr_present(p, i))
			continue;
		rc = pmu_reg_load(p, &p->nb_escr[i], nb_escr_get(i)->msr);
		if (rc)
			return pmu_fail(p, rc, "reading", nb_escr_get(i)->msr, false, err);
	}
	/* Another user's counters and ESCRs: the rule is pmu_owner_scan_nb()'s. */
	{
		uint64_t cccr[NB_COUNTERS], escr[NB_ESCRS];

		for (unsigned i = 0; i < NB_COUNTERS; i++)
			cccr[i] = p->nb_cccr[i].saved;
		for (unsigned i = 0; i < NB_ESCRS; i++)
			escr[i] = escr_present(p, i) ? p->nb_escr[i].saved : 0;
		pmu_owner_scan_nb(cccr, escr, hints, &p->occ);
	}
	return 0;
}

bool
pmu_nb_allowed(const struct pmu *p, uint32_t msr)
{
	return nb_msr_allowed(msr, p->caps.nb_model);
}

struct pmu_reg *
pmu_nb_reg_of(struct pmu *p, uint32_t msr)
{
	int escr;

	if (msr >= NB_MSR_COUNTER0 && msr < NB_MSR_COUNTER0 + NB_COUNTERS)
		return &p->nb_ctr[msr - NB_MSR_COUNTER0];
	if (msr >= NB_MSR_CCCR0 && msr < NB_MSR_CCCR0 + NB_COUNTERS)
		return &p->nb_cccr[msr - NB_MSR_CCCR0];
	escr = nb_escr_by_msr(msr);
	if (escr >= 0 && p->nb_escr[escr].msr)
		return &p->nb_escr[escr];
	return NULL;
}

/* The ESCR bits pmustat may set for the logical processor it counts on. */
static uint64_t
escr_ours(const struct pmu *p)
{
	uint64_t v = NB_ESCR_EVENT_SELECT(0x3f) | NB_ESCR_EVENT_MASK(0xffff);

	if (p->caps.nb_ht && p->caps.nb_thread == 1)
		return v | NB_ESCR_T1_USR | NB_ESCR_T1_OS;
	return v | NB_ESCR_T0_USR | NB_ESCR_T0_OS;
}

const char *
pmu_nb_refusal(const struct pmu *p, const struct pmu_write *w)
{
	uint64_t set = w->value & w->mask & ~w->found;
	int escr;

	if (!pmu_nb_allowed(p, w->msr))
		return "not an MSR pmustat writes on this core";
	if (w->clear_ovf)
		return "not a NetBurst register";
	if (w->mask != UINT64_MAX || w->found)
		return "a NetBurst register is written whole";
	if (w->msr >= NB_MSR_COUNTER0 && w->msr < NB_MSR_COUNTER0 + NB_COUNTERS) {
		if (p->occ.nb_busy & (1u << (w->msr - NB_MSR_COUNTER0)))
			return "a counter somebody else holds";
		return (set & ~NB_COUNTER_MASK) ? "wider than the counter" : "";
	}
	if (w->msr >= NB_MSR_CCCR0 && w->msr < NB_MSR_CCCR0 + NB_COUNTERS) {
		unsigned c = w->msr - NB_MSR_CCCR0;

		if (p->occ.nb_busy & (1u << c))
			return "a counter somebody else holds";
		if (set & ~nb_cccr_valid_bits(p->caps.nb_ht))
			return "reserved bits set";
		if (set & ~NB_CCCR_OURS)
			return "a PMI, cascade or overflow bit, which pmustat never sets";
		if ((set & NB_CCCR_ACTIVE_THREAD(3)) != NB_CCCR_REQUIRED)
			return "bits 17:16 must be 11b";
		escr = nb_escr_for(c, NB_CCCR_GET_SELECT(set));
		if (escr < 0 || !escr_present(p, (unsigned)escr))
			return "an ESCR select that names no ESCR of this counter";
		if (p->occ.nb_busy_escrs & (1ull << escr))
			return "it selects an ESCR somebody else's counter uses";
		return "";
	}
	escr = nb_escr_by_msr(w->msr);
	if (escr < 0)
		return "not a register a run programs";
	if (p->occ.nb_busy_escrs & (1ull << escr))
		return "an ESCR somebody else's counter uses";
	if (set & ~nb_escr_valid_bits(p->caps.nb_ht))
		return "reserved bits set";
	if (set & ~escr_ours(p))
		return "tagging or the other logical processor's USR/OS bits, which pmustat never sets";
	return "";
}

int
pmu_nb_read(struct pmu *p, const struct sched_slot *slots, unsigned n, unsigned run, bool use_rdpmc,
	    struct pmu_count *counts, struct pmustat_error **err)
{
	for (unsigned k = 0; k < n; k++) {
		const struct sched_slot *s = &slots[k];
		struct pmu_reg *cccr, *ctr;
		uint64_t raw, cv;
		int rc;

		if (s->run != run || s->kind != SCHED_NB || s->index >= NB_COUNTERS)
			continue;
		cccr = &p->nb_cccr[s->index];
		ctr = &p->nb_ctr[s->index];
		if ((p->lost_nb | p->stopped_nb) & (1u << s->index)) {
			counts[k].taken = p->lost_nb & (1u << s->index);
			counts[k].stopped = !counts[k].taken;
			counts[k].ctl = p->lost_nb_ctl[s->index];
		}
		/* A CCCR another user programmed is theirs, its OVF flag and counter too: not read, not written. */
		if (counts[k].taken && !cccr->dirty)
			continue;
		/* The CCCR's OVF flag: the counter wrapped at 40 bits (sticky until written 0). */
		rc = pmu_rd(p, cccr->msr, &cv);
		if (rc)
			return pmu_fail(p, rc, "reading", cccr->msr, false, err);
		if (use_rdpmc) {
			p->rdpmc_reads++;
			rc = hw_rdpmc(p->hw, p->cpu, s->index, &raw);
			if (rc)
				return err_set(err, rc, "core %d: rdpmc 0x%x failed: %s", p->cpu, s->index,
					       strerror(-rc));
		} else {
			rc = pmu_rd(p, ctr->msr, &raw);
			if (rc)
				return pmu_fail(p, rc, "reading", ctr->msr, false, err);
		}
		counts[k].raw = raw;
		counts[k].overflowed = cv & NB_CCCR_OVF;
		counts[k].frozen = false;	/* NetBurst has no CTR_Frz */
		counts[k].value = delta_count(0, raw, NB_COUNTER_WIDTH, counts[k].overflowed);
		ctr->cur = raw & NB_COUNTER_MASK;
		ctr->cur_known = true;
		cccr->cur = cv;
		cccr->cur_known = true;
		if (cv & NB_CCCR_OVF) {
			rc = pmu_reg_set(p, cccr, cv & ~NB_CCCR_OVF);
			if (rc)
				return pmu_fail(p, rc, "writing", cccr->msr, true, err);
		}
	}
	return 0;
}

/* Counter @c is another user's now: out of the disable and of the restore, with its counter. */
static void
nb_give_up(struct pmu *p, unsigned c)
{
	for (unsigned i = 0; i < p->n_disable; i++)
		if (p->disable_seq[i].msr == nb_cccr_msr(c))
			p->disable_seq[i].mask = 0;
	p->nb_cccr[c].dirty = false;
	p->nb_ctr[c].dirty = false;
	p->occ.nb_busy |= 1u << c;	/* a later run may not program it */
	p->lost_nb |= 1u << c;
}

int
pmu_nb_find_taken(struct pmu *p, uint32_t *failed)
{
	uint64_t now, on, off;
	int rc;

	p->lost_nb = p->stopped_nb = 0;
	for (unsigned c = 0; c < NB_COUNTERS; c++) {
		struct pmu_reg *escr;
		int x;

		if (!(p->run_nb & (1u << c)))
			continue;
		on = off = 0;
		if (!pmu_seq_written(p, nb_cccr_msr(c), &on, &off))
			continue;
		*failed = nb_cccr_msr(c);
		rc = pmu_rd(p, nb_cccr_msr(c), &now);
		if (rc)
			return rc;
		p->nb_cccr[c].cur = now;
		p->nb_cccr[c].cur_known = true;
		/* The OVF flag is the counter's own doing, not another user's. */
		if ((now & ~NB_CCCR_OVF) != on && (now & ~NB_CCCR_OVF) != off) {
			p->lost_nb_ctl[c] = now;
			nb_give_up(p, c);
			/* The ESCR its CCCR named is still ours unless rewritten too (below). */
		} else if ((now & ~NB_CCCR_OVF) == off) {
			p->stopped_nb |= 1u << c;
		}
		x = nb_escr_for(c, NB_CCCR_GET_SELECT(on));
		if (x < 0)
			continue;
		escr = &p->nb_escr[x];
		if (!escr->msr || !escr->dirty || !escr->cur_known)
			continue;
		*failed = escr->msr;
		rc = pmu_rd(p, escr->msr, &now);
		if (rc)
			return rc;
		if (now == escr->cur)
			continue;
		/* Another user's event on our ESCR: what the counter counted since is not the command's. */
		escr->cur = now;
		escr->dirty = false;
		p->occ.nb_busy_escrs |= 1ull << x;
		if (!(p->lost_nb & (1u << c))) {
			p->lost_nb_ctl[c] = p->nb_cccr[c].cur;
			p->stopped_nb &= ~(1u << c);
			/* The counter is still ours to stop: the ESCR goes to that user as it is. */
			p->lost_nb |= 1u << c;
		}
	}
	return 0;
}

int
pmu_nb_clear(struct pmu *p, uint32_t counters, struct pmustat_error **err)
{
	for (unsigned i = 0; i < NB_COUNTERS; i++) {
		uint64_t v = p->nb_cccr[i].saved;
		int escr, rc;

		if (!(counters & (1u << i)))
			continue;
		escr = nb_escr_for(i, NB_CCCR_GET_SELECT(v));
		rc = pmu_wr(p, nb_cccr_msr(i), 0);
		if (rc)
			return pmu_fail(p, rc, "writing", nb_cccr_msr(i), true, err);
		if (escr >= 0 && p->nb_escr[escr].msr) {
			rc = pmu_wr(p, p->nb_escr[escr].msr, 0);
			if (rc)
				return pmu_fail(p, rc, "writing", p->nb_escr[escr].msr, true, err);
		}
		rc = pmu_wr(p, nb_counter_msr(i), 0);
		if (rc)
			return pmu_fail(p, rc, "writing", nb_counter_msr(i), true, err);
	}
	p->armed = 0;
	return 0;
}
