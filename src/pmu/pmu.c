/*
 * pmu.c - save, program, enable, read and restore one core's PMU.
 *
 * Every register pmustat may write is a struct pmu_reg in the struct pmu
 * (pmu_impl.h): its value when found, what pmustat last wrote, and whether
 * it was written at all. A run's writes come as a value (program.h); each
 * is checked against what pmustat may touch before any is written, then
 * applied to the register as it is, changing only the write's mask. The
 * restore (pmu_regs.c) walks the slots and writes the saved values back
 * through the seam, nothing else, so it works from a signal handler.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "events/event.h"
#include "hw/hw.h"
#include "pmu/acr.h"
#include "pmu/delta.h"
#include "pmu/evtsel.h"
#include "pmu/msr.h"
#include "pmu/pebs_enable.h"
#include "pmu/pmu_impl.h"
#include "pmu/pmu_regs.h"

/*
 * pmu_open_at(), the counters' values read only when @values (else
 * pmu_save_counters() later); IA32_PERF_CAPABILITIES taken from @like when
 * given (a core of the same type: the register describes the core type).
 */
static int
open_at(struct pmu *p, struct hw *hw, int cpu, const struct pmu_caps *caps, bool uses_offcore,
	const struct pmu_owner_hints *hints, bool values, const struct pmu *like, struct pmustat_error **err)
{
	struct pmu_owner_regs regs;
	uint32_t msr = 0;
	int rc;

	memset(p, 0, sizeof(*p));
	p->hw = hw;
	p->cpu = cpu;
	p->caps = *caps;
	p->gp_mask = caps->gp_mask & ((1u << PMU_MAX_GP) - 1);
	p->fixed_mask = caps->fixed_mask & ((1u << PMU_MAX_FIXED) - 1);
	if (caps->family && caps->family->open)
		return caps->family->open(p, hints, err);
	if (caps->version < 2)
		return err_set(err, -ENOTSUP, "core %d: architectural perfmon version %u has no IA32_PERF_GLOBAL_CTRL; pmustat needs version 2 or later",
			       cpu, caps->version);
	rc = hw_msr_open(hw, cpu, true);
	if (rc)
		return err_set(err, rc, "core %d: cannot open the MSR device for writing: %s; %s", cpu,
			       strerror(-rc), hw_msr_hint(rc, true));
	if (caps->pdcm && like && like->caps.pdcm) {
		p->perf_capabilities = like->perf_capabilities;
		p->full_width = like->full_width;
	} else if (caps->pdcm) {
		rc = pmu_rd(p, MSR_IA32_PERF_CAPABILITIES, &p->perf_capabilities);
		if (rc)
			return pmu_fail(p, rc, "reading", MSR_IA32_PERF_CAPABILITIES, false, err);
		p->full_width = p->perf_capabilities & PERF_CAP_FW_WRITE;
	}
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (!(p->gp_mask & (1u << i)))
			continue;
		rc = pmu_reg_load(p, &p->evtsel[i], msr_evtsel(i));
		if (rc)
			return pmu_fail(p, rc, "reading", msr_evtsel(i), false, err);
	}
	if (values && (rc = pmu_save_counters(p, p->gp_mask, p->fixed_mask, false, err)))
		return rc;
	if (p->fixed_mask) {
		rc = pmu_reg_load(p, &p->fixed_ctrl, MSR_IA32_FIXED_CTR_CTRL);
		if (rc)
			return pmu_fail(p, rc, "reading", MSR_IA32_FIXED_CTR_CTRL, false, err);
	}
	rc = pmu_reg_load(p, &p->global_ctrl, MSR_IA32_PERF_GLOBAL_CTRL);
	if (rc)
		return pmu_fail(p, rc, "reading", MSR_IA32_PERF_GLOBAL_CTRL, false, err);
	rc = pmu_rd(p, MSR_IA32_PERF_GLOBAL_STATUS, &p->status_saved);
	if (rc)
		return pmu_fail(p, rc, "reading", MSR_IA32_PERF_GLOBAL_STATUS, false, err);
	p->status_pending = p->status_saved;
	/* GLOBAL_INUSE is not read: its counter bits are EVTSELn[7:0] != 0 and fixed fields != 0 (SDM). */
	/* Saved whenever it exists: a run that reads it clears it first. */
	if (pmu_has_perf_metrics(p)) {
		rc = pmu_reg_load(p, &p->perf_metrics, MSR_IA32_PERF_METRICS);
		if (rc)
			return pmu_fail(p, rc, "reading", MSR_IA32_PERF_METRICS, false, err);
	}
	rc = pebs_enable_read(p->hw, p->cpu, caps, &p->pebs_enable, &msr, &p->msr_reads);
	if (!rc)
		rc = acr_cfg_b_read(p->hw, p->cpu, caps, p->acr_cfg_b, &msr, &p->msr_reads);
	if (rc)
		return pmu_fail(p, rc, "reading", msr, false, err);
	if (uses_offcore) {
		for (unsigned i = 0; i < PMU_NUM_OFFCORE; i++) {
			rc = pmu_reg_load(p, &p->offcore[i], MSR_OFFCORE_RSP_0 + i);
			if (rc)
				return pmu_fail(p, rc, "reading", MSR_OFFCORE_RSP_0 + i, false, err);
		}
	}
	/* Who holds what: owner.h's rule, on the registers as found. */
	memset(&regs, 0, sizeof(regs));
	regs.gp_mask = p->gp_mask;
	regs.fixed_mask = p->fixed_mask;
	for (unsigned i = 0; i < PMU_MAX_GP; i++)
		regs.evtsel[i] = p->evtsel[i].saved;
	regs.fixed_ctrl = p->fixed_ctrl.saved;
	regs.inuse = 0;	/* nothing the EVTSELs and FIXED_CTR_CTRL above do not say */
	regs.pebs_enable = p->pebs_enable;
	memcpy(regs.acr_cfg_b, p->acr_cfg_b, sizeof(regs.acr_cfg_b));
	regs.pebs_baseline = p->perf_capabilities & PERF_CAP_PEBS_BASELINE;
	regs.perf_metrics = pmu_has_perf_metrics(p);
	pmu_owner_scan(&regs, hints, &p->occ);
	return 0;
}

