/*
 * runner.h - start the measured command: a corked child.
 *
 * runner_start() forks a child that pins itself to the measured core,
 * drops root for SUDO_UID/SUDO_GID when asked, marks every fd but stdio
 * close-on-exec, resolves COMMAND along PATH (no shell), reports "ready"
 * and blocks on the cork. runner_go() uncorks it and the enable callback
 * starts the counting, in one of two ways:
 *
 *  - exact (the child could PTRACE_TRACEME): the child execve()s at once;
 *    the kernel stops it after the execve succeeded and before the
 *    command's first instruction, the parent calls the enable callback
 *    there and detaches. No instruction of pmustat's child is counted.
 *  - approximate (ptrace refused: YAMA ptrace_scope 3, a seccomp filter):
 *    the child calls the enable callback (MSR writes through the device
 *    opened before the privilege drop) and execve()s straight after; the
 *    return path of the last write and the call into execve are counted.
 *
 * Failures in the child come back over a close-on-exec pipe as a stage
 * and an errno.
 */
#ifndef PMUSTAT_RUNNER_H
#define PMUSTAT_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum runner_stage {
	RUNNER_OK = 0,
	RUNNER_READY,		/* internal: corked and waiting */
	RUNNER_PIN,		/* sched_setaffinity to the core */
	RUNNER_PRIVILEGES,	/* setgroups/setgid/setuid */
	RUNNER_RESOLVE,		/* COMMAND not found / not executable */
	RUNNER_ENABLE,		/* the enable callback failed */
	RUNNER_INHERIT,		/* the inherit callback failed */
	RUNNER_EXEC,		/* execve failed */
	RUNNER_CHILD_LOST,	/* child died before it reported */
};

#define RUNNER_MAX_GROUPS 256

struct runner_opts {
	int cpu;		/* pin the child here; < 0: leave affinity alone */
	const int *cpus;	/* with cpu < 0: pin it to these @ncpus CPUs (NULL: none) */
	unsigned ncpus;
	bool drop_privileges;
	uid_t uid;
	gid_t gid;
	/* The user's supplementary groups, as sudo -u would give them. */
	gid_t groups[RUNNER_MAX_GROUPS];
	int ngroups;		/* 0: just gid */
	/* The command's environment; NULL: pmustat's own. */
	char *const *envp;
	/*
	 * Starts the counting: in the parent at the command's exec stop, or
	 * (without ptrace) in the child once uncorked, right before
	 * execve(). It must only make async-signal-safe calls (the hw ops of
	 * hw_linux are pwrite()s). Returns 0 or -errno.
	 */
	int (*enable)(void *arg);
	void *arg;
	/* Enable in the child before execve even where ptrace works (the approximate window). */
	bool no_trace;
	/*
	 * Called in the child once uncorked, before the enable and execve()
	 * whichever window: what the command inherits beyond stdio (every
	 * other fd is close-on-exec by then), e.g. --regions' area. The same
	 * rules as enable's; NULL: nothing. Returns 0 or -errno.
	 */
	int (*inherit)(void *arg);
	void *inherit_arg;
	/*
	 * --pin-threads: the command's threads round-robin on these @npin
	 * CPUs (pin_threads.c); the child must then be traced (runner_start()
	 * says in runner.traced whether it is).
	 */
	const int *pin_cpus;
	unsigned npin;
	/*
	 * Run the command through another program (--backend sim: Valgrind):
	 * execve(wrap[0], wrap) with wrap[wrap_at] replaced by the command's
	 * resolved path, its arguments following; NULL: the command itself.
	 * The command is still resolved first (127, 126 as without).
	 */
	char **wrap;
	unsigned wrap_at;
};

struct runner {
	pid_t pid;		/* 0 when no child */
	int go_fd;		/* parent's end of the cork */
	int report_fd;		/* parent's end of the report pipe */
	/* With an enable callback: */
	bool traced;		/* the child is traced: enabled at its exec stop */
	int trace_err;		/* why not (positive errno of PTRACE_TRACEME), or 0 */
	int (*enable)(void *arg);
	void *arg;
	/* --pin-threads (pin_threads.c): still the tracer after the exec stop. */
	const int *pin_cpus;
	unsigned npin, next_pin;
	bool following;
	pid_t *tids, *early;		/* threads seen created; first stops seen before their clone event */
	unsigned ntids, tids_cap, nearly, early_cap;
	int pin_err;			/* the first thread that could not be placed: positive errno, or 0 */
};

struct runner_failure {
	enum runner_stage stage;
	int err;		/* positive errno */
};

/*
 * Fork the corked child for @argv (argv[0] looked up in PATH unless it
 * has a '/'). Returns 0 once the child waits for its go; -errno when the
 * child could not be set up (then @fail says where and the child is gone:
 * RUNNER_RESOLVE with ENOENT means "not found", 127).
 */
int
runner_start(struct runner *r, char *const argv[], const struct runner_opts *opts,
	     struct runner_failure *fail);

/*
 * Uncork and wait until the child has exec'd and the enable callback has
 * run (0), or the child failed (-errno, @fail filled, child reaped with
 * its status in *@wstatus). A traced child is detached before it returns.
 */
int
runner_go(struct runner *r, struct runner_failure *fail, int *wstatus);

/* Reap the child, retrying on EINTR. 0 and *@wstatus, or -errno. */
int
runner_wait(struct runner *r, int *wstatus);

/*
 * Wait until the child has ended without reaping it: its pid stays its own
 * (a zombie) until runner_wait(), so a signal sent to it meanwhile can
 * reach no other process. 0, or -errno (-EINTR when a signal came first).
 */
int
runner_await(struct runner *r);

/*
 * pin_threads.c: at the exec stop, follow the command's threads and place
 * its first (0 or -errno); runner_await()'s wait while following, which
 * places each new thread and passes every other stop on; the end of it.
 */
int runner_pin_start(struct runner *r);
int runner_pin_await(struct runner *r);
void runner_pin_free(struct runner *r);

/*
 * Whether this process may trace a child of its own (0, or -errno): asked
 * by a child that requests tracing and exits, so that --pin-threads is
 * refused before any counter is programmed, not after.
 */
int runner_pin_probe(void);

/* Kill (SIGKILL) and reap a child that must not run. */
void
runner_cancel(struct runner *r);

/* Exit status of a reaped child the way a shell reports it: 128+N on signal N. */
int
runner_exit_status(int wstatus);

/* Exit status for a failure before exec: 127 not found, 126 not executable, 125 else. */
int
runner_failure_exit_status(const struct runner_failure *fail);

/* "not found", "pin to core", ... for messages. */
const char *
runner_stage_name(enum runner_stage stage);

#endif
