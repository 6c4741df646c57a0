/*
 * test_security_recovery_e2e.c - pmustat under attack, end to end: what a
 * crashed run left behind. Recovery (by `reset` or by the next counting
 * run) puts back only what the killed run wrote, since another tool may
 * have taken counters since, even the run's own; a killed run its parent
 * has not reaped yet is a zombie, not a live run; and a corrupt journal
 * refuses the core with advice that works as written, on a terminal and
 * off one. Signals at the worst moment are in test_security_signals_e2e.c,
 * locks and privileges in test_security_privileges_e2e.c.
 *
 * Journals live under /run/pmustat, which no environment variable moves;
 * as in test_state_e2e.c, the emulated machine owns those paths
 * (libpmuemu.so puts them in the machine's directory, emu_paths.h), so
 * nothing here meets another pmustat or the host's /run, and the test
 * plants and checks them through e2e_machine_path().
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
#include "e2e_journal.h"
#include "emu_pmu.h"
#include "pmu/journal.h"
#include "pmu/msr.h"
#include "security_fixture.h"

/* ---- recovery: only what the run wrote, and a zombie is no live run ---- */

/* SIGKILL a run counting LLC_MISSES on pmc0 (the whole group: the command too). */
static pid_t
killed_run(const struct e2e_machine *m, bool reap)
{
	pid_t pid = e2e_spawn(m, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "LLC_MISSES", WL,
					       "--sleep", "10000", NULL }, NULL);

	assert_true(e2e_wait_msr(m, (unsigned)core, msr_evtsel(0), EVTSEL_EN, EVTSEL_EN, 5000));
	/* Programmed; give the child the moment it takes to enable and exec. */
	e2e_sleep_ms(100);
	kill(-pid, SIGKILL);
	if (reap)
		assert_int_equal(e2e_reap(pid), 128 + SIGKILL);
	return pid;
}

/*
 * After the crash another tool programs a counter the run never used
 * (pmc2: EVTSEL2, PMC2, GLOBAL_CTRL bit 2). Recovery, by `reset` or by the
 * next counting run, puts back the run's counter and leaves the other
 * tool's exactly as it is.
 */
static void
test_recovery_leaves_counters_taken_since(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	uint64_t gc0 = 0x0;

	(void)state;
	for (int next_run = 0; next_run < 2; next_run++) {
		machine(&m);
		/* GLOBAL_CTRL clear: then a GLOBAL_CTRL bit is somebody's statement too. */
		set(&m, MSR_IA32_PERF_GLOBAL_CTRL, gc0);
		set(&m, msr_a_pmc(0), 0x1234);
		killed_run(&m, true);
		/* Another tool: an event the command does not retire, so its count stays put. */
		set(&m, msr_evtsel(2), 0x4302d1);
		set(&m, msr_a_pmc(2), 5555);
		set(&m, MSR_IA32_PERF_GLOBAL_CTRL, get(&m, MSR_IA32_PERF_GLOBAL_CTRL) | 0x4);
		if (next_run)
			e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "LLC_MISSES", WL,
							  "--retire", "0x2e:0x41:3", NULL });
		else
			e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", core_arg, NULL });
		e2e_assert_status(&r, 0);
		e2e_assert_err_contains(&r, "was killed");
		if (next_run)
			e2e_assert_err_contains(&r, "3      LLC_MISSES");
		e2e_result_free(&r);
		assert_int_equal(get(&m, msr_evtsel(2)), 0x4302d1);
		assert_int_equal(get(&m, msr_pmc(2)), 5555);
		assert_int_equal(get(&m, MSR_IA32_PERF_GLOBAL_CTRL), 0x4);
		assert_int_equal(get(&m, msr_evtsel(0)), 0);
		assert_int_equal(get(&m, msr_pmc(0)), 0x1234);
		e2e_machine_free(&m);
	}
}

/*
 * The same, but the other tool took the run's own counter: recovery names
 * it and leaves it alone, registers, GLOBAL_CTRL bit and all.
 */
