/*
 * taken.c - whether the run's counters are still pmustat's when it comes
 * to stop them. pmustat holds its counters behind the kernel's back, so
 * perf may program one of them mid-run (it sees a counter it believes
 * free); another tool may stop one. Either way the count is not the
 * command's: it is marked so (pmu_read()), and a counter another user
 * programmed is theirs from then on: pmustat neither disables nor
 * restores it, nor its GLOBAL_CTRL bit and overflow bit.
 */
#include "pmu/msr.h"
#include "pmu/pmu_impl.h"
#include "pmu/pmu_regs.h"

bool
pmu_seq_written(const struct pmu *p, uint32_t msr, uint64_t *on, uint64_t *off)
{
	bool found = false;

	for (unsigned i = 0; i < p->n_enable; i++) {
		if (p->enable_seq[i].msr == msr) {
			*on = p->enable_seq[i].val;
			found = true;
		}
	}
	for (unsigned i = 0; i < p->n_disable; i++)
		if (p->disable_seq[i].msr == msr)
			*off = p->disable_seq[i].val;
	return found;
}

/* Counter @gp (or fixed @fixed) is another user's now: out of the disable and of everything restored. */
static void
give_up(struct pmu *p, int gp, int fixed)
{
	uint64_t bit = gp >= 0 ? 1ull << gp : GLOBAL_FIXED_BIT(fixed);
	uint64_t field = fixed >= 0 ? 0xfull << (4 * fixed) : 0;

	for (unsigned i = 0; i < p->n_disable; i++) {
		struct pmu_seq_write *w = &p->disable_seq[i];

		if (w->msr == MSR_IA32_PERF_GLOBAL_CTRL)
			w->mask &= ~bit;
		else if (w->msr == MSR_IA32_FIXED_CTR_CTRL)
			w->mask &= ~field;
		else if (gp >= 0 && w->msr == msr_evtsel((unsigned)gp))
			w->mask = 0;
	}
	p->global_ctrl.mine &= ~bit;
	if (gp >= 0) {
		p->evtsel[gp].dirty = false;
		p->pmc[gp].dirty = false;	/* its overflow bit is not ours either (owned_bits()) */
		p->occ.busy_gp |= 1u << gp;	/* a later run may not program it */
		p->taken_gp &= ~(1u << gp);
	} else {
		p->fixed_ctrl.mine &= ~field;
		p->fixed_ctr[fixed].dirty = false;
		p->occ.busy_fixed |= 1u << fixed;
		p->taken_fixed &= ~(1u << fixed);
		/* IA32_PERF_METRICS goes with fixed counter 3. */
		if ((unsigned)fixed == PERF_METRICS_FIXED && p->run_perf_metrics) {
			p->perf_metrics.dirty = false;
			p->global_ctrl.mine &= ~GLOBAL_PERF_METRICS_BIT;
			for (unsigned i = 0; i < p->n_disable; i++)
				if (p->disable_seq[i].msr == MSR_IA32_PERF_GLOBAL_CTRL)
					p->disable_seq[i].mask &= ~GLOBAL_PERF_METRICS_BIT;
		}
	}
	p->status_pending &= ~bit;
}

/*
 * The run's IA32_PERF_GLOBAL_CTRL enables, read last: another user (a
 * tool, a kernel that rewrites the register with only its own counters'
 * bits) may have cleared one and left it clear, and that counter stopped
 * then. Linux's PMI handler clears them only while it runs, which no read
 * made through the msr driver's IPI can land in. The value is kept: where
 * the disable's first write is GLOBAL_CTRL's read-modify-write, this read
 * is its read (pmu_disable()).
 */
