/*
 * test_no_perf_e2e.c - the default set when perf_event_open is refused
 * (a seccomp filter, as container runtimes and sandboxes set: no-perf
 * runs pmustat under one): the hardware events still count through the
 * MSR backend on the emulated PMU, the software events say <not
 * supported> with one line saying why, the exit status is the command's
 * and the PMU is restored. Software events named with -e still fail.
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "e2e_harness.h"
#include "emu_pmu.h"

static void
check_default_set(const char *how)
{
	struct e2e_machine m;
	struct emu_pmu *before, *after;
	struct e2e_result r;

	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", "2", NULL });
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ NO_PERF, how, E2E_PMUSTAT, "-C", "1", "--", m.workload, "--retire",
					   "0xc0:0:1000", NULL });
	print_message("%s", r.err);
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "1,000      instructions:u");
	e2e_assert_err_contains(&r, "<not supported>      task-clock");
	e2e_assert_err_contains(&r, "<not supported>      page-faults");
	/* Beside the MSR backend they count the core: the refusal names it. */
	e2e_assert_err_contains(&r, " Software events <not supported>: CPU 1: perf_event_open for 'task-clock'");
	e2e_result_free(&r);
	after = e2e_state(&m);
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);

	/* The command's own status, not pmustat's. */
	e2e_run(&m, &r, (const char *[]){ NO_PERF, how, E2E_PMUSTAT, "-C", "1", "--", "/bin/sh", "-c", "exit 3", NULL });
	e2e_assert_status(&r, 3);
	e2e_result_free(&r);
	free(before);
	free(after);
	e2e_machine_free(&m);
}

static void
test_default_set_eacces(void **state)
{
	(void)state;
	check_default_set("EACCES");
}

static void
test_default_set_enosys(void **state)
{
	(void)state;
	check_default_set("ENOSYS");
}

/* JSON: the events' status and the reason, in not_supported_reason. */
static void
test_default_set_json(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_error_t jerr;
	json_t *root, *ev;
	size_t i;
	bool seen = false;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", "2", NULL });
	e2e_run(&m, &r, (const char *[]){ NO_PERF, "EPERM", E2E_PMUSTAT, "-C", "1", "--json", "--", m.workload,
					   "--retire", "0xc0:0:7", NULL });
	e2e_assert_status(&r, 0);
	root = json_loads(r.err, 0, &jerr);
	assert_non_null(root);
	assert_non_null(strstr(json_string_value(json_object_get(root, "not_supported_reason")), "software events: "));
	json_array_foreach(json_object_get(root, "events"), i, ev) {
		const char *name = json_string_value(json_object_get(ev, "name"));

		if (strcmp(name, "task-clock") == 0) {
			assert_string_equal(json_string_value(json_object_get(ev, "status")), "not supported");
			seen = true;
		}
		if (strcmp(name, "instructions") == 0)
			assert_int_equal(json_integer_value(json_object_get(ev, "value")), 7);
	}
	assert_true(seen);
	json_decref(root);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* A software event the user names is still refused: 125 and why. */
static void
test_named_software_event_refused(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", "2", NULL });
	e2e_run(&m, &r, (const char *[]){ NO_PERF, "EACCES", E2E_PMUSTAT, "-C", "1", "-e", "instructions,task-clock",
					   "--", "/bin/true", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "perf_event_open for 'task-clock'");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_set_eacces),
		cmocka_unit_test(test_default_set_enosys),
		cmocka_unit_test(test_default_set_json),
		cmocka_unit_test(test_named_software_event_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
