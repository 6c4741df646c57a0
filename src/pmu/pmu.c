/*
 * pmu.c - save, program, enable, read and restore one core's PMU.
 *
 * Every register pmustat may write is a struct pmu_reg in the struct pmu:
 * its value when found, what pmustat last wrote, and whether it was
 * written at all. Restore walks those slots and writes the saved values
 * back through the seam, nothing else, so it works from a signal handler.
 * Shared registers (IA32_PERF_GLOBAL_CTRL, IA32_FIXED_CTR_CTRL) are written
 * as found with only pmustat's bits or fields changed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pmu/delta.h"
#include "events/event.h"
#include "pmu/evtsel.h"
#include "hw/hw.h"
#include "pmu/msr.h"
#include "pmu/pmu.h"
#include "base/err.h"

static struct pmu *signal_pmu;

bool
pmu_msr_allowed(const struct pmu *p, uint32_t msr)
{
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
	case MSR_OFFCORE_RSP_0:
	case MSR_OFFCORE_RSP_1:
		return true;
	default:
		return false;
	}
}

static int
rd(struct pmu *p, uint32_t msr, uint64_t *val)
{
	if (!pmu_msr_allowed(p, msr))
		return -EACCES;
	p->msr_reads++;
	return hw_rdmsr(p->hw, p->cpu, msr, val);
}

static int
wr(struct pmu *p, uint32_t msr, uint64_t val)
{
	if (!pmu_msr_allowed(p, msr))
		return -EACCES;
	p->msr_writes++;
	p->armed = 1;
	return hw_wrmsr(p->hw, p->cpu, msr, val);
}

/* Write @val to a saved register unless it is known to hold it already. */
static int
reg_set(struct pmu *p, struct pmu_reg *r, uint64_t val)
{
	int rc;

	if (r->cur_known && r->cur == val)
		return 0;
	r->dirty = true;
	rc = wr(p, r->msr, val);
	if (rc == 0) {
		r->cur = val;
		r->cur_known = true;
	} else {
		r->cur_known = false;
	}
	return rc;
}

