/*
 * test_multicore_restore_e2e.c - several cores end to end, when a run
 * does not simply end well: every core is restored bit for bit and its
 * journal removed however the run ends (SIGTERM, SIGKILL then the next
 * run or reset, a crashing target, a command that cannot run), and a run
 * that cannot have every core (counters busy, another run's lock, a bad
 * or foreign -C LIST, a list the backend cannot count) refuses the whole
 * run with nothing written on any core. Counting itself is in
 * test_multicore_counting_e2e.c; -I, -r and batches in
 * test_multicore_interval_e2e.c; the cores and helpers they share in
 * two_cores_fixture.h.
 */
#include <jansson.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "e2e_harness.h"
#include "emu_pmu.h"
#include "pmu/msr.h"
#include "two_cores_fixture.h"

/* One core whose counters are all held refuses the whole run: 125, the core named, nothing written. */
static void
test_busy_core_refuses_whole_run(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	uint64_t w0, w1;
	char msg[32];

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	/* Another user holds every general-purpose counter of the second core. */
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(e2e_set_msr(&m, (unsigned)cpu1, msr_evtsel(i), 0x43003c), 0);
	before = e2e_state(&m);
	w0 = writes_on(&m, cpu0);
	w1 = writes_on(&m, cpu1);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-e", "LLC_MISSES", "--", WL, "--quiet",
		"--retire", "0x2e:0x41:7", NULL });
	e2e_assert_status(&r, 125);
	snprintf(msg, sizeof(msg), "core %d: counters busy", cpu1);
	e2e_assert_err_contains(&r, msg);
	e2e_assert_err_contains(&r, "nothing was written on any of the cores");
	assert_int_equal(writes_on(&m, cpu0), w0);
	assert_int_equal(writes_on(&m, cpu1), w1);
	assert_restored(&m, before);
	assert_false(journal_exists(&m, cpu0));
	assert_false(journal_exists(&m, cpu1));
	e2e_result_free(&r);
	free(before);
	e2e_machine_free(&m);
}

/* Spawn pmustat on both cores with a workload stopped at sync point @s (both cores programmed). */
static pid_t
spawn_stopped(struct e2e_machine *m, struct e2e_sync *s)
{
	pid_t pid;

	e2e_sync_new(m, s, "mid");
	pid = e2e_spawn(m, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-e", "INST_RETIRED.ANY,LLC_MISSES", "--",
		WL, "--quiet", "--retire", "0xc0:0:1000", "--sync", s->prefix, NULL }, NULL);
	assert_true(e2e_sync_wait(s, 20000));
	/* Both cores are programmed now, each with its journal. */
	assert_int_not_equal(e2e_msr(m, (unsigned)cpu0, MSR_IA32_FIXED_CTR_CTRL), 0);
	assert_int_not_equal(e2e_msr(m, (unsigned)cpu1, MSR_IA32_FIXED_CTR_CTRL), 0);
	assert_true(journal_exists(m, cpu0));
	assert_true(journal_exists(m, cpu1));
	return pid;
}

/* SIGTERM mid-run: the handler restores both cores and removes both journals. */
static void
test_sigterm_restores_both_cores(void **state)
{
	struct e2e_machine m;
	struct e2e_sync s;
	struct emu_pmu *before;
	pid_t pid;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, true);
	before = e2e_state(&m);
	pid = spawn_stopped(&m, &s);
	assert_int_equal(kill(pid, SIGTERM), 0);
	assert_int_equal(e2e_reap(pid), 128 + SIGTERM);
	assert_restored(&m, before);
	assert_false(journal_exists(&m, cpu0));
	assert_false(journal_exists(&m, cpu1));
	e2e_sync_free(&s);
	free(before);
	e2e_machine_free(&m);
}

/* SIGKILL mid-run leaves both journals; the next run (or reset) puts both cores back. */
static void
test_sigkill_then_next_run_or_reset(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct e2e_sync s;
	struct emu_pmu *before;
	pid_t pid;

	(void)state;
	NEED_TWO_CPUS();
	for (int use_reset = 0; use_reset < 2; use_reset++) {
		machine(&m, true);
		before = e2e_state(&m);
		pid = spawn_stopped(&m, &s);
		assert_int_equal(kill(pid, SIGKILL), 0);
		assert_int_equal(e2e_reap(pid), 128 + SIGKILL);
		e2e_sync_release(&s);	/* the orphaned workload ends */
		e2e_sleep_ms(100);
		assert_true(journal_exists(&m, cpu0));
		assert_true(journal_exists(&m, cpu1));
		if (use_reset)
			e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", list_arg, NULL });
		else
			e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-e", "INST_RETIRED.ANY", "--",
				WL, "--quiet", NULL });
		e2e_assert_status(&r, 0);
		assert_restored(&m, before);
		assert_false(journal_exists(&m, cpu0));
		assert_false(journal_exists(&m, cpu1));
		e2e_result_free(&r);
		e2e_sync_free(&s);
		free(before);
		e2e_machine_free(&m);
	}
}

/* A target that crashes, and a command that cannot run: both cores restored. */
static void
test_crash_and_error_restore_both(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, true);
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-e", "INST_RETIRED.ANY", "--", WL, "--quiet",
		"--threads", "2", "--spread", "--retire", "0xc0:0:10", "--crash", NULL });
	e2e_assert_status(&r, 128 + SIGSEGV);
	assert_restored(&m, before);
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-e", "INST_RETIRED.ANY", "--",
		"/nonexistent/prog", NULL });
	e2e_assert_status(&r, 127);
	assert_restored(&m, before);
	assert_false(journal_exists(&m, cpu0));
	assert_false(journal_exists(&m, cpu1));
	e2e_result_free(&r);
	free(before);
	e2e_machine_free(&m);
}

