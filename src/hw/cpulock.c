/*
 * cpulock.c - the per-core lock. flock() rather than a pid file: the kernel
 * drops it when pmustat dies however it dies (a zombie holds none), so a
 * crash never leaves a core locked, and the kernel says who holds it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "hw/cpulock.h"
#include "hw/proc.h"

void
cpulock_path(int cpu, char *buf, size_t size)
{
	snprintf(buf, size, "%s/cpu%d", CPULOCK_DIR, cpu);
}

/* The pid holding an flock on the file @st describes, from /proc/locks; 0 if none is seen. */
static pid_t
flock_holder(const struct stat *st)
{
	char line[256];
	pid_t pid = 0;
	FILE *f;

	f = fopen("/proc/locks", "re");
	if (!f)
		return 0;
	/* "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" */
	while (fgets(line, sizeof(line), f)) {
		char *tok[6], *save = NULL, *end;
		unsigned long maj, min;
		unsigned long long ino;
		long p;
		int n = 0;

		for (char *t = strtok_r(line, " \t\n", &save); t && n < 6; t = strtok_r(NULL, " \t\n", &save))
			tok[n++] = t;
		/* Waiters' lines ("1: -> FLOCK ...") have another shape and are skipped. */
		if (n < 6 || strcmp(tok[1], "FLOCK") != 0)
			continue;
		errno = 0;
		p = strtol(tok[4], &end, 10);
		if (errno || *end || p <= 0)
			continue;
		maj = strtoul(tok[5], &end, 16);
		if (*end != ':')
			continue;
		min = strtoul(end + 1, &end, 16);
		if (*end != ':')
			continue;
		ino = strtoull(end + 1, &end, 10);
		if (errno || *end)
			continue;
		if (ino == (unsigned long long)st->st_ino && maj == major(st->st_dev) && min == minor(st->st_dev)) {
			pid = (pid_t)p;
			break;
		}
	}
	fclose(f);
	return pid;
}

pid_t
cpulock_holder(int cpu)
{
	char path[128];
	struct stat st;

	cpulock_path(cpu, path, sizeof(path));
	if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	return flock_holder(&st);
}

/* Why core @cpu is busy: who holds the lock that @fd is open on. */
static void
describe_holder(int cpu, int fd, const char *path, struct pmustat_error **err)
{
	char cmd[160];
	struct stat st;
	unsigned uid;
	pid_t pid = 0;

	if (fstat(fd, &st) == 0)
		pid = flock_holder(&st);
	if (pid <= 0) {
		err_set(err, -EBUSY, "core %d is locked (%s) by a process pmustat cannot see (another PID namespace?); wait for it to finish or pick another core with -C",
			 cpu, path);
		return;
	}
	proc_command(pid, cmd, sizeof(cmd));
	if (proc_uid(pid, &uid) && uid != 0) {
		err_set(err, -EBUSY, "core %d's lock %s is held by pid %ld (%s), which runs as uid %u, not root: that is not a pmustat run; stop it, or pick another core with -C",
			 cpu, path, (long)pid, cmd[0] ? cmd : "?", uid);
		return;
	}
	err_set(err, -EBUSY, "core %d is in use by another pmustat (pid %ld: %s; lock %s); wait for it to finish or pick another core with -C",
		 cpu, (long)pid, cmd[0] ? cmd : "?", path);
}

int
cpulock_acquire(int cpu, unsigned wait_ms, struct pmustat_error **err)
{
	const struct timespec step = { 0, 20L * 1000 * 1000 };
	char path[128], name[32];
	unsigned waited = 0;
	struct stat st;
	int run_fd, dir_fd, fd, rc;

	cpulock_path(cpu, path, sizeof(path));
	run_fd = run_dir_open(AT_FDCWD, PMUSTAT_RUN_DIR, 0700, true, PMUSTAT_RUN_DIR, err);
	if (run_fd < 0)
		return run_fd;
	dir_fd = run_dir_open(run_fd, "lock", 0755, true, CPULOCK_DIR, err);
	close(run_fd);
	if (dir_fd < 0)
		return dir_fd;
	snprintf(name, sizeof(name), "cpu%d", cpu);
	fd = openat(dir_fd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);
	close(dir_fd);
	if (fd < 0) {
		rc = -errno;
		return err_set(err, rc, "cannot open the lock file %s for core %d: %s%s", path, cpu, strerror(-rc),
			 rc == -ELOOP ? " (a symbolic link; remove it)" : "; run pmustat as root");
	}
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		close(fd);
		return err_set(err, rc, "cannot stat the lock file %s: %s", path, strerror(-rc));
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
		close(fd);
		return err_set(err, -EPERM, "the lock file %s of core %d is not a private regular file of pmustat's user (owner uid %u, mode %03o); remove it (a new one is made)",
			       path, cpu, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	}
	for (;;) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			break;
		if (errno != EWOULDBLOCK && errno != EINTR) {
			rc = -errno;
			close(fd);
			return err_set(err, rc, "cannot lock %s: %s", path, strerror(-rc));
		}
		if (waited >= wait_ms) {
			describe_holder(cpu, fd, path, err);
			close(fd);
			return -EBUSY;
		}
		nanosleep(&step, NULL);
		waited += 20;
	}
	return fd;
}

void
cpulock_release(int fd)
{
	if (fd < 0)
		return;
	/* close() releases it anyway; the explicit unlock only comes first. */
	(void)flock(fd, LOCK_UN);
	close(fd);
}
