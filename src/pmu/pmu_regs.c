/*
 * pmu_regs.c - the saved registers of a struct pmu: the allow-list, the
 * reads and writes through the seam (counted, checked against the list),
 * a counter's full-width or legacy write, and the restore of every
 * register written, which also runs from a signal handler: seam writes on
 * data inside the struct pmu, nothing else.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "hw/hw.h"
#include "pmu/delta.h"
#include "pmu/msr.h"
#include "pmu/pmu_impl.h"
#include "pmu/pmu_regs.h"

/* The PMUs a fatal signal's handler restores: one, or a run's cores (the caller's array). */
static struct pmu *signal_one;
static struct pmu *const *volatile signal_pmus;
static volatile unsigned signal_npmus;

bool
pmu_has_perf_metrics(const struct pmu *p)
{
	return (p->perf_capabilities & PERF_CAP_PERF_METRICS) && (p->fixed_mask & (1u << PERF_METRICS_FIXED));
}

bool
pmu_msr_allowed(const struct pmu *p, uint32_t msr)
{
	if (p->caps.family && p->caps.family->allowed)
		return p->caps.family->allowed(p, msr);
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (!(p->gp_mask & (1u << i)))
			continue;
		if (msr == msr_evtsel(i) || msr == msr_pmc(i))
			return true;
		if (p->full_width && msr == msr_a_pmc(i))
			return true;
	}
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		if ((p->fixed_mask & (1u << i)) && msr == msr_fixed_ctr(i))
			return true;
	switch (msr) {
	case MSR_IA32_FIXED_CTR_CTRL:
		return p->fixed_mask != 0;
	case MSR_IA32_PERF_GLOBAL_STATUS:
	case MSR_IA32_PERF_GLOBAL_CTRL:
	case MSR_IA32_PERF_GLOBAL_STATUS_RESET:
		return p->caps.version >= 2;
	case MSR_IA32_PERF_GLOBAL_STATUS_SET:
	case MSR_IA32_PERF_GLOBAL_INUSE:
		return p->caps.version >= 4;
	case MSR_IA32_PERF_CAPABILITIES:
		return p->caps.pdcm;
	case MSR_IA32_PERF_METRICS:
		return pmu_has_perf_metrics(p);
	case MSR_IA32_PEBS_ENABLE:
		return p->caps.ds;
	case MSR_OFFCORE_RSP_0:
	case MSR_OFFCORE_RSP_1:
		return true;
	default:
		return false;
	}
}

int
pmu_rd(struct pmu *p, uint32_t msr, uint64_t *val)
{
	if (!pmu_msr_allowed(p, msr))
		return -EACCES;
	p->msr_reads++;
	return hw_rdmsr(p->hw, p->cpu, msr, val);
}

int
pmu_wr(struct pmu *p, uint32_t msr, uint64_t val)
{
	if (!pmu_msr_allowed(p, msr))
		return -EACCES;
	p->msr_writes++;
	p->armed = 1;
	return hw_wrmsr(p->hw, p->cpu, msr, val);
}

/* Write @val to a saved register unless it is known to hold it already. */
int
pmu_reg_set(struct pmu *p, struct pmu_reg *r, uint64_t val)
{
	int rc;

	if (r->cur_known && r->cur == val)
		return 0;
	r->dirty = true;
	rc = pmu_wr(p, r->msr, val);
	if (rc == 0) {
		r->cur = val;
		r->cur_known = true;
	} else {
		r->cur_known = false;
	}
	return rc;
}

int
pmu_reg_set_bits(struct pmu *p, struct pmu_reg *r, uint64_t val, uint64_t mask)
{
	uint64_t now;
	int rc;

	if (mask == UINT64_MAX)
		return pmu_reg_set(p, r, val);
	rc = pmu_rd(p, r->msr, &now);
	if (rc)
		return rc;
	r->cur = now;
	r->cur_known = true;
	return pmu_reg_set(p, r, (now & ~mask) | (val & mask));
}

int
pmu_reg_load(struct pmu *p, struct pmu_reg *r, uint32_t msr)
{
	int rc;

	r->msr = msr;
	rc = pmu_rd(p, msr, &r->saved);
	if (rc)
		return rc;
	r->cur = r->saved;
	r->cur_known = true;
	r->dirty = false;
	return 0;
}

