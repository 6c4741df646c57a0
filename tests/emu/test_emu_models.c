/*
 * test_emu_models.c - what differs between models, one test per rule:
 * counters beyond eight GP and four fixed (leaf 0x23, the v6 aliases),
 * the event-select bits each model accepts, top-down slots and
 * IA32_PERF_METRICS, offcore responses through their own MSRs, and the
 * machine's shape in sysfs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu_action.h"
#include "test_emu_util.h"

#define TD(...) ((const uint64_t[EMU_TD_COUNT]){ __VA_ARGS__ })

static void
test_leaf_0x23_answers(void **state)
{
	struct emu_pmu *arl = new_pmu(EMU_MODEL_ARROWLAKE, 2);
	struct emu_pmu *sky = new_pmu(EMU_MODEL_SKYLAKE, 1);
	uint32_t r[4];

	(void)state;
	/* Leaf 0xA shows the common part on both types, leaf 0x23 each type's own. */
	for (unsigned cpu = 0; cpu < 2; cpu++) {
		assert_int_equal(emu_cpuid(arl, cpu, 0xa, 0, r), 0);
		assert_int_equal(r[0], 0x0d300806);
		assert_int_equal(r[2], 0x7);
	}
	assert_int_equal(emu_cpuid(arl, 0, 0x23, 1, r), 0);
	assert_int_equal(r[0], 0x3ff);
	assert_int_equal(r[1], 0xf);
	assert_int_equal(emu_cpuid(arl, 1, 0x23, 1, r), 0);
	assert_int_equal(r[0], 0xff);
	assert_int_equal(r[1], 0x77);
	assert_int_equal(emu_cpuid(arl, 1, 0x23, 0, r), 0);
	assert_int_equal(r[0], 0xf);
	assert_int_equal(emu_cpuid(arl, 0, 0x1a, 0, r), 0);
	assert_int_equal(r[0] >> 24, 0x40);
	assert_int_equal(emu_cpuid(arl, 1, 0x1a, 0, r), 0);
	assert_int_equal(r[0] >> 24, 0x20);
	/* Beyond the maximum leaf: zeros from the model, not the host. */
	assert_int_equal(emu_cpuid(sky, 0, 0x23, 1, r), 0);
	assert_int_equal(r[0] | r[1] | r[2] | r[3], 0);
	assert_int_equal(emu_cpuid(sky, 0, 0x24, 0, r), -ENOENT);
	emu_pmu_free(arl);
	emu_pmu_free(sky);
}

static void
test_v5_fixed_counter_bitmap(void **state)
{
	char dir[] = "/tmp/emu-cpuid-XXXXXX", path[64], line[256];
	struct emu_config cfg;
	struct emu_pmu *pmu = calloc(1, sizeof(*pmu));
	FILE *in, *out;
	uint64_t val;

	(void)state;
	/*
	 * "Fixed-function counter i is supported if ECX[i] || (EDX[4:0] > i)":
	 * a Skylake dump rewritten to v5 with EDX[4:0] = 1 and ECX = 0x5 has
	 * fixed counters 0 and 2, not 1.
	 */
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/intel-skylake-client-i7-6700k.txt", dir);
	in = fopen(EMU_CPUID_DIR "/intel-skylake-client-i7-6700k.txt", "r");
	out = fopen(path, "w");
	assert_non_null(in);
	assert_non_null(out);
	while (fgets(line, sizeof(line), in))
		fputs(strncmp(line, "CPUID 0000000A:", 15) ? line :
		      "CPUID 0000000A: 07300405-00000000-00000005-00000601\n", out);
	fclose(in);
	fclose(out);
	emu_config_default(&cfg, EMU_MODEL_SKYLAKE);
	assert_non_null(pmu);
	assert_int_equal(emu_pmu_init(pmu, &cfg, dir), 0);
	assert_int_equal(emu_cpu_type(pmu, 0)->fixed_mask, 0x5);
	assert_int_equal(rd(pmu, 0, msr_fixed_ctr(2)), 0);
	assert_int_equal(emu_rdmsr(pmu, 0, msr_fixed_ctr(1), &val), -EIO);
	wr(pmu, 0, MSR_IA32_FIXED_CTR_CTRL, 0x303);
	wr_gp(pmu, 0, MSR_IA32_FIXED_CTR_CTRL, 0x30);
	unlink(path);
	rmdir(dir);
	free(pmu);
}

