/*
 * test_watch_e2e.c - counting without a command, with the real binary:
 * a core until ^C and for --duration under the emulated PMU (the counts
 * of what ran there, exit 0, the PMU restored bit for bit); -p PID[,PID...]
 * through the real kernel's perf_event (all the processes' threads, until
 * the last ends or --duration); -p refused under the MSR backend with the
 * alternative.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "e2e_harness.h"
#include "emu_pmu.h"
#include "pmu/msr.h"

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 16);
	size_t n;

	assert_non_null(f);
	assert_non_null(buf);
	n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The count printed on @event's line of the human table, or -1. */
static double
count_of(const char *text, const char *event)
{
	const char *line = strstr(text, event);
	const char *start;
	char num[64];
	size_t k = 0;

	if (!line)
		return -1;
	for (start = line; start > text && start[-1] != '\n'; start--)
		;
	for (const char *p = start; p < line && k + 1 < sizeof(num); p++)
		if ((*p >= '0' && *p <= '9') || *p == '.')
			num[k++] = *p;
	num[k] = '\0';
	return k ? strtod(num, NULL) : -1;
}

/* -C 1 and no command: counts core 1 until ^C, prints, exits 0, the PMU as it was. */
static void
test_core_until_sigint(void **state)
{
	struct e2e_machine m;
	struct emu_pmu *before, *after;
	char out[4200];
	char *text;
	pid_t pid;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", "2", NULL });
	before = e2e_state(&m);
	snprintf(out, sizeof(out), "%s/out.txt", m.dir);
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-e", "INST_RETIRED.ANY", "-o", out, NULL },
			NULL);
	/* Counting once fixed counter 0 is enabled, whichever register pmustat writes last. */
	assert_true(e2e_wait_msr(&m, 1, MSR_IA32_FIXED_CTR_CTRL, 0x3, 0x2, 10000));
	assert_true(e2e_wait_msr(&m, 1, MSR_IA32_PERF_GLOBAL_CTRL, 1ull << 32, 1ull << 32, 10000));
	/* What runs on the core meanwhile: another process's instructions. */
	assert_int_equal(e2e_act(&m, 1, "retire:0xc0:0:1000"), 0);
	assert_int_equal(e2e_act(&m, 0, "retire:0xc0:0:500"), 0);
	kill(pid, SIGINT);
	assert_int_equal(e2e_reap(pid), 0);
	text = slurp(out);
	print_message("%s", text);
	assert_non_null(strstr(text, "Performance counter stats on core 1"));
	assert_true(count_of(text, "INST_RETIRED.ANY") == 1000);
	assert_non_null(strstr(text, "seconds time elapsed"));
	assert_null(strstr(text, "seconds user"));
	after = e2e_state(&m);
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(text);
	free(after);

	/* SIGTERM before --duration is up: the same normal end, in JSON too. */
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", "1", "--duration", "60s", "-e", "INST_RETIRED.ANY",
					      "--json", "-o", out, NULL }, NULL);
	assert_true(e2e_wait_msr(&m, 1, MSR_IA32_FIXED_CTR_CTRL, 0x3, 0x2, 10000));
	assert_true(e2e_wait_msr(&m, 1, MSR_IA32_PERF_GLOBAL_CTRL, 1ull << 32, 1ull << 32, 10000));
	assert_int_equal(e2e_act(&m, 1, "retire:0xc0:0:42"), 0);
	kill(pid, SIGTERM);
	assert_int_equal(e2e_reap(pid), 0);
	text = slurp(out);
	assert_non_null(strstr(text, "\"value\": 42,"));
	assert_non_null(strstr(text, "\"exit_status\": 0,"));
	assert_non_null(strstr(text, "\"command\": [],"));
	after = e2e_state(&m);
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(text);
	free(before);
	free(after);
	e2e_machine_free(&m);
}

