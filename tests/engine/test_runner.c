/*
 * test_runner.c - the corked child: exit statuses, exec errors, the
 * enable callback's place, pinning, fds, privilege drop. Runs real
 * commands (/bin/sh, /bin/true): no hardware involved.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/exit_codes.h"
#include "engine/runner.h"

/* argv strings: execve wants char *, the literals are const. */
#define S(x) ((char *)(x))

/* What the enable callback saw, in memory shared with the child. */
struct seen {
	int calls;
	int cpu;
	int uid;
	int dumpable;
	int result;
	pid_t pid;		/* who called it */
	char child_state;	/* the command's state then (/proc/PID/stat) */
	char child_exe[256];	/* and its executable */
};

static struct seen *seen;
static pid_t child_pid;		/* the runner's child, for the callback in the parent */

static int
enable_cb(void *arg)
{
	struct seen *s = arg;
	char path[64];
	ssize_t n;
	FILE *f;

	s->calls++;
	s->cpu = sched_getcpu();
	s->uid = (int)getuid();
	s->dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
	s->pid = getpid();
	if (s->pid != child_pid) {
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)child_pid);
		f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%*d (%*[^)]) %c", &s->child_state) != 1)
				s->child_state = '?';
			fclose(f);
		}
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)child_pid);
		n = readlink(path, s->child_exe, sizeof(s->child_exe) - 1);
		s->child_exe[n > 0 ? n : 0] = '\0';
	}
	return s->result;
}

static int
setup(void **state)
{
	(void)state;
	seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	return seen == MAP_FAILED ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	munmap(seen, sizeof(*seen));
	return 0;
}

/* Start, go, wait: the shell-style exit status, or the failure's. */
static int
run(char *const argv[], struct runner_opts *o, struct runner_failure *f)
{
	struct runner r;
	int rc, ws = 0, result = seen->result;

	(void)o;
	memset(seen, 0, sizeof(*seen));
	seen->result = result;
	rc = runner_start(&r, argv, o, f);
	if (rc)
		return runner_failure_exit_status(f);
	child_pid = r.pid;
	rc = runner_go(&r, f, &ws);
	if (rc)
		return runner_failure_exit_status(f);
	assert_int_equal(runner_wait(&r, &ws), 0);
	return runner_exit_status(ws);
}

static struct runner_opts
opts(void)
{
	struct runner_opts o;

	memset(&o, 0, sizeof(o));
	o.cpu = -1;
	o.enable = enable_cb;
	o.arg = seen;
	return o;
}

static void
test_exit_status(void **state)
{
	char *t[] = { S("true"), NULL };
	char *three[] = { S("sh"), S("-c"), S("exit 3"), NULL };
	struct runner_opts o = opts();
	struct runner_failure f;

	(void)state;
	assert_int_equal(run(t, &o, &f), 0);
	assert_int_equal(seen->calls, 1);
	assert_int_equal(run(three, &o, &f), 3);
}

static void
test_killed_by_signal(void **state)
{
	char *segv[] = { S("sh"), S("-c"), S("kill -SEGV $$"), NULL };
	char *term[] = { S("sh"), S("-c"), S("kill -TERM $$"), NULL };
	struct runner_opts o = opts();
	struct runner_failure f;

	(void)state;
	assert_int_equal(run(segv, &o, &f), 128 + SIGSEGV);
	assert_int_equal(run(term, &o, &f), 128 + SIGTERM);
}

static void
test_not_found_127_before_enable(void **state)
{
	char *nf[] = { S("pmustat-no-such-command-xyz"), NULL };
	char *nf_path[] = { S("/nonexistent/dir/cmd"), NULL };
	struct runner_opts o = opts();
	struct runner_failure f;

	(void)state;
	assert_int_equal(run(nf, &o, &f), EXIT_NOT_FOUND);
	assert_int_equal(f.stage, RUNNER_RESOLVE);
	assert_int_equal(f.err, ENOENT);
	/* Found out before the cork: the counters were never enabled. */
	assert_int_equal(seen->calls, 0);
	assert_int_equal(run(nf_path, &o, &f), EXIT_NOT_FOUND);
}

