/*
 * test_emu_pmu.c - the emulated PMU's SDM semantics, one test per rule,
 * per model where the rule differs between models.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_emu_util.h"

static void
test_models(void **state)
{
	static const struct {
		enum emu_model model;
		unsigned version, gp, gp_width, fixed, fixed_width;
		bool fw;
	} want[] = {
		{ EMU_MODEL_SKYLAKE, 4, 4, 48, 3, 48, true },
		{ EMU_MODEL_ICELAKE, 5, 8, 48, 4, 48, true },
		{ EMU_MODEL_HASWELL, 3, 4, 48, 3, 48, false },
		{ EMU_MODEL_CORE2, 2, 2, 40, 3, 40, false },
		{ EMU_MODEL_ALDERLAKE, 5, 8, 48, 4, 48, true },
		{ EMU_MODEL_ARROWLAKE, 6, 10, 48, 4, 48, true },
		{ EMU_MODEL_NOPMU, 0, 0, 0, 0, 0, false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct emu_pmu *pmu = new_pmu(want[i].model, 2);
		const struct emu_core_type *t = emu_cpu_type(pmu, 0);

		assert_true(emu_pmu_valid(pmu));
		assert_int_equal(t->version, want[i].version);
		assert_int_equal(t->gp, want[i].gp);
		assert_int_equal(t->gp_width, want[i].gp_width);
		assert_int_equal(t->fixed, want[i].fixed);
		assert_int_equal(t->fixed_width, want[i].fixed_width);
		assert_int_equal(t->full_width_write, want[i].fw);
		assert_int_equal(emu_model_from_name(emu_model_name(want[i].model)), want[i].model);
		emu_pmu_free(pmu);
	}
	assert_int_equal(emu_model_from_name("pentium4"), -1);
}

static void
test_cpuid_answers(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKE, 2);
	uint32_t regs[4];

	(void)state;
	assert_int_equal(emu_cpuid(pmu, 1, 0, 0, regs), 0);
	assert_memory_equal(&regs[1], "Genu", 4);
	assert_int_equal(emu_cpuid(pmu, 0, 0xa, 0, regs), 0);
	assert_int_equal(regs[0], 0x07300404);
	assert_int_equal(regs[3], 0x00000603);
	assert_int_equal(emu_cpuid(pmu, 0, 0x40000000, 0, regs), -ENOENT);
	assert_int_equal(emu_cpuid(pmu, 2, 0, 0, regs), -ENXIO);
	emu_pmu_free(pmu);
}

static void
test_hybrid_types(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_ALDERLAKE, 2);
	const struct emu_core_type *p = emu_cpu_type(pmu, 0), *e = emu_cpu_type(pmu, 1);
	uint32_t regs[4];
	uint64_t val;

	(void)state;
	assert_string_equal(p->name, "alderlake-pcore");
	assert_string_equal(e->name, "alderlake-ecore");
	/* The ADL quirk: CPUID says 6 GP / 3 fixed on both, the P-core has 8 / 4. */
	assert_int_equal(emu_cpuid(pmu, 0, 0xa, 0, regs), 0);
	assert_int_equal((regs[0] >> 8) & 0xff, 6);
	assert_int_equal(regs[3] & 0x1f, 3);
	assert_int_equal(p->gp, 8);
	assert_int_equal(p->fixed, 4);
	assert_int_equal(e->gp, 6);
	assert_int_equal(e->fixed, 3);
	assert_int_equal(emu_cpuid(pmu, 0, 0x1a, 0, regs), 0);
	assert_int_equal(regs[0] >> 24, 0x40);
	assert_int_equal(emu_cpuid(pmu, 1, 0x1a, 0, regs), 0);
	assert_int_equal(regs[0] >> 24, 0x20);
	assert_int_equal(emu_rdmsr(pmu, 0, msr_pmc(7), &val), 0);
	assert_int_equal(emu_rdmsr(pmu, 1, msr_pmc(7), &val), -EIO);
	assert_int_equal(emu_rdmsr(pmu, 0, msr_fixed_ctr(3), &val), 0);
	assert_int_equal(emu_rdmsr(pmu, 1, msr_fixed_ctr(3), &val), -EIO);
	/* No cpu/ PMU directory on a hybrid: cpu_core/ and cpu_atom/ instead. */
	assert_null(emu_file(pmu, HW_FILE_RDPMC));
	emu_pmu_free(pmu);
}

