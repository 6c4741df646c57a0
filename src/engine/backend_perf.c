/*
 * backend_perf.c - the perf backend: the kernel counts through
 * perf_event_open(2) (engine/perf_counters.h, over the hw/perf_sys.h
 * seam). As the hardware backend it counts the hardware events in the
 * plan's runs (as many per run as this PMU has counters, one group per
 * run) and the software events in the first run; beside the MSR backend
 * only the software events. The counters are opened on the corked child,
 * so counting starts at its execve. No MSR, no core lock, nothing to
 * restore.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/cpulist.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "engine/cgroup.h"
#include "engine/perf_counters.h"
#include "engine/perf_watch.h"
#include "pmu/family.h"
#include "pmu/plan.h"
#include "engine/requests.h"
#include "engine/run.h"
#include "engine/stat.h"
#include "engine/target.h"
#include "engine/ticker.h"
#include "events/sw_events.h"

struct perf_state {
	bool with_hw;				/* the hardware events too */
	struct perf_env env;
	/*
	 * -A: one set of counters per listed CPU, each counting the command
	 * only while it runs there (set g on CPU cpus[g]); else one set
	 * counting it anywhere (cpu -1).
	 */
	struct perf_counter *pc;		/* pc[g * SCHED_MAX_EVENTS + k] */
	unsigned nsets;
	const int *cpus;
	unsigned pc_event[SCHED_MAX_EVENTS];	/* the counted event of each pc[] */
	unsigned npc;				/* per set */
	/*
	 * Without a command, or counting the cores while it runs
	 * (run_counts_cores()): the copies on each thread or CPU.
	 */
	struct perf_watch watch;
	bool cpu_wide;				/* a command's counts are the counted CPUs' (pid -1) */
	bool tasks;				/* -p, -t: those tasks' counts, a command or not */
	bool start_disabled;			/* -D: opened disabled, enabled by pmustat (set_enabled) */
	int cgroup_fd;				/* -G: its directory; -1 */
	bool sw_blocked;			/* the default set's software events could not be opened */
	/*
	 * -I: a ticker reads the open counters (they keep counting) every
	 * interval; each event's delta since the last, summed and per CPU
	 * (-A: per set, or per watched CPU), goes to c->emit_interval; the
	 * last interval is the final count less what was reported.
	 */
	struct ticker ticker;
	struct run_ctx *c;
	unsigned sampled;			/* the run's counters (npc when sampling started) */
	uint64_t reported[SCHED_MAX_EVENTS];	/* per counted event u */
	uint64_t deltas[SCHED_MAX_EVENTS];
	uint64_t *core_reported, *core_deltas;	/* ncores x SCHED_MAX_EVENTS */
};

/* Whether these are perf's default set's software events alone (no -e, no -M). */
static bool
default_software_only(const struct run_ctx *c, const struct perf_state *s)
{
	if (c->o->nspecs || c->o->nmetric_specs)
		return false;
	for (unsigned k = 0; k < s->npc; k++)
		if (!event_is_software(s->pc[k].ev))
			return false;
	return true;
}

/*
 * perf_event_open refused (a seccomp filter, a security module, a kernel
 * without it): the default set still counts what the MSR backend counts
 * and runs the command; its software events say <not supported>, and why
 * on one line (c->sw_unsupported_why). Named ones still fail.
 */
static int
software_blocked(struct run_ctx *c, struct perf_state *s, struct pmustat_error **err)
{
	snprintf(c->sw_unsupported_why, sizeof(c->sw_unsupported_why), "%s", err_msg(*err));
	err_clear(err);
	s->sw_blocked = true;
	s->npc = 0;
	if (c->o->verbose)
		fprintf(stderr, "pmustat: software events not supported: %s\n", c->sw_unsupported_why);
	return 0;
}

static int
index_of(const struct run_ctx *c)
{
	return c->backends[0] == &backend_perf ? 0 : 1;
}

static struct perf_state *
state(struct run_ctx *c)
{
	return c->state[index_of(c)];
}

