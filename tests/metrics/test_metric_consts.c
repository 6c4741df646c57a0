/*
 * The machine constants of metric formulas (src/metrics/metric_consts.h):
 * the pure function over hand-made inputs, and the inputs read through the
 * hardware seam from the emulated machine (its sysfs files and CPUID).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "emu_hw.h"
#include "emu_pmu.h"
#include "metrics/metric_consts.h"

static bool
known(const struct metric_consts *c, enum metric_const k)
{
	return c->known & (1u << k);
}

static void
test_cpu_lists(void **state)
{
	(void)state;
	assert_int_equal(metric_cpu_list_count("0-3,8-11\n"), 8);
	assert_int_equal(metric_cpu_list_count("5"), 1);
	assert_int_equal(metric_cpu_list_count("0,4\n"), 2);
	assert_int_equal(metric_cpu_list_count(""), 0);
	assert_int_equal(metric_cpu_list_count("3-1"), 0);
	assert_int_equal(metric_cpu_list_count("0,,1"), 0);
	assert_int_equal(metric_cpu_list_count("x"), 0);
	assert_int_equal(metric_cpu_list_count("0-99999999"), 0);
}

static void
test_smt(void **state)
{
	struct metric_machine m;
	struct metric_consts c;

	(void)state;
	/* Nothing known: nothing guessed. */
	metric_machine_init(&m);
	metric_consts_compute(&m, &c);
	assert_int_equal(c.known, 0);

	/* The kernel's word wins over the topology. */
	snprintf(m.smt_active, sizeof(m.smt_active), "0\n");
	snprintf(m.core_cpus, sizeof(m.core_cpus), "0,4\n");
	m.cpuid_smt_threads = 2;
	metric_consts_compute(&m, &c);
	assert_true(known(&c, METRIC_CONST_SMT_ON));
	assert_true(c.value[METRIC_CONST_SMT_ON] == 0);
	assert_true(c.value[METRIC_CONST_THREADS] == 2);
	snprintf(m.smt_active, sizeof(m.smt_active), "1\n");
	metric_consts_compute(&m, &c);
	assert_true(c.value[METRIC_CONST_SMT_ON] == 1);

	/* No smt/active: cpu0's core siblings. */
	m.smt_active[0] = '\0';
	metric_consts_compute(&m, &c);
	assert_true(c.value[METRIC_CONST_SMT_ON] == 1);
	snprintf(m.core_cpus, sizeof(m.core_cpus), "0\n");
	metric_consts_compute(&m, &c);
	assert_true(c.value[METRIC_CONST_SMT_ON] == 0);
	assert_true(c.value[METRIC_CONST_THREADS] == 1);

	/* Nor that: CPUID's SMT level. */
	m.core_cpus[0] = '\0';
	metric_consts_compute(&m, &c);
	assert_true(c.value[METRIC_CONST_SMT_ON] == 1);
	assert_true(c.value[METRIC_CONST_THREADS] == 2);
	m.cpuid_smt_threads = 1;
	metric_consts_compute(&m, &c);
	assert_true(c.value[METRIC_CONST_SMT_ON] == 0);
	assert_true(c.value[METRIC_CONST_THREADS] == 1);
	/* SMT off by the kernel, CPUID says 2: one thread runs per core. */
	snprintf(m.smt_active, sizeof(m.smt_active), "0\n");
	m.cpuid_smt_threads = 2;
	metric_consts_compute(&m, &c);
	assert_true(c.value[METRIC_CONST_THREADS] == 1);
}

static void
test_tsc(void **state)
{
	struct metric_machine m;
	struct metric_consts c;

	(void)state;
	metric_machine_init(&m);
	/* CPUID 15H with the crystal rate: ECX * EBX / EAX. */
	m.cpuid_15h[0] = 2;
	m.cpuid_15h[1] = 188;
	m.cpuid_15h[2] = 24000000;
	m.cpuid_16h_base_mhz = 2300;
	m.tsc_hz_measured = 1.5e9;
	metric_consts_compute(&m, &c);
	assert_true(c.value[METRIC_CONST_TSC_FREQ] == 2.256e9);
	/* Skylake client: no crystal rate, 16H's base clock. */
	m.cpuid_15h[2] = 0;
	metric_consts_compute(&m, &c);
	assert_true(c.value[METRIC_CONST_TSC_FREQ] == 2.3e9);
	/* Neither: the measured rate. */
	m.cpuid_15h[0] = 0;
	metric_consts_compute(&m, &c);
	assert_true(c.value[METRIC_CONST_TSC_FREQ] == 1.5e9);
	m.tsc_hz_measured = 0;
	metric_consts_compute(&m, &c);
	assert_false(known(&c, METRIC_CONST_TSC_FREQ));
}

