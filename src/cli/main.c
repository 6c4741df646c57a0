/*
 * main.c - pmustat's entry point: pick the subcommand, nothing else.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "config.h"
#include "base/exit_codes.h"
#include "base/invoker.h"

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: pmustat [-e EVENTS]... [-C CORE] [options] [--] COMMAND [ARGS...]\n"
		"       pmustat info [--json] [--cpu-dump FILE] [--save-cpu-dump FILE] [-C N]\n"
		"       pmustat list [PATTERN] [--metrics] [--long] [--json] [--cpu-dump FILE] [--table NAME]\n"
		"       pmustat state [-C LIST] [--json] [--raw] [--watch MS [--count N]]\n"
		"       pmustat reset [-C LIST] [--zero [--yes] [--force]] [--json]\n"
		"       pmustat --version | --help\n"
		"\n"
		"Counts Intel PMU events for COMMAND by programming the counters of one core.\n");
}

static void
help(void)
{
	usage(stdout);
	printf("\nCounting options:\n");
	stat_usage_options(stdout);
	printf("\n"
	       "Exit status: COMMAND's own; 128+N when it died of signal N; 126 COMMAND not\n"
	       "executable; 127 not found; 3 a CI gate (--check, --baseline) failed; 125 pmustat\n"
	       "itself failed (usage, events, PMU access, MSR error). info: 1 when this machine\n"
	       "cannot count. See pmustat(1).\n");
}

int
main(int argc, char **argv)
{
	char err[512];

	/* Installed set-user-ID root, pmustat would be a root shell for anyone. */
	if (invoker_refuse_setid(argv[0], err, sizeof(err))) {
		fprintf(stderr, "pmustat: %s\n", err);
		return EXIT_PMUSTAT_FAILURE;
	}
	if (argc >= 2) {
		if (strcmp(argv[1], "info") == 0)
			return cmd_info(argc - 1, argv + 1);
		if (strcmp(argv[1], "list") == 0)
			return cmd_list(argc - 1, argv + 1);
		if (strcmp(argv[1], "state") == 0)
			return cmd_state(argc - 1, argv + 1);
		if (strcmp(argv[1], "reset") == 0)
			return cmd_reset(argc - 1, argv + 1);
		if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
			help();
			return 0;
		}
		if (strcmp(argv[1], "--version") == 0) {
			printf("pmustat %s\n", PMUSTAT_VERSION);
			return 0;
		}
	}
	if (argc < 2) {
		usage(stderr);
		return EXIT_PMUSTAT_FAILURE;
	}
	return cmd_stat(argc, argv);
}
