/*
 * zen_family.c - AMD's Zen core PMU as a PMU family: detection from CPUID
 * (APM vol. 2, "Performance Monitoring Counters"; Linux
 * arch/x86/events/amd/core.c amd_pmu_init()) and what `info` says of it.
 *
 * The counters are never assumed from the model: 0x8000_0022 EBX[3:0]
 * with PerfMonV2, six with PerfCtrExtCore (0x8000_0001 ECX[23]), else the
 * four legacy ones. pmustat does not program this PMU through the MSRs
 * yet, so a CPU of this family cannot count with the MSR backend; the
 * family says why, and what to use instead.
 */
#include "pmus/zen/zen_family.h"

#include <jansson.h>
#include <libcpuid/libcpuid.h>
#include <stdio.h>
#include <string.h>

#include "events/cpu.h"
#include "pmus/zen/zen_regs.h"

/* libcpuid's register order within a leaf. */
enum { R_EAX, R_EBX, R_ECX, R_EDX };

/* Families 17h (Zen 1, 2), 19h (Zen 3, 4), 1Ah (Zen 5). */
static bool
zen_cpu_family(unsigned family)
{
	return family == 0x17 || family == 0x19 || family == 0x1a;
}

static const char *
counters_from(const struct pmu_caps *p)
{
	if (p->global_regs)
		return "CPUID 0x8000_0022 EBX[3:0] (PerfMonV2)";
	if (p->ext_counters)
		return "CPUID 0x8000_0001 ECX[23] (PerfCtrExtCore)";
	return "the four legacy counters (no PerfCtrExtCore, no PerfMonV2)";
}

/* What the family found, for messages: "AMD family 19h core PMU: 6 counters x 48 bits, PerfMonV2". */
static void
describe(const struct cpu_info *c, char *buf, size_t size)
{
	const struct pmu_caps *p = &c->pmu;

	snprintf(buf, size, "AMD family %Xh core PMU: %u counters \u00d7 %u bits (%s)%s", c->family, p->gp_counters,
		 p->gp_width, counters_from(p), p->global_regs ? ", global registers" : "");
}

static void
set_why(struct cpu_info *out)
{
	char found[200];

	if (out->hypervisor && !out->pmu.ext_counters && !out->pmu.global_regs) {
		/*
		 * KVM without a virtual PMU clears PerfCtrExtCore and PerfMonV2;
		 * Linux then finds the legacy counters do not hold a write
		 * ("PMU not available due to virtualization").
		 */
		snprintf(out->pmu_why, sizeof(out->pmu_why),
			 "this VM exposes no PMU (AMD family %Xh under a hypervisor; CPUID 0x8000_0001 ECX[23] "
			 "PerfCtrExtCore and 0x8000_0022 EAX[0] PerfMonV2 are clear): enable the virtual PMU in the "
			 "hypervisor (QEMU/KVM: -cpu host,pmu=on with kvm.enable_pmu=1), or count software events with "
			 "--backend perf, or use --backend sim for CI gates",
			 out->family);
		return;
	}
	describe(out, found, sizeof(found));
	snprintf(out->pmu_why, sizeof(out->pmu_why),
		 "%s; pmustat does not program AMD's core PMU through the MSRs yet: --backend perf counts the "
		 "kernel's generic events (cycles, instructions, branches, branch-misses, ...)",
		 found);
}

static bool
detect(const struct cpu_raw_data_t *raw, struct cpu_info *out)
{
	struct pmu_caps *p = &out->pmu;
	unsigned n;

	if (strcmp(out->vendor_id, "AuthenticAMD") != 0)
		return false;
	if (!zen_cpu_family(out->family)) {
		if (out->family == 0x15)
			snprintf(out->pmu_why, sizeof(out->pmu_why),
				 "AMD family 15h (Bulldozer) is not supported: pmustat programs AMD's Zen core PMU "
				 "(families 17h, 19h, 1Ah) only; --backend perf counts the kernel's generic events");
		else
			snprintf(out->pmu_why, sizeof(out->pmu_why),
				 "AMD family %Xh is not one pmustat programs (Zen: families 17h, 19h, 1Ah); "
				 "--backend perf counts the kernel's generic events",
				 out->family);
		return false;
	}
	p->ext_counters = raw->ext_cpuid[0][R_EAX] >= 0x80000001u &&
			  (raw->ext_cpuid[1][R_ECX] & ZEN_CPUID_PERFCTR_CORE);
	p->global_regs = out->ext22_read && (out->ext22[R_EAX] & ZEN_CPUID_PERFMON_V2);
	if (p->global_regs)
		n = out->ext22[R_EBX] & ZEN_CPUID_V2_COUNTERS;
	else
		n = p->ext_counters ? ZEN_EXT_COUNTERS : ZEN_LEGACY_COUNTERS;
	p->gp_counters = n;
	p->gp_mask = n ? (1u << n) - 1 : 0;
	p->gp_width = ZEN_COUNTER_WIDTH;
	p->cpuid_gp_counters = n;
	p->counters_from = counters_from(p);
	set_why(out);
	return true;
}

static void
info_text(const struct cpu_info *c, const struct pmu_family_probe *probe, int cpu, FILE *o)
{
	const struct pmu_caps *p = &c->pmu;

	(void)probe;
	(void)cpu;
	fprintf(o, "  AMD core PMU %u counters \u00d7 %u bits, PERF_CTL/PERF_CTR at 0x%X/0x%X%s\n", p->gp_counters,
		p->gp_width, zen_ctl_msr(0, p->ext_counters), zen_ctr_msr(0, p->ext_counters),
		p->ext_counters ? " (stride 2)" : " (legacy)");
	fprintf(o, "  enumerated   by %s\n", counters_from(p));
	fprintf(o, "  PerfCtrExtCore %s; PerfMonV2 %s\n", p->ext_counters ? "yes" : "no",
		p->global_regs ? "yes (GlobalCtl 0xC0000301, GlobalStatus 0xC0000300)" :
		c->ext22_read ? "no" : "no (no CPUID 0x8000_0022)");
}

static json_t *
info_json(const struct cpu_info *c, const struct pmu_family_probe *probe)
{
	const struct pmu_caps *p = &c->pmu;

	(void)probe;
	return json_pack("{s:i, s:i, s:b, s:b, s:s}", "counters", (int)p->gp_counters, "width", (int)p->gp_width,
			 "perfctr_ext_core", p->ext_counters, "perfmon_v2", p->global_regs,
			 "counters_from", counters_from(p));
}

const struct pmu_family pmu_family_zen = {
	.name = "zen",
	.title = "AMD Zen",
	.detect = detect,
	.info_text = info_text,
	.info_json = info_json,
	.no_metrics = "pmustat has no metric table for AMD's core events yet",
};