static void
test_more_than_eight_gp_counters(void **state)
{
	struct emu_pmu *arl = new_pmu(EMU_MODEL_ARROWLAKE, 2);
	const struct emu_core_type *p = emu_cpu_type(arl, 0), *e = emu_cpu_type(arl, 1);
	uint64_t val;

	(void)state;
	assert_int_equal(p->gp_mask, 0x3ff);
	assert_int_equal(e->gp_mask, 0xff);
	/* IA32_PMC9 0xCA, IA32_PERFEVTSEL9 0x18F, IA32_A_PMC9 0x4CA (table 2-2). */
	wr(arl, 0, msr_evtsel(9), EVTSEL_COUNT(0xc0, 0, EVTSEL_USR));
	wr(arl, 0, msr_a_pmc(9), 0x123456789abcull);
	assert_int_equal(rd(arl, 0, msr_pmc(9)), 0x123456789abcull);
	wr(arl, 0, MSR_IA32_PERF_GLOBAL_CTRL, 1ull << 9);
	emu_retire(arl, 0, 0xc0, 0, 3, 4);
	assert_int_equal(rd(arl, 0, msr_pmc(9)), 0x123456789ac0ull);
	assert_int_equal(emu_rdpmc(arl, 0, 9, &val), 0);
	assert_int_equal(rd(arl, 0, MSR_IA32_PERF_GLOBAL_INUSE), 1ull << 9);
	assert_int_equal(emu_rdmsr(arl, 0, msr_pmc(10), &val), -EIO);
	assert_int_equal(emu_rdmsr(arl, 1, msr_pmc(8), &val), -EIO);
	assert_int_equal(emu_rdmsr(arl, 1, msr_evtsel(8), &val), -EIO);
	assert_int_equal(emu_rdpmc(arl, 1, 8, &val), -EIO);
	wr_gp(arl, 1, MSR_IA32_PERF_GLOBAL_CTRL, 1ull << 8);
	emu_pmu_free(arl);
}

static void
test_fixed_counters_beyond_four(void **state)
{
	struct emu_pmu *arl = new_pmu(EMU_MODEL_ARROWLAKE, 2);
	uint64_t val;

	(void)state;
	/* Skymont: fixed 0-2 and 4-6 at 0x309 + i, no fixed counter 3. */
	assert_int_equal(emu_cpu_type(arl, 1)->fixed_mask, 0x77);
	assert_int_equal(emu_rdmsr(arl, 1, msr_fixed_ctr(3), &val), -EIO);
	assert_int_equal(emu_rdpmc(arl, 1, RDPMC_FIXED | 3, &val), -EIO);
	wr_gp(arl, 1, MSR_IA32_FIXED_CTR_CTRL, 0x2000);
	wr_gp(arl, 1, MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_FIXED_BIT(3));
	wr(arl, 1, MSR_IA32_FIXED_CTR_CTRL, 0x2220000);
	wr(arl, 1, MSR_IA32_PERF_GLOBAL_CTRL, 0x70ull << 32);
	emu_retire(arl, 1, 0x73, 0x00, 3, 4);	/* bad speculation */
	emu_retire(arl, 1, 0x9c, 0x01, 3, 5);	/* frontend bound */
	emu_retire(arl, 1, 0xc2, 0x02, 3, 6);	/* retiring */
	assert_int_equal(rd(arl, 1, 0x30d), 4);
	assert_int_equal(rd(arl, 1, 0x30e), 5);
	assert_int_equal(rd(arl, 1, 0x30f), 6);
	assert_int_equal(emu_rdpmc(arl, 1, RDPMC_FIXED | 6, &val), 0);
	assert_int_equal(val, 6);
	assert_int_equal(rd(arl, 1, MSR_IA32_PERF_GLOBAL_INUSE), 0x70ull << 32);
	/* Lion Cove: fixed 0-3, none beyond. */
	assert_int_equal(emu_rdmsr(arl, 0, 0x30d, &val), -EIO);
	assert_int_equal(rd(arl, 0, msr_fixed_ctr(3)), 0);
	emu_pmu_free(arl);
}

