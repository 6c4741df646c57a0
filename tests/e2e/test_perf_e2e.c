/*
 * test_perf_e2e.c - software events with the real kernel's perf_event
 * (no emulator: page faults of a program that touches 100 MiB), as root
 * and as an unprivileged user, whatever perf_event_paranoid says; the
 * refusal of hardware events on a machine without a PMU; and the backend
 * auto picks under the emulated PMU (msr) vs when its MSRs are closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "e2e_harness.h"
#include "emu_pmu.h"

#define NOBODY 65534

static int core;
static char core_arg[16];
static char tmpdir[] = "/tmp/pmustat-perf-e2e.XXXXXX";
/* Copies an unprivileged user can run whatever mode the build tree has (a clone in /root). */
static char shared_pmustat[sizeof(tmpdir) + 16], shared_touch[sizeof(tmpdir) + 16];

static int
setup(void **state)
{
	cpu_set_t set;

	(void)state;
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -1;
	const int limit = EMU_MAX_CPUS < CPU_SETSIZE ? EMU_MAX_CPUS : CPU_SETSIZE;

	for (int c = 0; c < limit; c++)
		if (CPU_ISSET(c, &set))
			core = c;
	snprintf(core_arg, sizeof(core_arg), "%d", core);
	if (!mkdtemp(tmpdir))
		return -1;
	/* An unprivileged run writes its JSON here. */
	chmod(tmpdir, 0777);
	snprintf(shared_pmustat, sizeof(shared_pmustat), "%s/pmustat", tmpdir);
	snprintf(shared_touch, sizeof(shared_touch), "%s/perf-touch", tmpdir);
	e2e_copy_program(E2E_PMUSTAT, shared_pmustat);
	e2e_copy_program(PERF_TOUCH, shared_touch);
	return 0;
}

static int
teardown(void **state)
{
	char path[PATH_MAX];

	(void)state;
	snprintf(path, sizeof(path), "%s/out.json", tmpdir);
	unlink(path);
	unlink(shared_pmustat);
	unlink(shared_touch);
	rmdir(tmpdir);
	return 0;
}

static int
paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

static bool
have_cpu_pmu(void)
{
	return access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
	       access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0;
}

/*
 * Run pmustat on the real machine (no preload), as @uid when >= 0 (we
 * must be root then); its status, stderr into @err.
 */
static int
run_real(int uid, const char *const argv[], char *err, size_t errlen)
{
	int pipefd[2];
	pid_t pid;
	size_t got = 0;
	ssize_t n;
	int ws;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pipefd[0]);
		dup2(pipefd[1], 2);
		unsetenv("SUDO_UID");
		unsetenv("SUDO_GID");
		if (uid >= 0 && (setgid((gid_t)uid) != 0 || setuid((uid_t)uid) != 0))
			_exit(99);
		execv(argv[0], (char *const *)argv);
		_exit(98);
	}
	close(pipefd[1]);
	while (got + 1 < errlen && (n = read(pipefd[0], err + got, errlen - 1 - got)) > 0)
		got += (size_t)n;
	err[got] = '\0';
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

static json_t *
load_out(void)
{
	char path[PATH_MAX];
	json_error_t jerr;
	json_t *root;

	snprintf(path, sizeof(path), "%s/out.json", tmpdir);
	root = json_load_file(path, 0, &jerr);
	if (!root)
		fail_msg("%s: %s", path, jerr.text);
	unlink(path);
	return root;
}

static json_t *
event_named(json_t *root, const char *name)
{
	json_t *events = json_object_get(root, "events"), *e;
	size_t i;

	json_array_foreach(events, i, e)
		if (strcmp(json_string_value(json_object_get(e, "name")), name) == 0)
			return e;
	fail_msg("no event %s", name);
	return NULL;
}

