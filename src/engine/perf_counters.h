/*
 * perf_counters.h - count through perf_event_open(2): the
 * kernel's own counters for machines where /dev/cpu/N/msr is out of reach
 * (no root, lockdown, msr.allow_writes=off, a VM with a vPMU but no MSRs),
 * and the software events (task-clock, page-faults, ...) for either
 * backend.
 *
 * Each resolved event is opened on the corked child's pid, disabled, with
 * enable_on_exec and inherit: the kernel starts counting exactly at execve
 * and follows every thread and child. Hardware events are PERF_TYPE_RAW
 * with the EVTSEL encoding pmustat would write (offcore events carry the
 * response value in config1), one group per run; software events are
 * PERF_TYPE_SOFTWARE, each on its own. Values are read with
 * TOTAL_TIME_ENABLED|RUNNING and never scaled: a multiplexed event says so
 * in its status.
 *
 * perf_event_open is a syscall, not a hw.h operation: it has its own seam,
 * struct perf_seam (hw/perf_sys.h), so that the logic here runs against a
 * test double.
 */
#ifndef PMUSTAT_PERF_COUNTERS_H
#define PMUSTAT_PERF_COUNTERS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hw/perf_sys.h"

struct pmustat_error;

struct event;
struct hw;
struct pmu_caps;

#define PERF_PARANOID_UNKNOWN (-100)

/* What decides whether the kernel lets us count, for the messages. */
struct perf_env {
	int paranoid;		/* kernel.perf_event_paranoid, or PERF_PARANOID_UNKNOWN */
	bool privileged;	/* euid 0: paranoid does not apply (CAP_PERFMON / CAP_SYS_ADMIN) */
	int cpu_pmu;		/* 1: the kernel has a core PMU driver (devices/cpu*), 0: none */
};

/* Fill @env from /proc/sys/kernel/perf_event_paranoid (through @hw) and sysfs. */
void
perf_env_probe(const struct perf_seam *p, struct hw *hw, struct perf_env *env);

/* One event being counted. */
struct perf_counter {
	const struct event *ev;
	int fd;			/* -1 when not open */
	int open_err;		/* -errno: a hardware event the kernel cannot count here */
	bool user_only;		/* kernel mode refused by perf_event_paranoid: counted :u */
	bool read_ok;
	struct perf_value v;
};

/*
 * The perf_event_attr for @ev, counting (no sampling), disabled,
 * enable_on_exec, inherit, TOTAL_TIME_ENABLED|RUNNING. Hardware events
 * need @caps (their EVTSEL bits are checked as for the MSR backend).
 * 0, or -EINVAL with a message.
 */
int
perf_attr(const struct event *ev, const struct pmu_caps *caps, struct perf_event_attr *attr,
	  struct pmustat_error **err);

/*
 * Open @n counters (c[i].ev set) on @pid, pinned nowhere (they follow the
 * task). Hardware events form one group, the first its leader; software
 * events stand alone. A software event the kernel refuses in kernel mode
 * (perf_event_paranoid >= 2 for non-root) is counted in user mode and
 * marked user_only. A hardware event the kernel cannot count here (no
 * vPMU, unknown config: ENOENT, EOPNOTSUPP, ENODEV, EINVAL, or EACCES that
 * perf_event_paranoid does not explain) is left closed with open_err set
 * ("not supported"; perf_open_error() says why) and the others go on.
 * 0, or -errno with the cause and the fix in @err (every counter closed
 * again) for errors that stop the run: permissions, files, the task.
 */
int
perf_open_counters(const struct perf_seam *p, const struct perf_env *env,
		   const struct pmu_caps *caps, struct perf_counter *c, unsigned n, pid_t pid,
		   struct pmustat_error **err);

/*
 * The same, counting @pid only while it runs on @cpu (-1: anywhere): -A
 * opens the set once per listed CPU. The kernel allows a task's counter
 * on one CPU whenever it allows the task's counter (perf_event_paranoid's
 * "<= 0 or CAP_PERFMON" is for counting everything on a CPU, pid -1).
 */
int
perf_open_counters_on_cpu(const struct perf_seam *p, const struct perf_env *env,
			  const struct pmu_caps *caps, struct perf_counter *c, unsigned n, pid_t pid,
			  int cpu, struct pmustat_error **err);

/*
 * The same on @pid (-1: any task) and @cpu (-1: any CPU). @running: the
 * task exists already or a CPU is counted (no execve to start at): the
 * counters open without enable_on_exec, and without inherit on a CPU;
 * the caller enables them (PERF_EVENT_IOC_ENABLE).
 */
int
perf_open_counters_on(const struct perf_seam *p, const struct perf_env *env,
		      const struct pmu_caps *caps, struct perf_counter *c, unsigned n, pid_t pid, int cpu,
		      bool running, struct pmustat_error **err);

/*
 * The same on @cpu for the tasks of one cgroup (-G): @cgroup_fd is its
 * directory, open (PERF_FLAG_PID_CGROUP); the caller enables them.
 */
int
perf_open_counters_cgroup(const struct perf_seam *p, const struct perf_env *env, const struct pmu_caps *caps,
			  struct perf_counter *c, unsigned n, int cgroup_fd, int cpu, struct pmustat_error **err);

/* Read every open counter (after the task ended). 0 or -errno with a message. */
int
perf_read_counters(const struct perf_seam *p, struct perf_counter *c, unsigned n,
		   struct pmustat_error **err);

void
perf_close_counters(const struct perf_seam *p, struct perf_counter *c, unsigned n);

/*
 * The status of a read counter: "counted", "multiplexed: running 62.5% of
 * the time" (the raw count, not scaled), "not counted: ..." (never
 * scheduled), each with a user-mode note when user_only. Returns whether
 * the value means anything (it ran at all).
 */
bool
perf_counter_status(const struct perf_counter *c, const struct perf_env *env, char *buf,
		    size_t size);

/*
 * Why perf_event_open refused @ev with @rc (negative errno) and what to
 * do: perf_event_paranoid (its value and what to set), no PMU in a VM, an
 * unknown raw config, too many files, into *@err. Returns @rc.
 */
int
perf_open_error(int rc, const struct event *ev, const struct perf_event_attr *attr,
		const struct perf_env *env, struct pmustat_error **err);

#endif