int
pmu_open_at(struct pmu *p, struct hw *hw, int cpu, const struct pmu_caps *caps, bool uses_offcore,
	    const struct pmu_owner_hints *hints, struct pmustat_error **err)
{
	return open_at(p, hw, cpu, caps, uses_offcore, hints, true, NULL, err);
}

static int
open_new(struct pmu **out, struct hw *hw, int cpu, const struct pmu_caps *caps, bool uses_offcore,
	 const struct pmu_owner_hints *hints, bool values, const struct pmu *like, struct pmustat_error **err)
{
	struct pmu *p = calloc(1, sizeof(*p));
	int rc;

	*out = NULL;
	if (!p)
		return err_set(err, -ENOMEM, "out of memory");
	rc = open_at(p, hw, cpu, caps, uses_offcore, hints, values, like, err);
	if (rc) {
		free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int
pmu_open(struct pmu **out, struct hw *hw, int cpu, const struct pmu_caps *caps, bool uses_offcore,
	 const struct pmu_owner_hints *hints, struct pmustat_error **err)
{
	return open_new(out, hw, cpu, caps, uses_offcore, hints, true, NULL, err);
}

int
pmu_open_lean(struct pmu **out, struct hw *hw, int cpu, const struct pmu_caps *caps, bool uses_offcore,
	      const struct pmu_owner_hints *hints, const struct pmu *like, struct pmustat_error **err)
{
	return open_new(out, hw, cpu, caps, uses_offcore, hints, false, like, err);
}

void
pmu_close(struct pmu *p)
{
	free(p);
}

const struct pmu_occupancy *
pmu_occupancy(const struct pmu *p)
{
	return &p->occ;
}

uint64_t
pmu_found_global_ctrl(const struct pmu *p)
{
	return p->global_ctrl.saved;
}

uint32_t
pmu_free_gp(const struct pmu *p)
{
	return (p->gp_mask & ~p->occ.busy_gp) | p->taken_gp;
}

uint32_t
pmu_free_fixed(const struct pmu *p)
{
	return (p->fixed_mask & ~p->occ.busy_fixed) | p->taken_fixed;
}

void
pmu_take_busy(struct pmu *p)
{
	p->taken_gp = p->occ.busy_gp;
	p->taken_fixed = p->occ.busy_fixed;
}

/* Fields of IA32_FIXED_CTR_CTRL of the fixed counters @fixed. */
static uint64_t
fields_of(uint32_t fixed)
{
	uint64_t m = 0;

	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		if (fixed & (1u << i))
			m |= 0xfull << (4 * i);
	return m;
}

/*
 * May @w be written on @p? "" if so, else why not. Only a counter pmustat
 * holds, only its bits and fields of a shared register, no reserved bit.
 */
static const char *
refusal(const struct pmu *p, const struct pmu_write *w)
{
	uint32_t gp = pmu_free_gp(p), fixed = pmu_free_fixed(p);
	uint64_t set = w->value & w->mask & ~w->found;
	/* PERF_METRICS goes with fixed counter 3: ours when that counter is. */
	bool metrics_ours = pmu_has_perf_metrics(p) && (fixed & (1u << PERF_METRICS_FIXED));
	uint64_t ours = pmu_global_bits(gp, fixed) | (metrics_ours ? GLOBAL_PERF_METRICS_BIT : 0);

	if (p->caps.family && p->caps.family->refusal)
		return p->caps.family->refusal(p, w);
	if (!pmu_msr_allowed(p, w->msr))
		return "not an MSR pmustat writes on this core";
	if (w->clear_ovf)
		return w->msr == MSR_IA32_PERF_GLOBAL_STATUS_RESET && !(w->mask & ~ours) ?
			       "" : "overflow bits of counters pmustat does not hold";
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (w->msr != msr_evtsel(i) && w->msr != msr_pmc(i))
			continue;
		if (!(gp & (1u << i)))
			return "a counter somebody else holds";
		if (w->msr == msr_evtsel(i))
			return (set & ~evtsel_writable_mask(&p->caps)) ? "reserved bits set" : "";
		return (set & ~delta_width_mask(p->caps.gp_width)) ? "wider than the counter" : "";
	}
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
		if (w->msr != msr_fixed_ctr(i))
			continue;
		if (!(fixed & (1u << i)))
			return "a counter somebody else holds";
		return (set & ~delta_width_mask(p->caps.fixed_width)) ? "wider than the counter" : "";
	}
	switch (w->msr) {
	case MSR_IA32_FIXED_CTR_CTRL: {
		uint64_t ok = 0;

		if (w->mask & ~fields_of(fixed))
			return "fields of counters somebody else holds";
		for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
			if (fixed & (1u << i))
				ok |= fixed_ctrl_writable_mask(&p->caps, i);
		return (set & ~ok) ? "reserved bits set" : "";
	}
	case MSR_IA32_PERF_GLOBAL_CTRL:
		return (w->mask & ~ours) ? "enable bits of counters somebody else holds" : "";
	case MSR_IA32_PERF_METRICS:
		return metrics_ours ? "" : "IA32_PERF_METRICS of a fixed counter 3 somebody else holds";
	case MSR_OFFCORE_RSP_0:
	case MSR_OFFCORE_RSP_1:
		if (p->offcore_lost & (1u << (w->msr - MSR_OFFCORE_RSP_0)))
			return "an offcore MSR another user rewrote during an earlier run, theirs now (count the later runs' events in a pmustat run of their own)";
		return p->offcore[w->msr - MSR_OFFCORE_RSP_0].msr ? "" : "an offcore MSR pmustat did not save";
	default:
		return "not a register a run programs";
	}
}