/* 100 MiB touched: >= 25600 page faults, the command's exit status, backend perf. */
static void
check_software_run(int uid)
{
	char out[PATH_MAX], err[8192];
	json_t *root, *pf, *tc;
	const char *st;
	int rc;

	snprintf(out, sizeof(out), "%s/out.json", tmpdir);
	/*
	 * Another user runs the copies: the build tree may be out of its
	 * reach (a clone in /root). Software events need no event table.
	 */
	rc = run_real(uid, (const char *[]){ uid >= 0 ? shared_pmustat : E2E_PMUSTAT, "--json", "-o", out, "-e", "task-clock,page-faults,minor-faults,context-switches",
					     uid >= 0 ? shared_touch : PERF_TOUCH, "100", "7", NULL }, err, sizeof(err));
	if (uid >= 0 && (rc == 98 || rc == 99))
		fail_msg("user %d cannot run %s (status %d)", uid, shared_pmustat, rc);
	if (uid >= 0 && paranoid() >= 3) {
		/* Debian's paranoid 3: no perf_event_open for users, and the fix is named. */
		assert_int_equal(rc, 125);
		assert_non_null(strstr(err, "perf_event_paranoid is 3"));
		json_decref(load_out());
		return;
	}
	if (rc != 7)
		fail_msg("status %d, stderr: %s", rc, err);
	root = load_out();
	assert_string_equal(json_string_value(json_object_get(root, "backend")), "perf");
	assert_int_equal(json_integer_value(json_object_get(root, "exit_status")), 7);
	pf = event_named(root, "page-faults");
	assert_true(json_integer_value(json_object_get(pf, "value")) >= 25600);
	/*
	 * And not wildly more: the counts are the command's own (its loader
	 * and, in a sanitized build, the sanitizer runtime add a few
	 * thousand; pmustat's own faults would add far more).
	 */
	assert_true(json_integer_value(json_object_get(pf, "value")) < 2 * 25600);
	assert_true(json_integer_value(json_object_get(event_named(root, "minor-faults"), "value")) >= 25600);
	tc = event_named(root, "task-clock");
	assert_string_equal(json_string_value(json_object_get(tc, "unit")), "ns");
	assert_true(json_integer_value(json_object_get(tc, "value")) > 0);
	assert_int_equal(json_integer_value(json_object_get(tc, "time_enabled_ns")),
			 json_integer_value(json_object_get(tc, "time_running_ns")));
	st = json_string_value(json_object_get(pf, "status"));
	if (uid >= 0 && paranoid() >= 2)
		assert_string_equal(st, "counted (user mode only: kernel.perf_event_paranoid=2)");
	else
		assert_string_equal(st, "counted");
	json_decref(root);
}

static void
test_software_events_real_kernel(void **state)
{
	(void)state;
	check_software_run(-1);
}

static void
test_software_events_unprivileged(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: the run above already is the unprivileged one\n");
		skip();
	}
	check_software_run(NOBODY);
}

/* The first two CPUs this process may run on, and "A,B" for -C; skipped with one. */
static void
two_cpus(int cpus[2], char *list, size_t size)
{
	cpu_set_t set;
	int n = 0;

	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	if (n < 2) {
		print_message("skipped: one CPU to run on\n");
		skip();
	}
	snprintf(list, size, "%d,%d", cpus[0], cpus[1]);
}

/*
 * -C LIST -A with the perf backend on the real kernel: software events per
 * listed CPU, everything that ran there while the command ran (as perf
 * stat -C -A), summing to the total; as root, and refused as a user
 * unless perf_event_paranoid <= 0, with the fix named.
 */
