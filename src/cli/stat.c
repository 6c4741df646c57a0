/*
 * cmd_stat.c - `pmustat [-e EVENTS]... [options] [--] COMMAND [ARGS...]`:
 * count events on one core for a command.
 *
 * Order matters: resolve and schedule touching nothing,
 * lock the core, save the PMU, program it with counting off, start a corked
 * child that enables the counters itself right before execve, wait, disable,
 * read, restore. Every exit path after the first MSR write restores; a
 * fatal signal restores from its handler (pmu_restore_from_signal(): seam
 * writes of a static struct pmu, nothing else).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine/backend.h"
#include "base/err.h"
#include "cli/cli.h"
#include "cli/cli.h"
#include "config.h"
#include "events/cpu.h"
#include "events/cpu_source.h"
#include "hw/cpulock.h"
#include "events/data_dir.h"
#include "events/event.h"
#include "events/event_spec.h"
#include "events/event_table.h"
#include "base/exit_codes.h"
#include "hw/hw.h"
#include "engine/interval.h"
#include "base/invoker.h"
#include "pmu/journal.h"
#include "report/json_text.h"
#include "events/mapfile.h"
#include "report/outfile.h"
#include "report/output.h"
#include "engine/perf_backend.h"
#include "pmu/pmu.h"
#include "engine/runner.h"
#include "pmu/counter_sched.h"
#include "report/stats.h"
#include "events/sw_events.h"

/* The last lower-layer error, for the messages below. */
static struct pmustat_error *stat_err;
#define ERR (&stat_err)
#define ERRMSG err_msg(stat_err)

#define MAX_SPECS 64
#define MAX_CHECKS 32
#define MAX_REPEAT 100000
#define LOCK_WAIT_MS 2000

struct stat_opts {
	const char *specs[MAX_SPECS];
	unsigned nspecs;
	int core;
	const char *sep;
	bool json;
	const char *output;
	bool force;
	bool no_rerun;
	bool as_root;
	bool dry_run;
	int verbose;
	/* CI gates. */
	unsigned repeat;		/* -r N; 1 without */
	bool keep_going;
	struct check checks[MAX_CHECKS];
	unsigned nchecks;
	const char *save_baseline;
	const char *baseline;
	struct baseline_tolerances tolerances;
	bool allow_cpu_mismatch;
	unsigned interval_ms;		/* -I; 0 without */
	enum backend backend;
	char **command;
};

/* What a fatal signal needs: static, so the handler uses no heap. */
static struct pmu stat_pmu;
static volatile sig_atomic_t stat_child;

static const int stat_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void
on_signal(int sig, siginfo_t *si, void *uc)
{
	pid_t child = (pid_t)stat_child;
	sigset_t set;

	(void)uc;
	if (child > 0 && (sig == SIGINT || sig == SIGQUIT)) {
		/*
		 * The terminal sends ^C and ^\ to the command too; only a
		 * signal sent to pmustat alone (kill) is passed on. The
		 * command's end then restores on the normal path.
		 */
		if (si && si->si_code == SI_USER && si->si_pid != child)
			kill(child, sig);
		return;
	}
	if (child > 0)
		kill(child, sig);
	/* No -I sample may read a counter once the restore has begun. */
	interval_halt_from_signal();
	/*
	 * The journal is the only record of what to put back if a write
	 * failed; an inexact legacy counter value (1) is as good as it gets.
	 */
	if (pmu_restore_from_signal() >= 0)
		journal_remove_from_signal();
	/* Output files are left as they were. */
	outfile_remove_from_signal();
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

static void
signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(stat_signals) / sizeof(stat_signals[0]); i++)
		sigaddset(&sa.sa_mask, stat_signals[i]);
	for (size_t i = 0; i < sizeof(stat_signals) / sizeof(stat_signals[0]); i++)
		sigaction(stat_signals[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Hardware steps run with the fatal signals held, so a restore never interleaves. */
static void
signals_block(bool block)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(stat_signals) / sizeof(stat_signals[0]); i++)
		sigaddset(&set, stat_signals[i]);
	sigprocmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

/* Is one of the fatal signals waiting (held)? */
static bool
signal_pending(void)
{
	sigset_t set;

	if (sigpending(&set) != 0)
		return false;
	for (size_t i = 0; i < sizeof(stat_signals) / sizeof(stat_signals[0]); i++)
		if (sigismember(&set, stat_signals[i]) == 1)
			return true;
	return false;
}

/*
 * Uncork the child and wait for the command. The fatal signals stay held
 * from before the go until the child has exec'd (or failed and been
 * reaped), and are held again before its pid is forgotten, so the handler
 * knows the child whenever it may still enable counters or run: it can
 * never restore the PMU and leave behind a child that enables them
 * afterwards. The command's end is awaited without reaping it, so the pid
 * the handler may signal stays the command's until then. A signal already
 * waiting before the go ends pmustat with the command never started.
 * Called with the signals held; returns with them held.
 */
static int
go_and_wait(struct runner *r, struct runner_failure *rf, int *ws)
{
	int rc;

	if (signal_pending()) {
		runner_cancel(r);
		/* The handler restores and ends pmustat with the signal. */
		signals_block(false);
		signals_block(true);
		rf->stage = RUNNER_CHILD_LOST;
		rf->err = EINTR;
		return -EINTR;
	}
	rc = runner_go(r, rf, ws);
	if (rc)
		return rc;
	stat_child = r->pid;
	signals_block(false);
	do
		rc = runner_await(r);
	while (rc == -EINTR);
	signals_block(true);
	stat_child = 0;
	return rc ? rc : runner_wait(r, ws);
}

void
stat_usage_options(FILE *out)
{
	fprintf(out,
		"  -e, --event EVENTS     events to count, comma-separated (see 'pmustat list');\n"
		"                         default: instructions, cycles, ref-cycles (slots),\n"
		"                         branches, branch-misses\n"
		"  -C, --cpu CORE         count on this core (default: the last allowed CPU)\n"
		"  -x, --field-separator SEP  CSV output\n"
		"      --json             one JSON object\n"
		"  -o, --output FILE      write the results to FILE instead of stderr\n"
		"      --force            take counters another user holds (restored after)\n"
		"      --no-rerun         refuse instead of running COMMAND once per batch\n"
		"      --as-root          under sudo, run COMMAND as root, not SUDO_UID\n"
		"      --dry-run          print the MSR writes, touch nothing\n"
		"      --backend B        msr, perf (perf_event_open) or auto (default: msr when\n"
		"                         usable, else perf); software events (task-clock,\n"
		"                         page-faults, ...) always count through perf_event\n"
		"  -v, --verbose          say what pmustat does\n"
		"\n"
		"CI gates (exit 3 when one fails and COMMAND exited 0):\n"
		"  -r, --repeat N         run COMMAND N times; per-event median, mean, min, max, stddev\n"
		"      --keep-going       with -r, go on after a failing run\n"
		"      --check EXPR       e.g. 'LONGEST_LAT_CACHE.MISS<=1.5M' or\n"
		"                         'BR_MISP_RETIRED.ALL_BRANCHES/BR_INST_RETIRED.ALL_BRANCHES<=0.02'\n"
		"                         (with -r: the median; mean(EV), min(EV), max(EV)); repeatable\n"
		"      --save-baseline FILE   write the JSON result to FILE\n"
		"      --baseline FILE    fail when an event grew beyond the tolerance against FILE\n"
		"      --tolerance [EVENT=]PCT  allowed growth (default 0%%), for all or one event\n"
		"      --tolerance-both   a shrink beyond the tolerance fails too\n"
		"      --allow-cpu-mismatch  compare with a baseline of another CPU model or table\n"
		"  -I, --interval-print MS  print the counts every MS (>= 10) milliseconds\n");
}

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: pmustat [-e EVENTS]... [-C CORE] [-x SEP | --json] [-o FILE] [--force]\n"
		"               [--no-rerun] [--as-root] [--dry-run] [--backend msr|perf|auto] [-v]\n"
		"               [--] COMMAND [ARGS...]\n"
		"\n");
	stat_usage_options(out);
}