static void
test_v6_msr_aliases(void **state)
{
	struct emu_pmu *arl = new_pmu(EMU_MODEL_ARROWLAKE, 2);
	struct emu_pmu *icl = new_pmu(EMU_MODEL_ICELAKE, 1);
	uint64_t val;

	(void)state;
	wr(arl, 0, EMU_MSR_V6_GP0_CFG_A + 4 * 9, 0x4100c0);
	assert_int_equal(rd(arl, 0, msr_evtsel(9)), 0x4100c0);
	wr(arl, 0, EMU_MSR_V6_GP0_CTR + 4 * 9, 0xffff00000000ull);	/* full width */
	assert_int_equal(rd(arl, 0, msr_pmc(9)), 0xffff00000000ull);
	wr(arl, 0, EMU_MSR_V6_FX0_CTR + 4 * 3, 77);
	assert_int_equal(rd(arl, 0, msr_fixed_ctr(3)), 77);
	assert_int_equal(emu_rdmsr(arl, 1, EMU_MSR_V6_FX0_CTR + 4 * 3, &val), -EIO);
	assert_int_equal(rd(arl, 1, EMU_MSR_V6_FX0_CTR + 4 * 6), 0);
	/* Auto-reload's CFG_B/CFG_C only where CPUID.23H.2 gives them (the E-core's GP 2-7); before v6 no alias exists. */
	assert_int_equal(emu_rdmsr(arl, 0, EMU_MSR_V6_GP0_CTR + 2, &val), -EIO);
	assert_int_equal(emu_rdmsr(icl, 0, EMU_MSR_V6_GP0_CTR, &val), -EIO);
	emu_pmu_free(arl);
	emu_pmu_free(icl);
}

/*
 * v6 auto counter reload (CPUID.23H.2, the Skymont E-core: GP 2-7): GP2's
 * CFG_B names GP3, so GP3's overflow reloads GP2 with CFG_C; a bit
 * CPUID does not give as a cause faults, and the P-core has no CFG_B.
 */
static void
test_v6_auto_counter_reload(void **state)
{
	struct emu_pmu *arl = new_pmu(EMU_MODEL_ARROWLAKE, 2);
	uint64_t val;

	(void)state;
	wr(arl, 1, EMU_MSR_V6_GP0_CFG_B + 4 * 2, 1u << 3);
	wr(arl, 1, EMU_MSR_V6_GP0_CFG_C + 4 * 2, 100);
	assert_int_equal(emu_wrmsr(arl, 1, EMU_MSR_V6_GP0_CFG_B + 4 * 2, 1u << 0), -EIO);
	assert_int_equal(emu_rdmsr(arl, 0, EMU_MSR_V6_GP0_CFG_B + 4 * 2, &val), -EIO);
	wr(arl, 1, msr_evtsel(3), 0x4100c0);
	wr(arl, 1, msr_evtsel(2), 0x41003c);
	wr(arl, 1, MSR_IA32_PERF_GLOBAL_CTRL, 0xc);
	wr(arl, 1, EMU_MSR_V6_GP0_CTR + 4 * 3, (1ull << 48) - 1);
	assert_int_equal(emu_retire(arl, 1, 0x3c, 0, 3, 7), 0);
	assert_int_equal(rd(arl, 1, msr_pmc(2)), 7);
	assert_int_equal(emu_retire(arl, 1, 0xc0, 0, 3, 1), 0);
	assert_int_equal(rd(arl, 1, msr_pmc(2)), 100);
	emu_pmu_free(arl);
}