int
backend_perf_plan(struct run_ctx *c, struct pmustat_error **err)
{
	struct plan_input in;

	/* The kernel's events of such a family are not these encodings: they count through MSRs only. */
	if (c->t->cpu.pmu.family && c->t->cpu.pmu.family->msr_only && c->ev->nhw)
		return err_set(err, -EOPNOTSUPP,
			       "core %d: %s events count only through the MSR backend (--backend msr); the perf backend has no encoding of them",
			       c->core, c->t->cpu.pmu.family->title);
	memset(&in, 0, sizeof(in));
	in.core = c->core;
	in.caps = &c->t->cpu.pmu;
	in.events = c->ev->hw;
	in.nevents = c->ev->nhw;
	if (c->ev->kernel_generic)
		return plan_make_kernel(&in, &c->plan, err);
	in.pinned_run = c->ev->pinned_run;
	in.no_rerun = c->o->no_rerun;
	in.kernel_counts = true;
	/*
	 * --regions: the command's self-read copy of each event of a run
	 * (engine/regions_perf.h) needs a counter too. Half the
	 * general-purpose counters per run, and the fixed-counter events on
	 * their general-purpose twins, leave the kernel room for both.
	 */
	if (c->o->regions) {
		unsigned half = c->t->cpu.pmu.gp_counters / 2, seen = 0;

		for (unsigned i = 0; i < 32; i++)
			if ((c->t->cpu.pmu.gp_mask >> i & 1) && seen++ >= half)
				in.avoid_gp |= 1u << i;
		in.avoid_fixed = c->t->cpu.pmu.fixed_mask;
	}
	return plan_make(&in, &c->plan, err);
}

static int
perf_begin(struct run_ctx *c, struct pmustat_error **err)
{
	struct perf_state *s = calloc(1, sizeof(*s));
	int i = index_of(c);

	if (!s)
		return err_set(err, -ENOMEM, "out of memory");
	c->state[i] = s;
	s->with_hw = i == 0;
	s->cpu_wide = c->o->command && run_counts_cores(c);
	s->tasks = c->o->npids || c->o->ntids;
	s->start_disabled = c->o->command && c->o->delay_ms != 0;
	/*
	 * Without a command, or counting the cores, the watch counts each CPU
	 * or thread itself (perf_collect reads its copies); -A on the command
	 * alone: a set per CPU, each counting it while it runs there.
	 */
	s->nsets = c->o->per_cpu && c->o->command && !s->cpu_wide && !s->tasks ? c->ncores : 1;
	s->cpus = s->nsets > 1 || (c->o->per_cpu && c->o->command && !s->cpu_wide && !s->tasks) ? c->cores : NULL;
	s->pc = calloc((size_t)s->nsets * SCHED_MAX_EVENTS, sizeof(*s->pc));
	if (!s->pc)
		return err_set(err, -ENOMEM, "out of memory");
	perf_env_probe(c->perf, c->hw, &s->env);
	s->cgroup_fd = -1;
	if (c->o->cgroup) {
		int fd = cgroup_open(c->o->cgroup, "/proc/self/mounts", err);

		if (fd < 0)
			return fd;
		s->cgroup_fd = fd;
	}
	if (s->with_hw)
		c->read_method = "perf_event";
	return 0;
}

static void
perf_end(struct run_ctx *c)
{
	int i = index_of(c);
	struct perf_state *s = c->state[i];

	if (s) {
		if (s->cgroup_fd >= 0)
			close(s->cgroup_fd);
		free(s->pc);
		free(s->core_reported);
		free(s->core_deltas);
	}
	free(s);
	c->state[i] = NULL;
}

static int
perf_arm(struct run_ctx *c, unsigned run, struct runner_opts *ro, struct pmustat_error **err)
{
	(void)c;
	(void)run;
	(void)ro;
	(void)err;
	return 0;
}

static void
close_sets(struct run_ctx *c, struct perf_state *s, unsigned nsets)
{
	for (unsigned g = 0; g < nsets; g++)
		perf_close_counters(c->perf, s->pc + (size_t)g * SCHED_MAX_EVENTS, s->npc);
}

/*
 * The set of counters on one CPU (or anywhere: cpu -1). A refusal names
 * the CPU: the others may have opened.
 */