static int
reg_load(struct pmu *p, struct pmu_reg *r, uint32_t msr)
{
	int rc;

	r->msr = msr;
	rc = rd(p, msr, &r->saved);
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
static int
pmc_set(struct pmu *p, unsigned i, uint64_t val)
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
		rc = wr(p, msr_a_pmc(i), val);
		lands = val;
	} else {
		uint32_t low = (uint32_t)val;

		r->dirty = true;
		rc = wr(p, msr_pmc(i), low);
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

static int
fixed_ctr_set(struct pmu *p, unsigned i, uint64_t val)
{
	/* It will count (or was written): restore it either way. */
	p->fixed_ctr[i].dirty = true;
	return reg_set(p, &p->fixed_ctr[i], val & delta_width_mask(p->caps.fixed_width));
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
	else if (msr == MSR_OFFCORE_RSP_0 || msr == MSR_OFFCORE_RSP_1)
		snprintf(buf, size, "MSR_OFFCORE_RSP_%u", msr - MSR_OFFCORE_RSP_0);
	else
		snprintf(buf, size, "MSR");
	return buf;
}

static int
fail(const struct pmu *p, int rc, const char *what, uint32_t msr, bool write,
     struct pmustat_error **err)
{
	char name[40];

	return err_set(err, rc, "core %d: %s %s (0x%x) failed: %s; %s", p->cpu, what,
		 pmu_msr_name(msr, name, sizeof(name)), msr, strerror(-rc),
		 rc == -EACCES && !write ? "pmustat does not access this MSR" : hw_msr_hint(rc, write));
}

static uint64_t
our_bits(uint32_t gp, uint32_t fixed)
{
	uint64_t bits = gp;

	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		if (fixed & (1u << i))
			bits |= GLOBAL_FIXED_BIT(i);
	return bits;
}

int
pmu_open(struct pmu *p, struct hw *hw, int cpu, const struct pmu_caps *caps,
	 bool uses_offcore, struct pmustat_error **err)
{
	uint64_t v;
	int rc;

	memset(p, 0, sizeof(*p));
	p->hw = hw;
	p->cpu = cpu;
	p->caps = *caps;
	p->gp_mask = caps->gp_mask & ((1u << PMU_MAX_GP) - 1);
	p->fixed_mask = caps->fixed_mask & ((1u << PMU_MAX_FIXED) - 1);
	if (caps->version < 2) {
		return err_set(err, -ENOTSUP, "core %d: architectural perfmon version %u has no IA32_PERF_GLOBAL_CTRL; pmustat needs version 2 or later",
			 cpu, caps->version);
	}
	rc = hw_msr_open(hw, cpu, true);
	if (rc) {
		return err_set(err, rc, "core %d: cannot open the MSR device for writing: %s; %s",
			 cpu, strerror(-rc), hw_msr_hint(rc, true));
	}
	if (caps->pdcm) {
		rc = rd(p, MSR_IA32_PERF_CAPABILITIES, &p->perf_capabilities);
		if (rc)
			return fail(p, rc, "reading", MSR_IA32_PERF_CAPABILITIES, false, err);
		p->full_width = p->perf_capabilities & PERF_CAP_FW_WRITE;
	}
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (!(p->gp_mask & (1u << i)))
			continue;
		rc = reg_load(p, &p->evtsel[i], msr_evtsel(i));
		if (rc)
			return fail(p, rc, "reading", msr_evtsel(i), false, err);
		rc = reg_load(p, &p->pmc[i], msr_pmc(i));
		if (rc)
			return fail(p, rc, "reading", msr_pmc(i), false, err);
	}
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
		if (!(p->fixed_mask & (1u << i)))
			continue;
		rc = reg_load(p, &p->fixed_ctr[i], msr_fixed_ctr(i));
		if (rc)
			return fail(p, rc, "reading", msr_fixed_ctr(i), false, err);
	}
	if (p->fixed_mask) {
		rc = reg_load(p, &p->fixed_ctrl, MSR_IA32_FIXED_CTR_CTRL);
		if (rc)
			return fail(p, rc, "reading", MSR_IA32_FIXED_CTR_CTRL, false, err);
	}
	rc = reg_load(p, &p->global_ctrl, MSR_IA32_PERF_GLOBAL_CTRL);
	if (rc)
		return fail(p, rc, "reading", MSR_IA32_PERF_GLOBAL_CTRL, false, err);
	rc = rd(p, MSR_IA32_PERF_GLOBAL_STATUS, &p->status_saved);
	if (rc)
		return fail(p, rc, "reading", MSR_IA32_PERF_GLOBAL_STATUS, false, err);
	p->status_pending = p->status_saved;
	if (caps->version >= 4) {
		rc = rd(p, MSR_IA32_PERF_GLOBAL_INUSE, &v);
		if (rc)
			return fail(p, rc, "reading", MSR_IA32_PERF_GLOBAL_INUSE, false, err);
		p->inuse = v;
	}
	if (uses_offcore) {
		for (unsigned i = 0; i < PMU_NUM_OFFCORE; i++) {
			rc = reg_load(p, &p->offcore[i], MSR_OFFCORE_RSP_0 + i);
			if (rc)
				return fail(p, rc, "reading", MSR_OFFCORE_RSP_0 + i, false, err);
		}
	}

	/*
	 * In use: an EVTSEL with EN or an event/umask, a non-zero fixed
	 * field, or the CPU's own GLOBAL_INUSE view. A GLOBAL_CTRL bit alone
	 * means nothing: perf sets every bit whether a counter is used or not.
	 */
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (!(p->gp_mask & (1u << i)))
			continue;
		if ((p->evtsel[i].saved & (EVTSEL_EN | 0xffffu)) || (p->inuse & (1ull << i)))
			p->busy_gp |= 1u << i;
	}
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
		if (!(p->fixed_mask & (1u << i)))
			continue;
		if (FIXED_CTRL_FIELD(p->fixed_ctrl.saved, i) || (p->inuse & GLOBAL_FIXED_BIT(i)))
			p->busy_fixed |= 1u << i;
	}
	return 0;
}

uint32_t
pmu_free_gp(const struct pmu *p)
{
	return (p->gp_mask & ~p->busy_gp) | p->taken_gp;
}

uint32_t
pmu_free_fixed(const struct pmu *p)
{
	return (p->fixed_mask & ~p->busy_fixed) | p->taken_fixed;
}

void
pmu_take_busy(struct pmu *p)
{
	p->taken_gp = p->busy_gp;
	p->taken_fixed = p->busy_fixed;
}

