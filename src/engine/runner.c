/*
 * runner.c - corked fork, privilege drop, exec (perf's workload start,
 * time(1)'s exit statuses).
 *
 * Everything that can fail or take time (pinning, dropping privileges,
 * looking COMMAND up in PATH) happens before the cork. With ptrace, the
 * counters are enabled by the parent while the kernel holds the command
 * at its exec stop, so no instruction of the child is counted; without
 * it, the only code between the enable and the command is the return
 * from the last MSR write and the execve() call.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/exit_codes.h"
#include "engine/runner.h"

extern char **environ;

struct report {
	int stage;
	int err;
};

static int
write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* 1 for a whole message, 0 at EOF, -errno on error. */
static int
read_report(int fd, struct report *rep)
{
	size_t got = 0;

	while (got < sizeof(*rep)) {
		ssize_t n = read(fd, (char *)rep + got, sizeof(*rep) - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return got == 0 ? 0 : -EPROTO;
		got += (size_t)n;
	}
	return 1;
}

static void
child_report(int fd, enum runner_stage stage, int err)
{
	struct report rep = { (int)stage, err };

	(void)write_all(fd, &rep, sizeof(rep));
}

/* Is @path something execve() may run? 0, or the errno execvp would give. */
static int
check_executable(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return errno;
	if (!S_ISREG(st.st_mode))
		return EACCES;
	if (access(path, X_OK) != 0)
		return errno;
	return 0;
}

/*
 * execvp()'s search without executing: the first PATH entry that holds an
 * executable file. ENOENT when none holds the name, EACCES when one holds
 * it but may not run it.
 */
static int
resolve(const char *name, char *out, size_t size)
{
	const char *path = getenv("PATH");
	const char *p;
	int seen = ENOENT;

	if (name[0] == '\0')
		return ENOENT;
	if (strchr(name, '/')) {
		size_t len = strlen(name);

		if (len >= size)
			return ENAMETOOLONG;
		memcpy(out, name, len + 1);
		return check_executable(out);
	}
	if (!path)
		path = "/bin:/usr/bin";
	for (p = path;; ) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		int rc;

		/* An empty entry means the current directory, as in execvp. */
		if (len == 0)
			rc = snprintf(out, size, "%s", name);
		else
			rc = snprintf(out, size, "%.*s/%s", (int)len, p, name);
		if (rc > 0 && (size_t)rc < size) {
			int e = check_executable(out);

			if (e == 0)
				return 0;
			if (e != ENOENT && e != ENOTDIR)
				seen = e;
		}
		if (!end)
			break;
		p = end + 1;
	}
	return seen;
}

static void
mark_fds_cloexec(void)
{
	long max;

#ifdef CLOSE_RANGE_CLOEXEC
	if (close_range(3, ~0u, CLOSE_RANGE_CLOEXEC) == 0)
		return;
#endif
	max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = 3; fd < max; fd++) {
		int flags = fcntl(fd, F_GETFD);

		if (flags >= 0 && !(flags & FD_CLOEXEC))
			(void)fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
	}
}