static int
open_set(struct run_ctx *c, struct perf_state *s, unsigned g, pid_t pid, struct pmustat_error **err)
{
	struct perf_counter *pc = s->pc + (size_t)g * SCHED_MAX_EVENTS;
	int cpu = s->cpus ? s->cpus[g] : -1;

	for (unsigned k = 0; k < s->npc; k++)
		pc[k].ev = s->pc[k].ev;
	/* -D: disabled, without enable_on_exec; pmustat enables them later (perf_set_enabled()). */
	if (s->start_disabled)
		return perf_open_counters_on(c->perf, &s->env, &c->t->cpu.pmu, pc, s->npc, pid, cpu, true, err);
	return perf_open_counters_on_cpu(c->perf, &s->env, &c->t->cpu.pmu, pc, s->npc, pid, cpu, err);
}

/*
 * The warning (into *@err) for the refused event @k and every later one
 * refused for the same cause, each marked in @told. Whether it was the
 * last cause: no refused event is left untold.
 */
static bool
refusal_warning(const struct run_ctx *c, const struct perf_state *s, unsigned k, bool *told,
		struct pmustat_error **err)
{
	struct perf_event_attr attr;
	struct strbuf names = STRBUF_INIT;
	bool sw = event_is_software(s->pc[k].ev), last = true;
	unsigned n = 0;

	for (unsigned j = k; j < s->npc; j++) {
		if (!s->pc[j].open_err || told[j] || s->pc[j].open_err != s->pc[k].open_err ||
		    event_is_software(s->pc[j].ev) != sw)
			continue;
		told[j] = true;
		strbuf_printf(&names, "%s'%s'", n++ ? ", " : "", s->pc[j].ev->requested[0] ? s->pc[j].ev->requested :
			      s->pc[j].ev->name);
	}
	(void)perf_attr(s->pc[k].ev, &c->t->cpu.pmu, &attr, NULL);
	perf_open_errors(s->pc[k].open_err, s->pc[k].ev, &attr, &s->env, strbuf_str(&names), n, err);
	strbuf_free(&names);
	for (unsigned j = k + 1; j < s->npc; j++)
		if (s->pc[j].open_err && !told[j])
			last = false;
	return last;
}

/*
 * Open the counters of @run on the corked child @pid: the hardware events
 * of the run (as the hardware backend) and, in the first run, the
 * software events; with -A once per listed CPU. Unsupported hardware
 * events are warned about (once) and left out; none open at all is a
 * failure.
 */
static int
perf_attach(struct run_ctx *c, unsigned run, pid_t pid, struct pmustat_error **err)
{
	bool told[SCHED_MAX_EVENTS] = { false };
	struct perf_state *s = state(c);
	const struct stat_events *ev = c->ev;
	unsigned opened = 0;
	int rc = 0;

	s->npc = 0;
	for (unsigned u = 0; s->with_hw && u < ev->nhw; u++) {
		if (c->plan->slots[u].run != run)
			continue;
		/* A byte of IA32_PERF_METRICS is no perf event: the MSR backend reads it. */
		if (ev->hw[u].flags & EVENT_F_PERF_METRICS) {
			c->counts[u].status = "not counted: IA32_PERF_METRICS is read by the msr backend only";
			continue;
		}
		s->pc[s->npc].ev = &ev->hw[u];
		s->pc_event[s->npc++] = u;
	}
	for (unsigned i = 0; run == 0 && i < ev->nsw; i++) {
		s->pc[s->npc].ev = &ev->sw[i];
		s->pc_event[s->npc++] = ev->nhw + i;
	}
	if (s->npc == 0)
		return 0;
	if (!c->o->command || s->cpu_wide || s->tasks) {
		/*
		 * -p's processes or -t's threads, or the counted CPUs, already
		 * running (with a command, from now until it ends: perf_stop()).
		 */
		struct perf_watch_targets tg = {
			.pids = c->o->pids, .npids = c->o->npids, .tids = c->o->tids, .ntids = c->o->ntids,
			.cpus = c->cores, .ncpus = c->ncores, .disabled = s->start_disabled,
			.cgroup_fd = s->cgroup_fd,
		};

		rc = perf_watch_open(c->perf, &s->env, &c->t->cpu.pmu, s->pc, s->npc, &tg, &s->watch, err);
		for (unsigned k = 0; rc == 0 && k < s->npc; k++) {
			s->pc[k].fd = -1;	/* the copies hold the descriptors */
			s->pc[k].open_err = s->watch.pc[k].open_err;
		}
	} else {
		for (unsigned g = 0; g < s->nsets; g++) {
			rc = open_set(c, s, g, pid, err);
			if (rc) {
				close_sets(c, s, g);
				break;
			}
		}
	}
	if (rc && default_software_only(c, s))
		return software_blocked(c, s, err);
	if (rc) {
		s->npc = 0;
		return rc;
	}
	/*
	 * Each set has the same events: the kernel refuses the same ones on
	 * every CPU. One warning per cause (errno and kind), naming its events;
	 * when none opened, the last cause is the failure.
	 */
	for (unsigned k = 0; k < s->npc; k++)
		opened += !s->pc[k].open_err;
	for (unsigned k = 0; k < s->npc; k++) {
		if (s->pc[k].open_err && !told[k] && refusal_warning(c, s, k, told, err) && opened == 0 &&
		    !ev->kernel_generic)
			break;
		if (*err) {
			fprintf(stderr, "pmustat: warning: %s\n", err_msg(*err));
			err_clear(err);
		}
	}
	/* The kernel's generic events it refused are <not supported>, as with perf stat; the command runs. */
	if (opened == 0 && !ev->kernel_generic) {
		close_sets(c, s, s->nsets);
		perf_watch_close(c->perf, &s->watch);
		s->npc = 0;
		return err_set(err, -ENODEV, "%s%s%s", err_msg(*err), c->backend_why[0] ? "; and the MSR backend: " : "",
			       c->backend_why);
	}
	return 0;
}

