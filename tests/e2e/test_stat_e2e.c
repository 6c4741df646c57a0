/*
 * test_stat_e2e.c - `pmustat [-e ...] -- COMMAND` end to end: the real
 * binary on the emulated PMU (libpmuemu.so), counting emu-workload, which
 * retires exact numbers of events. After every run the emulated MSRs must
 * be as they were, bit for bit (emu_pmu_diff), however it ended.
 */
#include "stat_e2e.h"

extern char **environ;

/* The core the tests count on: the last one we may run on. */
int core;
char core_arg[16];

int
setup(void **state)
{
	(void)state;
	core = e2e_last_cpu();
	if (core < 0)
		return -1;
	snprintf(core_arg, sizeof(core_arg), "%d", core);
	return 0;
}

void
machine(struct e2e_machine *m, const char *model, bool watchdog)
{
	char cpus[16];

	snprintf(cpus, sizeof(cpus), "%d", core + 1);
	if (watchdog)
		e2e_machine_new(m, (const char *[]){ "--model", model, "--cpus", cpus, "--watchdog", NULL });
	else
		e2e_machine_new(m, (const char *[]){ "--model", model, "--cpus", cpus, NULL });
}

/* The --json -o file of machine @m. */
void
json_path(const struct e2e_machine *m, char *buf, size_t size)
{
	snprintf(buf, size, "%s/out.json", m->dir);
}

json_t *
load_json(const struct e2e_machine *m)
{
	char path[PATH_MAX + 16];
	json_error_t jerr;
	json_t *root;

	json_path(m, path, sizeof(path));
	root = json_load_file(path, 0, &jerr);
	if (!root)
		fail_msg("%s: %s", path, jerr.text);
	unlink(path);
	return root;
}

json_t *
event_at(json_t *root, size_t i)
{
	json_t *e = json_array_get(json_object_get(root, "events"), i);

	assert_non_null(e);
	return e;
}

long long
value_at(json_t *root, size_t i)
{
	return json_integer_value(json_object_get(event_at(root, i), "value"));
}

void
assert_restored(const struct e2e_machine *m, const struct emu_pmu *before)
{
	struct emu_pmu *after = e2e_state(m);

	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(after);
}

static void
test_default_events_exact(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	char out[PATH_MAX + 16];
	json_t *root;

	(void)state;
	machine(&m, "skylake", false);
	json_path(&m, out, sizeof(out));
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out,
					  WL, USER_WORK, NULL });
	e2e_assert_status(&r, 0);
	root = load_json(&m);
	assert_int_equal(json_integer_value(json_object_get(root, "format_version")), 2);
	assert_int_equal(json_integer_value(json_object_get(root, "core")), core);
	assert_string_equal(json_string_value(json_object_get(root, "event_table")), "skylake");
	assert_int_equal(json_integer_value(json_object_get(root, "exit_status")), 0);
	assert_int_equal(json_array_size(json_object_get(root, "events")), 9);
	/* instructions, cycles, ref-cycles, branches, branch-misses: user only. */
	assert_int_equal(value_at(root, 0), 5000);
	assert_int_equal(value_at(root, 1), 2500);
	assert_int_equal(value_at(root, 2), 2000);
	assert_int_equal(value_at(root, 3), 700);
	assert_int_equal(value_at(root, 4), 7);
	assert_string_equal(json_string_value(json_object_get(event_at(root, 0), "counter")), "fixed0");
	assert_string_equal(json_string_value(json_object_get(event_at(root, 1), "counter")), "fixed1");
	assert_string_equal(json_string_value(json_object_get(event_at(root, 3), "counter")), "pmc0");
	assert_string_equal(json_string_value(json_object_get(event_at(root, 3), "requested")), "branches");
	assert_string_equal(json_string_value(json_object_get(event_at(root, 3), "status")), "counted");
	/* Then perf's software events, through perf_event beside the MSR path, and the command's times. */
	assert_string_equal(json_string_value(json_object_get(event_at(root, 5), "name")), "task-clock");
	assert_string_equal(json_string_value(json_object_get(event_at(root, 6), "name")), "context-switches");
	assert_string_equal(json_string_value(json_object_get(event_at(root, 7), "name")), "cpu-migrations");
	assert_string_equal(json_string_value(json_object_get(event_at(root, 8), "name")), "page-faults");
	assert_true(value_at(root, 5) > 0);
	assert_true(value_at(root, 8) > 0);
	assert_true(json_is_number(json_object_get(root, "user_seconds")));
	assert_true(json_is_number(json_object_get(root, "sys_seconds")));
	assert_true(json_is_null(json_object_get(root, "not_supported_reason")));
	json_decref(root);
	assert_restored(&m, before);
	free(before);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

