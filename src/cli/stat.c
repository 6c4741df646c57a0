/*
 * stat.c - `pmustat [-e EVENTS]... [options] [--] COMMAND [ARGS...]`:
 * argv into a struct stat_opts (engine/stat.h), checked, then counted by
 * stat_main(). Nothing here touches the machine.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/exit_codes.h"
#include "base/same_file.h"
#include "cli/cli.h"
#include "engine/interval.h"
#include "engine/stat.h"
#include "events/cpu_source.h"
#include "report/output.h"

/* How this subcommand's messages start: "pmustat", or "pmustat stat" when named. */
static const char *stat_prog = "pmustat";

void
stat_usage_options(FILE *out)
{
	fprintf(out,
		"  -e, --event EVENTS     events to count, comma-separated (see 'pmustat list');\n"
		"                         '{a,b}' counts a group in the same run;\n"
		"                         default: instructions, cycles, ref-cycles (slots),\n"
		"                         branches, branch-misses, task-clock, context-switches,\n"
		"                         cpu-migrations, page-faults, and user/sys time; without\n"
		"                         a usable PMU the hardware ones show <not supported>\n"
		"  -M, --metrics NAMES    Intel's TMA and Info metrics or groups, comma-separated\n"
		"                         (Frontend_Bound, TmaL1, TopdownL1, Info_Thread_IPC; see\n"
		"                         'pmustat list --metrics'); each metric's events are counted\n"
		"                         in one run; repeatable\n"
		"  -C, --cpu LIST         count on these cores: N, or CPUs and ranges as in\n"
		"                         0,2-3 (default: the last allowed CPU); COMMAND runs\n"
		"                         on them, the counts are summed\n"
		"  -a, --all-cpus         count on every CPU pmustat may run on\n"
		"      --duration TIME    with -C or -a and no COMMAND: count those cores for TIME\n"
		"                         (5, 5s, 500ms, 2m); without it they count until ^C;\n"
		"                         either way the counts are printed and the exit status is 0\n"
		"  -p, --pid PID[,PID]    count existing processes, all their threads, until they\n"
		"                         end, --duration or ^C, or while COMMAND runs (perf\n"
		"                         backend); the MSR backend counts cores: -C N --duration\n"
		"  -t, --tid TID[,TID]    the same for single threads\n"
		"  -G, --cgroup NAME      with -a or -C: only the tasks of cgroup NAME (perf backend)\n"
		"      --per-thread       with -p or -t: a line per thread, then the total\n"
		"      --per-core         with -a or -C: a line per core (its CPUs summed), then the total\n"
		"  -A, --no-aggr          one count per CPU instead of the sum (perf backend too);\n"
		"                         with --regions, each region's sums per thread too\n"
		"      --pin-threads      with -C LIST or -a: the command's first thread on the\n"
		"                         first CPU, each thread it creates on the next, round-robin\n"
		"                         (as likwid-pin); needs ptrace of the command\n"
		"  -x, --field-separator SEP  CSV output\n"
		"  -j, --json             one JSON object\n"
		"      --csv-header       with -x, a first line naming the fields\n"
		"  -o, --output FILE      write the results to FILE instead of stderr\n"
		"      --log-fd N         write the results to inherited descriptor N (N>FILE)\n"
		"      --force            take counters another user holds (restored after)\n"
		"      --no-rerun         refuse instead of running COMMAND once per batch\n"
		"      --as-root          under sudo, run COMMAND as root, not SUDO_UID\n"
		"      --dry-run          print the counting plan (every MSR write, and why),\n"
		"                         touch nothing\n"
		"      --cpu-dump FILE    with --dry-run: the plan for the CPU of a libcpuid raw\n"
		"                         dump (all counters assumed free)\n"
		"      --regions          also count the command's code regions (libpmustat-region,\n"
		"                         pmustat-region(3)): per region its calls and each event's\n"
		"                         sum; MSR backend: sets the rdpmc file to 2 for the run (any\n"
		"                         process may then read the counters), restored after; perf\n"
		"                         backend: the command's own perf events, read in user mode\n"
		"      --backend B        msr, perf (perf_event_open), sim or auto (default: msr when\n"
		"                         usable, else perf; never sim); software events (task-clock,\n"
		"                         page-faults, ...) always count through perf_event;\n"
		"                         sim: Valgrind simulates COMMAND (instructions, caches,\n"
		"                         branches), the same counts on any machine, no PMU needed\n"
		"  -v, --verbose          say what pmustat does (counters, counted window, MSR accesses)\n"
		"  -d, --detailed         perf's detailed events too (L1-dcache, LLC loads and misses);\n"
		"                         -dd adds L1-icache, dTLB and iTLB misses\n"
		"      --topdown          the top-down level 1 metrics (-M TopdownL1)\n"
		"  -B, --big-num          thousands separators in the counts (the default)\n"
		"      --no-big-num       the counts as plain digits\n"
		"      --append           with -o, add the results after what FILE holds\n"
		"      --metric-only      the human table without the counts: what is computed from\n"
		"                         them (insn per cycle, CPUs utilized, -M metrics)\n"
		"      --timeout MS       send COMMAND SIGTERM after MS milliseconds (its status:\n"
		"                         143); without COMMAND, count that long (--duration)\n"
		"  -D, --delay MS         start counting MS milliseconds after COMMAND starts; -1:\n"
		"                         only at --control's 'enable' (perf backend)\n"
		"      --control fd:CTL[,ACK]  COMMAND's helper writes 'enable' or 'disable' to\n"
		"                         descriptor CTL; pmustat answers 'ack' on ACK (perf backend)\n"
		"\n"
		"CI gates (exit 3 when one fails and COMMAND exited 0):\n"
		"  -r, --repeat N         run COMMAND N times; per-event median, mean, min, max, stddev\n"
		"      --keep-going       with -r, go on after a failing run\n"
		"      --check EXPR       e.g. 'LONGEST_LAT_CACHE.MISS<=1.5M', 'Info_Thread_IPC>=1.5',\n"
		"                         'hot:LLC_MISSES<=100' (REGION:EVENT, with --regions) or\n"
		"                         'BR_MISP_RETIRED.ALL_BRANCHES/BR_INST_RETIRED.ALL_BRANCHES<=0.02'\n"
		"                         (with -r: the median; mean(EV), min(EV), max(EV)); repeatable\n"
		"      --save-baseline FILE   write the JSON result to FILE\n"
		"      --baseline FILE    fail when an event (or -M metric) grew beyond the tolerance\n"
		"                         against FILE\n"
		"      --tolerance [EVENT=]PCT  allowed growth (default 0%%), for all or one event or metric\n"
		"      --tolerance-both   a shrink beyond the tolerance fails too\n"
		"      --allow-cpu-mismatch  compare with a baseline of another CPU model or table\n"
		"  -I, --interval-print MS  print the counts every MS (>= 10) milliseconds (either\n"
		"                         backend)\n"
		"      --interval-count N  with -I, N intervals, then no more\n");
}

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: pmustat [stat] [-e EVENTS]... [-M METRICS]... [-C LIST | -a] [-A] [--pin-threads]\n"
		"               [-d] [--topdown] [-x SEP | --json] [-o FILE [--append]] [--no-big-num]\n"
		"               [--timeout MS] [-D MS] [--control fd:CTL[,ACK]] [-I MS [--interval-count N]]\n"
		"               [--force]\n"
		"               [--no-rerun] [--as-root] [--dry-run [--cpu-dump FILE]]\n"
		"               [--backend msr|perf|sim|auto] [--regions] [-v] [--] COMMAND [ARGS...]\n"
		"       pmustat [options] {-C LIST | -a} [--duration TIME]\n"
		"       pmustat [options] {-p PID[,PID...] | -t TID[,TID...]} [--duration TIME | COMMAND]\n"
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