/* --duration on a core list: ends by itself, exit 0, each core's count summed, the PMU as it was. */
static void
test_cores_for_duration(void **state)
{
	struct e2e_machine m;
	struct emu_pmu *before, *after;
	struct e2e_result r;
	char out[4200];
	char *text;
	pid_t pid;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", "2", NULL });
	before = e2e_state(&m);
	snprintf(out, sizeof(out), "%s/out.txt", m.dir);
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", "0-1", "--duration", "3s", "-e", "INST_RETIRED.ANY",
					      "-o", out, NULL }, NULL);
	assert_true(e2e_wait_msr(&m, 0, MSR_IA32_FIXED_CTR_CTRL, 0x3, 0x2, 10000));
	assert_true(e2e_wait_msr(&m, 0, MSR_IA32_PERF_GLOBAL_CTRL, 1ull << 32, 1ull << 32, 10000));
	assert_true(e2e_wait_msr(&m, 1, MSR_IA32_FIXED_CTR_CTRL, 0x3, 0x2, 10000));
	assert_true(e2e_wait_msr(&m, 1, MSR_IA32_PERF_GLOBAL_CTRL, 1ull << 32, 1ull << 32, 10000));
	assert_int_equal(e2e_act(&m, 0, "retire:0xc0:0:300"), 0);
	assert_int_equal(e2e_act(&m, 1, "retire:0xc0:0:20"), 0);
	assert_int_equal(e2e_reap(pid), 0);
	text = slurp(out);
	print_message("%s", text);
	assert_non_null(strstr(text, "on cores 0-1"));
	assert_true(count_of(text, "INST_RETIRED.ANY") == 320);
	assert_true(count_of(text, "seconds time elapsed") >= 2.9);
	after = e2e_state(&m);
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(text);

	/* Without -C, -a or -p there is nothing to count. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--duration", "1s", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "-C LIST, -a or -p PID");
	e2e_result_free(&r);
	/* A command is counted until it ends. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "--duration", "1s", "--", "true", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "--timeout MS bounds it");
	e2e_result_free(&r);
	free(before);
	free(after);
	e2e_machine_free(&m);
}

/* -p under the MSR backend: refused, the alternative named. */
static void
test_pid_refused_by_msr(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	char pid[16];

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", "2", NULL });
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--backend", "msr", "-p", pid, "-e", "INST_RETIRED.ANY", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "the MSR backend counts cores, not a process");
	e2e_assert_err_contains(&r, "--backend perf");
	e2e_assert_err_contains(&r, "-C N --duration TIME");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* Whether this kernel lets pmustat count a task-clock (seccomp in a container may not). */
static bool
perf_usable(void)
{
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.exclude_kernel = 1;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return false;
	close((int)fd);
	return true;
}

static void *
spin(void *arg)
{
	volatile unsigned long n = 0;

	(void)arg;
	for (;;)
		n++;
	return NULL;
}

/* The machine of a -p test, and its output file @out; skipped where the kernel refuses perf_event_open. */
static void
perf_machine(struct e2e_machine *m, char *out, size_t size)
{
	if (!perf_usable()) {
		print_message("skipped: perf_event_open refused here (seccomp, perf_event_paranoid)\n");
		skip();
	}
	e2e_machine_new(m, (const char *[]){ "--model", "skylake", "--cpus", "2", NULL });
	snprintf(out, size, "%s/out.txt", m->dir);
}

/* A process whose main thread sleeps while a second thread spins, for @ms (0: until killed). */
static pid_t
spinner(unsigned ms)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		pthread_t t;

		if (pthread_create(&t, NULL, spin, NULL) != 0)
			_exit(1);
		if (ms)
			usleep(ms * 1000);
		else
			pause();
		_exit(0);
	}
	usleep(50000);	/* the thread exists */
	return pid;
}

