/*
 * run_dir.h - pmustat's per-machine state, all under /run/pmustat: the crash
 * journals (cpuN.journal) and, in lock/, the per-core locks (cpuN).
 *
 *	/run/pmustat/		root's, 0700: journals, whose values root writes to MSRs
 *	/run/pmustat/lock/	root's, 0755
 *	/run/pmustat/lock/cpuN	root's, 0600, a regular file: flock()ed by the run on core N
 *
 * Only root can create anything there, and every directory and file is
 * checked before use (run_dir_open(), cpulock.c, journal.c): a symbolic
 * link, another owner or a mode that lets others write is refused, naming
 * the path, never followed or trusted.
 */
#ifndef PMUSTAT_RUN_DIR_H
#define PMUSTAT_RUN_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct pmustat_error;

#define PMUSTAT_RUN_DIR "/run/pmustat"

/*
 * Open the directory @name in @parent_fd (AT_FDCWD with an absolute path),
 * creating it with @mode when @create and it is missing. The directory must
 * be this user's (root's) and writable by nobody else, and not a symbolic
 * link. Returns its fd (O_DIRECTORY, close-on-exec); -ENOENT when it is
 * missing and not @create (no message); other -errno with a message naming
 * @display, the path.
 */
int
run_dir_open(int parent_fd, const char *name, mode_t mode, bool create, const char *display,
	     struct pmustat_error **err);

/*
 * Write @len bytes of @buf as @name in the directory @dfd (@dir, for
 * messages) so that a crash leaves the old file or the new one, never a
 * part: a temporary file of this process in it (0600, never through a
 * link), fsynced, renamed over @name, the directory fsynced. 0, or -errno
 * with a message naming the file.
 */
int
run_dir_write_file(int dfd, const char *dir, const char *name, const void *buf, size_t len,
		   struct pmustat_error **err);

#endif