static _Noreturn void
child(int go_fd, int report_fd, char *const argv[], const struct runner_opts *opts)
{
	static const int reset[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ, SIGCHLD };
	char path[PATH_MAX];
	sigset_t all, none;
	bool traced = false;
	char go;
	int e;

	/*
	 * The command gets the dispositions and mask of a fresh process; the
	 * mask only once the parent knows whether the child is traced (a
	 * signal stops a tracee until the parent waits for it).
	 */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++)
		signal(reset[i], SIG_DFL);
	sigemptyset(&none);

	if (opts->cpu >= 0 || opts->ncpus) {
		cpu_set_t set;

		CPU_ZERO(&set);
		if (opts->cpu >= 0)
			CPU_SET(opts->cpu, &set);
		for (unsigned i = 0; opts->cpu < 0 && i < opts->ncpus; i++)
			CPU_SET(opts->cpus[i], &set);
		if (sched_setaffinity(0, sizeof(set), &set) != 0) {
			child_report(report_fd, RUNNER_PIN, errno);
			_exit(EXIT_PMUSTAT_FAILURE);
		}
	}
	if (opts->drop_privileges) {
		const gid_t *groups = opts->ngroups > 0 ? opts->groups : &opts->gid;
		size_t ngroups = opts->ngroups > 0 ? (size_t)opts->ngroups : 1;

		if (setgroups(ngroups, groups) != 0 || setgid(opts->gid) != 0 ||
		    setuid(opts->uid) != 0) {
			child_report(report_fd, RUNNER_PRIVILEGES, errno);
			_exit(EXIT_PMUSTAT_FAILURE);
		}
		/* Make sure root cannot come back. */
		if (opts->uid != 0 && setuid(0) == 0) {
			child_report(report_fd, RUNNER_PRIVILEGES, EPERM);
			_exit(EXIT_PMUSTAT_FAILURE);
		}
		/*
		 * Until execve this process runs as the user yet holds the MSR
		 * device root opened: the user must not ptrace it or reach that
		 * descriptor through /proc, whatever fs.suid_dumpable says.
		 * execve makes the command dumpable again.
		 */
		if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
			child_report(report_fd, RUNNER_PRIVILEGES, errno);
			_exit(EXIT_PMUSTAT_FAILURE);
		}
	}
	/* Open fds stay usable until execve (the MSR device!), then close. */
	mark_fds_cloexec();

	e = resolve(argv[0], path, sizeof(path));
	if (e) {
		child_report(report_fd, RUNNER_RESOLVE, e);
		_exit(e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC);
	}
	/*
	 * Traced, the kernel stops the command after its execve and before
	 * its first instruction: the parent enables the counters there.
	 */
	e = 0;
	if (opts->enable && opts->no_trace && !opts->npin) {
		e = EPERM;
	} else if (opts->enable || opts->npin) {
		traced = ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0;
		e = traced ? 0 : errno;
		if (!traced && !e)
			e = EPERM;
	}
	child_report(report_fd, RUNNER_READY, e);
	sigprocmask(SIG_SETMASK, &none, NULL);

	for (;;) {
		ssize_t n = read(go_fd, &go, 1);

		if (n == 1)
			break;
		if (n < 0 && errno == EINTR)
			continue;
		/* The parent went away without uncorking: run nothing. */
		_exit(EXIT_PMUSTAT_FAILURE);
	}

	if (opts->inherit) {
		e = opts->inherit(opts->inherit_arg);
		if (e) {
			child_report(report_fd, RUNNER_INHERIT, -e);
			_exit(EXIT_PMUSTAT_FAILURE);
		}
	}
	if (opts->enable && (!traced || opts->no_trace)) {
		e = opts->enable(opts->arg);
		if (e) {
			child_report(report_fd, RUNNER_ENABLE, -e);
			_exit(EXIT_PMUSTAT_FAILURE);
		}
	}
	/* This process's copy of the wrapper's argv: the command as resolved. */
	if (opts->wrap) {
		opts->wrap[opts->wrap_at] = path;
		execve(opts->wrap[0], opts->wrap, opts->envp ? opts->envp : environ);
		e = errno;
		child_report(report_fd, RUNNER_EXEC, e);
		_exit(e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC);
	}
	/* Counting from here: nothing between this and the syscall. */
	execve(path, argv, opts->envp ? opts->envp : environ);
	e = errno;
	child_report(report_fd, RUNNER_EXEC, e);
	_exit(e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC);
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int
runner_start(struct runner *r, char *const argv[], const struct runner_opts *opts,
	     struct runner_failure *fail)
{
	int go[2], rep[2];
	struct report msg;
	int rc, wstatus;

