/*
 * run.h - the one run loop: -r rounds of the plan's runs (batches of
 * events, the command once each), over a table of backends that count: the
 * MSR backend (backend_msr.c: pmustat programs the PMU) or the perf
 * backend (backend_perf.c: the kernel counts through perf_event_open),
 * and beside the MSR one the perf backend for the software events.
 *
 * For each run of each round the loop asks every backend, in this order:
 * arm (before the fork: program the counters, and say what the corked
 * child calls right before execve), attach (the child exists: perf opens
 * its counters on it), then uncorks and waits, then stop (first thing:
 * disable), and collect (the command ran) or discard (it did not). -I
 * samples the counters while the command runs; a run killed by a signal
 * ends the series; -r stops at the first failing run of the command
 * unless --keep-going.
 */
#ifndef PMUSTAT_RUN_H
#define PMUSTAT_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "engine/interval.h"
#include "engine/runner.h"
#include "report/stats.h"

struct hw;
struct invoker;
struct perf_seam;
struct plan;
struct pmu_caps;
struct pmustat_error;
struct run_ctx;
struct stat_events;
struct stat_opts;
struct target;

/* What one counted event gave in the current round. */
struct run_count {
	bool counted;
	uint64_t value;
	const char *status;		/* "counted", or why not (static, or status_buf) */
	char status_buf[128];
	unsigned run;			/* 1-based; 0: not in any */
	bool perf_times;		/* enabled/running are the kernel's */
	uint64_t enabled, running;
	bool per_cpu;			/* the perf backend's -A: core_counts holds it per CPU */
};

struct backend_ops {
	const char *name;		/* "msr", "perf" */
	/* Once before the first run (after the plan), and once after the last, on every path. */
	int (*begin)(struct run_ctx *c, struct pmustat_error **err);
	void (*end)(struct run_ctx *c);
	/* Run @run, before the fork: program; fill what the child calls before execve. */
	int (*arm)(struct run_ctx *c, unsigned run, struct runner_opts *ro, struct pmustat_error **err);
	/* The corked child @pid exists. */
	int (*attach)(struct run_ctx *c, unsigned run, pid_t pid, struct pmustat_error **err);
	/*
	 * Read the counters while the command runs (NULL: this backend does
	 * not): called for every run of the hardware backend, with or without
	 * -I. Without -I (c->o->interval_ms 0) it emits nothing and reads only
	 * so that no counter wraps unseen (the MSR backend: at least once a
	 * second); with -I it also emits each interval. Stopped right after
	 * the command, then after collect() the last interval.
	 */
	int (*sample_start)(struct run_ctx *c, unsigned run, struct pmustat_error **err);
	void (*sample_stop)(struct run_ctx *c, unsigned run);
	void (*sample_finish)(struct run_ctx *c, unsigned run);
	/* The command ended or never started: stop counting, first thing. */
	int (*stop)(struct run_ctx *c, unsigned run, struct pmustat_error **err);
	/* It ran: this run's counts into c->counts. Else: drop them. */
	int (*collect)(struct run_ctx *c, unsigned run, struct pmustat_error **err);
	void (*discard)(struct run_ctx *c, unsigned run);
	/*
	 * -D, --control: switch this run's counters on or off while the
	 * command runs, from another thread (NULL: this backend cannot).
	 */
	void (*set_enabled)(struct run_ctx *c, bool on);
};

/* The attach and stop of a backend that has nothing to do there. */
int
run_attach_nothing(struct run_ctx *c, unsigned run, pid_t pid, struct pmustat_error **err);
int
run_stop_nothing(struct run_ctx *c, unsigned run, struct pmustat_error **err);

extern const struct backend_ops backend_msr;
extern const struct backend_ops backend_perf;
extern const struct backend_ops backend_sim;

struct region_result;

/*
 * --regions with the sim backend: the last run's regions, rebuilt from
 * Callgrind's dumps, moved into @r (zeroed when there are none); the
 * caller frees it (region_result_free()).
 */
void
backend_sim_take_regions(struct run_ctx *c, struct region_result *r);

/* --dry-run on the sim backend: the Valgrind command line and each event's columns. */
void
backend_sim_print_dry(struct run_ctx *c, FILE *out);