/* --duration: 5, 5s, 1.5s, 500ms, 2m, 1h into milliseconds (1 ms to a day): 0, or -EINVAL. */
static int
parse_duration(const char *s, unsigned *ms)
{
	static const struct {
		const char *suffix;
		double ms;
	} units[] = { { "", 1000 }, { "s", 1000 }, { "ms", 1 }, { "m", 60000 }, { "h", 3600000 } };
	char *end;
	double v;

	if ((*s < '0' || *s > '9') && *s != '.')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		double t = v * units[i].ms;

		if (strcmp(end, units[i].suffix) != 0)
			continue;
		if (t < 1 || t > 24.0 * 3600 * 1000)
			return -EINVAL;
		*ms = (unsigned)(t + 0.5);
		return 0;
	}
	return -EINVAL;
}

/* -p PID[,PID...] and -t TID[,TID...], as perf takes them: each an id, none twice. */
static int
parse_ids(const char *arg, const char *opt, const char *what, pid_t *ids, unsigned *nids, const char **list,
	  struct pmustat_error **err)
{
	const char *p = arg;

	*nids = 0;
	*list = arg;
	for (;;) {
		char one[16];
		size_t len = strcspn(p, ",");
		unsigned n, i;

		if (len == 0 || len >= sizeof(one))
			goto bad;
		memcpy(one, p, len);
		one[len] = '\0';
		if (parse_count(one, 1u << 22, &n) || n == 0)
			goto bad;
		for (i = 0; i < *nids && ids[i] != (pid_t)n; i++)
			;
		if (i == *nids) {
			if (*nids == STAT_MAX_PIDS)
				return cli_usage_error(err, stat_prog, "%s: at most %d %ses", opt, STAT_MAX_PIDS, what);
			ids[(*nids)++] = (pid_t)n;
		}
		if (!p[len])
			return 0;
		p += len + 1;
	}
bad:
	return cli_usage_error(err, stat_prog,
			       "%s %s: want the id of a running %s, or several separated by commas (1234,5678)", opt, arg,
			       what);
}