static int
check_all(const struct pmu *p, const struct pmu_write *w, unsigned n, struct pmustat_error **err)
{
	char name[40];

	for (unsigned i = 0; i < n; i++) {
		const char *why = refusal(p, &w[i]);

		if (why[0])
			pmu_reg_name(p, w[i].msr, name, sizeof(name));
		if (why[0])
			return err_set(err, -EPERM,
				       "core %d: refusing to write %s (0x%x) with 0x%llx (mask 0x%llx): %s; nothing was written",
				       p->cpu, name, w[i].msr,
				       (unsigned long long)w[i].value, (unsigned long long)w[i].mask, why);
	}
	return 0;
}

/* What @w makes of @reg's value now. */
static uint64_t
apply(const struct pmu_reg *r, uint64_t now, const struct pmu_write *w)
{
	return (now & ~w->mask) | (w->value & w->mask & ~w->found) | (r->saved & w->found);
}

/* One write of the program step. */
static int
write_one(struct pmu *p, const struct pmu_write *w, struct pmustat_error **err)
{
	struct pmu_reg *r;
	uint64_t v;
	int rc;

	if (w->clear_ovf) {
		uint64_t clear = w->mask & p->status_pending;

		if (!clear)
			return 0;
		rc = pmu_wr(p, MSR_IA32_PERF_GLOBAL_STATUS_RESET, clear);
		if (rc)
			return pmu_fail(p, rc, "writing", MSR_IA32_PERF_GLOBAL_STATUS_RESET, true, err);
		p->status_pending &= ~clear;
		return 0;
	}
	r = pmu_reg_of(p, w->msr);
	if (!r)
		return err_set(err, -EINVAL, "core %d: MSR 0x%x was not saved", p->cpu, w->msr);
	/* A shared register as it is now: another user may have changed it since. */
	if (w->mask != UINT64_MAX) {
		rc = pmu_rd(p, w->msr, &v);
		if (rc)
			return pmu_fail(p, rc, "reading", w->msr, false, err);
		r->cur = v;
		r->cur_known = true;
	}
	r->mine |= w->mask;
	v = apply(r, r->cur_known ? r->cur : r->saved, w);
	/* A family's plain counters are plain saved registers (they may overlap IA32_FIXED_CTRx's addresses). */
	for (unsigned i = 0; !pmu_plain_counters(p) && i < PMU_MAX_GP; i++) {
		if (w->msr == msr_pmc(i)) {
			rc = pmu_pmc_set(p, i, v);
			return rc < 0 ? pmu_fail(p, rc, "writing", p->full_width ? msr_a_pmc(i) : w->msr, true, err) : 0;
		}
	}
	for (unsigned i = 0; !pmu_plain_counters(p) && i < PMU_MAX_FIXED; i++) {
		if (w->msr == msr_fixed_ctr(i)) {
			rc = pmu_fixed_ctr_set(p, i, v);
			return rc ? pmu_fail(p, rc, "writing", w->msr, true, err) : 0;
		}
	}
	/* It moves with FIXED_CTR3 and the counting: never skip its clear as "already 0". */
	if (r == &p->perf_metrics)
		r->cur_known = false;
	/* A plain counter will count (or was written): restore it either way. */
	if (p->caps.family && w->msr - p->caps.family->plain_counter_msr < p->caps.family->plain_counters)
		r->dirty = true;
	rc = pmu_reg_set(p, r, v);
	return rc ? pmu_fail(p, rc, "writing", w->msr, true, err) : 0;
}