static void
check_per_cpu_run(int uid)
{
	char out[PATH_MAX], err[8192], list[32];
	int cpus[2];
	json_t *root;
	int rc;

	two_cpus(cpus, list, sizeof(list));
	snprintf(out, sizeof(out), "%s/out.json", tmpdir);
	rc = run_real(uid, (const char *[]){ uid >= 0 ? shared_pmustat : E2E_PMUSTAT, "--backend", "perf", "-C", list,
					     "-A", "--json", "-o", out, "-e", "page-faults,task-clock",
					     uid >= 0 ? shared_touch : PERF_TOUCH, "100", "7", NULL }, err, sizeof(err));
	if (uid >= 0 && paranoid() > 0) {
		assert_int_equal(rc, 125);
		assert_non_null(strstr(err, "counting everything that runs on a CPU"));
		assert_non_null(strstr(err, "perf_event_paranoid <= 0"));
		json_decref(load_out());
		return;
	}
	if (rc != 7)
		fail_msg("status %d, stderr: %s", rc, err);
	root = load_out();
	for (unsigned k = 0; k < 2; k++) {
		json_t *e = event_named(root, k ? "task-clock" : "page-faults");
		json_t *per = json_object_get(e, "per_cpu");
		json_int_t sum = 0;

		assert_true(json_is_array(per));
		assert_int_equal(json_array_size(per), 2);
		for (size_t i = 0; i < 2; i++) {
			json_t *one = json_array_get(per, i);

			assert_int_equal(json_integer_value(json_object_get(one, "cpu")), cpus[i]);
			sum += json_integer_value(json_object_get(one, "value"));
		}
		assert_int_equal(sum, json_integer_value(json_object_get(e, "value")));
		/* Off a CPU is not multiplexed: software events are counted. */
		assert_non_null(strstr(json_string_value(json_object_get(e, "status")), "counted"));
		assert_null(strstr(json_string_value(json_object_get(e, "status")), "multiplexed"));
	}
	assert_true(json_integer_value(json_object_get(event_named(root, "page-faults"), "value")) >= 25600);
	json_decref(root);
}

static void
test_per_cpu_software_events(void **state)
{
	(void)state;
	check_per_cpu_run(-1);
	if (geteuid() == 0)
		check_per_cpu_run(NOBODY);
}

/*
 * No command, -C LIST -A, the perf backend: the kernel counts each CPU
 * whole, and each CPU's copy is its own line (they sum to the total);
 * task-clock on a CPU is the time it was watched. Counting whole CPUs
 * needs root or perf_event_paranoid <= 0. -I prints each CPU's intervals.
 */
static void
test_per_cpu_without_command(void **state)
{
	char out[PATH_MAX], err[8192], list[32];
	int cpus[2];
	json_t *root, *per;
	json_int_t sum = 0;
	int rc;

	(void)state;
	if (geteuid() != 0 && paranoid() > 0) {
		print_message("skipped: counting whole CPUs needs root or perf_event_paranoid <= 0\n");
		skip();
	}
	two_cpus(cpus, list, sizeof(list));
	snprintf(out, sizeof(out), "%s/out.json", tmpdir);
	rc = run_real(-1, (const char *[]){ E2E_PMUSTAT, "--backend", "perf", "-C", list, "-A", "--duration", "300ms",
					    "--json", "-o", out, "-e", "task-clock", NULL }, err, sizeof(err));
	if (rc != 0)
		fail_msg("status %d, stderr: %s", rc, err);
	root = load_out();
	per = json_object_get(event_named(root, "task-clock"), "per_cpu");
	assert_true(json_is_array(per));
	assert_int_equal(json_array_size(per), 2);
	for (size_t i = 0; i < 2; i++) {
		json_t *one = json_array_get(per, i);
		json_int_t ns = json_integer_value(json_object_get(one, "value"));

		assert_int_equal(json_integer_value(json_object_get(one, "cpu")), cpus[i]);
		/* 300 ms watched, on a loaded machine (and a sanitized build): about that, never 0 nor the sum. */
		if (ns < 250000000 || ns > 3000000000)
			fail_msg("CPU%d: task-clock %lld ns for 300 ms", cpus[i], (long long)ns);
		sum += ns;
	}
	assert_int_equal(sum, json_integer_value(json_object_get(event_named(root, "task-clock"), "value")));
	json_decref(root);

	/* -I reads the kernel's counters as they run: an interval line per CPU. */
	rc = run_real(-1, (const char *[]){ E2E_PMUSTAT, "--backend", "perf", "-C", list, "-A", "-I", "100",
					    "--duration", "300ms", "-e", "task-clock", NULL }, err, sizeof(err));
	if (rc != 0 || !strstr(err, "CPU") || !strstr(err, "task-clock") || !strstr(err, "time cpu"))
		fail_msg("status %d, stderr: %s", rc, err);
}

