/*
 * run.c - see run.h.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/cpulist.h"
#include "base/clock.h"
#include "base/err.h"
#include "base/exit_codes.h"
#include "base/invoker.h"
#include "pmus/netburst/backend_msr_nb.h"
#include "engine/command_control.h"
#include "engine/crowding.h"
#include "pmu/plan.h"
#include "engine/requests.h"
#include "engine/run.h"
#include "engine/signals.h"
#include "engine/stat.h"
#include "engine/target.h"
#include "hw/hw.h"

extern char **environ;

int
run_fail_err(struct run_ctx *c, struct pmustat_error **err)
{
	if (!c->error)
		err_move(&c->error, err);
	else
		err_clear(err);
	c->status = EXIT_PMUSTAT_FAILURE;
	return c->status;
}

int
run_fail(struct run_ctx *c, int rc, const char *fmt, ...)
{
	struct pmustat_error *e = NULL;
	va_list ap;

	va_start(ap, fmt);
	err_setv(&e, rc, fmt, ap);
	va_end(ap);
	return run_fail_err(c, &e);
}

/* -C or -a: the user named the cores. */
static bool
cores_named(const struct stat_opts *o)
{
	return o->cpu_list || o->all_cpus || o->core >= 0;
}

bool
run_counts_cores(const struct run_ctx *c)
{
	if (!c->o->command)
		return !c->o->npids && !c->o->ntids;
	if (c->o->npids || c->o->ntids)
		return false;
	return cores_named(c->o) || c->backends[0] != &backend_perf;
}

bool
run_pins_command(const struct run_ctx *c)
{
	if (c->o->npids || c->o->ntids)
		return false;
	return c->backends[0] != &backend_perf || cores_named(c->o) || c->o->per_cpu;
}

int
run_attach_nothing(struct run_ctx *c, unsigned run, pid_t pid, struct pmustat_error **err)
{
	(void)c;
	(void)run;
	(void)pid;
	(void)err;
	return 0;
}

int
run_stop_nothing(struct run_ctx *c, unsigned run, struct pmustat_error **err)
{
	(void)c;
	(void)run;
	(void)err;
	return 0;
}

int
run_backend_of(const struct run_ctx *c, bool software)
{
	/* Beside the MSR backend, software events are the perf backend's. */
	if (software && c->nbackends >= 2 && c->backends[1] == &backend_perf)
		return 1;
	return 0;
}

/* The CPUs pmustat may run on, as first found (before any pinning of its own). */
static bool
allowed_cpus(cpu_set_t *out)
{
	static cpu_set_t allowed;
	static bool have_allowed;

	if (!have_allowed) {
		if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
			return false;
		have_allowed = true;
	}
	*out = allowed;
	return true;
}

bool
run_pin_self(int core, bool onto)
{
	cpu_set_t set;

	if (!allowed_cpus(&set))
		return false;
	if (onto) {
		CPU_ZERO(&set);
		CPU_SET(core, &set);
	} else {
		CPU_CLR(core, &set);
		if (CPU_COUNT(&set) == 0)
			return false;
	}
	return sched_setaffinity(0, sizeof(set), &set) == 0 && !onto;
}

/*
 * The counted window of this run (runner.h): exact when the counters were
 * enabled at the command's exec stop by a pmustat running off its core.
 * The series' window is its worst run's; -v says it when it changes.
 */
static void
note_window(struct run_ctx *c, const struct runner *r, bool msr_enable, bool off_core)
{
	char why[sizeof(c->window_why)] = "";
	const char *w = "exact";

	if (msr_enable && !r->traced) {
		w = "approximate";
		snprintf(why, sizeof(why), "ptrace refused (%s: YAMA ptrace_scope 3 or a seccomp filter?), so the child enabled the counters before execve: about 35 of its user-mode instructions are counted",
			 strerror(r->trace_err));
	} else if (msr_enable && !off_core) {
		w = "approximate";
		char list[128];

		snprintf(why, sizeof(why), "pmustat may run on counted cores only (%s %s; affinity), so its own code between the enable and the command's start ran there%s",
			 c->ncores > 1 ? "cores" : "core", cpulist_format(c->cores, c->ncores, list, sizeof(list)),
			 c->o->interval_ms ? ", and so did the -I reads and lines" : "");
	}
	if (c->window && (strcmp(c->window, "approximate") == 0 || strcmp(c->window, w) == 0))
		return;
	c->window = w;
	snprintf(c->window_why, sizeof(c->window_why), "%s", why);
	if (c->o->verbose && msr_enable)
		fprintf(stderr, "pmustat: counted window: %s (%s)\n", w,
			why[0] ? why : "the counters start at the command's exec stop (ptrace), pmustat runs on another core");
}

