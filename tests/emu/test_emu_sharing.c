/*
 * test_emu_sharing.c - what lets the emulator play the other parties of a
 * shared PMU, one test per rule: IA32_PEBS_ENABLE and PMI_InUse, freeze on
 * PMI, the power-up state, bursts wider than a counter, and the actions
 * of the kernel and perf (emu_action.h).
 */
#include <string.h>

#include "emu_action.h"
#include "test_emu_util.h"

#define FRZ (EMU_STATUS_CTR_FRZ | EMU_STATUS_LBR_FRZ)

static void
act(struct emu_pmu *pmu, unsigned cpu, const char *spec, int want)
{
	struct emu_action a;
	char err[256];

	assert_int_equal(emu_action_parse(spec, 3, &a, err, sizeof(err)), 0);
	assert_int_equal(emu_act(pmu, cpu, &a), want);
}

static void
test_pebs_enable_valid_bits(void **state)
{
	struct emu_pmu *c2 = new_pmu(EMU_MODEL_CORE2, 1);
	struct emu_pmu *hsw = new_pmu(EMU_MODEL_HASWELL, 1);
	struct emu_pmu *icl = new_pmu(EMU_MODEL_ICELAKE, 1);
	struct emu_pmu *arl = new_pmu(EMU_MODEL_ARROWLAKE, 2);
	struct emu_pmu *none = new_pmu(EMU_MODEL_NOPMU, 1);
	uint64_t val;

	(void)state;
	/* Core: PEBS on IA32_PMC0 only. */
	wr(c2, 0, EMU_MSR_PEBS_ENABLE, 1);
	wr_gp(c2, 0, EMU_MSR_PEBS_ENABLE, 2);
	/* Nehalem to Skylake: PEBS_EN_PMC0-3 and LL_EN_PMC0-3. */
	wr(hsw, 0, EMU_MSR_PEBS_ENABLE, 0xf0000000full);
	wr_gp(hsw, 0, EMU_MSR_PEBS_ENABLE, 1ull << 4);
	wr_gp(hsw, 0, EMU_MSR_PEBS_ENABLE, 1ull << 63);
	assert_int_equal(rd(hsw, 0, EMU_MSR_PEBS_ENABLE), 0xf0000000full);
	/* Extended PEBS: every GP and fixed counter that exists. */
	wr(icl, 0, EMU_MSR_PEBS_ENABLE, 0xf000000ffull);
	wr_gp(icl, 0, EMU_MSR_PEBS_ENABLE, 1ull << 8);
	wr_gp(icl, 0, EMU_MSR_PEBS_ENABLE, 1ull << 36);
	wr(arl, 0, EMU_MSR_PEBS_ENABLE, 0xf000003ffull);
	wr(arl, 1, EMU_MSR_PEBS_ENABLE, 0x77000000ffull);	/* Skymont: no FC3, FC4-6 */
	wr_gp(arl, 1, EMU_MSR_PEBS_ENABLE, 1ull << 35);
	assert_int_equal(emu_rdmsr(none, 0, EMU_MSR_PEBS_ENABLE, &val), -EIO);
	emu_pmu_free(c2);
	emu_pmu_free(hsw);
	emu_pmu_free(icl);
	emu_pmu_free(arl);
	emu_pmu_free(none);
}

static void
test_inuse_pmi_from_pebs(void **state)
{
	struct emu_pmu *sky = new_pmu(EMU_MODEL_SKYLAKE, 1);
	struct emu_pmu *icl = new_pmu(EMU_MODEL_ICELAKE, 1);

	(void)state;
	/* perf's PEBS event: INT clear, so only PEBS_ENABLE says a PMI is in use. */
	wr(sky, 0, msr_evtsel(0), EVTSEL_COUNT(0xc0, 0, EVTSEL_USR));
	assert_int_equal(rd(sky, 0, MSR_IA32_PERF_GLOBAL_INUSE), 1);
	wr(sky, 0, EMU_MSR_PEBS_ENABLE, 1);
	assert_int_equal(rd(sky, 0, MSR_IA32_PERF_GLOBAL_INUSE), 1 | EMU_INUSE_PMI);
	/* A load-latency enable alone is not a counter's PEBS enable. */
	wr(sky, 0, EMU_MSR_PEBS_ENABLE, 1ull << 32);
	assert_int_equal(rd(sky, 0, MSR_IA32_PERF_GLOBAL_INUSE), 1);
	/* Where bit 32 is fixed counter 0's PEBS enable, it is. */
	wr(icl, 0, EMU_MSR_PEBS_ENABLE, 1ull << 32);
	assert_int_equal(rd(icl, 0, MSR_IA32_PERF_GLOBAL_INUSE), EMU_INUSE_PMI);
	emu_pmu_free(sky);
	emu_pmu_free(icl);
}

