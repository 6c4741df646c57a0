/*
 * test_multicore_interval_e2e.c - several cores end to end, over time and
 * over rounds: -I samples every listed core and its intervals add up to
 * the sums (per core with -A), -r and --check gate on the sums over the
 * cores, and events that need several runs of the command are batched the
 * same on every core, so each is counted on all cores in the same run.
 * Counting itself is in test_multicore_counting_e2e.c; restores and
 * refusals in test_multicore_restore_e2e.c; the cores and helpers they
 * share in two_cores_fixture.h.
 */
#include <jansson.h>
#include <sched.h>
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

/*
 * The sum of the "interval" CSV records (interval,time,round,run,cpu,value,unit,event)
 * of @cpu ("CPU<N>", or NULL: records with an empty cpu field) for @event.
 */
static long long
interval_sum(const char *text, const char *cpu, const char *event)
{
	long long sum = 0;

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char line[512], *fields[8], *p;
		size_t len = strcspn(l, "\n");
		unsigned n = 0;

		if (strncmp(l, "interval,", 9) != 0 || len >= sizeof(line))
			continue;
		memcpy(line, l, len);
		line[len] = '\0';
		/* strsep keeps the empty fields. */
		for (p = line; n < 8 && (fields[n] = strsep(&p, ",")); n++)
			;
		if (n != 8 || strcmp(fields[7], event) != 0)
			continue;
		if (cpu ? strcmp(fields[4], cpu) == 0 : fields[4][0] == '\0')
			sum += atoll(fields[5]);
	}
	return sum;
}

/*
 * -I with a list of cores: the sampler reads every listed core (from a CPU
 * not counted where there is one, else from the counted ones), the
 * intervals add up to the sums, and with -A each core's intervals to its
 * own count. A third CPU, where the host has one, keeps the sampler off
 * both cores.
 */
static void
test_interval_per_cpu(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	cpu_set_t set;
	char one[16], cpu[16];
	int third = -1;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	snprintf(one, sizeof(one), "%d-%d", cpu1, cpu1);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", one, "-A", "-I", "50", "-x", ",", "-e",
		"INST_RETIRED.ANY", "--", WL, "--quiet", "--retire", "0xc0:0:1000", "--steps", "3", "--step-ms", "80",
		NULL });
	e2e_assert_status(&r, 0);
	snprintf(cpu, sizeof(cpu), "CPU%d", cpu1);
	assert_int_equal(interval_sum(r.err, cpu, "INST_RETIRED.ANY:u"), 3000);
	e2e_assert_err_contains(&r, ",3000,,INST_RETIRED.ANY:u,");
	e2e_result_free(&r);

	/*
	 * No CPU outside the list (-a, or an affinity of the listed cores
	 * alone): the sampler reads from the counted cores, as perf stat -a -I
	 * does. Each core's intervals still add up to its count (the emulated
	 * counts are the workload's alone), and the window says why it is
	 * approximate on a real machine.
	 */
	CPU_ZERO(&set);
	CPU_SET(cpu0, &set);
	CPU_SET(cpu1, &set);
	{
		cpu_set_t old;

		assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
		assert_int_equal(sched_setaffinity(0, sizeof(set), &set), 0);
		e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-A", "-v", "-I", "50", "-x", ",", "-e",
			"INST_RETIRED.ANY", "--", WL, "--quiet", "--threads", "2", "--spread", "--retire", "0xc0:0:1000",
			"--steps", "3", "--step-ms", "80", NULL });
		assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
		for (int c = cpu1 + 1; c < CPU_SETSIZE && c < EMU_MAX_CPUS && third < 0; c++)
			if (CPU_ISSET(c, &old))
				third = c;
	}
	e2e_assert_status(&r, 0);
	snprintf(cpu, sizeof(cpu), "CPU%d", cpu0);
	assert_int_equal(interval_sum(r.err, cpu, "INST_RETIRED.ANY:u"), 3000);
	snprintf(cpu, sizeof(cpu), "CPU%d", cpu1);
	assert_int_equal(interval_sum(r.err, cpu, "INST_RETIRED.ANY:u"), 3000);
	e2e_assert_err_contains(&r, "counted window: approximate");
	e2e_assert_err_contains(&r, "and so did the -I reads and lines");
	e2e_result_free(&r);
	e2e_machine_free(&m);
	if (third < 0)
		return;

	/* A third CPU for the sampler: two cores sampled, each exact. */
	{
		char cpus[16];

		snprintf(cpus, sizeof(cpus), "%d", third + 1);
		e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", cpus, NULL });
	}
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-A", "-I", "50", "-x", ",", "-e",
		"INST_RETIRED.ANY", "--", WL, "--quiet", "--threads", "2", "--spread", "--retire", "0xc0:0:1000",
		"--steps", "3", "--step-ms", "80", NULL });
	e2e_assert_status(&r, 0);
	snprintf(cpu, sizeof(cpu), "CPU%d", cpu0);
	assert_int_equal(interval_sum(r.err, cpu, "INST_RETIRED.ANY:u"), 3000);
	snprintf(cpu, sizeof(cpu), "CPU%d", cpu1);
	assert_int_equal(interval_sum(r.err, cpu, "INST_RETIRED.ANY:u"), 3000);
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-I", "50", "-x", ",", "-e",
		"INST_RETIRED.ANY", "--", WL, "--quiet", "--threads", "2", "--retire", "0xc0:0:1000", "--steps", "3",
		"--step-ms", "80", NULL });
	e2e_assert_status(&r, 0);
	assert_int_equal(interval_sum(r.err, NULL, "INST_RETIRED.ANY:u"), 6000);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* -r and --check gate on the sums over the cores. */