/* The absolute values of a sequence, from the registers as programmed now. */
static unsigned
make_sequence(struct pmu *p, const struct pmu_write *w, unsigned n, struct pmu_seq_write *seq)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n && k < PMU_SEQ_MAX; i++) {
		struct pmu_reg *r = pmu_reg_of(p, w[i].msr);

		if (!r)
			continue;
		seq[k].msr = w[i].msr;
		seq[k].val = apply(r, r->cur_known ? r->cur : r->saved, &w[i]);
		seq[k].mask = w[i].mask;
		r->mine |= w[i].mask;
		k++;
	}
	return k;
}

/*
 * Whether @w, the program step's write of a run counter's whole EVTSEL, is
 * left to the enable (which writes it whole, EN set): a free counter whose
 * EVTSEL holds its saved value, EN clear, counts nothing until then.
 */
static bool
left_to_enable(const struct pmu *p, const struct pmu_program *prog, const struct pmu_write *w)
{
	for (unsigned c = 0; !pmu_plain_counters(p) && c < PMU_MAX_GP; c++) {
		const struct pmu_reg *r = &p->evtsel[c];

		if (w->msr != msr_evtsel(c))
			continue;
		return (prog->gp & (1u << c)) && !(p->taken_gp & (1u << c)) && w->mask == UINT64_MAX && !w->found &&
		       !(r->saved & EVTSEL_EN) && r->cur_known && r->cur == r->saved;
	}
	return false;
}

