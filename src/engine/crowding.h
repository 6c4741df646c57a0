/*
 * crowding.h - whether a command kept on the counted cores (the MSR
 * backend's design: it counts cores) ran more threads at once than those
 * cores: its threads then queued there, and it ran slower than the user
 * expects. A thread off the counted cores looks at the command's process
 * tree (/proc) every CROWDING_PERIOD_MS while it runs and keeps the most
 * tasks seen runnable at once, over CROWDING_MIN_SAMPLES looks at least
 * (a shell and the child it just forked are both runnable for a moment:
 * no queue worth a note); the run loop says so in one line, with the fix.
 */
#ifndef PMUSTAT_CROWDING_H
#define PMUSTAT_CROWDING_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>

#define CROWDING_PERIOD_MS 20
#define CROWDING_MIN_SAMPLES 3

struct crowding {
	pthread_t thread;
	bool started;
	pid_t pid;
	unsigned ncores;	/* the cores it is kept on */
	atomic_bool stop;
	unsigned most;		/* the most runnable tasks of the tree seen at once */
	unsigned crowded;	/* looks that saw more runnable than @ncores */
};

/*
 * Start watching @pid's tree (its threads, its children's), kept on
 * @ncores cores. 0, or -errno (then nothing watches).
 */
int crowding_start(struct crowding *w, pid_t pid, unsigned ncores);

/*
 * Stop watching: the most runnable tasks seen at once when more than the
 * cores were in CROWDING_MIN_SAMPLES looks or more; else 0.
 */
unsigned crowding_stop(struct crowding *w);

/*
 * The runnable tasks (state R) of @pid's tree now: every thread of @pid and
 * of its descendants, from /proc. 0 when it is gone.
 */
unsigned crowding_runnable(pid_t pid);

#endif
