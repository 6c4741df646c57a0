/*
 * test_security_signals_e2e.c - pmustat under attack, end to end: signals
 * that arrive at the worst moment. ptrace holds pmustat or its child at
 * the one instant that matters (the command told to go but not yet
 * counting; the PMU restored but pmustat not yet dead), because a signal
 * sent at random would almost never land there and the race would go
 * unseen. The recovery, lock and privilege attacks are in
 * test_security_recovery_e2e.c and test_security_privileges_e2e.c.
 *
 * Journals live under /run/pmustat, which no environment variable moves;
 * as in test_state_e2e.c, the emulated machine owns those paths
 * (libpmuemu.so puts them in the machine's directory, emu_paths.h), so
 * nothing here meets another pmustat or the host's /run.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/ptrace.h>
#include <cmocka.h>

#include "e2e_harness.h"
#include "e2e_journal.h"
#include "emu_pmu.h"
#include "pmu/msr.h"
#include "security_fixture.h"

/* ---- ptrace: hold pmustat or its child at the one instant that matters ---- */

/* Could this process trace its children (seccomp, a container, Yama)? */
static bool
ptrace_ok(void)
{
	pid_t pid = fork();
	int ws;

	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
			_exit(1);
		raise(SIGSTOP);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &ws, 0) != pid)
		return false;
	if (WIFEXITED(ws))
		return false;
	kill(pid, SIGKILL);
	waitpid(pid, &ws, 0);
	return true;
}

/* Wait for a stop (or the end) of traced @pid (-1: any tracee); returns its pid. */
static pid_t
trace_wait_any(pid_t pid, int *ws)
{
	pid_t w;

	while ((w = waitpid(pid, ws, __WALL)) < 0)
		assert_int_equal(errno, EINTR);
	return w;
}

static int
trace_wait(pid_t pid)
{
	int ws;

	trace_wait_any(pid, &ws);
	return ws;
}

/* The signal a stop @ws passes on when resumed: a signal-delivery-stop's, else none. */
static long
stop_signal(int ws)
{
	int sig = WSTOPSIG(ws);

	if ((ws >> 16) != 0 || sig == (SIGTRAP | 0x80))
		return 0;
	return sig;
}

/*
 * A SIGTERM arrives at pmustat after it has told its child to go and
 * before the child has enabled the counters (the child is held there, just
 * past its read of the go, with ptrace). pmustat must not restore the PMU
 * and die leaving that child behind, to enable the counters with no
 * journal describing them: it holds the signal until the command runs,
 * passes it on, and restores last.
 */
static void
test_signal_while_the_command_starts(void **state)
{
	const struct e2e_spawn_opts opts = { .tty_fd = -1, .traced = true };
	struct ptrace_syscall_info info;
	struct e2e_machine m;
	struct emu_pmu *before;
	char journal[PATH_MAX];
	/* Per traced child of pmustat: its last syscall entry. */
	struct { pid_t pid; unsigned long long nr, len; bool started; } kids[8];
	unsigned nkids = 0;
	pid_t pid, child = 0, w;
	bool stopping = false;
	int ws, status = -1;

	(void)state;
	if (!ptrace_ok())
		skip();
	machine(&m);
	before = e2e_state(&m);
	pid = e2e_spawn_with(&m, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL,
						   "--retire", "0xc4:0:100", "--sleep", "300", NULL }, &opts);
	ws = trace_wait(pid);
	assert_true(WIFSTOPPED(ws) && WSTOPSIG(ws) == SIGSTOP);
	/* Every child pmustat forks is traced from its birth, syscall by syscall. */
	assert_int_equal(ptrace(PTRACE_SETOPTIONS, pid, NULL,
				(void *)(PTRACE_O_TRACEFORK | PTRACE_O_TRACEEXEC | PTRACE_O_TRACESYSGOOD |
					 PTRACE_O_EXITKILL)), 0);
	assert_int_equal(ptrace(PTRACE_CONT, pid, NULL, NULL), 0);
	/*
	 * Until the child that runs the command has read its go (a helper
	 * that reads CPUID on a core is a child too: it just exits). Then stop
	 * pmustat and let it go untraced.
	 */
	for (;;) {
		w = trace_wait_any(-1, &ws);
		if (w == pid) {
			assert_true(WIFSTOPPED(ws));
			if (stopping && WSTOPSIG(ws) == SIGSTOP && (ws >> 16) == 0) {
				assert_int_equal(ptrace(PTRACE_DETACH, pid, NULL, NULL), 0);
				/*
				 * pmustat has a second thread (the counter reader): when
				 * that thread took the SIGSTOP, the whole process is in a
				 * group stop that the detach does not end.
				 */
				kill(pid, SIGCONT);
				break;
			}
			if ((ws >> 8) == (SIGTRAP | (PTRACE_EVENT_FORK << 8))) {
				unsigned long msg;

				assert_int_equal(ptrace(PTRACE_GETEVENTMSG, pid, NULL, &msg), 0);
				assert_true(nkids < 8);
				kids[nkids].pid = (pid_t)msg;
				kids[nkids].nr = kids[nkids].len = ~0ull;
				kids[nkids].started = false;
				nkids++;
			}
			assert_int_equal(ptrace(PTRACE_CONT, pid, NULL, (void *)stop_signal(ws)), 0);
			continue;
		}
		if (!WIFSTOPPED(ws))
			continue;	/* a helper child ended */
		for (unsigned k = 0; k < nkids; k++) {
			long sig = stop_signal(ws);

			if (kids[k].pid != w)
				continue;
			/* A new tracee's first stop is a SIGSTOP of ptrace's own: not passed on. */
			if (!kids[k].started && WSTOPSIG(ws) == SIGSTOP) {
				kids[k].started = true;
				sig = 0;
			}
			if (WSTOPSIG(ws) == (SIGTRAP | 0x80)) {
				assert_true(ptrace(PTRACE_GET_SYSCALL_INFO, w, (void *)sizeof(info), &info) > 0);
				if (info.op == PTRACE_SYSCALL_INFO_ENTRY) {
					kids[k].nr = info.entry.nr;
					kids[k].len = info.entry.args[2];
				} else if (info.op == PTRACE_SYSCALL_INFO_EXIT && kids[k].nr == SYS_read &&
					   kids[k].len == 1 && info.exit.rval == 1 && !child) {
					/* Told to go. Hold it here; take pmustat off the leash. */
					child = w;
					stopping = true;
					kill(pid, SIGSTOP);
					break;
				}
			}
			assert_int_equal(ptrace(PTRACE_SYSCALL, w, NULL, (void *)sig), 0);
		}
	}
	assert_true(child > 0);
	/* Now: pmustat gets its SIGTERM. It may not act on it while the child can still enable. */
	assert_int_equal(kill(pid, SIGTERM), 0);
	e2e_sleep_ms(300);
	if (waitpid(pid, &ws, WNOHANG) == pid)
		status = WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : WEXITSTATUS(ws);
	/* The child goes on: enables, execs the command. */
	assert_int_equal(ptrace(PTRACE_DETACH, child, NULL, NULL), 0);
	if (status < 0)
		status = e2e_reap(pid);
	assert_int_equal(status, 128 + SIGTERM);
	assert_true(wait_gone(child, 5000));
	/* Nothing counts, nothing is left programmed, and so no journal is needed. */
	assert_same(&m, before);
	e2e_journal_file(&m, core, journal, sizeof(journal));
	assert_int_equal(access(journal, F_OK), -1);
	free(before);
	e2e_machine_free(&m);
}

