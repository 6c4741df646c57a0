/*
 * test_nb_sibling.c - which logical CPU shares a NetBurst core's PMU
 * (target_nb_core()): found by the initial APIC IDs the CPUs' CPUID gives
 * (bit 0 the thread), wherever the kernel numbered the threads: 2k and
 * 2k+1, or k and k + N/2 as Linux numbers many machines, and on machines
 * with more CPUs than the host running the test (the in-process emulated
 * PMU answers CPUID for any of its CPUs).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "emu_hw.h"
#include "emu_pmu.h"
#include "engine/target.h"
#include "events/cpu_source.h"
#include "hw/hw.h"

/* Core @core's thread and sibling on @pmu, as a run on it finds them. */
static void
lookup(struct emu_pmu *pmu, int core, unsigned *thread, int *sibling)
{
	struct hw *hw = emu_hw_new(pmu);
	struct netburst_caps nb;
	struct target t;

	assert_non_null(hw);
	memset(&t, 0, sizeof(t));
	t.live = true;
	t.core = core;
	assert_int_equal(cpu_source_load(hw, NULL, core, &t.cpu, NULL, NULL), 0);
	assert_true(t.cpu.netburst.present);
	assert_int_equal(target_nb_core(&t, hw, core, &nb, sibling), 0);
	*thread = nb.thread;
	emu_hw_free(hw);
}

static struct emu_pmu *
machine(enum emu_model model, unsigned ncpus, bool split)
{
	struct emu_config cfg;
	struct emu_pmu *pmu;

	emu_config_default(&cfg, model);
	cfg.ncpus = ncpus;
	cfg.nb_ht_split = split;
	pmu = emu_pmu_new(&cfg);
	assert_non_null(pmu);
	return pmu;
}

/* 2k and 2k+1: the emulator's default numbering. */
static void
test_adjacent_threads(void **state)
{
	struct emu_pmu *pmu = machine(EMU_MODEL_NETBURST_HT, 8, false);

	(void)state;
	for (int cpu = 0; cpu < 8; cpu++) {
		unsigned thread;
		int sibling;

		lookup(pmu, cpu, &thread, &sibling);
		assert_int_equal(thread, (unsigned)cpu & 1);
		assert_int_equal(sibling, cpu ^ 1);
	}
	emu_pmu_free(pmu);
}

/*
 * k and k + N/2 (every core's first thread, then the second ones): CPU 1
 * is another core's thread 0, not CPU 0's sibling; the sibling is found
 * beyond the CPUs of the host the test runs on.
 */
static void
test_split_threads(void **state)
{
	static const unsigned sizes[] = { 2, 6, 8, 16 };

	(void)state;
	for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		unsigned n = sizes[s], half = n / 2;
		struct emu_pmu *pmu = machine(EMU_MODEL_NETBURST_HT, n, true);

		for (unsigned cpu = 0; cpu < n; cpu++) {
			unsigned thread;
			int sibling;

			lookup(pmu, (int)cpu, &thread, &sibling);
			assert_int_equal(thread, cpu >= half);
			assert_int_equal(sibling, (int)(cpu >= half ? cpu - half : cpu + half));
		}
		emu_pmu_free(pmu);
	}
}

/* No Hyper-Threading: every thread 0, no sibling. */
static void
test_no_ht(void **state)
{
	struct emu_pmu *pmu = machine(EMU_MODEL_NETBURST, 4, false);

	(void)state;
	for (int cpu = 0; cpu < 4; cpu++) {
		unsigned thread;
		int sibling;

		lookup(pmu, cpu, &thread, &sibling);
		assert_int_equal(thread, 0);
		assert_int_equal(sibling, -1);
	}
	emu_pmu_free(pmu);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_adjacent_threads),
		cmocka_unit_test(test_split_threads),
		cmocka_unit_test(test_no_ht),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