static void
test_v6_evtsel_eq_umask2(void **state)
{
	struct emu_pmu *arl = new_pmu(EMU_MODEL_ARROWLAKE, 1);
	struct emu_pmu *icl = new_pmu(EMU_MODEL_ICELAKE, 1);

	(void)state;
	/* CPUID.23H.0:EBX[0] UMASK2 [47:40], EBX[1] EQ [36]. */
	wr(arl, 0, msr_evtsel(0), EVTSEL_COUNT(0xa3, 0x04, EVTSEL_USR | EVTSEL_CMASK(4) |
						EVTSEL_EQ));
	wr(arl, 0, msr_evtsel(1), EVTSEL_COUNT(0xa3, 0x04, EVTSEL_USR | EVTSEL_UMASK2(1)));
	wr_gp(arl, 0, msr_evtsel(2), 1ull << 37);
	wr_gp(icl, 0, msr_evtsel(0), EVTSEL_EQ);
	wr_gp(icl, 0, msr_evtsel(0), EVTSEL_UMASK2(1));
	/* EQ: the condition is "equal to CMASK"; a UMASK2 this workload never retires. */
	emu_retire(arl, 0, 0xa3, 0x04, 3, 4);
	emu_retire(arl, 0, 0xa3, 0x04, 3, 5);
	assert_int_equal(rd(arl, 0, msr_pmc(0)), 1);
	assert_int_equal(rd(arl, 0, msr_pmc(1)), 0);
	emu_pmu_free(arl);
	emu_pmu_free(icl);
}

static void
test_tsx_bits(void **state)
{
	struct emu_pmu *sky = new_pmu(EMU_MODEL_SKYLAKE, 1);
	struct emu_pmu *hsw = new_pmu(EMU_MODEL_HASWELL, 1);
	struct emu_pmu *icl = new_pmu(EMU_MODEL_ICELAKE, 1);
	uint64_t cycles = EVTSEL_COUNT(0x3c, 0, EVTSEL_USR);

	(void)state;
	/* The i7-6700K has HLE and RTM: IN_TX anywhere, IN_TXCP on EVTSEL2 only. */
	wr(sky, 0, msr_evtsel(0), cycles | (1ull << 32));
	wr_gp(sky, 0, msr_evtsel(0), cycles | (1ull << 33));
	wr_gp(sky, 0, msr_evtsel(3), cycles | (1ull << 33));
	wr(sky, 0, msr_evtsel(2), cycles | (3ull << 32));
	/* The i7-4770 and i7-1065G7 dumps enumerate neither: both reserved. */
	wr_gp(hsw, 0, msr_evtsel(0), cycles | (1ull << 32));
	wr_gp(hsw, 0, msr_evtsel(2), cycles | (1ull << 33));
	wr_gp(icl, 0, msr_evtsel(2), cycles | (1ull << 32));
	emu_pmu_free(sky);
	emu_pmu_free(hsw);
	emu_pmu_free(icl);
}