/*
 * -I: a SIGTERM makes pmustat restore the PMU. Its handler is held (ptrace)
 * right after the restore, before the process dies: the sampler thread must
 * already have stopped, or it reads the restored counters and prints
 * garbage (2^48 - 100 for a counter at 100 that went back to 0).
 */
static void
test_interval_sampler_stops_before_the_restore(void **state)
{
	char out[PATH_MAX + 32], *text, *line, *save = NULL;
	struct ptrace_syscall_info info;
	struct e2e_machine m;
	pid_t pid;
	int ws, lines = 0;

	(void)state;
	if (e2e_host_cpus() < 2 || !ptrace_ok())
		skip();
	machine(&m);
	snprintf(out, sizeof(out), "%s/intervals", m.dir);
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-I", "10", "-x", ",",
					  "-o", "/dev/stdout", "-e", "branches", WL, "--quiet",
					  "--retire", "0xc4:0:100", "--sleep", "5000", NULL }, out);
	assert_true(e2e_wait_msr(&m, (unsigned)core, msr_evtsel(0), EVTSEL_EN, EVTSEL_EN, 5000));
	e2e_sleep_ms(100);
	/* pmustat's main thread only: the sampler thread runs free. */
	assert_int_equal(ptrace(PTRACE_SEIZE, pid, NULL, (void *)(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)), 0);
	assert_int_equal(kill(pid, SIGTERM), 0);
	for (;;) {
		ws = trace_wait(pid);
		assert_true(WIFSTOPPED(ws));
		if (WSTOPSIG(ws) == SIGTERM)
			break;
		assert_int_equal(ptrace(PTRACE_CONT, pid, NULL, (void *)stop_signal(ws)), 0);
	}
	/* Deliver it; stop the handler at the journal's removal, which comes after the restore. */
	assert_int_equal(ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)SIGTERM), 0);
	for (;;) {
		ws = trace_wait(pid);
		assert_true(WIFSTOPPED(ws));
		if (WSTOPSIG(ws) == (SIGTRAP | 0x80)) {
			assert_true(ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof(info), &info) > 0);
			if (info.op == PTRACE_SYSCALL_INFO_ENTRY &&
			    (info.entry.nr == SYS_unlink || info.entry.nr == SYS_unlinkat))
				break;
		}
		assert_int_equal(ptrace(PTRACE_SYSCALL, pid, NULL, (void *)stop_signal(ws)), 0);
	}
	/* Restored, not dead yet: ten sampling periods for a sampler that kept going. */
	e2e_sleep_ms(100);
	assert_int_equal(ptrace(PTRACE_DETACH, pid, NULL, NULL), 0);
	assert_int_equal(e2e_reap(pid), 128 + SIGTERM);
	text = slurp_file(out);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long v;

		/* interval,TIME,ROUND,RUN,CPU (empty),VALUE,UNIT,EVENT */
		if (sscanf(line, "interval,%*f,%*u,%*u,,%llu,", &v) != 1)
			fail_msg("not an interval: %s", line);
		if (v > 100)
			fail_msg("an interval after the restore: %s", line);
		lines++;
	}
	assert_true(lines > 0);
	unlink(out);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signal_while_the_command_starts),
		cmocka_unit_test(test_interval_sampler_stops_before_the_restore),
	};

	if (security_fixture_init() != 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