	memset(r, 0, sizeof(*r));
	r->go_fd = -1;
	r->report_fd = -1;
	/* With no_trace the child enables itself; a child traced for --pin-threads only is followed. */
	r->enable = opts->no_trace ? NULL : opts->enable;
	r->arg = opts->arg;
	r->pin_cpus = opts->pin_cpus;
	r->npin = opts->pin_cpus ? opts->npin : 0;
	fail->stage = RUNNER_OK;
	fail->err = 0;
	if (!argv || !argv[0])
		return -EINVAL;
	/* Out of descriptors or processes (RLIMIT_NOFILE, RLIMIT_NPROC): the command never starts. */
	fail->stage = RUNNER_CHILD_LOST;
	if (pipe2(go, O_CLOEXEC) != 0) {
		fail->err = errno;
		return -fail->err;
	}
	if (pipe2(rep, O_CLOEXEC) != 0) {
		fail->err = errno;
		close(go[0]);
		close(go[1]);
		return -fail->err;
	}
	fflush(NULL);
	r->pid = fork();
	if (r->pid < 0) {
		fail->err = errno;
		r->pid = 0;
		close(go[0]);
		close(go[1]);
		close(rep[0]);
		close(rep[1]);
		return -fail->err;
	}
	fail->stage = RUNNER_OK;
	if (r->pid == 0) {
		close(go[1]);
		close(rep[0]);
		child(go[0], rep[1], argv, opts);
	}
	close(go[0]);
	close(rep[1]);
	r->go_fd = go[1];
	r->report_fd = rep[0];

	rc = read_report(r->report_fd, &msg);
	if (rc == 1 && msg.stage == RUNNER_READY) {
		r->traced = (opts->enable || r->npin) && msg.err == 0;
		r->trace_err = opts->enable || r->npin ? msg.err : 0;
		return 0;
	}
	if (rc == 1) {
		fail->stage = (enum runner_stage)msg.stage;
		fail->err = msg.err;
	} else {
		fail->stage = RUNNER_CHILD_LOST;
		fail->err = rc < 0 ? -rc : ECHILD;
	}
	(void)runner_wait(r, &wstatus);
	close_fd(&r->go_fd);
	close_fd(&r->report_fd);
	return -fail->err;
}

/*
 * Has the child exec'd? Its end of the report pipe closes on execve, so
 * the pipe is at EOF; a report read instead goes to @rep (1).
 */
static int
exec_done(int fd, struct report *rep)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int rc;

	do
		rc = poll(&pfd, 1, 0);
	while (rc < 0 && errno == EINTR);
	if (rc <= 0)
		return 0;
	rc = read_report(fd, rep);
	return rc == 0 ? 2 : rc == 1 ? 1 : 0;
}

/*
 * A traced child: pass on the signals that stop it before its execve,
 * enable at the exec stop (SIGTRAP with the report pipe at EOF), detach.
 * 0, or -errno with @fail filled and the child reaped.
 */
static int
go_traced(struct runner *r, struct runner_failure *fail, int *wstatus)
{
	struct report msg = { RUNNER_OK, 0 };
	bool reported = false;
	int st, rc;

	for (;;) {
		pid_t p = waitpid(r->pid, &st, 0);

		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0) {
			fail->stage = RUNNER_CHILD_LOST;
			fail->err = errno;
			close_fd(&r->report_fd);
			runner_cancel(r);
			return -fail->err;
		}
		if (!WIFSTOPPED(st)) {
			/* It ended before its execve: why is on the pipe. */
			r->pid = 0;
			if (wstatus)
				*wstatus = st;
			if (!reported && read_report(r->report_fd, &msg) == 1)
				reported = true;
			close_fd(&r->report_fd);
			fail->stage = reported ? (enum runner_stage)msg.stage : RUNNER_CHILD_LOST;
			fail->err = reported ? msg.err : ECHILD;
			if (!fail->err)
				fail->err = ECHILD;
			return -fail->err;
		}
		if (WSTOPSIG(st) == SIGTRAP && !reported) {
			rc = exec_done(r->report_fd, &msg);
			if (rc == 2)
				break;
			reported = rc == 1;
		}
		/* Not the exec stop: the signal goes on to the child. */
		(void)ptrace(PTRACE_CONT, r->pid, NULL, (void *)(long)WSTOPSIG(st));
	}
	close_fd(&r->report_fd);
	/* The command is held before its first instruction: its first thread placed, then counted. */
	rc = r->npin ? runner_pin_start(r) : 0;
	if (rc) {
		fail->stage = RUNNER_PIN;
		fail->err = -rc;
		kill(r->pid, SIGKILL);
		(void)runner_wait(r, wstatus);
		return rc;
	}
	rc = r->enable ? r->enable(r->arg) : 0;
	if (rc) {
		fail->stage = RUNNER_ENABLE;
		fail->err = -rc;
		kill(r->pid, SIGKILL);
		(void)runner_wait(r, wstatus);
		return rc;
	}
	if (r->following) {
		rc = ptrace(PTRACE_CONT, r->pid, NULL, NULL) == 0 ? 0 : -errno;
	} else {
		rc = ptrace(PTRACE_DETACH, r->pid, NULL, NULL) == 0 ? 0 : -errno;
	}
	if (rc) {
		fail->stage = RUNNER_CHILD_LOST;
		fail->err = -rc;
		kill(r->pid, SIGKILL);
		(void)runner_wait(r, wstatus);
		return rc;
	}
	return 0;
}

