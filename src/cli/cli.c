/*
 * cli.c - see cli.h.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "cli/cli.h"
#include "events/cpu_source.h"

int
cli_usage_error(struct pmustat_error **err, const char *prog, const char *fmt, ...)
{
	struct strbuf b = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	err_set(err, -EINVAL, "%s; try '%s --help'", strbuf_str(&b), prog);
	strbuf_free(&b);
	return -EINVAL;
}

int
cli_option_error(struct pmustat_error **err, const char *prog, char *const argv[], const char *optstring)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "?";
	bool long_opt = strncmp(arg, "--", 2) == 0;
	bool missing_value;

	/*
	 * getopt sets optopt for a known option without its value and for an
	 * unknown short option, 0 for an unknown long one.
	 */
	if (long_opt) {
		missing_value = optopt != 0;
	} else {
		const char *o = optopt ? strchr(optstring, optopt) : NULL;

		missing_value = o && o[1] == ':';
	}
	if (missing_value && long_opt)
		return cli_usage_error(err, prog, "option %.*s needs a value", (int)strcspn(arg, "="), arg);
	if (missing_value)
		return cli_usage_error(err, prog, "option -%c needs a value", optopt);
	if (long_opt || !optopt)
		return cli_usage_error(err, prog, "unknown option %s", arg);
	return cli_usage_error(err, prog, "unknown option -%c", optopt);
}

int
cli_parse_cpu(const char *arg, int *cpu, const char *prog, struct pmustat_error **err)
{
	if (cpu_parse_number(arg, cpu) < 0)
		return cli_usage_error(err, prog, "-C '%s': expected a CPU number (0-%d)", arg, CPU_SETSIZE - 1);
	return 0;
}
