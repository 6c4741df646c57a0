/*
 * cpulock.h - one pmustat per core: an flock on /run/lock/pmustat-cpuN.lock
 * that holds the holder's pid, so a second pmustat can say who it waits for.
 */
#ifndef PMUSTAT_CPULOCK_H
#define PMUSTAT_CPULOCK_H

#include <stddef.h>

#define CPULOCK_DIR "/run/lock"

/*
 * Lock core @cpu, waiting up to @wait_ms. Returns the lock's fd (>= 0,
 * close-on-exec), or -errno with a message in @err: -EBUSY names the pid
 * that holds the lock.
 */
int
cpulock_acquire(int cpu, unsigned wait_ms, char *err, size_t errlen);

/* The lock file of core @cpu. */
void
cpulock_path(int cpu, char *buf, size_t size);

/* Release a lock from cpulock_acquire(); -1 is ignored. */
void
cpulock_release(int fd);

#endif