static const char *
owner_of(const struct pmu *p, bool fixed, unsigned i, bool watchdog_on)
{
	if (fixed) {
		unsigned f = FIXED_CTRL_FIELD(p->fixed_ctrl.saved, i);

		if (i == 1 && (f & FIXED_CTRL_PMI) && watchdog_on)
			return "the NMI watchdog (disable it: sudo sysctl kernel.nmi_watchdog=0)";
		if (f & FIXED_CTRL_PMI)
			return "perf_events (a perf session, or the NMI watchdog: see 'perf stat'/'perf record' processes)";
	} else if (p->evtsel[i].saved & EVTSEL_INT) {
		return "perf_events (a perf session, or the NMI watchdog: see 'perf stat'/'perf record' processes)";
	}
	return "a tool that programs the MSRs directly (another pmustat, likwid, wrmsr)";
}

void
pmu_describe_busy(const struct pmu *p, const char *nmi_watchdog, char *buf, size_t size)
{
	bool watchdog_on = nmi_watchdog && nmi_watchdog[0] == '1';
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < PMU_MAX_FIXED && used < size; i++) {
		if (!(p->busy_fixed & (1u << i)))
			continue;
		used += (size_t)snprintf(buf + used, size - used, "%sfixed%u (IA32_FIXED_CTR_CTRL field 0x%x): %s",
					 used ? "; " : "", i,
					 (unsigned)FIXED_CTRL_FIELD(p->fixed_ctrl.saved, i),
					 owner_of(p, true, i, watchdog_on));
	}
	for (unsigned i = 0; i < PMU_MAX_GP && used < size; i++) {
		if (!(p->busy_gp & (1u << i)))
			continue;
		used += (size_t)snprintf(buf + used, size - used, "%spmc%u (IA32_PERFEVTSEL%u = 0x%llx): %s",
					 used ? "; " : "", i, i,
					 (unsigned long long)p->evtsel[i].saved,
					 owner_of(p, false, i, watchdog_on));
	}
}

static struct pmu_reg *
offcore_reg(struct pmu *p, uint32_t msr)
{
	if (msr == MSR_OFFCORE_RSP_0 || msr == MSR_OFFCORE_RSP_1) {
		struct pmu_reg *r = &p->offcore[msr - MSR_OFFCORE_RSP_0];

		return r->msr ? r : NULL;
	}
	return NULL;
}

int
pmu_plan_run(const struct pmu *p, const struct event *ev, const struct sched_slot *slots,
	     unsigned n, unsigned run, struct pmu_run_plan *pl, struct pmustat_error **err)
{
	uint32_t own_gp = pmu_free_gp(p), own_fixed = pmu_free_fixed(p);
	int rc;

	memset(pl, 0, sizeof(*pl));
	for (unsigned k = 0; k < n; k++) {
		const struct sched_slot *s = &slots[k];

		if (s->run != run || s->kind == SCHED_NONE)
			continue;
		if (s->kind == SCHED_FIXED) {
			if (s->index >= PMU_MAX_FIXED || !(own_fixed & (1u << s->index))) {
				return err_set(err, -EBUSY, "core %d: fixed counter %u is not free", p->cpu, s->index);
			}
			rc = evtsel_fixed_field(&ev[k], &p->caps, &pl->field[s->index], err);
			if (rc)
				return rc;
			pl->fixed |= 1u << s->index;
		} else {
			if (s->index >= PMU_MAX_GP || !(own_gp & (1u << s->index))) {
				return err_set(err, -EBUSY, "core %d: general-purpose counter %u is not free", p->cpu, s->index);
			}
			rc = evtsel_encode(&ev[k], &p->caps, false, &pl->evtsel[s->index], err);
			if (rc)
				return rc;
			pl->gp |= 1u << s->index;
		}
		if (ev[k].extra_msr) {
			unsigned o = ev[k].extra_msr - MSR_OFFCORE_RSP_0;

			if (ev[k].extra_msr < MSR_OFFCORE_RSP_0 || o >= PMU_NUM_OFFCORE || !p->offcore[o].msr) {
				return err_set(err, -EINVAL, "core %d: event %s needs MSR 0x%x, which pmustat did not save",
					 p->cpu, ev[k].name, ev[k].extra_msr);
			}
			pl->offcore[o] = ev[k].extra_value;
			pl->offcore_used |= 1u << o;
		}
	}
	/*
	 * GLOBAL_CTRL is ours to toggle when none of our counters' bits is
	 * set; otherwise somebody (perf) keeps them set and the counters are
	 * started one by one through EN and the fixed fields.
	 */
	pl->mode = (p->global_ctrl.saved & our_bits(pl->gp, pl->fixed)) == 0 ? PMU_ENABLE_GLOBAL
									       : PMU_ENABLE_PER_COUNTER;
	if (pl->mode == PMU_ENABLE_GLOBAL) {
		for (unsigned i = 0; i < PMU_MAX_GP; i++)
			if (pl->gp & (1u << i))
				pl->evtsel[i] |= EVTSEL_EN;
	}
	return 0;
}

