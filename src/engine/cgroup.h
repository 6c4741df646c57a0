/*
 * cgroup.h - perf stat's -G NAME: the cgroup whose tasks the counters on
 * each CPU count, named as perf names it, relative to the root of the
 * cgroup hierarchy that has the perf_event controller (cgroup v1), or of
 * the cgroup v2 hierarchy (where every cgroup has it).
 */
#ifndef PMUSTAT_CGROUP_H
#define PMUSTAT_CGROUP_H

struct pmustat_error;

/*
 * The directory of cgroup @name, open (O_DIRECTORY, close-on-exec), for
 * perf_event_open's PERF_FLAG_PID_CGROUP; @mounts is /proc/self/mounts
 * (a test's file in tests). The fd, or -errno with @err naming the cgroup
 * and the hierarchy looked in.
 */
int cgroup_open(const char *name, const char *mounts, struct pmustat_error **err);

#endif
