/*
 * emu_state.c - the state file (see emu_state.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "emu_state.h"

/* openat(2) itself: the preload library interposes open() and friends. */
static int
sys_open(const char *path, int flags, mode_t mode)
{
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags | O_CLOEXEC, mode);
}

static int
sys_close(int fd)
{
	return (int)syscall(SYS_close, fd);
}

int
emu_state_write(const char *path, const struct emu_pmu *pmu)
{
	const char *p = (const char *)pmu;
	size_t left = sizeof(*pmu);
	int fd = sys_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int err = 0;

	if (fd < 0)
		return -errno;
	while (left) {
		ssize_t n = syscall(SYS_write, fd, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		p += n;
		left -= (size_t)n;
	}
	if (sys_close(fd) < 0 && !err)
		err = -errno;
	return err;
}

int
emu_state_map(const char *path, struct emu_pmu **out)
{
	struct stat st;
	void *map;
	int fd = sys_open(path, O_RDWR, 0);
	int err;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		sys_close(fd);
		return err;
	}
	if ((size_t)st.st_size != sizeof(struct emu_pmu)) {
		sys_close(fd);
		return -EINVAL;
	}
	map = mmap(NULL, sizeof(struct emu_pmu), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	err = map == MAP_FAILED ? -errno : 0;
	sys_close(fd);
	if (err)
		return err;
	if (!emu_pmu_valid(map)) {
		munmap(map, sizeof(struct emu_pmu));
		return -EINVAL;
	}
	*out = map;
	return 0;
}

void
emu_state_unmap(struct emu_pmu *pmu)
{
	if (pmu)
		munmap(pmu, sizeof(*pmu));
}

int
emu_state_read(const char *path, struct emu_pmu *out)
{
	char *p = (char *)out;
	size_t left = sizeof(*out);
	int fd = sys_open(path, O_RDONLY, 0);
	int err = 0;

	if (fd < 0)
		return -errno;
	while (left) {
		ssize_t n = syscall(SYS_read, fd, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EINVAL;
			break;
		}
		p += n;
		left -= (size_t)n;
	}
	sys_close(fd);
	if (!err && !emu_pmu_valid(out))
		err = -EINVAL;
	return err;
}

void
emu_state_lock(struct emu_pmu *pmu)
{
	unsigned spins = 0;
	struct timespec nap = { 0, 100000 };

	while (__atomic_exchange_n(&pmu->lock, 1, __ATOMIC_ACQUIRE)) {
		/*
		 * Holders only copy a few words, so contention is short. A
		 * holder killed mid-way (SIGKILL from a test timeout) would
		 * leave it set forever: after about 5 s, take it anyway.
		 */
		if (++spins > 50000) {
			__atomic_store_n(&pmu->lock, 1, __ATOMIC_SEQ_CST);
			break;
		}
		if (spins < 100)
			sched_yield();
		else
			nanosleep(&nap, NULL);
	}
}

void
emu_state_unlock(struct emu_pmu *pmu)
{
	__atomic_store_n(&pmu->lock, 0, __ATOMIC_RELEASE);
}