/* A count option: 1..@max. */
static int
parse_count(const char *s, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < 1 || v > max)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

/* Long options without a short one (the gates', and --as-root: -r is --repeat). */
enum {
	OPT_AS_ROOT = 256,
	OPT_KEEP_GOING,
	OPT_CHECK,
	OPT_SAVE_BASELINE,
	OPT_BASELINE,
	OPT_TOLERANCE,
	OPT_TOLERANCE_BOTH,
	OPT_ALLOW_CPU_MISMATCH,
};

/* 0, or EXIT_PMUSTAT_FAILURE after a message (usage errors exit 125 too). */
#define STAT_OPTSTRING "+e:C:x:o:vhr:I:"

static int
parse_opts(int argc, char **argv, struct stat_opts *o)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "no-rerun", no_argument, NULL, 'n' },
		{ "as-root", no_argument, NULL, OPT_AS_ROOT },
		{ "dry-run", no_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "backend", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "keep-going", no_argument, NULL, OPT_KEEP_GOING },
		{ "check", required_argument, NULL, OPT_CHECK },
		{ "save-baseline", required_argument, NULL, OPT_SAVE_BASELINE },
		{ "baseline", required_argument, NULL, OPT_BASELINE },
		{ "tolerance", required_argument, NULL, OPT_TOLERANCE },
		{ "tolerance-both", no_argument, NULL, OPT_TOLERANCE_BOTH },
		{ "allow-cpu-mismatch", no_argument, NULL, OPT_ALLOW_CPU_MISMATCH },
		{ "interval-print", required_argument, NULL, 'I' },
		{ NULL, 0, NULL, 0 },
	};
	struct check_error cerr;
	int c;

	memset(o, 0, sizeof(*o));
	o->core = -1;
	o->repeat = 1;
	optind = 1;
	opterr = 0;
	/* '+': the first non-option word is COMMAND; its options are its own. */
	while ((c = getopt_long(argc, argv, STAT_OPTSTRING, longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (o->nspecs >= MAX_SPECS) {
				fprintf(stderr, "pmustat: at most %d -e options\n", MAX_SPECS);
				return EXIT_PMUSTAT_FAILURE;
			}
			o->specs[o->nspecs++] = optarg;
			break;
		case 'C':
			if (cpu_parse_number(optarg, &o->core)) {
				fprintf(stderr, "pmustat: -C %s: not a CPU number\n", optarg);
				return EXIT_PMUSTAT_FAILURE;
			}
			break;
		case 'x':
			o->sep = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'f':
			o->force = true;
			break;
		case 'n':
			o->no_rerun = true;
			break;
		case OPT_AS_ROOT:
			o->as_root = true;
			break;
		case 'r':
			if (parse_count(optarg, MAX_REPEAT, &o->repeat)) {
				fprintf(stderr, "pmustat: -r %s: want a number of runs from 1 to %d\n", optarg, MAX_REPEAT);
				return EXIT_PMUSTAT_FAILURE;
			}
			break;
		case OPT_KEEP_GOING:
			o->keep_going = true;
			break;
		case OPT_CHECK:
			if (o->nchecks >= MAX_CHECKS) {
				fprintf(stderr, "pmustat: at most %d --check options\n", MAX_CHECKS);
				return EXIT_PMUSTAT_FAILURE;
			}
			if (check_parse(optarg, &o->checks[o->nchecks], &cerr)) {
				check_print_error(stderr, optarg, &cerr);
				return EXIT_PMUSTAT_FAILURE;
			}
			o->nchecks++;
			break;
		case OPT_SAVE_BASELINE:
			o->save_baseline = optarg;
			break;
		case OPT_BASELINE:
			o->baseline = optarg;
			break;
		case OPT_TOLERANCE:
			if (baseline_parse_tolerance(optarg, &o->tolerances, ERR)) {
				fprintf(stderr, "pmustat: %s\n", ERRMSG);
				return EXIT_PMUSTAT_FAILURE;
			}
			break;
		case OPT_TOLERANCE_BOTH:
			o->tolerances.both = true;
			break;
		case OPT_ALLOW_CPU_MISMATCH:
			o->allow_cpu_mismatch = true;
			break;
		case 'I':
			if (parse_count(optarg, 24 * 3600 * 1000, &o->interval_ms) ||
			    o->interval_ms < INTERVAL_MIN_MS) {
				fprintf(stderr, "pmustat: -I %s: want milliseconds, at least %d\n", optarg,
					INTERVAL_MIN_MS);
				return EXIT_PMUSTAT_FAILURE;
			}
			break;
		case 'd':
			o->dry_run = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'B':
			if (backend_parse(optarg, &o->backend)) {
				fprintf(stderr, "pmustat: --backend %s: want msr, perf or auto\n", optarg);
				return EXIT_PMUSTAT_FAILURE;
			}
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			cli_option_error(ERR, "pmustat", argv, STAT_OPTSTRING);
			fprintf(stderr, "pmustat: %s\n", ERRMSG);
			return EXIT_PMUSTAT_FAILURE;
		}
	}
	if (o->sep && o->json) {
		fprintf(stderr, "pmustat: -x and --json exclude each other\n");
		return EXIT_PMUSTAT_FAILURE;
	}
	if (o->sep && !output_csv_separator_ok(o->sep)) {
		fprintf(stderr, "pmustat: -x '%s': a separator must be non-empty and hold no double quote and no line break (fields that contain it are quoted with \")\n",
			o->sep);
		return EXIT_PMUSTAT_FAILURE;
	}
	if ((o->tolerances.n || o->tolerances.default_percent > 0 || o->tolerances.both ||
	     o->allow_cpu_mismatch) && !o->baseline) {
		fprintf(stderr, "pmustat: --tolerance, --tolerance-both and --allow-cpu-mismatch need --baseline FILE\n");
		return EXIT_PMUSTAT_FAILURE;
	}
	if (optind >= argc) {
		fprintf(stderr, "pmustat: no command given: pmustat [options] [--] COMMAND [ARGS...]\n");
		usage(stderr);
		return EXIT_PMUSTAT_FAILURE;
	}
	o->command = argv + optind;
	return 0;
}

/*
 * The --dry-run seam: CPUID and kernel files from the machine, MSR reads
 * from it when allowed (else the power-up state), writes printed and
 * dropped.
 */
struct dry_hw {
	struct hw hw;
	struct hw *real;
	bool can_read;
	uint32_t gp_mask;
	FILE *out;
};

static int
dry_cpuid(void *ctx, int cpu, struct cpu_raw_data_t *raw)
{
	struct dry_hw *d = ctx;

	return hw_cpuid(d->real, cpu, raw);
}

static int
dry_msr_open(void *ctx, int cpu, bool write)
{
	struct dry_hw *d = ctx;

	(void)write;
	d->can_read = hw_msr_open(d->real, cpu, false) == 0;
	return 0;
}

static int
dry_rdmsr(void *ctx, int cpu, uint32_t msr, uint64_t *val)
{
	struct dry_hw *d = ctx;

	if (d->can_read && hw_rdmsr(d->real, cpu, msr, val) == 0)
		return 0;
	/* Power-up: GLOBAL_CTRL has the GP enables, the rest is zero. */
	*val = msr == MSR_IA32_PERF_GLOBAL_CTRL ? d->gp_mask : 0;
	return 0;
}