/* The human table: msec for task-clock, the backend named. */
static void
test_human_output(void **state)
{
	char err[8192];

	(void)state;
	assert_int_equal(run_real(-1, (const char *[]){ E2E_PMUSTAT, "-e", "task-clock,faults",
							PERF_TOUCH, "10", NULL }, err, sizeof(err)), 0);
	assert_non_null(strstr(err, " msec      task-clock"));
	assert_non_null(strstr(err, "faults"));
	assert_non_null(strstr(err, "backend perf"));
}

/* No PMU on this machine: hardware events are refused with the reason, 125. */
static void
test_hardware_refused_without_pmu(void **state)
{
	const char *backends[] = { "auto", "msr" };
	char err[8192];
	int rc;

	(void)state;
	if (have_cpu_pmu()) {
		print_message("skipped: this machine has a CPU PMU, so hardware events are not refused\n");
		skip();
	}
	for (size_t i = 0; i < 2; i++) {
		rc = run_real(-1, (const char *[]){ E2E_PMUSTAT, "--backend", backends[i], "-e",
						"instructions,page-faults", "true", NULL },
			      err, sizeof(err));
		assert_int_equal(rc, 125);
		if (!strstr(err, "not an Intel CPU") && !strstr(err, "exposes no PMU") &&
		    !strstr(err, "no architectural performance monitoring"))
			fail_msg("--backend %s: %s", backends[i], err);
		assert_non_null(strstr(err, "software events such as task-clock"));
	}
	/*
	 * --backend perf: perf's generic names go to the kernel as its generic
	 * events whatever the vendor; this kernel has no PMU driver, so it
	 * refuses them: <not supported> with the reason, the command runs.
	 */
	rc = run_real(-1, (const char *[]){ E2E_PMUSTAT, "--backend", "perf", "-e",
					    "instructions,cycles,branch-misses,page-faults", "true", NULL },
		      err, sizeof(err));
	if (rc != 0 || !strstr(err, "<not supported>      instructions") ||
	    !strstr(err, "<not supported>      cycles") || !strstr(err, "<not supported>      branch-misses") ||
	    !strstr(err, "the kernel's generic hardware event 0x1") || !strstr(err, "page-faults"))
		fail_msg("--backend perf on a machine without a PMU: status %d: %s", rc, err);
	/* What it asks the kernel for: the generic types, not Intel's raw encodings. */
	rc = run_real(-1, (const char *[]){ E2E_PMUSTAT, "--backend", "perf", "--dry-run", "-e",
					    "instructions,cycles,L1-dcache-load-misses,LLC-load-misses", "true", NULL },
		      err, sizeof(err));
	if (rc != 0 || !strstr(err, "type HARDWARE config 0x1 ") || !strstr(err, "type HARDWARE config 0x0 ") ||
	    !strstr(err, "type HW_CACHE config 0x10000 ") || !strstr(err, "type HW_CACHE config 0x10002 ") ||
	    strstr(err, "type RAW"))
		fail_msg("--backend perf --dry-run: status %d: %s", rc, err);
}

/* Under the emulated PMU: auto takes the MSR path, software events beside it. */
static void
test_auto_picks_msr_under_the_emulator(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	char cpus[16], out[PATH_MAX + 16];
	json_error_t jerr;
	json_t *root, *e;

	(void)state;
	snprintf(cpus, sizeof(cpus), "%d", core + 1);
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", cpus, NULL });
	snprintf(out, sizeof(out), "%s/out.json", m.dir);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out,
					  "-e", "instructions,page-faults", E2E_EMU_WORKLOAD,
					  "--retire", "0xc0:0:5000", NULL });
	e2e_assert_status(&r, 0);
	root = json_load_file(out, 0, &jerr);
	assert_non_null(root);
	assert_string_equal(json_string_value(json_object_get(root, "backend")), "msr");
	e = json_array_get(json_object_get(root, "events"), 0);
	assert_int_equal(json_integer_value(json_object_get(e, "value")), 5000);
	e = json_array_get(json_object_get(root, "events"), 1);
	assert_string_equal(json_string_value(json_object_get(e, "name")), "page-faults");
	assert_string_equal(json_string_value(json_object_get(e, "status")), "counted");
	assert_true(json_integer_value(json_object_get(e, "value")) > 0);
	json_decref(root);
	unlink(out);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * MSRs closed on the emulated machine: auto goes to perf, where the real
 * kernel (no PMU here) cannot count the hardware event; both reasons are
 * given. Software events alone still count.
 */