int
pmu_program(struct pmu *p, const struct event *ev, const struct sched_slot *slots,
	    unsigned n, unsigned run, struct pmustat_error **err)
{
	struct pmu_run_plan pl;
	uint64_t *evtsel_val = pl.evtsel;
	unsigned *field = pl.field;
	uint32_t gp, fixed, own_gp = pmu_free_gp(p), own_fixed = pmu_free_fixed(p);
	uint64_t bits, fc, gc, clear;
	int rc;

	rc = pmu_plan_run(p, ev, slots, n, run, &pl, err);
	if (rc)
		return rc;
	gp = pl.gp;
	fixed = pl.fixed;
	bits = our_bits(gp, fixed);
	gc = p->global_ctrl.saved;
	p->mode = pl.mode;

	/* Counting stays off: GLOBAL_CTRL as found (our bits clear in GLOBAL mode). */
	if (p->mode == PMU_ENABLE_GLOBAL) {
		rc = reg_set(p, &p->global_ctrl, gc);
		if (rc)
			return fail(p, rc, "writing", MSR_IA32_PERF_GLOBAL_CTRL, true, err);
	}
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		uint64_t v;

		if (!(own_gp & (1u << i)))
			continue;
		/* Counters of another run go back to what they were. */
		v = (gp & (1u << i)) ? evtsel_val[i] : p->evtsel[i].saved;
		if (!(gp & (1u << i)) && !p->evtsel[i].dirty)
			continue;
		rc = reg_set(p, &p->evtsel[i], v);
		if (rc)
			return fail(p, rc, "writing", msr_evtsel(i), true, err);
	}
	if (p->fixed_mask) {
		fc = p->fixed_ctrl.cur_known ? p->fixed_ctrl.cur : p->fixed_ctrl.saved;
		for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
			unsigned f;

			if (!(own_fixed & (1u << i)))
				continue;
			if (fixed & (1u << i))
				f = p->mode == PMU_ENABLE_GLOBAL ? field[i] : 0;
			else
				f = (unsigned)FIXED_CTRL_FIELD(p->fixed_ctrl.saved, i);
			fc = fixed_ctrl_with_field(fc, i, f);
		}
		rc = reg_set(p, &p->fixed_ctrl, fc);
		if (rc)
			return fail(p, rc, "writing", MSR_IA32_FIXED_CTR_CTRL, true, err);
	}
	for (unsigned k = 0; k < n; k++) {
		struct pmu_reg *r;

		if (slots[k].run != run || !ev[k].extra_msr)
			continue;
		r = offcore_reg(p, ev[k].extra_msr);
		if (!r)
			return -EINVAL;	/* checked above */
		rc = reg_set(p, r, ev[k].extra_value);
		if (rc)
			return fail(p, rc, "writing", r->msr, true, err);
	}
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (!(gp & (1u << i)))
			continue;
		rc = pmc_set(p, i, 0);
		if (rc < 0)
			return fail(p, rc, "zeroing", p->full_width ? msr_a_pmc(i) : msr_pmc(i), true, err);
	}
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
		if (!(fixed & (1u << i)))
			continue;
		rc = fixed_ctr_set(p, i, 0);
		if (rc)
			return fail(p, rc, "zeroing", msr_fixed_ctr(i), true, err);
	}
	/* Our overflow bits, as found or left by the last run: write 1 to clear. */
	clear = bits & p->status_pending;
	if (clear) {
		rc = wr(p, MSR_IA32_PERF_GLOBAL_STATUS_RESET, clear);
		if (rc)
			return fail(p, rc, "writing", MSR_IA32_PERF_GLOBAL_STATUS_RESET, true, err);
	}
	/* From the go on, the child may make them overflow. */
	p->status_pending = (p->status_pending & ~clear) | bits;
	if (p->mode == PMU_ENABLE_PER_COUNTER && (gc & bits) != bits) {
		/* EN and the fields are clear, so setting these starts nothing. */
		rc = reg_set(p, &p->global_ctrl, gc | bits);
		if (rc)
			return fail(p, rc, "writing", MSR_IA32_PERF_GLOBAL_CTRL, true, err);
	}

	/* The sequences the child and the parent write. */
	p->may_count = true;
	p->run_gp = gp;
	p->run_fixed = fixed;
	p->n_enable = p->n_disable = 0;
	if (p->mode == PMU_ENABLE_GLOBAL) {
		p->global_ctrl.dirty = true;
		p->enable_seq[p->n_enable++] = (struct pmu_write){ MSR_IA32_PERF_GLOBAL_CTRL, gc | bits };
		p->disable_seq[p->n_disable++] = (struct pmu_write){ MSR_IA32_PERF_GLOBAL_CTRL, gc };
	} else {
		uint64_t fc_on = p->fixed_ctrl.cur;

		for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
			if (fixed & (1u << i))
				fc_on = fixed_ctrl_with_field(fc_on, i, field[i]);
		if (fixed) {
			p->disable_seq[p->n_disable++] = (struct pmu_write){ MSR_IA32_FIXED_CTR_CTRL, p->fixed_ctrl.cur };
		}
		for (unsigned i = 0; i < PMU_MAX_GP; i++) {
			if (!(gp & (1u << i)))
				continue;
			p->enable_seq[p->n_enable++] = (struct pmu_write){ msr_evtsel(i), evtsel_val[i] | EVTSEL_EN };
			p->disable_seq[p->n_disable++] = (struct pmu_write){ msr_evtsel(i), evtsel_val[i] };
		}
		if (fixed) {
			p->fixed_ctrl.dirty = true;
			p->enable_seq[p->n_enable++] = (struct pmu_write){ MSR_IA32_FIXED_CTR_CTRL, fc_on };
		}
	}
	return 0;
}