static int
dry_wrmsr(void *ctx, int cpu, uint32_t msr, uint64_t val)
{
	struct dry_hw *d = ctx;
	char name[48];

	fprintf(d->out, "  wrmsr -p %d 0x%x 0x%llx\t# %s\n", cpu, msr, (unsigned long long)val,
		pmu_msr_name(msr, name, sizeof(name)));
	return 0;
}

static int
dry_rdpmc_probe(void *ctx, int cpu)
{
	(void)ctx;
	(void)cpu;
	return -EPERM;
}

static int
dry_rdpmc(void *ctx, int cpu, uint32_t ecx, uint64_t *val)
{
	(void)ctx;
	(void)cpu;
	(void)ecx;
	(void)val;
	return -EPERM;
}

static int
dry_read_file(void *ctx, enum hw_file file, char *buf, size_t size)
{
	struct dry_hw *d = ctx;

	return hw_read_file(d->real, file, buf, size);
}

static void
dry_close(void *ctx)
{
	(void)ctx;
}

static const struct hw_ops dry_ops = {
	.cpuid = dry_cpuid,
	.msr_open = dry_msr_open,
	.rdmsr = dry_rdmsr,
	.wrmsr = dry_wrmsr,
	.rdpmc_probe = dry_rdpmc_probe,
	.rdpmc = dry_rdpmc,
	.read_file = dry_read_file,
	.close = dry_close,
};

/* Everything one invocation holds; cleaned up by stat_finish(). */
struct stat_run {
	struct stat_opts o;
	struct hw *hw;
	struct dry_hw dry;
	struct cpu_info cpu;
	int core;
	char key[64];
	char cpu_label[128];
	char table_name[128];
	struct event_table *table;
	struct event *events;
	size_t nevents;
	struct sched_slot slots[SCHED_MAX_EVENTS];
	unsigned runs;
	struct stat_row rows[SCHED_MAX_EVENTS];
	unsigned nrows;
	bool pmu_opened;
	int lock_fd;
	FILE *out;
	/* Who pmustat works for; the results file and --save-baseline's, opened as them. */
	struct invoker inv;
	struct outfile out_file;
	struct outfile baseline_file;
	bool baseline_open;
	char **command_env;	/* the command's environment when it runs as inv */
	char error[1024];
	int status;
	bool command_ran;
	double elapsed;
	const char *read_method;
	/* -r, -I, --check, --baseline. */
	uint64_t *values;		/* row i's counts: values[i * repeat + k] */
	unsigned round;			/* 1-based, while running */
	unsigned cur_run;		/* 1-based batch, while running (-I) */
	bool interval_header_done;
	struct interval_sampler sampler;
	struct check_result check_results[MAX_CHECKS];
	struct baseline baseline;
	struct baseline_cmp cmp[SCHED_MAX_EVENTS];
	bool gates_evaluated;
	bool gate_failed;
	/* The backend, and the software events beside the hardware ones. */
	bool cpu_bad;		/* the CPU verdict forbids hardware counting */
	enum backend backend;
	char backend_why[1024];	/* why auto did not take the MSR path */
	struct event sw[SCHED_MAX_EVENTS];
	size_t nsw;		/* their rows follow the hardware rows */
	struct perf_env penv;
	struct perf_counter pc[SCHED_MAX_EVENTS];
	unsigned pc_row[SCHED_MAX_EVENTS];	/* the row of each pc[] */
	unsigned npc;
};

static int
fail(struct stat_run *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
fail(struct stat_run *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->error, sizeof(s->error), fmt, ap);
	va_end(ap);
	s->status = EXIT_PMUSTAT_FAILURE;
	return s->status;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
detect(struct stat_run *s)
{
	int rc;

	s->hw = hw_linux_new();
	if (!s->hw)
		return fail(s, "out of memory");
	s->core = s->o.core >= 0 ? s->o.core : cpu_default_core();
	{
		cpu_set_t allowed;

		/* The command is pinned there: say so now, not after programming. */
		if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0 &&
		    !CPU_ISSET(s->core, &allowed))
			return fail(s, "core %d is outside the CPUs pmustat may run on (its affinity: taskset, cgroup cpuset); pick one of those with -C",
				    s->core);
	}
	rc = cpu_source_load(s->hw, NULL, s->core, &s->cpu, &s->core, ERR);
	if (rc < 0)
		return fail(s, "%s", ERRMSG);
	cpu_mapfile_key(&s->cpu, s->key, sizeof(s->key));
	snprintf(s->cpu_label, sizeof(s->cpu_label), "%s", s->cpu.brand[0] ? s->cpu.brand : s->key);
	/* Hardware events are refused later (resolve_events()); software events need no PMU. */
	if (s->cpu.verdict != CPU_VERDICT_OK) {
		s->cpu_bad = true;
		return 0;
	}
	rc = mapfile_choose_table(pmustat_events_dir(), &s->cpu, s->table_name,
				  sizeof(s->table_name), ERR);
	if (rc == -ENOENT) {
		s->table_name[0] = '\0';
		fprintf(stderr, "pmustat: warning: %s; architectural events only\n", ERRMSG);
		return 0;
	}
	if (rc < 0)
		return fail(s, "%s", ERRMSG);
	/* The table itself is loaded only when an event needs it (load_table()). */
	return 0;
}

/* Load the chosen table; 0 when there is none to load. */
static int
load_table(struct stat_run *s)
{
	int rc;

	if (s->table || !s->table_name[0])
		return 0;
	rc = event_table_load(pmustat_events_dir(), s->table_name, &s->table, ERR);
	if (rc < 0)
		return fail(s, "%s", ERRMSG);
	return 0;
}

/*
 * Resolve one -e: architectural aliases and raw events need no table, so
 * the table (the bulk of pmustat's start-up time) is read only for names
 * that are not one of those.
 */
static int
append_spec(struct stat_run *s, const char *spec)
{
	int rc;

	rc = event_spec_append(spec, s->table, &s->cpu.pmu, &s->events, &s->nevents, ERR);
	if (rc == -EINVAL && !s->table && s->table_name[0]) {
		if (load_table(s))
			return -EIO;
		rc = event_spec_append(spec, s->table, &s->cpu.pmu, &s->events, &s->nevents, ERR);
	}
	return rc;
}

/*
 * Software events go to s->sw: the scheduler and the PMU see hardware
 * events only, and software rows follow the hardware ones.
 */
static void
split_software(struct stat_run *s)
{
	size_t hw = 0;

	for (size_t i = 0; i < s->nevents; i++) {
		if (event_is_software(&s->events[i])) {
			if (s->nsw < SCHED_MAX_EVENTS)
				s->sw[s->nsw++] = s->events[i];
		} else {
			s->events[hw++] = s->events[i];
		}
	}
	s->nevents = hw;
}