static void
test_auto_falls_back_to_perf(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	char cpus[16];

	(void)state;
	snprintf(cpus, sizeof(cpus), "%d", core + 1);
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", cpus, "--msr=eacces", NULL });
	if (!have_cpu_pmu()) {
		e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "instructions",
						  E2E_EMU_WORKLOAD, NULL });
		e2e_assert_status(&r, 125);
		e2e_assert_err_contains(&r, "perf_event_open for 'instructions'");
		e2e_assert_err_contains(&r, "no CPU PMU driver");
		e2e_assert_err_contains(&r, "run pmustat as root");
		e2e_result_free(&r);
	}
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-v", "-e", "page-faults",
					  E2E_EMU_WORKLOAD, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "backend perf");
	e2e_assert_err_contains(&r, "page-faults");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* Occurrences of @needle in @hay. */
static unsigned
count_of(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* The default set's human table without a PMU: software events, times, one reason line. */
static void
check_default_set_table(const char *err)
{
	static const char *const hw[] = { "instructions", "cycles", "branches", "branch-misses" };
	char line[64];

	assert_non_null(strstr(err, " msec      task-clock"));
	assert_non_null(strstr(err, "      context-switches"));
	assert_non_null(strstr(err, "      cpu-migrations"));
	assert_non_null(strstr(err, "      page-faults"));
	for (size_t i = 0; i < sizeof(hw) / sizeof(hw[0]); i++) {
		snprintf(line, sizeof(line), "   <not supported>      %s:u ", hw[i]);
		if (!strstr(err, line))
			fail_msg("no '%s' in: %s", line, err);
	}
	assert_non_null(strstr(err, " seconds user\n"));
	assert_non_null(strstr(err, " seconds sys\n"));
	/* One line says why, for them all. */
	assert_int_equal(count_of(err, "Hardware events <not supported>: "), 1);
}

/*
 * A VM without a PMU, the common CI runner: `pmustat -- COMMAND` without -e
 * counts perf's software events, marks the default hardware events
 * <not supported> with the reason once, and exits with the command's
 * status; a hardware event named with -e is still refused (125). On the
 * emulated VM (any host), and on this machine when it has no PMU.
 */
static void
test_default_set_without_pmu(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	char cpus[16], out[PATH_MAX + 16], err[16384];
	json_error_t jerr;
	json_t *root, *e;

	(void)state;
	snprintf(cpus, sizeof(cpus), "%d", core + 1);
	e2e_machine_new(&m, (const char *[]){ "--model", "nopmu", "--cpus", cpus, "--rdpmc=off", NULL });
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "/bin/sh", "-c", "exit 7", NULL });
	e2e_assert_status(&r, 7);
	check_default_set_table(r.err);
	e2e_assert_err_contains(&r, "Hardware events <not supported>: core ");
	e2e_assert_err_contains(&r, "exposes no PMU");
	e2e_result_free(&r);

	snprintf(out, sizeof(out), "%s/out.json", m.dir);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out, PERF_TOUCH, "10", "0",
					  NULL });
	e2e_assert_status(&r, 0);
	root = json_load_file(out, 0, &jerr);
	assert_non_null(root);
	assert_string_equal(json_string_value(json_object_get(root, "backend")), "perf");
	assert_non_null(strstr(json_string_value(json_object_get(root, "not_supported_reason")), "exposes no PMU"));
	assert_true(json_is_number(json_object_get(root, "user_seconds")));
	assert_true(json_real_value(json_object_get(root, "sys_seconds")) >= 0);
	e = event_named(root, "page-faults");
	assert_true(json_integer_value(json_object_get(e, "value")) >= 2560);
	e = event_named(root, "instructions");
	assert_true(json_is_null(json_object_get(e, "value")));
	assert_string_equal(json_string_value(json_object_get(e, "status")), "not supported");
	json_decref(root);
	unlink(out);
	e2e_result_free(&r);

	/* Named explicitly: refused, as before. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "instructions", "/bin/sh", "-c",
					  "exit 7", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "exposes no PMU");
	e2e_result_free(&r);
	e2e_machine_free(&m);

	if (have_cpu_pmu()) {
		print_message("this machine has a CPU PMU: its own default set is not the one without\n");
		return;
	}
	assert_int_equal(run_real(-1, (const char *[]){ E2E_PMUSTAT, "/bin/sh", "-c", "exit 5", NULL }, err,
				  sizeof(err)), 5);
	check_default_set_table(err);
}

/*
 * Machine output without the command's noise: -j is --json, --csv-header
 * names the CSV fields, --log-fd N writes the results to an inherited
 * descriptor (stderr keeps only what the command writes there).
 */
