/*
 * test_pin_threads_e2e.c - --pin-threads end to end: the real pmustat with
 * -C LIST -A on the emulated PMU, counting emu-workload --threads (each
 * thread retires exact counts on the CPU it runs on). Placed round-robin,
 * the command's first thread on the first CPU and the threads it creates
 * on the next ones in turn, 3 workers on 2 CPUs retire one share on the
 * first CPU and two on the second, every time; left to the kernel they
 * land either way. Without ptrace the option is refused before anything
 * is written on any core.
 *
 * As in two_cores_fixture.h, whose CPUs, machine and checks these are:
 * the first two CPUs this process may run on, skipped on a host with one.
 */
#include <fcntl.h>
#include <limits.h>
#include <jansson.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "e2e_harness.h"
#include "emu_pmu.h"
#include "two_cores_fixture.h"

/* What emu-workload prints for the CPU its first thread starts on: the first listed. */
static char main_cpu_line[32];

static int
setup(void **state)
{
	if (two_cores_setup(state) != 0)
		return -1;
	snprintf(main_cpu_line, sizeof(main_cpu_line), "cpu %d\n", cpu0);
	return 0;
}

/* pmustat -C cpu0,cpu1 -A --pin-threads over @threads workers retiring 1000 instructions and 100 misses each. */
static void
pinned_run(const struct e2e_machine *m, struct e2e_result *r, const char *threads)
{
	e2e_run(m, r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-A", "--pin-threads", "--json", "-e",
					 "INST_RETIRED.ANY,LONGEST_LAT_CACHE.MISS", "--", WL, "--threads", threads,
					 "--retire", "0xc0:0:1000", "--retire", "0x2e:0x41:100", NULL });
}

/*
 * 3 workers: the first thread (which only starts and joins them) on the
 * first CPU, workers 1 and 3 on the second, worker 2 on the first; the
 * same split in every run, and 5 workers split 2 to 3.
 */
static void
test_threads_round_robin(void **state)
{
	static const struct { const char *threads; long long first, second; } cases[] = {
		{ "3", 1, 2 }, { "3", 1, 2 }, { "3", 1, 2 }, { "5", 2, 3 },
	};
	struct e2e_machine m;
	struct emu_pmu *before;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	before = e2e_state(&m);
	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct e2e_result r;
		json_t *root;

		pinned_run(&m, &r, cases[k].threads);
		e2e_assert_status(&r, 0);
		/* emu-workload names the CPU its first thread starts on. */
		e2e_assert_out_contains(&r, main_cpu_line);
		root = parse_json(r.err);
		assert_int_equal(per_cpu(root, "INST_RETIRED.ANY", cpu0), 1000 * cases[k].first);
		assert_int_equal(per_cpu(root, "INST_RETIRED.ANY", cpu1), 1000 * cases[k].second);
		assert_int_equal(per_cpu(root, "LONGEST_LAT_CACHE.MISS", cpu0), 100 * cases[k].first);
		assert_int_equal(per_cpu(root, "LONGEST_LAT_CACHE.MISS", cpu1), 100 * cases[k].second);
		json_decref(root);
		e2e_result_free(&r);
		assert_restored(&m, before);
	}
	free(before);
	e2e_machine_free(&m);
}

/* ptrace refused: exit 125 naming why, the command never ran, no MSR written on any core. */
static void
test_refused_without_ptrace(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before, *after;

	(void)state;
	NEED_TWO_CPUS();
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", cpus_arg, "--ptrace=off", NULL });
	before = e2e_state(&m);
	pinned_run(&m, &r, "3");
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "--pin-threads: ptrace refused");
	e2e_assert_err_contains(&r, "the command did not run");
	assert_null(strstr(r.out, "cpu "));
	e2e_result_free(&r);
	after = e2e_state(&m);
	assert_int_equal(after->cpu[cpu0].stats.wrmsr, before->cpu[cpu0].stats.wrmsr);
	assert_int_equal(after->cpu[cpu1].stats.wrmsr, before->cpu[cpu1].stats.wrmsr);
	free(after);
	assert_restored(&m, before);
	free(before);
	e2e_machine_free(&m);
}