static void
test_debugctl_valid_bits(void **state)
{
	struct emu_pmu *sky = new_pmu(EMU_MODEL_SKYLAKE, 1);
	struct emu_pmu *c2 = new_pmu(EMU_MODEL_CORE2, 1);
	struct emu_pmu *arl = new_pmu(EMU_MODEL_ARROWLAKE, 1);

	(void)state;
	wr(sky, 0, EMU_MSR_DEBUGCTL, EMU_DEBUGCTL_FREEZE_PERFMON_ON_PMI |
	   EMU_DEBUGCTL_FREEZE_LBRS_ON_PMI | EMU_DEBUGCTL_LBR);
	wr(sky, 0, EMU_MSR_DEBUGCTL, 3ull << 14);	/* FREEZE_WHILE_SMM, RTM_DEBUG */
	wr_gp(sky, 0, EMU_MSR_DEBUGCTL, 1ull << 2);	/* no bus-lock detection */
	wr_gp(sky, 0, EMU_MSR_DEBUGCTL, 1ull << 16);
	wr(c2, 0, EMU_MSR_DEBUGCTL, EMU_DEBUGCTL_FREEZE_PERFMON_ON_PMI);
	wr_gp(c2, 0, EMU_MSR_DEBUGCTL, 1ull << 13);	/* uncore PMI: Nehalem on */
	wr(sky, 0, EMU_MSR_DEBUGCTL, 1ull << 13);
	wr_gp(c2, 0, EMU_MSR_DEBUGCTL, 1ull << 14);
	wr(arl, 0, EMU_MSR_DEBUGCTL, 1ull << 2);
	emu_pmu_free(sky);
	emu_pmu_free(c2);
	emu_pmu_free(arl);
}

/* Counter 0 one event short of wrapping, with or without its PMI. */
static void
arm(struct emu_pmu *pmu, uint64_t int_bit)
{
	wr(pmu, 0, msr_evtsel(0), EVTSEL_COUNT(0xc0, 0, EVTSEL_USR | int_bit));
	wr(pmu, 0, msr_pmc(0), (uint32_t)-1);
	wr(pmu, 0, msr_evtsel(1), EVTSEL_COUNT(0xc0, 0, EVTSEL_USR));
	wr(pmu, 0, MSR_IA32_FIXED_CTR_CTRL, 0x2);
	wr(pmu, 0, MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_FIXED_BIT(0) | 3);
	wr(pmu, 0, EMU_MSR_DEBUGCTL, EMU_DEBUGCTL_FREEZE_PERFMON_ON_PMI |
	   EMU_DEBUGCTL_FREEZE_LBRS_ON_PMI | EMU_DEBUGCTL_LBR);
}

static void
test_freeze_on_pmi_v4(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKE, 1);

	(void)state;
	arm(pmu, EVTSEL_INT);
	emu_retire(pmu, 0, 0xc0, 0, 3, 10);
	/* The burst that overflows counts everywhere; the PMI acts after it. */
	assert_int_equal(rd(pmu, 0, msr_pmc(0)), 9);
	assert_int_equal(rd(pmu, 0, msr_pmc(1)), 10);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS), 1 | FRZ);
	/* Streamlined freeze: GLOBAL_CTRL stays, CTR_Frz stops every counter. */
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_CTRL), GLOBAL_FIXED_BIT(0) | 3);
	assert_int_equal(rd(pmu, 0, EMU_MSR_DEBUGCTL) & EMU_DEBUGCTL_LBR, EMU_DEBUGCTL_LBR);
	emu_retire(pmu, 0, 0xc0, 0, 3, 100);
	assert_int_equal(rd(pmu, 0, msr_pmc(1)), 10);
	assert_int_equal(rd(pmu, 0, msr_fixed_ctr(0)), 10);
	/* Clearing CTR_Frz through GLOBAL_STATUS_RESET unfreezes. */
	wr(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS_RESET, EMU_STATUS_CTR_FRZ);
	emu_retire(pmu, 0, 0xc0, 0, 3, 5);
	assert_int_equal(rd(pmu, 0, msr_pmc(1)), 15);
	assert_int_equal(rd(pmu, 0, msr_fixed_ctr(0)), 15);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS), 1 | EMU_STATUS_LBR_FRZ);
	emu_pmu_free(pmu);
}

