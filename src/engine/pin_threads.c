/*
 * pin_threads.c - --pin-threads: the command's threads placed round-robin
 * on the listed CPUs, as likwid-pin places them, through ptrace.
 *
 * pmustat stays the command's tracer after the exec stop (seized, with
 * PTRACE_O_TRACECLONE: runner.c): the kernel stops each thread that
 * creates another (the new one starts in a ptrace trap too), and pmustat
 * sets the new thread's affinity there, before it runs an instruction.
 * The command's first thread takes the first CPU, the N-th thread it
 * creates the (N mod k)-th. Everything else that stops a tracee is passed
 * on as it came: signals go to the thread they were for, a job-control
 * stop stays a stop until SIGCONT (PTRACE_LISTEN), a later execve goes on.
 * Were pmustat to go away meanwhile, the kernel lets every thread go.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/runner.h"

/* A thread of the command pmustat has seen created. */
static bool
known(const struct runner *r, pid_t tid)
{
	for (unsigned i = 0; i < r->ntids; i++)
		if (r->tids[i] == tid)
			return true;
	return false;
}

static int
remember(pid_t **list, unsigned *n, unsigned *cap, pid_t tid)
{
	if (*n == *cap) {
		unsigned ncap = *cap ? 2 * *cap : 16;
		pid_t *l = realloc(*list, ncap * sizeof(*l));

		if (!l)
			return -ENOMEM;
		*list = l;
		*cap = ncap;
	}
	(*list)[(*n)++] = tid;
	return 0;
}

/* Was @tid's first stop seen before its creator's clone event? Then it is taken off the list. */
static bool
take_early(struct runner *r, pid_t tid)
{
	for (unsigned i = 0; i < r->nearly; i++) {
		if (r->early[i] == tid) {
			r->early[i] = r->early[--r->nearly];
			return true;
		}
	}
	return false;
}

/* Thread number @n (0: the command's first) on its CPU. */
static int
place(const struct runner *r, pid_t tid, unsigned n)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(r->pin_cpus[n % r->npin], &set);
	return sched_setaffinity(tid, sizeof(set), &set) == 0 ? 0 : -errno;
}

int
runner_pin_probe(void)
{
	pid_t pid = fork();
	pid_t got;
	int st;

	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0 ? 0 : errno > 0 && errno < 126 ? errno : EPERM);
	do
		got = waitpid(pid, &st, 0);
	while (got < 0 && errno == EINTR);
	if (got != pid)
		return -errno;
	if (!WIFEXITED(st))
		return -EPERM;
	return -WEXITSTATUS(st);
}

int
runner_pin_start(struct runner *r)
{
	int rc = place(r, r->pid, 0);

	if (rc == 0)
		rc = remember(&r->tids, &r->ntids, &r->tids_cap, r->pid);
	if (rc)
		return rc;
	r->next_pin = 1;
	r->following = true;
	return 0;
}

/* The first failure, for the report after the run: the command goes on either way. */
static void
note(struct runner *r, int rc)
{
	if (rc && !r->pin_err)
		r->pin_err = -rc;
}

/* @tid stopped at a clone: place the new thread and let both go. */
static void
on_clone(struct runner *r, pid_t tid)
{
	unsigned long msg = 0;
	pid_t child;
	int st;

	if (ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg) != 0) {
		note(r, -errno);
		(void)ptrace(PTRACE_CONT, tid, NULL, NULL);
		return;
	}
	child = (pid_t)msg;
	note(r, place(r, child, r->next_pin++));
	note(r, remember(&r->tids, &r->ntids, &r->tids_cap, child));
	/* The new thread starts in a trap of its own: that stop is ours, not the command's. */
	if (!take_early(r, child)) {
		pid_t got;

		do
			got = waitpid(child, &st, __WALL);
		while (got < 0 && errno == EINTR);
	}
	(void)ptrace(PTRACE_CONT, child, NULL, NULL);
	(void)ptrace(PTRACE_CONT, tid, NULL, NULL);
}

/* One stop of thread @tid with wait status @st. */
static void
on_stop(struct runner *r, pid_t tid, int st)
{
	siginfo_t si;
	int sig = WSTOPSIG(st);

	if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_CLONE << 8))) {
		on_clone(r, tid);
		return;
	}
	if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8))) {
		(void)ptrace(PTRACE_CONT, tid, NULL, NULL);
		return;
	}
	if (st >> 16 == PTRACE_EVENT_STOP) {
		/* A new thread's first stop before its creator's clone event: held until that event. */
		if (!known(r, tid) && remember(&r->early, &r->nearly, &r->early_cap, tid) == 0)
			return;
		/* A job-control stop stays one, as untraced, until SIGCONT; any other trap goes on. */
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
			(void)ptrace(PTRACE_LISTEN, tid, NULL, NULL);
		else
			(void)ptrace(PTRACE_CONT, tid, NULL, NULL);
		return;
	}
	/* A signal is delivered to its thread. */
	sig = runner_stop_signal(st);
	if (ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) != 0)
		sig = 0;
	(void)ptrace(PTRACE_CONT, tid, NULL, (void *)(long)sig);
}

int
runner_pin_await(struct runner *r)
{
	for (;;) {
		siginfo_t si;
		int st;

		memset(&si, 0, sizeof(si));
		/* Looked at, not reaped: the command's own end stays for runner_wait(). */
		if (waitid(P_ALL, 0, &si, WEXITED | WSTOPPED | __WALL | WNOWAIT) != 0)
			return -errno;
		if (si.si_pid == r->pid && si.si_code != CLD_TRAPPED && si.si_code != CLD_STOPPED)
			return 0;
		if (waitpid(si.si_pid, &st, __WALL) != si.si_pid)
			continue;
		if (WIFSTOPPED(st))
			on_stop(r, si.si_pid, st);
	}
}

void
runner_pin_free(struct runner *r)
{
	free(r->tids);
	free(r->early);
	r->tids = r->early = NULL;
	r->ntids = r->nearly = r->tids_cap = r->early_cap = 0;
	r->following = false;
}