int
pmu_program(struct pmu *p, const struct pmu_program *prog, struct pmustat_error **err)
{
	int rc;

	rc = check_all(p, prog->program, prog->nprogram, err);
	if (!rc)
		rc = check_all(p, prog->enable, prog->nenable, err);
	if (!rc)
		rc = check_all(p, prog->disable, prog->ndisable, err);
	if (!rc)
		rc = pmu_unfreeze_now(p, err);
	if (rc)
		return rc;
	p->mode = prog->mode;
	for (unsigned i = 0; i < prog->nprogram; i++) {
		if (left_to_enable(p, prog, &prog->program[i]))
			continue;
		rc = write_one(p, &prog->program[i], err);
		if (rc)
			return rc;
	}
	/* From the go on, the child may make our counters overflow. */
	p->status_pending |= pmu_run_bits(prog);
	p->run_perf_metrics = prog->perf_metrics;
	/* The sequences the child and the parent write, and what they will write to. */
	p->may_count = true;
	/* The enable writes, even when the program step wrote nothing: restore then too. */
	p->armed = 1;
	p->run_gp = prog->gp;
	p->run_fixed = prog->fixed;
	memcpy(p->run_offcore_gp, prog->offcore_gp, sizeof(p->run_offcore_gp));
	memcpy(p->run_offcore_val, prog->offcore_val, sizeof(p->run_offcore_val));
	p->run_nb = prog->nb;
	p->n_enable = make_sequence(p, prog->enable, prog->nenable, p->enable_seq);
	p->n_disable = make_sequence(p, prog->disable, prog->ndisable, p->disable_seq);
	/*
	 * A free counter's event select goes straight back to its saved value
	 * (EN clear) at the disable: that stops it as well, and the restore
	 * has nothing left to write there.
	 */
	for (unsigned i = 0; i < p->n_disable; i++)
		for (unsigned c = 0; c < PMU_MAX_GP; c++)
			if (p->disable_seq[i].msr == msr_evtsel(c) && !(p->taken_gp & (1u << c)) &&
			    !(p->evtsel[c].saved & EVTSEL_EN))
				p->disable_seq[i].val = p->evtsel[c].saved;
	for (unsigned i = 0; i < p->n_enable; i++)
		pmu_reg_of(p, p->enable_seq[i].msr)->dirty = true;
	return 0;
}

int
pmu_enable(void *arg)
{
	struct pmu *p = arg;

	for (unsigned i = 0; i < p->n_enable; i++) {
		const struct pmu_seq_write *w = &p->enable_seq[i];
		uint64_t v = w->val, now;
		int rc;

		/* A shared register: only our bits, the others as they are now. */
		if (w->mask != UINT64_MAX) {
			rc = hw_rdmsr(p->hw, p->cpu, w->msr, &now);
			if (rc)
				return rc;
			v = (now & ~w->mask) | (w->val & w->mask);
		}
		rc = hw_wrmsr(p->hw, p->cpu, w->msr, v);
		if (rc)
			return rc;
	}
	return 0;
}

void
pmu_mark_enabled(struct pmu *p)
{
	p->msr_writes += p->n_enable;
	for (unsigned i = 0; i < p->n_enable; i++) {
		if (p->enable_seq[i].mask != UINT64_MAX)
			p->msr_reads++;	/* pmu_enable() read the shared register first */
		struct pmu_reg *r = pmu_reg_of(p, p->enable_seq[i].msr);

		if (r) {
			r->cur = p->enable_seq[i].val;
			/* A shared register holds other users' bits too: read it before the next write. */
			r->cur_known = p->enable_seq[i].mask == UINT64_MAX;
			r->dirty = true;
		}
	}
	for (unsigned i = 0; i < PMU_MAX_GP; i++)
		if (p->run_gp & (1u << i))
			p->pmc[i].cur_known = false;
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		if (p->run_fixed & (1u << i))
			p->fixed_ctr[i].cur_known = false;
	if (p->run_perf_metrics)
		p->perf_metrics.cur_known = false;
	for (unsigned i = 0; i < NB_COUNTERS; i++)
		if (p->run_nb & (1u << i))
			p->nb_ctr[i].cur_known = false;
}