static int
find_stopped_globally(struct pmu *p)
{
	uint32_t gp = p->run_gp & ~p->lost_gp, fixed = p->run_fixed & ~p->lost_fixed;
	uint64_t now;
	int rc;

	if (!gp && !fixed)
		return 0;
	rc = pmu_rd(p, MSR_IA32_PERF_GLOBAL_CTRL, &now);
	if (rc)
		return rc;
	p->global_ctrl.cur = now;
	p->global_ctrl.cur_known = true;
	p->global_ctrl_fresh = true;
	for (unsigned i = 0; i < PMU_MAX_GP; i++)
		if ((gp & (1u << i)) && !(now & (1ull << i)))
			p->stopped_gp |= 1u << i;
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		if ((fixed & (1u << i)) && !(now & GLOBAL_FIXED_BIT(i)))
			p->stopped_fixed |= 1u << i;
	/* The top-down fractions stop with their own enable too. */
	if (p->run_perf_metrics && (fixed & (1u << PERF_METRICS_FIXED)) && !(now & GLOBAL_PERF_METRICS_BIT))
		p->stopped_fixed |= 1u << PERF_METRICS_FIXED;
	return 0;
}

/*
 * The offcore response filters of the run's offcore events, read before
 * the disable: another user (perf's offcore event, a tool) that rewrote
 * one mid-run made its counter count other responses since. That count
 * is not the command's; the MSR is that user's from then on and is not
 * restored. The counter itself is still pmustat's.
 */
static int
find_refiltered(struct pmu *p, uint32_t *failed)
{
	uint64_t now;
	int rc;

	p->refiltered_gp = 0;
	for (unsigned o = 0; o < PMU_NUM_OFFCORE; o++) {
		uint32_t gp = p->run_offcore_gp[o] & p->run_gp & ~p->lost_gp;

		if (!gp)
			continue;
		*failed = MSR_OFFCORE_RSP_0 + o;
		rc = pmu_rd(p, MSR_OFFCORE_RSP_0 + o, &now);
		if (rc)
			return rc;
		p->offcore[o].cur = now;
		p->offcore[o].cur_known = true;
		if (now == p->run_offcore_val[o])
			continue;
		p->refiltered_gp |= gp;
		p->refiltered_rsp[o] = now;
		p->offcore[o].dirty = false;
		p->offcore_lost |= 1u << o;
	}
	return 0;
}

int
pmu_find_taken(struct pmu *p, uint32_t *failed)
{
	uint64_t now, on, off;
	int rc;

	p->lost_gp = p->lost_fixed = p->stopped_gp = p->stopped_fixed = 0;
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (!(p->run_gp & (1u << i)))
			continue;
		on = off = 0;
		if (!pmu_seq_written(p, msr_evtsel(i), &on, &off))
			continue;
		*failed = msr_evtsel(i);
		rc = pmu_rd(p, msr_evtsel(i), &now);
		if (rc)
			return rc;
		p->evtsel[i].cur = now;
		p->evtsel[i].cur_known = true;
		if (now == on)
			continue;
		p->lost_ctl[i] = now;
		/* As programmed (EN clear: not enabled, or stopped since), or as the disable leaves it: still ours. */
		if (now == (on & ~EVTSEL_EN) || now == off) {
			p->stopped_gp |= 1u << i;
		} else {
			p->lost_gp |= 1u << i;
			give_up(p, (int)i, -1);
		}
	}
	on = off = 0;
	if (p->run_fixed && pmu_seq_written(p, MSR_IA32_FIXED_CTR_CTRL, &on, &off)) {
		*failed = MSR_IA32_FIXED_CTR_CTRL;
		rc = pmu_rd(p, MSR_IA32_FIXED_CTR_CTRL, &now);
		if (rc)
			return rc;
		for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
			unsigned field = (unsigned)FIXED_CTRL_FIELD(now, i);

			if (!(p->run_fixed & (1u << i)) || field == FIXED_CTRL_FIELD(on, i))
				continue;
			p->lost_fixed_ctl[i] = field;
			if (field == 0) {
				p->stopped_fixed |= 1u << i;
			} else {
				p->lost_fixed |= 1u << i;
				give_up(p, -1, (int)i);
			}
		}
	}
	rc = find_refiltered(p, failed);
	if (rc)
		return rc;
	*failed = MSR_IA32_PERF_GLOBAL_CTRL;
	return find_stopped_globally(p);
}
