/*
 * test_multicore_counting_e2e.c - counting on several cores end to end:
 * the real pmustat with -C LIST and -A on the emulated PMU, counting
 * emu-workload --threads (a threaded program whose threads retire exact
 * counts on the CPUs they run on). The sums and each core's count are
 * exact, wraps included, in JSON, CSV and the table; each core gets its
 * own plan, except under --regions, where a thread reads one rdpmc index
 * wherever it runs. Restores and refusals are in
 * test_multicore_restore_e2e.c; -I, -r and batches in
 * test_multicore_interval_e2e.c; the cores and helpers they share in
 * two_cores_fixture.h.
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
#include "pmu/msr.h"
#include "two_cores_fixture.h"

/* Two threads, one on each core: both cores counted, the sum and each core exact. */
static void
test_two_cores_sum_and_per_cpu(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	json_t *root;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "--json", "-e", "INST_RETIRED.ANY,LLC_MISSES",
		"--", WL, "--quiet", "--threads", "2", "--spread", "--retire", "0xc0:0:1000", "--retire",
		"0x2e:0x41:7", NULL });
	e2e_assert_status(&r, 0);
	root = parse_json(r.err);
	assert_int_equal(value(root, "INST_RETIRED.ANY"), 2000);
	assert_int_equal(value(root, "LLC_MISSES"), 14);
	assert_int_equal(per_cpu(root, "INST_RETIRED.ANY", cpu0), 1000);
	assert_int_equal(per_cpu(root, "INST_RETIRED.ANY", cpu1), 1000);
	assert_int_equal(per_cpu(root, "LLC_MISSES", cpu0), 7);
	assert_int_equal(per_cpu(root, "LLC_MISSES", cpu1), 7);
	assert_int_equal(json_array_size(json_object_get(root, "cores")), 2);
	json_decref(root);
	assert_restored(&m, before);
	assert_false(journal_exists(&m, cpu0));
	assert_false(journal_exists(&m, cpu1));
	e2e_result_free(&r);
	free(before);
	e2e_machine_free(&m);
}

/*
 * Wraps on every core: a thread on each retires 5 x 2^47 instructions 1.5 s
 * apart, on 48-bit counters, and the kernel's PMI handler acks each
 * overflow bit after every step. The reads during the run (every listed
 * core, at least once a second) count both wraps on each core.
 */
static void
test_wraps_on_every_core(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root;
	const long long each = 5LL << 47;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "--json", "-e", "INST_RETIRED.ANY,r00c0", "--",
		WL, "--quiet", "--threads", "2", "--spread", "--retire", "0xc0:0:0x800000000000", "--act", "nmi",
		"--steps", "5", "--step-ms", "1500", NULL });
	e2e_assert_status(&r, 0);
	root = parse_json(r.err);
	assert_int_equal(per_cpu(root, "INST_RETIRED.ANY", cpu0), each);
	assert_int_equal(per_cpu(root, "INST_RETIRED.ANY", cpu1), each);
	assert_int_equal(per_cpu(root, "r00c0", cpu0), each);
	assert_int_equal(per_cpu(root, "r00c0", cpu1), each);
	assert_int_equal(value(root, "INST_RETIRED.ANY"), 2 * each);
	assert_int_equal(value(root, "r00c0"), 2 * each);
	/* Enabled at the exec stop on both cores; exact when pmustat may run off both. */
	assert_string_equal(json_string_value(json_object_get(root, "window")),
			    e2e_host_cpus() > 2 ? "exact" : "approximate");
	json_decref(root);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* Four threads left to the scheduler on two cores: the total is exact wherever they ran. */
static void
test_four_threads_exact_total(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	json_t *root;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", range_arg, "--json", "-e", "INST_RETIRED.ANY", "--", WL,
		"--quiet", "--threads", "4", "--retire", "0xc0:0:12345", "--steps", "3", NULL });
	e2e_assert_status(&r, 0);
	root = parse_json(r.err);
	assert_int_equal(value(root, "INST_RETIRED.ANY"), 4 * 3 * 12345);
	assert_int_equal(per_cpu(root, "INST_RETIRED.ANY", cpu0) + per_cpu(root, "INST_RETIRED.ANY", cpu1),
			 4 * 3 * 12345);
	json_decref(root);
	assert_restored(&m, before);
	e2e_result_free(&r);
	free(before);
	e2e_machine_free(&m);
}