int
runner_go(struct runner *r, struct runner_failure *fail, int *wstatus)
{
	struct report msg;
	char go = 'g';
	int rc;

	fail->stage = RUNNER_OK;
	fail->err = 0;
	rc = write_all(r->go_fd, &go, 1);
	close_fd(&r->go_fd);
	if (rc == 0 && r->traced)
		return go_traced(r, fail, wstatus);
	if (rc == 0) {
		rc = read_report(r->report_fd, &msg);
		close_fd(&r->report_fd);
		if (rc == 0)
			return 0;	/* EOF: the pipe closed on execve */
		if (rc == 1) {
			fail->stage = (enum runner_stage)msg.stage;
			fail->err = msg.err;
		} else {
			fail->stage = RUNNER_CHILD_LOST;
			fail->err = -rc;
		}
	} else {
		close_fd(&r->report_fd);
		fail->stage = RUNNER_CHILD_LOST;
		fail->err = -rc;
	}
	(void)runner_wait(r, wstatus);
	return fail->err ? -fail->err : -ECHILD;
}

int
runner_wait(struct runner *r, int *wstatus)
{
	int st;

	if (r->pid <= 0)
		return -ECHILD;
	for (;;) {
		/* Followed threads are the tracer's to reap: the command's end waits for theirs. */
		pid_t p = r->following ? waitpid(-1, &st, __WALL) : waitpid(r->pid, &st, 0);

		if (p == r->pid)
			break;
		/* A thread stopped on its way out (a signal) goes on to its end. */
		if (p > 0 && WIFSTOPPED(st))
			(void)ptrace(PTRACE_CONT, p, NULL, NULL);
		if (p > 0 || (p < 0 && errno == EINTR))
			continue;
		return -errno;
	}
	r->pid = 0;
	runner_pin_free(r);
	if (wstatus)
		*wstatus = st;
	return 0;
}

int
runner_await(struct runner *r)
{
	siginfo_t si;

	if (r->pid <= 0)
		return -ECHILD;
	if (r->following)
		return runner_pin_await(r);
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOWAIT) != 0)
		return -errno;
	return 0;
}

void
runner_cancel(struct runner *r)
{
	close_fd(&r->go_fd);
	close_fd(&r->report_fd);
	if (r->pid > 0) {
		kill(r->pid, SIGKILL);
		(void)runner_wait(r, NULL);
	}
}

int
runner_exit_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return EXIT_SIGNAL_BASE + WTERMSIG(wstatus);
	return EXIT_PMUSTAT_FAILURE;
}

int
runner_failure_exit_status(const struct runner_failure *fail)
{
	switch (fail->stage) {
	case RUNNER_RESOLVE:
	case RUNNER_EXEC:
		return fail->err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
	default:
		return EXIT_PMUSTAT_FAILURE;
	}
}

const char *
runner_stage_name(enum runner_stage stage)
{
	switch (stage) {
	case RUNNER_OK: return "ok";
	case RUNNER_READY: return "ready";
	case RUNNER_PIN: return "pinning the command to its core";
	case RUNNER_PRIVILEGES: return "dropping privileges to SUDO_UID/SUDO_GID";
	case RUNNER_RESOLVE: return "looking the command up";
	case RUNNER_ENABLE: return "enabling the counters";
	case RUNNER_INHERIT: return "handing the command its file descriptors";
	case RUNNER_EXEC: return "executing the command";
	case RUNNER_CHILD_LOST: return "starting the command";
	}
	return "?";
}