static void
test_power_up_state(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKE, 1);

	(void)state;
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_CTRL), 0xf);
	assert_int_equal(rd(pmu, 0, MSR_IA32_FIXED_CTR_CTRL), 0);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS), 0);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_INUSE), 0);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_CAPABILITIES) & PERF_CAP_FW_WRITE, PERF_CAP_FW_WRITE);
	assert_string_equal(emu_file(pmu, HW_FILE_NMI_WATCHDOG), "0\n");
	assert_string_equal(emu_file(pmu, HW_FILE_RDPMC), "2\n");
	emu_pmu_free(pmu);
}

static void
test_unknown_msrs_fault(void **state)
{
	struct emu_pmu *sky = new_pmu(EMU_MODEL_SKYLAKE, 1);
	struct emu_pmu *icl = new_pmu(EMU_MODEL_ICELAKE, 1);
	struct emu_pmu *hsw = new_pmu(EMU_MODEL_HASWELL, 1);
	struct emu_pmu *c2 = new_pmu(EMU_MODEL_CORE2, 1);
	uint64_t val;

	(void)state;
	assert_int_equal(emu_rdmsr(sky, 0, 0x10, &val), -EIO);	/* TSC: not ours */
	assert_int_equal(emu_wrmsr(sky, 0, 0x1234, 0), -EIO);
	/* Counters beyond the model. */
	assert_int_equal(emu_rdmsr(sky, 0, msr_pmc(4), &val), -EIO);
	assert_int_equal(emu_rdmsr(sky, 0, msr_evtsel(4), &val), -EIO);
	assert_int_equal(emu_rdmsr(icl, 0, msr_pmc(7), &val), 0);
	assert_int_equal(emu_rdmsr(icl, 0, msr_pmc(8), &val), -EIO);
	assert_int_equal(emu_rdmsr(sky, 0, msr_fixed_ctr(3), &val), -EIO);
	assert_int_equal(emu_rdmsr(icl, 0, msr_fixed_ctr(3), &val), 0);
	assert_int_equal(emu_rdmsr(c2, 0, msr_pmc(2), &val), -EIO);
	/* v4 MSRs. */
	assert_int_equal(emu_rdmsr(hsw, 0, MSR_IA32_PERF_GLOBAL_INUSE, &val), -EIO);
	assert_int_equal(emu_wrmsr(hsw, 0, MSR_IA32_PERF_GLOBAL_STATUS_SET, 1), -EIO);
	/* Offcore response: Nehalem and later only. */
	assert_int_equal(emu_rdmsr(c2, 0, MSR_OFFCORE_RSP_0, &val), -EIO);
	assert_int_equal(emu_rdmsr(sky, 0, MSR_OFFCORE_RSP_1, &val), 0);
	/* Read-only MSRs. */
	wr_gp(sky, 0, MSR_IA32_PERF_CAPABILITIES, 0);
	wr_gp(sky, 0, MSR_IA32_PERF_GLOBAL_INUSE, 0);
	/* A CPU that does not exist. */
	assert_int_equal(emu_rdmsr(sky, 1, msr_pmc(0), &val), -ENXIO);
	assert_true(sky->cpu[0].stats.gp_faults >= 6);
	emu_pmu_free(sky);
	emu_pmu_free(icl);
	emu_pmu_free(hsw);
	emu_pmu_free(c2);
}

static void
test_evtsel_reserved_bits(void **state)
{
	struct emu_pmu *sky = new_pmu(EMU_MODEL_SKYLAKE, 1);
	struct emu_pmu *icl = new_pmu(EMU_MODEL_ICELAKE, 1);
	struct emu_pmu *c2 = new_pmu(EMU_MODEL_CORE2, 1);
	uint64_t good = EVTSEL_COUNT(0xc0, 0, EVTSEL_USR | EVTSEL_OS | EVTSEL_INT |
				     EVTSEL_EDGE | EVTSEL_INV | EVTSEL_CMASK(3));

	(void)state;
	wr(sky, 0, msr_evtsel(0), good);
	assert_int_equal(rd(sky, 0, msr_evtsel(0)), good);
	wr_gp(sky, 0, msr_evtsel(0), good | (1ull << 34));
	wr_gp(sky, 0, msr_evtsel(0), 1ull << 63);
	/* IN_TX (bit 32) exists with TSX. */
	wr(sky, 0, msr_evtsel(1), good | (1ull << 32));
	/* AnyThread: v3/v4 yes, v2 no, deprecated by CPUID.0AH:EDX[15] on Ice Lake. */
	wr(sky, 0, msr_evtsel(2), good | EVTSEL_ANY);
	wr_gp(icl, 0, msr_evtsel(0), good | EVTSEL_ANY);
	wr_gp(c2, 0, msr_evtsel(0), good | EVTSEL_ANY);
	wr(c2, 0, msr_evtsel(0), good);
	emu_pmu_free(sky);
	emu_pmu_free(icl);
	emu_pmu_free(c2);
}

