/*
 * cpulock.c - the per-core lock. flock() rather than a pid file alone: the
 * kernel drops it when pmustat dies however it dies, so a crash never
 * leaves a core locked.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "cpulock.h"

void
cpulock_path(int cpu, char *buf, size_t size)
{
	snprintf(buf, size, "%s/pmustat-cpu%d.lock", CPULOCK_DIR, cpu);
}

int
cpulock_acquire(int cpu, unsigned wait_ms, char *err, size_t errlen)
{
	const struct timespec step = { 0, 20L * 1000 * 1000 };
	char path[128], pid[32];
	unsigned waited = 0;
	int fd, rc;
	ssize_t n;

	cpulock_path(cpu, path, sizeof(path));
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 && errno == EACCES)
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot open the lock file %s for core %d: %s; run pmustat as root",
			 path, cpu, strerror(errno));
		return rc;
	}
	for (;;) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			break;
		if (errno != EWOULDBLOCK && errno != EINTR) {
			rc = -errno;
			snprintf(err, errlen, "cannot lock %s: %s", path, strerror(errno));
			close(fd);
			return rc;
		}
		if (waited >= wait_ms) {
			n = pread(fd, pid, sizeof(pid) - 1, 0);
			pid[n > 0 ? n : 0] = '\0';
			pid[strcspn(pid, "\n")] = '\0';
			snprintf(err, errlen,
				 "core %d is in use by another pmustat (pid %s, lock %s); wait for it to finish or pick another core with -C",
				 cpu, pid[0] ? pid : "unknown", path);
			close(fd);
			return -EBUSY;
		}
		nanosleep(&step, NULL);
		waited += 20;
	}
	/* For the next pmustat's message; a read-only fd just cannot say. */
	if (ftruncate(fd, 0) == 0) {
		int len = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());

		if (pwrite(fd, pid, (size_t)len, 0) != len) {
			/* Only the message of a waiting pmustat suffers. */
		}
	}
	return fd;
}

void
cpulock_release(int fd)
{
	if (fd < 0)
		return;
	/* Empty the pid first: a stale pid would mislead the next message. */
	if (ftruncate(fd, 0) != 0) {
		/* Read-only lock file: nothing to clear. */
	}
	/* close() releases it anyway; the explicit unlock only comes first. */
	(void)flock(fd, LOCK_UN);
	close(fd);
}