/*
 * --control fd:CTL[,ACK] (perf's): descriptors the command inherits; it
 * writes 'enable' or 'disable' to CTL, pmustat answers 'ack' on ACK.
 */
static int
parse_control(const char *arg, struct stat_opts *o, struct pmustat_error **err)
{
	unsigned ctl, ack = 0;
	char *end;
	int fl;

	errno = 0;
	if (strncmp(arg, "fd:", 3) != 0 || arg[3] < '0' || arg[3] > '9')
		goto bad;
	ctl = (unsigned)strtoul(arg + 3, &end, 10);
	if (errno || (*end && *end != ',') || ctl > (1u << 20))
		goto bad;
	if (*end == ',') {
		if (end[1] < '0' || end[1] > '9')
			goto bad;
		ack = (unsigned)strtoul(end + 1, &end, 10);
		if (errno || *end || ack > (1u << 20))
			goto bad;
	}
	fl = fcntl((int)ctl, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) == O_WRONLY)
		return cli_usage_error(err, stat_prog, "--control %s: descriptor %u is not open for reading (in the shell: pmustat --control fd:%u ... %u<FIFO)",
				       arg, ctl, ctl, ctl);
	o->ctl_fd = (int)ctl;
	o->ack_fd = -1;
	if (ack) {
		fl = fcntl((int)ack, F_GETFL);
		if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
			return cli_usage_error(err, stat_prog, "--control %s: descriptor %u is not open for writing", arg, ack);
		o->ack_fd = (int)ack;
	}
	return 0;
bad:
	return cli_usage_error(err, stat_prog, "--control %s: want fd:CTL or fd:CTL,ACK (descriptor numbers the shell opened, as perf stat takes them)",
			       arg);
}

/* Long options without a short one (-r is --repeat). */
enum {
	OPT_AS_ROOT = 256,
	OPT_KEEP_GOING,
	OPT_CHECK,
	OPT_SAVE_BASELINE,
	OPT_BASELINE,
	OPT_TOLERANCE,
	OPT_TOLERANCE_BOTH,
	OPT_ALLOW_CPU_MISMATCH,
	OPT_CPU_DUMP,
	OPT_LOG_FD,
	OPT_CSV_HEADER,
	OPT_REGIONS,
	OPT_DURATION,
	OPT_PIN_THREADS,
	OPT_FORCE,
	OPT_NO_RERUN,
	OPT_DRY_RUN,
	OPT_BACKEND,
	OPT_TOPDOWN,
	OPT_NO_BIG_NUM,
	OPT_APPEND,
	OPT_TIMEOUT,
	OPT_INTERVAL_COUNT,
	OPT_CONTROL,
	OPT_METRIC_ONLY,
	OPT_PER_THREAD,
	OPT_PER_CORE,
};