static void
test_fixed_ctrl_reserved_bits(void **state)
{
	struct emu_pmu *sky = new_pmu(EMU_MODEL_SKYLAKE, 1);
	struct emu_pmu *icl = new_pmu(EMU_MODEL_ICELAKE, 1);
	struct emu_pmu *c2 = new_pmu(EMU_MODEL_CORE2, 1);

	(void)state;
	wr(sky, 0, MSR_IA32_FIXED_CTR_CTRL, 0xbbb);
	wr(sky, 0, MSR_IA32_FIXED_CTR_CTRL, 0x444);	/* AnyThread, v3+ */
	wr_gp(sky, 0, MSR_IA32_FIXED_CTR_CTRL, 0x3000);	/* FC3: Skylake has 3 */
	wr_gp(sky, 0, MSR_IA32_FIXED_CTR_CTRL, 1ull << 40);
	wr(icl, 0, MSR_IA32_FIXED_CTR_CTRL, 0xbbbb);
	wr_gp(icl, 0, MSR_IA32_FIXED_CTR_CTRL, 0x4);	/* AnyThread deprecated */
	wr(c2, 0, MSR_IA32_FIXED_CTR_CTRL, 0xbbb);
	wr_gp(c2, 0, MSR_IA32_FIXED_CTR_CTRL, 0x4);	/* no AnyThread in v2 */
	assert_int_equal(rd(c2, 0, MSR_IA32_FIXED_CTR_CTRL), 0xbbb);
	emu_pmu_free(sky);
	emu_pmu_free(icl);
	emu_pmu_free(c2);
}

static void
test_global_ctrl_reserved_bits(void **state)
{
	struct emu_pmu *sky = new_pmu(EMU_MODEL_SKYLAKE, 1);
	struct emu_pmu *icl = new_pmu(EMU_MODEL_ICELAKE, 1);
	struct emu_pmu *c2 = new_pmu(EMU_MODEL_CORE2, 1);

	(void)state;
	wr(sky, 0, MSR_IA32_PERF_GLOBAL_CTRL, 0x70000000full);
	wr_gp(sky, 0, MSR_IA32_PERF_GLOBAL_CTRL, 0x1f);
	wr_gp(sky, 0, MSR_IA32_PERF_GLOBAL_CTRL, 1ull << 35);
	wr_gp(sky, 0, MSR_IA32_PERF_GLOBAL_CTRL, 1ull << 48);
	assert_int_equal(rd(sky, 0, MSR_IA32_PERF_GLOBAL_CTRL), 0x70000000full);
	wr(icl, 0, MSR_IA32_PERF_GLOBAL_CTRL, 0xf000000ffull | (1ull << 48));
	wr(c2, 0, MSR_IA32_PERF_GLOBAL_CTRL, 0x700000003ull);
	wr_gp(c2, 0, MSR_IA32_PERF_GLOBAL_CTRL, 0x7);
	emu_pmu_free(sky);
	emu_pmu_free(icl);
	emu_pmu_free(c2);
}

static void
test_global_status_read_only(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKE, 1);

	(void)state;
	wr_gp(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS, 0);
	wr_gp(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS, 1);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS), 0);
	overflow(pmu, 2);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS), 1ull << 2);
	wr_gp(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS, 0);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS), 1ull << 2);
	emu_pmu_free(pmu);
}

static void
test_status_reset_write_1_to_clear(void **state)
{
	static const enum emu_model model[] = { EMU_MODEL_SKYLAKE, EMU_MODEL_CORE2 };

	(void)state;
	for (size_t m = 0; m < 2; m++) {
		struct emu_pmu *pmu = new_pmu(model[m], 1);

		overflow(pmu, 0);
		overflow(pmu, 1);
		assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS), 3);
		/* The tutorial's "write 0 to clear" clears nothing. */
		wr(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS_RESET, 0);
		assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS), 3);
		wr(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS_RESET, 1);
		assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS), 2);
		wr(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS_RESET, 0x700000003ull);
		assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS), 0);
		emu_pmu_free(pmu);
	}
}

