/*
 * serve.c - `pmustat serve`: count cores (-C LIST, -a) or processes (-p)
 * until SIGINT, SIGTERM or SIGHUP, and answer Prometheus's scrapes of
 * GET /metrics on --listen (engine/exporter.h) with the counts so far.
 * argv into a struct stat_opts (stat's own options where they mean the
 * same), then the one stat run (engine/stat.h) that counts without a
 * command.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "base/exit_codes.h"
#include "cli/cli.h"
#include "engine/exporter.h"
#include "engine/stat.h"

#define PROG "pmustat serve"

/* serve's own long options (stat's codes are stat.c's: -e, -M, -C, -a, -p and -v go there). */
enum {
	OPT_LISTEN = 300,
	OPT_SERVE_BACKEND,
	OPT_SERVE_FORCE,
};

#define SERVE_OPTSTRING "+e:M:C:ap:vh"

static const struct option longopts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "metrics", required_argument, NULL, 'M' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "pid", required_argument, NULL, 'p' },
	{ "backend", required_argument, NULL, OPT_SERVE_BACKEND },
	{ "force", no_argument, NULL, OPT_SERVE_FORCE },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: pmustat serve [-e EVENTS]... [-M METRICS]... {-C LIST | -a | -p PID[,PID...]}\n"
		"                     [--listen ADDR:PORT]\n"
		"                     [--backend perf|msr] [-v]\n"
		"\n"
		"Counts until SIGINT, SIGTERM or SIGHUP and answers GET /metrics with the counts so\n"
		"far (Prometheus text 0.0.4, or OpenMetrics 1.0 when the scrape accepts it), one\n"
		"counter per event and core; scrapes read the counters, never reset them.\n"
		"\n"
		"  -e, --event EVENTS     events to count, comma-separated (default: perf's set)\n"
		"  -M, --metrics NAMES    Intel's metrics (pmustat list --metrics), as gauges beside\n"
		"                         the counters, from the counts so far\n"
		"  -C, --cpu LIST         count these cores (0,2-3)\n"
		"  -a, --all-cpus         count every CPU pmustat may run on\n"
		"  -p, --pid PID[,PID]    count these processes, all their threads (perf backend)\n"
		"      --listen ADDR:PORT where to answer (default " EXPORTER_DEFAULT_LISTEN ", this machine only;\n"
		"                         0.0.0.0:PORT or [::]:PORT let any host that reaches this one\n"
		"                         read the counts, the command lines of -p and the CPU model);\n"
		"                         port 0: any free one (the address is printed)\n"
		"      --backend B        perf (default: the kernel's counters, shared with perf) or\n"
		"                         msr (pmustat programs the PMU, holding the cores' locks)\n"
		"      --force            (msr) take counters another user holds, restored after\n"
		"  -v, --verbose          say what pmustat does\n");
}

int
cmd_serve(int argc, char **argv, struct pmustat_error **err)
{
	static struct stat_opts o;
	int c;

	stat_opts_defaults(&o);
	o.backend = BACKEND_PERF;
	o.serve_listen = EXPORTER_DEFAULT_LISTEN;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, SERVE_OPTSTRING, longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == '?' || c == ':') {
			cli_option_error(err, PROG, argv, SERVE_OPTSTRING);
			return EXIT_PMUSTAT_FAILURE;
		}
		if (c == OPT_LISTEN) {
			o.serve_listen = optarg;
			continue;
		}
		if (c == OPT_SERVE_FORCE) {
			o.force = true;
			continue;
		}
		if (c == OPT_SERVE_BACKEND) {
			if (backend_parse(optarg, &o.backend) || o.backend == BACKEND_AUTO) {
				cli_usage_error(err, PROG, "--backend %s: want perf (the default) or msr", optarg);
				return EXIT_PMUSTAT_FAILURE;
			}
			continue;
		}
		if (stat_take_option(PROG, c, &o, err))
			return EXIT_PMUSTAT_FAILURE;
	}
	if (optind < argc) {
		cli_usage_error(err, PROG, "%s: serve counts cores (-C LIST, -a) or processes (-p), not a COMMAND (pmustat -- COMMAND counts one)",
				argv[optind]);
		return EXIT_PMUSTAT_FAILURE;
	}
	if (!o.npids && !o.cpu_list && !o.all_cpus && o.core < 0) {
		cli_usage_error(err, PROG, "say what to count: -C LIST, -a or -p PID");
		return EXIT_PMUSTAT_FAILURE;
	}
	if (o.npids && (o.cpu_list || o.all_cpus || o.core >= 0)) {
		cli_usage_error(err, PROG, "-p counts the processes wherever they run: it goes without -C and -a");
		return EXIT_PMUSTAT_FAILURE;
	}
	if (o.npids && o.backend == BACKEND_MSR) {
		err_set(err, -EINVAL, "-p %s: the MSR backend counts cores, not a process; use the default perf backend, or -C LIST --backend msr",
			o.pid_list);
		return EXIT_PMUSTAT_FAILURE;
	}
	if (!exporter_listen_ok(o.serve_listen)) {
		cli_usage_error(err, PROG, "--listen %s: want a numeric ADDR:PORT such as 127.0.0.1:9477, 0.0.0.0:9477 or [::1]:9477",
				o.serve_listen);
		return EXIT_PMUSTAT_FAILURE;
	}
	/* One series per core. */
	o.per_cpu = o.npids == 0;
	return stat_main(&o, err);
}