static void
test_not_executable_126(void **state)
{
	char dir[] = "/tmp/pmustat-runner-XXXXXX";
	char path[64], garbage[64];
	char *argv[] = { path, NULL };
	char *argv2[] = { garbage, NULL };
	struct runner_opts o = opts();
	struct runner_failure f;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/noexec", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(run(argv, &o, &f), EXIT_CANNOT_EXEC);
	assert_int_equal(f.stage, RUNNER_RESOLVE);

	/* Executable bit but no valid format: execve fails (no shell fallback), so nothing is enabled. */
	snprintf(garbage, sizeof(garbage), "%s/garbage", dir);
	fd = open(garbage, O_CREAT | O_WRONLY, 0755);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "\x01\x02\x03\x04garbage", 11), 11);
	close(fd);
	assert_int_equal(run(argv2, &o, &f), EXIT_CANNOT_EXEC);
	assert_int_equal(f.stage, RUNNER_EXEC);
	assert_int_equal(f.err, ENOEXEC);
	assert_int_equal(seen->calls, 0);
	/* Without ptrace the child enables first, then its execve fails. */
	o.no_trace = true;
	assert_int_equal(run(argv2, &o, &f), EXIT_CANNOT_EXEC);
	assert_int_equal(f.stage, RUNNER_EXEC);
	assert_int_equal(seen->calls, 1);
	unlink(path);
	unlink(garbage);
	rmdir(dir);
}

static void
test_enable_failure(void **state)
{
	char *t[] = { S("true"), NULL };
	struct runner_opts o = opts();
	struct runner_failure f;

	(void)state;
	seen->result = -EIO;
	assert_int_equal(run(t, &o, &f), EXIT_PMUSTAT_FAILURE);
	assert_int_equal(f.stage, RUNNER_ENABLE);
	assert_int_equal(f.err, EIO);
	seen->result = 0;
}

static void
test_pinned(void **state)
{
	char *t[] = { S("true"), NULL };
	struct runner_opts o = opts();
	struct runner_failure f;
	cpu_set_t set;
	int last = -1;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			last = c;
	o.cpu = last;
	o.no_trace = true;	/* the enable runs in the child, on its core */
	assert_int_equal(run(t, &o, &f), 0);
	assert_int_equal(seen->cpu, last);
}

/*
 * With ptrace the parent enables while the kernel holds the command at
 * its exec stop: the new image is in place, not one of its instructions
 * has run, and none of the child's own code follows the enable.
 */
static void
test_enable_at_exec_stop(void **state)
{
	char *t[] = { S("/bin/true"), NULL };
	char *three[] = { S("sh"), S("-c"), S("exit 3"), NULL };
	struct runner_opts o = opts();
	struct runner_failure f;
	char real[256];

	(void)state;
	assert_non_null(realpath("/bin/true", real));
	assert_int_equal(run(t, &o, &f), 0);
	assert_int_equal(seen->calls, 1);
	assert_int_equal(seen->pid, getpid());
	assert_int_equal(seen->child_state, 't');	/* tracing stop */
	assert_string_equal(seen->child_exe, real);
	/* Detached: the command runs on, with its own exit status. */
	assert_int_equal(run(three, &o, &f), 3);
	assert_int_equal(seen->pid, getpid());
}

/* A failed enable at the exec stop: the command never runs, 125. */
static void
test_enable_failure_at_exec_stop_kills_the_command(void **state)
{
	char *t[] = { S("sh"), S("-c"), S("exit 7"), NULL };
	struct runner_opts o = opts();
	struct runner_failure f;

	(void)state;
	seen->result = -EIO;
	assert_int_equal(run(t, &o, &f), EXIT_PMUSTAT_FAILURE);
	assert_int_equal(f.stage, RUNNER_ENABLE);
	assert_int_equal(f.err, EIO);
	assert_int_equal(seen->pid, getpid());
	seen->result = 0;
}