static void
test_status_reset_reserved_bits(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKE, 1);

	(void)state;
	overflow(pmu, 0);
	assert_int_equal(emu_wrmsr(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS_RESET, 1 | (1ull << 40)), -EIO);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS), 1);
	assert_int_equal(emu_wrmsr(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS_RESET, 1ull << 4), -EIO);
	/* CondChgd (63) and OvfBuf (62) may be cleared. */
	wr(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS_RESET, 3ull << 62);
	emu_pmu_free(pmu);
}

static void
test_status_set(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKE, 1);

	(void)state;
	wr(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS_SET, GLOBAL_FIXED_BIT(1) | 8);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS), GLOBAL_FIXED_BIT(1) | 8);
	assert_int_equal(emu_wrmsr(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS_SET, 1ull << 63), -EIO);
	assert_int_equal(emu_wrmsr(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS_SET, 1ull << 4), -EIO);
	emu_pmu_free(pmu);
}

static void
test_legacy_pmc_write_sign_extends(void **state)
{
	struct emu_pmu *sky = new_pmu(EMU_MODEL_SKYLAKE, 1);
	struct emu_pmu *c2 = new_pmu(EMU_MODEL_CORE2, 1);

	(void)state;
	wr(sky, 0, msr_pmc(0), 0x80000000u);
	assert_int_equal(rd(sky, 0, msr_pmc(0)), 0xffff80000000ull);
	wr(c2, 0, msr_pmc(1), 0x80000001u);
	assert_int_equal(rd(c2, 0, msr_pmc(1)), 0xff80000001ull);
	wr(sky, 0, msr_pmc(1), 0x7fffffffu);
	assert_int_equal(rd(sky, 0, msr_pmc(1)), 0x7fffffffu);
	/* EDX is ignored: only EAX reaches the counter. */
	wr(sky, 0, msr_pmc(2), 0x1200000005ull);
	assert_int_equal(rd(sky, 0, msr_pmc(2)), 5);
	emu_pmu_free(sky);
	emu_pmu_free(c2);
}

static void
test_full_width_write(void **state)
{
	struct emu_pmu *sky = new_pmu(EMU_MODEL_SKYLAKE, 1);
	struct emu_pmu *hsw = new_pmu(EMU_MODEL_HASWELL, 1);
	uint64_t val;

	(void)state;
	wr(sky, 0, msr_a_pmc(3), 0x123456789abcull);
	assert_int_equal(rd(sky, 0, msr_pmc(3)), 0x123456789abcull);
	assert_int_equal(rd(sky, 0, msr_a_pmc(3)), 0x123456789abcull);
	wr_gp(sky, 0, msr_a_pmc(3), 1ull << 48);
	/* Without PERF_CAPABILITIES[13] the A_PMCs do not exist. */
	assert_int_equal(rd(hsw, 0, MSR_IA32_PERF_CAPABILITIES) & PERF_CAP_FW_WRITE, 0);
	assert_int_equal(emu_wrmsr(hsw, 0, msr_a_pmc(0), 1), -EIO);
	assert_int_equal(emu_rdmsr(hsw, 0, msr_a_pmc(0), &val), -EIO);
	emu_pmu_free(sky);
	emu_pmu_free(hsw);
}

static void
test_fixed_counter_write_width(void **state)
{
	struct emu_pmu *sky = new_pmu(EMU_MODEL_SKYLAKE, 1);
	struct emu_pmu *c2 = new_pmu(EMU_MODEL_CORE2, 1);

	(void)state;
	wr(sky, 0, msr_fixed_ctr(0), 0xffffffffffffull);
	wr_gp(sky, 0, msr_fixed_ctr(0), 1ull << 48);
	wr(c2, 0, msr_fixed_ctr(2), 0xffffffffffull);
	wr_gp(c2, 0, msr_fixed_ctr(2), 1ull << 40);
	emu_pmu_free(sky);
	emu_pmu_free(c2);
}

