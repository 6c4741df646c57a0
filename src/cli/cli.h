/*
 * cli.h - what the subcommands' option parsers share.
 */
#ifndef PMUSTAT_CLI_H
#define PMUSTAT_CLI_H

/*
 * getopt_long(argc, argv, @optstring, ...) returned '?': say whether the
 * option is unknown or lacks its value, naming it as typed ("--watch",
 * not the internal code of a long option).
 */
void cli_option_error(const char *prog, char *const argv[], const char *optstring);

#endif
