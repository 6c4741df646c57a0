/*
 * save_counters.c - the values of the counters a plan uses, saved before
 * the journal and the first write, so that the restore can put them back.
 *
 * They are read with rdpmc where it works: each MSR read of another core
 * is a system call and an IPI, while rdpmc is one instruction on the core
 * pmustat runs on, which the caller moves to once for all of a core's
 * counters (as it does to read them after the run). Both give the counter
 * as it is, all its bits, so the journal and the restore are the same.
 */
#include <errno.h>
#include <string.h>

#include "base/err.h"
#include "hw/hw.h"
#include "pmu/delta.h"
#include "pmu/msr.h"
#include "pmu/pmu_impl.h"
#include "pmu/pmu_regs.h"

/* The value of one counter into @r (rdpmc with @ecx, else the MSR @msr). */
static int
save_one(struct pmu *p, struct pmu_reg *r, uint32_t msr, uint32_t ecx, unsigned width, bool use_rdpmc,
	 struct pmustat_error **err)
{
	uint64_t v;
	int rc;

	if (!use_rdpmc) {
		rc = pmu_reg_load(p, r, msr);
		return rc ? pmu_fail(p, rc, "reading", msr, false, err) : 0;
	}
	p->rdpmc_reads++;
	rc = hw_rdpmc(p->hw, p->cpu, ecx, &v);
	if (rc)
		return err_set(err, rc, "core %d: rdpmc 0x%x failed: %s", p->cpu, ecx, strerror(-rc));
	r->msr = msr;
	r->saved = v & delta_width_mask(width);
	r->cur = r->saved;
	r->cur_known = true;
	r->dirty = false;
	return 0;
}

int
pmu_save_counters(struct pmu *p, uint32_t gp, uint32_t fixed, bool use_rdpmc, struct pmustat_error **err)
{
	int rc;

	/* A family's plain counters are read by its own read(), not by rdpmc at their number. */
	use_rdpmc = use_rdpmc && !pmu_plain_counters(p);
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (!(gp & p->gp_mask & (1u << i)) || p->pmc[i].msr)
			continue;
		rc = save_one(p, &p->pmc[i], msr_pmc(i), i, p->caps.gp_width, use_rdpmc, err);
		if (rc)
			return rc;
	}
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
		if (!(fixed & p->fixed_mask & (1u << i)) || p->fixed_ctr[i].msr)
			continue;
		rc = save_one(p, &p->fixed_ctr[i], msr_fixed_ctr(i), RDPMC_FIXED | i, p->caps.fixed_width, use_rdpmc,
			      err);
		if (rc)
			return rc;
	}
	return 0;
}