bool
run_keep_off(const int *cores, unsigned n)
{
	cpu_set_t set;
	cpu_set_t off;
	bool away;

	/* From all pmustat may use: the last read may have pinned it onto one core. */
	if (!allowed_cpus(&set))
		return false;
	off = set;
	for (unsigned i = 0; i < n; i++)
		CPU_CLR(cores[i], &off);
	away = CPU_COUNT(&off) > 0;
	/* No CPU outside the list (-a): anywhere it may, never left on one core. */
	return sched_setaffinity(0, sizeof(set), away ? &off : &set) == 0 && away;
}

/*
 * The command runs as the invoking user (SUDO_UID) unless --as-root, with
 * that user's groups and HOME, USER, LOGNAME and SHELL, as sudo -u would.
 */
static int
privileges(struct run_ctx *c, struct runner_opts *ro)
{
	const struct invoker *inv = c->inv;

	if (c->o->as_root || !inv || !invoker_is_other(inv))
		return 0;
	ro->drop_privileges = true;
	ro->uid = inv->uid;
	ro->gid = inv->gid;
	ro->ngroups = inv->ngroups < RUNNER_MAX_GROUPS ? inv->ngroups : RUNNER_MAX_GROUPS;
	memcpy(ro->groups, inv->groups, (size_t)ro->ngroups * sizeof(ro->groups[0]));
	if (!c->command_env)
		c->command_env = invoker_environ(inv, environ);
	if (!c->command_env)
		return run_fail(c, -ENOMEM, "out of memory for the command's environment");
	ro->envp = c->command_env;
	return 0;
}

/* The command never ran: 127, 126 or 125, and why. */
static int
child_failed(struct run_ctx *c, const struct runner_failure *rf)
{
	const char *cmd = c->o->command[0];
	struct pmustat_error *e = NULL;
	int status = runner_failure_exit_status(rf);

	if ((rf->stage == RUNNER_RESOLVE || rf->stage == RUNNER_EXEC) && rf->err == ENOENT)
		err_set_status(&e, status, -ENOENT, "%s: command not found", cmd);
	else if (rf->stage == RUNNER_RESOLVE || rf->stage == RUNNER_EXEC)
		err_set_status(&e, status, -rf->err, "%s: cannot execute: %s", cmd, strerror(rf->err));
	else
		err_set_status(&e, status, -rf->err, "%s: %s failed: %s", cmd, runner_stage_name(rf->stage),
			       strerror(rf->err));
	run_fail_err(c, &e);
	c->status = status;
	return status;
}

/*
 * A run killed by a signal (^C) ends the series: the user wants out, not
 * the next run. The events of the runs left say why they have no count.
 */
static bool
stop_after_killed_run(struct run_ctx *c, unsigned run, unsigned nruns, int ws)
{
	if (!WIFSIGNALED(ws) || run + 1 >= nruns)
		return false;
	for (unsigned u = 0; u < c->ev->nhw; u++)
		if (c->plan && c->plan->slots[u].run > run)
			c->counts[u].status = "not counted: an earlier run was killed";
	return true;
}

void
run_discard(struct run_ctx *c, unsigned run)
{
	for (unsigned b = 0; b < c->nbackends; b++)
		c->backends[b]->discard(c, run);
}

int
run_collect(struct run_ctx *c, unsigned run, const struct backend_ops *sampler)
{
	struct pmustat_error *err = NULL;

	for (unsigned b = 0; b < c->nbackends; b++) {
		if (c->backends[b]->collect(c, run, &err)) {
			run_discard(c, run);
			return run_fail_err(c, &err), -1;
		}
	}
	if (sampler)
		sampler->sample_finish(c, run);
	return 0;
}