/* -A: one line per CPU, CSV's first field CPU<N>; the human table and its closing note. */
static void
test_per_cpu_lines(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	char line[128];

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-A", "-x", ",", "-e", "INST_RETIRED.ANY",
		"--", WL, "--quiet", "--threads", "2", "--spread", "--retire", "0xc0:0:1000", NULL });
	e2e_assert_status(&r, 0);
	snprintf(line, sizeof(line), "CPU%d,1000,,INST_RETIRED.ANY:u,INST_RETIRED.ANY,fixed0,1,counted,,", cpu0);
	e2e_assert_err_contains(&r, line);
	snprintf(line, sizeof(line), "CPU%d,1000,,INST_RETIRED.ANY:u,", cpu1);
	e2e_assert_err_contains(&r, line);
	e2e_result_free(&r);

	/* Summed by default: one CSV line with the total. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-x", ",", "-e", "INST_RETIRED.ANY", "--", WL,
		"--quiet", "--threads", "2", "--spread", "--retire", "0xc0:0:1000", NULL });
	e2e_assert_status(&r, 0);
	assert_string_equal(r.err, "count,,2000,,INST_RETIRED.ANY:u,INST_RETIRED.ANY,fixed0,1,counted,,,,,,,,\n");
	e2e_result_free(&r);

	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-A", "-e", "INST_RETIRED.ANY", "--", WL,
		"--quiet", "--threads", "2", "--spread", "--retire", "0xc0:0:1000", NULL });
	e2e_assert_status(&r, 0);
	{
		char cpu[16];

		snprintf(cpu, sizeof(cpu), "CPU%d", cpu0);
		snprintf(line, sizeof(line), "%-8s%18s      INST_RETIRED.ANY", cpu, "1,000");
	}
	e2e_assert_err_contains(&r, line);
	snprintf(line, sizeof(line), "on cores %s", range_arg);
	e2e_assert_err_contains(&r, line);
	e2e_assert_err_contains(&r, "one line per core");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * Each core its own plan: the NMI watchdog holds fixed counter 1 on the
 * second core only, so cycles go to a general-purpose counter there and
 * stay on fixed counter 1 on the first; both count in the one run, and
 * each core's entry (JSON per_cpu, -A's CSV and table lines) names the
 * counter it used there, not the first core's.
 */