/* '+': the first non-option word is COMMAND; its options are its own. */
#define STAT_OPTSTRING "+e:M:C:aAx:o:vhr:I:jp:t:dBD:G:"

static const struct option longopts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "metrics", required_argument, NULL, 'M' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "no-aggr", no_argument, NULL, 'A' },
	{ "field-separator", required_argument, NULL, 'x' },
	{ "json", no_argument, NULL, 'j' },
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "no-rerun", no_argument, NULL, OPT_NO_RERUN },
	{ "as-root", no_argument, NULL, OPT_AS_ROOT },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "cpu-dump", required_argument, NULL, OPT_CPU_DUMP },
	{ "verbose", no_argument, NULL, 'v' },
	{ "backend", required_argument, NULL, OPT_BACKEND },
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
	{ "log-fd", required_argument, NULL, OPT_LOG_FD },
	{ "csv-header", no_argument, NULL, OPT_CSV_HEADER },
	{ "regions", no_argument, NULL, OPT_REGIONS },
	{ "pid", required_argument, NULL, 'p' },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "pin-threads", no_argument, NULL, OPT_PIN_THREADS },
	{ "tid", required_argument, NULL, 't' },
	{ "detailed", no_argument, NULL, 'd' },
	{ "big-num", no_argument, NULL, 'B' },
	{ "no-big-num", no_argument, NULL, OPT_NO_BIG_NUM },
	{ "delay", required_argument, NULL, 'D' },
	{ "topdown", no_argument, NULL, OPT_TOPDOWN },
	{ "append", no_argument, NULL, OPT_APPEND },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "interval-count", required_argument, NULL, OPT_INTERVAL_COUNT },
	{ "control", required_argument, NULL, OPT_CONTROL },
	{ "metric-only", no_argument, NULL, OPT_METRIC_ONLY },
	{ "cgroup", required_argument, NULL, 'G' },
	{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
	{ "per-core", no_argument, NULL, OPT_PER_CORE },
	{ NULL, 0, NULL, 0 },
};