static double
timeval_diff(const struct timeval *a, const struct timeval *b)
{
	return (double)(a->tv_sec - b->tv_sec) + (double)(a->tv_usec - b->tv_usec) / 1e6;
}

/* --pin-threads without ptrace (errno @e): the command does not run. */
static int
pin_refused(struct run_ctx *c, int e)
{
	return run_fail(c, -e, "--pin-threads: ptrace refused (%s: YAMA ptrace_scope 3 or a seccomp filter?), and pmustat places the command's threads as the kernel creates them through ptrace; the command did not run: allow ptrace of one's own children (kernel.yama.ptrace_scope at 1 or below) or run without --pin-threads",
			strerror(e));
}

/*
 * The command ran more threads at once than the cores it was kept on (the
 * MSR backend's): they queued there. Said once, with the ways out.
 */
static void
note_crowding(struct run_ctx *c, unsigned most)
{
	char list[64];

	if (most <= c->ncores || c->crowding_said || !c->notes)
		return;
	c->crowding_said = true;
	fprintf(c->notes, "pmustat: note: %s ran %u threads or processes at once on %s %s, where the MSR backend keeps it (it counts those cores), so they queued there; to spread them: -C LIST --pin-threads (a thread per listed CPU), or --backend perf (the kernel follows the threads on every CPU)\n",
		c->o->command[0], most, c->ncores > 1 ? "cores" : "core",
		cpulist_format(c->cores, c->ncores, list, sizeof(list)));
}

/* -D, --control: every backend's counters on or off (the control thread's call). */
static void
set_enabled(void *arg, bool on)
{
	struct run_ctx *c = arg;

	for (unsigned b = 0; b < c->nbackends; b++)
		if (c->backends[b]->set_enabled)
			c->backends[b]->set_enabled(c, on);
}

