/*
 * perf_sys.c - see perf_sys.h: the real kernel.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hw/perf_sys.h"

static int
linux_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
	   unsigned long flags)
{
	long fd;

	(void)ctx;
	fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
	return fd < 0 ? -errno : (int)fd;
}

static int
linux_read(void *ctx, int fd, struct perf_value *v)
{
	uint64_t buf[3];
	ssize_t n;

	(void)ctx;
	do
		n = read(fd, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(buf))
		return -EIO;
	v->value = buf[0];
	v->enabled = buf[1];
	v->running = buf[2];
	return 0;
}

static int
linux_ioctl(void *ctx, int fd, unsigned long request, unsigned long arg)
{
	(void)ctx;
	return ioctl(fd, request, arg) < 0 ? -errno : 0;
}

static void
linux_close(void *ctx, int fd)
{
	(void)ctx;
	close(fd);
}

static int
linux_pmu_exists(void *ctx, const char *pmu)
{
	char path[128];

	(void)ctx;
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s", pmu);
	return access(path, F_OK) == 0;
}

static const struct perf_ops linux_ops = {
	.open = linux_open,
	.read = linux_read,
	.ioctl = linux_ioctl,
	.close = linux_close,
	.pmu_exists = linux_pmu_exists,
};

static const struct perf_seam linux_seam = { &linux_ops, NULL };

const struct perf_seam *
perf_sys_linux(void)
{
	return &linux_seam;
}
