/*
 * test_stat_access_e2e.c - e2e-stat on who may count: the privilege drop,
 * a second pmustat on the core, no PMU access, and SIGINT meant for the
 * command.
 */
#include "stat_e2e.h"

void
test_privilege_drop(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: only root can drop privileges\n");
		skip();
	}
	machine(&m, "skylake", false);
	/* Everything the dropped command needs is in the machine's directory, not the build tree. */
	e2e_machine_share(&m);
	e2e_run_env(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches",
					      "id", "-u", NULL },
		    (const char *[]){ "SUDO_UID=65534", "SUDO_GID=65534", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "65534\n");
	e2e_result_free(&r);
	e2e_run_env(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--as-root", "-e", "branches",
					      "id", "-u", NULL },
		    (const char *[]){ "SUDO_UID=65534", "SUDO_GID=65534", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "0\n");
	e2e_result_free(&r);

	/*
	 * The command gets the user's supplementary groups, as with sudo -u,
	 * not just the primary one: any user listed as a member of a group
	 * in the group database shows the difference.
	 */
	{
		struct group *gr;
		struct passwd *pw = NULL;
		char uid_env[64], gid_env[64], want[32];

		setgrent();
		while ((gr = getgrent()) != NULL) {
			if (gr->gr_mem[0] && (pw = getpwnam(gr->gr_mem[0])) && pw->pw_uid != 0 &&
			    pw->pw_gid != gr->gr_gid)
				break;
			pw = NULL;
		}
		if (pw) {
			snprintf(uid_env, sizeof(uid_env), "SUDO_UID=%u", (unsigned)pw->pw_uid);
			snprintf(gid_env, sizeof(gid_env), "SUDO_GID=%u", (unsigned)pw->pw_gid);
			snprintf(want, sizeof(want), " %u", (unsigned)gr->gr_gid);
			e2e_run_env(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches",
							      "sh", "-c", "echo \" $(id -G) \"", NULL },
				    (const char *[]){ uid_env, gid_env, NULL });
			e2e_assert_status(&r, 0);
			e2e_assert_out_contains(&r, want);
			e2e_result_free(&r);
		} else {
			print_message("no user with a supplementary group here; that part is not checked\n");
		}
		endgrent();
	}

	/*
	 * Exact counts for a command running as the sudo user: it enables
	 * nothing itself (pmustat's child did, through the MSR device opened
	 * as root); the emulator's state must be open to it to retire events.
	 */
	{
		char out[PATH_MAX + 48];
		struct emu_pmu *before;
		json_t *root;

		json_error_t jerr;
		char dir[PATH_MAX + 16];
		struct stat st;

		/* -o is written with the user's rights: in a directory of theirs. */
		snprintf(dir, sizeof(dir), "%s/nobody", m.dir);
		assert_int_equal(mkdir(dir, 0755), 0);
		assert_int_equal(chown(dir, 65534, 65534), 0);
		snprintf(out, sizeof(out), "%s/out.json", dir);
		before = e2e_state(&m);
		e2e_run_env(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out,
						      "-e", "instructions,branches", m.workload, USER_WORK, NULL },
			    (const char *[]){ "SUDO_UID=65534", "SUDO_GID=65534", NULL });
		e2e_assert_status(&r, 0);
		assert_int_equal(stat(out, &st), 0);
		assert_int_equal(st.st_uid, 65534);
		root = json_load_file(out, 0, &jerr);
		if (!root)
			fail_msg("%s: %s", out, jerr.text);
		unlink(out);
		rmdir(dir);
		assert_int_equal(value_at(root, 0), 5000);
		assert_int_equal(value_at(root, 1), 700);
		json_decref(root);
		assert_restored(&m, before);
		free(before);
		e2e_result_free(&r);
	}
	e2e_machine_free(&m);
}

void
test_second_pmustat_on_the_core_waits_then_names_the_pid(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	char pid_text[32];
	pid_t first;

	(void)state;
	machine(&m, "skylake", false);
	before = e2e_state(&m);
	first = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches",
					    WL, "--sleep", "6000", NULL }, NULL);
	assert_true(e2e_wait_msr(&m, (unsigned)core, MSR_IA32_PERFEVTSEL0, EVTSEL_EN, EVTSEL_EN, 3000));
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "instructions", WL, NULL });
	e2e_assert_status(&r, 125);
	snprintf(pid_text, sizeof(pid_text), "pid %d", (int)first);
	e2e_assert_err_contains(&r, pid_text);
	e2e_result_free(&r);
	kill(-first, SIGINT);
	assert_int_equal(e2e_reap(first), 128 + SIGINT);
	assert_restored(&m, before);
	free(before);
	e2e_machine_free(&m);
}

void
test_no_pmu_access_125_with_the_fix(void **state)
{
	static const struct {
		const char *model, *msr, *says;
	} cases[] = {
		{ "skylake", "--msr=absent", "modprobe msr" },
		{ "skylake", "--msr=eacces", "run pmustat as root" },
		{ "skylake", "--msr=readonly", "lockdown" },
		{ "nopmu", "--msr=ok", "no PMU" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct e2e_machine m;
		struct e2e_result r;
		struct emu_pmu *before;
		char cpus[16];

		snprintf(cpus, sizeof(cpus), "%d", core + 1);
		e2e_machine_new(&m, (const char *[]){ "--model", cases[i].model, "--cpus", cpus,
						      cases[i].msr, NULL });
		before = e2e_state(&m);
		e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "instructions",
						  WL, NULL });
		e2e_assert_status(&r, 125);
		e2e_assert_err_contains(&r, cases[i].says);
		assert_restored(&m, before);
		free(before);
		e2e_result_free(&r);
		e2e_machine_free(&m);
	}
}

void
test_sigint_to_pmustat_alone_reaches_the_command(void **state)
{
	struct e2e_machine m;
	struct emu_pmu *before;
	pid_t pid;

	(void)state;
	machine(&m, "skylake", false);
	before = e2e_state(&m);
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches",
					  WL, "--sleep", "5000", NULL }, NULL);
	assert_true(e2e_wait_msr(&m, (unsigned)core, MSR_IA32_PERFEVTSEL0, EVTSEL_EN, EVTSEL_EN, 3000));
	/* kill -INT <pmustat>: passed on to the command, which dies of it. */
	kill(pid, SIGINT);
	assert_int_equal(e2e_reap(pid), 128 + SIGINT);
	assert_restored(&m, before);
	/* SIGHUP to pmustat: the command gets it too, pmustat restores and dies of it. */
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches",
					  WL, "--sleep", "5000", NULL }, NULL);
	assert_true(e2e_wait_msr(&m, (unsigned)core, MSR_IA32_PERFEVTSEL0, EVTSEL_EN, EVTSEL_EN, 3000));
	kill(pid, SIGHUP);
	assert_int_equal(e2e_reap(pid), 128 + SIGHUP);
	assert_restored(&m, before);
	free(before);
	e2e_machine_free(&m);
}
