/*
 * test_security_e2e.c - pmustat under attack, end to end: the real binary on
 * the emulated PMU while a hostile user, a careless one or an unlucky
 * machine does its worst. Signals at the worst moment (held with ptrace),
 * recovery after someone took the counters, a killed run not reaped yet, a
 * corrupt journal, the per-core lock under another user's hands, a
 * set-user-ID install, the sudo user's environment, a write that fails.
 *
 * Journals and locks live under /run/pmustat, which no environment variable
 * moves; as in test_state_e2e.c, the emulated machine owns those paths
 * (libpmuemu.so puts them in the machine's directory, emu_paths.h), so
 * nothing here meets another pmustat or the host's /run, and the test
 * plants, tampers with and checks them through e2e_machine_path().
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/ptrace.h>
#include <cmocka.h>

#include "hw/cpulock.h"
#include "e2e_harness.h"
#include "e2e_journal.h"
#include "emu_pmu.h"
#include "pmu/journal.h"
#include "pmu/msr.h"
#include "base/err.h"

#define WL E2E_EMU_WORKLOAD
/* argv[1] of this program when it is a lock holder (lock_holder()). */
#define HOLD_LOCK "--hold-lock"
#define NOBODY 65534

static int core;
static char core_arg[16];
static unsigned ncpus;
#define NEEDS_ROOT() do { if (geteuid() != 0) skip(); } while (0)

static void
machine(struct e2e_machine *m)
{
	char cpus[16];

	snprintf(cpus, sizeof(cpus), "%u", ncpus);
	e2e_machine_new(m, (const char *[]){ "--model", "skylake", "--cpus", cpus, NULL });
}

static void
set(const struct e2e_machine *m, uint32_t msr, uint64_t v)
{
	assert_int_equal(e2e_set_msr(m, (unsigned)core, msr, v), 0);
}

static uint64_t
get(const struct e2e_machine *m, uint32_t msr)
{
	return e2e_msr(m, (unsigned)core, msr);
}

static void
assert_same(const struct e2e_machine *m, const struct emu_pmu *before)
{
	struct emu_pmu *after = e2e_state(m);

	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(after);
}

/* /proc/PID/stat's state letter, or 0 when the process is gone. */
static char
proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	return p && p[1] == ' ' ? p[2] : 0;
}

/* Wait until @pid is gone or a zombie (not necessarily our child). */
static bool
wait_gone(pid_t pid, unsigned timeout_ms)
{
	for (unsigned t = 0; t <= timeout_ms; t += 5) {
		char st = proc_state(pid);

		if (st == 0 || st == 'Z' || st == 'X')
			return true;
		e2e_sleep_ms(5);
	}
	return false;
}

static char *
slurp_file(const char *path)
{
	static char buf[1 << 16];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	return buf;
}

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

		/* interval,TIME,ROUND,RUN,VALUE,EVENT */
		if (sscanf(line, "interval,%*f,%*u,%*u,%llu,", &v) != 1)
			fail_msg("not an interval: %s", line);
		if (v > 100)
			fail_msg("an interval after the restore: %s", line);
		lines++;
	}
	assert_true(lines > 0);
	unlink(out);
	e2e_machine_free(&m);
}

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
	for (int t = 0; t < 1000 && proc_state(pid) != 'Z'; t++)
		e2e_sleep_ms(5);
	assert_int_equal(proc_state(pid), 'Z');
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

/* ---- the per-core lock under another user's hands ---- */

/*
 * A process holding core's lock on machine @m: taken as root, then (if @as)
 * kept as uid @as. It is this test program again (see main()), run on the
 * machine so that its lock is the machine's, as pmustat's is. Returns its
 * pid; closing *@release lets it go.
 */
static pid_t
lock_holder(const struct e2e_machine *m, uid_t as, int *release)
{
	char as_arg[16], ready_arg[16], hold_arg[16];
	int ready[2], hold[2];
	pid_t pid;
	char c;

	/* The holder's ends are inherited (it is told their numbers); ours are not. */
	assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
	assert_int_equal(pipe2(hold, O_CLOEXEC), 0);
	assert_int_equal(fcntl(ready[1], F_SETFD, 0), 0);
	assert_int_equal(fcntl(hold[0], F_SETFD, 0), 0);
	snprintf(as_arg, sizeof(as_arg), "%u", (unsigned)as);
	snprintf(ready_arg, sizeof(ready_arg), "%d", ready[1]);
	snprintf(hold_arg, sizeof(hold_arg), "%d", hold[0]);
	pid = e2e_spawn(m, (const char *[]){ "/proc/self/exe", HOLD_LOCK, core_arg, as_arg, ready_arg,
					     hold_arg, NULL }, NULL);
	close(ready[1]);
	close(hold[0]);
	if (read(ready[0], &c, 1) != 1)
		fail_msg("the lock holder did not take core %d's lock (exit %d)", core, e2e_reap(pid));
	close(ready[0]);
	*release = hold[1];
	return pid;
}