static void
test_anythread_per_model(void **state)
{
	static const struct {
		enum emu_model model;
		bool ok;
	} want[] = {
		{ EMU_MODEL_CORE2, false },	/* v2 */
		{ EMU_MODEL_HASWELL, true },	/* v3 */
		{ EMU_MODEL_SKYLAKE, true },	/* v4 */
		{ EMU_MODEL_ICELAKE, false },	/* deprecated: CPUID.0AH:EDX[15] */
		{ EMU_MODEL_ALDERLAKE, false },
		{ EMU_MODEL_ARROWLAKE, false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct emu_pmu *pmu = new_pmu(want[i].model, 1);

		assert_int_equal(emu_wrmsr(pmu, 0, msr_evtsel(0), EVTSEL_ANY),
				 want[i].ok ? 0 : -EIO);
		assert_int_equal(emu_wrmsr(pmu, 0, MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_ANY),
				 want[i].ok ? 0 : -EIO);
		emu_pmu_free(pmu);
	}
}

static void
test_adaptive_pebs_bits(void **state)
{
	struct emu_pmu *icl = new_pmu(EMU_MODEL_ICELAKE, 1);
	struct emu_pmu *sky = new_pmu(EMU_MODEL_SKYLAKE, 1);

	(void)state;
	/* With PEBS baseline: EVTSEL[34] and FIXED_CTR_CTRL[32 + 4i]. */
	wr(icl, 0, msr_evtsel(0), 1ull << 34);
	wr(icl, 0, MSR_IA32_FIXED_CTR_CTRL, (1ull << 32) | (1ull << 44));
	wr_gp(icl, 0, MSR_IA32_FIXED_CTR_CTRL, 1ull << 48);	/* FC4: none */
	wr_gp(sky, 0, msr_evtsel(0), 1ull << 34);
	wr_gp(sky, 0, MSR_IA32_FIXED_CTR_CTRL, 1ull << 32);
	emu_pmu_free(icl);
	emu_pmu_free(sky);
}

/* Fixed counter 3 counting user slots, and PERF_METRICS enabled. */
static void
slots_on(struct emu_pmu *pmu, unsigned cpu, bool metrics)
{
	wr(pmu, cpu, MSR_IA32_FIXED_CTR_CTRL, 0x2000);
	wr(pmu, cpu, MSR_IA32_PERF_GLOBAL_CTRL,
	   GLOBAL_FIXED_BIT(3) | (metrics ? EMU_GLOBAL_CTRL_PERF_METRICS : 0));
}

static void
test_perf_metrics_exists_per_capabilities(void **state)
{
	struct emu_pmu *sky = new_pmu(EMU_MODEL_SKYLAKE, 1);
	struct emu_pmu *icl = new_pmu(EMU_MODEL_ICELAKE, 1);
	struct emu_pmu *adl = new_pmu(EMU_MODEL_ALDERLAKE, 2);
	uint64_t val;

	(void)state;
	assert_int_equal(emu_rdmsr(sky, 0, EMU_MSR_PERF_METRICS, &val), -EIO);
	wr_gp(sky, 0, MSR_IA32_PERF_GLOBAL_CTRL, EMU_GLOBAL_CTRL_PERF_METRICS);
	/* Ice Lake: the four level-1 bytes; the upper half is reserved. */
	assert_int_equal(rd(icl, 0, EMU_MSR_PERF_METRICS), 0);
	wr_gp(icl, 0, EMU_MSR_PERF_METRICS, 1ull << 32);
	/* Golden Cove P-core: eight; the Gracemont E-core: none (no PERF_CAPABILITIES[15]). */
	wr(adl, 0, msr_fixed_ctr(3), 1);
	wr(adl, 0, EMU_MSR_PERF_METRICS, 0xff00000000ull);
	assert_int_equal(emu_rdmsr(adl, 1, EMU_MSR_PERF_METRICS, &val), -EIO);
	assert_int_equal(emu_rdpmc(adl, 1, EMU_RDPMC_METRICS, &val), -EIO);
	assert_int_equal(emu_rdpmc(sky, 0, EMU_RDPMC_METRICS, &val), -EIO);
	emu_pmu_free(sky);
	emu_pmu_free(icl);
	emu_pmu_free(adl);
}

static void
test_perf_metrics_fractions(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_ICELAKE, 1);
	uint64_t val;

	(void)state;
	slots_on(pmu, 0, true);
	assert_int_equal(emu_retire_topdown(pmu, 0, 3, TD(100, 50, 30, 20)), 0);
	assert_int_equal(rd(pmu, 0, msr_fixed_ctr(3)), 200);
	/*
	 * 127.5, 63.75, 38.25, 25.5 of 0xFF: floors 127, 63, 38, 25; the two
	 * units left go to the largest remainders (.75, then .5 on the lower
	 * byte), so the bytes sum to 0xFF.
	 */
	assert_int_equal(rd(pmu, 0, EMU_MSR_PERF_METRICS), 0x19264080);
	assert_int_equal(emu_rdpmc(pmu, 0, EMU_RDPMC_METRICS, &val), 0);
	assert_int_equal(val, 0x19264080);
	/* More slots weigh in with the earlier ones. */
	assert_int_equal(emu_retire_topdown(pmu, 0, 3, TD(0, 0, 0, 200)), 0);
	assert_int_equal(rd(pmu, 0, msr_fixed_ctr(3)), 400);
	assert_int_equal(rd(pmu, 0, EMU_MSR_PERF_METRICS), 0x8c132040);
	/* Kernel slots do not count in a user-only fixed counter. */
	assert_int_equal(emu_retire_topdown(pmu, 0, 0, TD(1000, 0, 0, 0)), 0);
	assert_int_equal(rd(pmu, 0, msr_fixed_ctr(3)), 400);
	assert_int_equal(rd(pmu, 0, EMU_MSR_PERF_METRICS), 0x8c132040);
	emu_pmu_free(pmu);
}

