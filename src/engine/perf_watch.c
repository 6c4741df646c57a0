/*
 * perf_watch.c - see perf_watch.h.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/text.h"
#include "engine/perf_watch.h"
#include "hw/proc.h"

int
perf_watch_threads(pid_t pid, pid_t **out)
{
	char path[64];
	struct dirent *d;
	pid_t *tids = NULL;
	unsigned n = 0, cap = 0;
	DIR *dir;

	*out = NULL;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir)) != NULL) {
		char *end;
		long v = strtol(d->d_name, &end, 10);

		if (d->d_name[0] < '0' || d->d_name[0] > '9' || *end || v <= 0)
			continue;
		if (n == cap) {
			pid_t *more = realloc(tids, (cap ? cap * 2 : 16) * sizeof(*tids));

			if (!more) {
				free(tids);
				closedir(dir);
				return -ENOMEM;
			}
			tids = more;
			cap = cap ? cap * 2 : 16;
		}
		tids[n++] = (pid_t)v;
	}
	closedir(dir);
	if (n == 0) {
		free(tids);
		return -ESRCH;
	}
	*out = tids;
	return (int)n;
}

void
perf_watch_enable(const struct perf_seam *p, struct perf_watch *w, bool on)
{
	for (size_t i = 0; w->pc && i < (size_t)w->ntargets * w->npc; i++)
		if (w->pc[i].fd >= 0)
			(void)p->ops->ioctl(p->ctx, w->pc[i].fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

void
perf_watch_close(const struct perf_seam *p, struct perf_watch *w)
{
	for (unsigned t = 0; w->pc && t < w->ntargets; t++)
		perf_close_counters(p, &w->pc[(size_t)t * w->npc], w->npc);
	free(w->pc);
	free(w->tids);
	free(w->comm);
	memset(w, 0, sizeof(*w));
}

/*
 * The threads of every process of @pids, one after another, into new
 * arrays: *@tids and the index in @pids each comes from (*@of). How many,
 * or -errno with @err naming the process.
 */
static int
threads_of(const pid_t *pids, unsigned npids, pid_t **tids, unsigned **of, struct pmustat_error **err)
{
	pid_t *all = NULL;
	unsigned *from = NULL, total = 0;
	int rc = 0;

	for (unsigned i = 0; i < npids && rc == 0; i++) {
		pid_t *one = NULL, *grown_all;
		unsigned *grown_from;
		int n = perf_watch_threads(pids[i], &one);

		if (n <= 0 || !one) {
			n = n < 0 ? n : -ESRCH;
			rc = err_set(err, n, "-p %d: %s", (int)pids[i],
				     n == -ENOENT || n == -ESRCH ? "no such process" : strerror(-n));
			free(one);
			break;
		}
		grown_all = realloc(all, (total + (unsigned)n) * sizeof(*all));
		if (grown_all)
			all = grown_all;
		grown_from = realloc(from, (total + (unsigned)n) * sizeof(*from));
		if (grown_from)
			from = grown_from;
		if (!grown_all || !grown_from) {
			rc = err_set(err, -ENOMEM, "out of memory");
			free(one);
			break;
		}
		for (int t = 0; t < n; t++) {
			all[total] = one[t];
			from[total++] = i;
		}
		free(one);
	}
	if (rc || total == 0) {
		free(all);
		free(from);
		*tids = NULL;
		*of = NULL;
		return rc ? rc : err_set(err, -ESRCH, "-p: no process given");
	}
	*tids = all;
	*of = from;
	return (int)total;
}

/* Does process @pid run as a user other than ours (its effective uid, in *@owner)? */
static bool
another_users(pid_t pid, unsigned *owner)
{
	return proc_uid(pid, owner) && *owner != (unsigned)getuid();
}

/* Thread @tid's name (/proc's comm, each control character '?'), or "?" when it is gone. */
static void
thread_name(pid_t tid, char *buf, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(buf, size, "?");
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, (int)size, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	/* The program names its threads (PR_SET_NAME): text from outside, printed in the per-thread lines. */
	text_clean(buf, false);
}

/* -t: the threads as given, each its own "process" for the messages. */
static int
given_threads(const pid_t *given, unsigned n, pid_t **tids, unsigned **of, struct pmustat_error **err)
{
	*tids = calloc(n ? n : 1, sizeof(**tids));
	*of = calloc(n ? n : 1, sizeof(**of));
	if (!*tids || !*of) {
		free(*tids);
		free(*of);
		*tids = NULL;
		*of = NULL;
		return err_set(err, -ENOMEM, "out of memory");
	}
	for (unsigned i = 0; i < n; i++) {
		(*tids)[i] = given[i];
		(*of)[i] = i;
	}
	return (int)n;
}

int
perf_watch_open(const struct perf_seam *p, const struct perf_env *env, const struct pmu_caps *caps,
		const struct perf_counter *tmpl, unsigned npc, const struct perf_watch_targets *tg,
		struct perf_watch *w, struct pmustat_error **err)
{
	pid_t *tids = NULL;
	unsigned *of = NULL;
	const pid_t *named = tg->npids ? tg->pids : tg->tids;
	const char *opt = tg->npids ? "-p" : "-t";
	int n = (int)tg->ncpus, rc = 0;
	unsigned owner;