/* One option into @o: 0, or -EINVAL with the usage error. */
static int
take_option(int c, struct stat_opts *o, struct pmustat_error **err)
{
	struct check_error cerr;
	unsigned n;

	switch (c) {
	case 'e':
		if (o->nspecs >= STAT_MAX_SPECS)
			return cli_usage_error(err, stat_prog, "at most %d -e options", STAT_MAX_SPECS);
		o->specs[o->nspecs++] = optarg;
		return 0;
	case 'M':
		if (o->nmetric_specs >= STAT_MAX_SPECS)
			return cli_usage_error(err, stat_prog, "at most %d -M options", STAT_MAX_SPECS);
		o->metric_specs[o->nmetric_specs++] = optarg;
		return 0;
	case 'C': {
		static bool listed[CPU_SETSIZE];

		o->cpu_list = NULL;
		o->all_cpus = false;
		if (cpu_parse_number(optarg, &o->core) == 0)
			return 0;
		if (strcmp(optarg, "all") == 0) {
			o->all_cpus = true;
			return 0;
		}
		/* Checked here, resolved against pmustat's affinity when the run starts. */
		if (cpu_parse_list(optarg, CPU_SETSIZE, listed, NULL))
			return cli_usage_error(err, stat_prog,
					       "-C %s: not a CPU number, nor a list of CPUs below %d such as 0,2-3",
					       optarg, CPU_SETSIZE);
		o->cpu_list = optarg;
		return 0;
	}
	case 'a':
		o->all_cpus = true;
		o->cpu_list = NULL;
		o->core = -1;
		return 0;
	case 'A':
		o->per_cpu = true;
		return 0;
	case OPT_PIN_THREADS:
		o->pin_threads = true;
		return 0;
	case 'x':
		o->sep = optarg;
		return 0;
	case 'j':
		o->json = true;
		return 0;
	case 'o':
		o->output = optarg;
		return 0;
	case OPT_LOG_FD: {
		int fl;

		if (strcmp(optarg, "0") == 0 || parse_count(optarg, 1u << 20, &n) || n <= 2)
			return cli_usage_error(err, stat_prog, "--log-fd %s: want a descriptor number above 2 (stdin, stdout and stderr are not for that)",
					       optarg);
		fl = fcntl((int)n, F_GETFL);
		if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
			return cli_usage_error(err, stat_prog,
					       "--log-fd %u: not a descriptor open for writing (open it in the shell: pmustat --log-fd %u ... %u>FILE)",
					       n, n, n);
		o->log_fd = (int)n;
		return 0;
	}
	case OPT_CSV_HEADER:
		o->csv_header = true;
		return 0;
	case OPT_FORCE:
		o->force = true;
		return 0;
	case OPT_NO_RERUN:
		o->no_rerun = true;
		return 0;
	case OPT_AS_ROOT:
		o->as_root = true;
		return 0;
	case 'r':
		if (parse_count(optarg, STAT_MAX_REPEAT, &o->repeat))
			return cli_usage_error(err, stat_prog, "-r %s: want a number of runs from 1 to %d", optarg,
					       STAT_MAX_REPEAT);
		return 0;
	case OPT_KEEP_GOING:
		o->keep_going = true;
		return 0;
	case OPT_CHECK:
		if (o->nchecks >= STAT_MAX_CHECKS)
			return cli_usage_error(err, stat_prog, "at most %d --check options", STAT_MAX_CHECKS);
		/* The message has the expression and a caret under the error on lines of their own. */
		if (check_parse(optarg, &o->checks[o->nchecks], &cerr))
			return check_set_error(err, optarg, &cerr);
		o->nchecks++;
		return 0;
	case OPT_SAVE_BASELINE:
		o->save_baseline = optarg;
		return 0;
	case OPT_BASELINE:
		o->baseline = optarg;
		return 0;
	case OPT_TOLERANCE:
		return baseline_parse_tolerance(optarg, &o->tolerances, err) ? -EINVAL : 0;
	case OPT_TOLERANCE_BOTH:
		o->tolerances.both = true;
		return 0;
	case OPT_ALLOW_CPU_MISMATCH:
		o->allow_cpu_mismatch = true;
		return 0;
	case 'I':
		if (parse_count(optarg, 24 * 3600 * 1000, &o->interval_ms) || o->interval_ms < INTERVAL_MIN_MS)
			return cli_usage_error(err, stat_prog, "-I %s: want milliseconds, at least %d", optarg,
					       INTERVAL_MIN_MS);
		return 0;
	case OPT_DRY_RUN:
		o->dry_run = true;
		return 0;
	case 'd':
		o->detailed++;
		return 0;
	case 'B':
		o->no_big_num = false;
		return 0;
	case OPT_NO_BIG_NUM:
		o->no_big_num = true;
		return 0;
	case OPT_TOPDOWN:
		if (o->nmetric_specs >= STAT_MAX_SPECS)
			return cli_usage_error(err, stat_prog, "at most %d -M options (--topdown is one)", STAT_MAX_SPECS);
		o->metric_specs[o->nmetric_specs++] = "TopdownL1";
		return 0;
	case OPT_APPEND:
		o->append = true;
		return 0;
	case 'G':
		o->cgroup = optarg;
		return 0;
	case OPT_PER_THREAD:
		o->per_thread = true;
		return 0;
	case OPT_PER_CORE:
		o->per_core = true;
		return 0;
	case OPT_METRIC_ONLY:
		o->metric_only = true;
		return 0;
	case 'D':
		/* perf's -D: milliseconds after the command starts, or -1: disabled until --control enables. */
		if (strcmp(optarg, "-1") == 0)
			o->delay_ms = -1;
		else if (strcmp(optarg, "0") == 0)
			o->delay_ms = 0;
		else if (parse_count(optarg, 24 * 3600 * 1000, &n))
			return cli_usage_error(err, stat_prog,
					       "-D %s: want milliseconds to wait after the command starts (up to a day), or -1 to start disabled (--control enables)",
					       optarg);
		else
			o->delay_ms = (int)n;
		return 0;
	case OPT_TIMEOUT:
		if (parse_count(optarg, 24 * 3600 * 1000, &o->timeout_ms) || o->timeout_ms < INTERVAL_MIN_MS)
			return cli_usage_error(err, stat_prog, "--timeout %s: want milliseconds, at least %d (as perf stat)",
					       optarg, INTERVAL_MIN_MS);
		return 0;
	case OPT_INTERVAL_COUNT:
		if (parse_count(optarg, 1u << 30, &o->interval_count))
			return cli_usage_error(err, stat_prog, "--interval-count %s: want a number of intervals, 1 or more",
					       optarg);
		return 0;
	case OPT_CONTROL:
		return parse_control(optarg, o, err);
	case 't':
		return parse_ids(optarg, "-t", "thread", o->tids, &o->ntids, &o->tid_list, err);
	case OPT_CPU_DUMP:
		o->cpu_dump = optarg;
		return 0;
	case OPT_REGIONS:
		o->regions = true;
		return 0;
	case 'p':
		return parse_ids(optarg, "-p", "process", o->pids, &o->npids, &o->pid_list, err);
	case OPT_DURATION:
		if (parse_duration(optarg, &o->duration_ms))
			return cli_usage_error(err, stat_prog,
					       "--duration %s: want a time from 1ms to 24h such as 5, 5s, 500ms or 2m", optarg);
		return 0;
	case 'v':
		o->verbose++;
		return 0;
	case OPT_BACKEND:
		if (backend_parse(optarg, &o->backend))
			return cli_usage_error(err, stat_prog, "--backend %s: want msr, perf, sim or auto", optarg);
		return 0;
	}
	return -EINVAL;
}