static void
test_human_table(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	machine(&m, "skylake", false);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, WL, USER_WORK, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "5,000      instructions");
	e2e_assert_err_contains(&r, "2.00  insn per cycle");
	e2e_assert_err_contains(&r, "1.00% of all branches");
	e2e_assert_err_contains(&r, "seconds time elapsed");
	e2e_assert_err_contains(&r, "Counts are per core");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

static void
test_llc_misses_evtsel_user_only(void **state)
{
	struct e2e_machine m;
	struct emu_pmu *before;
	pid_t pid;

	(void)state;
	machine(&m, "skylake", false);
	before = e2e_state(&m);
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "LLC_MISSES",
					  WL, "--sleep", "3000", NULL }, NULL);
	/* While the command runs, PERFEVTSEL0 is 0x41412E: EN, USR, umask 0x41, event 0x2E. */
	assert_true(e2e_wait_msr(&m, (unsigned)core, MSR_IA32_PERFEVTSEL0, ~0ull, 0x41412e, 3000));
	kill(pid, SIGTERM);
	assert_int_equal(e2e_reap(pid), 128 + SIGTERM);
	/* A SIGTERM to pmustat itself: it restored before dying. */
	assert_restored(&m, before);
	free(before);
	e2e_machine_free(&m);
}

static void
test_kernel_modifier(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	char out[PATH_MAX + 16];
	json_t *root;

	(void)state;
	machine(&m, "skylake", false);
	json_path(&m, out, sizeof(out));
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out,
					  "-e", "instructions:k,branches,branches:uk", WL, USER_WORK, NULL });
	e2e_assert_status(&r, 0);
	root = load_json(&m);
	assert_int_equal(value_at(root, 0), 99999);
	assert_int_equal(value_at(root, 1), 700);
	assert_int_equal(value_at(root, 2), 1200);
	json_decref(root);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