	memset(w, 0, sizeof(*w));
	if (tg->npids || tg->ntids) {
		n = tg->npids ? threads_of(tg->pids, tg->npids, &tids, &of, err) :
				given_threads(tg->tids, tg->ntids, &tids, &of, err);
		if (n < 0)
			return n;
	}
	w->pc = calloc((size_t)(n ? n : 1) * (npc ? npc : 1), sizeof(*w->pc));
	if (!w->pc) {
		free(tids);
		free(of);
		return err_set(err, -ENOMEM, "out of memory");
	}
	w->npc = npc;
	if (tids) {
		w->tids = calloc((size_t)(n ? n : 1), sizeof(*w->tids));
		w->comm = calloc((size_t)(n ? n : 1), sizeof(*w->comm));
		if (!w->tids || !w->comm) {
			free(tids);
			free(of);
			perf_watch_close(p, w);
			return err_set(err, -ENOMEM, "out of memory");
		}
	}
	for (int t = 0; t < n && rc == 0; t++) {
		struct perf_counter *pc = &w->pc[(size_t)t * npc];
		/* A thread of a process (tids, of), or a CPU. */
		bool thread = tids && of;
		/* The first thread listed of its process (or a -t thread): if it is gone, so is what was named. */
		bool first = thread && (t == 0 || of[t - 1] != of[t] || tg->ntids);

		for (unsigned k = 0; k < npc; k++)
			pc[k].ev = tmpl[k].ev;
		if (thread)
			thread_name(tids[t], w->comm[t], sizeof(w->comm[t]));
		if (thread)
			w->tids[t] = tids[t];
		if (!thread && tg->cgroup_fd >= 0)
			rc = perf_open_counters_cgroup(p, env, caps, pc, npc, tg->cgroup_fd, tg->cpus[t], err);
		else
			rc = perf_open_counters_on(p, env, caps, pc, npc, thread ? tids[t] : -1,
						   thread ? -1 : tg->cpus[t], true, err);
		w->ntargets = (unsigned)t + 1;
		if (rc == -ESRCH && thread && !first) {
			/* A thread that ended between the listing and the open: nothing of it to count. */
			err_clear(err);
			rc = 0;
			continue;
		}
		if (rc == -ESRCH && thread) {
			err_clear(err);
			err_set(err, rc, "%s %d: the %s ended before counting started", opt, (int)named[of[t]],
				tg->npids ? "process" : "thread");
		} else if ((rc == -EACCES || rc == -EPERM) && thread && !env->privileged &&
			   another_users(named[of[t]], &owner)) {
			err_clear(err);
			err_set(err, rc, "%s %d: perf_event_open refused (%s): the %s belongs to another user (uid %u), and the kernel lets a user count only a process they may trace (its ptrace access check, PTRACE_MODE_READ: the same user, or CAP_SYS_PTRACE; or CAP_PERFMON); count it as its owner, or run pmustat as root",
				opt, (int)named[of[t]], strerror(-rc), tg->npids ? "process" : "thread", owner);
		} else if (rc && thread && tg->npids)
			err_wrap(err, "-p %d, thread %d", (int)named[of[t]], (int)tids[t]);
		else if (rc && thread)
			err_wrap(err, "-t %d", (int)tids[t]);
		else if (rc)
			err_wrap(err, "CPU %d", tg->cpus[t]);
		/* The fix for a whole CPU is not the fix for one's own task. */
		if ((rc == -EACCES || rc == -EPERM) && !thread && !env->privileged)
			err_append(err, "; counting everything that runs on a CPU (-C, -a, and the software events beside the MSR backend) needs root (CAP_PERFMON) or kernel.perf_event_paranoid <= 0 ('sysctl kernel.perf_event_paranoid=0' as root); without -C and -a the perf backend counts the command's own");
	}
	free(tids);
	free(of);
	if (rc)
		perf_watch_close(p, w);
	/* Counting starts here, for every target alike (or when the caller says: -D). */
	else if (!tg->disabled)
		perf_watch_enable(p, w, true);
	return rc;
}

/* Sum every copy's reading into @out[k]; @stop: disable each copy first. */
static int
watch_read(const struct perf_seam *p, struct perf_watch *w, struct perf_counter *out, bool stop,
	   struct pmustat_error **err)
{
	int first = 0;

	if (stop)
		perf_watch_enable(p, w, false);
	for (unsigned k = 0; k < w->npc; k++) {
		out[k].open_err = 0;
		out[k].read_ok = false;
		out[k].user_only = false;
		memset(&out[k].v, 0, sizeof(out[k].v));
	}
	for (unsigned t = 0; t < w->ntargets; t++) {
		struct perf_counter *pc = &w->pc[(size_t)t * w->npc];

		if (perf_read_counters(p, pc, w->npc, err) && !first)
			first = -EIO;
		else if (first)
			err_clear(err);
		for (unsigned k = 0; k < w->npc; k++) {
			if (pc[k].open_err)
				out[k].open_err = pc[k].open_err;
			out[k].user_only |= pc[k].user_only;
			if (!pc[k].read_ok)
				continue;
			out[k].read_ok = true;
			out[k].v.value += pc[k].v.value;
			out[k].v.enabled += pc[k].v.enabled;
			out[k].v.running += pc[k].v.running;
		}
	}
	return first;
}

int
perf_watch_read(const struct perf_seam *p, struct perf_watch *w, struct perf_counter *out,
		struct pmustat_error **err)
{
	return watch_read(p, w, out, true, err);
}

int
perf_watch_peek(const struct perf_seam *p, struct perf_watch *w, struct perf_counter *out,
		struct pmustat_error **err)
{
	return watch_read(p, w, out, false, err);
}