/*
 * Counting without a command: -p's processes or -t's threads, or -C/-a's
 * cores; with one, -p and -t are counted while it runs. What goes with
 * neither. @o->command is set already when there is one.
 */
static int
check_no_command(const struct stat_opts *o, struct pmustat_error **err)
{
	bool cores = o->cpu_list || o->all_cpus || o->core >= 0;
	bool tasks = o->npids || o->ntids;
	const char *opt = o->npids ? "-p" : "-t", *list = o->npids ? o->pid_list : o->tid_list;

	if (o->npids && o->ntids)
		return cli_usage_error(err, stat_prog, "-p counts whole processes and -t single threads: give one of them");
	if (o->duration_ms && o->command)
		return cli_usage_error(err, stat_prog,
				       "--duration counts cores (-C, -a) or -p's process without a COMMAND; a COMMAND is counted until it ends (--timeout MS bounds it)");
	if (o->duration_ms && o->timeout_ms)
		return cli_usage_error(err, stat_prog, "--duration and --timeout both bound the counting: give one");
	if (tasks && cores)
		return cli_usage_error(err, stat_prog,
				       "%s counts the %s wherever it runs: it goes without -C and -a (-C LIST --duration TIME counts cores)",
				       opt, o->npids ? "process" : "thread");
	if (tasks && o->backend == BACKEND_MSR)
		return err_set(err, -EINVAL,
			       "%s %s: the MSR backend counts cores, not a %s (another's counts cannot be told apart on its core); use --backend perf (the default auto takes it for %s), or count the core for a time: -C N --duration TIME",
			       opt, list, o->npids ? "process" : "thread", opt);
	if (!o->command && (tasks || cores)) {
		if (o->repeat > 1)
			return cli_usage_error(err, stat_prog, "-r repeats a COMMAND: without one there is nothing to run again");
		if (o->regions)
			return cli_usage_error(err, stat_prog, "--regions counts a COMMAND's regions: it needs one");
	}
	if (!o->command && (o->delay_ms || o->ctl_fd >= 0))
		return cli_usage_error(err, stat_prog, "-D and --control start and stop the counting of a COMMAND: give one");
	if (tasks && o->command && (o->delay_ms || o->ctl_fd >= 0 || o->regions || o->repeat > 1))
		return cli_usage_error(err, stat_prog,
				       "%s with a COMMAND counts the %s while the COMMAND runs: -D, --control, --regions and -r are for a counted COMMAND",
				       opt, o->npids ? "processes" : "threads");
	if ((o->delay_ms || o->ctl_fd >= 0) && o->backend == BACKEND_MSR)
		return err_set(err, -EINVAL,
			       "-D and --control switch the counters on and off while the command runs, which the perf backend does (the kernel's counters); the MSR backend's window is the command's whole run: use --backend perf (auto takes it for them)");
	return 0;
}

