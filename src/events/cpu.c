#include "events/cpu.h"

#include <libcpuid/libcpuid.h>
#include <stdio.h>
#include <string.h>

#include "events/pmu_quirks.h"

/* libcpuid's register order within a leaf. */
enum { R_EAX, R_EBX, R_ECX, R_EDX };

static uint32_t
bits(uint32_t v, unsigned hi, unsigned lo)
{
	return (v >> lo) & ((hi - lo == 31) ? 0xffffffffu : ((1u << (hi - lo + 1)) - 1));
}

static void
decode_vendor(const struct cpu_raw_data_t *raw, struct cpu_info *out)
{
	const uint32_t *l0 = raw->basic_cpuid[0];

	memcpy(out->vendor_id + 0, &l0[R_EBX], 4);
	memcpy(out->vendor_id + 4, &l0[R_EDX], 4);
	memcpy(out->vendor_id + 8, &l0[R_ECX], 4);
	out->vendor_id[12] = '\0';
	for (int i = 0; i < 12; i++) {
		/* A garbage dump must not put control characters in our output. */
		if (out->vendor_id[i] < 0x20 || out->vendor_id[i] > 0x7e)
			out->vendor_id[i] = '?';
	}

	if (strcmp(out->vendor_id, "GenuineIntel") == 0)
		out->vendor = CPU_VENDOR_INTEL;
	else if (strcmp(out->vendor_id, "AuthenticAMD") == 0 ||
		 strcmp(out->vendor_id, "HygonGenuine") == 0)
		out->vendor = CPU_VENDOR_AMD;
	else
		out->vendor = CPU_VENDOR_OTHER;
}

static void
decode_brand(const struct cpu_raw_data_t *raw, struct cpu_info *out)
{
	char brand[49];
	const char *p = brand;
	size_t len;

	out->brand[0] = '\0';
	if (raw->ext_cpuid[0][R_EAX] < 0x80000004u)
		return;
	for (int leaf = 2; leaf <= 4; leaf++)
		memcpy(brand + (size_t)(leaf - 2) * 16, raw->ext_cpuid[leaf], 16);
	brand[48] = '\0';

	while (*p == ' ')
		p++;
	len = strlen(p);
	while (len > 0 && p[len - 1] == ' ')
		len--;
	for (size_t i = 0; i < len; i++) {
		out->brand[i] = p[i];
		if (p[i] < 0x20 || p[i] > 0x7e)
			out->brand[i] = '?';
	}
	out->brand[len] = '\0';
}

static void
decode_signature(const struct cpu_raw_data_t *raw, struct cpu_info *out)
{
	uint32_t eax = raw->basic_cpuid[1][R_EAX];
	unsigned base_family = bits(eax, 11, 8);
	unsigned base_model = bits(eax, 7, 4);

	out->stepping = bits(eax, 3, 0);
	out->family = base_family;
	if (base_family == 0xf)
		out->family += bits(eax, 27, 20);
	out->model = base_model;
	if (base_family == 0x6 || base_family == 0xf)
		out->model += bits(eax, 19, 16) << 4;
}

static void
decode_pmu(const struct cpu_raw_data_t *raw, struct cpu_info *out)
{
	const uint32_t *a = raw->basic_cpuid[0xa];
	struct pmu_caps *pmu = &out->pmu;
	unsigned fixed_count;

	pmu->version = bits(a[R_EAX], 7, 0);
	if (pmu->version == 0)
		return;

	pmu->gp_counters = bits(a[R_EAX], 15, 8);
	pmu->gp_mask = pmu->gp_counters >= 32 ? 0xffffffffu : (1u << pmu->gp_counters) - 1;
	pmu->gp_width = bits(a[R_EAX], 23, 16);
	pmu->arch_events_len = bits(a[R_EAX], 31, 24);
	pmu->arch_events_unavailable = a[R_EBX];
	pmu->anythread_deprecated = bits(a[R_EDX], 15, 15);

	/*
	 * Version 1 has no fixed counters. From version 5 on, fixed counter i
	 * exists if ECX[i] is set OR EDX[4:0] > i (SDM vol. 3B; a Hyper-V root
	 * partition reports ECX = 0 with EDX[4:0] = 4).
	 */
	if (pmu->version >= 2) {
		fixed_count = bits(a[R_EDX], 4, 0);
		pmu->fixed_mask = fixed_count >= 32 ? 0xffffffffu : (1u << fixed_count) - 1;
		if (pmu->version >= 5)
			pmu->fixed_mask |= a[R_ECX];
		pmu->fixed_counters = (unsigned)__builtin_popcount(pmu->fixed_mask);
		pmu->fixed_width = bits(a[R_EDX], 12, 5);
	}
	pmu->cpuid_gp_counters = pmu->gp_counters;
	pmu->cpuid_fixed_counters = pmu->fixed_counters;
	pmu->counters_from = "CPUID.0AH";
}