static void
test_recovery_leaves_the_runs_counter_if_retaken(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	machine(&m);
	set(&m, MSR_IA32_PERF_GLOBAL_CTRL, 0);
	killed_run(&m, true);
	set(&m, msr_evtsel(0), 0x5302d1);
	set(&m, msr_a_pmc(0), 777);
	set(&m, MSR_IA32_PERF_GLOBAL_CTRL, 0x1);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", core_arg, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "left pmc0 alone");
	e2e_result_free(&r);
	assert_int_equal(get(&m, msr_evtsel(0)), 0x5302d1);
	assert_int_equal(get(&m, msr_pmc(0)), 777);
	assert_int_equal(get(&m, MSR_IA32_PERF_GLOBAL_CTRL), 0x1);
	e2e_machine_free(&m);
}

/*
 * A SIGKILLed pmustat its parent has not reaped yet is a zombie: it counts
 * nothing and holds no lock. The next run and reset treat its journal as a
 * dead run's.
 */
static void
test_zombie_run_is_gone(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	char path[PATH_MAX];
	pid_t pid;

	(void)state;
	machine(&m);
	before = e2e_state(&m);
	pid = killed_run(&m, false);
	for (int t = 0; t < 1000 && e2e_proc_state(pid) != 'Z'; t++)
		e2e_sleep_ms(5);
	assert_int_equal(e2e_proc_state(pid), 'Z');
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", core_arg, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "was killed");
	e2e_result_free(&r);
	assert_same(&m, before);
	e2e_journal_file(&m, core, path, sizeof(path));
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(e2e_reap(pid), 128 + SIGKILL);
	free(before);
	e2e_machine_free(&m);
}

/* ---- a corrupt journal: the advice given works as written ---- */

static void
plant_corrupt_journal(const struct e2e_machine *m)
{
	char dir[PATH_MAX], path[PATH_MAX];
	int fd;

	e2e_machine_path(m, JOURNAL_DIR, dir, sizeof(dir));
	e2e_journal_file(m, core, path, sizeof(path));
	mkdir(dir, 0700);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "pmustat-journal 2\ncore", 22), 22);
	close(fd);
}

/* The command a message advises, between '...'; e.g. "pmustat reset --zero -C 3". */
static void
advised(const char *msg, const char *starts, char *cmd, size_t size)
{
	const char *p = strstr(msg, starts), *end;

	assert_non_null(p);
	end = strchr(p, '\'');
	assert_non_null(end);
	assert_true((size_t)(end - p) < size);
	memcpy(cmd, p, (size_t)(end - p));
	cmd[end - p] = '\0';
}

/* Run @argv on a pseudo-terminal, answering @answer to its question. */
static int
run_on_tty(const struct e2e_machine *m, const char *const argv[], const char *answer, char *seen, size_t size)
{
	struct e2e_spawn_opts o = { .tty_fd = -1 };
	size_t used = 0;
	int master, slave;
	pid_t pid;

	master = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(master >= 0);
	assert_int_equal(grantpt(master), 0);
	assert_int_equal(unlockpt(master), 0);
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	assert_true(slave >= 0);
	o.tty_fd = slave;
	pid = e2e_spawn_with(m, argv, &o);
	close(slave);
	seen[0] = '\0';
	for (;;) {
		ssize_t n = read(master, seen + used, size - 1 - used);

		if (n <= 0)
			break;	/* EIO: the other side closed */
		used += (size_t)n;
		seen[used] = '\0';
		if (answer && strstr(seen, "[y/N]")) {
			assert_int_equal(write(master, answer, strlen(answer)), (ssize_t)strlen(answer));
			answer = NULL;
		}
		if (used + 1 >= size)
			break;
	}
	close(master);
	return e2e_reap(pid);
}

/*
 * A corrupt journal on @m's core and what a killed run may have left
 * (pmustat-style, no INT); a counting run refuses the core and advises a
 * command: its words in @argv (at most 18, "pmustat" the binary), which
 * point into @cmd.
 */