/* It places a command's threads on a list of CPUs: without both it is a usage error. */
static void
test_needs_a_list_and_a_command(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", NULL });
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--pin-threads", "--", WL, "--quiet", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "--pin-threads places a COMMAND's threads round-robin on the CPUs of -C LIST or -a");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-a", "--pin-threads", "--duration", "10ms", NULL });
	e2e_assert_status(&r, 125);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* The state letter of @pid, 0 once it is gone or a zombie (its end reached). */
static char
proc_state(pid_t pid)
{
	char st = e2e_proc_state(pid);

	return st == 'Z' || st == 'X' ? 0 : st;
}

/* The pid thread-storm wrote into @path, once it is there (0 after 20 s). */
static pid_t
storm_pid(const char *path)
{
	for (int t = 0; t < 4000; t++) {
		FILE *f = fopen(path, "r");
		long pid = 0;

		if (f) {
			if (fscanf(f, "%ld", &pid) != 1)
				pid = 0;
			fclose(f);
		}
		if (pid > 0)
			return (pid_t)pid;
		e2e_sleep_ms(5);
	}
	return 0;
}

/*
 * The command, left behind by pmustat, runs to its own end: its DONEFILE
 * written and the process gone within 30 s, never held in a stop without
 * a tracer for a second. A command found stopped is let go and killed.
 */
static void
assert_runs_to_its_end(pid_t cmd, const char *done)
{
	unsigned stopped_ms = 0, gone_ms = 0;
	struct stat st;

	for (unsigned t = 0; t < 30000; t += 10) {
		char state = proc_state(cmd);

		if (state == 0 && stat(done, &st) == 0)
			return;
		/* Gone without its clean exit (a hang-up of its orphaned group kills it). */
		gone_ms = state == 0 ? gone_ms + 10 : 0;
		if (gone_ms >= 200)
			fail_msg("the command ended without reaching its own exit");
		stopped_ms = state == 'T' ? stopped_ms + 10 : 0;
		if (stopped_ms >= 1000) {
			kill(cmd, SIGKILL);
			kill(cmd, SIGCONT);
			fail_msg("the command is held stopped after pmustat went away");
		}
		e2e_sleep_ms(10);
	}
	kill(cmd, SIGKILL);
	fail_msg("the command still runs 30 s after pmustat went away");
}

/*
 * pmustat --pin-threads over thread-storm MODE N; @ms after the command
 * started, pmustat gets @sig and dies of it; the command must then run
 * to its own end.
 */
static void
pmustat_goes_away(const char *mode, const char *n, long ms, int sig)
{
	char pidf[PATH_MAX], done[PATH_MAX];
	struct e2e_machine m;
	struct stat st;
	pid_t pm, cmd;

	machine(&m, false);
	assert_true(snprintf(pidf, PATH_MAX, "%.4000s/storm.pid", m.dir) < PATH_MAX);
	assert_true(snprintf(done, PATH_MAX, "%.4000s/storm.done", m.dir) < PATH_MAX);
	pm = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "--pin-threads", "-e", "INST_RETIRED.ANY",
					   "--", THREAD_STORM, pidf, done, mode, n, NULL }, NULL);
	cmd = storm_pid(pidf);
	assert_true(cmd > 0);
	e2e_sleep_ms(ms);
	/* Still at it, or the case tests nothing. */
	assert_int_not_equal(stat(done, &st), 0);
	kill(pm, sig);
	assert_int_equal(e2e_reap(pm), 128 + sig);
	assert_runs_to_its_end(cmd, done);
	e2e_machine_free(&m);
}

/*
 * pmustat killed (SIGKILL: no code of its own runs) while the command
 * creates threads (20000: still at it 150 ms after it started, where 3000
 * take about that long on an idle host): the command goes on creating them
 * and ends as it would have without --pin-threads.
 */
static void
test_killed_mid_thread_storm(void **state)
{
	(void)state;
	NEED_TWO_CPUS();
	pmustat_goes_away("storm", "20000", 150, SIGKILL);
}

/*
 * The ordinary case: pmustat gets SIGTERM, passes it on, restores and
 * exits 143; the command catches it and creates threads on its way out,
 * and ends of itself (its own status 0, as without --pin-threads).
 */
static void
test_sigterm_caught_by_a_threading_command(void **state)
{
	(void)state;
	NEED_TWO_CPUS();
	pmustat_goes_away("term", "200", 0, SIGTERM);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_round_robin),
		cmocka_unit_test(test_refused_without_ptrace),
		cmocka_unit_test(test_needs_a_list_and_a_command),
		cmocka_unit_test(test_killed_mid_thread_storm),
		cmocka_unit_test(test_sigterm_caught_by_a_threading_command),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
