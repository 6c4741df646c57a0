#include "cli/cli.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void
cli_option_error(const char *prog, char *const argv[], const char *optstring)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "?";
	bool missing_value;

	/*
	 * getopt sets optopt for a known option without its value and for an
	 * unknown short option, 0 for an unknown long one.
	 */
	if (strncmp(arg, "--", 2) == 0) {
		missing_value = optopt != 0;
	} else {
		const char *o = optopt ? strchr(optstring, optopt) : NULL;

		missing_value = o && o[1] == ':';
	}
	if (missing_value)
		fprintf(stderr, "%s: option needs a value: %s\n", prog, arg);
	else if (strncmp(arg, "--", 2) == 0 || !optopt)
		fprintf(stderr, "%s: unknown option %s\n", prog, arg);
	else
		fprintf(stderr, "%s: unknown option -%c\n", prog, optopt);
}
