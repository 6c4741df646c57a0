/*
 * perf_watch.h - perf_event counters on what runs already: every thread
 * of existing processes (-p PID[,PID...]), or whole CPUs (counting without a
 * command under the perf backend). Each event is opened once per thread
 * or CPU, enabled at once, and read as one sum; each copy's own count
 * stays in pc[] until the watch is closed (a CPU's line under -A).
 *
 * A process's threads are those in /proc/PID/task when counting starts;
 * the counters are inherited, so the threads and children they start
 * afterwards are counted too (the kernel folds them in).
 */
#ifndef PMUSTAT_PERF_WATCH_H
#define PMUSTAT_PERF_WATCH_H

#include <stdbool.h>
#include <sys/types.h>

#include "engine/perf_counters.h"

struct perf_watch {
	struct perf_counter *pc;	/* ntargets x npc, target-major */
	unsigned ntargets, npc;
	/* Thread targets (-p, -t): each one's id and name (/proc's comm), for --per-thread. */
	pid_t *tids;
	char (*comm)[16];
};

/* What a watch counts: every thread of processes (-p), given threads (-t), or CPUs. */
struct perf_watch_targets {
	const pid_t *pids;		/* -p: each process's threads in /proc/PID/task */
	unsigned npids;
	const pid_t *tids;		/* -t: these threads (with npids 0) */
	unsigned ntids;
	const int *cpus;		/* else: each of these CPUs, every task on it */
	unsigned ncpus;
	bool disabled;			/* leave them disabled: perf_watch_enable() starts them (-D) */
	int cgroup_fd;			/* on CPUs: only the tasks of this cgroup (-G), its directory; -1: all */
};

/*
 * Open and enable (unless @tg->disabled) @npc counters like @tmpl (their
 * .ev) on every target of @tg. 0, or -errno with the cause in @err,
 * naming the process, thread or CPU (nothing left open). A hardware event
 * the kernel cannot count has open_err set in every target's copy, as
 * perf_open_counters().
 */
int
perf_watch_open(const struct perf_seam *p, const struct perf_env *env, const struct pmu_caps *caps,
		const struct perf_counter *tmpl, unsigned npc, const struct perf_watch_targets *tg,
		struct perf_watch *w, struct pmustat_error **err);

/* Start (@on) or stop every copy counting (PERF_EVENT_IOC_ENABLE, _DISABLE). */
void
perf_watch_enable(const struct perf_seam *p, struct perf_watch *w, bool on);

/*
 * Stop and read every copy; each event's sum (value and times) into
 * @out[k].v, with its read_ok, open_err and user_only. 0, or -errno with
 * a message (what could be read is summed anyway).
 */
int
perf_watch_read(const struct perf_seam *p, struct perf_watch *w, struct perf_counter *out,
		struct pmustat_error **err);

void
perf_watch_close(const struct perf_seam *p, struct perf_watch *w);

/* The thread ids of @pid, from /proc/@pid/task, into a new array (*@out): how many, or -errno. */
int
perf_watch_threads(pid_t pid, pid_t **out);

#endif