static void
test_fds_closed(void **state)
{
	char *check[] = { S("sh"), S("-c"), S("test ! -e /proc/self/fd/57 && test -e /proc/self/fd/2"), NULL };
	struct runner_opts o = opts();
	struct runner_failure f;
	int fd;

	(void)state;
	fd = open("/dev/null", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(dup2(fd, 57), 57);
	close(fd);
	assert_int_equal(run(check, &o, &f), 0);
	close(57);
}

/* The inherit callback: fd 57 is the command's (cleared close-on-exec in the child). */
static int
inherit_57(void *arg)
{
	int flags = fcntl(57, F_GETFD);

	(void)arg;
	if (flags < 0 || fcntl(57, F_SETFD, flags & ~FD_CLOEXEC) < 0)
		return -errno;
	return 0;
}

/*
 * What the command inherits is handed over in the child whichever window
 * (the enable at the exec stop runs in the parent, which cannot), and a
 * failure there means the command never runs.
 */
static void
test_inherit_in_both_windows(void **state)
{
	char *check[] = { S("sh"), S("-c"), S("test -e /proc/self/fd/57"), NULL };
	struct runner_opts o = opts();
	struct runner_failure f;
	int fd;

	(void)state;
	fd = open("/dev/null", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(dup2(fd, 57), 57);
	close(fd);
	o.inherit = inherit_57;
	assert_int_equal(run(check, &o, &f), 0);
	assert_int_equal(seen->pid, getpid());	/* the exact window: enabled by the parent */
	o.no_trace = true;
	assert_int_equal(run(check, &o, &f), 0);
	assert_int_equal(seen->pid, child_pid);
	close(57);
	/* fd 57 closed: the callback fails, and says where. */
	assert_int_equal(run(check, &o, &f), EXIT_PMUSTAT_FAILURE);
	assert_int_equal(f.stage, RUNNER_INHERIT);
	assert_int_equal(f.err, EBADF);
	assert_int_equal(seen->calls, 0);
}

static void
test_privilege_drop(void **state)
{
	char *check[] = { S("sh"), S("-c"), S("test \"$(id -u)\" = 65534 && test \"$(id -g)\" = 65534"), NULL };
	struct runner_opts o = opts();
	struct runner_failure f;

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: only root can drop privileges\n");
		skip();
	}
	o.drop_privileges = true;
	o.uid = 65534;
	o.gid = 65534;
	/* Traced: the command still runs as the user once detached. */
	assert_int_equal(run(check, &o, &f), 0);
	o.no_trace = true;
	assert_int_equal(run(check, &o, &f), 0);
	/* The enable callback runs after the drop (the MSR fd was opened before). */
	assert_int_equal(seen->uid, 65534);
	/* Holding root's MSR descriptor as the user: nobody may trace it (fs.suid_dumpable aside). */
	assert_int_equal(seen->dumpable, 0);
}

static void
test_signals_reset_for_command(void **state)
{
	/* pmustat ignores SIGINT while it waits; the command must not inherit that. */
	char *check[] = { S("sh"), S("-c"), S("kill -INT $$; exit 0"), NULL };
	struct runner_opts o = opts();
	struct runner_failure f;

	(void)state;
	signal(SIGINT, SIG_IGN);
	assert_int_equal(run(check, &o, &f), 128 + SIGINT);
	signal(SIGINT, SIG_DFL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_status),
		cmocka_unit_test(test_killed_by_signal),
		cmocka_unit_test(test_not_found_127_before_enable),
		cmocka_unit_test(test_not_executable_126),
		cmocka_unit_test(test_enable_failure),
		cmocka_unit_test(test_pinned),
		cmocka_unit_test(test_enable_at_exec_stop),
		cmocka_unit_test(test_enable_failure_at_exec_stop_kills_the_command),
		cmocka_unit_test(test_fds_closed),
		cmocka_unit_test(test_inherit_in_both_windows),
		cmocka_unit_test(test_privilege_drop),
		cmocka_unit_test(test_signals_reset_for_command),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
