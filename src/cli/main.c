/*
 * main.c - pmustat's entry point: pick the subcommand, run it, and be the
 * one place that reports pmustat's own failure ("pmustat info: what
 * failed") and turns it into the exit status.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "base/exit_codes.h"
#include "base/invoker.h"
#include "base/std_streams.h"
#include "base/text.h"
#include "cli/cli.h"
#include "config.h"

static const struct {
	const char *word;
	const char *prog;	/* how its messages start */
	int (*run)(int argc, char **argv, struct pmustat_error **err);
} subcommands[] = {
	{ "stat", "pmustat stat", cmd_stat_subcommand },
	{ "info", "pmustat info", cmd_info },
	{ "list", "pmustat list", cmd_list },
	{ "state", "pmustat state", cmd_state },
	{ "reset", "pmustat reset", cmd_reset },
	{ "serve", "pmustat serve", cmd_serve },
};

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: pmustat [stat] [-e EVENTS]... [-C LIST | -a] [-A] [options] [--] COMMAND [ARGS...]\n"
		"       pmustat info [--json] [--cpu-dump FILE] [--save-cpu-dump FILE] [-C N]\n"
		"       pmustat list [PATTERN] [--metrics] [--long] [--json] [--cpu-dump FILE] [--table NAME]\n"
		"       pmustat list --tables [PATTERN] [--json]\n"
		"       pmustat state [-C LIST] [--json] [--raw] [--watch MS [--count N]]\n"
		"       pmustat reset [-C LIST] [--zero [--yes] [--force]] [--json]\n"
		"       pmustat serve [-e EVENTS] {-C LIST | -a | -p PID} [--listen ADDR:PORT] [--backend perf|msr]\n"
		"       pmustat help [COMMAND]\n"
		"       pmustat --version | --help\n"
		"\n"
		"Counts Intel PMU events for COMMAND by programming the counters of the cores it runs on.\n");
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

/*
 * The subcommand's status, or its error printed once and turned into the
 * exit status; a standard output that did not take everything printed
 * there is a failure too.
 */
static int
finish(const char *prog, int status, struct pmustat_error *err)
{
	if (err) {
		fprintf(stderr, "%s: %s\n", prog, err_msg(err));
		status = err_status(err);
		err_free(err);
	}
	return std_streams_finish(prog, status);
}

/* pmustat help [COMMAND]: the overall help, or COMMAND's --help. */
static int
help_command(int argc, char **argv)
{
	char help_arg[] = "--help";
	char *sub_argv[] = { NULL, help_arg, NULL };

	if (argc < 3) {
		help();
		return finish("pmustat help", 0, NULL);
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++) {
		if (strcmp(argv[2], subcommands[i].word) == 0) {
			struct pmustat_error *err = NULL;

			sub_argv[0] = argv[2];
			return finish(subcommands[i].prog, subcommands[i].run(2, sub_argv, &err), err);
		}
	}
	fprintf(stderr, "pmustat help: no command '");
	text_put(stderr, argv[2]);
	fprintf(stderr, "'; the commands are stat (counting, the default), info, list, state, reset, serve\n");
	return EXIT_PMUSTAT_FAILURE;
}

int
main(int argc, char **argv)
{
	struct pmustat_error *err = NULL;
	int status;

	/* Installed set-user-ID root, pmustat would be a root shell for anyone. */
	if (invoker_refuse_elevated(argv[0], &err))
		return finish("pmustat", 0, err);
	if (std_streams_open(&err))
		return finish("pmustat", 0, err);
	/* Past a file size limit a write fails (EFBIG) and is reported, instead of killing pmustat mid-run. */
	signal(SIGXFSZ, SIG_IGN);
	if (argc >= 2) {
		for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++) {
			if (strcmp(argv[1], subcommands[i].word) == 0) {
				status = subcommands[i].run(argc - 1, argv + 1, &err);
				return finish(subcommands[i].prog, status, err);
			}
		}
		if (strcmp(argv[1], "help") == 0)
			return help_command(argc, argv);
		if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
			help();
			return finish("pmustat", 0, NULL);
		}
		if (strcmp(argv[1], "--version") == 0) {
			printf("pmustat %s\n", PMUSTAT_VERSION);
			return finish("pmustat", 0, NULL);
		}
	}
	if (argc < 2) {
		usage(stderr);
		return EXIT_PMUSTAT_FAILURE;
	}
	status = cmd_stat(argc, argv, &err);
	return finish("pmustat", status, err);
}