/*
 * Leaf 0x23: subleaf 0 EAX[i] says subleaf i is valid; subleaf 1 EAX is
 * the GP counter bitmap, EBX the fixed counter bitmap (SDM vol. 2A, CPUID
 * leaf 23H; Linux arch/x86/events/intel/core.c update_pmu_cap()); subleaf
 * 3 EAX the architectural events the core type supports. A leaf
 * within the maximum that the CPU does not support reads all zero.
 */
static void
decode_leaf23(const struct cpu_leaf23 *l23, struct cpu_info *out)
{
	struct pmu_caps *pmu = &out->pmu;

	if (pmu->version < 2 || out->max_basic_leaf < 0x23)
		return;
	if (!l23 || !l23->read) {
		pmu->counters_note = "CPUID leaf 0x23 was not read (not in the dump): the counters are CPUID.0AH's, "
				     "on a hybrid part only those every core type has";
		return;
	}
	if (bits(l23->sub[0][R_EAX], 3, 3)) {
		/* Subleaf 3 EAX: bit i set, architectural event i supported (0AH's EBX the other way round). */
		pmu->arch_events_len = 32;
		pmu->arch_events_unavailable = ~l23->sub[3][R_EAX];
	}
	if (bits(l23->sub[0][R_EAX], 2, 2))
		pmu->acr_gp_mask = l23->sub[2][R_EAX];
	if (!bits(l23->sub[0][R_EAX], 1, 1))
		return;
	pmu->gp_mask = l23->sub[1][R_EAX];
	pmu->gp_counters = (unsigned)__builtin_popcount(pmu->gp_mask);
	pmu->fixed_mask = l23->sub[1][R_EBX];
	pmu->fixed_counters = (unsigned)__builtin_popcount(pmu->fixed_mask);
	if (pmu->fixed_mask && !pmu->fixed_width)
		pmu->fixed_width = pmu->gp_width;
	pmu->counters_from = "CPUID.23H.1";
}

static enum cpu_verdict
judge(const struct cpu_info *cpu)
{
	if (cpu->pmu_why[0])
		return CPU_VERDICT_FAMILY_CANNOT;
	if (cpu->vendor != CPU_VENDOR_INTEL)
		return CPU_VERDICT_NOT_INTEL;
	/* Family 0xF without an extended family is NetBurst; 18 is Nova Lake. */
	if (cpu->family == 0xf)
		return CPU_VERDICT_NETBURST;
	if (cpu->pmu.version == 0)
		return cpu->hypervisor ? CPU_VERDICT_VM_NO_PMU : CPU_VERDICT_NO_ARCH_PERFMON;
	if (cpu->pmu.version == 1)
		return CPU_VERDICT_PERFMON_V1;
	return CPU_VERDICT_OK;
}

bool
cpu_can_count(const struct cpu_info *cpu)
{
	return cpu->verdict == CPU_VERDICT_OK || cpu->netburst.present;
}

void
cpu_decode(const struct cpu_raw_data_t *raw, struct cpu_info *out)
{
	cpu_decode_ext(raw, NULL, out);
}