static int
resolve_events(struct stat_run *s)
{
	static const char *const defaults[] = {
		"instructions", "cycles", "ref-cycles", "slots", "branches", "branch-misses",
	};
	int rc;

	for (unsigned i = 0; i < s->o.nspecs; i++) {
		rc = append_spec(s, s->o.specs[i]);
		if (rc == -EIO)
			return s->status;
		if (rc < 0 && s->cpu_bad)
			return fail(s, "core %d (%s): %s; %s (software events such as task-clock and page-faults need no PMU)",
				    s->core, s->key, cpu_verdict_text(s->cpu.verdict), ERRMSG);
		if (rc < 0)
			return fail(s, "%s", ERRMSG);
	}
	if (s->o.nspecs == 0 && s->cpu_bad)
		return fail(s, "core %d (%s): %s", s->core, s->key, cpu_verdict_text(s->cpu.verdict));
	if (s->o.nspecs == 0) {
		for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
			/* SLOTS only where fixed counter 3 exists. */
			if (strcmp(defaults[i], "slots") == 0 && !(s->cpu.pmu.fixed_mask & 0x8))
				continue;
			rc = append_spec(s, defaults[i]);
			if (rc == -EIO)
				return s->status;
			/* A default this CPU does not have is left out, not fatal. */
			if (rc < 0 && s->o.verbose)
				fprintf(stderr, "pmustat: default event left out: %s\n", ERRMSG);
		}
	}
	/* An event a --check names is counted even when -e does not list it. */
	for (unsigned k = 0; k < s->o.nchecks; k++) {
		for (unsigned j = 0; j < s->o.checks[k].nevents; j++) {
			const char *name = s->o.checks[k].events[j];
			bool have = false;

			for (size_t i = 0; i < s->nevents && !have; i++)
				have = check_event_matches(name, s->events[i].requested, s->events[i].name);
			if (have)
				continue;
			rc = append_spec(s, name);
			if (rc == -EIO)
				return s->status;
			if (rc < 0)
				return fail(s, "--check '%s': %s", s->o.checks[k].text, ERRMSG);
		}
	}
	if (s->nevents == 0)
		return fail(s, "no event to count");
	if (s->nevents > SCHED_MAX_EVENTS)
		return fail(s, "%zu events; pmustat counts at most %d per invocation",
			    s->nevents, SCHED_MAX_EVENTS);
	split_software(s);
	if (s->nevents && s->cpu_bad)
		return fail(s, "core %d (%s): %s", s->core, s->key, cpu_verdict_text(s->cpu.verdict));
	/* Rows exist from here on, so every later failure can still list the events. */
	for (size_t i = 0; i < s->nevents; i++) {
		s->rows[i].ev = &s->events[i];
		snprintf(s->rows[i].counter, sizeof(s->rows[i].counter), "-");
		s->rows[i].status = "not counted";
	}
	for (size_t i = 0; i < s->nsw; i++) {
		struct stat_row *row = &s->rows[s->nevents + i];

		row->ev = &s->sw[i];
		snprintf(row->counter, sizeof(row->counter), "-");
		row->status = "not counted";
		row->unit = sw_event_of(&s->sw[i])->unit;
	}
	s->nrows = (unsigned)(s->nevents + s->nsw);
	return 0;
}

static bool
uses_offcore(const struct stat_run *s)
{
	for (size_t i = 0; i < s->nevents; i++)
		if (s->events[i].extra_msr)
			return true;
	return false;
}

static int
schedule(struct stat_run *s)
{
	char who[2048], watchdog[32] = "";
	unsigned bad = 0;
	int rc;

	rc = sched_plan(s->events, (unsigned)s->nevents, &s->cpu.pmu, pmu_free_gp(&stat_pmu),
			pmu_free_fixed(&stat_pmu), s->slots, &s->runs, &bad, ERR);
	if (rc == -ENOSPC && (stat_pmu.busy_gp | stat_pmu.busy_fixed)) {
		(void)hw_read_file(s->hw, HW_FILE_NMI_WATCHDOG, watchdog, sizeof(watchdog));
		pmu_describe_busy(&stat_pmu, watchdog, who, sizeof(who));
		return fail(s, "core %d: counters busy: %s. In use: %s. Stop that user, pick another core with -C, or take the counters with --force (pmustat restores them after)",
			    s->core, ERRMSG, who);
	}
	if (rc < 0)
		return fail(s, "core %d: %s", s->core, ERRMSG);
	if (s->runs > 1 && s->o.no_rerun)
		return fail(s, "core %d: the %zu events need %u runs of the command (%u general-purpose counters free) and --no-rerun forbids that; count fewer events",
			    s->core, s->nevents, s->runs, (unsigned)__builtin_popcount(pmu_free_gp(&stat_pmu)));
	for (size_t i = 0; i < s->nevents; i++) {
		s->rows[i].ev = &s->events[i];
		sched_counter_name(&s->slots[i], s->rows[i].counter, sizeof(s->rows[i].counter));
		s->rows[i].run = s->slots[i].run + 1;
		s->rows[i].status = "not counted";
	}
	if (s->o.verbose) {
		fprintf(stderr, "pmustat: core %d (%s), table %s, %u run(s)\n", s->core, s->key,
			s->table_name[0] ? s->table_name : "(architectural events only)", s->runs);
		for (size_t i = 0; i < s->nevents; i++)
			fprintf(stderr, "pmustat:   %-30s -> %s, run %u\n", s->events[i].name,
				s->rows[i].counter, s->rows[i].run);
		if (stat_pmu.busy_gp | stat_pmu.busy_fixed) {
			(void)hw_read_file(s->hw, HW_FILE_NMI_WATCHDOG, watchdog, sizeof(watchdog));
			pmu_describe_busy(&stat_pmu, watchdog, who, sizeof(who));
			fprintf(stderr, "pmustat: %s counters in use: %s\n",
				s->o.force ? "taking" : "scheduled around", who);
		}
	}
	return 0;
}

/*
 * The command runs as the invoking user (SUDO_UID) unless --as-root, with
 * that user's groups and HOME, USER, LOGNAME and SHELL, as sudo -u would.
 */
static int
privileges(struct stat_run *s, struct runner_opts *ro)
{
	const struct invoker *inv = &s->inv;

	if (s->o.as_root || !invoker_is_other(inv))
		return 0;
	ro->drop_privileges = true;
	ro->uid = inv->uid;
	ro->gid = inv->gid;
	ro->ngroups = inv->ngroups < RUNNER_MAX_GROUPS ? inv->ngroups : RUNNER_MAX_GROUPS;
	memcpy(ro->groups, inv->groups, (size_t)ro->ngroups * sizeof(ro->groups[0]));
	if (!s->command_env)
		s->command_env = invoker_environ(inv, environ);
	if (!s->command_env)
		return fail(s, "out of memory for the command's environment");
	ro->envp = s->command_env;
	return 0;
}

/*
 * Keep pmustat itself off the measured core while the command runs (on
 * the CPUs it was allowed at start, less that core), and on it to rdpmc.
 */
static void
pin_self(int core, bool onto)
{
	static cpu_set_t allowed;
	static bool have_allowed;
	cpu_set_t set;

	if (!have_allowed) {
		if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
			return;
		have_allowed = true;
	}
	set = allowed;
	if (onto) {
		CPU_ZERO(&set);
		CPU_SET(core, &set);
	} else {
		CPU_CLR(core, &set);
		if (CPU_COUNT(&set) == 0)
			return;
	}
	(void)sched_setaffinity(0, sizeof(set), &set);
}

static int
dry_run(struct stat_run *s)
{
	FILE *out = s->dry.out;
	int rc;

	fprintf(out, "pmustat: dry run on core %d (%s): %zu event(s), %u run(s); the MSR writes, in order:\n",
		s->core, s->key, s->nevents, s->runs);
	for (unsigned run = 0; run < s->runs; run++) {
		fprintf(out, "run %u: program, counting off\n", run + 1);
		for (size_t i = 0; i < s->nevents; i++)
			if (s->slots[i].run == run)
				fprintf(out, "  # %s -> %s\n", s->events[i].name, s->rows[i].counter);
		rc = pmu_program(&stat_pmu, s->events, s->slots, (unsigned)s->nevents, run, ERR);
		if (rc)
			return fail(s, "%s", ERRMSG);
		fprintf(out, "run %u: enable (in the child, right before execve)\n", run + 1);
		(void)pmu_enable(&stat_pmu);
		pmu_mark_enabled(&stat_pmu);
		fprintf(out, "run %u: disable (when the command ends), then read\n", run + 1);
		rc = pmu_disable(&stat_pmu, ERR);
		if (rc)
			return fail(s, "%s", ERRMSG);
	}
	fprintf(out, "restore\n");
	(void)pmu_restore(&stat_pmu);
	for (size_t i = 0; i < s->nevents; i++)
		s->rows[i].status = "not counted: dry run";
	return 0;
}

