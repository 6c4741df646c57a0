/*
 * stat.c - `pmustat [-e EVENTS]... [options] [--] COMMAND [ARGS...]`:
 * argv into a struct stat_opts (engine/stat.h), checked, then counted by
 * stat_main(). Nothing here touches the machine.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/exit_codes.h"
#include "cli/cli.h"
#include "engine/interval.h"
#include "engine/stat.h"
#include "events/cpu_source.h"
#include "report/output.h"

#define STAT_PROG "pmustat"

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
		"      --dry-run          print the counting plan (every MSR write, and why),\n"
		"                         touch nothing\n"
		"      --cpu-dump FILE    with --dry-run: the plan for the CPU of a libcpuid raw\n"
		"                         dump (all counters assumed free)\n"
		"      --backend B        msr, perf (perf_event_open) or auto (default: msr when\n"
		"                         usable, else perf); software events (task-clock,\n"
		"                         page-faults, ...) always count through perf_event\n"
		"  -v, --verbose          say what pmustat does (counters, counted window, MSR accesses)\n"
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
		"               [--no-rerun] [--as-root] [--dry-run [--cpu-dump FILE]]\n"
		"               [--backend msr|perf|auto] [-v] [--] COMMAND [ARGS...]\n"
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
};

/* '+': the first non-option word is COMMAND; its options are its own. */
#define STAT_OPTSTRING "+e:C:x:o:vhr:I:"

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
			return cli_usage_error(err, STAT_PROG, "at most %d -e options", STAT_MAX_SPECS);
		o->specs[o->nspecs++] = optarg;
		return 0;
	case 'C':
		if (cpu_parse_number(optarg, &o->core))
			return cli_usage_error(err, STAT_PROG, "-C %s: not a CPU number", optarg);
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
			return cli_usage_error(err, STAT_PROG, "-r %s: want a number of runs from 1 to %d", optarg,
					       STAT_MAX_REPEAT);
		return 0;
	case OPT_KEEP_GOING:
		o->keep_going = true;
		return 0;
	case OPT_CHECK:
		if (o->nchecks >= STAT_MAX_CHECKS)
			return cli_usage_error(err, STAT_PROG, "at most %d --check options", STAT_MAX_CHECKS);
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
			return cli_usage_error(err, STAT_PROG, "-I %s: want milliseconds, at least %d", optarg,
					       INTERVAL_MIN_MS);
		return 0;
	case 'd':
		o->dry_run = true;
		return 0;
	case OPT_CPU_DUMP:
		o->cpu_dump = optarg;
		return 0;
	case 'v':
		o->verbose++;
		return 0;
	case 'B':
		if (backend_parse(optarg, &o->backend))
			return cli_usage_error(err, STAT_PROG, "--backend %s: want msr, perf or auto", optarg);
		return 0;
	}
	return -EINVAL;
}

/* The combinations that make no sense. */
static int
check_options(const struct stat_opts *o, struct pmustat_error **err)
{
	if (o->sep && o->json)
		return cli_usage_error(err, STAT_PROG, "-x and --json exclude each other");
	if (o->sep && !output_csv_separator_ok(o->sep))
		return err_set(err, -EINVAL,
			       "-x '%s': a separator must be non-empty and hold no double quote and no line break (fields that contain it are quoted with \")",
			       o->sep);
	if ((o->tolerances.n || o->tolerances.default_percent > 0 || o->tolerances.both ||
	     o->allow_cpu_mismatch) && !o->baseline)
		return cli_usage_error(err, STAT_PROG,
				       "--tolerance, --tolerance-both and --allow-cpu-mismatch need --baseline FILE");
	if (o->cpu_dump && !o->dry_run)
		return cli_usage_error(err, STAT_PROG,
				       "--cpu-dump %s describes another machine: it goes with --dry-run (the plan for that CPU)",
				       o->cpu_dump);
	return 0;
}

int
cmd_stat(int argc, char **argv, struct pmustat_error **err)
{
	static struct stat_opts o;	/* ~100 KiB of --check expressions */
	int c;

	memset(&o, 0, sizeof(o));
	o.core = -1;
	o.repeat = 1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, STAT_OPTSTRING, longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == '?' || c == ':') {
			cli_option_error(err, STAT_PROG, argv, STAT_OPTSTRING);
			return EXIT_PMUSTAT_FAILURE;
		}
		if (take_option(c, &o, err))
			return EXIT_PMUSTAT_FAILURE;
	}
	if (check_options(&o, err))
		return EXIT_PMUSTAT_FAILURE;
	if (optind >= argc) {
		usage(stderr);
		err_set(err, -EINVAL, "no command given: pmustat [options] [--] COMMAND [ARGS...]");
		return EXIT_PMUSTAT_FAILURE;
	}
	o.command = argv + optind;
	return stat_main(&o, err);
}
