/*
 * test_state_reset_e2e.c - pmustat reset and the next run against
 * journals: live and reused pids, corrupt journals, runs killed with
 * SIGKILL, and no journal left by runs that end normally.
 */
#include "state_e2e.h"

/*
 * A journal by hand on @m: the registers of @before on the core, owned by @pid
 * started at @start, of a run that wrote what scribble() writes.
 */
static void
hand_journal(const struct e2e_machine *m, const struct emu_pmu *before, pid_t pid, unsigned long long start)
{
	const struct emu_regs *g = &before->cpu[core].regs;
	struct pmustat_error *err = NULL;
	char dir[PATH_MAX];
	struct journal j;

	memset(&j, 0, sizeof(j));
	j.core = core;
	j.pid = pid;
	j.start_time = start;
	j.own_gp = 0xf;
	j.own_fixed = 0x7;
	j.status = g->global_status;
	j.regs[j.nregs++] = (struct journal_reg){ MSR_IA32_PERF_GLOBAL_CTRL, g->global_ctrl };
	j.regs[j.nregs++] = (struct journal_reg){ MSR_IA32_FIXED_CTR_CTRL, g->fixed_ctr_ctrl };
	for (unsigned i = 0; i < 4; i++) {
		j.regs[j.nregs++] = (struct journal_reg){ msr_evtsel(i), g->evtsel[i] };
		j.regs[j.nregs++] = (struct journal_reg){ msr_pmc(i), g->pmc[i] };
	}
	for (unsigned i = 0; i < 3; i++)
		j.regs[j.nregs++] = (struct journal_reg){ msr_fixed_ctr(i), g->fixed_ctr[i] };
	/* What that run wrote: scribble()'s programming. */
	j.wrote[j.nwrote++] = (struct journal_reg){ msr_evtsel(0), 0x4300c4 };
	for (unsigned i = 0; i < 3; i++)
		j.fields[i] = 1u << 2;
	e2e_machine_path(m, JOURNAL_DIR, dir, sizeof(dir));
	if (journal_write(dir, &j, &err) != 0)
		fail_msg("journal_write: %s", err_msg(err));
	err_clear(&err);
}

static void
scribble(const struct e2e_machine *m)
{
	set(m, msr_evtsel(0), 0x4300c4);
	set(m, msr_a_pmc(0), 4242);
	set(m, MSR_IA32_FIXED_CTR_CTRL, 0x222);
	set(m, msr_fixed_ctr(2), 17);
}

/*
 * Whose journal is it? A live run's (same pid, same start time) is never
 * touched; a pid now reused by another process (start time differs) does
 * not keep a dead run's journal alive: it is restored.
 */