static void
corrupt_journal_advice(const struct e2e_machine *m, char *cmd, size_t size, const char *argv[20])
{
	struct e2e_result r;
	char *save = NULL;
	size_t n = 0;

	plant_corrupt_journal(m);
	set(m, msr_evtsel(1), 0x4300c4);
	e2e_run(m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "NOT applied");
	advised(r.err, "pmustat reset --zero", cmd, size);
	e2e_result_free(&r);
	for (char *w = strtok_r(cmd, " ", &save); w && n < 18; w = strtok_r(NULL, " ", &save)) {
		if (n == 0)
			assert_string_equal(w, "pmustat");
		argv[n] = n == 0 ? E2E_PMUSTAT : w;
		n++;
	}
	argv[n] = NULL;
}

/* Without a terminal: refused until --yes, which scripts add to the advised command. */
static void
test_corrupt_journal_advice_works(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	char path[PATH_MAX], cmd[256];
	const char *argv[20];
	size_t n = 0;

	(void)state;
	machine(&m);
	e2e_journal_file(&m, core, path, sizeof(path));
	corrupt_journal_advice(&m, cmd, sizeof(cmd), argv);

	/* Not on a terminal and without --yes: refused, nothing cleared, nothing removed. */
	e2e_run(&m, &r, argv);
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "add --yes");
	assert_int_equal(get(&m, msr_evtsel(1)), 0x4300c4);
	assert_int_equal(access(path, F_OK), 0);
	e2e_result_free(&r);

	/* The advised command with --yes: cleared, the journal gone, the core free again. */
	while (argv[n])
		n++;
	argv[n++] = "--yes";
	argv[n++] = "--json";
	argv[n] = NULL;
	e2e_run(&m, &r, argv);
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "\"journal\": \"cleared\"");
	e2e_result_free(&r);
	assert_int_equal(get(&m, msr_evtsel(1)), 0);
	assert_int_equal(access(path, F_OK), -1);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, NULL });
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* On a terminal: the advised command, word for word, asks; "n" keeps everything, "y" clears. */
static void
test_corrupt_journal_question_on_a_terminal(void **state)
{
	struct e2e_machine m;
	char path[PATH_MAX], cmd[256], seen[8192];
	const char *argv[20];
	int pty;

	(void)state;
	/* A root without devpts (a chroot with a plain bind of /dev) has no terminal to give. */
	pty = posix_openpt(O_RDWR | O_NOCTTY);
	if (pty < 0) {
		print_message("skipped: no pseudo-terminal here (posix_openpt: %s; is devpts mounted on /dev/pts?)\n",
			      strerror(errno));
		skip();
	}
	close(pty);
	machine(&m);
	e2e_journal_file(&m, core, path, sizeof(path));
	corrupt_journal_advice(&m, cmd, sizeof(cmd), argv);
	assert_int_equal(run_on_tty(&m, argv, "n\n", seen, sizeof(seen)), 125);
	assert_int_equal(get(&m, msr_evtsel(1)), 0x4300c4);
	assert_int_equal(access(path, F_OK), 0);
	/* And answered "y": cleared, the journal gone. */
	assert_int_equal(run_on_tty(&m, argv, "y\n", seen, sizeof(seen)), 0);
	if (!strstr(seen, "removed the corrupt journal"))
		fail_msg("reset said: %s", seen);
	assert_int_equal(get(&m, msr_evtsel(1)), 0);
	assert_int_equal(access(path, F_OK), -1);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recovery_leaves_counters_taken_since),
		cmocka_unit_test(test_recovery_leaves_the_runs_counter_if_retaken),
		cmocka_unit_test(test_zombie_run_is_gone),
		cmocka_unit_test(test_corrupt_journal_advice_works),
		cmocka_unit_test(test_corrupt_journal_question_on_a_terminal),
	};

	if (security_fixture_init() != 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