/*
 * Another run holds the second core: a run on both waits, then refuses
 * naming it, having written nothing on the first core (whose lock it
 * took first, in ascending order).
 */
static void
test_core_locked_by_another_run(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct e2e_sync s;
	char one[16];
	uint64_t w0;
	pid_t pid;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	e2e_sync_new(&m, &s, "hold");
	snprintf(one, sizeof(one), "%d", cpu1);
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", one, "-e", "INST_RETIRED.ANY", "--", WL, "--quiet",
		"--sync", s.prefix, NULL }, NULL);
	assert_true(e2e_sync_wait(&s, 20000));
	w0 = writes_on(&m, cpu0);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-e", "INST_RETIRED.ANY", "--", WL, "--quiet",
		NULL });
	e2e_assert_status(&r, 125);
	snprintf(one, sizeof(one), "core %d", cpu1);
	e2e_assert_err_contains(&r, one);
	assert_int_equal(writes_on(&m, cpu0), w0);
	assert_false(journal_exists(&m, cpu0));
	e2e_sync_release(&s);
	assert_int_equal(e2e_reap(pid), 0);
	e2e_result_free(&r);
	e2e_sync_free(&s);
	e2e_machine_free(&m);
}

/* -a is every CPU pmustat may run on; -C LIST syntax errors and CPUs outside the affinity. */
static void
test_all_cpus_and_bad_lists(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root;
	cpu_set_t set;
	char list[32];

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	/* -a under an affinity of the two cores: those two. */
	CPU_ZERO(&set);
	CPU_SET(cpu0, &set);
	CPU_SET(cpu1, &set);
	{
		cpu_set_t old;

		assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
		assert_int_equal(sched_setaffinity(0, sizeof(set), &set), 0);
		e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-a", "--json", "-e", "INST_RETIRED.ANY", "--", WL,
			"--quiet", "--threads", "2", "--spread", "--retire", "0xc0:0:500", NULL });
		assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
	}
	e2e_assert_status(&r, 0);
	root = parse_json(r.err);
	assert_int_equal(value(root, "INST_RETIRED.ANY"), 1000);
	assert_int_equal(per_cpu(root, "INST_RETIRED.ANY", cpu1), 500);
	json_decref(root);
	e2e_result_free(&r);

	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0,,1", "--", WL, "--quiet", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "-C 0,,1: not a CPU number, nor a list of CPUs");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "3-1", "--", WL, "--quiet", NULL });
	e2e_assert_status(&r, 125);
	e2e_result_free(&r);
	snprintf(list, sizeof(list), "%d,%d", cpu0, CPU_SETSIZE - 1);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list, "--", WL, "--quiet", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "is outside the CPUs pmustat may run on");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* A list across a hybrid's core types with the perf backend: refused, naming why; -A on the perf backend: per CPU. */
static void
test_refused_lists(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	char msg[64];

	(void)state;
	NEED_TWO_CPUS();
	if (cpu0 != 0 || cpu1 != 1)
		skip();		/* the hybrid's P-cores are CPUs [0, pcores) */
	/* A hybrid's two types count together (test_hybrid_e2e.c); different CPUs do not. */
	e2e_machine_new(&m, (const char *[]){ "--model", "alderlake", "--cpus", "2", "--pcores", "1", NULL });
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--backend", "perf", "-C", "0,1", "-e", "INST_RETIRED.ANY", "--",
		WL, "--quiet", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "a list across core types counts hardware events through the MSR backend only");
	e2e_result_free(&r);
	e2e_machine_free(&m);

	/* The perf backend with -A: the command's counts on each listed CPU (the kernel's software events). */
	machine(&m, false);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--backend", "perf", "-C", list_arg, "-A", "-x", ",", "-e",
		"task-clock", "--", WL, "--quiet", "--threads", "2", "--spread", NULL });
	e2e_assert_status(&r, 0);
	snprintf(msg, sizeof(msg), "CPU%d,", cpu0);
	e2e_assert_err_contains(&r, msg);
	snprintf(msg, sizeof(msg), "CPU%d,", cpu1);
	e2e_assert_err_contains(&r, msg);
	e2e_assert_err_contains(&r, ",msec,task-clock,");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--backend", "perf", "-C", list_arg, "-e", "task-clock", "--",
		WL, "--quiet", "--threads", "2", NULL });
	e2e_assert_status(&r, 0);
	snprintf(msg, sizeof(msg), "on cores %s:", range_arg);
	e2e_assert_err_contains(&r, msg);
	e2e_assert_err_contains(&r, "task-clock");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_busy_core_refuses_whole_run),
		cmocka_unit_test(test_sigterm_restores_both_cores),
		cmocka_unit_test(test_sigkill_then_next_run_or_reset),
		cmocka_unit_test(test_crash_and_error_restore_both),
		cmocka_unit_test(test_core_locked_by_another_run),
		cmocka_unit_test(test_all_cpus_and_bad_lists),
		cmocka_unit_test(test_refused_lists),
	};

	return cmocka_run_group_tests(tests, two_cores_setup, NULL);
}