/*
 * Write a counter value. Full-width writes go to IA32_A_PMCx; legacy
 * writes to IA32_PMCx take bits 31:0 and sign-extend bit 31, so only
 * those bits are ever written (bits 63:32 of the value would be ignored at
 * best). Returns 1 when the counter cannot hold @val exactly this way.
 */
int
pmu_pmc_set(struct pmu *p, unsigned i, uint64_t val)
{
	struct pmu_reg *r = &p->pmc[i];
	uint64_t mask = delta_width_mask(p->caps.gp_width);
	uint64_t lands;
	int rc;

	val &= mask;
	/* It will count (or was written): restore it either way. */
	r->dirty = true;
	if (r->cur_known && r->cur == val)
		return 0;
	if (p->full_width) {
		r->dirty = true;
		rc = pmu_wr(p, msr_a_pmc(i), val);
		lands = val;
	} else {
		uint32_t low = (uint32_t)val;

		r->dirty = true;
		rc = pmu_wr(p, msr_pmc(i), low);
		lands = (uint64_t)(int64_t)(int32_t)low & mask;
	}
	if (rc) {
		r->cur_known = false;
		return rc;
	}
	r->cur = lands;
	r->cur_known = true;
	return lands == val ? 0 : 1;
}

int
pmu_fixed_ctr_set(struct pmu *p, unsigned i, uint64_t val)
{
	/* It will count (or was written): restore it either way. */
	p->fixed_ctr[i].dirty = true;
	return pmu_reg_set(p, &p->fixed_ctr[i], val & delta_width_mask(p->caps.fixed_width));
}

const char *
pmu_msr_name(uint32_t msr, char *buf, size_t size)
{
	if (msr >= MSR_IA32_PERFEVTSEL0 && msr < MSR_IA32_PERFEVTSEL0 + PMU_MAX_GP)
		snprintf(buf, size, "IA32_PERFEVTSEL%u", msr - MSR_IA32_PERFEVTSEL0);
	else if (msr >= MSR_IA32_PMC0 && msr < MSR_IA32_PMC0 + PMU_MAX_GP)
		snprintf(buf, size, "IA32_PMC%u", msr - MSR_IA32_PMC0);
	else if (msr >= MSR_IA32_A_PMC0 && msr < MSR_IA32_A_PMC0 + PMU_MAX_GP)
		snprintf(buf, size, "IA32_A_PMC%u", msr - MSR_IA32_A_PMC0);
	else if (msr >= MSR_IA32_FIXED_CTR0 && msr < MSR_IA32_FIXED_CTR0 + PMU_MAX_FIXED)
		snprintf(buf, size, "IA32_FIXED_CTR%u", msr - MSR_IA32_FIXED_CTR0);
	else if (msr == MSR_IA32_FIXED_CTR_CTRL)
		snprintf(buf, size, "IA32_FIXED_CTR_CTRL");
	else if (msr == MSR_IA32_PERF_GLOBAL_STATUS)
		snprintf(buf, size, "IA32_PERF_GLOBAL_STATUS");
	else if (msr == MSR_IA32_PERF_GLOBAL_CTRL)
		snprintf(buf, size, "IA32_PERF_GLOBAL_CTRL");
	else if (msr == MSR_IA32_PERF_GLOBAL_STATUS_RESET)
		snprintf(buf, size, "IA32_PERF_GLOBAL_STATUS_RESET");
	else if (msr == MSR_IA32_PERF_GLOBAL_STATUS_SET)
		snprintf(buf, size, "IA32_PERF_GLOBAL_STATUS_SET");
	else if (msr == MSR_IA32_PERF_GLOBAL_INUSE)
		snprintf(buf, size, "IA32_PERF_GLOBAL_INUSE");
	else if (msr == MSR_IA32_PERF_CAPABILITIES)
		snprintf(buf, size, "IA32_PERF_CAPABILITIES");
	else if (msr == MSR_IA32_PERF_METRICS)
		snprintf(buf, size, "IA32_PERF_METRICS");
	else if (msr == MSR_IA32_PEBS_ENABLE)
		snprintf(buf, size, "IA32_PEBS_ENABLE");
	else if (msr == MSR_OFFCORE_RSP_0 || msr == MSR_OFFCORE_RSP_1)
		snprintf(buf, size, "MSR_OFFCORE_RSP_%u", msr - MSR_OFFCORE_RSP_0);
	else
		snprintf(buf, size, "MSR");
	return buf;
}

int
pmu_fail(const struct pmu *p, int rc, const char *what, uint32_t msr, bool write,
     struct pmustat_error **err)
{
	char name[40];

