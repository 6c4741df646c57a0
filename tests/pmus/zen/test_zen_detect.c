/*
 * The Zen family's detection from CPUID (APM vol. 2; Linux's
 * amd_pmu_init()): the counters come from 0x8000_0022 EBX[3:0] with
 * PerfMonV2, six with PerfCtrExtCore, four legacy ones otherwise, never
 * from the model; family 15h is refused naming it; a VM that hides the
 * PMU is named as such, with what to do.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <libcpuid/libcpuid.h>

#include "base/err.h"
#include "events/cpu.h"
#include "events/cpu_source.h"
#include "pmu/family.h"
#include "pmus/zen/zen_family.h"

static const char *dump_dir;

/* An AuthenticAMD CPUID of @family (display), 0x8000_0001 ECX @ecx, 0x8000_0022 @l22 (NULL: absent). */
static void
amd_raw(struct cpu_raw_data_t *raw, struct cpu_leaf23 *l23, unsigned family, uint32_t ecx, const uint32_t *l22,
	bool hypervisor)
{
	memset(raw, 0, sizeof(*raw));
	memset(l23, 0, sizeof(*l23));
	raw->basic_cpuid[0][0] = 0x10;
	memcpy(&raw->basic_cpuid[0][1], "Auth", 4);
	memcpy(&raw->basic_cpuid[0][3], "enti", 4);
	memcpy(&raw->basic_cpuid[0][2], "cAMD", 4);
	/* Base family 0xF plus the extended family; model 0x11. */
	raw->basic_cpuid[1][0] = ((family - 0xf) << 20) | (0x1u << 16) | (0xf << 8) | (0x1 << 4) | 1;
	raw->basic_cpuid[1][2] = hypervisor ? 1u << 31 : 0;
	raw->ext_cpuid[0][0] = l22 ? 0x80000022u : 0x8000001fu;
	raw->ext_cpuid[1][2] = ecx;
	if (l22) {
		memcpy(l23->ext22, l22, 4 * sizeof(uint32_t));
		l23->ext22_read = true;
	}
}

static void
decode(unsigned family, uint32_t ecx, const uint32_t *l22, bool hypervisor, struct cpu_info *c)
{
	struct cpu_raw_data_t raw;
	struct cpu_leaf23 l23;

	amd_raw(&raw, &l23, family, ecx, l22, hypervisor);
	cpu_decode_ext(&raw, &l23, c);
}

/* The Ryzen 9 7950X dump (family 19h): PerfMonV2, six counters from 0x8000_0022 EBX[3:0]. */
static void
test_zen4_dump(void **state)
{
	struct pmustat_error *err = NULL;
	char path[PATH_MAX];
	struct cpu_info c;

	(void)state;
	snprintf(path, sizeof(path), "%s/amd-zen4-ryzen9-7950x.txt", dump_dir);
	assert_int_equal(cpu_source_load(NULL, path, 0, &c, NULL, &err), 0);
	assert_ptr_equal(c.pmu.family, &pmu_family_zen);
	assert_true(c.ext22_read);
	assert_true(c.pmu.ext_counters);
	assert_true(c.pmu.global_regs);
	assert_int_equal(c.pmu.gp_counters, 6);
	assert_int_equal(c.pmu.gp_mask, 0x3f);
	assert_int_equal(c.pmu.gp_width, 48);
	assert_false(cpu_can_count(&c));
	assert_int_equal(c.verdict, CPU_VERDICT_FAMILY_CANNOT);
	assert_non_null(strstr(cpu_why(&c), "AMD family 19h core PMU: 6 counters"));
	assert_null(strstr(cpu_why(&c), "not an Intel CPU"));
	err_clear(&err);
}

/* Zen 2 (17h), Zen 4 (19h), Zen 5 (1Ah): the counters from CPUID, whatever the model. */
static void
test_counters_from_cpuid(void **state)
{
	const uint32_t v2_six[4] = { 1, 0x6, 0, 0 };
	const uint32_t v2_four[4] = { 1, 0x4, 0, 0 };
	const uint32_t no_v2[4] = { 0, 0x6, 0, 0 };
	struct cpu_info c;

	(void)state;
	/* Zen 2: PerfCtrExtCore, no PerfMonV2 leaf. */
	decode(0x17, 1u << 23, NULL, false, &c);
	assert_ptr_equal(c.pmu.family, &pmu_family_zen);
	assert_true(c.pmu.ext_counters);
	assert_false(c.pmu.global_regs);
	assert_int_equal(c.pmu.gp_counters, 6);
	/* Zen 5 with PerfMonV2: EBX[3:0], even when it says fewer than six. */
	decode(0x1a, 1u << 23, v2_six, false, &c);
	assert_true(c.pmu.global_regs);
	assert_int_equal(c.pmu.gp_counters, 6);
	decode(0x1a, 1u << 23, v2_four, false, &c);
	assert_int_equal(c.pmu.gp_counters, 4);
	assert_int_equal(c.pmu.gp_mask, 0xf);
	/* EBX without EAX[0] is not PerfMonV2. */
	decode(0x19, 1u << 23, no_v2, false, &c);
	assert_false(c.pmu.global_regs);
	assert_int_equal(c.pmu.gp_counters, 6);
	/* No PerfCtrExtCore: the four legacy counters. */
	decode(0x19, 0, NULL, false, &c);
	assert_false(c.pmu.ext_counters);
	assert_int_equal(c.pmu.gp_counters, 4);
	assert_non_null(strstr(cpu_why(&c), "legacy"));
}

/* Bulldozer (15h) is refused naming it; other AMD families are named too; none is "not an Intel CPU". */
static void
test_other_families(void **state)
{
	struct cpu_info c;

	(void)state;
	decode(0x15, 1u << 23, NULL, false, &c);
	assert_null(c.pmu.family);
	assert_false(cpu_can_count(&c));
	assert_int_equal(c.verdict, CPU_VERDICT_FAMILY_CANNOT);
	assert_non_null(strstr(cpu_why(&c), "AMD family 15h (Bulldozer) is not supported"));
	decode(0x10, 0, NULL, false, &c);
	assert_null(c.pmu.family);
	assert_non_null(strstr(cpu_why(&c), "AMD family 10h"));
}

/* Under a hypervisor with neither PerfCtrExtCore nor PerfMonV2 (this project's VMs): the VM hides the PMU. */
static void
test_vm_without_pmu(void **state)
{
	const uint32_t v2[4] = { 1, 0x6, 0, 0 };
	struct cpu_info c;

	(void)state;
	decode(0x19, 0, NULL, true, &c);
	assert_ptr_equal(c.pmu.family, &pmu_family_zen);
	assert_false(cpu_can_count(&c));
	assert_non_null(strstr(cpu_why(&c), "this VM exposes no PMU"));
	assert_non_null(strstr(cpu_why(&c), "--backend perf"));
	assert_non_null(strstr(cpu_why(&c), "--backend sim"));
	assert_non_null(strstr(cpu_why(&c), "pmu=on"));
	/* A VM with a virtual PMU says what it found instead. */
	decode(0x19, 1u << 23, v2, true, &c);
	assert_null(strstr(cpu_why(&c), "exposes no PMU"));
	assert_non_null(strstr(cpu_why(&c), "6 counters"));
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zen4_dump),
		cmocka_unit_test(test_counters_from_cpuid),
		cmocka_unit_test(test_other_families),
		cmocka_unit_test(test_vm_without_pmu),
	};

	dump_dir = argc > 1 ? argv[1] : "tests/data/cpuid";
	return cmocka_run_group_tests(tests, NULL, NULL);
}
