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
#include "base/strbuf.h"
#include "pmu/journal.h"
#include "pmu/pmu_impl.h"
#include "pmus/netburst/journal_nb.h"
#include "pmus/netburst/nb_family.h"
#include "pmus/netburst/nb_regs.h"

/*
 * A NetBurst run's journal: each counter it programs with its CCCR, each
 * ESCR it writes, as saved; every CCCR and ESCR value it writes.
 */
int
journal_from_nb(struct journal *j, const struct pmu *p, const struct pmu_program *progs, unsigned nprogs,
		struct pmustat_error **err)
{
	uint64_t escrs = 0;

	j->family = &pmu_family_netburst;
	j->family_model = p->caps.nb_model;
	j->family_ht = p->caps.nb_ht;
	for (unsigned r = 0; r < nprogs; r++) {
		const struct pmu_program *prog = &progs[r];
		const struct pmu_write *lists[3] = { prog->program, prog->enable, prog->disable };
		unsigned counts[3] = { prog->nprogram, prog->nenable, prog->ndisable };

		j->own_family |= prog->nb;
		for (unsigned l = 0; l < 3; l++) {
			for (unsigned i = 0; i < counts[l]; i++) {
				uint32_t msr = lists[l][i].msr;
				int e = nb_escr_by_msr(msr);

				if (e >= 0)
					escrs |= 1ull << e;
				if ((e >= 0 || (msr >= NB_MSR_CCCR0 && msr < NB_MSR_CCCR0 + NB_COUNTERS)) &&
				    journal_add_wrote(j, msr, lists[l][i].value))
					return err_set(err, -E2BIG, "the plan writes more than %d distinct values to CCCRs and ESCRs; count fewer events",
						       JOURNAL_MAX_WROTE);
			}
		}
	}
	for (unsigned i = 0; i < NB_COUNTERS; i++) {
		if (j->own_family & (1u << i)) {
			journal_add_reg(j, &p->nb_cccr[i]);
			journal_add_reg(j, &p->nb_ctr[i]);
		}
	}
	for (unsigned e = 0; e < NB_ESCRS; e++)
		if (escrs & (1ull << e))
			journal_add_reg(j, &p->nb_escr[e]);
	return 0;
}

/* Is @v a value a restore may write to @msr? "" if so, else why not. @wrote: one the run wrote. */
static const char *
check_reg(const struct pmu *p, const struct journal *j, uint32_t msr, uint64_t v, bool wrote)
{
	bool ht = p->caps.nb_ht;

	if (!pmu_msr_allowed(p, msr))
		return "not an MSR pmustat writes on this core";
	if (msr >= NB_MSR_COUNTER0 && msr < NB_MSR_COUNTER0 + NB_COUNTERS) {
		if (wrote || !(j->own_family & (1u << (msr - NB_MSR_COUNTER0))))
			return "a counter the run did not own";
		return (v & ~NB_COUNTER_MASK) ? "wider than the counter" : "";
	}
	if (msr >= NB_MSR_CCCR0 && msr < NB_MSR_CCCR0 + NB_COUNTERS) {
		if (!(j->own_family & (1u << (msr - NB_MSR_CCCR0))))
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
	if (j->family_model != caps->nb_model || j->family_ht != caps->nb_ht)
		return err_set(err, -EBADMSG,
			       "core %d: the journal is for a NetBurst PMU of model %u%s, this CPU's is model %u%s; not applied",
			       j->core, j->family_model, j->family_ht ? " with Hyper-Threading" : "", caps->nb_model,
			       caps->nb_ht ? " with Hyper-Threading" : "");
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

		if (!(j->own_family & (1u << i)))
			continue;
		if (journal_wrote_value(j, nb_cccr_msr(i), now) || now == (journal_saved_of(j, nb_cccr_msr(i)) & ~NB_CCCR_OVF)) {
			res->restored_family |= 1u << i;
		} else {
			res->left_family |= 1u << i;
			res->left_family_ctl[i] = p.nb_cccr[i].saved;
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
			put_back = res->restored_family & (1u << (msr - NB_MSR_CCCR0));
		else if (msr >= NB_MSR_COUNTER0 && msr < NB_MSR_COUNTER0 + NB_COUNTERS)
			put_back = res->restored_family & (1u << (msr - NB_MSR_COUNTER0));
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

/* A "wrote" line names the CCCR of a counter the run programs, or a saved ESCR. */
bool
journal_wrote_ok_nb(const struct journal *j, uint32_t msr)
{
	if (msr >= NB_MSR_CCCR0 && msr < NB_MSR_CCCR0 + NB_COUNTERS)
		return j->own_family & (1u << (msr - NB_MSR_CCCR0));
	return nb_escr_by_msr(msr) >= 0 && journal_has_reg(j, msr);
}

/* Every counter named has its CCCR and counter saved. */
bool
journal_complete_nb(const struct journal *j)
{
	for (unsigned i = 0; i < NB_COUNTERS; i++)
		if ((j->own_family & (1u << i)) &&
		    (!journal_has_reg(j, nb_cccr_msr(i)) || !journal_has_reg(j, nb_counter_msr(i))))
			return false;
	return true;
}

void
journal_left_nb(const struct journal_result *res, struct strbuf *b)
{
	for (unsigned i = 0; i < NB_COUNTERS; i++)
		if (res->left_family & (1u << i))
			strbuf_printf(b, "; left %s alone: someone else programmed it since (MSR_%s = 0x%llx)",
				      nb_counter_name(i), nb_cccr_name(i), (unsigned long long)res->left_family_ctl[i]);
}
