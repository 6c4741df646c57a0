/*
 * test_regions_restore_e2e.c - pmustat --regions and the rdpmc file: set
 * to 2 for the run, room left for the perf backend, refusals, and put back
 * on every exit path (SIGTERM, SIGKILL then the next run or reset, a
 * corrupt journal).
 */
#include "regions_cli_e2e.h"

/*
 * rdpmc restricted (the file says 1): pmustat sets 2 for the run (the
 * library's rdpmc would fault otherwise) and puts 1 back, journal gone.
 */
void
test_rdpmc_set_and_restored(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root;

	(void)state;
	machine(&m, "--rdpmc=off", NULL);
	assert_rdpmc(&m, "1");
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-v", "--regions", "-C", core_arg, "-e",
					  "LLC_MISSES,INST_RETIRED.ANY", "--json", "-o", "/dev/stdout", "--", REGION_DEMO,
					  NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "/sys/bus/event_source/devices/cpu/rdpmc set to 2 (was 1)");
	e2e_assert_err_contains(&r, "any process on this machine can read the counters");
	e2e_assert_err_contains(&r, "/sys/bus/event_source/devices/cpu/rdpmc is 1 again");
	root = parse(&r);
	expect_region(root, "hot", 3, 1200);
	json_decref(root);
	e2e_result_free(&r);
	assert_rdpmc(&m, "1");
	assert_false(journal_exists(&m));
	/* A command that fails, and one that cannot run: put back all the same. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-C", core_arg, "-e", "LLC_MISSES", "--", WL,
					  "--exit", "7", NULL });
	e2e_assert_status(&r, 7);
	e2e_assert_err_contains(&r, "Regions: none; the command did not use libpmustat-region");
	e2e_result_free(&r);
	assert_rdpmc(&m, "1");
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-C", core_arg, "-e", "LLC_MISSES", "--",
					  "/nonexistent/prog", NULL });
	e2e_assert_status(&r, 127);
	e2e_result_free(&r);
	assert_rdpmc(&m, "1");
	assert_false(journal_exists(&m));
	e2e_machine_free(&m);
}

/*
 * The perf backend with --regions plans each run on half the
 * general-purpose counters and no fixed one: the command's self-read
 * copies of the run's events need the rest.
 */
void
test_perf_backend_leaves_room(void **state)
{
	const char *ev = "LLC_MISSES,BR_MISP_RETIRED.ALL_BRANCHES,INST_RETIRED.ANY,LLC_REFERENCES";
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	machine(&m, NULL, NULL);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--dry-run", "--backend", "perf", "-C", core_arg, "-e", ev, "--",
					  "true", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "4 events, 1 run of the command");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--dry-run", "--regions", "--backend", "perf", "-C", core_arg,
					  "-e", ev, "--", "true", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "4 events, 2 runs of the command");
	e2e_assert_err_contains(&r, "fixed counter 0 is left to the regions' own copies of the events");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* Not the MSR backend, or no rdpmc file: refused with the reason, nothing changed. */
void
test_refused(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	machine(&m, "--rdpmc=off", NULL);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "--backend", "perf", "-C", core_arg, "-e",
					  "LLC_MISSES", "--", REGION_DEMO, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "--regions");
	/* The perf backend reads the kernel's counters, which a kernel without a PMU driver (this VM) has not. */
	if (access("/sys/bus/event_source/devices/cpu", F_OK) != 0)
		e2e_assert_err_contains(&r, "no PMU driver for the CPU");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-C", core_arg, "-e", "page-faults", "--",
					  REGION_DEMO, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "--regions: regions count hardware events");
	e2e_result_free(&r);
	assert_rdpmc(&m, "1");
	e2e_machine_free(&m);
}

/* pmustat --regions on a command that sleeps, the rdpmc file set; returns its pid. */
static pid_t
regions_run(const struct e2e_machine *m)
{
	pid_t pid = e2e_spawn(m, (const char *[]){ E2E_PMUSTAT, "--regions", "-C", core_arg, "-e", "LLC_MISSES",
						 "--", WL, "--sleep", "10000", NULL }, NULL);

	assert_true(e2e_wait_msr(m, (unsigned)core, msr_evtsel(0), EVTSEL_EN, EVTSEL_EN, 5000));
	assert_rdpmc(m, "2");
	assert_true(journal_exists(m));
	return pid;
}