/* The command never ran: 127, 126 or 125, and why. */
static int
child_failed(struct stat_run *s, const struct runner_failure *rf)
{
	const char *cmd = s->o.command[0];

	s->status = runner_failure_exit_status(rf);
	if ((rf->stage == RUNNER_RESOLVE || rf->stage == RUNNER_EXEC) && rf->err == ENOENT)
		snprintf(s->error, sizeof(s->error), "%s: command not found", cmd);
	else if (rf->stage == RUNNER_RESOLVE || rf->stage == RUNNER_EXEC)
		snprintf(s->error, sizeof(s->error), "%s: cannot execute: %s", cmd, strerror(rf->err));
	else
		snprintf(s->error, sizeof(s->error), "%s: %s failed: %s", cmd,
			 runner_stage_name(rf->stage), strerror(rf->err));
	return s->status;
}

/*
 * Open the perf_event counters of @run on the corked child @pid: the
 * hardware events of the run (backend perf) and, in the first run, the
 * software events. Unsupported hardware events are warned about and left
 * out; none open at all is a failure.
 */
static int
perf_open_run(struct stat_run *s, unsigned run, bool with_hw, pid_t pid)
{
	unsigned opened = 0;
	int rc;

	s->npc = 0;
	for (size_t i = 0; with_hw && i < s->nevents; i++) {
		if (s->slots[i].run != run)
			continue;
		s->pc[s->npc].ev = &s->events[i];
		s->pc_row[s->npc++] = (unsigned)i;
	}
	for (size_t i = 0; run == 0 && i < s->nsw; i++) {
		s->pc[s->npc].ev = &s->sw[i];
		s->pc_row[s->npc++] = (unsigned)(s->nevents + i);
	}
	if (s->npc == 0)
		return 0;
	rc = perf_open_counters(perf_linux(), &s->penv, &s->cpu.pmu, s->pc, s->npc, pid, ERR);
	if (rc)
		return fail(s, "%s", ERRMSG);
	for (unsigned k = 0; k < s->npc; k++) {
		struct perf_event_attr attr;

		if (!s->pc[k].open_err) {
			opened++;
			continue;
		}
		(void)perf_attr(s->pc[k].ev, &s->cpu.pmu, &attr, ERR);
		perf_open_error(s->pc[k].open_err, s->pc[k].ev, &attr, &s->penv, ERR);
		if (opened == 0 && k + 1 == s->npc)
			break;
		fprintf(stderr, "pmustat: warning: %s\n", ERRMSG);
	}
	if (opened == 0) {
		perf_close_counters(perf_linux(), s->pc, s->npc);
		return fail(s, "%s%s%s", ERRMSG, s->backend_why[0] ? "; and the MSR backend: " : "",
			    s->backend_why);
	}
	return 0;
}

/* Read, close and put the counts of the open perf_event counters in their rows. */
static void
perf_collect(struct stat_run *s)
{

	if (s->npc == 0)
		return;
	if (perf_read_counters(perf_linux(), s->pc, s->npc, ERR))
		fprintf(stderr, "pmustat: warning: %s\n", ERRMSG);
	perf_close_counters(perf_linux(), s->pc, s->npc);
	for (unsigned k = 0; k < s->npc; k++) {
		struct stat_row *row = &s->rows[s->pc_row[k]];

		row->counted = perf_counter_status(&s->pc[k], &s->penv, row->status_buf,
						   sizeof(row->status_buf));
		row->status = row->status_buf;
		row->value = s->pc[k].v.value;
		row->perf_times = s->pc[k].read_ok;
		row->enabled = s->pc[k].v.enabled;
		row->running = s->pc[k].v.running;
		if (!row->run)
			row->run = 1;
	}
	s->npc = 0;
}

/* --dry-run under the perf backend: the perf_event_attr of every event. */
static void
perf_dry_run(struct stat_run *s)
{
	FILE *out = (s->o.json || s->o.sep) ? stderr : s->out;

	fprintf(out, "pmustat: dry run, backend perf: %zu event(s), %u run(s); perf_event_open on the command's pid, disabled, enable_on_exec, inherit:\n",
		s->nevents + s->nsw, s->runs);
	for (unsigned i = 0; i < s->nrows; i++) {
		struct perf_event_attr attr;

		if (perf_attr(s->rows[i].ev, &s->cpu.pmu, &attr, ERR)) {
			fprintf(out, "  %s: %s\n", s->rows[i].ev->requested, ERRMSG);
			continue;
		}
		fprintf(out, "  run %u: type %s config 0x%llx config1 0x%llx exclude_user %u exclude_kernel %u\t# %s\n",
			s->rows[i].run ? s->rows[i].run : 1,
			attr.type == PERF_TYPE_RAW ? "RAW" : "SOFTWARE",
			(unsigned long long)attr.config, (unsigned long long)attr.config1,
			(unsigned)attr.exclude_user, (unsigned)attr.exclude_kernel, s->rows[i].ev->requested);
		s->rows[i].status = "not counted: dry run";
	}
}

/*
 * Backend perf: the kernel counts. The runs are the MSR backend's (as
 * many hardware events per run as this PMU has counters, one group per
 * run); the counters are opened on the corked child, so counting starts at
 * its execve. No MSR, no core lock, nothing to restore.
 */
/*
 * A run killed by a signal (^C) ends the series: the user wants out, not
 * the next run. The events of the runs left say why they have no count.
 */
static bool
stop_after_killed_run(struct stat_run *s, unsigned run, int ws)
{
	if (!WIFSIGNALED(ws) || run + 1 >= s->runs)
		return false;
	for (size_t i = 0; i < s->nevents; i++)
		if (s->slots[i].run > run)
			s->rows[i].status = "not counted: an earlier run was killed";
	return true;
}

static int
run_perf(struct stat_run *s)
{
	struct runner_opts ro;
	unsigned bad = 0;
	int rc;

	s->runs = 1;
	if (s->nevents) {
		rc = sched_plan(s->events, (unsigned)s->nevents, &s->cpu.pmu, s->cpu.pmu.gp_mask,
				s->cpu.pmu.fixed_mask, s->slots, &s->runs, &bad, ERR);
		if (rc < 0)
			return fail(s, "core %d: %s", s->core, ERRMSG);
		if (s->runs > 1 && s->o.no_rerun)
			return fail(s, "the %zu events need %u runs of the command (%u general-purpose counters) and --no-rerun forbids that; count fewer events",
				    s->nevents, s->runs, s->cpu.pmu.gp_counters);
	}
	for (size_t i = 0; i < s->nevents; i++)
		s->rows[i].run = s->slots[i].run + 1;
	for (size_t i = 0; i < s->nsw; i++)
		s->rows[s->nevents + i].run = 1;
	if (s->o.dry_run) {
		perf_dry_run(s);
		return 0;
	}
	memset(&ro, 0, sizeof(ro));
	ro.cpu = s->core;
	if (privileges(s, &ro))
		return s->status;
	s->read_method = "perf_event";
	signals_install();
	signals_block(true);
	for (unsigned run = 0; run < s->runs; run++) {
		struct runner_failure rf;
		struct runner r;
		double t0;
		int ws = 0;

		rc = runner_start(&r, s->o.command, &ro, &rf);
		if (rc)
			return child_failed(s, &rf);
		if (perf_open_run(s, run, true, r.pid)) {
			runner_cancel(&r);
			return s->status;
		}
		pin_self(s->core, false);
		t0 = now();
		rc = go_and_wait(&r, &rf, &ws);
		s->elapsed += now() - t0;
		if (rf.stage != RUNNER_OK) {
			perf_close_counters(perf_linux(), s->pc, s->npc);
			return child_failed(s, &rf);
		}
		if (rc) {
			perf_close_counters(perf_linux(), s->pc, s->npc);
			return fail(s, "waiting for %s: %s", s->o.command[0], strerror(-rc));
		}
		s->command_ran = true;
		perf_collect(s);
		s->status = runner_exit_status(ws);
		if (stop_after_killed_run(s, run, ws))
			break;
	}
	return s->status;
}