static void
test_run_and_sockets(void **state)
{
	struct metric_machine m;
	struct metric_consts c;

	(void)state;
	metric_machine_init(&m);
	metric_consts_compute(&m, &c);
	assert_false(known(&c, METRIC_CONST_DURATION_MS));
	m.duration_ms = 1234;
	metric_consts_compute(&m, &c);
	assert_true(c.value[METRIC_CONST_DURATION_MS] == 1234);
	assert_true(c.value[METRIC_CONST_DURATION_S] == 1.234);

	/* Two sockets of 8 cores x 2 threads. */
	snprintf(m.cpus_online, sizeof(m.cpus_online), "0-31\n");
	snprintf(m.package_cpus, sizeof(m.package_cpus), "0-7,16-23\n");
	snprintf(m.core_cpus, sizeof(m.core_cpus), "0,16\n");
	metric_consts_compute(&m, &c);
	assert_true(c.value[METRIC_CONST_CPUS] == 32);
	assert_true(c.value[METRIC_CONST_SOCKETS] == 2);
	assert_true(c.value[METRIC_CONST_CORES_PER_SOCKET] == 8);
	assert_false(known(&c, METRIC_CONST_CHAS_PER_SOCKET));
}

/* The emulated machine's sysfs shape; NULL makes a file absent. */
static void
set_shape(struct emu_pmu *pmu, const char *smt, const char *online, const char *core,
	  const char *package)
{
	emu_set_file(pmu, HW_FILE_SMT_ACTIVE, smt);
	emu_set_file(pmu, HW_FILE_CPUS_ONLINE, online);
	emu_set_file(pmu, HW_FILE_CPU0_CORE_CPUS, core);
	emu_set_file(pmu, HW_FILE_CPU0_PACKAGE_CPUS, package);
}

/* The constants the shape determines. */
static void
assert_shape(const struct metric_consts *c, double smt, double threads, double cpus,
	     double sockets, double cores)
{
	assert_true(c->value[METRIC_CONST_SMT_ON] == smt);
	assert_true(c->value[METRIC_CONST_THREADS] == threads);
	assert_true(c->value[METRIC_CONST_CPUS] == cpus);
	assert_true(c->value[METRIC_CONST_SOCKETS] == sockets);
	assert_true(c->value[METRIC_CONST_CORES_PER_SOCKET] == cores);
}

/* Through the seam: the emulated Skylake i7-6700K and the files it serves. */
static void
test_read_through_seam(void **state)
{
	struct emu_config cfg;
	struct emu_pmu *pmu;
	struct hw *hw;
	struct metric_machine m;
	struct metric_consts c;

	(void)state;
	emu_config_default(&cfg, EMU_MODEL_SKYLAKE);
	cfg.ncpus = 2;
	pmu = emu_pmu_new(&cfg);
	assert_non_null(pmu);
	hw = emu_hw_new(pmu);
	assert_non_null(hw);

	/* The files the emulated machine serves: one core, both threads. */
	metric_machine_init(&m);
	assert_int_equal(metric_machine_read(hw, 0, &m), 0);
	assert_string_equal(m.smt_active, "1\n");
	assert_string_equal(m.cpus_online, "0-1\n");
	assert_string_equal(m.core_cpus, "0-1\n");
	assert_string_equal(m.package_cpus, "0-1\n");
	metric_consts_compute(&m, &c);
	assert_shape(&c, 1, 2, 2, 1, 1);

	/* No files: CPUID alone. */
	set_shape(pmu, NULL, NULL, NULL, NULL);
	metric_machine_init(&m);
	assert_int_equal(metric_machine_read(hw, 0, &m), 0);
	assert_string_equal(m.smt_active, "");
	assert_int_equal(m.cpuid_smt_threads, 2);
	assert_int_equal(m.cpuid_15h[0], 2);
	assert_int_equal(m.cpuid_15h[1], 334);
	assert_int_equal(m.cpuid_16h_base_mhz, 4000);
	metric_consts_compute(&m, &c);
	assert_true(c.value[METRIC_CONST_TSC_FREQ] == 4e9);
	assert_true(c.value[METRIC_CONST_SMT_ON] == 1);
	assert_false(known(&c, METRIC_CONST_CPUS));

	set_shape(pmu, "0\n", "0-3\n", "0\n", "0-3\n");
	metric_machine_init(&m);
	assert_int_equal(metric_machine_read(hw, 1, &m), 0);
	assert_string_equal(m.cpus_online, "0-3\n");
	metric_consts_compute(&m, &c);
	assert_shape(&c, 0, 1, 4, 1, 4);

	/* A CPU that does not exist: CPUID fails, and says so. */
	assert_int_equal(metric_machine_read(hw, 7, &m), -ENXIO);
	hw_free(hw);
	emu_pmu_free(pmu);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_lists),
		cmocka_unit_test(test_smt),
		cmocka_unit_test(test_tsc),
		cmocka_unit_test(test_run_and_sockets),
		cmocka_unit_test(test_read_through_seam),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