/* One run: the command once, its batch of events counted. 1: the series ends. */
static int
one_run(struct run_ctx *c, unsigned run, unsigned nruns)
{
	struct pmustat_error *err = NULL, *stop_err = NULL;
	const struct backend_ops *sampler = NULL;
	struct runner_failure rf;
	struct runner_opts ro;
	struct runner r;
	struct rusage ru0, ru1;
	struct crowding crowd;
	struct command_control ctl;
	bool off_core;
	double t0;
	int ws = 0, rc;

	memset(&ro, 0, sizeof(ro));
	ro.cpu = run_pins_command(c) ? c->core : -1;
	/* Several cores: the command and its threads may run on any of them. */
	if (ro.cpu >= 0 && c->ncores > 1) {
		ro.cpu = -1;
		ro.cpus = c->cores;
		ro.ncpus = c->ncores;
	}
	/* --pin-threads: each thread on its own CPU of the list (pin_threads.c, through ptrace). */
	if (c->o->pin_threads && c->ncores) {
		ro.pin_cpus = c->cores;
		ro.npin = c->ncores;
	}
	if (privileges(c, &ro))
		return -1;
	/* Asked before the first run programs anything: a refusal then writes nothing. */
	if (ro.npin && run == 0) {
		rc = runner_pin_probe();
		if (rc)
			return pin_refused(c, -rc), -1;
	}
	for (unsigned b = 0; b < c->nbackends; b++) {
		if (c->backends[b]->arm(c, run, &ro, &err)) {
			run_discard(c, run);
			return run_fail_err(c, &err), -1;
		}
	}
	rc = runner_start(&r, c->o->command, &ro, &rf);
	if (rc) {
		run_discard(c, run);
		return child_failed(c, &rf), -1;
	}
	if (ro.npin && !r.traced) {
		runner_cancel(&r);
		run_discard(c, run);
		return pin_refused(c, r.trace_err ? r.trace_err : EPERM), -1;
	}
	for (unsigned b = 0; b < c->nbackends; b++) {
		if (c->backends[b]->attach(c, run, r.pid, &err)) {
			runner_cancel(&r);
			run_discard(c, run);
			return run_fail_err(c, &err), -1;
		}
	}
	off_core = run_keep_off(c->cores, c->ncores);
	/*
	 * The TSC at the window's edges, for the metrics that read it (TSC):
	 * before the sampler starts, whose -I intervals start there too.
	 */
	c->tsc_stopped = false;
	c->tsc_ok = hw_rdtsc(c->hw, &c->tsc_start) == 0;
	/* A thread off the cores reads the counters while the command runs: every wrap, and -I. */
	if (c->backends[0]->sample_start) {
		c->cur_run = run + 1;
		sampler = c->backends[0];
		if (sampler->sample_start(c, run, &err)) {
			runner_cancel(&r);
			run_discard(c, run);
			return run_fail_err(c, &err), -1;
		}
	}
	/*
	 * Kept on the counted cores: watch that its threads fit them, from
	 * off those cores only (nothing of pmustat's runs where it counts).
	 */
	memset(&crowd, 0, sizeof(crowd));
	if ((ro.cpu >= 0 || ro.ncpus) && off_core && !ro.npin)
		(void)crowding_start(&crowd, r.pid, c->ncores);
	/* The command's user and sys time: what the children reaped since grew by. */
	if (getrusage(RUSAGE_CHILDREN, &ru0) != 0)
		memset(&ru0, 0, sizeof(ru0));
	t0 = clock_monotonic_seconds();
	/* --timeout, -D, --control: from the command's start. */
	memset(&ctl, 0, sizeof(ctl));
	ctl.timeout_ms = c->o->timeout_ms;
	ctl.delay_ms = c->o->delay_ms;
	ctl.ctl_fd = c->o->ctl_fd;
	ctl.ack_fd = c->o->ack_fd;
	ctl.set_enabled = set_enabled;
	ctl.arg = c;
	rc = command_control_start(&ctl, r.pid);
	if (rc) {
		(void)crowding_stop(&crowd);
		if (sampler)
			sampler->sample_stop(c, run);
		runner_cancel(&r);
		run_discard(c, run);
		return run_fail(c, rc, "--timeout, -D, --control: cannot watch %s: %s", c->o->command[0],
				strerror(-rc)), -1;
	}
	rc = signals_go_and_wait(&r, &rf, &ws);
	if (command_control_stop(&ctl) && c->notes)
		fprintf(c->notes, "pmustat: --timeout %u: %s was sent SIGTERM\n", c->o->timeout_ms, c->o->command[0]);
	if (sampler)
		sampler->sample_stop(c, run);
	note_crowding(c, crowding_stop(&crowd));
	/* The child may have enabled before it failed: always stop, first thing. */
	for (unsigned b = 0; b < c->nbackends; b++) {
		if (c->backends[b]->stop(c, run, &err) && !stop_err)
			err_move(&stop_err, &err);
		err_clear(&err);
	}
	c->tsc_ok = c->tsc_ok && hw_rdtsc(c->hw, &c->tsc_stop) == 0;
	c->tsc_stopped = true;
	t0 = clock_monotonic_seconds() - t0;
	c->elapsed += t0;
	if (c->run_seconds && c->round)
		c->run_seconds[(size_t)(c->round - 1) * nruns + run] = t0;
	if (c->run_tsc && c->round)
		c->run_tsc[(size_t)(c->round - 1) * nruns + run] = c->tsc_ok ? c->tsc_stop - c->tsc_start : 0;
	if (getrusage(RUSAGE_CHILDREN, &ru1) == 0) {
		c->user_time += timeval_diff(&ru1.ru_utime, &ru0.ru_utime);
		c->sys_time += timeval_diff(&ru1.ru_stime, &ru0.ru_stime);
	}
	if (stop_err || rf.stage != RUNNER_OK || rc) {
		run_discard(c, run);
		if (stop_err)
			return run_fail_err(c, &stop_err), -1;
		if (rf.stage != RUNNER_OK)
			return child_failed(c, &rf), -1;
		return run_fail(c, rc, "waiting for %s: %s", c->o->command[0], strerror(-rc)), -1;
	}
	c->command_ran = true;
	if (r.pin_err)
		fprintf(stderr, "pmustat: warning: --pin-threads: a thread of %s could not be placed on its CPU (%s); it ran wherever the kernel put it among the listed CPUs\n",
			c->o->command[0], strerror(r.pin_err));
	note_window(c, &r, ro.enable != NULL, off_core);
	if (run_collect(c, run, sampler))
		return -1;
	c->status = runner_exit_status(ws);
	return stop_after_killed_run(c, run, nruns, ws) ? 1 : 0;
}