static void
test_perf_metrics_needs_global_ctrl_48(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_ICELAKE, 1);

	(void)state;
	slots_on(pmu, 0, false);
	emu_retire_topdown(pmu, 0, 3, TD(100, 50, 30, 20));
	assert_int_equal(rd(pmu, 0, msr_fixed_ctr(3)), 200);
	assert_int_equal(rd(pmu, 0, EMU_MSR_PERF_METRICS), 0);
	/* Nor without fixed counter 3 counting. */
	wr(pmu, 0, MSR_IA32_PERF_GLOBAL_CTRL, EMU_GLOBAL_CTRL_PERF_METRICS);
	wr(pmu, 0, msr_fixed_ctr(3), 0);
	emu_retire_topdown(pmu, 0, 3, TD(100, 50, 30, 20));
	assert_int_equal(rd(pmu, 0, msr_fixed_ctr(3)), 0);
	assert_int_equal(rd(pmu, 0, EMU_MSR_PERF_METRICS), 0);
	emu_pmu_free(pmu);
}

static void
test_perf_metrics_reset_and_restore(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_ICELAKE, 1);

	(void)state;
	slots_on(pmu, 0, true);
	emu_retire_topdown(pmu, 0, 3, TD(100, 50, 30, 20));
	/* Zero to both, counter first: the metrics start afresh. */
	wr(pmu, 0, msr_fixed_ctr(3), 0);
	wr(pmu, 0, EMU_MSR_PERF_METRICS, 0);
	assert_int_equal(rd(pmu, 0, EMU_MSR_PERF_METRICS), 0);
	emu_retire_topdown(pmu, 0, 3, TD(0, 0, 51, 204));
	assert_int_equal(rd(pmu, 0, EMU_MSR_PERF_METRICS), 0xcc330000);
	/* A saved pair written back (counter first) reads back bit for bit. */
	wr(pmu, 0, msr_fixed_ctr(3), 7);
	wr(pmu, 0, EMU_MSR_PERF_METRICS, 0x19264080);
	assert_int_equal(rd(pmu, 0, EMU_MSR_PERF_METRICS), 0x19264080);
	/* In the wrong order the metrics have nothing to scale by and are lost. */
	wr(pmu, 0, msr_fixed_ctr(3), 0);
	wr(pmu, 0, EMU_MSR_PERF_METRICS, 0x19264080);
	wr(pmu, 0, msr_fixed_ctr(3), 7);
	assert_int_equal(rd(pmu, 0, EMU_MSR_PERF_METRICS), 0);
	emu_pmu_free(pmu);
}

static void
test_perf_metrics_level_2(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_ALDERLAKE, 1);

	(void)state;
	slots_on(pmu, 0, true);
	/* Heavy ops, branch mispredicts, fetch latency, memory bound: parts of L1. */
	assert_int_equal(emu_retire_topdown(pmu, 0, 3, TD(100, 50, 30, 20, 51, 50, 0, 10)), 0);
	assert_int_equal(rd(pmu, 0, EMU_MSR_PERF_METRICS), 0x0d00404119264080ull);
	assert_int_equal(emu_retire_topdown(pmu, 0, 3, TD(1, 1, 1, 1, 2, 0, 0, 0)), -EINVAL);
	assert_int_equal(rd(pmu, 0, msr_fixed_ctr(3)), 200);
	/*
	 * Fetch latency 2 of 1000 slots rounds to 1, but its parent frontend
	 * bound lost the last unit to retiring and bad speculation: capped at 0.
	 */
	wr(pmu, 0, msr_fixed_ctr(3), 0);
	wr(pmu, 0, EMU_MSR_PERF_METRICS, 0);
	assert_int_equal(emu_retire_topdown(pmu, 0, 3, TD(2, 2, 2, 994, 0, 0, 2, 0)), 0);
	assert_int_equal(rd(pmu, 0, EMU_MSR_PERF_METRICS), 0xfd000101ull);
	emu_pmu_free(pmu);
}