/* --backend, and what auto finds (verbose says which and why). */
static void
choose_backend(struct stat_run *s)
{
	s->backend = backend_choose(s->o.backend, (unsigned)s->nevents, s->hw, &s->cpu, s->core,
				    s->backend_why, sizeof(s->backend_why));
	/* Software events only: nothing for the MSR path to do. */
	if (s->nevents == 0)
		s->backend = BACKEND_PERF;
	if (s->backend == BACKEND_PERF || s->nsw)
		perf_env_probe(perf_linux(), s->hw, &s->penv);
	if (s->o.verbose)
		fprintf(stderr, "pmustat: backend %s%s%s\n", backend_name(s->backend),
			s->backend_why[0] ? ": the MSR path is closed: " : "", s->backend_why);
}

/* The -I callback (the sampler's thread): one record of this run's events. */
static void
emit_interval(void *arg, double time, const uint64_t *deltas)
{
	struct stat_run *s = arg;
	struct stat_interval iv;

	iv.time = time;
	iv.round = s->round ? s->round : 1;
	iv.run = s->cur_run;
	iv.rows = s->rows;
	iv.nrows = (unsigned)s->nevents;	/* hardware rows: those the sampler reads */
	iv.deltas = deltas;
	iv.header = !s->interval_header_done;
	s->interval_header_done = true;
	output_interval(s->out, &iv, s->o.sep, s->o.json);
}

static int
run_all(struct stat_run *s)
{
	struct runner_opts ro;
	bool use_rdpmc;
	int rc;

	memset(&ro, 0, sizeof(ro));
	ro.cpu = s->core;
	ro.enable = pmu_enable;
	ro.arg = &stat_pmu;
	if (privileges(s, &ro))
		return s->status;
	use_rdpmc = hw_rdpmc_probe(s->hw, s->core) == 0;
	s->read_method = use_rdpmc ? "rdpmc" : "MSR reads";

	for (unsigned run = 0; run < s->runs; run++) {
		struct pmu_count counts[SCHED_MAX_EVENTS];
		uint64_t finals[SCHED_MAX_EVENTS] = { 0 };
		struct runner_failure rf;
		struct runner r;
		double t0;
		int ws = 0;

		/*
		 * Program, then fork: the child enables from its copy of
		 * stat_pmu, so the enable sequence must exist before fork().
		 */
		rc = pmu_program(&stat_pmu, s->events, s->slots, (unsigned)s->nevents, run, ERR);
		if (rc)
			return fail(s, "%s", ERRMSG);
		rc = runner_start(&r, s->o.command, &ro, &rf);
		if (rc)
			return child_failed(s, &rf);
		/* Software events: through perf_event, in the first run. */
		if (perf_open_run(s, run, false, r.pid)) {
			runner_cancel(&r);
			return s->status;
		}
		pin_self(s->core, false);
		/* -I: a thread off the core reads the counters while the command runs. */
		if (s->o.interval_ms) {
			s->cur_run = run + 1;
			rc = interval_start(&s->sampler, s->hw, s->core, &s->cpu.pmu, s->slots,
					    (unsigned)s->nevents, run, s->o.interval_ms, emit_interval, s, ERR);
			if (rc) {
				runner_cancel(&r);
				return fail(s, "%s", ERRMSG);
			}
		}
		t0 = now();
		rc = go_and_wait(&r, &rf, &ws);
		interval_stop(&s->sampler);
		/* The child may have enabled before it failed: always disable, first thing. */
		pmu_mark_enabled(&stat_pmu);
		rc = pmu_disable(&stat_pmu, ERR) ? -EIO : rc;
		s->elapsed += now() - t0;
		if (rf.stage == RUNNER_OK && rc == 0)
			perf_collect(s);
		else
			perf_close_counters(perf_linux(), s->pc, s->npc);
		if (rc == -EIO)
			return fail(s, "%s", ERRMSG);
		if (rf.stage != RUNNER_OK)
			return child_failed(s, &rf);
		if (rc)
			return fail(s, "waiting for %s: %s", s->o.command[0], strerror(-rc));
		s->command_ran = true;
		if (use_rdpmc)
			pin_self(s->core, true);
		rc = pmu_read(&stat_pmu, s->slots, (unsigned)s->nevents, run, use_rdpmc, counts, ERR);
		if (rc)
			return fail(s, "%s", ERRMSG);
		for (size_t i = 0; i < s->nevents; i++) {
			if (s->slots[i].run != run)
				continue;
			s->rows[i].counted = true;
			s->rows[i].value = counts[i].value;
			s->rows[i].status = "counted";
			finals[i] = counts[i].value;
		}
		if (s->o.interval_ms)
			interval_finish(&s->sampler, finals);
		s->status = runner_exit_status(ws);
		if (stop_after_killed_run(s, run, ws))
			break;
	}
	return s->status;
}

/*
 * Where pmustat's own notes may go: stderr, unless -x/--json output goes
 * there (the machine stream stays pure; what they say is in the record).
 */
static FILE *
notes_stream(const struct stat_run *s)
{
	if ((s->o.json || s->o.sep) && s->out == stderr)
		return NULL;
	return stderr;
}

/*
 * -r N: the whole run sequence N times, each count kept. Stops at the
 * first failing run of the command unless --keep-going (^C, SIGTERM stop
 * anyway), and at any failure of pmustat itself. The first non-zero
 * status of the command is the one reported.
 */
static int
run_rounds(struct stat_run *s, int (*run_once)(struct stat_run *))
{
	unsigned repeat = s->o.dry_run ? 1 : s->o.repeat;
	int first_failure = 0;

	s->values = calloc((size_t)s->nrows * repeat, sizeof(*s->values));
	if (!s->values)
		return fail(s, "out of memory for %u runs of %u events", repeat, s->nrows);
	for (unsigned i = 0; i < s->nrows; i++)
		s->rows[i].values = s->values + (size_t)i * repeat;
	for (unsigned round = 0; round < repeat; round++) {
		s->round = round + 1;
		for (unsigned i = 0; i < s->nrows; i++)
			s->rows[i].counted = false;
		(void)run_once(s);
		for (unsigned i = 0; i < s->nrows; i++) {
			struct stat_row *row = &s->rows[i];

			if (row->counted)
				s->values[(size_t)i * repeat + row->nvalues++] = row->value;
		}
		if (s->error[0] || s->o.dry_run)
			break;
		if (s->status && !first_failure)
			first_failure = s->status;
		if (s->status && (!s->o.keep_going || s->status == EXIT_SIGNAL_BASE + SIGINT ||
				  s->status == EXIT_SIGNAL_BASE + SIGTERM)) {
			if (round + 1 < repeat && notes_stream(s))
				fprintf(notes_stream(s), "pmustat: run %u of %u of %s exited %d; stopping (--keep-going goes on)\n",
					round + 1, repeat, s->o.command[0], s->status);
			break;
		}
	}
	if (!s->error[0] && repeat > 1)
		s->status = first_failure;
	for (unsigned i = 0; i < s->nrows; i++) {
		struct stat_row *row = &s->rows[i];

		if (row->nvalues == 0 || stats_compute(row->values, row->nvalues, &row->stats))
			continue;
		/* Counted in an earlier round though not in the last: still counted. */
		if (!row->counted)
			row->status = "counted";
		row->counted = true;
		row->value = (uint64_t)(row->stats.median + 0.5);
	}
	return s->status;
}

