/*
 * The emulated AMD Zen core PMU against the APM's rules (emu_zen.h): its
 * CPUID, both enable gates, reserved bits, the 48-bit wrap and
 * GlobalStatus, the legacy aliases, rdpmc, the watchdog preset, another
 * user's GlobalCtl and PERF_CTL writes mid-run, and pmustat's detection
 * of each model.
 */
#include <stdlib.h>
#include <string.h>

#include <libcpuid/libcpuid.h>

#include "emu_zen.h"
#include "events/cpu.h"
#include "test_emu_util.h"

#define CTL(i)		(0xc0010200u + 2 * (i))
#define CTR(i)		(0xc0010201u + 2 * (i))
#define GCTL		0xc0000301u
#define GSTATUS		0xc0000300u
#define GCLR		0xc0000302u
#define USR		(1ull << 16)
#define OS		(1ull << 17)
#define INT		(1ull << 20)
#define EN		(1ull << 22)
#define MASK48		((1ull << 48) - 1)

static struct emu_pmu *
zen(enum emu_model model, bool watchdog)
{
	struct emu_config cfg;
	struct emu_pmu *pmu;

	emu_config_default(&cfg, model);
	cfg.ncpus = 2;
	cfg.watchdog = watchdog;
	pmu = emu_pmu_new(&cfg);
	assert_non_null(pmu);
	return pmu;
}

static void
decode(struct emu_pmu *pmu, struct cpu_info *c)
{
	struct cpu_raw_data_t raw;
	struct cpu_leaf23 l23;

	memset(&l23, 0, sizeof(l23));
	assert_int_equal(emu_cpuid_raw(pmu, 0, &raw), 0);
	if (emu_cpuid(pmu, 0, 0x80000022u, 0, l23.ext22) == 0)
		l23.ext22_read = true;
	cpu_decode_ext(&raw, &l23, c);
}

/* pmustat reads each model as the CPU it stands for, from CPUID alone. */
static void
test_cpuid(void **state)
{
	static const struct {
		enum emu_model model;
		unsigned family;
		bool v2;
	} models[] = {
		{ EMU_MODEL_ZEN2, 0x17, false },
		{ EMU_MODEL_ZEN4, 0x19, true },
		{ EMU_MODEL_ZEN5, 0x1a, true },
	};

	(void)state;
	for (unsigned m = 0; m < sizeof(models) / sizeof(models[0]); m++) {
		struct emu_pmu *pmu = zen(models[m].model, false);
		struct cpu_info c;

		decode(pmu, &c);
		assert_int_equal(c.vendor, CPU_VENDOR_AMD);
		assert_int_equal(c.family, models[m].family);
		assert_true(c.pmu.ext_counters);
		assert_int_equal(c.pmu.global_regs, models[m].v2);
		assert_int_equal(c.pmu.gp_counters, 6);
		assert_int_equal(c.pmu.version, 0);
		free(pmu);
	}
}

/* A counter counts only when its GlobalCtl bit AND its En are set, and in the rings it selects. */
static void
test_both_gates(void **state)
{
	struct emu_pmu *pmu = zen(EMU_MODEL_ZEN4, false);

	(void)state;
	assert_int_equal(rd(pmu, 0, GCTL), 0x3f);
	wr(pmu, 0, CTL(1), 0xc0 | USR | EN);
	assert_int_equal(emu_zen_retire(pmu, 0, 0xc0, 0, 3, 100), 0);
	assert_int_equal(rd(pmu, 0, CTR(1)), 100);
	/* Kernel-mode instructions: USR only. */
	assert_int_equal(emu_zen_retire(pmu, 0, 0xc0, 0, 0, 7), 0);
	assert_int_equal(rd(pmu, 0, CTR(1)), 100);
	/* GlobalCtl bit clear: En alone does not count. */
	wr(pmu, 0, GCTL, 0x3f & ~2ull);
	assert_int_equal(emu_zen_retire(pmu, 0, 0xc0, 0, 3, 50), 0);
	assert_int_equal(rd(pmu, 0, CTR(1)), 100);
	/* GlobalCtl bit set, En clear: nothing either. */
	wr(pmu, 0, GCTL, 0x3f);
	wr(pmu, 0, CTL(1), 0xc0 | USR);
	assert_int_equal(emu_zen_retire(pmu, 0, 0xc0, 0, 3, 50), 0);
	assert_int_equal(rd(pmu, 0, CTR(1)), 100);
	/* Zen 2 has no GlobalCtl: En alone counts, and the global registers #GP. */
	free(pmu);
	pmu = zen(EMU_MODEL_ZEN2, false);
	wr_gp(pmu, 0, GCTL, 0);
	wr_gp(pmu, 0, GCLR, 1);
	wr(pmu, 0, CTL(5), 0x76 | USR | OS | EN);
	assert_int_equal(emu_retire(pmu, 0, 0x3c, 0, 0, 9), 0);
	assert_int_equal(rd(pmu, 0, CTR(5)), 9);
	free(pmu);
}