static void
test_wrong_core_counts_nothing(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	char out[PATH_MAX + 16];
	json_t *root;

	(void)state;
	if (core == 0) {
		print_message("skipped: needs a second CPU to run on\n");
		skip();
	}
	machine(&m, "skylake", false);
	json_path(&m, out, sizeof(out));
	before = e2e_state(&m);
	/* The command moves itself to CPU 0: core C sees none of its events. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out,
					  "-e", "instructions,branches", "taskset", "-c", "0", WL,
					  USER_WORK, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "cpu 0");
	root = load_json(&m);
	assert_int_equal(value_at(root, 0), 0);
	assert_int_equal(value_at(root, 1), 0);
	json_decref(root);
	assert_restored(&m, before);
	free(before);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

static void
test_six_gp_events_two_runs(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	char out[PATH_MAX + 16];
	unsigned in_run[3] = { 0, 0, 0 };
	json_t *root;

	(void)state;
	machine(&m, "skylake", false);
	json_path(&m, out, sizeof(out));
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out,
					  "-e", "r0111,r0112,r0113,r0114,r0115,r0116", WL,
					  "--retire", "0x11:1:1001", "--retire", "0x12:1:1002",
					  "--retire", "0x13:1:1003", "--retire", "0x14:1:1004",
					  "--retire", "0x15:1:1005", "--retire", "0x16:1:1006", NULL });
	e2e_assert_status(&r, 0);
	root = load_json(&m);
	assert_int_equal(json_integer_value(json_object_get(root, "runs")), 2);
	for (size_t i = 0; i < 6; i++) {
		long long run = json_integer_value(json_object_get(event_at(root, i), "run"));

		/* Counted once, in one run, exactly (the command ran twice). */
		assert_int_equal(value_at(root, i), 1001 + (long long)i);
		assert_true(run == 1 || run == 2);
		in_run[run]++;
	}
	assert_int_equal(in_run[1], 4);
	assert_int_equal(in_run[2], 2);
	json_decref(root);
	assert_restored(&m, before);
	e2e_result_free(&r);

	/*
	 * A command killed in the first run ends the series: its status is
	 * 128+N, the second run's events say why they have no count, and the
	 * PMU is restored all the same.
	 */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out,
					  "-e", "r0111,r0112,r0113,r0114,r0115,r0116", WL,
					  "--retire", "0x11:1:1001", "--crash", NULL });
	e2e_assert_status(&r, 128 + SIGSEGV);
	root = load_json(&m);
	for (size_t i = 0; i < 6; i++) {
		json_t *e = event_at(root, i);

		if (json_integer_value(json_object_get(e, "run")) == 2) {
			assert_true(json_is_null(json_object_get(e, "value")));
			assert_string_equal(json_string_value(json_object_get(e, "status_text")),
					    "not counted: an earlier run was killed");
		} else {
			assert_string_equal(json_string_value(json_object_get(e, "status")), "counted");
		}
	}
	json_decref(root);
	assert_restored(&m, before);
	e2e_result_free(&r);

	/* --no-rerun refuses instead, touching nothing. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--no-rerun",
					  "-e", "r0111,r0112,r0113,r0114,r0115,r0116", WL, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "--no-rerun");
	assert_restored(&m, before);
	free(before);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

static void
test_count_above_2_48(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	char out[PATH_MAX + 16];
	json_t *root;

	(void)state;
	machine(&m, "skylake", false);
	json_path(&m, out, sizeof(out));
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out,
					  "-e", "instructions,branches", WL,
					  "--retire", "0xc0:0:281474976711656", "--retire", "0xc4:0:281474976710661",
					  NULL });
	e2e_assert_status(&r, 0);
	root = load_json(&m);
	assert_int_equal(value_at(root, 0), (1ll << 48) + 1000);
	assert_int_equal(value_at(root, 1), (1ll << 48) + 5);
	json_decref(root);
	assert_restored(&m, before);
	free(before);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

static void
test_restored_after_failures(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	char garbage[PATH_MAX + 16];
	int fd;

	(void)state;
	machine(&m, "skylake", false);
	before = e2e_state(&m);

	/* A crashing command: 128 + SIGSEGV. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, WL, "--retire", "0xc0:0:10",
					  "--crash", NULL });
	e2e_assert_status(&r, 128 + SIGSEGV);
	assert_restored(&m, before);
	e2e_result_free(&r);

	/* The command's own status. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, WL, "--exit", "3", NULL });
	e2e_assert_status(&r, 3);
	assert_restored(&m, before);
	e2e_result_free(&r);

	/* Not found: 127. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "pmustat-no-such-command", NULL });
	e2e_assert_status(&r, 127);
	e2e_assert_err_contains(&r, "pmustat-no-such-command");
	assert_restored(&m, before);
	e2e_result_free(&r);

	/* Found, executable bit, but execve fails (ENOEXEC; no shell fallback): 126. */
	snprintf(garbage, sizeof(garbage), "%s/garbage", m.dir);
	fd = open(garbage, O_CREAT | O_WRONLY | O_TRUNC, 0755);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "\x7f" "ELF-not-really", 15), 15);
	close(fd);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, garbage, NULL });
	e2e_assert_status(&r, 126);
	assert_restored(&m, before);
	e2e_result_free(&r);
	unlink(garbage);

	/* No execute bit at all: 126 (even for root). */
	fd = open(garbage, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chmod(garbage, 0644), 0);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, garbage, NULL });
	e2e_assert_status(&r, 126);
	e2e_assert_err_contains(&r, "cannot execute");
	assert_restored(&m, before);
	e2e_result_free(&r);
	unlink(garbage);
	free(before);
	e2e_machine_free(&m);
}