static void
test_freeze_needs_pmi(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKE, 1);

	(void)state;
	/* A counter without INT (a PEBS counter) raises no PMI of its own. */
	arm(pmu, 0);
	emu_retire(pmu, 0, 0xc0, 0, 3, 10);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS), 1);
	/* Nor does a PMI-enabled counter freeze anything without the DEBUGCTL bits. */
	arm(pmu, EVTSEL_INT);
	wr(pmu, 0, EMU_MSR_DEBUGCTL, 0);
	emu_retire(pmu, 0, 0xc0, 0, 3, 10);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS), 1);
	emu_retire(pmu, 0, 0xc0, 0, 3, 10);
	assert_int_equal(rd(pmu, 0, msr_pmc(1)), 30);
	emu_pmu_free(pmu);
}

static void
test_status_set_freezes(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKE, 1);

	(void)state;
	wr(pmu, 0, msr_evtsel(0), EVTSEL_COUNT(0xc0, 0, EVTSEL_USR));
	wr(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS_SET, EMU_STATUS_CTR_FRZ);
	emu_retire(pmu, 0, 0xc0, 0, 3, 10);
	assert_int_equal(rd(pmu, 0, msr_pmc(0)), 0);
	/* LBR_Frz freezes the LBRs, not the counters. */
	wr(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS_RESET, EMU_STATUS_CTR_FRZ);
	wr(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS_SET, EMU_STATUS_LBR_FRZ);
	emu_retire(pmu, 0, 0xc0, 0, 3, 10);
	assert_int_equal(rd(pmu, 0, msr_pmc(0)), 10);
	emu_pmu_free(pmu);
}

static void
test_legacy_freeze(void **state)
{
	static const enum emu_model model[] = { EMU_MODEL_HASWELL, EMU_MODEL_CORE2 };

	(void)state;
	for (size_t m = 0; m < 2; m++) {
		struct emu_pmu *pmu = new_pmu(model[m], 1);

		arm(pmu, EVTSEL_INT);
		emu_retire(pmu, 0, 0xc0, 0, 3, 10);
		/* Before v4 the PMI clears GLOBAL_CTRL and DEBUGCTL.LBR; no CTR_Frz. */
		assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS), 1);
		assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_CTRL), 0);
		assert_int_equal(rd(pmu, 0, EMU_MSR_DEBUGCTL) & EMU_DEBUGCTL_LBR, 0);
		emu_retire(pmu, 0, 0xc0, 0, 3, 10);
		assert_int_equal(rd(pmu, 0, msr_pmc(1)), 10);
		emu_pmu_free(pmu);
	}
}

static void
test_power_up_global_ctrl(void **state)
{
	static const struct {
		enum emu_model model;
		unsigned cpu;
		uint64_t ctrl;
	} want[] = {
		{ EMU_MODEL_CORE2, 0, 0x3 }, { EMU_MODEL_HASWELL, 0, 0xf },
		{ EMU_MODEL_SKYLAKE, 0, 0xf }, { EMU_MODEL_ICELAKE, 0, 0xff },
		{ EMU_MODEL_ALDERLAKE, 0, 0xff }, { EMU_MODEL_ALDERLAKE, 1, 0x3f },
		{ EMU_MODEL_ARROWLAKE, 0, 0x3ff }, { EMU_MODEL_ARROWLAKE, 1, 0xff },
	};

	(void)state;
	/* "Sets bits n-1:0 and clears the upper bits": fixed and PERF_METRICS off. */
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct emu_pmu *pmu = new_pmu(want[i].model, 2);

		assert_int_equal(rd(pmu, want[i].cpu, MSR_IA32_PERF_GLOBAL_CTRL), want[i].ctrl);
		emu_pmu_free(pmu);
	}
}

