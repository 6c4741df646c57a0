/*
 * cpulock.h - one pmustat per core: an flock() on /run/pmustat/lock/cpuN
 * (run_dir.h), a root-owned 0600 regular file in a root-owned directory
 * that nobody else may write, so no other user can take, plant or replace
 * it. Who holds it is read from the kernel (/proc/locks), never from the
 * file: a busy core names the process that really holds the lock, and says
 * so when that process does not run as root (so it is not a pmustat run).
 */
#ifndef PMUSTAT_CPULOCK_H
#define PMUSTAT_CPULOCK_H

#include <stddef.h>
#include <sys/types.h>

#include "hw/run_dir.h"
#include "base/err.h"

struct pmustat_error;

#define CPULOCK_DIR PMUSTAT_RUN_DIR "/lock"

/*
 * Lock core @cpu, waiting up to @wait_ms. Returns the lock's fd (>= 0,
 * close-on-exec), or -errno with a message in @err: -EBUSY names the
 * holder.
 */
int
cpulock_acquire(int cpu, unsigned wait_ms, struct pmustat_error **err);

/* The lock file of core @cpu. */
void
cpulock_path(int cpu, char *buf, size_t size);

/*
 * The pid holding core @cpu's lock, from /proc/locks (nothing is opened
 * for writing or locked); 0 when nobody holds it or it cannot be told
 * (no lock file, /proc/locks unreadable, a holder in another PID
 * namespace).
 */
pid_t
cpulock_holder(int cpu);

/* Release a lock from cpulock_acquire(); -1 is ignored. */
void
cpulock_release(int fd);

#endif