static void
test_restored_after_ctrl_c(void **state)
{
	struct e2e_machine m;
	struct emu_pmu *before;
	pid_t pid;

	(void)state;
	machine(&m, "skylake", true);
	before = e2e_state(&m);
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches",
					  WL, "--sleep", "5000", NULL }, NULL);
	assert_true(e2e_wait_msr(&m, (unsigned)core, MSR_IA32_PERFEVTSEL0, EVTSEL_EN, EVTSEL_EN, 3000));
	/* ^C: the terminal signals the whole foreground group. */
	kill(-pid, SIGINT);
	/* The command died of SIGINT; pmustat reports 128 + 2 after restoring. */
	assert_int_equal(e2e_reap(pid), 128 + SIGINT);
	{
		struct emu_pmu *after = e2e_state(&m);

		/* Only the watchdog's counter moved on (it counts cycles). */
		before->cpu[core].regs.fixed_ctr[1] = after->cpu[core].regs.fixed_ctr[1];
		assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
		free(after);
	}
	free(before);
	e2e_machine_free(&m);
}

static void
test_watchdog_shared(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before, *after;
	char out[PATH_MAX + 16];
	json_t *root;

	(void)state;
	machine(&m, "skylake", true);
	json_path(&m, out, sizeof(out));
	before = e2e_state(&m);
	/* No --force: cycles moves to a GP counter, the watchdog keeps FC1. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out,
					  WL, USER_WORK, NULL });
	e2e_assert_status(&r, 0);
	root = load_json(&m);
	assert_int_equal(value_at(root, 0), 5000);
	assert_int_equal(value_at(root, 1), 2500);
	assert_string_equal(json_string_value(json_object_get(event_at(root, 1), "counter")), "pmc0");
	assert_int_equal(value_at(root, 2), 2000);
	assert_int_equal(value_at(root, 3), 700);
	assert_int_equal(value_at(root, 4), 7);
	json_decref(root);
	after = e2e_state(&m);
	/* The watchdog counted its cycles (2500 of the workload) and nothing of it changed. */
	assert_int_equal(after->cpu[core].regs.fixed_ctr[1] - before->cpu[core].regs.fixed_ctr[1], 2500);
	before->cpu[core].regs.fixed_ctr[1] = after->cpu[core].regs.fixed_ctr[1];
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(after);
	free(before);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

static void
make_all_busy(struct e2e_machine *m)
{
	/* Somebody (perf) has every GP counter; the watchdog has FC1. */
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(e2e_set_msr(m, (unsigned)core, MSR_IA32_PERFEVTSEL0 + i,
					     0x53003c | EVTSEL_INT), 0);
}

static void
test_all_busy_refused(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	char out[PATH_MAX + 16];
	uint64_t w;
	json_t *root;

	(void)state;
	machine(&m, "skylake", true);
	json_path(&m, out, sizeof(out));
	make_all_busy(&m);
	before = e2e_state(&m);
	w = e2e_writes(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out,
					  "-e", "cycles,branches", WL, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "counters busy");
	e2e_assert_err_contains(&r, "fixed1");
	e2e_assert_err_contains(&r, "NMI watchdog");
	e2e_assert_err_contains(&r, "pmc0");
	e2e_assert_err_contains(&r, "--force");
	/* Nothing written at all. */
	assert_int_equal(e2e_writes(&m), w);
	assert_restored(&m, before);
	root = load_json(&m);
	assert_int_equal(json_integer_value(json_object_get(root, "exit_status")), 125);
	assert_non_null(strstr(json_string_value(json_object_get(root, "error")), "counters busy"));
	json_decref(root);
	e2e_result_free(&r);

	/* --force takes them, counts exactly, and gives them back as found. */
	json_path(&m, out, sizeof(out));
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--force", "--json", "-o", out,
					  "-e", "cycles,branches", WL, USER_WORK, NULL });
	e2e_assert_status(&r, 0);
	root = load_json(&m);
	assert_int_equal(value_at(root, 0), 2500);
	assert_int_equal(value_at(root, 1), 700);
	json_decref(root);
	{
		struct emu_pmu *after = e2e_state(&m);

		/*
		 * pmustat took fixed1 and pmc0 and gave them back as found; the
		 * owner's pmc1-3 (cycles, any ring) counted on, untouched.
		 */
		for (unsigned i = 1; i < 4; i++) {
			assert_int_equal(after->cpu[core].regs.pmc[i] - before->cpu[core].regs.pmc[i], 2500);
			before->cpu[core].regs.pmc[i] = after->cpu[core].regs.pmc[i];
		}
		assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
		free(after);
	}
	free(before);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