static void
test_topdown_architectural_events(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_ARROWLAKE, 2);

	(void)state;
	/* GP counters see the architectural top-down events; E-cores their fixed ones. */
	wr(pmu, 0, msr_evtsel(0), EVTSEL_COUNT(0xa4, 0x01, EVTSEL_USR));
	wr(pmu, 0, msr_evtsel(1), EVTSEL_COUNT(0xa4, 0x02, EVTSEL_USR));
	wr(pmu, 0, msr_evtsel(9), EVTSEL_COUNT(0xc2, 0x02, EVTSEL_USR));
	wr(pmu, 0, MSR_IA32_PERF_GLOBAL_CTRL, 0x203);
	emu_retire_topdown(pmu, 0, 3, TD(10, 20, 30, 40));
	assert_int_equal(rd(pmu, 0, msr_pmc(0)), 100);
	assert_int_equal(rd(pmu, 0, msr_pmc(1)), 40);
	assert_int_equal(rd(pmu, 0, msr_pmc(9)), 10);
	wr(pmu, 1, MSR_IA32_FIXED_CTR_CTRL, 0x2220000);
	wr(pmu, 1, MSR_IA32_PERF_GLOBAL_CTRL, 0x70ull << 32);
	emu_retire_topdown(pmu, 1, 3, TD(10, 20, 30, 40));
	assert_int_equal(rd(pmu, 1, 0x30d), 20);
	assert_int_equal(rd(pmu, 1, 0x30e), 30);
	assert_int_equal(rd(pmu, 1, 0x30f), 10);
	emu_pmu_free(pmu);
}

static void
test_offcore_counts_through_its_msr(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKE, 1);

	(void)state;
	wr(pmu, 0, msr_evtsel(0), EVTSEL_COUNT(0xb7, 0x01, EVTSEL_USR));
	wr(pmu, 0, msr_evtsel(1), EVTSEL_COUNT(0xbb, 0x01, EVTSEL_USR));
	wr(pmu, 0, MSR_OFFCORE_RSP_0, 0x10001);
	wr(pmu, 0, MSR_OFFCORE_RSP_1, 0x3fbc000001ull);
	assert_int_equal(emu_retire_offcore(pmu, 0, 3, 0x10001, 100), 0);
	assert_int_equal(emu_retire_offcore(pmu, 0, 3, 0x3fbc000001ull, 7), 0);
	assert_int_equal(emu_retire_offcore(pmu, 0, 3, 0x10002, 5), 0);
	assert_int_equal(rd(pmu, 0, msr_pmc(0)), 100);
	assert_int_equal(rd(pmu, 0, msr_pmc(1)), 7);
	/* The offcore events count responses only, not plain retires. */
	emu_retire(pmu, 0, 0xb7, 0x01, 3, 1000);
	assert_int_equal(rd(pmu, 0, msr_pmc(0)), 100);
	emu_pmu_free(pmu);
}

static void
test_offcore_events_per_model(void **state)
{
	struct emu_pmu *adl = new_pmu(EMU_MODEL_ALDERLAKE, 2);
	struct emu_pmu *c2 = new_pmu(EMU_MODEL_CORE2, 1);
	struct emu_action a = { .kind = EMU_ACT_OFFCORE, .val = 1, .n = 1, .ring = 3 };

	(void)state;
	/* Golden Cove 0x2A/0x2B; Gracemont 0xB7 umask 1/2. */
	wr(adl, 0, msr_evtsel(0), EVTSEL_COUNT(0x2b, 0x01, EVTSEL_USR));
	wr(adl, 0, MSR_OFFCORE_RSP_1, 1);
	wr(adl, 1, msr_evtsel(0), EVTSEL_COUNT(0xb7, 0x02, EVTSEL_USR));
	wr(adl, 1, MSR_OFFCORE_RSP_1, 1);
	assert_int_equal(emu_act(adl, 0, &a), 0);
	assert_int_equal(emu_act(adl, 1, &a), 0);
	assert_int_equal(rd(adl, 0, msr_pmc(0)), 1);
	assert_int_equal(rd(adl, 1, msr_pmc(0)), 1);
	assert_int_equal(emu_act(c2, 0, &a), -EOPNOTSUPP);
	emu_pmu_free(adl);
	emu_pmu_free(c2);
}

