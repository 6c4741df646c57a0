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

#include "base/err.h"
#include "engine/perf_counters.h"
#include "engine/perf_watch.h"
#include "engine/plan.h"
#include "engine/requests.h"
#include "engine/run.h"
#include "engine/stat.h"
#include "engine/target.h"
#include "events/sw_events.h"

struct perf_state {
	bool with_hw;				/* the hardware events too */
	struct perf_env env;
	struct perf_counter pc[SCHED_MAX_EVENTS];
	unsigned pc_event[SCHED_MAX_EVENTS];	/* the counted event of each pc[] */
	unsigned npc;
	struct perf_watch watch;		/* without a command: the copies on each thread or CPU */
	bool sw_blocked;			/* the default set's software events could not be opened */
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

	/* The kernel's NetBurst events are not these encodings: they count through MSRs only. */
	if (c->t->cpu.netburst.present && c->ev->nhw)
		return err_set(err, -EOPNOTSUPP,
			       "core %d: NetBurst events count only through the MSR backend (--backend msr); the perf backend has no encoding of them",
			       c->core);
	memset(&in, 0, sizeof(in));
	in.core = c->core;
	in.caps = &c->t->cpu.pmu;
	in.events = c->ev->hw;
	in.nevents = c->ev->nhw;
	in.pinned_run = c->ev->pinned_run;
	in.no_rerun = c->o->no_rerun;
	in.kernel_counts = true;
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
	perf_env_probe(c->perf, c->hw, &s->env);
	if (s->with_hw)
		c->read_method = "perf_event";
	return 0;
}

static void
perf_end(struct run_ctx *c)
{
	int i = index_of(c);

	free(c->state[i]);
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

/*
 * Open the counters of @run on the corked child @pid: the hardware events
 * of the run (as the hardware backend) and, in the first run, the
 * software events. Unsupported hardware events are warned about and left
 * out; none open at all is a failure.
 */
static int
perf_attach(struct run_ctx *c, unsigned run, pid_t pid, struct pmustat_error **err)
{
	struct perf_state *s = state(c);
	const struct stat_events *ev = c->ev;
	unsigned opened = 0;
	int rc;

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
	/* Without a command: -p's threads, or the counted CPUs, already running. */
	if (!c->o->command) {
		rc = perf_watch_open(c->perf, &s->env, &c->t->cpu.pmu, s->pc, s->npc, c->o->pid, c->cores, c->ncores,
				     &s->watch, err);
		if (rc)
			return rc;
		for (unsigned k = 0; k < s->npc; k++) {
			s->pc[k].fd = -1;	/* the copies hold the descriptors */
			s->pc[k].open_err = s->watch.pc[k].open_err;
		}
	} else {
		rc = perf_open_counters(c->perf, &s->env, &c->t->cpu.pmu, s->pc, s->npc, pid, err);
	}
	if (rc && default_software_only(c, s))
		return software_blocked(c, s, err);
	if (rc)
		return rc;
	for (unsigned k = 0; k < s->npc; k++) {
		struct perf_event_attr attr;

		if (!s->pc[k].open_err) {
			opened++;
			continue;
		}
		(void)perf_attr(s->pc[k].ev, &c->t->cpu.pmu, &attr, NULL);
		perf_open_error(s->pc[k].open_err, s->pc[k].ev, &attr, &s->env, err);
		if (opened == 0 && k + 1 == s->npc)
			break;
		fprintf(stderr, "pmustat: warning: %s\n", err_msg(*err));
		err_clear(err);
	}
	if (opened == 0) {
		perf_close_counters(c->perf, s->pc, s->npc);
		perf_watch_close(c->perf, &s->watch);
		s->npc = 0;
		return err_set(err, -ENODEV, "%s%s%s", err_msg(*err), c->backend_why[0] ? "; and the MSR backend: " : "",
			       c->backend_why);
	}
	return 0;
}

static int
perf_stop(struct run_ctx *c, unsigned run, struct pmustat_error **err)
{
	(void)c;
	(void)run;
	(void)err;
	return 0;
}

/* Read, close and put the counts of the open counters where the report finds them. */
static int
perf_collect(struct run_ctx *c, unsigned run, struct pmustat_error **err)
{
	struct perf_state *s = state(c);

	(void)err;
	for (unsigned i = 0; s->sw_blocked && run == 0 && i < c->ev->nsw; i++) {
		c->counts[c->ev->nhw + i].counted = false;
		c->counts[c->ev->nhw + i].status = "not supported";
	}
	if (s->npc == 0)
		return 0;
	if (s->watch.pc ? perf_watch_read(c->perf, &s->watch, s->pc, err) :
			  perf_read_counters(c->perf, s->pc, s->npc, err)) {
		fprintf(stderr, "pmustat: warning: %s\n", err_msg(*err));
		err_clear(err);
	}
	perf_close_counters(c->perf, s->pc, s->npc);
	perf_watch_close(c->perf, &s->watch);
	for (unsigned k = 0; k < s->npc; k++) {
		struct run_count *rc = &c->counts[s->pc_event[k]];

		rc->counted = perf_counter_status(&s->pc[k], &s->env, rc->status_buf, sizeof(rc->status_buf));
		rc->status = rc->status_buf;
		rc->value = s->pc[k].v.value;
		rc->perf_times = s->pc[k].read_ok;
		rc->enabled = s->pc[k].v.enabled;
		rc->running = s->pc[k].v.running;
		rc->run = run + 1;
	}
	s->npc = 0;
	return 0;
}

static void
perf_discard(struct run_ctx *c, unsigned run)
{
	struct perf_state *s = state(c);

	(void)run;
	if (!s)
		return;
	perf_close_counters(c->perf, s->pc, s->npc);
	perf_watch_close(c->perf, &s->watch);
	s->npc = 0;
}

void
backend_perf_print_dry(struct run_ctx *c, bool with_hw, FILE *out)
{
	const struct stat_events *ev = c->ev;
	unsigned n = (with_hw ? ev->nhw : 0) + ev->nsw;

	fprintf(out, "pmustat: %s: %u event(s)%s; perf_event_open %s:\n",
		with_hw ? "dry run, backend perf" : "software events, through perf_event", n,
		with_hw ? "" : " in the first run",
		c->o->command ? "on the command's pid, disabled, enable_on_exec, inherit" :
		c->o->pid ? "on each thread of the process, inherit, enabled once all are open" :
		"on each counted CPU, enabled once all are open");
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
			run, attr.type == PERF_TYPE_RAW ? "RAW" : "SOFTWARE", (unsigned long long)attr.config,
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
};