static void
test_usage_errors(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	char out[PATH_MAX + 16];
	uint64_t w;
	json_t *root;

	(void)state;
	machine(&m, "skylake", false);
	w = e2e_writes(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "LLC_MISES", WL, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "LLC_MISES");
	e2e_result_free(&r);
	json_path(&m, out, sizeof(out));
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out,
					  "-e", "nosuchevent", WL, NULL });
	e2e_assert_status(&r, 125);
	root = load_json(&m);
	assert_int_equal(json_integer_value(json_object_get(root, "exit_status")), 125);
	assert_non_null(strstr(json_string_value(json_object_get(root, "error")), "nosuchevent"));
	json_decref(root);
	e2e_result_free(&r);
	/* No command and nothing to count without one (-C, -a, -p: engine/watch.c). */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-e", "branches", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "no command");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--bogus-option", "true", NULL });
	e2e_assert_status(&r, 125);
	e2e_result_free(&r);
	if (core > 0) {
		/* A core outside pmustat's affinity: refused before any MSR access. */
		e2e_run(&m, &r, (const char *[]){ "/usr/bin/taskset", "-c", "0", E2E_PMUSTAT, "-C", core_arg,
						  "-e", "branches", WL, NULL });
		e2e_assert_status(&r, 125);
		e2e_assert_err_contains(&r, "outside the CPUs pmustat may run on");
		e2e_result_free(&r);
	}
	/* None of it wrote an MSR. */
	assert_int_equal(e2e_writes(&m), w);
	e2e_machine_free(&m);
}

static void
test_csv(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	machine(&m, "skylake", false);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-x", ";", "-e", "branches,instructions",
					  WL, USER_WORK, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "700;;branches:u;BRANCH_INSTRUCTIONS;pmc0;1;counted;;");
	e2e_assert_err_contains(&r, "5000;;instructions:u;INSTRUCTIONS_RETIRED;fixed0;1;counted;;");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

static void
test_dry_run_touches_nothing(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	uint64_t w;

	(void)state;
	machine(&m, "skylake", false);
	before = e2e_state(&m);
	w = e2e_writes(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--dry-run", "-e", "LLC_MISSES",
					  WL, "--crash", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "0x186 0x41412e");
	e2e_assert_err_contains(&r, "IA32_PERFEVTSEL0");
	/* The command did not run, nothing was written. */
	assert_null(strstr(r.out, "cpu "));
	assert_int_equal(e2e_writes(&m), w);
	assert_restored(&m, before);
	free(before);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_events_exact),
		cmocka_unit_test(test_human_table),
		cmocka_unit_test(test_llc_misses_evtsel_user_only),
		cmocka_unit_test(test_kernel_modifier),
		cmocka_unit_test(test_wrong_core_counts_nothing),
		cmocka_unit_test(test_six_gp_events_two_runs),
		cmocka_unit_test(test_count_above_2_48),
		cmocka_unit_test(test_restored_after_failures),
		cmocka_unit_test(test_restored_after_ctrl_c),
		cmocka_unit_test(test_watchdog_shared),
		cmocka_unit_test(test_all_busy_refused),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_dry_run_touches_nothing),
		cmocka_unit_test(test_privilege_drop),
		cmocka_unit_test(test_legacy_writes_haswell),
		cmocka_unit_test(test_hybrid_table_of_the_core),
		cmocka_unit_test(test_icelake_slots_by_default),
		cmocka_unit_test(test_msr_reads_without_rdpmc),
		cmocka_unit_test(test_second_pmustat_on_the_core_waits_then_names_the_pid),
		cmocka_unit_test(test_no_pmu_access_125_with_the_fix),
		cmocka_unit_test(test_core2_v2_40_bit),
		cmocka_unit_test(test_sigint_to_pmustat_alone_reaches_the_command),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