void
cpu_decode_ext(const struct cpu_raw_data_t *raw, const struct cpu_leaf23 *l23, struct cpu_info *out)
{
	static const uint32_t zero[4];

	memset(out, 0, sizeof(*out));
	if (memcmp(raw->basic_cpuid[0], zero, sizeof(zero)) == 0) {
		out->verdict = CPU_VERDICT_NO_DATA;
		return;
	}

	out->max_basic_leaf = raw->basic_cpuid[0][R_EAX];
	decode_vendor(raw, out);
	decode_brand(raw, out);
	if (out->max_basic_leaf >= 1) {
		decode_signature(raw, out);
		out->hypervisor = bits(raw->basic_cpuid[1][R_ECX], 31, 31);
		out->pmu.pdcm = bits(raw->basic_cpuid[1][R_ECX], 15, 15);
		out->pmu.ds = bits(raw->basic_cpuid[1][R_EDX], 21, 21);
	}
	if (out->max_basic_leaf >= 7) {
		out->hybrid = bits(raw->basic_cpuid[7][R_EDX], 15, 15);
		out->pmu.tsx = bits(raw->basic_cpuid[7][R_EBX], 4, 4) || bits(raw->basic_cpuid[7][R_EBX], 11, 11);
	}
	/* Branch-counter logging (Linux's lbr_counters): the counters Arch LBR may log events of. */
	if (out->max_basic_leaf >= 0x1c && bits(raw->basic_cpuid[7][R_EDX], 19, 19))
		out->pmu.lbr_log_counters = bits(raw->basic_cpuid[0x1c][R_ECX], 19, 16);
	/*
	 * Leaves above the maximum hold garbage in dumps (Intel repeats the
	 * highest leaf), so they are read only when in range.
	 */
	if (out->max_basic_leaf >= 0x1a && out->vendor == CPU_VENDOR_INTEL) {
		uint32_t eax = raw->basic_cpuid[0x1a][R_EAX];

		out->core_type = (enum cpu_core_type)bits(eax, 31, 24);
		out->native_model_id = bits(eax, 23, 0);
	}
	if (out->max_basic_leaf >= 0xa && out->vendor == CPU_VENDOR_INTEL) {
		decode_pmu(raw, out);
		decode_leaf23(l23, out);
	}
	if (l23 && l23->ext22_read && raw->ext_cpuid[0][R_EAX] >= 0x80000022u) {
		out->ext22_read = true;
		memcpy(out->ext22, l23->ext22, sizeof(out->ext22));
	}
	pmu_families_detect(raw, out);

	out->verdict = judge(out);
	pmu_quirks_apply(out);
}

const char *
cpu_core_type_name(enum cpu_core_type type)
{
	switch (type) {
	case CPU_CORE_TYPE_CORE:
		return "core";
	case CPU_CORE_TYPE_ATOM:
		return "atom";
	case CPU_CORE_TYPE_NONE:
		break;
	}
	return NULL;
}

const char *
cpu_vendor_name(enum cpu_vendor vendor)
{
	switch (vendor) {
	case CPU_VENDOR_INTEL:
		return "Intel";
	case CPU_VENDOR_AMD:
		return "AMD";
	case CPU_VENDOR_OTHER:
		return "other";
	case CPU_VENDOR_UNKNOWN:
		break;
	}
	return "unknown";
}

const char *
cpu_verdict_text(enum cpu_verdict verdict)
{
	switch (verdict) {
	case CPU_VERDICT_OK:
		return "the CPU has an architectural PMU pmustat can program";
	case CPU_VERDICT_NO_DATA:
		return "no CPUID data: the dump is empty or not in libcpuid's raw format";
	case CPU_VERDICT_NOT_INTEL:
		return "not an Intel CPU: pmustat programs Intel's architectural PMU only (software events such as task-clock and page-faults still count)";
	case CPU_VERDICT_NETBURST:
		return "NetBurst (Pentium 4, family 0xF): pmustat counts with its ESCR/CCCR PMU (the NetBurst event names: pmustat list)";
	case CPU_VERDICT_VM_NO_PMU:
		return "this VM exposes no PMU (CPUID leaf 0xA is empty under a hypervisor): enable the virtual PMU in the hypervisor (e.g. QEMU/KVM -cpu host,pmu=on; VMware \"virtualize CPU performance counters\")";
	case CPU_VERDICT_NO_ARCH_PERFMON:
		return "the CPU has no architectural performance monitoring (CPUID leaf 0xA absent or version 0)";
	case CPU_VERDICT_PERFMON_V1:
		return "architectural perfmon version 1 has no IA32_PERF_GLOBAL_CTRL; pmustat needs version 2 or later";
	case CPU_VERDICT_FAMILY_CANNOT:
		return "pmustat cannot program this CPU's PMU";
	}
	return "unknown verdict";
}

const char *
cpu_why(const struct cpu_info *cpu)
{
	if (cpu->verdict == CPU_VERDICT_FAMILY_CANNOT && cpu->pmu_why[0])
		return cpu->pmu_why;
	return cpu_verdict_text(cpu->verdict);
}

void
cpu_mapfile_key(const struct cpu_info *cpu, char *buf, unsigned size)
{
	snprintf(buf, size, "%s-%u-%X-%X", cpu->vendor_id, cpu->family, cpu->model, cpu->stepping);
}