/* --check's view of a row: @agg of its counts. */
static int
lookup_event(void *ctx, const char *event, enum check_agg agg, double *value)
{
	struct stat_run *s = ctx;

	for (unsigned i = 0; i < s->nrows; i++) {
		const struct stat_row *row = &s->rows[i];

		if (!check_event_matches(event, row->ev->requested, row->ev->name))
			continue;
		if (!row->counted || row->nvalues == 0)
			return -ENOENT;
		switch (agg) {
		case CHECK_AGG_MEAN:
			*value = row->stats.mean;
			break;
		case CHECK_AGG_MIN:
			*value = (double)row->stats.min;
			break;
		case CHECK_AGG_MAX:
			*value = (double)row->stats.max;
			break;
		default:
			*value = row->stats.median;
			break;
		}
		return 0;
	}
	return -ENOENT;
}

/* Before any hardware: read the baseline, refuse another CPU's; -I needs a second CPU. */
static int
gates_prepare(struct stat_run *s)
{
	const struct baseline *b = &s->baseline;
	struct invoker_fs fs;
	int rc;

	if (s->o.interval_ms && interval_check_cpus(s->core, ERR))
		return fail(s, "%s", ERRMSG);
	/* Opened now (as the invoking user), written only when the run succeeds. */
	if (s->o.save_baseline) {
		if (outfile_open(&s->baseline_file, "--save-baseline", s->o.save_baseline, &s->inv, ERR))
			return fail(s, "%s", ERRMSG);
		s->baseline_open = true;
	}
	if (!s->o.baseline)
		return 0;
	/* Read with the invoking user's rights: root's files are not theirs to compare with. */
	rc = invoker_fs_enter(&s->inv, &fs, ERR);
	if (rc == 0) {
		rc = baseline_load(s->o.baseline, &s->baseline, ERR);
		invoker_fs_leave(&fs);
	}
	if (rc)
		return fail(s, "%s", ERRMSG);
	if (s->o.allow_cpu_mismatch)
		return 0;
	if (strcmp(b->cpu_model, s->key) != 0)
		return fail(s, "baseline %s was recorded on %s (%s), this is %s (%s): counts of different CPU models do not compare; record a baseline on this CPU, or pass --allow-cpu-mismatch",
			    s->o.baseline, b->cpu_model, b->cpu[0] ? b->cpu : "?", s->key, s->cpu_label);
	if (strcmp(b->event_table, s->table_name) != 0)
		return fail(s, "baseline %s was counted with event table '%s', this run uses '%s': the same names may not be the same events; record a baseline with this table, or pass --allow-cpu-mismatch",
			    s->o.baseline, b->event_table[0] ? b->event_table : "(none)",
			    s->table_name[0] ? s->table_name : "(none)");
	return 0;
}

/* After the runs: evaluate the checks and the baseline comparison. */
static void
gates_evaluate(struct stat_run *s)
{
	struct baseline_event cur[SCHED_MAX_EVENTS];

	if (!s->command_ran || s->error[0] || s->o.dry_run)
		return;
	s->gates_evaluated = true;
	for (unsigned k = 0; k < s->o.nchecks; k++) {
		check_eval(&s->o.checks[k], lookup_event, s, &s->check_results[k]);
		if (!s->check_results[k].passed)
			s->gate_failed = true;
	}
	if (s->o.baseline) {
		memset(cur, 0, sizeof(cur));
		for (unsigned i = 0; i < s->nrows; i++) {
			snprintf(cur[i].name, sizeof(cur[i].name), "%s", s->rows[i].ev->name);
			snprintf(cur[i].requested, sizeof(cur[i].requested), "%s", s->rows[i].ev->requested);
			cur[i].counted = s->rows[i].counted && s->rows[i].nvalues > 0;
			cur[i].value = s->rows[i].stats.median;
		}
		if (baseline_compare(&s->baseline, cur, s->nrows, &s->o.tolerances, s->cmp))
			s->gate_failed = true;
	}
	/* The command's own failure wins; a gate only turns a 0 into EXIT_GATE_FAILED. */
	if (s->gate_failed && s->status == 0)
		s->status = EXIT_GATE_FAILED;
}

/*
 * --save-baseline: the JSON record of a run that succeeded; the file is
 * left as it was otherwise. A failed write is pmustat's failure (125).
 */
static void
save_baseline(struct stat_run *s, const struct stat_report *rep)
{
	struct stat_report copy = *rep;

	if (!s->baseline_open)
		return;
	s->baseline_open = false;
	if (!s->command_ran || s->status != 0) {
		if (notes_stream(s))
			fprintf(notes_stream(s), "pmustat: --save-baseline %s: not written: %s\n", s->o.save_baseline,
				s->command_ran ? "the run failed (exit status not 0)" : "nothing was counted");
		outfile_abort(&s->baseline_file);
		return;
	}
	copy.json_one_line = false;
	if (output_json(s->baseline_file.f, &copy) != 0 && !ferror(s->baseline_file.f)) {
		outfile_abort(&s->baseline_file);
		fprintf(stderr, "pmustat: --save-baseline %s: out of memory; the file was left as it was\n",
			s->o.save_baseline);
		s->status = EXIT_PMUSTAT_FAILURE;
		return;
	}
	if (outfile_commit(&s->baseline_file, ERR)) {
		fprintf(stderr, "pmustat: %s\n", ERRMSG);
		s->status = EXIT_PMUSTAT_FAILURE;
	}
}

static void
report(struct stat_run *s)
{
	struct stat_report rep;

	memset(&rep, 0, sizeof(rep));
	rep.version = PMUSTAT_VERSION;
	rep.cpu = s->cpu_label[0] ? s->cpu_label : NULL;
	rep.core = s->core;
	rep.event_table = s->table_name[0] ? s->table_name : NULL;
	rep.command = s->o.command;
	rep.exit_status = s->status;
	rep.command_ran = s->command_ran;
	rep.elapsed = s->elapsed;
	rep.runs = s->runs;
	rep.read_method = s->command_ran ? s->read_method : NULL;
	rep.error = s->error[0] ? s->error : NULL;
	rep.backend = s->backend != BACKEND_AUTO ? backend_name(s->backend) : NULL;
	rep.software = s->nsw > 0;
	rep.rows = s->rows;
	rep.nrows = s->nrows;
	rep.cpu_model = s->key[0] ? s->key : NULL;
	rep.repeat = s->o.repeat;
	rep.rounds = s->round;
	rep.checks = s->o.checks;
	rep.nchecks = s->o.nchecks;
	rep.check_results = s->gates_evaluated && s->o.nchecks ? s->check_results : NULL;
	rep.baseline_path = s->o.baseline;
	rep.baseline = s->gates_evaluated && s->o.baseline ? s->cmp : NULL;
	rep.tolerance_both = s->o.tolerances.both;
	rep.gate_failed = s->gate_failed;
	rep.json_one_line = s->o.interval_ms > 0;
	if (s->error[0])
		fprintf(stderr, "pmustat: %s\n", s->error);
	if (s->o.json)
		(void)output_json(s->out, &rep);
	else if (s->o.sep)
		output_csv(s->out, &rep, s->o.sep);
	else if (s->command_ran)
		output_human(s->out, &rep);
	/*
	 * PASS/FAIL lines: after the table; with -x/--json they are records
	 * of the output, and repeated on stderr only when that goes to a file.
	 */
	if (!s->o.json && !s->o.sep)
		output_gate_lines(s->out, &rep);
	else if (s->out != stderr)
		output_gate_lines(stderr, &rep);
	if (s->o.save_baseline)
		save_baseline(s, &rep);
	/* JSON text is UTF-8: say that some was repaired (where it does not spoil the record's stream). */
	if (s->o.json && json_text_repaired() && notes_stream(s))
		fprintf(notes_stream(s), "pmustat: note: text that is not valid UTF-8 (an event name, an argument) is written with U+FFFD in place of each bad byte in the JSON\n");
}