/* The holder's side: HOLD_LOCK CORE AS READY_FD HOLD_FD. */
static int
hold_lock(char **argv)
{
	int cpu = atoi(argv[2]), ready = atoi(argv[4]), hold = atoi(argv[5]);
	uid_t as = (uid_t)strtoul(argv[3], NULL, 10);
	struct pmustat_error *err = NULL;
	char c = 'y';
	int fd;

	fd = cpulock_acquire(cpu, 0, &err);
	if (fd < 0) {
		fprintf(stderr, "%s\n", err_msg(err));
		_exit(1);
	}
	if (as && (setgroups(0, NULL) != 0 || setgid(as) != 0 || setuid(as) != 0))
		_exit(1);
	if (write(ready, &c, 1) != 1 || read(hold, &c, 1) < 0)
		_exit(2);
	/* _exit: no LeakSanitizer pass in a process that is no longer root's. */
	_exit(0);
	err_clear(&err);
}

static void
release_holder(pid_t pid, int release)
{
	close(release);
	assert_int_equal(e2e_reap(pid), 0);
}

static void
test_lock_cannot_be_jammed_or_faked(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	char name[128], path[PATH_MAX], dir[PATH_MAX], text[64];
	struct stat st;
	int release, fd;
	pid_t pid;

	(void)state;
	NEEDS_ROOT();
	machine(&m);
	/* The machine's lock file and directory, which pmustat names CPULOCK_DIR/cpuN. */
	cpulock_path(core, name, sizeof(name));
	e2e_machine_path(&m, name, path, sizeof(path));
	e2e_machine_path(&m, CPULOCK_DIR, dir, sizeof(dir));
	/* A first run makes the lock file. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, NULL });
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode) && st.st_uid == 0 && (st.st_mode & 077) == 0);

	/* Another user cannot open it to flock it, nor make one (the directories are root's). */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char other[PATH_MAX + 32];

		if (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 || setuid(NOBODY) != 0)
			_exit(3);
		fd = open(path, O_RDONLY);
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0) {
			/* Held: now see whether pmustat can be jammed by it. */
			pause();
		}
		snprintf(other, sizeof(other), "%s/cpu%d.planted", dir, core);
		if (open(other, O_WRONLY | O_CREAT, 0644) >= 0)
			_exit(4);
		snprintf(other, sizeof(other), "%s/x", dir);
		if (mkdir(other, 0777) == 0)
			_exit(4);
		_exit(fd >= 0 ? 5 : 0);
	}
	e2e_sleep_ms(100);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, NULL });
	kill(pid, SIGKILL);
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	assert_int_equal(e2e_reap(pid), 0);

	/* Text planted in the lock file says nothing: the kernel names the holder. */
	pid = lock_holder(&m, 0, &release);
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "1\n", 2), 2);
	close(fd);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, NULL });
	e2e_assert_status(&r, 125);
	snprintf(text, sizeof(text), "pid %ld", (long)pid);
	e2e_assert_err_contains(&r, text);
	assert_null(strstr(r.err, "pid 1:"));
	assert_null(strstr(r.err, "pid 1,"));
	e2e_result_free(&r);
	release_holder(pid, release);

	/* A holder that does not run as root is named as such: not a pmustat run. */
	pid = lock_holder(&m, NOBODY, &release);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, NULL });
	e2e_assert_status(&r, 125);
	snprintf(text, sizeof(text), "pid %ld", (long)pid);
	e2e_assert_err_contains(&r, text);
	e2e_assert_err_contains(&r, "uid 65534, not root");
	e2e_result_free(&r);
	release_holder(pid, release);

	/* A symbolic link in its place is refused, and blamed on itself, not on privileges. */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/etc/hostname", path), 0);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "symbolic link; remove it");
	assert_null(strstr(r.err, "run pmustat as root"));
	e2e_result_free(&r);
	assert_int_equal(unlink(path), 0);

	/* A lock file of another owner, or a directory others may write: refused, naming them. */
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chown(path, NOBODY, NOBODY), 0);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "not a private regular file");
	e2e_result_free(&r);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "the directory " CPULOCK_DIR " is not private");
	e2e_result_free(&r);
	assert_int_equal(chmod(dir, 0755), 0);
	e2e_machine_free(&m);
}

/*
 * A command line is anybody's text: a counting run's arguments with a
 * terminal escape sequence reach neither the terminal of `pmustat state`
 * nor the message of a second run waiting for the core. The first run
 * holds the core until the SIGINT at the end, however slow the machine.
 */