static void
test_burst_wider_than_counter(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKE, 1);
	struct emu_pmu *c2 = new_pmu(EMU_MODEL_CORE2, 1);

	(void)state;
	wr(pmu, 0, msr_evtsel(0), EVTSEL_COUNT(0xc0, 0, EVTSEL_USR));
	wr(pmu, 0, MSR_IA32_FIXED_CTR_CTRL, 0x2);
	wr(pmu, 0, MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_FIXED_BIT(0) | 1);
	/* 2^48 + 5 in one burst: n mod 2^48 lands, the overflow bit is set. */
	emu_retire(pmu, 0, 0xc0, 0, 3, (1ull << 48) + 5);
	assert_int_equal(rd(pmu, 0, msr_pmc(0)), 5);
	assert_int_equal(rd(pmu, 0, msr_fixed_ctr(0)), 5);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS), GLOBAL_FIXED_BIT(0) | 1);
	/* Three wraps in one burst still leave one overflow bit. */
	wr(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS_RESET, GLOBAL_FIXED_BIT(0) | 1);
	emu_retire(pmu, 0, 0xc0, 0, 3, 3 * (1ull << 48) + 2);
	assert_int_equal(rd(pmu, 0, msr_pmc(0)), 7);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS), GLOBAL_FIXED_BIT(0) | 1);
	/* 5 x 2^47 in steps: each wrap in its own burst. */
	wr(pmu, 0, msr_a_pmc(0), 0);
	for (int k = 0; k < 5; k++) {
		wr(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS_RESET, GLOBAL_FIXED_BIT(0) | 1);
		emu_retire(pmu, 0, 0xc0, 0, 3, 1ull << 47);
		assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS) & 1, k % 2);
	}
	assert_int_equal(rd(pmu, 0, msr_pmc(0)), 1ull << 47);
	/* The widest burst there is, on a counter at 1: 2^48 - 1 more lands it on 0. */
	wr(pmu, 0, msr_a_pmc(0), 1);
	wr(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS_RESET, GLOBAL_FIXED_BIT(0) | 1);
	emu_retire(pmu, 0, 0xc0, 0, 3, UINT64_MAX);
	assert_int_equal(rd(pmu, 0, msr_pmc(0)), 0);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS) & 1, 1);
	/* Core 2's 40-bit counters. */
	wr(c2, 0, msr_evtsel(1), EVTSEL_COUNT(0xc0, 0, EVTSEL_USR));
	emu_retire(c2, 0, 0xc0, 0, 3, (1ull << 40) + 1);
	assert_int_equal(rd(c2, 0, msr_pmc(1)), 1);
	assert_int_equal(rd(c2, 0, MSR_IA32_PERF_GLOBAL_STATUS), 2);
	emu_pmu_free(pmu);
	emu_pmu_free(c2);
}

static void
test_action_parse(void **state)
{
	struct emu_action a;
	char err[512];

	(void)state;
	assert_int_equal(emu_action_parse("wrmsr:0x38f=0x70000000f", 3, &a, err, sizeof(err)), 0);
	assert_int_equal(a.kind, EMU_ACT_WRMSR);
	assert_int_equal(a.msr, 0x38f);
	assert_int_equal(a.val, 0x70000000full);
	assert_int_equal(emu_action_parse("nmi", 3, &a, err, sizeof(err)), 0);
	assert_false(a.has_val);
	assert_int_equal(emu_action_parse("nmi:0xf", 3, &a, err, sizeof(err)), 0);
	assert_true(a.has_val);
	assert_int_equal(emu_action_parse("topdown:1:2:3:4:k", 3, &a, err, sizeof(err)), 0);
	assert_int_equal(a.ring, 0);
	assert_int_equal(a.slots[3], 4);
	assert_int_equal(emu_action_parse("pebs:0:0xc0:0", 3, &a, err, sizeof(err)), 0);
	assert_int_equal(a.code, 0xc0);
	assert_int_equal(emu_action_parse("offcore:0x10001:5:u", 0, &a, err, sizeof(err)), 0);
	assert_int_equal(a.ring, 3);
	assert_int_equal(a.n, 5);
	static const char *const bad[] = {
		"", "nmi:1:2", "nmi:k", "wrmsr:0x38f", "wrmsr:0x38f=", "wrmsr:x=1", "retire:0x100:0:1",
		"topdown:1:2:3", "topdown:1:2:3:4:5", "take-fixed", "take-fixed:1:u", "pebs:0:0xc0",
		"offcore:1", "frobnicate:1", "retire:1:2:-3",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(emu_action_parse(bad[i], 3, &a, err, sizeof(err)), -EINVAL);
		assert_true(strlen(err) > 0);
	}
}