void
test_reset_live_and_reused_pid(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before, *scribbled;
	unsigned long long start;
	char path[PATH_MAX];
	uint64_t w;

	(void)state;
	machine(&m, false);
	set(&m, msr_a_pmc(3), 0xabcdef);
	before = e2e_state(&m);
	scribble(&m);
	scribbled = e2e_state(&m);
	e2e_journal_file(&m, core, path, sizeof(path));

	/* Live: this very process, its real start time. */
	assert_int_equal(journal_proc_start_time(getpid(), &start), 0);
	hand_journal(&m, before, getpid(), start);
	w = e2e_writes(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", core_arg, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "still counting");
	assert_int_equal(e2e_writes(&m), w);
	assert_same(&m, scribbled);
	assert_int_equal(access(path, F_OK), 0);
	e2e_result_free(&r);
	/* state says so, and leaves it alone too. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", core_arg, "--json", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "\"state\": \"live\"");
	e2e_result_free(&r);

	/* Reused: our pid, but the run started at another time. */
	hand_journal(&m, before, getpid(), start + 12345);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", core_arg, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "belongs to another process");
	assert_same(&m, before);
	assert_int_equal(access(path, F_OK), -1);
	e2e_result_free(&r);

	/* Nothing left: reset has nothing to do. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", core_arg, "--json", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "\"journal\": \"none\"");
	e2e_result_free(&r);
	free(before);
	free(scribbled);
	e2e_machine_free(&m);
}

/* A corrupt journal is reported (125), never applied, and kept. */
void
test_reset_corrupt_journal(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	char path[PATH_MAX], text[4096];
	ssize_t n;
	uint64_t w;
	int fd;

	(void)state;
	machine(&m, false);
	before = e2e_state(&m);
	hand_journal(&m, before, 1, 1);
	e2e_journal_file(&m, core, path, sizeof(path));
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	n = read(fd, text, sizeof(text));
	assert_true(n > 40);
	/* Truncated mid-way, as a crash during a non-atomic write would leave it. */
	assert_int_equal(ftruncate(fd, n / 2), 0);
	close(fd);
	scribble(&m);
	free(before);
	before = e2e_state(&m);
	w = e2e_writes(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", core_arg, "--json", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "NOT applied");
	e2e_assert_out_contains(&r, "\"journal\": \"corrupt\"");
	assert_int_equal(e2e_writes(&m), w);
	assert_same(&m, before);
	assert_int_equal(access(path, F_OK), 0);
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", core_arg, "--json", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "\"state\": \"corrupt\"");
	e2e_result_free(&r);
	unlink(path);
	free(before);
	e2e_machine_free(&m);
}

/* SIGKILL pmustat while the command sleeps: nothing can restore then, but the journal is there. */
static pid_t
killed_run(const struct e2e_machine *m)
{
	char path[PATH_MAX];
	pid_t pid;

	pid = e2e_spawn(m, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches,instructions",
					 WL, "--sleep", "10000", NULL }, NULL);
	assert_true(e2e_wait_msr(m, (unsigned)core, msr_evtsel(0), EVTSEL_EN, EVTSEL_EN, 5000));
	kill(-pid, SIGKILL);
	assert_int_equal(e2e_reap(pid), 128 + SIGKILL);
	e2e_journal_file(m, core, path, sizeof(path));
	assert_int_equal(access(path, F_OK), 0);
	/* Left programmed: the complaint this journal answers. */
	assert_true(e2e_msr(m, (unsigned)core, msr_evtsel(0)) & EVTSEL_EN);
	return pid;
}

void
test_sigkill_next_run_restores(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	char path[PATH_MAX], pidtext[32];
	json_t *root, *c;
	pid_t pid;

	(void)state;
	machine(&m, false);
	/* Something worth restoring exactly: counter values, an overflow bit. */
	set(&m, msr_a_pmc(0), 0x0000123456789abcull);
	set(&m, msr_fixed_ctr(0), 0xfedcba987ull);
	set(&m, MSR_IA32_PERF_GLOBAL_STATUS_SET, 0x1);
	before = e2e_state(&m);
	pid = killed_run(&m);
	e2e_journal_file(&m, core, path, sizeof(path));

	/* state sees the killed run's journal and leaves everything as it is. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", core_arg, "--json", NULL });
	e2e_assert_status(&r, 0);
	root = parse(r.out);
	c = json_array_get(json_object_get(root, "cores"), 0);
	assert_true(has_owner(c, "pmustat_killed"));
	assert_string_equal(str(json_object_get(c, "journal"), "state"), "dead");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(c, "journal"), "pid")), pid);
	json_decref(root);
	e2e_result_free(&r);

	/* The next run on the core restores first, says so, counts, and restores its own. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL,
					  "--retire", "0xc4:0:10", NULL });
	e2e_assert_status(&r, 0);
	snprintf(pidtext, sizeof(pidtext), "pid %ld was killed", (long)pid);
	e2e_assert_err_contains(&r, pidtext);
	e2e_assert_err_contains(&r, "restored");
	e2e_result_free(&r);
	assert_same(&m, before);
	assert_int_equal(access(path, F_OK), -1);
	free(before);
	e2e_machine_free(&m);
}

void
test_sigkill_reset_restores(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	char path[PATH_MAX];

	(void)state;
	machine(&m, true);
	set(&m, msr_a_pmc(2), 77);
	before = e2e_state(&m);
	killed_run(&m);
	e2e_journal_file(&m, core, path, sizeof(path));
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", core_arg, "--json", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "\"journal\": \"restored\"");
	e2e_assert_err_contains(&r, "was killed");
	e2e_result_free(&r);
	{
		/* The watchdog's counter alone moved on (the workload's cycles); the rest is exact. */
		struct emu_pmu *after = e2e_state(&m);

		after->cpu[core].regs.fixed_ctr[1] = before->cpu[core].regs.fixed_ctr[1];
		assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
		free(after);
	}
	assert_int_equal(access(path, F_OK), -1);
	free(before);
	e2e_machine_free(&m);
}

/* A normal run and a ^C leave no journal behind. */
void
test_no_journal_left_by_normal_runs(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	char path[PATH_MAX], cpus[16];
	pid_t pid;

	(void)state;
	machine(&m, false);
	e2e_journal_file(&m, core, path, sizeof(path));
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, NULL });
	e2e_assert_status(&r, 0);
	assert_int_equal(access(path, F_OK), -1);
	e2e_result_free(&r);
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, "--sleep", "10000", NULL },
		    NULL);
	assert_true(e2e_wait_msr(&m, (unsigned)core, msr_evtsel(0), EVTSEL_EN, EVTSEL_EN, 5000));
	assert_int_equal(access(path, F_OK), 0);
	kill(pid, SIGTERM);
	assert_int_equal(e2e_reap(pid), 128 + SIGTERM);
	assert_int_equal(access(path, F_OK), -1);
	e2e_machine_free(&m);

	/* Lockdown: every write refused, the restore "fails", yet nothing changed: no journal kept. */
	snprintf(cpus, sizeof(cpus), "%u", ncpus);
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", cpus, "--msr=readonly", NULL });
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "lockdown");
	assert_int_equal(access(path, F_OK), -1);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}