static void
test_gp_counter_wraps_and_overflows(void **state)
{
	static const enum emu_model model[] = {
		EMU_MODEL_SKYLAKE, EMU_MODEL_ICELAKE, EMU_MODEL_HASWELL, EMU_MODEL_CORE2,
	};

	(void)state;
	for (size_t m = 0; m < sizeof(model) / sizeof(model[0]); m++) {
		struct emu_pmu *pmu = new_pmu(model[m], 1);
		const struct emu_core_type *t = emu_cpu_type(pmu, 0);
		unsigned last = t->gp - 1;

		wr(pmu, 0, msr_evtsel(last), EVTSEL_COUNT(0xc4, 0x00, EVTSEL_USR));
		wr(pmu, 0, msr_pmc(last), (uint32_t)-3);	/* 2^width - 3 */
		assert_int_equal(emu_retire(pmu, 0, 0xc4, 0x00, 3, 2), 0);
		assert_int_equal(rd(pmu, 0, msr_pmc(last)), (1ull << t->gp_width) - 1);
		assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS), 0);
		assert_int_equal(emu_retire(pmu, 0, 0xc4, 0x00, 3, 5), 0);
		assert_int_equal(rd(pmu, 0, msr_pmc(last)), 4);
		assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS), 1ull << last);
		emu_pmu_free(pmu);
	}
}

static void
test_fixed_counter_wraps_and_overflows(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_CORE2, 1);

	(void)state;
	wr(pmu, 0, MSR_IA32_FIXED_CTR_CTRL, 0x200);	/* FC2 user */
	wr(pmu, 0, MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_FIXED_BIT(2));
	wr(pmu, 0, msr_fixed_ctr(2), 0xfffffffff0ull);
	assert_int_equal(emu_retire(pmu, 0, 0x3c, 0x01, 3, 0x20), 0);
	assert_int_equal(rd(pmu, 0, msr_fixed_ctr(2)), 0x10);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_STATUS), GLOBAL_FIXED_BIT(2));
	emu_pmu_free(pmu);
}

static void
test_counting_needs_global_ctrl(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKE, 1);

	(void)state;
	wr(pmu, 0, msr_evtsel(0), EVTSEL_COUNT(0xc0, 0, EVTSEL_USR));
	wr(pmu, 0, msr_evtsel(1), EVTSEL_COUNT(0xc0, 0, EVTSEL_USR));
	wr(pmu, 0, MSR_IA32_FIXED_CTR_CTRL, 0x2);
	wr(pmu, 0, MSR_IA32_PERF_GLOBAL_CTRL, 0x2);
	emu_retire(pmu, 0, 0xc0, 0, 3, 10);
	assert_int_equal(rd(pmu, 0, msr_pmc(0)), 0);
	assert_int_equal(rd(pmu, 0, msr_pmc(1)), 10);
	assert_int_equal(rd(pmu, 0, msr_fixed_ctr(0)), 0);
	wr(pmu, 0, MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_FIXED_BIT(0));
	emu_retire(pmu, 0, 0xc0, 0, 3, 7);
	assert_int_equal(rd(pmu, 0, msr_fixed_ctr(0)), 7);
	assert_int_equal(rd(pmu, 0, msr_pmc(1)), 10);
	emu_pmu_free(pmu);
}

static void
test_counting_needs_enable(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKE, 1);

	(void)state;
	/* GLOBAL_CTRL is 0xF at power-up; without EN nothing counts. */
	wr(pmu, 0, msr_evtsel(0), EVTSEL_EVENT(0xc0) | EVTSEL_USR);
	wr(pmu, 0, MSR_IA32_PERF_GLOBAL_CTRL, 0x70000000full);
	emu_retire(pmu, 0, 0xc0, 0, 3, 10);
	assert_int_equal(rd(pmu, 0, msr_pmc(0)), 0);
	assert_int_equal(rd(pmu, 0, msr_fixed_ctr(0)), 0);	/* FIXED_CTR_CTRL 0 */
	wr(pmu, 0, msr_evtsel(0), EVTSEL_COUNT(0xc0, 0, EVTSEL_USR));
	emu_retire(pmu, 0, 0xc0, 0, 3, 10);
	assert_int_equal(rd(pmu, 0, msr_pmc(0)), 10);
	emu_pmu_free(pmu);
}