/*
 * The machine's shape (smt/active, cpu/online, cpu0's core and package
 * lists) per model, with threads per core as its CPUID says.
 */
static void
test_topology_files_per_model(void **state)
{
	static const struct {
		enum emu_model model;
		unsigned ncpus, pcores;
		const char *smt, *online, *core;
	} cases[] = {
		{ EMU_MODEL_SKYLAKE, 8, 0, "1\n", "0-7\n", "0-1\n" },	/* leaf 0BH: 2 threads */
		{ EMU_MODEL_ICELAKE, 4, 0, "1\n", "0-3\n", "0-1\n" },
		{ EMU_MODEL_HASWELL, 1, 0, "0\n", "0\n", "0\n" },	/* the sibling is not there */
		{ EMU_MODEL_CORE2, 4, 0, "0\n", "0-3\n", "0\n" },	/* leaves 1 and 4: 4 of 4 cores */
		{ EMU_MODEL_ALDERLAKE, 6, 2, "1\n", "0-5\n", "0-1\n" },	/* P-cores have two */
		{ EMU_MODEL_ALDERLAKE, 6, 1, "0\n", "0-5\n", "0\n" },	/* one P-core thread */
		{ EMU_MODEL_ARROWLAKE, 4, 0, "0\n", "0-3\n", "0\n" },	/* no HT on Lion Cove */
		{ EMU_MODEL_NOPMU, 2, 0, "0\n", "0-1\n", "0\n" },	/* no HTT */
		{ EMU_MODEL_NETBURST, 2, 0, "0\n", "0-1\n", "0\n" },	/* HTT, one logical */
		{ EMU_MODEL_NETBURST_HT, 4, 0, "1\n", "0-3\n", "0-1\n" },	/* HTT, two in one core */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct emu_config cfg;
		struct emu_pmu *pmu;

		emu_config_default(&cfg, cases[i].model);
		cfg.ncpus = cases[i].ncpus;
		cfg.pcores = cases[i].pcores;
		pmu = emu_pmu_new(&cfg);
		assert_non_null(pmu);
		assert_string_equal(emu_file(pmu, HW_FILE_SMT_ACTIVE), cases[i].smt);
		assert_string_equal(emu_file(pmu, HW_FILE_CPUS_ONLINE), cases[i].online);
		assert_string_equal(emu_file(pmu, HW_FILE_CPU0_PACKAGE_CPUS), cases[i].online);
		assert_string_equal(emu_file(pmu, HW_FILE_CPU0_CORE_CPUS), cases[i].core);
		emu_pmu_free(pmu);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf_0x23_answers),
		cmocka_unit_test(test_v5_fixed_counter_bitmap),
		cmocka_unit_test(test_more_than_eight_gp_counters),
		cmocka_unit_test(test_fixed_counters_beyond_four),
		cmocka_unit_test(test_v6_msr_aliases),
		cmocka_unit_test(test_v6_evtsel_eq_umask2),
		cmocka_unit_test(test_v6_auto_counter_reload),
		cmocka_unit_test(test_tsx_bits),
		cmocka_unit_test(test_anythread_per_model),
		cmocka_unit_test(test_adaptive_pebs_bits),
		cmocka_unit_test(test_perf_metrics_exists_per_capabilities),
		cmocka_unit_test(test_perf_metrics_fractions),
		cmocka_unit_test(test_perf_metrics_needs_global_ctrl_48),
		cmocka_unit_test(test_perf_metrics_reset_and_restore),
		cmocka_unit_test(test_perf_metrics_level_2),
		cmocka_unit_test(test_topdown_architectural_events),
		cmocka_unit_test(test_offcore_counts_through_its_msr),
		cmocka_unit_test(test_offcore_events_per_model),
		cmocka_unit_test(test_topology_files_per_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