	pmu_reg_name(p, msr, name, sizeof(name));
	return err_set(err, rc, "core %d: %s %s (0x%x) failed: %s; %s", p->cpu, what, name, msr, strerror(-rc),
		 rc == -EACCES && !write ? "pmustat does not access this MSR" : hw_msr_hint(rc, write));
}

const char *
pmu_reg_name(const struct pmu *p, uint32_t msr, char *buf, size_t size)
{
	if (p->caps.family && p->caps.family->reg_name)
		return p->caps.family->reg_name(msr, buf, size);
	return pmu_msr_name(msr, buf, size);
}

bool
pmu_plain_counters(const struct pmu *p)
{
	return p->caps.family && p->caps.family->plain_counters;
}

struct pmu_reg *
pmu_reg_of(struct pmu *p, uint32_t msr)
{
	if (p->caps.family && p->caps.family->reg_of)
		return p->caps.family->reg_of(p, msr);
	if (msr == MSR_IA32_PERF_GLOBAL_CTRL)
		return &p->global_ctrl;
	if (msr == MSR_IA32_FIXED_CTR_CTRL)
		return p->fixed_mask ? &p->fixed_ctrl : NULL;
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (!(p->gp_mask & (1u << i)))
			continue;
		if (msr == msr_evtsel(i))
			return &p->evtsel[i];
		if (msr == msr_pmc(i))
			return &p->pmc[i];
	}
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		if ((p->fixed_mask & (1u << i)) && msr == msr_fixed_ctr(i))
			return &p->fixed_ctr[i];
	if (msr == MSR_OFFCORE_RSP_0 || msr == MSR_OFFCORE_RSP_1) {
		struct pmu_reg *r = &p->offcore[msr - MSR_OFFCORE_RSP_0];

		return r->msr ? r : NULL;
	}
	if (msr == MSR_IA32_PERF_METRICS)
		return p->perf_metrics.msr ? &p->perf_metrics : NULL;
	return NULL;
}

/* The counters pmustat may have used, for the overflow bits at restore. */
static uint64_t
owned_bits(const struct pmu *p)
{
	uint64_t bits = 0;

	for (unsigned i = 0; i < PMU_MAX_GP; i++)
		if (p->pmc[i].dirty)
			bits |= 1ull << i;
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		if (p->fixed_ctr[i].dirty)
			bits |= GLOBAL_FIXED_BIT(i);
	if (p->perf_metrics.dirty)
		bits |= GLOBAL_PERF_METRICS_BIT;
	return bits;
}

/*
 * A family's registers in its restore order (p->restore_order, listed by
 * its open()): each one pmustat wrote goes back whole. Data only, no call
 * into the family: this runs in a signal handler too.
 */
static int
restore_listed(struct pmu *p, bool force)
{
	int first = 0;

	for (unsigned i = 0; i < p->n_restore; i++) {
		struct pmu_reg *r = p->restore_order[i];
		int rc;

		if (!r->msr || !r->dirty)
			continue;
		if (force)
			r->cur_known = false;
		rc = pmu_reg_set(p, r, r->saved);
		if (rc < 0 && !first)
			first = rc;
	}
	for (unsigned i = 0; i < p->n_restore; i++)
		p->restore_order[i]->dirty = false;
	return first;
}

/*
 * Async-signal-safe: seam writes on data inside *p, nothing else. @force:
 * write every register pmustat wrote, even those it believes hold their
 * saved value already (from a signal, the child may have enabled without
 * the parent knowing).
 */