static void
test_machine_output_options(void **state)
{
	char err[8192], cmd[PATH_MAX * 2], path[PATH_MAX];
	json_error_t jerr;
	json_t *root;
	FILE *f;
	char text[4096];
	size_t n;

	(void)state;
	assert_int_equal(run_real(-1, (const char *[]){ E2E_PMUSTAT, "-j", "-e", "page-faults", "true", NULL }, err,
				  sizeof(err)), 0);
	root = json_loads(err, 0, &jerr);
	if (!root)
		fail_msg("-j: not JSON (%s): %s", jerr.text, err);
	assert_string_equal(json_string_value(json_object_get(root, "type")), "stat");
	json_decref(root);

	assert_int_equal(run_real(-1, (const char *[]){ E2E_PMUSTAT, "-x", ";", "--csv-header", "-e", "page-faults",
							"true", NULL }, err, sizeof(err)), 0);
	if (strncmp(err, "value;unit;event;name;counter;run;status\n", 41) != 0 || !strstr(err, ";;page-faults;"))
		fail_msg("--csv-header: %s", err);
	assert_int_equal(run_real(-1, (const char *[]){ E2E_PMUSTAT, "--csv-header", "-e", "page-faults", "true",
							NULL }, err, sizeof(err)), 125);
	assert_non_null(strstr(err, "--csv-header goes with -x"));

	snprintf(path, sizeof(path), "%s/log-fd.txt", tmpdir);
	snprintf(cmd, sizeof(cmd), "exec %s --log-fd 3 -x , -e page-faults sh -c 'echo own-stderr >&2' 3>%s",
		 E2E_PMUSTAT, path);
	assert_int_equal(run_real(-1, (const char *[]){ "/bin/sh", "-c", cmd, NULL }, err, sizeof(err)), 0);
	assert_string_equal(err, "own-stderr\n");
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	unlink(path);
	if (!strstr(text, ",,page-faults,page-faults,-,1,counted\n"))
		fail_msg("--log-fd 3 wrote: %s", text);
	assert_int_equal(run_real(-1, (const char *[]){ E2E_PMUSTAT, "--log-fd", "9", "true", NULL }, err,
				  sizeof(err)), 125);
	assert_non_null(strstr(err, "--log-fd 9: not a descriptor open for writing"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_software_events_real_kernel),
		cmocka_unit_test(test_software_events_unprivileged),
		cmocka_unit_test(test_per_cpu_software_events),
		cmocka_unit_test(test_per_cpu_without_command),
		cmocka_unit_test(test_human_output),
		cmocka_unit_test(test_hardware_refused_without_pmu),
		cmocka_unit_test(test_auto_picks_msr_under_the_emulator),
		cmocka_unit_test(test_auto_falls_back_to_perf),
		cmocka_unit_test(test_default_set_without_pmu),
		cmocka_unit_test(test_machine_output_options),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
