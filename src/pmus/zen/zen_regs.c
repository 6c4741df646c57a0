/*
 * zen_regs.c - AMD's core PMU registers as data (zen_regs.h): the map a
 * core's CPUID gives, their names, the write rules and who holds a
 * counter.
 */
#include "pmus/zen/zen_regs.h"

#include <stdio.h>

#include "events/cpu.h"

unsigned
zen_reg_map(const struct pmu_caps *caps, struct zen_reg out[ZEN_MAX_REGS])
{
	unsigned counters = caps->gp_counters < ZEN_MAX_COUNTERS ? caps->gp_counters : ZEN_MAX_COUNTERS;
	int ext = caps->ext_counters;
	uint64_t own_bits = counters ? (1ull << counters) - 1 : 0;
	unsigned n = 0;

	/* Without PerfCtrExtCore only the four legacy counters exist. */
	if (!ext && counters > ZEN_LEGACY_COUNTERS)
		counters = ZEN_LEGACY_COUNTERS;
	if (caps->global_regs) {
		out[n++] = (struct zen_reg){ ZEN_MSR_GLOBAL_CTL, own_bits, -1, ZEN_ROLE_GLOBAL_CTL, 0 };
		out[n++] = (struct zen_reg){ ZEN_MSR_GLOBAL_STATUS, 0, -1, ZEN_ROLE_GLOBAL_STATUS, ZEN_NO_RESTORE };
		out[n++] = (struct zen_reg){ ZEN_MSR_GLOBAL_STATUS_CLR, own_bits, -1, ZEN_ROLE_GLOBAL_STATUS_CLR,
					     ZEN_NO_RESTORE };
	}
	for (unsigned i = 0; i < counters; i++)
		out[n++] = (struct zen_reg){ zen_ctl_msr(i, ext), ZEN_CTL_WRITABLE, (int)i, ZEN_ROLE_CTL, 1 };
	for (unsigned i = 0; i < counters; i++)
		out[n++] = (struct zen_reg){ zen_ctr_msr(i, ext), ZEN_COUNTER_MASK, (int)i, ZEN_ROLE_CTR, 2 };
	return n;
}

const struct zen_reg *
zen_reg_find(const struct zen_reg *map, unsigned n, uint32_t msr)
{
	for (unsigned i = 0; i < n; i++)
		if (map[i].msr == msr)
			return &map[i];
	return NULL;
}

const char *
zen_reg_name(uint32_t msr, char *buf, size_t size)
{
	if (msr >= ZEN_MSR_PERF_CTL0 && msr < ZEN_MSR_PERF_CTL0 + 2 * ZEN_MAX_COUNTERS)
		snprintf(buf, size, "%s%u", (msr - ZEN_MSR_PERF_CTL0) % 2 ? "PERF_CTR" : "PERF_CTL",
			 (msr - ZEN_MSR_PERF_CTL0) / 2);
	else if (msr >= ZEN_MSR_LEGACY_CTL0 && msr < ZEN_MSR_LEGACY_CTL0 + ZEN_LEGACY_COUNTERS)
		snprintf(buf, size, "PERF_CTL%u (legacy)", msr - ZEN_MSR_LEGACY_CTL0);
	else if (msr >= ZEN_MSR_LEGACY_CTR0 && msr < ZEN_MSR_LEGACY_CTR0 + ZEN_LEGACY_COUNTERS)
		snprintf(buf, size, "PERF_CTR%u (legacy)", msr - ZEN_MSR_LEGACY_CTR0);
	else if (msr == ZEN_MSR_GLOBAL_CTL)
		snprintf(buf, size, "PerfCntrGlobalCtl");
	else if (msr == ZEN_MSR_GLOBAL_STATUS)
		snprintf(buf, size, "PerfCntrGlobalStatus");
	else if (msr == ZEN_MSR_GLOBAL_STATUS_CLR)
		snprintf(buf, size, "PerfCntrGlobalStatusClr");
	else
		snprintf(buf, size, "MSR 0x%X", msr);
	return buf;
}

const char *
zen_write_refusal(const struct zen_reg *map, unsigned n, uint32_t msr, uint64_t value)
{
	const struct zen_reg *r = zen_reg_find(map, n, msr);
	uint64_t extra;

	if (!r)
		return "not one of this core's PMU registers (the allow-list is the CPUID's register map)";
	if (!r->writable)
		return "read only";
	extra = value & ~r->writable;
	if (!extra)
		return "";
	if (r->role == ZEN_ROLE_CTL) {
		if (extra & (ZEN_CTL_HOST_ONLY | ZEN_CTL_GUEST_ONLY))
			return "HostOnly/GuestOnly (bits 41/40) stay clear: pmustat counts in host and guest alike";
		if (extra & ZEN_CTL_INT)
			return "INT (bit 20): pmustat takes no overflow interrupt";
		return "a reserved bit of PERF_CTL (63:42, 39:36, 21 or 19)";
	}
	if (r->role == ZEN_ROLE_CTR)
		return "above the counter's 48 bits";
	return "a bit of a counter this core does not have";
}

enum zen_holder
zen_counter_holder(uint64_t ctl)
{
	if (!(ctl & (ZEN_CTL_EN | ZEN_CTL_EVENT_LO | ZEN_CTL_EVENT_HI | ZEN_CTL_UMASK)))
		return ZEN_HOLDER_NONE;
	/* Told from the registers, not from kernel.nmi_watchdog: the buddy detector holds no counter. */
	if (zen_ctl_event(ctl) == ZEN_EVENT_CYCLES && !(ctl & ZEN_CTL_UMASK) &&
	    (ctl & (ZEN_CTL_INT | ZEN_CTL_EN)) == (ZEN_CTL_INT | ZEN_CTL_EN))
		return ZEN_HOLDER_WATCHDOG;
	return ctl & ZEN_CTL_INT ? ZEN_HOLDER_PERF : ZEN_HOLDER_OTHER;
}