static void
test_counting_follows_ring(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_HASWELL, 1);

	(void)state;
	wr(pmu, 0, msr_evtsel(0), EVTSEL_COUNT(0xc0, 0, EVTSEL_USR));
	wr(pmu, 0, msr_evtsel(1), EVTSEL_COUNT(0xc0, 0, EVTSEL_OS));
	wr(pmu, 0, msr_evtsel(2), EVTSEL_COUNT(0xc0, 0, EVTSEL_USR | EVTSEL_OS));
	wr(pmu, 0, MSR_IA32_FIXED_CTR_CTRL, 0x2 | 0x10 | 0x300);	/* FC0 usr, FC1 os, FC2 both */
	wr(pmu, 0, MSR_IA32_PERF_GLOBAL_CTRL, 0x70000000full);
	emu_retire(pmu, 0, 0xc0, 0, 3, 100);
	emu_retire(pmu, 0, 0xc0, 0, 0, 20);
	assert_int_equal(rd(pmu, 0, msr_pmc(0)), 100);
	assert_int_equal(rd(pmu, 0, msr_pmc(1)), 20);
	assert_int_equal(rd(pmu, 0, msr_pmc(2)), 120);
	assert_int_equal(rd(pmu, 0, msr_fixed_ctr(0)), 100);
	emu_retire(pmu, 0, 0x3c, 0, 3, 5);
	emu_retire(pmu, 0, 0x3c, 0, 0, 6);
	assert_int_equal(rd(pmu, 0, msr_fixed_ctr(1)), 6);
	emu_retire(pmu, 0, 0x3c, 1, 3, 5);
	emu_retire(pmu, 0, 0x3c, 1, 0, 6);
	assert_int_equal(rd(pmu, 0, msr_fixed_ctr(2)), 11);
	emu_pmu_free(pmu);
}

static void
test_counting_matches_event_and_umask(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKE, 1);

	(void)state;
	wr(pmu, 0, msr_evtsel(0), EVTSEL_COUNT(0x2e, 0x41, EVTSEL_USR));
	wr(pmu, 0, msr_evtsel(1), EVTSEL_COUNT(0x2e, 0x4f, EVTSEL_USR));
	emu_retire(pmu, 0, 0x2e, 0x41, 3, 3);
	emu_retire(pmu, 0, 0x2e, 0x4f, 3, 4);
	emu_retire(pmu, 0, 0x2f, 0x41, 3, 5);
	assert_int_equal(rd(pmu, 0, msr_pmc(0)), 3);
	assert_int_equal(rd(pmu, 0, msr_pmc(1)), 4);
	emu_pmu_free(pmu);
}

static void
test_counting_cmask_inv(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKE, 1);

	(void)state;
	wr(pmu, 0, msr_evtsel(0), EVTSEL_COUNT(0xa3, 0x04, EVTSEL_USR | EVTSEL_CMASK(4)));
	wr(pmu, 0, msr_evtsel(1), EVTSEL_COUNT(0xa3, 0x04, EVTSEL_USR | EVTSEL_CMASK(4) | EVTSEL_INV));
	wr(pmu, 0, msr_evtsel(2), EVTSEL_COUNT(0xa3, 0x04, EVTSEL_USR | EVTSEL_CMASK(4) | EVTSEL_EDGE));
	wr(pmu, 0, msr_evtsel(3), EVTSEL_COUNT(0xa3, 0x04, EVTSEL_USR | EVTSEL_INV));
	emu_retire(pmu, 0, 0xa3, 0x04, 3, 3);	/* below the threshold */
	emu_retire(pmu, 0, 0xa3, 0x04, 3, 4);	/* at it */
	emu_retire(pmu, 0, 0xa3, 0x04, 3, 9);	/* above it */
	assert_int_equal(rd(pmu, 0, msr_pmc(0)), 2);
	assert_int_equal(rd(pmu, 0, msr_pmc(1)), 1);
	assert_int_equal(rd(pmu, 0, msr_pmc(2)), 2);
	/* CMASK 0: INV is ignored, every event counts. */
	assert_int_equal(rd(pmu, 0, msr_pmc(3)), 16);
	emu_pmu_free(pmu);
}

static void
test_fixed_counters_count_their_events(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_ICELAKE, 1);

	(void)state;
	wr(pmu, 0, MSR_IA32_FIXED_CTR_CTRL, 0x2222);
	wr(pmu, 0, MSR_IA32_PERF_GLOBAL_CTRL, 0xf00000000ull);
	emu_retire(pmu, 0, 0xc0, 0x00, 3, 1);
	emu_retire(pmu, 0, 0x3c, 0x00, 3, 20);
	emu_retire(pmu, 0, 0x3c, 0x01, 3, 300);
	emu_retire(pmu, 0, 0xa4, 0x01, 3, 4000);
	emu_retire(pmu, 0, 0xc4, 0x00, 3, 50000);
	assert_int_equal(rd(pmu, 0, msr_fixed_ctr(0)), 1);
	assert_int_equal(rd(pmu, 0, msr_fixed_ctr(1)), 20);
	assert_int_equal(rd(pmu, 0, msr_fixed_ctr(2)), 300);
	assert_int_equal(rd(pmu, 0, msr_fixed_ctr(3)), 4000);
	emu_pmu_free(pmu);
}