static void
test_no_control_characters_from_a_command_line(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	pid_t pid;

	(void)state;
	machine(&m);
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", "/bin/sh", "-c",
					  "sleep 60", "\033]0;owned\007\033[2J", NULL }, NULL);
	assert_true(e2e_wait_msr(&m, (unsigned)core, msr_evtsel(0), EVTSEL_EN, EVTSEL_EN, 5000));
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", core_arg, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "?]0;owned??[2J");
	assert_null(strchr(r.out, '\033'));
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "?]0;owned??[2J");
	assert_null(strchr(r.err, '\033'));
	e2e_result_free(&r);
	kill(-pid, SIGINT);
	e2e_reap(pid);
	e2e_machine_free(&m);
}

/* ---- privileges ---- */

/* Installed set-user-ID root and run by nobody: refused before anything, never a root command. */
static void
test_setuid_install_is_refused(void **state)
{
	char copy[PATH_MAX + 32], outp[PATH_MAX + 32], errp[PATH_MAX + 32], *text;
	struct e2e_machine m;
	struct statvfs vfs;
	const mode_t modes[] = { 04755, 02755 };

	(void)state;
	NEEDS_ROOT();
	machine(&m);
	if (statvfs(m.dir, &vfs) != 0 || (vfs.f_flag & ST_NOSUID)) {
		e2e_machine_free(&m);
		skip();
	}
	snprintf(copy, sizeof(copy), "%s/pmustat-setid", m.dir);
	snprintf(outp, sizeof(outp), "%s/setid.out", m.dir);
	snprintf(errp, sizeof(errp), "%s/setid.err", m.dir);
	for (size_t k = 0; k < sizeof(modes) / sizeof(modes[0]); k++) {
		char cp[PATH_MAX * 2 + 64];
		int status;
		pid_t pid;

		snprintf(cp, sizeof(cp), "cp '%s' '%s'", E2E_PMUSTAT, copy);
		assert_int_equal(system(cp), 0);
		assert_int_equal(chown(copy, 0, 0), 0);
		assert_int_equal(chmod(copy, modes[k]), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			int o = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
			int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0666);

			if (o < 0 || e < 0 || setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 || setuid(NOBODY) != 0)
				_exit(120);
			dup2(o, 1);
			dup2(e, 2);
			unsetenv("LD_PRELOAD");
			execl(copy, "pmustat", "-e", "task-clock", "--", "/bin/sh", "-pc", "echo euid=$(id -u)", (char *)NULL);
			_exit(121);
		}
		status = e2e_reap(pid);
#ifdef __SANITIZE_ADDRESS__
		/*
		 * A sanitized build: LeakSanitizer cannot trace a set-ID process
		 * (not dumpable) and turns the exit into 1 after pmustat refused.
		 */
		if (status == 1 && strstr(slurp_file(errp), "LeakSanitizer has encountered a fatal error"))
			status = 125;
#endif
		text = slurp_file(outp);
		assert_null(strstr(text, "euid="));
		text = slurp_file(errp);
		if (status != 125 || !strstr(text, "set-user-ID or set-group-ID") || !strstr(text, "sudo"))
			fail_msg("mode %o: exit %d: %s", (unsigned)modes[k], status, text);
		unlink(copy);
	}
	unlink(outp);
	unlink(errp);
	e2e_machine_free(&m);
}

/* The command gets the sudo user's HOME, USER, LOGNAME and SHELL, not root's. */
static void
test_sudo_user_environment(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct passwd *pw;
	char want[PATH_MAX * 2 + 512];

	(void)state;
	NEEDS_ROOT();
	pw = getpwuid(NOBODY);
	if (!pw) {
		skip();
		return;
	}
	snprintf(want, sizeof(want), "[%s|%s|%s|%s]\n", pw->pw_dir, pw->pw_name, pw->pw_name,
		 pw->pw_shell && pw->pw_shell[0] ? pw->pw_shell : "/bin/sh");
	machine(&m);
	/* The command runs as nobody: the preload library must be where nobody can read it. */
	e2e_machine_share(&m);
	e2e_run_env(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", "/bin/sh", "-c",
					      "echo \"[$HOME|$USER|$LOGNAME|$SHELL]\"", NULL },
		    (const char *[]){ "SUDO_UID=65534", "SUDO_GID=65534", "SUDO_USER=nobody", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, want);
	e2e_result_free(&r);
	/* --as-root keeps root's. */
	e2e_run_env(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--as-root", "-e", "branches", "/bin/sh",
					      "-c", "echo \"[$USER]\"", NULL },
		    (const char *[]){ "SUDO_UID=65534", "SUDO_GID=65534", NULL });
	e2e_assert_status(&r, 0);
	assert_null(strstr(r.out, "[nobody]"));
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* ---- a file that cannot be written whole: 125, naming the file, nothing half-written ---- */