int
pmu_enable(void *arg)
{
	struct pmu *p = arg;

	for (unsigned i = 0; i < p->n_enable; i++) {
		int rc = hw_wrmsr(p->hw, p->cpu, p->enable_seq[i].msr, p->enable_seq[i].val);

		if (rc)
			return rc;
	}
	return 0;
}

static struct pmu_reg *
reg_of(struct pmu *p, uint32_t msr)
{
	if (msr == MSR_IA32_PERF_GLOBAL_CTRL)
		return &p->global_ctrl;
	if (msr == MSR_IA32_FIXED_CTR_CTRL)
		return &p->fixed_ctrl;
	if (msr >= MSR_IA32_PERFEVTSEL0 && msr < MSR_IA32_PERFEVTSEL0 + PMU_MAX_GP)
		return &p->evtsel[msr - MSR_IA32_PERFEVTSEL0];
	return NULL;
}

void
pmu_mark_enabled(struct pmu *p)
{
	p->msr_writes += p->n_enable;
	for (unsigned i = 0; i < p->n_enable; i++) {
		struct pmu_reg *r = reg_of(p, p->enable_seq[i].msr);

		if (r) {
			r->cur = p->enable_seq[i].val;
			r->cur_known = true;
			r->dirty = true;
		}
	}
	for (unsigned i = 0; i < PMU_MAX_GP; i++)
		if (p->run_gp & (1u << i))
			p->pmc[i].cur_known = false;
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		if (p->run_fixed & (1u << i))
			p->fixed_ctr[i].cur_known = false;
}

int
pmu_disable(struct pmu *p, struct pmustat_error **err)
{
	int first = 0;

	/* Always written: the child may or may not have enabled. */
	for (unsigned i = 0; i < p->n_disable; i++) {
		struct pmu_reg *r = reg_of(p, p->disable_seq[i].msr);
		int rc;

		if (r)
			r->cur_known = false;
		rc = r ? reg_set(p, r, p->disable_seq[i].val)
		       : wr(p, p->disable_seq[i].msr, p->disable_seq[i].val);
		if (rc && !first)
			first = fail(p, rc, "writing", p->disable_seq[i].msr, true, err);
	}
	if (!first)
		p->may_count = false;
	return first;
}