/*
 * --dry-run on the MSR backend: the plan without the lock or a write, around
 * the counters in use when this core's MSRs can be read, else (a CPU of a
 * dump, no access) with every counter assumed free and GLOBAL_CTRL as at
 * power-up.
 */
int
backend_msr_plan_dry(struct run_ctx *c, struct pmustat_error **err);

/*
 * The perf backend's plan: the hardware events in batches of what the PMU
 * has counters for, the kernel assigning them.
 */
int
backend_perf_plan(struct run_ctx *c, struct pmustat_error **err);

/* --dry-run: the perf_event_attr of each event (@with_hw: the hardware ones too). */
void
backend_perf_print_dry(struct run_ctx *c, bool with_hw, FILE *out);

/* Everything one stat invocation holds while it counts. */
struct run_ctx {
	const struct stat_opts *o;
	struct target *t;
	struct hw *hw;
	const struct perf_seam *perf;
	const struct stat_events *ev;
	struct plan *plan;		/* hardware events on counters, in runs (the first core's) */
	/*
	 * Each listed core's plan (plans[0] is plan), freed with the run: the
	 * MSR backend's (a core's events can sit on other counters than the
	 * first core's), --dry-run's on several cores; NULL otherwise.
	 */
	struct plan **plans;
	int core;			/* the first counted core: its CPUID, table and plan */
	const int *cores;		/* every counted core, ascending (engine/cores.h) */
	unsigned ncores;
	/* A list across a hybrid's core types: each core's type's CPU and events (engine/core_types.h). */
	const struct target *const *core_t;
	const struct stat_events *const *core_ev;
	FILE *notes;			/* pmustat's own notes (NULL: they would spoil a record) */
	struct nb_core *nb_cores;	/* a live NetBurst PMU: per core, its thread and sibling (backend_msr_nb.h) */

	/* The hardware events', then the software events'; then --regions' step (engine/regions.h). */
	const struct backend_ops *backends[3];
	void *state[2];			/* each backend's own */
	struct regions *regions;	/* --regions: the step's own */
	unsigned nbackends;
	char backend_why[1024];		/* why auto did not take the MSR path */
	char sw_unsupported_why[512];	/* why the default set's software events are <not supported>, or "" */

	/* The current round: per counted event (hw then sw). */
	struct run_count *counts;
	unsigned round;			/* 1-based, while running */
	unsigned cur_run;		/* 1-based batch, while running (-I) */
	char **command_env;		/* the command's environment when it runs as the invoker */
	const struct invoker *inv;

	/* -I: the callback of a sample (the engine's report), and its argument. */
	void (*emit_interval)(void *arg, double time, const uint64_t *deltas, const uint64_t *core_deltas);
	void *emit_arg;

	/*
	 * Per core i of each hardware event u in the current round:
	 * core_counts[u * ncores + i] (their sum is counts[u].value); of a
	 * software event u too when the perf backend counted it per CPU (-A).
	 */
	uint64_t *core_counts;

	/* Every round's count of each counted event u: values[u * repeat + k], k < nvalues[u]. */
	unsigned repeat;
	uint64_t *values;
	unsigned *nvalues;
	/* And per core (as core_counts): core_values[(u * ncores + i) * repeat + k]. */
	uint64_t *core_values;
	unsigned rounds;		/* rounds run (fewer than repeat: stopped at a failure) */
	/* Wall time of each run of each round: run_seconds[(round - 1) * plan->nruns + run]. */
	double *run_seconds;
	/* And its TSC ticks (rdtsc at the window's edges; 0: not read), indexed the same. */
	uint64_t *run_tsc;
	/*
	 * The current run's TSC at its window's edges (tsc_ok: both read;
	 * tsc_stop once tsc_stopped, after the counters stopped).
	 */
	uint64_t tsc_start, tsc_stop;
	bool tsc_ok, tsc_stopped;