/* -p: the kernel counts every thread of the process (the busy one is not the main one). */
static void
test_pid_counts_threads(void **state)
{
	struct e2e_machine m;
	char out[4200], pid_arg[16];
	struct e2e_result r;
	double ms;
	char *text;
	pid_t pid;

	(void)state;
	perf_machine(&m, out, sizeof(out));
	pid = spinner(0);
	snprintf(pid_arg, sizeof(pid_arg), "%d", (int)pid);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-p", pid_arg, "--duration", "500ms", "-e",
					   "task-clock,INST_RETIRED.ANY", "-o", out, NULL });
	kill(pid, SIGKILL);
	assert_int_equal(e2e_reap(pid), 128 + SIGKILL);
	text = slurp(out);
	print_message("%s%s", r.err, text);
	e2e_assert_status(&r, 0);
	assert_non_null(strstr(text, "process id"));
	/* Half a second of a spinning thread, on a busy 2-CPU machine: well above nothing. */
	ms = count_of(text, "task-clock");
	assert_true(ms >= 25 && ms <= 1100);
	/* The emulated PMU is no perf PMU: the hardware event is not supported, and says so. */
	assert_non_null(strstr(text, "<not supported>"));
	free(text);
	e2e_result_free(&r);

	/* Until the process ends, without --duration (its life outlasts pmustat's start, even sanitized). */
	pid = spinner(2000);
	snprintf(pid_arg, sizeof(pid_arg), "%d", (int)pid);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-p", pid_arg, "-e", "task-clock", "-o", out, NULL });
	e2e_assert_status(&r, 0);
	assert_int_equal(e2e_reap(pid), 0);
	text = slurp(out);
	print_message("%s", text);
	assert_true(count_of(text, "task-clock") > 0);
	free(text);
	e2e_result_free(&r);

	/* A process that ended (not reaped yet): nothing left to count. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	usleep(100000);
	snprintf(pid_arg, sizeof(pid_arg), "%d", (int)pid);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-p", pid_arg, "-e", "task-clock", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "the process ended before counting started");
	e2e_result_free(&r);
	assert_int_equal(e2e_reap(pid), 0);

	/* A process that is not there. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-p", "4194303", "-e", "task-clock", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "no such process");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * -p A,B as perf takes it: both processes' threads summed, counting until
 * the last one ends (A ends first); a process named twice counts once; a
 * malformed list or a missing process is 125, naming it.
 */
static void
test_pid_list_counts_until_the_last_ends(void **state)
{
	struct e2e_machine m;
	char out[4200], list[64], want[96];
	struct e2e_result r;
	double elapsed;
	json_t *root;
	char *text;
	pid_t a, b;

	(void)state;
	perf_machine(&m, out, sizeof(out));
	/* A outlives pmustat's start even under a sanitizer on a loaded machine (up to 0.4 s seen). */
	a = spinner(1000);
	b = spinner(2500);
	snprintf(list, sizeof(list), "%d,%d,%d", (int)a, (int)b, (int)a);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-p", list, "-e", "task-clock", "-o", out, NULL });
	assert_int_equal(e2e_reap(a), 0);
	assert_int_equal(e2e_reap(b), 0);
	text = slurp(out);
	print_message("%s%s", r.err, text);
	e2e_assert_status(&r, 0);
	snprintf(want, sizeof(want), "process id '%d,%d'", (int)a, (int)b);
	assert_non_null(strstr(text, want));
	/* B lives 2.5 s from its start: counting did not end with A (1 s). */
	elapsed = count_of(text, "seconds time elapsed");
	if (elapsed < 1.3 || elapsed > 12)
		fail_msg("elapsed %.3f s: not until the last process ended", elapsed);
	/* Both spinning threads, about 1 + 2.4 s of a busy 2-CPU machine: above one process's share. */
	assert_true(count_of(text, "task-clock") >= 100);
	free(text);
	e2e_result_free(&r);

	/* --json names them all in pids (and the first in pid), for a process that is still there. */
	a = spinner(0);
	snprintf(list, sizeof(list), "%d,%d", (int)a, (int)getpid());
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-p", list, "--duration", "100ms", "--json", "-e", "task-clock",
					   NULL });
	kill(a, SIGKILL);
	assert_int_equal(e2e_reap(a), 128 + SIGKILL);
	e2e_assert_status(&r, 0);
	root = json_loads(r.err, 0, NULL);
	assert_non_null(root);
	assert_int_equal(json_integer_value(json_object_get(root, "pid")), a);
	assert_int_equal(json_array_size(json_object_get(root, "pids")), 2);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(root, "pids"), 0)), a);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(root, "pids"), 1)), getpid());
	json_decref(root);
	e2e_result_free(&r);

	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-p", "1,x2", "-e", "task-clock", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "-p 1,x2: want the id of a running process, or several separated by commas");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-p", "1,4194303", "-e", "task-clock", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "-p 4194303: no such process");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_core_until_sigint),
		cmocka_unit_test(test_cores_for_duration),
		cmocka_unit_test(test_pid_refused_by_msr),
		cmocka_unit_test(test_pid_counts_threads),
		cmocka_unit_test(test_pid_list_counts_until_the_last_ends),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
