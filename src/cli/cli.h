/*
 * cli.h - what the subcommands share: how a usage error reads, the -C
 * number, and the subcommands themselves.
 *
 * A subcommand gets argv with argv[0] its own word ("info"; "pmustat" for
 * stat), parses its options and returns pmustat's exit status. When pmustat
 * itself fails it sets *@err instead and returns; cli/main.c is the one
 * place that prints that ("pmustat info: what failed") and exits with
 * err_status(*err) (125 unless the error says otherwise).
 */
#ifndef PMUSTAT_CLI_H
#define PMUSTAT_CLI_H

#include <stdio.h>

struct pmustat_error;

int cmd_info(int argc, char **argv, struct pmustat_error **err);
int cmd_list(int argc, char **argv, struct pmustat_error **err);
int cmd_reset(int argc, char **argv, struct pmustat_error **err);
/*
 * Counting: `pmustat [options] COMMAND` (cmd_stat) and the same spelled as
 * perf spells it, `pmustat stat [options] COMMAND` (cmd_stat_subcommand,
 * whose messages say "pmustat stat"). cmd_stat_as() is both, with @prog
 * starting the messages.
 */
int cmd_stat(int argc, char **argv, struct pmustat_error **err);
int cmd_stat_subcommand(int argc, char **argv, struct pmustat_error **err);
int cmd_stat_as(const char *prog, int argc, char **argv, struct pmustat_error **err);
int cmd_state(int argc, char **argv, struct pmustat_error **err);
int cmd_serve(int argc, char **argv, struct pmustat_error **err);

struct stat_opts;
/* One of stat's options (getopt's @c and optarg) into @o, messages as @prog: 0, or -EINVAL with the usage error. */
int stat_take_option(const char *prog, int c, struct stat_opts *o, struct pmustat_error **err);
/* @o as no option set it: no core chosen, no descriptors, one run. */
void stat_opts_defaults(struct stat_opts *o);

/* The counting options, for pmustat --help. */
void stat_usage_options(FILE *out);

/*
 * A usage error of @prog ("pmustat info"): @fmt's text and "; try '@prog
 * --help'", one line, exit 125. Returns -EINVAL.
 */
int cli_usage_error(struct pmustat_error **err, const char *prog, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * getopt_long(argc, argv, @optstring, ...) returned '?': the usage error
 * naming the option as typed ("--watch", not the internal code of a long
 * option), unknown or lacking its value. Returns -EINVAL.
 */
int cli_option_error(struct pmustat_error **err, const char *prog, char *const argv[],
		     const char *optstring);

/* A -C argument: one CPU number, 0..CPU_SETSIZE-1. 0, or the usage error. */
int cli_parse_cpu(const char *arg, int *cpu, const char *prog, struct pmustat_error **err);

#endif