/*
 * The results are written, or pmustat failed: a write that did not reach
 * the file (a full disk, /dev/full, a closed stderr) is exit 125, naming
 * the file, which is then left as it was.
 */
static void
finish_output(struct stat_run *s)
{

	if (outfile_commit(&s->out_file, ERR) != 0) {
		fprintf(stderr, "pmustat: %s\n", ERRMSG);
		s->status = EXIT_PMUSTAT_FAILURE;
	}
	s->out = NULL;
}

int
cmd_stat(int argc, char **argv, struct pmustat_error **err)
{
	static struct stat_run s;
	bool journaled = false;
	int rc;

	(void)err;	/* this subcommand still prints its own failures */
	memset(&s, 0, sizeof(s));
	s.lock_fd = -1;
	s.core = -1;
	rc = parse_opts(argc, argv, &s.o);
	if (rc)
		return rc < 0 ? 0 : rc;
	/* Who the command runs as and the files are written for: never a guess. */
	if (invoker_get(&s.inv, ERR)) {
		fprintf(stderr, "pmustat: %s\n", ERRMSG);
		return EXIT_PMUSTAT_FAILURE;
	}
	if (s.o.output) {
		if (outfile_open(&s.out_file, "-o", s.o.output, &s.inv, ERR)) {
			fprintf(stderr, "pmustat: %s\n", ERRMSG);
			return EXIT_PMUSTAT_FAILURE;
		}
	} else {
		outfile_wrap(&s.out_file, stderr, "standard error");
	}
	s.out = s.out_file.f;

	/* 1. Resolve everything; no hardware but CPUID touched. */
	if (detect(&s) || resolve_events(&s) || gates_prepare(&s))
		goto out;

	/* The perf backend needs no core lock, no MSR and no restore. */
	choose_backend(&s);
	if (s.backend == BACKEND_PERF) {
		if (s.o.interval_ms)
			fail(&s, "-I reads the counters with MSR reads: it needs the MSR backend (%s)",
			     s.backend_why[0] ? s.backend_why : "--backend perf");
		else
			run_rounds(&s, run_perf);
		goto out;
	}

	/* 3. One pmustat per core (none needed to print a plan). */
	if (!s.o.dry_run) {
		s.lock_fd = cpulock_acquire(s.core, LOCK_WAIT_MS, ERR);
		if (s.lock_fd < 0) {
			fail(&s, "%s", ERRMSG);
			goto out;
		}
		/* A run killed mid-count left its journal: put back what it saved first. */
		char *note = NULL;

		rc = journal_recover(JOURNAL_DIR, s.core, s.hw, &s.cpu.pmu, &note, ERR);
		if (rc == 1)
			fprintf(stderr, "pmustat: %s\n", note);
		free(note);
		if (rc < 0) {
			fail(&s, "%s", ERRMSG);
			goto out;
		}
	}

	/* 4. Save the PMU (reads only) and find who else uses it. */
	signals_install();
	signals_block(true);
	if (s.o.dry_run) {
		s.dry.hw.ops = &dry_ops;
		s.dry.hw.ctx = &s.dry;
		s.dry.real = s.hw;
		s.dry.gp_mask = s.cpu.pmu.gp_mask;
		/* The plan is the product; with -x/--json it goes beside the record. */
		s.dry.out = (s.o.json || s.o.sep) ? stderr : s.out;
	}
	rc = pmu_open(&stat_pmu, s.o.dry_run ? &s.dry.hw : s.hw, s.core, &s.cpu.pmu,
		      uses_offcore(&s), ERR);
	if (rc) {
		fail(&s, "%s", ERRMSG);
		goto out;
	}
	s.pmu_opened = true;
	pmu_arm_signal_restore(&stat_pmu);
	if (s.o.force)
		pmu_take_busy(&stat_pmu);

	/* 2. Schedule around counters in use (refuse, naming them, when impossible). */
	if (schedule(&s))
		goto out;

	/* What pmu_open() saved goes to the crash journal before the first write. */
	if (!s.o.dry_run) {
		struct journal j;

		journal_arm_signal_remove(JOURNAL_DIR, s.core);
		rc = journal_from_pmu(&j, &stat_pmu, s.events, s.slots, (unsigned)s.nevents, s.runs, ERR);
		if (rc == 0)
			rc = journal_write(JOURNAL_DIR, &j, ERR);
		if (rc) {
			journal_arm_signal_remove(NULL, 0);
			fail(&s, "core %d: %s; pmustat keeps a journal so that a killed run can be undone, and counts only with one",
			     s.core, ERRMSG);
			goto out;
		}
		journaled = true;
	}

	if (s.o.dry_run)
		dry_run(&s);
	else
		run_rounds(&s, run_all);

out:
	if (s.pmu_opened) {
		rc = pmu_restore(&stat_pmu);
		/* Failed, but nothing had changed (every write refused): no journal needed. */
		if (journaled && (rc >= 0 || journal_matches(JOURNAL_DIR, s.core, s.hw)))
			(void)journal_remove(JOURNAL_DIR, s.core);
		else if (journaled)
			fprintf(stderr, "pmustat: core %d: the journal of what was saved is kept; 'pmustat reset -C %d' retries the restore\n",
				s.core, s.core);
		journal_arm_signal_remove(NULL, 0);
		if (rc < 0 && !s.error[0])
			fail(&s, "core %d: restoring the PMU failed (%s); the counters may still be programmed: %s",
			     s.core, strerror(-rc), hw_msr_hint(rc, true));
		else if (rc == 1)
			fprintf(stderr, "pmustat: warning: core %d: a counter's old value could not be restored exactly (no full-width writes on this CPU)\n",
				s.core);
		pmu_arm_signal_restore(NULL);
	}
	if (s.o.verbose && s.pmu_opened)
		fprintf(stderr, "pmustat: %lu MSR reads, %lu MSR writes, %lu rdpmc; enable through %s\n",
			stat_pmu.msr_reads, stat_pmu.msr_writes, stat_pmu.rdpmc_reads,
			stat_pmu.mode == PMU_ENABLE_GLOBAL ? "IA32_PERF_GLOBAL_CTRL" : "per-counter enables");
	cpulock_release(s.lock_fd);
	signals_block(false);
	gates_evaluate(&s);
	report(&s);
	finish_output(&s);
	if (s.baseline_open)
		outfile_abort(&s.baseline_file);
	free(s.command_env);
	free(s.events);
	free(s.values);
	event_table_free(s.table);
	hw_free(s.hw);
	return s.status;
}
