/*
 * test_info_emu.c - the real `pmustat info` on emulated machines: what it
 * reports for each model and each access problem, and that it leaves the
 * PMU exactly as it found it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "e2e_harness.h"
#include "pmu/msr.h"

/* Run `pmustat info --json [-C cpu]`, check the status, return the JSON. */
static json_t *
info_json(const struct e2e_machine *m, const char *cpu, int status)
{
	struct e2e_result r;
	json_error_t error;
	json_t *root;

	if (cpu)
		e2e_run(m, &r, (const char *[]){ E2E_PMUSTAT, "info", "--json", "-C", cpu, NULL });
	else
		e2e_run(m, &r, (const char *[]){ E2E_PMUSTAT, "info", "--json", NULL });
	e2e_assert_status(&r, status);
	root = json_loads(r.out, 0, &error);
	if (!root) {
		e2e_assert_status(&r, -1);	/* prints the output */
		fail_msg("not JSON: %s", error.text);
	}
	e2e_result_free(&r);
	return root;
}

static json_int_t
get_int(json_t *root, const char *obj, const char *key)
{
	json_t *v = json_object_get(json_object_get(root, obj), key);

	if (!json_is_integer(v))
		fail_msg("%s.%s is not an integer", obj, key);
	return json_integer_value(v);
}

static const char *
get_str(json_t *root, const char *obj, const char *key)
{
	json_t *o = obj ? json_object_get(root, obj) : root;
	json_t *v = json_object_get(o, key);

	if (!json_is_string(v))
		fail_msg("%s.%s is not a string", obj ? obj : "", key);
	return json_string_value(v);
}

static bool
usable(json_t *root)
{
	return json_is_true(json_object_get(root, "usable"));
}

static void
machine(struct e2e_machine *m, const char *model, const char *extra)
{
	e2e_machine_new(m, (const char *[]){ "--model", model, "--cpus", "2", extra, NULL });
}

static void
test_skylake_usable(void **state)
{
	struct e2e_machine m;
	struct emu_pmu *before, *after;
	json_t *root;

	(void)state;
	machine(&m, "skylake", NULL);
	before = e2e_state(&m);
	root = info_json(&m, "0", 0);
	assert_int_equal(get_int(root, "pmu", "version"), 4);
	assert_int_equal(get_int(root, "pmu", "gp_counters"), 4);
	assert_int_equal(get_int(root, "pmu", "gp_width"), 48);
	assert_int_equal(get_int(root, "pmu", "fixed_counters"), 3);
	assert_int_equal(get_int(root, "pmu", "fixed_width"), 48);
	assert_string_equal(get_str(root, "cpu", "mapfile_key"), "GenuineIntel-6-5E-3");
	assert_string_equal(get_str(root, "access", "msr_read"), "ok");
	assert_string_equal(get_str(root, "access", "msr_write_probe"), "ok");
	assert_true(json_is_true(json_object_get(json_object_get(root, "access"), "rdpmc")));
	assert_int_equal(json_array_size(json_object_get(json_object_get(root, "access"),
							 "counters_in_use")), 0);
	assert_true(usable(root));
	json_decref(root);
	/* info only looks: the PMU is as it was, bit for bit. */
	after = e2e_state(&m);
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	assert_int_equal(after->cpu[0].stats.gp_faults, 0);
	free(before);
	free(after);
	e2e_machine_free(&m);
}

static void
test_human_output(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	machine(&m, "skylake", NULL);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "info", "-C", "1", NULL });
	e2e_assert_status(&r, 0);
	/* Human output goes to stderr (the brief); stdout is for -x/--json. */
	e2e_assert_err_contains(&r, "4 x 48 bits");
	e2e_assert_err_contains(&r, "pmustat can count on CPU 1");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

