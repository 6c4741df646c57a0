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
		"                         end, --duration or ^C (perf backend; no COMMAND); the MSR\n"
		"                         backend counts cores: -C N --duration TIME instead\n"
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
		"  -I, --interval-print MS  print the counts every MS (>= 10) milliseconds\n");
}

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: pmustat [stat] [-e EVENTS]... [-M METRICS]... [-C LIST | -a] [-A] [--pin-threads]\n"
		"               [-x SEP | --json] [-o FILE]\n"
		"               [--force]\n"
		"               [--no-rerun] [--as-root] [--dry-run [--cpu-dump FILE]]\n"
		"               [--backend msr|perf|sim|auto] [--regions] [-v] [--] COMMAND [ARGS...]\n"
		"       pmustat [options] {-C LIST | -a} [--duration TIME]\n"
		"       pmustat [options] -p PID[,PID...] [--duration TIME]\n"
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

/* -p PID[,PID...], as perf takes it: each a process id, none twice. */
static int
parse_pids(const char *arg, struct stat_opts *o, struct pmustat_error **err)
{
	const char *p = arg;

	o->npids = 0;
	o->pid_list = arg;
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
		for (i = 0; i < o->npids && o->pids[i] != (pid_t)n; i++)
			;
		if (i == o->npids) {
			if (o->npids == STAT_MAX_PIDS)
				return cli_usage_error(err, stat_prog, "-p: at most %d processes", STAT_MAX_PIDS);
			o->pids[o->npids++] = (pid_t)n;
		}
		if (!p[len])
			return 0;
		p += len + 1;
	}
bad:
	return cli_usage_error(err, stat_prog,
			       "-p %s: want the id of a running process, or several separated by commas (1234,5678)", arg);
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
};

/* '+': the first non-option word is COMMAND; its options are its own. */
#define STAT_OPTSTRING "+e:M:C:aAx:o:vhr:I:jp:"

static const struct option longopts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "metrics", required_argument, NULL, 'M' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "no-aggr", no_argument, NULL, 'A' },
	{ "field-separator", required_argument, NULL, 'x' },
	{ "json", no_argument, NULL, 'j' },
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, 'f' },
	{ "no-rerun", no_argument, NULL, 'n' },
	{ "as-root", no_argument, NULL, OPT_AS_ROOT },
	{ "dry-run", no_argument, NULL, 'd' },
	{ "cpu-dump", required_argument, NULL, OPT_CPU_DUMP },
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
	{ "log-fd", required_argument, NULL, OPT_LOG_FD },
	{ "csv-header", no_argument, NULL, OPT_CSV_HEADER },
	{ "regions", no_argument, NULL, OPT_REGIONS },
	{ "pid", required_argument, NULL, 'p' },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "pin-threads", no_argument, NULL, OPT_PIN_THREADS },
	{ NULL, 0, NULL, 0 },
};

/* One option into @o: 0, or -EINVAL with the usage error. */
static int
take_option(int c, struct stat_opts *o, struct pmustat_error **err)
{
	struct check_error cerr;

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
		unsigned n;

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
	case 'f':
		o->force = true;
		return 0;
	case 'n':
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
	case 'd':
		o->dry_run = true;
		return 0;
	case OPT_CPU_DUMP:
		o->cpu_dump = optarg;
		return 0;
	case OPT_REGIONS:
		o->regions = true;
		return 0;
	case 'p':
		return parse_pids(optarg, o, err);
	case OPT_DURATION:
		if (parse_duration(optarg, &o->duration_ms))
			return cli_usage_error(err, stat_prog,
					       "--duration %s: want a time from 1ms to 24h such as 5, 5s, 500ms or 2m", optarg);
		return 0;
	case 'v':
		o->verbose++;
		return 0;
	case 'B':
		if (backend_parse(optarg, &o->backend))
			return cli_usage_error(err, stat_prog, "--backend %s: want msr, perf, sim or auto", optarg);
		return 0;
	}
	return -EINVAL;
}

/*
 * Counting without a command: -p's processes, or -C/-a's cores; what goes
 * with neither. @o->command is set already when there is one.
 */
static int
check_no_command(const struct stat_opts *o, struct pmustat_error **err)
{
	bool cores = o->cpu_list || o->all_cpus || o->core >= 0;

	if (o->npids && o->command)
		return cli_usage_error(err, stat_prog,
				       "-p %s counts running processes, not a COMMAND: give one or the other (--duration TIME bounds -p)",
				       o->pid_list);
	if (o->duration_ms && o->command)
		return cli_usage_error(err, stat_prog,
				       "--duration counts cores (-C, -a) or -p's process without a COMMAND; a COMMAND is counted until it ends (timeout(1) bounds it)");
	if (o->npids && cores)
		return cli_usage_error(err, stat_prog,
				       "-p counts the process wherever it runs: it goes without -C and -a (-C LIST --duration TIME counts cores)");
	if (o->npids && o->backend == BACKEND_MSR)
		return err_set(err, -EINVAL,
			       "-p %s: the MSR backend counts cores, not a process (another process's counts cannot be told apart on its core); use --backend perf (the default auto takes it for -p), or count the process's core for a time: -C N --duration TIME",
			       o->pid_list);
	if (!o->command && (o->npids || cores)) {
		if (o->repeat > 1)
			return cli_usage_error(err, stat_prog, "-r repeats a COMMAND: without one there is nothing to run again");
		if (o->regions)
			return cli_usage_error(err, stat_prog, "--regions counts a COMMAND's regions: it needs one");
	}
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
	if (!o.command && !o.npids && !o.duration_ms && !o.cpu_list && !o.all_cpus && o.core < 0) {
		usage(stderr);
		err_set(err, -EINVAL, "no command given: pmustat [options] [--] COMMAND [ARGS...] (or -C LIST, -a, -p PID to count without one)");
		return EXIT_PMUSTAT_FAILURE;
	}
	if (!o.command && !o.npids && o.core < 0 && !o.cpu_list && !o.all_cpus) {
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
