/*
 * test_window_e2e.c - counts to trust on a real machine: the counted
 * window holds none of pmustat's own instructions, and a counter that
 * wraps any number of times, its overflow bit cleared by the kernel, is
 * still counted exactly.
 *
 * The emulated machine plays the hardware's view of pmustat's own code
 * (pmu-emu init --caller-insns: every WRMSR's return path and every
 * execve's call path retire instructions on the caller's CPU, as they
 * would on real counters), a kernel that refuses ptrace (--ptrace=off),
 * and Linux's PMI handler acking every overflow bit (the nmi action).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "e2e_harness.h"

/* What pmustat's own code would add to the count, per WRMSR and per execve. */
#define CALLER_INSNS "40"

static json_t *
parse(const struct e2e_result *r)
{
	json_error_t jerr;
	json_t *root = json_loads(r->err, 0, &jerr);	/* --json goes where the text would: stderr */

	if (!root)
		fail_msg("not JSON (%s): %s", jerr.text, r->err);
	return root;
}

static long long
value_of(json_t *root, unsigned i)
{
	json_t *e = json_array_get(json_object_get(root, "events"), i);

	assert_non_null(e);
	return json_integer_value(json_object_get(e, "value"));
}

static const char *
window_of(json_t *root)
{
	const char *w = json_string_value(json_object_get(root, "window"));

	return w ? w : "(none)";
}

/*
 * 1000 instructions of the command, counted on fixed counter 0 and on a
 * GP counter, come out as 1000 on both: none of the enabling writes and
 * none of the path into execve is in the window.
 */
static void
exact_window(const char *const init[])
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root;

	if (e2e_host_cpus() < 2)
		skip();	/* pmustat must be able to leave the command's core */
	e2e_machine_new(&m, init);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "--json", "-e", "INST_RETIRED.ANY,r00c0", "--",
		m.workload, "--quiet", "--retire", "0xc0:0:1000", NULL });
	e2e_assert_status(&r, 0);
	root = parse(&r);
	assert_int_equal(value_of(root, 0), 1000);
	assert_int_equal(value_of(root, 1), 1000);
	assert_string_equal(window_of(root), "exact");
	json_decref(root);
	e2e_result_free(&r);

	/* -v says so too. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-v", "-e", "INST_RETIRED.ANY", "--",
		m.workload, "--quiet", "--retire", "0xc0:0:1000", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "counted window: exact");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

static void
test_no_pmustat_instruction_in_the_window(void **state)
{
	(void)state;
	exact_window((const char *[]){ "--model", "skylake", "--cpus", "2", "--caller-insns", CALLER_INSNS, NULL });
}

/* The watchdog keeps every GLOBAL_CTRL bit set: one enable write per counter, none counted. */
static void
test_no_pmustat_instruction_in_the_window_beside_the_watchdog(void **state)
{
	(void)state;
	exact_window((const char *[]){ "--model", "skylake", "--cpus", "2", "--watchdog", "--caller-insns",
		CALLER_INSNS, NULL });
}

/*
 * Nobody's GLOBAL_CTRL bits are set when pmustat comes, so it toggles its
 * own there; then Linux's perf sets every bit when the command is
 * scheduled in for its execve (before the window opens) and when pmustat
 * reads the run's counts (after it closed), each time with 500
 * instructions and branches of another program on the core (pmu-emu
 * --kernel-ctrl). Each counter's own enable keeps both out of the count.
 */
static void
test_kernel_sets_global_ctrl_outside_the_window(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root;

	(void)state;
	if (e2e_host_cpus() < 2)
		skip();	/* pmustat must be able to leave the command's core */
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", "2", "--set", "0x38f=0", "--kernel-ctrl",
		"0x70000000f", "--kernel-insns", "500", "--caller-insns", CALLER_INSNS, NULL });
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "--json", "-e", "INST_RETIRED.ANY,r00c0,r00c4", "--",
		m.workload, "--quiet", "--retire", "0xc0:0:1000", "--retire", "0xc4:0:70", NULL });
	e2e_assert_status(&r, 0);
	root = parse(&r);
	assert_int_equal(value_of(root, 0), 1000);
	assert_int_equal(value_of(root, 1), 1000);
	assert_int_equal(value_of(root, 2), 70);
	assert_string_equal(window_of(root), "exact");
	json_decref(root);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * Without ptrace (YAMA ptrace_scope 3, seccomp) the child enables the
 * counters itself before execve: the count includes that code, and the
 * JSON and -v say the window is approximate and why.
 */
static void
test_window_without_ptrace_is_approximate(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root;

	(void)state;
	if (e2e_host_cpus() < 2)
		skip();
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", "2", "--caller-insns", CALLER_INSNS,
		"--ptrace=off", NULL });
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "--json", "-e", "INST_RETIRED.ANY", "--",
		m.workload, "--quiet", "--retire", "0xc0:0:1000", NULL });
	e2e_assert_status(&r, 0);
	root = parse(&r);
	assert_string_equal(window_of(root), "approximate");
	/* The enable's return path and the call into execve: the emulated "own code". */
	assert_true(value_of(root, 0) > 1000);
	json_decref(root);
	e2e_result_free(&r);

	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-v", "-e", "INST_RETIRED.ANY", "--",
		m.workload, "--quiet", "--retire", "0xc0:0:1000", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "counted window: approximate");
	e2e_assert_err_contains(&r, "ptrace");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * 5 x 2^47 events on 48-bit counters, 1.5 s apart: two wraps, and after
 * every step Linux's PMI handler acks each set GLOBAL_STATUS bit, as its
 * watchdog NMI does whoever's the bit. Reads during the run see every
 * wrap; the overflow bit is never needed.
 */
static void
test_any_number_of_wraps_without_the_overflow_bit(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root;
	const long long expect = 5LL << 47;

	(void)state;
	if (e2e_host_cpus() < 2)
		skip();
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", "2", NULL });
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "--json", "-e", "INST_RETIRED.ANY,r00c0", "--",
		m.workload, "--quiet", "--retire", "0xc0:0:0x800000000000", "--act", "nmi", "--steps", "5",
		"--step-ms", "1500", NULL });
	e2e_assert_status(&r, 0);
	root = parse(&r);
	assert_int_equal(value_of(root, 0), expect);
	assert_int_equal(value_of(root, 1), expect);
	json_decref(root);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_pmustat_instruction_in_the_window),
		cmocka_unit_test(test_no_pmustat_instruction_in_the_window_beside_the_watchdog),
		cmocka_unit_test(test_kernel_sets_global_ctrl_outside_the_window),
		cmocka_unit_test(test_window_without_ptrace_is_approximate),
		cmocka_unit_test(test_any_number_of_wraps_without_the_overflow_bit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