int
pmu_disable(struct pmu *p, struct pmustat_error **err)
{
	uint32_t failed = 0;
	uint64_t keeps = p->caps.family ? p->caps.family->disable_keeps : 0;
	int first = 0, rc;

	p->global_ctrl_fresh = false;
	rc = p->caps.family && p->caps.family->before_disable ? p->caps.family->before_disable(p, &failed)
							       : pmu_find_taken(p, &failed);
	if (rc)
		return pmu_fail(p, rc, "reading", failed, false, err);
	/* Always written: the child may or may not have enabled. */
	for (unsigned i = 0; i < p->n_disable; i++) {
		struct pmu_reg *r = pmu_reg_of(p, p->disable_seq[i].msr);
		uint64_t val = p->disable_seq[i].val, mask = p->disable_seq[i].mask, now;
		bool fresh = r && p->global_ctrl_fresh && r == &p->global_ctrl;

		/* A counter another user took: its registers are theirs. */
		if (!mask)
			continue;
		/* Only the next access may use that read: nothing may come between. */
		p->global_ctrl_fresh = false;

		/* What the family's disable keeps as it is (a sticky overflow flag pmu_read() must still see). */
		if (keeps && pmu_rd(p, p->disable_seq[i].msr, &now) == 0)
			val = (val & ~keeps) | (now & keeps);
		if (r && !fresh)
			r->cur_known = false;
		if (fresh)
			rc = pmu_reg_set(p, r, (r->cur & ~mask) | (val & mask));
		else
			rc = r ? pmu_reg_set_bits(p, r, val, mask) : pmu_wr(p, p->disable_seq[i].msr, val);
		if (rc && !first)
			first = pmu_fail(p, rc, "writing", p->disable_seq[i].msr, true, err);
	}
	if (!first)
		p->may_count = false;
	return first;
}

int
pmu_read(struct pmu *p, const struct sched_slot *slots, unsigned n, unsigned run, bool use_rdpmc,
	 struct pmu_count *counts, struct pmustat_error **err)
{
	uint64_t status, metrics = 0, bits = pmu_global_bits(p->run_gp, p->run_fixed);
	int rc;

	for (unsigned k = 0; k < n; k++) {
		counts[k].taken = counts[k].stopped = counts[k].refiltered = false;
		counts[k].ctl = 0;
	}
	if (p->caps.family && p->caps.family->read)
		return p->caps.family->read(p, slots, n, run, use_rdpmc, counts, err);
	if (p->run_perf_metrics)
		bits |= GLOBAL_PERF_METRICS_BIT;
	/* The overflow bits of a counter another user took are theirs. */
	bits &= ~pmu_global_bits(p->lost_gp, p->lost_fixed);
	if (p->lost_fixed & (1u << PERF_METRICS_FIXED))
		bits &= ~GLOBAL_PERF_METRICS_BIT;
	rc = pmu_rd(p, MSR_IA32_PERF_GLOBAL_STATUS, &status);
	if (rc)
		return pmu_fail(p, rc, "reading", MSR_IA32_PERF_GLOBAL_STATUS, false, err);
	/* The top-down fractions of this run's slots, once, after the disable. */
	if (p->run_perf_metrics) {
		rc = pmu_rd(p, MSR_IA32_PERF_METRICS, &metrics);
		if (rc)
			return pmu_fail(p, rc, "reading", MSR_IA32_PERF_METRICS, false, err);
		p->perf_metrics.cur = metrics;
		p->perf_metrics.cur_known = true;
	}
	for (unsigned k = 0; k < n; k++) {
		const struct sched_slot *s = &slots[k];
		struct pmu_reg *r;
		uint64_t raw, bit;
		unsigned width;
		uint32_t msr, ecx;

		if (s->run != run || s->kind == SCHED_NONE)
			continue;
		if (s->kind == SCHED_GP && ((p->lost_gp | p->stopped_gp) & (1u << s->index))) {
			counts[k].taken = p->lost_gp & (1u << s->index);
			counts[k].stopped = !counts[k].taken;
			counts[k].ctl = p->lost_ctl[s->index];
		} else if (s->kind == SCHED_GP && (p->refiltered_gp & (1u << s->index))) {
			for (unsigned o = 0; o < PMU_NUM_OFFCORE; o++)
				if (p->run_offcore_gp[o] & (1u << s->index)) {
					counts[k].refiltered = true;
					counts[k].filter_msr = MSR_OFFCORE_RSP_0 + o;
					counts[k].filter_rsp = p->refiltered_rsp[o];
				}
		} else if (s->kind != SCHED_GP) {
			/* A byte of PERF_METRICS goes with fixed counter 3. */
			unsigned f = s->kind == SCHED_METRICS ? PERF_METRICS_FIXED : s->index;

			if ((p->lost_fixed | p->stopped_fixed) & (1u << f)) {
				counts[k].taken = p->lost_fixed & (1u << f);
				counts[k].stopped = !counts[k].taken;
				counts[k].ctl = p->lost_fixed_ctl[f];
			}
		}
		if (s->kind == SCHED_METRICS) {
			counts[k].raw = metrics;
			/* GLOBAL_STATUS[48]: the metrics' own counts overflowed; the bytes are not the run's. */
			counts[k].overflowed = status & bits & GLOBAL_PERF_METRICS_BIT;
			counts[k].frozen = p->caps.version >= 4 && (status & GLOBAL_STATUS_CTR_FRZ);
			counts[k].value = s->index < 8 ? (metrics >> (8 * s->index)) & 0xff : 0;
			continue;
		}
		if (s->kind == SCHED_FIXED) {
			msr = msr_fixed_ctr(s->index);
			ecx = RDPMC_FIXED | s->index;
			bit = GLOBAL_FIXED_BIT(s->index);
			width = p->caps.fixed_width;
			r = &p->fixed_ctr[s->index];
		} else {
			msr = msr_pmc(s->index);
			ecx = s->index;
			bit = 1ull << s->index;
			width = p->caps.gp_width;
			r = &p->pmc[s->index];
		}
		if (use_rdpmc) {
			p->rdpmc_reads++;
			rc = hw_rdpmc(p->hw, p->cpu, ecx, &raw);
			if (rc)
				return err_set(err, rc, "core %d: rdpmc 0x%x failed: %s", p->cpu, ecx, strerror(-rc));
		} else {
			rc = pmu_rd(p, msr, &raw);
			if (rc)
				return pmu_fail(p, rc, "reading", msr, false, err);
		}
		counts[k].raw = raw;
		counts[k].overflowed = status & bit;
		counts[k].frozen = p->caps.version >= 4 && (status & GLOBAL_STATUS_CTR_FRZ);
		counts[k].value = delta_count(0, raw, width, counts[k].overflowed);
		r->cur = raw & delta_width_mask(width);
		r->cur_known = true;
	}
	if (status & bits) {
		rc = pmu_wr(p, MSR_IA32_PERF_GLOBAL_STATUS_RESET, status & bits);
		if (rc)
			return pmu_fail(p, rc, "writing", MSR_IA32_PERF_GLOBAL_STATUS_RESET, true, err);
	}
	/* Disabled and cleared: nothing of ours can overflow any more. */
	p->status_pending &= ~bits;
	return 0;
}