/*
 * --backend sim simulates one COMMAND from its start to its end: nothing
 * that needs CPUs, cores, a running process or the counters mid-run.
 */
static int
check_sim(const struct stat_opts *o, struct pmustat_error **err)
{
	const char *what = NULL;

	if (o->backend != BACKEND_SIM)
		return 0;
	if (!o->command)
		what = "counting without a COMMAND (-p, --duration, -C/-a alone)";
	else if (o->cpu_list || o->all_cpus || o->per_cpu || o->pin_threads)
		what = "-C LIST, -a, -A and --pin-threads (the simulation has no CPUs)";
	else if (o->interval_ms)
		what = "-I (Valgrind gives its counts when the command ends)";
	else if (o->cpu_dump)
		what = "--cpu-dump (the simulation does not depend on the CPU)";
	else if (o->nmetric_specs)
		what = "-M (metrics are computed from hardware events; the simulation counts instructions, caches and branches)";
	if (!what)
		return 0;
	return cli_usage_error(err, stat_prog, "--backend sim simulates one COMMAND from its start to its end: %s does not go with it",
			       what);
}

/* The combinations that make no sense. */
static int
check_options(const struct stat_opts *o, struct pmustat_error **err)
{
	if (o->sep && o->json)
		return cli_usage_error(err, stat_prog, "-x and --json exclude each other");
	if (o->output && o->log_fd >= 0)
		return cli_usage_error(err, stat_prog, "-o and --log-fd exclude each other: the results go to one place");
	if (o->output && o->save_baseline && same_file(o->output, o->save_baseline))
		return cli_usage_error(err, stat_prog, "-o %s and --save-baseline %s are one file: one result would replace the other; name two files",
				       o->output, o->save_baseline);
	if (o->output && o->baseline && same_file(o->output, o->baseline))
		return cli_usage_error(err, stat_prog, "-o %s is the --baseline file %s: the results would replace the baseline they are compared with; name another file (--save-baseline updates a baseline)",
				       o->output, o->baseline);
	if (o->csv_header && !o->sep)
		return cli_usage_error(err, stat_prog, "--csv-header goes with -x SEP (CSV output)");
	if (o->sep && !output_csv_separator_ok(o->sep))
		return err_set(err, -EINVAL,
			       "-x '%s': a separator must be non-empty and hold no double quote and no line break (fields that contain it are quoted with \")",
			       o->sep);
	if ((o->tolerances.n || o->tolerances.default_percent > 0 || o->tolerances.both ||
	     o->allow_cpu_mismatch) && !o->baseline)
		return cli_usage_error(err, stat_prog,
				       "--tolerance, --tolerance-both and --allow-cpu-mismatch need --baseline FILE");
	if (o->cpu_dump && !o->dry_run)
		return cli_usage_error(err, stat_prog,
				       "--cpu-dump %s describes another machine: it goes with --dry-run (the plan for that CPU)",
				       o->cpu_dump);
	if (check_no_command(o, err))
		return -EINVAL;
	if (o->pin_threads && (!o->command || !(o->cpu_list || o->all_cpus)))
		return cli_usage_error(err, stat_prog,
				       "--pin-threads places a COMMAND's threads round-robin on the CPUs of -C LIST or -a: give both");
	if (o->interval_count && !o->interval_ms)
		return cli_usage_error(err, stat_prog, "--interval-count N counts N intervals of -I MS: give -I");
	if (o->cgroup && !(o->cpu_list || o->all_cpus || o->core >= 0))
		return cli_usage_error(err, stat_prog,
				       "-G %s counts a cgroup's tasks on CPUs, as perf stat -G: give -a or -C LIST", o->cgroup);
	if (o->cgroup && (o->npids || o->ntids))
		return cli_usage_error(err, stat_prog, "-G counts a cgroup's tasks; -p and -t name tasks: give one of them");
	if (o->cgroup && o->backend == BACKEND_MSR)
		return err_set(err, -EINVAL,
			       "-G %s: the MSR backend counts cores whole, whoever runs there; the kernel's counters follow a cgroup: use --backend perf (auto takes it for -G)",
			       o->cgroup);
	if (o->per_thread && !o->npids && !o->ntids)
		return cli_usage_error(err, stat_prog, "--per-thread splits -p's or -t's counts by thread: give -p PID or -t TID");
	if (o->per_core && !(o->cpu_list || o->all_cpus))
		return cli_usage_error(err, stat_prog, "--per-core sums the CPUs of each core: give -a or -C LIST");
	if ((o->per_thread || o->per_core) && (o->sep || o->json))
		return cli_usage_error(err, stat_prog,
				       "--per-thread and --per-core shape the human table; -x and --json have the sums (and -A's per_cpu)");
	if (o->per_thread && o->per_core)
		return cli_usage_error(err, stat_prog, "--per-thread and --per-core: give one");
	if (o->metric_only && (o->sep || o->json))
		return cli_usage_error(err, stat_prog,
				       "--metric-only shapes the human table; -x and --json records have the metrics beside the counts");
	if (o->append && !o->output)
		return cli_usage_error(err, stat_prog, "--append adds the results to -o's file: give -o FILE");
	if (o->delay_ms && o->per_cpu && !(o->cpu_list || o->all_cpus || o->core >= 0))
		return cli_usage_error(err, stat_prog,
				       "-D with -A on the command alone is not supported: give -C LIST or -a (the CPUs are counted whole), or drop -A");
	if (o->delay_ms && o->interval_ms)
		return cli_usage_error(err, stat_prog, "-D and -I together are not supported: the intervals start with the command");
	if (o->cpu_dump && (o->cpu_list || o->all_cpus))
		return cli_usage_error(err, stat_prog, "--cpu-dump plans for the one CPU of a dump: give -C N, not a list or -a");
	return check_sim(o, err);
}