	/* What happened. */
	const char *read_method;	/* "rdpmc", "MSR reads", "perf_event", "simulation": set by the hardware backend */
	char sim_version[32];		/* --backend sim: Valgrind's version ("3.19.0") */
	const char *sim_tool;		/* --backend sim: "cachegrind", or "callgrind" with --regions */
	unsigned sim_processes;		/* --backend sim: the processes the last run summed */
	/*
	 * The counted window over the runs so far: "exact" (no pmustat
	 * instruction in it), "approximate" (why in window_why), NULL before
	 * the command ran.
	 */
	const char *window;
	char window_why[256];
	/*
	 * --per-thread: each watched thread's count of each counted event u,
	 * thread_values[u * nthreads + i], and its line's label ("sleep-1234").
	 */
	uint64_t *thread_values;
	unsigned nthreads;
	char (*thread_labels)[32];
	bool crowding_said;		/* the note that the command's threads queued on its cores, said */
	int status;			/* exit status so far */
	bool command_ran;
	double elapsed;
	double user_time, sys_time;	/* the command's CPU time (its reaped children's too), seconds */
	struct pmustat_error *error;	/* pmustat's own failure, once */
};

/*
 * What every count of a table is of, one scope for all its rows: the
 * counted cores (everything that runs there while the command runs, as
 * perf stat -a and -C count) when -C or -a was given or the MSR backend
 * counts the hardware events (its counters are the cores'); else the
 * command's own threads and children wherever they run (the perf backend
 * following the command, as perf stat does).
 */
bool
run_counts_cores(const struct run_ctx *c);

/*
 * Whether the command is kept on the counted cores: under the MSR backend
 * (it counts those cores; one by default), and under the perf backend
 * when the user named them (-C, -a: what is counted there includes the
 * command) or for -A (its per-CPU split is over the counted cores). The
 * perf backend otherwise leaves the command's affinity alone: the kernel
 * follows its threads wherever they run. Never with -p or -t (the
 * command is not what is counted).
 */
bool
run_pins_command(const struct run_ctx *c);

/* The backend of event @i's kind, and its index in c->backends. */
int
run_backend_of(const struct run_ctx *c, bool software);

/*
 * One round: the plan's runs, each with the command. Sets c->status,
 * c->command_ran, c->elapsed, c->counts; a failure of pmustat itself goes
 * to c->error (status 125, or 126/127 when the command could not run).
 */
int
run_once(struct run_ctx *c);

/*
 * One run without a command (engine/watch.c): the cores for --duration or
 * until a fatal signal, or -p's process until it ends. 0, 1 when a
 * signal ended it, -1 on a failure (in c->error).
 */
int
run_watch(struct run_ctx *c, unsigned run);

/*
 * -r N: the whole sequence N times (once with --dry-run), each count kept
 * in c->values. Stops at the first failing run of the command unless
 * --keep-going (^C, SIGTERM stop anyway), and at any failure of pmustat
 * itself. The first non-zero status of the command is the one reported.
 */
int
run_rounds(struct run_ctx *c);

/* A failure of pmustat: @fmt into c->error (kept if one is there), status 125. Returns the status. */
int
run_fail(struct run_ctx *c, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Take @err as c->error (kept if one is there), status 125. Returns the status. */
int
run_fail_err(struct run_ctx *c, struct pmustat_error **err);

/* Every backend drops what it opened or armed for @run (a failed or abandoned run). */
void
run_discard(struct run_ctx *c, unsigned run);

/*
 * After @run's window closed: every backend's readings, then @sampler's
 * last -I interval (NULL: none). 0, or -1 with every backend discarded and
 * the failure in c->error.
 */
int
run_collect(struct run_ctx *c, unsigned run, const struct backend_ops *sampler);

/*
 * Keep pmustat off the measured core while the command runs, and on it to
 * rdpmc (@onto). Off: returns whether pmustat may now run elsewhere than
 * @core only (false when its affinity allows no other CPU).
 */
bool
run_pin_self(int core, bool onto);

/*
 * Keep pmustat off every counted core while the command runs (unless none
 * would be left). Returns whether it now runs off them all.
 */
bool
run_keep_off(const int *cores, unsigned n);

/* Listed core @i's PMU and resolved events: its core type's (the first core's unless a hybrid's mixed list). */
const struct pmu_caps *
run_core_caps(const struct run_ctx *c, unsigned i);

const struct stat_events *
run_core_events(const struct run_ctx *c, unsigned i);

#endif
