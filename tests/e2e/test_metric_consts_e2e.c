/*
 * test_metric_consts_e2e.c - the machine constants of metric formulas come
 * from the machine pmustat runs on: metric-machine (pmustat's own
 * metric_machine_read() over hw_linux.c) under libpmuemu.so reads each
 * emulated model's sysfs shape and CPUID, not the host's, and falls back
 * to CPUID only when the files are not there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "e2e_harness.h"

#define CPUS_NAME "system.sockets[0].cpus.count * system.socket_count"

/* metric-machine's output on @m must contain every line of @want. */
static void
expect_machine(const struct e2e_machine *m, const char *const want[])
{
	struct e2e_result r;

	e2e_run(m, &r, (const char *[]){ METRIC_MACHINE, NULL });
	e2e_assert_status(&r, 0);
	for (size_t i = 0; want[i]; i++)
		e2e_assert_out_contains(&r, want[i]);
	e2e_result_free(&r);
}

static void
machine(struct e2e_machine *m, const char *model)
{
	e2e_machine_new(m, (const char *[]){ "--model", model, "--cpus", "4", NULL });
}

/* Skylake i7-6700K with four CPUs: two cores of two threads, one package. */
static void
test_skylake_shape(void **state)
{
	struct e2e_machine m;

	(void)state;
	machine(&m, "skylake");
	expect_machine(&m, (const char *[]){
		"file smt_active 1\n", "file cpus_online 0-3\n", "file cpu0_core_cpus 0-1\n",
		"file cpu0_package_cpus 0-3\n",
		"HYPERTHREADING_ON 1\n", "THREADS_PER_CORE 2\n", "SOCKET_COUNT 1\n",
		"CORES_PER_SOCKET 2\n", CPUS_NAME " 4\n",
		/* The emulated part's CPUID, not the host's: 15H has no crystal rate, 16H 4000 MHz. */
		"SYSTEM_TSC_FREQ 4000000000\n", NULL });
	e2e_machine_free(&m);
}

/* Core 2 (no leaf 0BH: CPUID alone would leave SMT unknown) and NetBurst with HT. */
static void
test_shape_without_leaf_0b(void **state)
{
	struct e2e_machine m;

	(void)state;
	machine(&m, "core2");
	expect_machine(&m, (const char *[]){ "file smt_active 0\n", "file cpu0_core_cpus 0\n",
		"HYPERTHREADING_ON 0\n", "THREADS_PER_CORE 1\n", "CORES_PER_SOCKET 4\n",
		CPUS_NAME " 4\n", NULL });
	e2e_machine_free(&m);

	machine(&m, "netburst-ht");
	expect_machine(&m, (const char *[]){ "file smt_active 1\n", "file cpu0_core_cpus 0-1\n",
		"HYPERTHREADING_ON 1\n", "THREADS_PER_CORE 2\n", "CORES_PER_SOCKET 2\n",
		"SOCKET_COUNT 1\n", NULL });
	e2e_machine_free(&m);
}

/* Without the files, CPUID's leaf 0BH alone: SMT known, the counts not. */
static void
test_cpuid_when_files_are_absent(void **state)
{
	static const char *const keys[] = { "smt_active", "cpus_online", "cpu0_core_cpus",
					     "cpu0_package_cpus" };
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	machine(&m, "skylake");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		e2e_run(&m, &r, (const char *[]){ E2E_PMU_EMU, "file", m.state, keys[i], "--absent",
			NULL });
		e2e_assert_status(&r, 0);
		e2e_result_free(&r);
	}
	expect_machine(&m, (const char *[]){ "file smt_active absent\n",
		"file cpu0_core_cpus absent\n", "HYPERTHREADING_ON 1\n", "THREADS_PER_CORE 2\n",
		"SOCKET_COUNT unknown\n", "CORES_PER_SOCKET unknown\n", CPUS_NAME " unknown\n",
		NULL });
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skylake_shape),
		cmocka_unit_test(test_shape_without_leaf_0b),
		cmocka_unit_test(test_cpuid_when_files_are_absent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