static void
test_other_models(void **state)
{
	static const struct {
		const char *model, *cpu;
		int version, gp, gp_width, fixed, fixed_width;
		const char *rdpmc_path;
	} want[] = {
		{ "icelake", "0", 5, 8, 48, 4, 48, "/sys/bus/event_source/devices/cpu/rdpmc" },
		{ "haswell", "0", 3, 4, 48, 3, 48, "/sys/bus/event_source/devices/cpu/rdpmc" },
		{ "core2", "1", 2, 2, 40, 3, 40, "/sys/bus/event_source/devices/cpu/rdpmc" },
		/*
		 * Hybrid: CPU 0 is a P-core (8/4 behind CPUID's 6/3), CPU 1 an
		 * E-core; each core type is its own PMU with its own rdpmc file.
		 */
		{ "alderlake", "0", 5, 8, 48, 4, 48, "/sys/bus/event_source/devices/cpu_core/rdpmc" },
		{ "alderlake", "1", 5, 6, 48, 3, 48, "/sys/bus/event_source/devices/cpu_atom/rdpmc" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct e2e_machine m;
		json_t *root;

		machine(&m, want[i].model, NULL);
		root = info_json(&m, want[i].cpu, 0);
		assert_int_equal(get_int(root, "pmu", "version"), want[i].version);
		assert_int_equal(get_int(root, "pmu", "gp_counters"), want[i].gp);
		assert_int_equal(get_int(root, "pmu", "gp_width"), want[i].gp_width);
		assert_int_equal(get_int(root, "pmu", "fixed_counters"), want[i].fixed);
		assert_int_equal(get_int(root, "pmu", "fixed_width"), want[i].fixed_width);
		assert_string_equal(json_string_value(json_object_get(json_object_get(root, "access"),
								      "rdpmc_sysfs_path")), want[i].rdpmc_path);
		assert_string_equal(json_string_value(json_object_get(json_object_get(root, "access"),
								      "rdpmc_sysfs")), "2");
		assert_true(usable(root));
		json_decref(root);
		e2e_machine_free(&m);
	}
}

static void
test_no_pmu(void **state)
{
	struct e2e_machine m;
	json_t *root;

	(void)state;
	machine(&m, "nopmu", NULL);
	root = info_json(&m, "0", 1);
	assert_false(usable(root));
	assert_true(json_is_true(json_object_get(json_object_get(root, "cpu"), "hypervisor")));
	json_decref(root);
	e2e_machine_free(&m);
}

static void
test_msr_problems(void **state)
{
	static const struct {
		const char *option, *key, *value, *verdict;
	} want[] = {
		{ "--msr=absent", "msr_read", "No such file or directory", "modprobe msr" },
		{ "--msr=eacces", "msr_read", "Permission denied", "root" },
		{ "--msr=readonly", "msr_write_probe", "Operation not permitted", "lockdown" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct e2e_machine m;
		struct emu_pmu *before, *after;
		json_t *root;

		machine(&m, "skylake", want[i].option);
		before = e2e_state(&m);
		root = info_json(&m, "1", 1);
		assert_false(usable(root));
		assert_string_equal(get_str(root, "access", want[i].key), want[i].value);
		assert_non_null(strstr(get_str(root, NULL, "verdict"), want[i].verdict));
		json_decref(root);
		after = e2e_state(&m);
		assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
		free(before);
		free(after);
		e2e_machine_free(&m);
	}
}

static void
test_rdpmc_off(void **state)
{
	struct e2e_machine m;
	json_t *root;

	(void)state;
	machine(&m, "skylake", "--rdpmc=off");
	root = info_json(&m, "0", 0);
	assert_true(usable(root));
	assert_true(json_is_false(json_object_get(json_object_get(root, "access"), "rdpmc")));
	assert_string_equal(get_str(root, "access", "rdpmc_sysfs"), "1");
	assert_non_null(strstr(get_str(root, NULL, "verdict"), "MSR reads"));
	json_decref(root);
	e2e_machine_free(&m);
}

static void
test_watchdog_owns_fixed_counter_1(void **state)
{
	struct e2e_machine m;
	struct emu_pmu *before, *after;
	json_t *root, *in_use;

	(void)state;
	machine(&m, "skylake", "--watchdog");
	before = e2e_state(&m);
	root = info_json(&m, "1", 0);
	in_use = json_object_get(json_object_get(root, "access"), "counters_in_use");
	assert_int_equal(json_array_size(in_use), 1);
	assert_string_equal(json_string_value(json_array_get(in_use, 0)), "fixed1");
	assert_string_equal(get_str(root, "access", "nmi_watchdog"), "1");
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(root, "access"),
									      "counter_owners"), "fixed1")),
			    "nmi_watchdog");
	json_decref(root);
	after = e2e_state(&m);
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	assert_int_equal(e2e_msr(&m, 1, MSR_IA32_FIXED_CTR_CTRL), 0xb0);
	free(before);
	free(after);
	e2e_machine_free(&m);
}

/*
 * kernel.nmi_watchdog is 1 either way: with the perf NMI watchdog, fixed
 * counter 1 is its; with Linux 6.5's buddy hard-lockup detector no counter
 * is, and info says what the registers show, not what the sysctl implies.
 */
static void
test_watchdog_line_follows_the_registers(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	machine(&m, "skylake", "--watchdog");
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "info", "-C", "1", NULL });
	e2e_assert_err_contains(&r, "NMI watchdog on (holds fixed counter 1)\n");
	e2e_result_free(&r);
	e2e_machine_free(&m);
	machine(&m, "skylake", "--buddy-watchdog");
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "info", "-C", "1", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "NMI watchdog on, holding no counter of this core");
	assert_null(strstr(r.err, "holds fixed counter 1"));
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skylake_usable),
		cmocka_unit_test(test_human_output),
		cmocka_unit_test(test_other_models),
		cmocka_unit_test(test_no_pmu),
		cmocka_unit_test(test_msr_problems),
		cmocka_unit_test(test_rdpmc_off),
		cmocka_unit_test(test_watchdog_owns_fixed_counter_1),
		cmocka_unit_test(test_watchdog_line_follows_the_registers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