/* The command's own counters stopped with it; the copies on CPUs count on until disabled here. */
static int
perf_stop(struct run_ctx *c, unsigned run, struct pmustat_error **err)
{
	struct perf_state *s = state(c);

	(void)run;
	(void)err;
	if (s)
		perf_watch_enable(c->perf, &s->watch, false);
	return 0;
}

/* -D, --control: every open counter on or off, while the command runs (another thread's call). */
static void
perf_set_enabled(struct run_ctx *c, bool on)
{
	struct perf_state *s = state(c);

	if (!s)
		return;
	perf_watch_enable(c->perf, &s->watch, on);
	for (unsigned g = 0; !s->watch.pc && g < s->nsets; g++)
		for (unsigned k = 0; k < s->npc; k++) {
			const struct perf_counter *pc = &s->pc[(size_t)g * SCHED_MAX_EVENTS + k];

			if (pc->fd >= 0)
				(void)c->perf->ops->ioctl(c->perf->ctx, pc->fd,
							  on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
		}
}

/*
 * Counter @k summed over the sets. On one CPU the kernel's enabled time
 * runs while the command runs anywhere, so running < enabled there is the
 * command on another CPU, not multiplexing: a software event (never
 * multiplexed) is stated counted; a hardware event's sets cannot tell,
 * and its status says so.
 */
static struct perf_counter
summed(const struct perf_state *s, unsigned k)
{
	struct perf_counter sum = s->pc[k];

	if (!s->cpus)
		return sum;
	memset(&sum.v, 0, sizeof(sum.v));
	for (unsigned g = 0; g < s->nsets; g++) {
		const struct perf_counter *one = &s->pc[(size_t)g * SCHED_MAX_EVENTS + k];

		sum.read_ok = sum.read_ok && one->read_ok;
		sum.user_only = sum.user_only || one->user_only;
		sum.v.value += one->v.value;
		sum.v.running += one->v.running;
	}
	sum.v.enabled = sum.v.running;
	return sum;
}

/* Without a command, on the counted CPUs (no -p), under -A: each CPU's copy of the watch is its line. */
static bool
watch_per_cpu(const struct run_ctx *c, const struct perf_state *s)
{
	return s->watch.pc && c->o->per_cpu && !s->tasks && s->watch.ntargets == c->ncores;
}

/* --per-thread: room for each watched thread's counts, and its label. 0, or -ENOMEM. */
static int
keep_threads(struct run_ctx *c, const struct perf_state *s)
{
	unsigned n = s->watch.ntargets;

	free(c->thread_values);
	free(c->thread_labels);
	c->nthreads = 0;
	c->thread_values = calloc((size_t)(c->ev->nhw + c->ev->nsw + 1) * n, sizeof(*c->thread_values));
	c->thread_labels = calloc(n ? n : 1, sizeof(*c->thread_labels));
	if (!c->thread_values || !c->thread_labels)
		return -ENOMEM;
	for (unsigned t = 0; t < n; t++)
		snprintf(c->thread_labels[t], sizeof(c->thread_labels[t]), "%.15s-%d", s->watch.comm[t],
			 (int)s->watch.tids[t]);
	c->nthreads = n;
	return 0;
}

static void
put_counts(struct run_ctx *c, struct perf_state *s, unsigned run, bool per_cpu);
static void
put_watch_per_cpu(struct run_ctx *c, const struct perf_state *s);

/* Read, close and put the counts of the open counters where the report finds them. */
static int
perf_collect(struct run_ctx *c, unsigned run, struct pmustat_error **err)
{
	struct perf_state *s = state(c);
	bool per_cpu;

	(void)err;
	for (unsigned i = 0; s->sw_blocked && run == 0 && i < c->ev->nsw; i++) {
		c->counts[c->ev->nhw + i].counted = false;
		c->counts[c->ev->nhw + i].status = "not supported";
	}
	if (s->npc == 0)
		return 0;
	if (s->watch.pc) {
		if (perf_watch_read(c->perf, &s->watch, s->pc, err)) {
			fprintf(stderr, "pmustat: warning: %s\n", err_msg(*err));
			err_clear(err);
		}
		put_watch_per_cpu(c, s);
	}
	per_cpu = s->cpus != NULL || watch_per_cpu(c, s);
	for (unsigned g = 0; !s->watch.pc && g < s->nsets; g++) {
		if (perf_read_counters(c->perf, s->pc + (size_t)g * SCHED_MAX_EVENTS, s->npc, err)) {
			fprintf(stderr, "pmustat: warning: %s\n", err_msg(*err));
			err_clear(err);
		}
	}
	if (c->o->per_thread && s->watch.tids && s->watch.pc && keep_threads(c, s) == 0)
		for (unsigned k = 0; k < s->npc; k++)
			for (unsigned t = 0; t < c->nthreads; t++)
				c->thread_values[(size_t)s->pc_event[k] * c->nthreads + t] =
					s->watch.pc[(size_t)t * s->npc + k].v.value;
	close_sets(c, s, s->nsets);
	perf_watch_close(c->perf, &s->watch);
	put_counts(c, s, run, per_cpu);
	s->npc = 0;
	return 0;
}

/* The counts read into s->pc, summed, with their status, into c->counts (and per CPU, c->core_counts). */
static void
put_counts(struct run_ctx *c, struct perf_state *s, unsigned run, bool per_cpu)
{
	for (unsigned k = 0; k < s->npc; k++) {
		unsigned u = s->pc_event[k];
		struct run_count *rc = &c->counts[u];
		struct perf_counter sum = summed(s, k);

		rc->counted = perf_counter_status(&sum, &s->env, rc->status_buf, sizeof(rc->status_buf));
		if (rc->counted && s->cpus && !event_is_software(sum.ev))
			snprintf(rc->status_buf, sizeof(rc->status_buf),
				 "counted per CPU (multiplexing cannot be told per CPU)");
		rc->status = rc->status_buf;
		rc->user_only = sum.user_only;
		rc->value = sum.v.value;
		rc->perf_times = sum.read_ok;
		rc->enabled = sum.v.enabled;
		rc->running = sum.v.running;
		rc->run = run + 1;
		rc->per_cpu = per_cpu;
		for (unsigned g = 0; s->cpus && g < s->nsets; g++)
			c->core_counts[(size_t)u * c->ncores + g] = s->pc[(size_t)g * SCHED_MAX_EVENTS + k].v.value;
	}
}

/* Each watched CPU's copy of each counter into c->core_counts (-A, and pmustat serve). */
static void
put_watch_per_cpu(struct run_ctx *c, const struct perf_state *s)
{
	for (unsigned k = 0; watch_per_cpu(c, s) && k < s->npc; k++)
		for (unsigned t = 0; t < c->ncores; t++)
			c->core_counts[(size_t)s->pc_event[k] * c->ncores + t] = s->watch.pc[(size_t)t * s->npc + k].v.value;
}

/* pmustat serve: the watch's counts so far into c->counts, the counters left counting. */
static int
perf_peek(struct run_ctx *c, unsigned run, struct pmustat_error **err)
{
	struct perf_state *s = state(c);

	if (!s || !s->watch.pc || s->npc == 0)
		return 0;
	if (perf_watch_peek(c->perf, &s->watch, s->pc, err))
		return -EIO;
	put_watch_per_cpu(c, s);
	put_counts(c, s, run, watch_per_cpu(c, s));
	return 0;
}

static void
perf_discard(struct run_ctx *c, unsigned run)
{
	struct perf_state *s = state(c);

	(void)run;
	if (!s)
		return;
	close_sets(c, s, s->nsets);
	perf_watch_close(c->perf, &s->watch);
	s->npc = 0;
}

static const char *
perf_type_name(uint32_t type)
{
	switch (type) {
	case PERF_TYPE_RAW: return "RAW";
	case PERF_TYPE_SOFTWARE: return "SOFTWARE";
	case PERF_TYPE_HARDWARE: return "HARDWARE";
	case PERF_TYPE_HW_CACHE: return "HW_CACHE";
	}
	return "?";
}

/* The current count of counter @k on set or watched target @g (0 when it cannot be read). */
static uint64_t
value_now(const struct run_ctx *c, const struct perf_counter *pc)
{
	struct perf_value v;

	if (pc->fd < 0 || c->perf->ops->read(c->perf->ctx, pc->fd, &v))
		return 0;
	return v.value;
}

/* -I: each counter's count now, summed (@sum[u]) and per CPU line (@core[i * SCHED_MAX_EVENTS + u]). */
static void
read_now(struct run_ctx *c, struct perf_state *s, uint64_t *sum, uint64_t *core)
{
	bool per_cpu = watch_per_cpu(c, s);

	memset(sum, 0, SCHED_MAX_EVENTS * sizeof(*sum));
	memset(core, 0, (size_t)c->ncores * SCHED_MAX_EVENTS * sizeof(*core));
	for (unsigned k = 0; k < s->sampled; k++) {
		unsigned u = s->pc_event[k];

		if (s->watch.pc) {
			for (unsigned t = 0; t < s->watch.ntargets; t++) {
				uint64_t v = value_now(c, &s->watch.pc[(size_t)t * s->watch.npc + k]);

				sum[u] += v;
				if (per_cpu)
					core[(size_t)t * SCHED_MAX_EVENTS + u] = v;
			}
			continue;
		}
		for (unsigned g = 0; g < s->nsets; g++) {
			uint64_t v = value_now(c, &s->pc[(size_t)g * SCHED_MAX_EVENTS + k]);

			sum[u] += v;
			if (s->cpus)
				core[(size_t)g * SCHED_MAX_EVENTS + u] = v;
		}
	}
}

/* Emit the deltas from @sum and @core (the counts now) against what was reported. */
static void
emit_since(struct perf_state *s, double time, const uint64_t *sum, const uint64_t *core)
{
	struct run_ctx *c = s->c;

	for (unsigned i = 0; i < SCHED_MAX_EVENTS; i++) {
		s->deltas[i] = sum[i] >= s->reported[i] ? sum[i] - s->reported[i] : 0;
		s->reported[i] = sum[i];
	}
	for (size_t i = 0; i < (size_t)c->ncores * SCHED_MAX_EVENTS; i++) {
		s->core_deltas[i] = core[i] >= s->core_reported[i] ? core[i] - s->core_reported[i] : 0;
		s->core_reported[i] = core[i];
	}
	c->emit_interval(c->emit_arg, time, s->deltas, s->core_deltas);
}

static void
tick(void *arg, double time)
{
	struct perf_state *s = arg;
	uint64_t sum[SCHED_MAX_EVENTS], *core = calloc((size_t)s->c->ncores * SCHED_MAX_EVENTS, sizeof(*core));

	if (!core)
		return;
	read_now(s->c, s, sum, core);
	emit_since(s, time, sum, core);
	free(core);
}

/* -I with the perf backend: the ticker starts with the command (or the watch). */
static int
perf_sample_start(struct run_ctx *c, unsigned run, struct pmustat_error **err)
{
	struct perf_state *s = state(c);
	size_t n = (size_t)c->ncores * SCHED_MAX_EVENTS;
	int rc;

	(void)run;
	if (!c->o->interval_ms || !c->emit_interval || !s)
		return 0;
	s->c = c;
	s->sampled = s->npc;
	memset(s->reported, 0, sizeof(s->reported));
	if (!s->core_reported)
		s->core_reported = calloc(n, sizeof(*s->core_reported));
	if (!s->core_deltas)
		s->core_deltas = calloc(n, sizeof(*s->core_deltas));
	if (!s->core_reported || !s->core_deltas)
		return err_set(err, -ENOMEM, "out of memory");
	memset(s->core_reported, 0, n * sizeof(*s->core_reported));
	rc = ticker_start(&s->ticker, c->o->interval_ms, tick, s);
	return rc ? err_set(err, rc, "-I: cannot start the thread that reads the counters: %s", strerror(-rc)) : 0;
}

static void
perf_sample_stop(struct run_ctx *c, unsigned run)
{
	struct perf_state *s = state(c);

	(void)run;
	if (s)
		ticker_stop(&s->ticker);
}

/* The last interval: the final counts (collected) less what the ticks reported. */
static void
perf_sample_finish(struct run_ctx *c, unsigned run)
{
	struct perf_state *s = state(c);
	uint64_t sum[SCHED_MAX_EVENTS] = { 0 }, *core;

	(void)run;
	if (!s || !s->c || !c->o->interval_ms)
		return;
	core = calloc((size_t)c->ncores * SCHED_MAX_EVENTS, sizeof(*core));
	if (!core)
		return;
	for (unsigned k = 0; k < s->sampled; k++) {
		unsigned u = s->pc_event[k];

		sum[u] = c->counts[u].value;
		for (unsigned i = 0; c->counts[u].per_cpu && i < c->ncores; i++)
			core[(size_t)i * SCHED_MAX_EVENTS + u] = c->core_counts[(size_t)u * c->ncores + i];
	}
	emit_since(s, clock_monotonic_seconds() - s->ticker.t0, sum, core);
	free(core);
	s->c = NULL;
}

void
backend_perf_print_dry(struct run_ctx *c, bool with_hw, FILE *out)
{
	const struct stat_events *ev = c->ev;
	unsigned n = (with_hw ? ev->nhw : 0) + ev->nsw;

	char cpus[240], list[256] = "";

	bool cpu_wide = c->o->command && run_counts_cores(c);

	if (c->o->per_cpu && c->o->command && !cpu_wide)
		snprintf(list, sizeof(list), ", once per CPU of %s (-A)", cpulist_format(c->cores, c->ncores, cpus, sizeof(cpus)));
	fprintf(out, "pmustat: %s: %u event(s)%s; perf_event_open %s%s:\n",
		with_hw ? "dry run, backend perf" : "software events, through perf_event", n,
		with_hw ? "" : " in the first run",
		cpu_wide ? "on each counted CPU (pid -1), enabled while the command runs" :
		c->o->command ? "on the command's pid, disabled, enable_on_exec, inherit" :
		c->o->npids ? "on each thread of the processes, inherit, enabled once all are open" :
		"on each counted CPU, enabled once all are open", list);
	for (unsigned u = with_hw ? 0 : ev->nhw; u < ev->nhw + ev->nsw; u++) {
		const struct event *e = u < ev->nhw ? &ev->hw[u] : &ev->sw[u - ev->nhw];
		struct pmustat_error *err = NULL;
		struct perf_event_attr attr;
		unsigned run = u < ev->nhw && c->plan ? c->plan->slots[u].run + 1 : 1;

		if (perf_attr(e, &c->t->cpu.pmu, &attr, &err)) {
			fprintf(out, "  %s: %s\n", e->requested, err_msg(err));
			err_free(err);
			continue;
		}
		fprintf(out, "  run %u: type %s config 0x%llx config1 0x%llx exclude_user %u exclude_kernel %u\t# %s\n",
			run, perf_type_name(attr.type), (unsigned long long)attr.config,
			(unsigned long long)attr.config1, (unsigned)attr.exclude_user, (unsigned)attr.exclude_kernel,
			e->requested);
	}
}

const struct backend_ops backend_perf = {
	.name = "perf",
	.begin = perf_begin,
	.end = perf_end,
	.arm = perf_arm,
	.attach = perf_attach,
	.stop = perf_stop,
	.collect = perf_collect,
	.discard = perf_discard,
	.sample_start = perf_sample_start,
	.sample_stop = perf_sample_stop,
	.sample_finish = perf_sample_finish,
	.set_enabled = perf_set_enabled,
	.peek = perf_peek,
};