static void
test_repeat_and_check_on_sums(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-r", "3", "--check", "INST_RETIRED.ANY == 2000",
		"-e", "INST_RETIRED.ANY", "--", WL, "--quiet", "--threads", "2", "--retire", "0xc0:0:1000", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "PASS  INST_RETIRED.ANY == 2000");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "--check", "INST_RETIRED.ANY <= 1000", "-e",
		"INST_RETIRED.ANY", "--", WL, "--quiet", "--threads", "2", "--spread", "--retire", "0xc0:0:1000", NULL });
	e2e_assert_status(&r, 3);
	e2e_assert_err_contains(&r, "FAIL  INST_RETIRED.ANY <= 1000  (measured 2000)");
	e2e_result_free(&r);
	/* -A with -r: each core's median of its rounds. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-A", "-r", "2", "-x", ",", "-e",
		"INST_RETIRED.ANY", "--", WL, "--quiet", "--threads", "2", "--spread", "--retire", "0xc0:0:1000", NULL });
	e2e_assert_status(&r, 0);
	{
		char line[64];

		snprintf(line, sizeof(line), "CPU%d,1000,,INST_RETIRED.ANY:u,", cpu1);
		e2e_assert_err_contains(&r, line);
	}
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * Busy counters on one core that would batch the events differently:
 * every core keeps to the counters free on all, so each event is counted
 * on both cores in the same run, exactly.
 */
static void
test_batches_common_to_every_core(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	json_t *root;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	/* Another user holds three of the second core's four general-purpose counters. */
	for (unsigned i = 1; i < 4; i++)
		assert_int_equal(e2e_set_msr(&m, (unsigned)cpu1, msr_evtsel(i), 0x43003c), 0);
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "--json", "-e",
		"LONGEST_LAT_CACHE.MISS,BR_INST_RETIRED.ALL_BRANCHES", "--", WL, "--quiet", "--threads", "2",
		"--spread", "--retire", "0x2e:0x41:7", "--retire", "0xc4:0:300", NULL });
	e2e_assert_status(&r, 0);
	root = parse_json(r.err);
	assert_int_equal(json_integer_value(json_object_get(root, "runs")), 2);
	assert_int_equal(value(root, "LONGEST_LAT_CACHE.MISS"), 14);
	assert_int_equal(per_cpu(root, "BR_INST_RETIRED.ALL_BRANCHES", cpu0), 300);
	assert_int_equal(per_cpu(root, "BR_INST_RETIRED.ALL_BRANCHES", cpu1), 300);
	json_decref(root);
	assert_restored(&m, before);
	e2e_result_free(&r);

	/* --dry-run prints each core's plan. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "--dry-run", "-e",
		"LONGEST_LAT_CACHE.MISS,BR_INST_RETIRED.ALL_BRANCHES", "--", WL, NULL });
	e2e_assert_status(&r, 0);
	{
		char line[96];

		snprintf(line, sizeof(line), "counting plan for core %d (", cpu0);
		e2e_assert_err_contains(&r, line);
		snprintf(line, sizeof(line), "counting plan for core %d (", cpu1);
		e2e_assert_err_contains(&r, line);
		e2e_assert_err_contains(&r, "2 events, 2 runs of the command");
	}
	e2e_result_free(&r);
	free(before);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interval_per_cpu),
		cmocka_unit_test(test_repeat_and_check_on_sums),
		cmocka_unit_test(test_batches_common_to_every_core),
	};

	return cmocka_run_group_tests(tests, two_cores_setup, NULL);
}
