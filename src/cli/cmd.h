/*
 * cmd.h - pmustat's subcommands. Each gets argv with argv[0] the
 * subcommand word, parses its own options and returns the exit status.
 */
#ifndef PMUSTAT_CMD_H
#define PMUSTAT_CMD_H

#include <stdio.h>

int cmd_info(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_stat(int argc, char **argv);

/* The counting options, for pmustat --help. */
void stat_usage_options(FILE *out);
int cmd_state(int argc, char **argv);

#endif