int
pmu_clear(struct pmu *p, uint32_t gp, uint32_t fixed, struct pmustat_error **err)
{
	uint64_t clear = pmu_global_bits(gp & p->gp_mask, fixed & p->fixed_mask);
	uint64_t fc = p->fixed_ctrl.saved & ~fields_of(fixed);
	int rc;

	if (p->caps.family && p->caps.family->clear)
		return p->caps.family->clear(p, gp, err);

#define WR(msr, v)                                                                         \
	do {                                                                               \
		rc = pmu_wr(p, (msr), (v));                                                \
		if (rc)                                                                    \
			return pmu_fail(p, rc, "writing", (msr), true, err);               \
	} while (0)
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (!(gp & p->gp_mask & (1u << i)))
			continue;
		WR(msr_evtsel(i), 0);
		WR(msr_pmc(i), 0);
	}
	if (p->fixed_mask && fc != p->fixed_ctrl.saved)
		WR(MSR_IA32_FIXED_CTR_CTRL, fc);
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		if (fixed & p->fixed_mask & (1u << i))
			WR(msr_fixed_ctr(i), 0);
	/* Write 1 to clear. */
	if (clear & p->status_saved)
		WR(MSR_IA32_PERF_GLOBAL_STATUS_RESET, clear & p->status_saved);
#undef WR
	/* This is the new state: nothing to put back. */
	p->armed = 0;
	return 0;
}

int
pmu_write_probe(struct hw *hw, int cpu, const struct pmu_caps *caps)
{
	if (caps->version < 2)
		return -ENOTSUP;
	return hw_wrmsr(hw, cpu, MSR_IA32_PERF_GLOBAL_STATUS_RESET, 0);
}

void
pmu_stats(const struct pmu *p, unsigned long *msr_reads, unsigned long *msr_writes,
	  unsigned long *rdpmc_reads)
{
	*msr_reads = p->msr_reads;
	*msr_writes = p->msr_writes;
	*rdpmc_reads = p->rdpmc_reads;
}

enum pmu_enable_mode
pmu_mode(const struct pmu *p)
{
	return p->mode;
}
