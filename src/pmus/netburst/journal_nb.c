/*
 * journal_nb.c - the crash journal's restore on a NetBurst PMU (journal.h):
 * the same rules as journal_apply.c, for CCCRs, ESCRs and 40-bit counters.
 * A counter is put back (its CCCR and its count) only while its CCCR still
 * holds a value the run wrote, or the one it saved; an ESCR only while it
 * holds a value the run wrote. Anything else is somebody else's since.
 * Every value is checked before anything is written.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "hw/hw.h"
#include "pmu/journal.h"
#include "pmu/pmu_impl.h"

/* Is @v a value a restore may write to @msr? "" if so, else why not. @wrote: one the run wrote. */
static const char *
check_reg(const struct pmu *p, const struct journal *j, uint32_t msr, uint64_t v, bool wrote)
{
	bool ht = p->caps.nb_ht;

	if (!pmu_msr_allowed(p, msr))
		return "not an MSR pmustat writes on this core";
	if (msr >= NB_MSR_COUNTER0 && msr < NB_MSR_COUNTER0 + NB_COUNTERS) {
		if (wrote || !(j->own_nb & (1u << (msr - NB_MSR_COUNTER0))))
			return "a counter the run did not own";
		return (v & ~NB_COUNTER_MASK) ? "wider than the counter" : "";
	}
	if (msr >= NB_MSR_CCCR0 && msr < NB_MSR_CCCR0 + NB_COUNTERS) {
		if (!(j->own_nb & (1u << (msr - NB_MSR_CCCR0))))
			return "a counter the run did not own";
		if (v & ~nb_cccr_valid_bits(ht))
			return "reserved bits set";
		/* pmustat never sets a PMI, cascade, FORCE_OVF or OVF bit itself. */
		if (wrote && (v & (NB_CCCR_FORCE_OVF | NB_CCCR_OVF_PMI_T0 | NB_CCCR_OVF_PMI_T1 | NB_CCCR_CASCADE |
				   NB_CCCR_OVF)))
			return "a PMI, cascade or overflow bit, which pmustat never sets";
		return "";
	}
	if (v & ~nb_escr_valid_bits(ht))
		return "reserved bits set";
	if (wrote && (v & (NB_ESCR_TAG_ENABLE | NB_ESCR_TAG_VALUE(0xf))))
		return "tagging, which pmustat never sets";
	return "";
}

int
journal_apply_nb(struct hw *hw, const struct pmu_caps *caps, const struct journal *j,
		 struct journal_result *res, struct pmustat_error **err)
{
	static struct pmu p;	/* large; static keeps the caller's stack small */
	uint64_t put_escrs = 0;
	char name[40];
	int rc;

	memset(res, 0, sizeof(*res));
	if (!caps->netburst || !j->netburst || j->nb_model != caps->nb_model || j->nb_ht != caps->nb_ht)
		return err_set(err, -EBADMSG,
			       "core %d: the journal is for a %s PMU (model %u), this CPU has %s (model %u); not applied",
			       j->core, j->netburst ? "NetBurst" : "architectural", j->nb_model,
			       caps->netburst ? "a NetBurst PMU" : "an architectural PMU", caps->nb_model);
	rc = pmu_open_at(&p, hw, j->core, caps, false, NULL, err);
	if (rc)
		return rc;
	for (unsigned i = 0; i < j->nregs; i++) {
		const char *why = check_reg(&p, j, j->regs[i].msr, j->regs[i].value, false);

		if (why[0] || !pmu_reg_of(&p, j->regs[i].msr))
			return err_set(err, -EBADMSG,
				       "core %d: the journal's %s (0x%x) = 0x%llx is refused (%s); nothing was written",
				       j->core, nb_msr_name(j->regs[i].msr, name, sizeof(name)), j->regs[i].msr,
				       (unsigned long long)j->regs[i].value, why[0] ? why : "unknown register");
	}
	for (unsigned i = 0; i < j->nwrote; i++) {
		const char *why = check_reg(&p, j, j->wrote[i].msr, j->wrote[i].value, true);

		if (why[0])
			return err_set(err, -EBADMSG,
				       "core %d: the journal says the run wrote %s (0x%x) = 0x%llx, which is refused (%s); nothing was written",
				       j->core, nb_msr_name(j->wrote[i].msr, name, sizeof(name)), j->wrote[i].msr,
				       (unsigned long long)j->wrote[i].value, why);
	}
	/* Which counters still hold the run's programming (OVF is the hardware's, not a value written). */
	for (unsigned i = 0; i < NB_COUNTERS; i++) {
		uint64_t now = p.nb_cccr[i].saved & ~NB_CCCR_OVF;

		if (!(j->own_nb & (1u << i)))
			continue;
		if (journal_wrote_value(j, nb_cccr_msr(i), now) || now == (journal_saved_of(j, nb_cccr_msr(i)) & ~NB_CCCR_OVF)) {
			res->restored_nb |= 1u << i;
		} else {
			res->left_nb |= 1u << i;
			res->left_cccr[i] = p.nb_cccr[i].saved;
		}
	}
	for (unsigned e = 0; e < NB_ESCRS; e++) {
		const struct pmu_reg *r = &p.nb_escr[e];

		if (r->msr && journal_wrote_value(j, r->msr, r->saved))
			put_escrs |= 1ull << e;
	}
	for (unsigned i = 0; i < j->nregs; i++) {
		uint32_t msr = j->regs[i].msr;
		struct pmu_reg *r = pmu_reg_of(&p, msr);
		int e = nb_escr_by_msr(msr);
		bool put_back;

		if (!r)
			continue;	/* checked above */
		if (e >= 0)
			put_back = put_escrs & (1ull << e);
		else if (msr >= NB_MSR_CCCR0 && msr < NB_MSR_CCCR0 + NB_COUNTERS)
			put_back = res->restored_nb & (1u << (msr - NB_MSR_CCCR0));
		else if (msr >= NB_MSR_COUNTER0 && msr < NB_MSR_COUNTER0 + NB_COUNTERS)
			put_back = res->restored_nb & (1u << (msr - NB_MSR_COUNTER0));
		else
			put_back = false;
		if (!put_back)
			continue;
		r->saved = j->regs[i].value;
		r->dirty = true;
		/* A killed run's counters may still count: read values are stale, write them all. */
		r->cur_known = false;
	}
	p.armed = 1;
	rc = pmu_restore(&p);
	if (rc < 0)
		return err_set(err, rc, "core %d: restoring the journal's registers failed: %s; %s", j->core,
			       strerror(-rc), hw_msr_hint(rc, true));
	return rc;
}
