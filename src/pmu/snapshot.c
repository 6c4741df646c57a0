/*
 * snapshot.c - see snapshot.h. Nothing here writes an MSR: the seam is
 * opened read-only, so even a bug could not change the PMU it inspects.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "events/arch_events.h"
#include "events/event_table.h"
#include "hw/hw.h"
#include "pmu/acr.h"
#include "pmu/pebs_enable.h"
#include "pmu/pmu.h"
#include "pmu/snapshot.h"
#include "base/err.h"

static int
read_failed(int cpu, uint32_t msr, int rc, struct pmustat_error **err)
{
	char name[40];

	return err_set(err, rc, "core %d: reading %s (0x%x) failed: %s; %s", cpu,
		       pmu_msr_name(msr, name, sizeof(name)), msr, strerror(-rc), hw_msr_hint(rc, false));
}

static int
rd(struct hw *hw, int cpu, uint32_t msr, uint64_t *val, struct pmustat_error **err)
{
	int rc = hw_rdmsr(hw, cpu, msr, val);

	return rc ? read_failed(cpu, msr, rc, err) : 0;
}

int
pmu_snapshot_read(struct hw *hw, int cpu, const struct pmu_caps *caps, struct pmu_snapshot *st,
		  struct pmustat_error **err)
{
	unsigned long reads = 0;
	uint32_t msr = 0;
	int rc;

	memset(st, 0, sizeof(*st));
	st->cpu = cpu;
	st->caps = *caps;
	st->gp_mask = caps->gp_mask & ((1u << PMU_MAX_GP) - 1);
	st->fixed_mask = caps->fixed_mask & ((1u << PMU_MAX_FIXED) - 1);
	if (caps->version < 2) {
		return err_set(err, -ENOTSUP, "core %d: architectural perfmon version %u has no IA32_PERF_GLOBAL_CTRL; pmustat needs version 2 or later",
			 cpu, caps->version);
	}
	rc = hw_msr_open(hw, cpu, false);
	if (rc) {
		return err_set(err, rc, "core %d: cannot open the MSR device: %s; %s", cpu, strerror(-rc),
			 hw_msr_hint(rc, false));
	}
	if ((rc = rd(hw, cpu, MSR_IA32_PERF_GLOBAL_CTRL, &st->global_ctrl, err)) ||
	    (rc = rd(hw, cpu, MSR_IA32_PERF_GLOBAL_STATUS, &st->global_status, err)))
		return rc;
	if (st->fixed_mask && (rc = rd(hw, cpu, MSR_IA32_FIXED_CTR_CTRL, &st->fixed_ctrl, err)))
		return rc;
	if (caps->version >= 4) {
		rc = rd(hw, cpu, MSR_IA32_PERF_GLOBAL_INUSE, &st->global_inuse, err);
		if (rc)
			return rc;
		st->has_inuse = true;
	}
	if ((rc = pebs_enable_read(hw, cpu, caps, &st->pebs_enable, &msr, &reads)) ||
	    (rc = acr_cfg_b_read(hw, cpu, caps, st->acr_cfg_b, &msr, &reads)))
		return read_failed(cpu, msr, rc, err);
	if (caps->ds && caps->pdcm && (rc = rd(hw, cpu, MSR_IA32_PERF_CAPABILITIES, &st->perf_capabilities, err)))
		return rc;
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (!(st->gp_mask & (1u << i)))
			continue;
		if ((rc = rd(hw, cpu, msr_evtsel(i), &st->evtsel[i], err)) ||
		    (rc = rd(hw, cpu, msr_pmc(i), &st->pmc[i], err)))
			return rc;
	}
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
		if (!(st->fixed_mask & (1u << i)))
			continue;
		if ((rc = rd(hw, cpu, msr_fixed_ctr(i), &st->fixed_ctr[i], err)))
			return rc;
	}
	return 0;
}

void
pmu_snapshot_occupancy(const struct pmu_snapshot *st, const struct pmu_owner_hints *hints,
		       struct pmu_occupancy *out)
{
	struct pmu_owner_regs regs;

	memset(&regs, 0, sizeof(regs));
	regs.gp_mask = st->gp_mask;
	regs.fixed_mask = st->fixed_mask;
	memcpy(regs.evtsel, st->evtsel, sizeof(regs.evtsel));
	regs.fixed_ctrl = st->fixed_ctrl;
	regs.inuse = st->has_inuse ? st->global_inuse : 0;
	regs.pebs_enable = st->pebs_enable;
	memcpy(regs.acr_cfg_b, st->acr_cfg_b, sizeof(regs.acr_cfg_b));
	regs.pebs_baseline = st->perf_capabilities & PERF_CAP_PEBS_BASELINE;
	regs.perf_metrics = st->perf_capabilities & PERF_CAP_PERF_METRICS;
	pmu_owner_scan(&regs, hints, out);
}

void
pmu_evtsel_decode(uint64_t v, struct pmu_evtsel_fields *f)
{
	f->event = (uint8_t)(v & 0xff);
	f->umask = (uint8_t)((v >> 8) & 0xff);
	f->cmask = (uint8_t)((v >> 24) & 0xff);
	f->umask2 = (uint8_t)((v >> 40) & 0xff);
	f->usr = v & EVTSEL_USR;
	f->os = v & EVTSEL_OS;
	f->edge = v & EVTSEL_EDGE;
	f->pc = v & EVTSEL_PC;
	f->intr = v & EVTSEL_INT;
	f->any = v & EVTSEL_ANY;
	f->en = v & EVTSEL_EN;
	f->inv = v & EVTSEL_INV;
	f->eq = v & EVTSEL_EQ;
}

static bool
desc_matches(const struct event_desc *d, const struct pmu_evtsel_fields *f)
{
	bool code = d->code == f->event && d->umask == f->umask;

	if (d->fixed >= 0)
		return false;
	for (unsigned k = 0; !code && k < d->n_extra; k++)
		code = d->extra[k].code == f->event && d->extra[k].umask == f->umask;
	return code && d->cmask == f->cmask && d->inv == f->inv && d->edge == f->edge &&
	       d->any_thread == f->any && d->umask_ext == f->umask2 && d->equal == f->eq;
}

const char *
pmu_snapshot_event_name(const struct event_table *table, uint64_t evtsel, char *buf, size_t size)
{
	struct pmu_evtsel_fields f;
	const struct event_desc *alias = NULL;

	if (evtsel == 0) {
		snprintf(buf, size, "%s", "");
		return buf;
	}
	pmu_evtsel_decode(evtsel, &f);
	for (size_t i = 0; table && i < event_table_count(table); i++) {
		const struct event_desc *d = event_table_get(table, i);

		if (!desc_matches(d, &f))
			continue;
		/* Prefer the current name to a deprecated alias of it. */
		if (!(d->flags & EVENT_DESC_DEPRECATED)) {
			snprintf(buf, size, "%s", d->name);
			return buf;
		}
		if (!alias)
			alias = d;
	}
	if (alias) {
		snprintf(buf, size, "%s", alias->name);
		return buf;
	}
	if (!f.cmask && !f.inv && !f.edge && !f.any && !f.umask2 && !f.eq) {
		for (unsigned i = 0; i < arch_event_count(); i++) {
			const struct arch_event *a = arch_event_get(i);

			if (a->code == f.event && a->umask == f.umask) {
				snprintf(buf, size, "%s", a->key);
				return buf;
			}
		}
	}
	snprintf(buf, size, "raw");
	return buf;
}

const char *
pmu_snapshot_fixed_event_name(const struct event_table *table, unsigned i)
{
	static const char *const arch[PMU_MAX_FIXED] = {
		"INST_RETIRED.ANY", "CPU_CLK_UNHALTED.THREAD", "CPU_CLK_UNHALTED.REF_TSC", "TOPDOWN.SLOTS",
		/* Skymont's, as the SDM's architectural events 0x73/0x00, 0x9C/0x01, 0xC2/0x02. */
		"TOPDOWN_BAD_SPECULATION.ALL", "TOPDOWN_FE_BOUND.ALL", "TOPDOWN_RETIRING.ALL",
	};

	for (size_t k = 0; table && k < event_table_count(table); k++) {
		const struct event_desc *d = event_table_get(table, k);

		if (d->fixed == (int)i && !(d->flags & EVENT_DESC_DEPRECATED))
			return d->name;
	}
	return i < PMU_MAX_FIXED ? arch[i] : "raw";
}
