/*
 * perf_sys.h - the perf_event syscalls as a seam, like hw.h for the MSRs:
 * the logic of engine/perf_counters.c runs against perf_sys_linux() in
 * pmustat and against a test double in its tests.
 */
#ifndef PMUSTAT_PERF_SYS_H
#define PMUSTAT_PERF_SYS_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/types.h>

/* One read(2) of a counter: the count and its two times, in ns. */
struct perf_value {
	uint64_t value;
	uint64_t enabled;
	uint64_t running;
};

/* The seam. Every operation returns what it says or a negative errno. */
struct perf_ops {
	/* perf_event_open(2): a file descriptor. */
	int (*open)(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		    unsigned long flags);
	/* Read a counter opened with TOTAL_TIME_ENABLED|RUNNING: 0. */
	int (*read)(void *ctx, int fd, struct perf_value *v);
	/* ioctl(2) on a perf fd (PERF_EVENT_IOC_*): 0. */
	int (*ioctl)(void *ctx, int fd, unsigned long request, unsigned long arg);
	void (*close)(void *ctx, int fd);
	/* Whether /sys/bus/event_source/devices/@pmu exists: 1 or 0. */
	int (*pmu_exists)(void *ctx, const char *pmu);
};

struct perf_seam {
	const struct perf_ops *ops;
	void *ctx;
};

/* The real kernel: perf_event_open(2), read(2), ioctl(2), close(2), sysfs. */
const struct perf_seam *
perf_sys_linux(void);

#endif