/* The 12-bit event select (7:0 and 35:32) and the legacy addresses as the first four counters. */
static void
test_event_select_and_aliases(void **state)
{
	struct emu_pmu *pmu = zen(EMU_MODEL_ZEN5, false);

	(void)state;
	wr(pmu, 0, CTL(0), 0x0c | (1ull << 32) | USR | EN);	/* event 0x10C */
	assert_int_equal(emu_zen_retire(pmu, 0, 0x0c, 0, 3, 5), 0);
	assert_int_equal(rd(pmu, 0, CTR(0)), 0);
	assert_int_equal(emu_zen_retire(pmu, 0, 0x10c, 0, 3, 5), 0);
	assert_int_equal(rd(pmu, 0, CTR(0)), 5);
	assert_int_equal(rd(pmu, 0, 0xc0010004u), 5);
	wr(pmu, 0, 0xc0010003u, 0xc2 | USR | EN);
	assert_int_equal(rd(pmu, 0, CTL(3)), 0xc2 | USR | EN);
	free(pmu);
}

/* Reserved bits #GP and change nothing; GlobalStatus is read only. */
static void
test_reserved_bits(void **state)
{
	struct emu_pmu *pmu = zen(EMU_MODEL_ZEN4, false);

	(void)state;
	wr(pmu, 0, CTL(2), 0xc0 | USR | EN | (1ull << 40) | (1ull << 41));
	wr_gp(pmu, 0, CTL(2), 1ull << 42);
	wr_gp(pmu, 0, CTL(2), 1ull << 36);
	wr_gp(pmu, 0, CTL(2), 1ull << 21);
	wr_gp(pmu, 0, CTL(2), 1ull << 19);
	wr_gp(pmu, 0, CTR(2), 1ull << 48);
	wr_gp(pmu, 0, GCTL, 1ull << 6);
	wr_gp(pmu, 0, GSTATUS, 0);
	wr_gp(pmu, 0, CTL(6), 0);
	wr_gp(pmu, 0, 0x186, 0);
	free(pmu);
}

/* 48-bit wrap sets GlobalStatus; StatusClr clears it; rdpmc reads counter ECX. */
static void
test_wrap_and_status(void **state)
{
	struct emu_pmu *pmu = zen(EMU_MODEL_ZEN4, false);
	uint64_t v = 0;

	(void)state;
	wr(pmu, 1, CTL(3), 0xc2 | USR | EN);
	wr(pmu, 1, CTR(3), MASK48 - 9);
	assert_int_equal(emu_zen_retire(pmu, 1, 0xc2, 0, 3, 25), 0);
	assert_int_equal(rd(pmu, 1, CTR(3)), 15);
	assert_int_equal(rd(pmu, 1, GSTATUS), 1ull << 3);
	assert_int_equal(rd(pmu, 0, GSTATUS), 0);
	assert_int_equal(emu_rdpmc(pmu, 1, 3, &v), 0);
	assert_int_equal(v, 15);
	assert_int_equal(emu_rdpmc(pmu, 1, 6, &v), -EIO);
	wr(pmu, 1, GCLR, 1ull << 3);
	assert_int_equal(rd(pmu, 1, GSTATUS), 0);
	free(pmu);
}

/* Linux's NMI watchdog: counter 0 counting cycles with INT and En, every GlobalCtl bit set. */
static void
test_watchdog_preset(void **state)
{
	struct emu_pmu *pmu = zen(EMU_MODEL_ZEN4, true);
	uint64_t ctr;

	(void)state;
	assert_int_equal(rd(pmu, 0, CTL(0)), 0x76 | USR | OS | INT | EN);
	assert_int_equal(rd(pmu, 1, CTL(0)), 0x76 | USR | OS | INT | EN);
	assert_int_equal(rd(pmu, 0, GCTL), 0x3f);
	for (unsigned i = 1; i < 6; i++)
		assert_int_equal(rd(pmu, 0, CTL(i)), 0);
	ctr = rd(pmu, 0, CTR(0));
	assert_int_equal(emu_retire(pmu, 0, 0x3c, 0, 3, 1000), 0);
	assert_int_equal(rd(pmu, 0, CTR(0)), ctr + 1000);
	free(pmu);
}

/* Another user's GlobalCtl write mid-run stops a counter; a rewritten PERF_CTL counts its event. */
static void
test_other_user_mid_run(void **state)
{
	struct emu_pmu *pmu = zen(EMU_MODEL_ZEN4, false);

	(void)state;
	wr(pmu, 0, CTL(2), 0xc0 | USR | EN);
	assert_int_equal(emu_retire(pmu, 0, 0xc0, 0, 3, 10), 0);
	/* perf rewrites all of GlobalCtl with its own counters' bits only. */
	wr(pmu, 0, GCTL, 0x1);
	assert_int_equal(emu_retire(pmu, 0, 0xc0, 0, 3, 10), 0);
	assert_int_equal(rd(pmu, 0, CTR(2)), 10);
	wr(pmu, 0, GCTL, 0x3f);
	/* Another user takes counter 2 for branches. */
	wr(pmu, 0, CTL(2), 0xc2 | USR | OS | INT | EN);
	assert_int_equal(emu_retire(pmu, 0, 0xc0, 0, 3, 10), 0);
	assert_int_equal(emu_retire(pmu, 0, 0xc4, 0, 3, 4), 0);
	assert_int_equal(rd(pmu, 0, CTR(2)), 14);
	free(pmu);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpuid),
		cmocka_unit_test(test_both_gates),
		cmocka_unit_test(test_event_select_and_aliases),
		cmocka_unit_test(test_reserved_bits),
		cmocka_unit_test(test_wrap_and_status),
		cmocka_unit_test(test_watchdog_preset),
		cmocka_unit_test(test_other_user_mid_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