static void
test_each_core_its_own_assignment(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	json_t *root;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	/* The watchdog's programming, on the second core alone. */
	assert_int_equal(e2e_set_msr(&m, (unsigned)cpu1, MSR_IA32_FIXED_CTR_CTRL, 0xb0), 0);
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-v", "-C", list_arg, "--json", "-e",
		"INST_RETIRED.ANY,CPU_CLK_UNHALTED.THREAD", "--", WL, "--quiet", "--threads", "2", "--spread",
		"--retire", "0xc0:0:1000", "--retire", "0x3c:0:3000", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "CPU_CLK_UNHALTED.THREAD        -> fixed1, run 1");
	e2e_assert_err_contains(&r, "CPU_CLK_UNHALTED.THREAD        -> pmc0, run 1");
	root = parse_json(strchr(r.err, '{'));
	assert_int_equal(json_integer_value(json_object_get(root, "runs")), 1);
	assert_int_equal(value(root, "CPU_CLK_UNHALTED.THREAD"), 6000);
	assert_int_equal(per_cpu(root, "CPU_CLK_UNHALTED.THREAD", cpu0), 3000);
	assert_int_equal(per_cpu(root, "CPU_CLK_UNHALTED.THREAD", cpu1), 3000);
	assert_string_equal(per_cpu_counter(root, "CPU_CLK_UNHALTED.THREAD", cpu0), "fixed1");
	assert_string_equal(per_cpu_counter(root, "CPU_CLK_UNHALTED.THREAD", cpu1), "pmc0");
	assert_string_equal(per_cpu_counter(root, "INST_RETIRED.ANY", cpu0), "fixed0");
	assert_string_equal(per_cpu_counter(root, "INST_RETIRED.ANY", cpu1), "fixed0");
	json_decref(root);
	assert_restored(&m, before);
	e2e_result_free(&r);

	/* -A: each CSV record and each table line with its core's counter (and why it is not fixed1 there). */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-A", "-x,", "-e", "CPU_CLK_UNHALTED.THREAD",
		"--", WL, "--quiet", "--threads", "2", "--spread", "--retire", "0x3c:0:3000", NULL });
	e2e_assert_status(&r, 0);
	{
		char line[160];

		snprintf(line, sizeof(line), "CPU%d,3000,,CPU_CLK_UNHALTED.THREAD:u,CPU_CLK_UNHALTED.THREAD,fixed1,1,counted,,",
			 cpu0);
		e2e_assert_err_contains(&r, line);
		snprintf(line, sizeof(line), "CPU%d,3000,,CPU_CLK_UNHALTED.THREAD:u,CPU_CLK_UNHALTED.THREAD,pmc0,1,counted,,",
			 cpu1);
		e2e_assert_err_contains(&r, line);
	}
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-A", "-e", "CPU_CLK_UNHALTED.THREAD", "--", WL,
		"--quiet", "--threads", "2", "--spread", "--retire", "0x3c:0:3000", NULL });
	e2e_assert_status(&r, 0);
	{
		char cpu[16], line[200];

		snprintf(cpu, sizeof(cpu), "CPU%d", cpu0);
		snprintf(line, sizeof(line), "%-8s%18s      CPU_CLK_UNHALTED.THREAD:u        (fixed1)\n", cpu, "3,000");
		e2e_assert_err_contains(&r, line);
		snprintf(cpu, sizeof(cpu), "CPU%d", cpu1);
		snprintf(line, sizeof(line),
			 "%-8s%18s      CPU_CLK_UNHALTED.THREAD:u        (pmc0)  (on pmc0: fixed counter 1 is held by ", cpu,
			 "3,000");
		e2e_assert_err_contains(&r, line);
	}
	e2e_result_free(&r);
	assert_restored(&m, before);
	free(before);
	e2e_machine_free(&m);
}

/*
 * --regions reads one rdpmc index per event on whichever core a thread
 * runs: every core counts each event on the same counter, so a core's own
 * fixed counter held by the watchdog moves the event to the same GP
 * counter on every core.
 */
static void
test_regions_same_counter_on_every_core(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	json_t *root;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	assert_int_equal(e2e_set_msr(&m, (unsigned)cpu1, MSR_IA32_FIXED_CTR_CTRL, 0xb0), 0);
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-v", "--regions", "-C", list_arg, "--json", "-e",
		"INST_RETIRED.ANY,CPU_CLK_UNHALTED.THREAD", "--", WL, "--quiet", "--threads", "2", "--spread",
		"--retire", "0xc0:0:1000", "--retire", "0x3c:0:3000", NULL });
	e2e_assert_status(&r, 0);
	assert_null(strstr(r.err, "CPU_CLK_UNHALTED.THREAD        -> fixed1"));
	e2e_assert_err_contains(&r, "CPU_CLK_UNHALTED.THREAD        -> pmc0, run 1");
	root = parse_json(strchr(r.err, '{'));
	assert_int_equal(value(root, "CPU_CLK_UNHALTED.THREAD"), 6000);
	assert_int_equal(per_cpu(root, "CPU_CLK_UNHALTED.THREAD", cpu0), 3000);
	assert_int_equal(per_cpu(root, "CPU_CLK_UNHALTED.THREAD", cpu1), 3000);
	/* --regions: the same counter on every core, and each entry says so. */
	assert_string_equal(per_cpu_counter(root, "CPU_CLK_UNHALTED.THREAD", cpu0), "pmc0");
	assert_string_equal(per_cpu_counter(root, "CPU_CLK_UNHALTED.THREAD", cpu1), "pmc0");
	json_decref(root);
	assert_restored(&m, before);
	e2e_result_free(&r);
	free(before);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_cores_sum_and_per_cpu),
		cmocka_unit_test(test_four_threads_exact_total),
		cmocka_unit_test(test_wraps_on_every_core),
		cmocka_unit_test(test_per_cpu_lines),
		cmocka_unit_test(test_each_core_its_own_assignment),
		cmocka_unit_test(test_regions_same_counter_on_every_core),
	};

	return cmocka_run_group_tests(tests, two_cores_setup, NULL);
}
