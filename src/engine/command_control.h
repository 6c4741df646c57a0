/*
 * command_control.h - what happens while the command runs, on a thread of
 * pmustat's own: --timeout (SIGTERM to the command, as perf stat does),
 * -D (the counters switched on that long after the command started) and
 * --control fd:CTL[,ACK] (perf's protocol: the command writes "enable" or
 * "disable", each ended by a newline or a NUL, to CTL; pmustat switches
 * the counters and answers "ack\n" on ACK; "ping" is answered alone).
 */
#ifndef PMUSTAT_COMMAND_CONTROL_H
#define PMUSTAT_COMMAND_CONTROL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>

struct command_control {
	/* Asked for (all off: nothing to do, no thread). */
	unsigned timeout_ms;		/* 0: none */
	int delay_ms;			/* > 0: enable then; -1, 0: not by time */
	int ctl_fd, ack_fd;		/* -1: none */
	/* Switches the counters (the backends' set_enabled). */
	void (*set_enabled)(void *arg, bool on);
	void *arg;
	/* The thread's. */
	pthread_t thread;
	bool started;
	int pidfd;			/* the command, for its SIGTERM */
	int stop_fd;			/* an eventfd: the command ended */
	atomic_bool timed_out;		/* --timeout sent SIGTERM */
	char line[64];			/* a command being read from CTL */
	unsigned len;
};

/*
 * Start the thread for the command @pid (a child not yet reaped), the
 * moment it starts. 0 (also when nothing was asked), or -errno.
 */
int command_control_start(struct command_control *k, pid_t pid);

/* The command ended: stop the thread. Whether --timeout ended it. */
bool command_control_stop(struct command_control *k);

/*
 * One byte read from CTL: the command it completes, if any, done (exposed
 * for the unit test of the protocol). Returns 1 for a known command, 0
 * while a line is incomplete, -1 for an unknown one (ignored).
 */
int command_control_byte(struct command_control *k, char c);

#endif