int
run_once(struct run_ctx *c)
{
	unsigned nruns = c->plan && c->plan->nruns ? c->plan->nruns : 1;

	signals_install();
	signals_block(true);
	/* Without a command there is no second run to give the other events the same window. */
	if (!c->o->command && nruns > 1)
		return run_fail(c, -E2BIG, "the events need %u runs (more than the counters) and counting without a command has one window; count fewer events",
				nruns);
	for (unsigned run = 0; run < nruns; run++)
		if (c->o->command ? one_run(c, run, nruns) : run_watch(c, run))
			break;
	return c->status;
}

int
run_rounds(struct run_ctx *c)
{
	unsigned n = c->ev->nhw + c->ev->nsw;
	int first_failure = 0;

	c->repeat = c->o->dry_run ? 1 : c->o->repeat;
	c->values = calloc((size_t)(n ? n : 1) * c->repeat, sizeof(*c->values));
	c->nvalues = calloc(n ? n : 1, sizeof(*c->nvalues));
	c->core_values = calloc((size_t)(n ? n : 1) * c->ncores * c->repeat,
				sizeof(*c->core_values));
	c->run_seconds = calloc((size_t)(c->plan && c->plan->nruns ? c->plan->nruns : 1) * c->repeat,
				sizeof(*c->run_seconds));
	c->run_tsc = calloc((size_t)(c->plan && c->plan->nruns ? c->plan->nruns : 1) * c->repeat,
			    sizeof(*c->run_tsc));
	if (!c->values || !c->nvalues || !c->core_values || !c->run_seconds || !c->run_tsc)
		return run_fail(c, -ENOMEM, "out of memory for %u runs of %u events", c->repeat, n);
	for (unsigned round = 0; round < c->repeat; round++) {
		c->round = round + 1;
		c->rounds = round + 1;
		for (unsigned u = 0; u < n; u++) {
			c->counts[u].counted = false;
			c->counts[u].status = "not counted";
		}
		(void)run_once(c);
		for (unsigned u = 0; u < n; u++) {
			if (!c->counts[u].counted)
				continue;
			for (unsigned i = 0; (u < c->ev->nhw || c->counts[u].per_cpu) && i < c->ncores; i++)
				c->core_values[((size_t)u * c->ncores + i) * c->repeat + c->nvalues[u]] =
					c->ncores > 1 ? c->core_counts[(size_t)u * c->ncores + i] : c->counts[u].value;
			c->values[(size_t)u * c->repeat + c->nvalues[u]++] = c->counts[u].value;
		}
		if (c->error)
			break;
		if (c->status && !first_failure)
			first_failure = c->status;
		if (c->status && (!c->o->keep_going || c->status == EXIT_SIGNAL_BASE + SIGINT ||
				  c->status == EXIT_SIGNAL_BASE + SIGTERM)) {
			if (round + 1 < c->repeat && c->notes)
				fprintf(c->notes, "pmustat: run %u of %u of %s exited %d; stopping (--keep-going goes on)\n",
					round + 1, c->repeat, c->o->command[0], c->status);
			break;
		}
	}
	if (!c->error && c->repeat > 1)
		c->status = first_failure;
	return c->status;
}

const struct pmu_caps *
run_core_caps(const struct run_ctx *c, unsigned i)
{
	/* NetBurst: each core's own thread bits (T0/T1) and, with both threads listed, its half of the counters. */
	if (c->nb_cores)
		return &c->nb_cores[i].caps;
	return c->core_t ? &c->core_t[i]->cpu.pmu : &c->t->cpu.pmu;
}

const struct stat_events *
run_core_events(const struct run_ctx *c, unsigned i)
{
	return c->core_ev ? c->core_ev[i] : c->ev;
}