int
cmd_stat_as(const char *prog, int argc, char **argv, struct pmustat_error **err)
{
	static struct stat_opts o;	/* ~100 KiB of --check expressions */
	int c;

	stat_prog = prog;

	memset(&o, 0, sizeof(o));
	o.core = -1;
	o.log_fd = -1;
	o.ctl_fd = -1;
	o.ack_fd = -1;
	o.repeat = 1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, STAT_OPTSTRING, longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == '?' || c == ':') {
			cli_option_error(err, stat_prog, argv, STAT_OPTSTRING);
			return EXIT_PMUSTAT_FAILURE;
		}
		if (take_option(c, &o, err))
			return EXIT_PMUSTAT_FAILURE;
	}
	if (optind < argc)
		o.command = argv + optind;
	if (check_options(&o, err))
		return EXIT_PMUSTAT_FAILURE;
	/* --per-core is -A's per-CPU counts, summed per core. */
	if (o.per_core)
		o.per_cpu = true;
	/* Without a command --timeout is perf's bound of the counting: --duration's. */
	if (!o.command && o.timeout_ms) {
		o.duration_ms = o.timeout_ms;
		o.timeout_ms = 0;
	}
	if (!o.command && !o.npids && !o.ntids && !o.duration_ms && !o.cpu_list && !o.all_cpus && o.core < 0) {
		usage(stderr);
		err_set(err, -EINVAL, "no command given: pmustat [options] [--] COMMAND [ARGS...] (or -C LIST, -a, -p PID to count without one)");
		return EXIT_PMUSTAT_FAILURE;
	}
	if (!o.command && !o.npids && !o.ntids && o.core < 0 && !o.cpu_list && !o.all_cpus) {
		err_set(err, -EINVAL, "--duration counts cores or a process: say which, with -C LIST, -a or -p PID");
		return EXIT_PMUSTAT_FAILURE;
	}
	return stat_main(&o, err);
}

int
cmd_stat(int argc, char **argv, struct pmustat_error **err)
{
	return cmd_stat_as("pmustat", argc, argv, err);
}

int
cmd_stat_subcommand(int argc, char **argv, struct pmustat_error **err)
{
	return cmd_stat_as("pmustat stat", argc, argv, err);
}
