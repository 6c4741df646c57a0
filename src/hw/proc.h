/*
 * proc.h - what /proc says about another process: its state and start
 * time (is the run that wrote a journal still alive?), its effective uid
 * (is a lock's holder root?), its command line (who holds a core?), a
 * pidfd of it (when did it end?). Reads only; a process that is gone or
 * unreadable gives nothing, never a guess.
 */
#ifndef PMUSTAT_PROC_H
#define PMUSTAT_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Fields 3 (state) and 22 (start time, clock ticks after boot) of
 * /proc/@pid/stat. 0, or -errno (-ESRCH: no such process); *@start is 0
 * and *@state '?' on failure.
 */
int
proc_stat(pid_t pid, char *state, unsigned long long *start);

/* The effective uid from /proc/@pid/status; false when unreadable. */
bool
proc_uid(pid_t pid, unsigned *uid);

/*
 * /proc/@pid/cmdline, arguments joined by spaces, control characters shown
 * as '?', into @buf ("" if unreadable).
 */
void
proc_command(pid_t pid, char *buf, size_t size);

/*
 * A pidfd of @pid (pidfd_open(2), close-on-exec): readable once it has
 * ended (a zombie counts), and a signal through it reaches that process
 * only. The fd, or -errno.
 */
int
proc_pidfd(pid_t pid);

#endif
