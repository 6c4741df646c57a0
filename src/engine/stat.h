/*
 * stat.h - counting events for a command: what `pmustat [options] --
 * COMMAND` asks for, as a value (cli/stat.c fills it from argv), and the
 * one call that does it.
 *
 * The data flow, one file per step:
 *
 *	argv      -> struct stat_opts          cli/stat.c
 *	the CPU   -> struct target             engine/target.c
 *	names     -> events and rows           engine/requests.c
 *	-M        -> events pinned to runs     engine/stat_metrics.c
 *	events    -> struct plan (MSR writes)  engine/plan.c (printed by plan_print.c)
 *	plan      -> counts, per run           engine/run.c over engine/backend_*.c
 *	counts    -> deltas, statistics        pmu/delta.c, engine/result.c
 *	result    -> table, CSV, JSON          report/output.c
 */
#ifndef PMUSTAT_STAT_H
#define PMUSTAT_STAT_H

#include <stdbool.h>
#include <sys/types.h>

#include "engine/backend.h"
#include "report/baseline.h"
#include "report/check.h"

struct pmustat_error;

#define STAT_MAX_SPECS	64
#define STAT_MAX_CHECKS	32
#define STAT_MAX_REPEAT	100000
#define STAT_MAX_PIDS	64

struct stat_opts {
	const char *specs[STAT_MAX_SPECS];	/* -e, in order */
	unsigned nspecs;
	const char *metric_specs[STAT_MAX_SPECS];	/* -M NAME|GROUP[,...], in order */
	unsigned nmetric_specs;
	int core;				/* -C N; -1: the last allowed CPU */
	const char *cpu_list;			/* -C LIST of several CPUs (perf's syntax); NULL: core */
	bool all_cpus;				/* -a: every CPU pmustat may run on */
	bool per_cpu;				/* -A, --no-aggr: one line per CPU, not the sum */
	bool pin_threads;			/* --pin-threads: the command's threads round-robin on the CPUs */
	const char *cpu_dump;			/* --cpu-dump: plan for that CPU (with --dry-run) */
	const char *sep;			/* -x */
	bool json;
	const char *output;			/* -o */
	int log_fd;				/* --log-fd N: the results to this inherited descriptor; -1 */
	bool csv_header;			/* --csv-header: -x output starts with the field names */
	bool force;
	bool no_rerun;
	bool as_root;
	bool dry_run;
	int verbose;
	/* CI gates. */
	unsigned repeat;			/* -r N; 1 without */
	bool keep_going;
	struct check checks[STAT_MAX_CHECKS];
	unsigned nchecks;
	const char *save_baseline;
	const char *baseline;
	struct baseline_tolerances tolerances;
	bool allow_cpu_mismatch;
	unsigned interval_ms;			/* -I; 0 without */
	bool regions;				/* --regions: the command's code regions too (engine/regions.h) */
	enum backend backend;
	pid_t pids[STAT_MAX_PIDS];		/* -p PID[,PID...]: count these processes (perf backend) */
	unsigned npids;				/* 0: no -p */
	const char *pid_list;			/* -p's text, for messages */
	unsigned duration_ms;			/* --duration: count this long without a command; 0 without */
	pid_t tids[STAT_MAX_PIDS];		/* -t TID[,TID...]: count these threads only (perf backend) */
	unsigned ntids;				/* 0: no -t */
	const char *tid_list;			/* -t's text, for messages */
	unsigned timeout_ms;			/* --timeout: SIGTERM to the command (or the end) after it; 0 */
	int delay_ms;				/* -D: counting starts this long after the command; -1: at
						   --control's 'enable' only; 0: at its execve */
	unsigned interval_count;		/* --interval-count: -I stops after this many; 0 without */
	bool append;				/* --append: -o's file gets the results after what it holds */
	bool no_big_num;			/* --no-big-num: counts without thousands separators */
	bool metric_only;			/* --metric-only: the human table without the counts */
	const char *cgroup;			/* -G: on the CPUs, this cgroup's tasks only (perf backend) */
	bool per_thread;			/* --per-thread: -p's or -t's threads one by one */
	bool per_core;				/* --per-core: the CPUs' counts summed per physical core */
	unsigned detailed;			/* -d, -dd, -ddd: perf's detailed events added */
	int ctl_fd, ack_fd;			/* --control fd:CTL[,ACK]: 'enable'/'disable' from the command; -1 */
	char **command;				/* argv of COMMAND, NULL-terminated; NULL: count without one */
};

/*
 * Count @o's events for its command and report them (or, with --dry-run,
 * print the plan). Returns the exit status: the command's own, 128+N for
 * a signal, 3 for a failed gate; when pmustat itself fails, 125 (126, 127:
 * the command could not run) with *@err set, the report still written.
 */
int
stat_main(const struct stat_opts *o, struct pmustat_error **err);

#endif