static void
test_action_nmi(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKE, 1);

	(void)state;
	arm(pmu, EVTSEL_INT);
	emu_retire(pmu, 0, 0xc0, 0, 3, 10);
	wr(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS_SET, GLOBAL_FIXED_BIT(1));
	/* Every set bit is acked, whoever's; GLOBAL_CTRL comes back as it was. */
	act(pmu, 0, "nmi", 0);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS), 0);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_CTRL), GLOBAL_FIXED_BIT(0) | 3);
	/* Acking CTR_Frz unfroze the counters. */
	emu_retire(pmu, 0, 0xc0, 0, 3, 1);
	assert_int_equal(rd(pmu, 0, msr_pmc(1)), 11);
	/* Or GLOBAL_CTRL becomes the handler's own value. */
	act(pmu, 0, "nmi:0x700000000", 0);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_CTRL), 0x700000000ull);
	act(pmu, 0, "nmi:0x800000000", -EIO);	/* FC3: Skylake has none */
	emu_pmu_free(pmu);
}

static void
test_action_take_fixed(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKE, 1);

	(void)state;
	wr(pmu, 0, MSR_IA32_FIXED_CTR_CTRL, 0x2);
	act(pmu, 0, "take-fixed:1", 0);
	/* Read-modify-write: FC0's field is left alone. */
	assert_int_equal(rd(pmu, 0, MSR_IA32_FIXED_CTR_CTRL), 0xb2);
	assert_int_equal(rd(pmu, 0, msr_fixed_ctr(1)), (1ull << 47) + 1);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_CTRL), 0xf | GLOBAL_FIXED_BIT(1));
	act(pmu, 0, "take-fixed:1", -EBUSY);
	act(pmu, 0, "take-fixed:0", -EBUSY);
	act(pmu, 0, "take-fixed:3", -EOPNOTSUPP);
	emu_pmu_free(pmu);
}

static void
test_action_pebs(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKE, 1);
	struct emu_pmu *c2 = new_pmu(EMU_MODEL_CORE2, 1);

	(void)state;
	wr(pmu, 0, MSR_IA32_PERF_GLOBAL_CTRL, 0);
	act(pmu, 0, "pebs:2:0xd0:0x81", 0);
	assert_int_equal(rd(pmu, 0, msr_evtsel(2)), 0x4381d0);
	assert_int_equal(rd(pmu, 0, EMU_MSR_PEBS_ENABLE), 4);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_CTRL), 4);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_INUSE), 4 | EMU_INUSE_PMI);
	/* It counts like any counter. */
	emu_retire(pmu, 0, 0xd0, 0x81, 3, 9);
	assert_int_equal(rd(pmu, 0, msr_pmc(2)), 9);
	act(pmu, 0, "pebs:2:0xc0:0", -EBUSY);
	act(pmu, 0, "pebs:4:0xc0:0", -EOPNOTSUPP);
	act(c2, 0, "pebs:1:0xc0:0", -EOPNOTSUPP);
	act(c2, 0, "pebs:0:0xc0:0", 0);
	emu_pmu_free(pmu);
	emu_pmu_free(c2);
}

static void
test_action_wrmsr(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKE, 2);
	struct emu_action a;
	char err[256];

	(void)state;
	act(pmu, 1, "wrmsr:0x38f=0x700000000", 0);
	assert_int_equal(rd(pmu, 1, MSR_IA32_PERF_GLOBAL_CTRL), 0x700000000ull);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_CTRL), 0xf);
	act(pmu, 1, "wrmsr:0x38f=0x800000000", -EIO);
	assert_int_equal(emu_action_parse("nmi", 3, &a, err, sizeof(err)), 0);
	assert_int_equal(emu_act(pmu, 2, &a), -ENXIO);
	emu_pmu_free(pmu);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pebs_enable_valid_bits),
		cmocka_unit_test(test_inuse_pmi_from_pebs),
		cmocka_unit_test(test_debugctl_valid_bits),
		cmocka_unit_test(test_freeze_on_pmi_v4),
		cmocka_unit_test(test_freeze_needs_pmi),
		cmocka_unit_test(test_status_set_freezes),
		cmocka_unit_test(test_legacy_freeze),
		cmocka_unit_test(test_power_up_global_ctrl),
		cmocka_unit_test(test_burst_wider_than_counter),
		cmocka_unit_test(test_action_parse),
		cmocka_unit_test(test_action_nmi),
		cmocka_unit_test(test_action_take_fixed),
		cmocka_unit_test(test_action_pebs),
		cmocka_unit_test(test_action_wrmsr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
