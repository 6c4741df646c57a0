/*
 * std_streams.c - see std_streams.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/exit_codes.h"
#include "base/std_streams.h"

int
std_streams_open(struct pmustat_error **err)
{
	for (int fd = 0; fd <= 2; fd++) {
		const char *path = fd == 0 ? "/dev/full" : "/dev/null";
		int got;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* The lowest free number: this very one. */
		got = open(path, fd == 0 ? O_WRONLY : O_RDONLY);
		if (got != fd) {
			int rc = got < 0 ? -errno : -EBADF;

			if (got >= 0)
				close(got);
			return err_set(err, rc, "descriptor %d (standard %s) is closed and %s cannot take its place: %s; start pmustat with it open (%s)",
				       fd, fd == 0 ? "input" : fd == 1 ? "output" : "error", path, strerror(-rc),
				       fd == 0 ? "</dev/null" : fd == 1 ? ">/dev/null" : "2>/dev/null");
		}
	}
	return 0;
}

int
std_streams_finish(const char *prog, int status)
{
	int e;

	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout)) {
		/* The human reports (info's, reset's, stat's table) are on stderr: one lost there is lost too. */
		if (fflush(stderr) == 0 && !ferror(stderr))
			return status;
		return EXIT_PMUSTAT_FAILURE;
	}
	e = errno;
	if (status == EXIT_PMUSTAT_FAILURE)
		return status;
	if (e)
		fprintf(stderr, "%s: cannot write the standard output: %s; the output is incomplete\n", prog, strerror(e));
	else
		fprintf(stderr, "%s: a write to the standard output failed; the output is incomplete\n", prog);
	return EXIT_PMUSTAT_FAILURE;
}