static int
restore(struct pmu *p, bool force)
{
	int first = 0, inexact = 0, rc;

#define KEEP(rc) do { if ((rc) < 0 && !first) first = (rc); if ((rc) > 0) inexact = 1; } while (0)
	if (!p->armed)
		return 0;
	/* Enabled behind our back (the child) or not: believe nothing then. */
	if (p->may_count)
		force = true;
	if (p->n_restore) {
		first = restore_listed(p, force);
		p->armed = 0;
		p->may_count = false;
		return first;
	}
	/* GLOBAL_CTRL first: it stops whatever still counts. Only our bits go back. */
	if (p->global_ctrl.dirty) {
		if (force)
			p->global_ctrl.cur_known = false;
		rc = pmu_reg_set_bits(p, &p->global_ctrl, p->global_ctrl.saved, p->global_ctrl.mine);
		KEEP(rc);
	}
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (p->evtsel[i].dirty) {
			if (force)
				p->evtsel[i].cur_known = false;
			rc = pmu_reg_set(p, &p->evtsel[i], p->evtsel[i].saved);
			KEEP(rc);
		}
	}
	if (p->fixed_ctrl.dirty) {
		if (force)
			p->fixed_ctrl.cur_known = false;
		rc = pmu_reg_set_bits(p, &p->fixed_ctrl, p->fixed_ctrl.saved, p->fixed_ctrl.mine);
		KEEP(rc);
	}
	for (unsigned i = 0; i < PMU_NUM_OFFCORE; i++) {
		if (p->offcore[i].dirty) {
			if (force)
				p->offcore[i].cur_known = false;
			rc = pmu_reg_set(p, &p->offcore[i], p->offcore[i].saved);
			KEEP(rc);
		}
	}
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (p->pmc[i].dirty) {
			if (force)
				p->pmc[i].cur_known = false;
			rc = pmu_pmc_set(p, i, p->pmc[i].saved);
			KEEP(rc);
		}
	}
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
		if (p->fixed_ctr[i].dirty) {
			if (force)
				p->fixed_ctr[i].cur_known = false;
			rc = pmu_fixed_ctr_set(p, i, p->fixed_ctr[i].saved);
			KEEP(rc);
		}
	}
	/*
	 * After FIXED_CTR3: the CPU keeps IA32_PERF_METRICS as fractions of
	 * it, so the pair goes back counter first (as Linux writes it).
	 */
	if (p->perf_metrics.dirty) {
		p->perf_metrics.cur_known = false;
		rc = pmu_reg_set(p, &p->perf_metrics, p->perf_metrics.saved);
		KEEP(rc);
	}
	/*
	 * Overflow bits of the counters we used: clear what we may have set,
	 * and on v4+ set back what was set when we came (GLOBAL_STATUS_SET).
	 */
	{
		uint64_t owned = owned_bits(p);
		uint64_t clear = owned & p->status_pending & ~p->status_saved;
		uint64_t set = owned & p->status_saved & ~p->status_pending;

		if (clear) {
			rc = pmu_wr(p, MSR_IA32_PERF_GLOBAL_STATUS_RESET, clear);
			KEEP(rc);
		}
		if (set && p->caps.version >= 4) {
			rc = pmu_wr(p, MSR_IA32_PERF_GLOBAL_STATUS_SET, set);
			KEEP(rc);
		}
		p->status_pending = (p->status_pending & ~owned) | set;
	}
	/* --force unfroze the PMU for the run: frozen again, as found. */
	if (p->unfroze) {
		rc = pmu_wr(p, MSR_IA32_PERF_GLOBAL_STATUS_SET, GLOBAL_STATUS_CTR_FRZ);
		KEEP(rc);
		if (rc == 0)
			p->unfroze = false;
	}
#undef KEEP
	p->armed = 0;
	p->may_count = false;
	for (unsigned i = 0; i < PMU_MAX_GP; i++)
		p->evtsel[i].dirty = p->pmc[i].dirty = false;
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		p->fixed_ctr[i].dirty = false;
	p->fixed_ctrl.dirty = p->global_ctrl.dirty = false;
	p->fixed_ctrl.mine = p->global_ctrl.mine = 0;
	p->offcore[0].dirty = p->offcore[1].dirty = false;
	p->perf_metrics.dirty = false;
	if (first)
		return first;
	return inexact;
}

int
pmu_restore(struct pmu *p)
{
	return restore(p, false);
}

void
pmu_arm_signal_restore(struct pmu *p)
{
	signal_npmus = 0;
	signal_one = p;
	signal_pmus = p ? &signal_one : NULL;
	signal_npmus = p ? 1 : 0;
}

void
pmu_arm_signal_restore_all(struct pmu *const *ps, unsigned n)
{
	signal_npmus = 0;
	signal_pmus = n ? ps : NULL;
	signal_npmus = n;
}

int
pmu_restore_from_signal(void)
{
	struct pmu *const *ps = signal_pmus;
	unsigned n = signal_npmus;
	int first = 0;

	/* Every core, even after one failed; the first failure, else an inexact value, is the result. */
	for (unsigned i = 0; ps && i < n; i++) {
		int rc = ps[i] ? restore(ps[i], true) : 0;

		if (rc < 0 ? first >= 0 : first == 0)
			first = rc;
	}
	return first;
}