/* No file of pmustat's may grow past this: a journal fits (JOURNAL_MAX_BYTES), the output does not. */
#define FILE_SIZE_LIMIT JOURNAL_MAX_BYTES

/*
 * e2e_run() with writes past FILE_SIZE_LIMIT failing (EFBIG, SIGXFSZ
 * ignored), as writes fail on a full file system: the same write(2) error
 * path, without a file system of its own to fill (no mount, no privilege).
 * The output is made to outgrow the limit by the command line it records.
 */
static void
run_limited(const struct e2e_machine *m, struct e2e_result *r, const char *const argv[])
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_act;
	struct rlimit lim, old;

	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = FILE_SIZE_LIMIT;
	assert_int_equal(sigaction(SIGXFSZ, &ign, &old_act), 0);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	e2e_run(m, r, argv);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_int_equal(sigaction(SIGXFSZ, &old_act, NULL), 0);
}

static void
test_write_failure_leaves_nothing_half_written(void **state)
{
	char dir[PATH_MAX + 16], out[PATH_MAX + 32], base[PATH_MAX + 32];
	static char script[2 * FILE_SIZE_LIMIT];
	struct e2e_machine m;
	struct e2e_result r;
	int fd;

	(void)state;
	machine(&m);
	snprintf(dir, sizeof(dir), "%s/results", m.dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(out, sizeof(out), "%s/out.json", dir);
	snprintf(base, sizeof(base), "%s/base.json", dir);
	/* A command whose line alone is larger than the limit: ": xxx...". */
	memset(script, 'x', sizeof(script) - 1);
	script[0] = ':';
	script[1] = ' ';
	/* An old result that must survive a failed write whole. */
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "old\n", 4), 4);
	close(fd);

	run_limited(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out, "-e", "branches",
					      "/bin/sh", "-c", script, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "File too large");
	e2e_assert_err_contains(&r, out);
	e2e_result_free(&r);
	assert_string_equal(slurp_file(out), "old\n");

	/* -o /dev/null: the human output, which names the command too, is not the file that fails. */
	run_limited(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-o", "/dev/null", "--save-baseline", base,
					      "-e", "branches", "/bin/sh", "-c", script, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "--save-baseline");
	e2e_assert_err_contains(&r, "File too large");
	e2e_result_free(&r);
	assert_int_equal(access(base, F_OK), -1);
	/* Nothing else is left in the directory: no temporary file. */
	{
		char ls[PATH_MAX + 128];

		snprintf(ls, sizeof(ls), "test \"$(ls -A '%s' | tr '\\n' ' ')\" = 'out.json '", dir);
		assert_int_equal(system(ls), 0);
	}
	/* The core is free and as it was: the run itself went through (journal and all). */
	run_limited(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, NULL });
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signal_while_the_command_starts),
		cmocka_unit_test(test_interval_sampler_stops_before_the_restore),
		cmocka_unit_test(test_recovery_leaves_counters_taken_since),
		cmocka_unit_test(test_recovery_leaves_the_runs_counter_if_retaken),
		cmocka_unit_test(test_zombie_run_is_gone),
		cmocka_unit_test(test_corrupt_journal_advice_works),
		cmocka_unit_test(test_corrupt_journal_question_on_a_terminal),
		cmocka_unit_test(test_lock_cannot_be_jammed_or_faked),
		cmocka_unit_test(test_no_control_characters_from_a_command_line),
		cmocka_unit_test(test_setuid_install_is_refused),
		cmocka_unit_test(test_sudo_user_environment),
		cmocka_unit_test(test_write_failure_leaves_nothing_half_written),
	};
	cpu_set_t cpus;
	long conf = sysconf(_SC_NPROCESSORS_CONF);

	if (argc == 6 && strcmp(argv[1], HOLD_LOCK) == 0)
		return hold_lock(argv);
	if (sched_getaffinity(0, sizeof(cpus), &cpus) != 0)
		return 1;
	/* PMUSTAT_TEST_FILTER=test_name runs that one (cmocka's pattern). */
	if (getenv("PMUSTAT_TEST_FILTER"))
		cmocka_set_test_filter(getenv("PMUSTAT_TEST_FILTER"));
	for (int c = 0; c < CPU_SETSIZE && c < EMU_MAX_CPUS; c++)
		if (CPU_ISSET(c, &cpus))
			core = c;
	snprintf(core_arg, sizeof(core_arg), "%d", core);
	ncpus = (unsigned)(conf > core ? conf : core + 1);
	if (ncpus > EMU_MAX_CPUS)
		ncpus = EMU_MAX_CPUS;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