int
pmu_read(struct pmu *p, const struct sched_slot *slots, unsigned n, unsigned run,
	 bool use_rdpmc, struct pmu_count *counts, struct pmustat_error **err)
{
	uint64_t status, bits = our_bits(p->run_gp, p->run_fixed);
	int rc;

	rc = rd(p, MSR_IA32_PERF_GLOBAL_STATUS, &status);
	if (rc)
		return fail(p, rc, "reading", MSR_IA32_PERF_GLOBAL_STATUS, false, err);
	for (unsigned k = 0; k < n; k++) {
		const struct sched_slot *s = &slots[k];
		uint64_t raw, bit;
		unsigned width;
		uint32_t msr, ecx;

		if (s->run != run || s->kind == SCHED_NONE)
			continue;
		if (s->kind == SCHED_FIXED) {
			msr = msr_fixed_ctr(s->index);
			ecx = RDPMC_FIXED | s->index;
			bit = GLOBAL_FIXED_BIT(s->index);
			width = p->caps.fixed_width;
		} else {
			msr = msr_pmc(s->index);
			ecx = s->index;
			bit = 1ull << s->index;
			width = p->caps.gp_width;
		}
		if (use_rdpmc) {
			p->rdpmc_reads++;
			rc = hw_rdpmc(p->hw, p->cpu, ecx, &raw);
			if (rc) {
				return err_set(err, rc, "core %d: rdpmc 0x%x failed: %s", p->cpu, ecx, strerror(-rc));
			}
		} else {
			rc = rd(p, msr, &raw);
			if (rc)
				return fail(p, rc, "reading", msr, false, err);
		}
		counts[k].raw = raw;
		counts[k].overflowed = status & bit;
		counts[k].value = delta_count(0, raw, width, counts[k].overflowed);
		if (s->kind == SCHED_FIXED) {
			p->fixed_ctr[s->index].cur = raw & delta_width_mask(width);
			p->fixed_ctr[s->index].cur_known = true;
		} else {
			p->pmc[s->index].cur = raw & delta_width_mask(width);
			p->pmc[s->index].cur_known = true;
		}
	}
	if (status & bits) {
		rc = wr(p, MSR_IA32_PERF_GLOBAL_STATUS_RESET, status & bits);
		if (rc)
			return fail(p, rc, "writing", MSR_IA32_PERF_GLOBAL_STATUS_RESET, true, err);
	}
	/* Disabled and cleared: nothing of ours can overflow any more. */
	p->status_pending &= ~bits;
	return 0;
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
	return bits;
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
	/* GLOBAL_CTRL first: it stops whatever still counts. */
	if (p->global_ctrl.dirty) {
		if (force)
			p->global_ctrl.cur_known = false;
		rc = reg_set(p, &p->global_ctrl, p->global_ctrl.saved);
		KEEP(rc);
	}
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (p->evtsel[i].dirty) {
			if (force)
				p->evtsel[i].cur_known = false;
			rc = reg_set(p, &p->evtsel[i], p->evtsel[i].saved);
			KEEP(rc);
		}
	}
	if (p->fixed_ctrl.dirty) {
		if (force)
			p->fixed_ctrl.cur_known = false;
		rc = reg_set(p, &p->fixed_ctrl, p->fixed_ctrl.saved);
		KEEP(rc);
	}
	for (unsigned i = 0; i < PMU_NUM_OFFCORE; i++) {
		if (p->offcore[i].dirty) {
			if (force)
				p->offcore[i].cur_known = false;
			rc = reg_set(p, &p->offcore[i], p->offcore[i].saved);
			KEEP(rc);
		}
	}
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (p->pmc[i].dirty) {
			if (force)
				p->pmc[i].cur_known = false;
			rc = pmc_set(p, i, p->pmc[i].saved);
			KEEP(rc);
		}
	}
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
		if (p->fixed_ctr[i].dirty) {
			if (force)
				p->fixed_ctr[i].cur_known = false;
			rc = fixed_ctr_set(p, i, p->fixed_ctr[i].saved);
			KEEP(rc);
		}
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
			rc = wr(p, MSR_IA32_PERF_GLOBAL_STATUS_RESET, clear);
			KEEP(rc);
		}
		if (set && p->caps.version >= 4) {
			rc = wr(p, MSR_IA32_PERF_GLOBAL_STATUS_SET, set);
			KEEP(rc);
		}
		p->status_pending = (p->status_pending & ~owned) | set;
	}
#undef KEEP
	p->armed = 0;
	p->may_count = false;
	for (unsigned i = 0; i < PMU_MAX_GP; i++)
		p->evtsel[i].dirty = p->pmc[i].dirty = false;
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		p->fixed_ctr[i].dirty = false;
	p->fixed_ctrl.dirty = p->global_ctrl.dirty = false;
	p->offcore[0].dirty = p->offcore[1].dirty = false;
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
	signal_pmu = p;
}

int
pmu_restore_from_signal(void)
{
	return signal_pmu ? restore(signal_pmu, true) : 0;
}