static void
test_global_inuse(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKE, 1);

	(void)state;
	/* EVTSELn[7:0] != 0, regardless of EN. */
	wr(pmu, 0, msr_evtsel(1), EVTSEL_EVENT(0x3c));
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_INUSE), 0x2);
	/* A umask alone does not count as in use. */
	wr(pmu, 0, msr_evtsel(2), EVTSEL_UMASK(1) | EVTSEL_EN);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_INUSE), 0x2);
	/* FIXED_CTR_CTRL[4i+1:4i] != 0. */
	wr(pmu, 0, MSR_IA32_FIXED_CTR_CTRL, 0x300);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_INUSE), 0x2 | GLOBAL_FIXED_BIT(2));
	/* PMI in use: any EVTSEL.INT or fixed PMI bit. */
	wr(pmu, 0, msr_evtsel(3), EVTSEL_INT);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_INUSE),
			 0x2 | GLOBAL_FIXED_BIT(2) | (1ull << 63));
	wr(pmu, 0, msr_evtsel(3), 0);
	wr(pmu, 0, MSR_IA32_FIXED_CTR_CTRL, 0x8);
	assert_int_equal(rd(pmu, 0, MSR_IA32_PERF_GLOBAL_INUSE), 0x2 | (1ull << 63));
	emu_pmu_free(pmu);
}

static void
test_watchdog_preset(void **state)
{
	struct emu_config cfg;
	struct emu_pmu *pmu;

	(void)state;
	emu_config_default(&cfg, EMU_MODEL_SKYLAKE);
	cfg.ncpus = 2;
	cfg.watchdog = true;
	pmu = emu_pmu_new(&cfg);
	assert_non_null(pmu);
	for (unsigned c = 0; c < 2; c++) {
		assert_int_equal(rd(pmu, c, MSR_IA32_FIXED_CTR_CTRL), 0xb0);
		assert_int_equal(rd(pmu, c, MSR_IA32_PERF_GLOBAL_CTRL), 0x70000000full);
		assert_int_equal(rd(pmu, c, MSR_IA32_PERF_GLOBAL_INUSE),
				 GLOBAL_FIXED_BIT(1) | (1ull << 63));
		assert_true(rd(pmu, c, msr_fixed_ctr(1)) > (1ull << 47));
	}
	assert_string_equal(emu_file(pmu, HW_FILE_NMI_WATCHDOG), "1\n");
	/* The watchdog counts cycles in both rings. */
	uint64_t before = rd(pmu, 1, msr_fixed_ctr(1));
	emu_retire(pmu, 1, 0x3c, 0, 0, 10);
	assert_int_equal(rd(pmu, 1, msr_fixed_ctr(1)), before + 10);
	emu_pmu_free(pmu);
}

static void
test_rdpmc(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_ICELAKE, 1);
	uint64_t val;

	(void)state;
	wr(pmu, 0, msr_a_pmc(7), 0xabcdef012345ull);
	wr(pmu, 0, msr_fixed_ctr(3), 42);
	assert_int_equal(emu_rdpmc(pmu, 0, 7, &val), 0);
	assert_int_equal(val, 0xabcdef012345ull);
	assert_int_equal(emu_rdpmc(pmu, 0, RDPMC_FIXED | 3, &val), 0);
	assert_int_equal(val, 42);
	assert_int_equal(emu_rdpmc(pmu, 0, 8, &val), -EIO);
	assert_int_equal(emu_rdpmc(pmu, 0, RDPMC_FIXED | 4, &val), -EIO);
	assert_int_equal(emu_rdpmc(pmu, 0, 0x80000000u, &val), -EIO);
	/* ECX[29] reads PERF_METRICS (index 0 only) where it exists. */
	assert_int_equal(emu_rdpmc(pmu, 0, EMU_RDPMC_METRICS | 1, &val), -EIO);
	assert_int_equal(emu_rdpmc(pmu, 0, EMU_RDPMC_METRICS | RDPMC_FIXED, &val), -EIO);
	pmu->config.rdpmc_off = true;
	assert_int_equal(emu_rdpmc(pmu, 0, 0, &val), -EPERM);
	emu_pmu_free(pmu);
}