/* A fatal signal: the handler puts the file back and removes the journal. */
void
test_sigterm_restores(void **state)
{
	struct e2e_machine m;
	pid_t pid;

	(void)state;
	machine(&m, "--rdpmc=off", NULL);
	pid = regions_run(&m);
	kill(pid, SIGTERM);
	assert_int_equal(e2e_reap(pid), 128 + SIGTERM);
	assert_rdpmc(&m, "1");
	assert_false(journal_exists(&m));
	e2e_machine_free(&m);
}

/* SIGKILL: nothing can restore then; the next run does, from the journal, even one without --regions. */
void
test_sigkill_next_run_restores(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	pid_t pid;

	(void)state;
	machine(&m, "--rdpmc=off", NULL);
	pid = regions_run(&m);
	kill(-pid, SIGKILL);
	assert_int_equal(e2e_reap(pid), 128 + SIGKILL);
	assert_rdpmc(&m, "2");
	assert_true(journal_exists(&m));
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "LLC_MISSES", "--", WL, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "a killed run had allowed rdpmc for every process");
	e2e_assert_err_contains(&r, "is 1 again");
	e2e_result_free(&r);
	assert_rdpmc(&m, "1");
	assert_false(journal_exists(&m));

	/* And the next --regions run: restores, sets it for itself, puts it back. */
	pid = regions_run(&m);
	kill(-pid, SIGKILL);
	assert_int_equal(e2e_reap(pid), 128 + SIGKILL);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-C", core_arg, "-e", "LLC_MISSES", "--json",
					  "--", REGION_DEMO, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "a killed run had allowed rdpmc for every process");
	e2e_result_free(&r);
	assert_rdpmc(&m, "1");
	assert_false(journal_exists(&m));
	e2e_machine_free(&m);
}

/* SIGKILL, then `pmustat reset`; a value someone set since is theirs: left alone. */
void
test_sigkill_reset_restores(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	pid_t pid;

	(void)state;
	machine(&m, "--rdpmc=off", NULL);
	pid = regions_run(&m);
	kill(-pid, SIGKILL);
	assert_int_equal(e2e_reap(pid), 128 + SIGKILL);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", core_arg, "--json", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "\"rdpmc\": {\n    \"journal\": \"restored\"");
	e2e_result_free(&r);
	assert_rdpmc(&m, "1");
	assert_false(journal_exists(&m));
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", core_arg, "--json", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "\"journal\": \"none\"");
	e2e_result_free(&r);

	pid = regions_run(&m);
	kill(-pid, SIGKILL);
	assert_int_equal(e2e_reap(pid), 128 + SIGKILL);
	/* Someone set it to 0 since: not ours to change. */
	e2e_run(&m, &r, (const char *[]){ E2E_EMU_PROBE, "write", "/sys/bus/event_source/devices/cpu/rdpmc", "0",
					  NULL });
	e2e_assert_out_contains(&r, "write ok");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", core_arg, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "left alone");
	e2e_result_free(&r);
	assert_rdpmc(&m, "0");
	assert_false(journal_exists(&m));
	e2e_machine_free(&m);
}

/* A corrupt rdpmc journal is never applied: reset says so (125), --regions refuses, other runs warn. */
void
test_corrupt_journal(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	char path[PATH_MAX], moved[PATH_MAX], dir[PATH_MAX];
	FILE *f;

	(void)state;
	machine(&m, "--rdpmc=off", NULL);
	e2e_machine_path(&m, JOURNAL_DIR, dir, sizeof(dir));
	assert_true(mkdir(dir, 0700) == 0 || errno == EEXIST);
	rdpmc_journal_path(JOURNAL_DIR, path, sizeof(path));
	e2e_machine_path(&m, path, moved, sizeof(moved));
	f = fopen(moved, "w");
	assert_non_null(f);
	fputs("pmustat-rdpmc-journal 1\nfile rdpmc\nfound 7\npid 1\nstart 1\n", f);
	fclose(f);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", core_arg, "--json", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_out_contains(&r, "\"journal\": \"corrupt\"");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-C", core_arg, "-e", "LLC_MISSES", "--",
					  REGION_DEMO, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "is corrupt");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "LLC_MISSES", "--", WL, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "warning: the journal");
	e2e_result_free(&r);
	assert_rdpmc(&m, "1");
	assert_true(journal_exists(&m));
	e2e_machine_free(&m);
}