static void
test_no_pmu(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_NOPMU, 1);
	uint32_t regs[4];
	uint64_t val;

	(void)state;
	assert_int_equal(emu_rdmsr(pmu, 0, MSR_IA32_PERF_GLOBAL_CTRL, &val), -EIO);
	assert_int_equal(emu_rdmsr(pmu, 0, msr_pmc(0), &val), -EIO);
	assert_int_equal(emu_wrmsr(pmu, 0, msr_evtsel(0), 0), -EIO);
	assert_int_equal(emu_rdpmc(pmu, 0, 0, &val), -EIO);
	assert_null(emu_file(pmu, HW_FILE_RDPMC));
	/* The hypervisor bit, and a maximum leaf below 0xA. */
	assert_int_equal(emu_cpuid(pmu, 0, 1, 0, regs), 0);
	assert_true(regs[2] & (1u << 31));
	assert_int_equal(emu_cpuid(pmu, 0, 0, 0, regs), 0);
	assert_true(regs[0] < 0xa);
	assert_int_equal(emu_msr_list(pmu, 0, NULL, 0), 0);
	emu_pmu_free(pmu);
}

static void
test_counter_overrides(void **state)
{
	struct emu_config cfg;
	struct emu_pmu *pmu;
	uint32_t regs[4];
	uint64_t val;

	(void)state;
	emu_config_default(&cfg, EMU_MODEL_ICELAKE);
	cfg.gp = 2;
	cfg.fixed = 1;
	pmu = emu_pmu_new(&cfg);
	assert_non_null(pmu);
	assert_int_equal(emu_cpuid(pmu, 0, 0xa, 0, regs), 0);
	assert_int_equal((regs[0] >> 8) & 0xff, 2);
	assert_int_equal(regs[3] & 0x1f, 1);
	assert_int_equal(regs[2], 0x1);	/* v5 fixed-counter bitmap follows */
	assert_int_equal(emu_rdmsr(pmu, 0, msr_pmc(1), &val), 0);
	assert_int_equal(emu_rdmsr(pmu, 0, msr_pmc(2), &val), -EIO);
	assert_int_equal(emu_rdmsr(pmu, 0, msr_fixed_ctr(1), &val), -EIO);
	assert_int_equal(emu_wrmsr(pmu, 0, MSR_IA32_PERF_GLOBAL_CTRL, 0x100000003ull), 0);
	assert_int_equal(emu_wrmsr(pmu, 0, MSR_IA32_PERF_GLOBAL_CTRL, 0x200000000ull), -EIO);
	emu_pmu_free(pmu);
	cfg.gp = EMU_MAX_GP + 1;
	assert_null(emu_pmu_new(&cfg));
	assert_int_equal(errno, EINVAL);
}

static void
test_offcore_response(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKE, 1);

	(void)state;
	wr(pmu, 0, MSR_OFFCORE_RSP_0, 0x3fbc000001ull);
	assert_int_equal(rd(pmu, 0, MSR_OFFCORE_RSP_0), 0x3fbc000001ull);
	wr_gp(pmu, 0, MSR_OFFCORE_RSP_1, 1ull << 60);
	emu_pmu_free(pmu);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_models),
		cmocka_unit_test(test_cpuid_answers),
		cmocka_unit_test(test_hybrid_types),
		cmocka_unit_test(test_power_up_state),
		cmocka_unit_test(test_unknown_msrs_fault),
		cmocka_unit_test(test_evtsel_reserved_bits),
		cmocka_unit_test(test_fixed_ctrl_reserved_bits),
		cmocka_unit_test(test_global_ctrl_reserved_bits),
		cmocka_unit_test(test_global_status_read_only),
		cmocka_unit_test(test_status_reset_write_1_to_clear),
		cmocka_unit_test(test_status_reset_reserved_bits),
		cmocka_unit_test(test_status_set),
		cmocka_unit_test(test_legacy_pmc_write_sign_extends),
		cmocka_unit_test(test_full_width_write),
		cmocka_unit_test(test_fixed_counter_write_width),
		cmocka_unit_test(test_gp_counter_wraps_and_overflows),
		cmocka_unit_test(test_fixed_counter_wraps_and_overflows),
		cmocka_unit_test(test_counting_needs_global_ctrl),
		cmocka_unit_test(test_counting_needs_enable),
		cmocka_unit_test(test_counting_follows_ring),
		cmocka_unit_test(test_counting_matches_event_and_umask),
		cmocka_unit_test(test_counting_cmask_inv),
		cmocka_unit_test(test_fixed_counters_count_their_events),
		cmocka_unit_test(test_global_inuse),
		cmocka_unit_test(test_watchdog_preset),
		cmocka_unit_test(test_rdpmc),
		cmocka_unit_test(test_no_pmu),
		cmocka_unit_test(test_counter_overrides),
		cmocka_unit_test(test_offcore_response),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
