/*
 * outfile.h - a file pmustat writes for its user: -o, --save-baseline,
 * info --save-cpu-dump. The rules, all here:
 *
 * - It is opened with the invoking user's rights (invoker.h), never root's.
 * - A symbolic link, in any component of the path, is followed only when
 *   root or that user owns it: a link somebody else planted (in /tmp, in a
 *   directory of theirs) is refused, naming it.
 * - /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N name a
 *   descriptor pmustat already has: it is written as it is, never reopened
 *   or truncated, so a descriptor in append mode (>>) is appended to.
 * - An existing FIFO, terminal or other device is opened and written as it
 *   is (no truncation).
 * - A regular file, or a new one, is written to a temporary file in the
 *   same directory and renamed over the target by outfile_commit(): the
 *   target is either whole or as it was. The new file keeps an existing
 *   target's permission bits; a new one gets 0666 less the umask. The
 *   temporary file is removed on failure, and from a fatal signal's
 *   handler by outfile_remove_from_signal().
 *
 * - --append (outfile_open_append()): the new file starts as a copy of the
 *   target, so the target is still either whole (with the new results
 *   after the old ones) or as it was.
 *
 * A failed write is reported by outfile_commit() (or outfile_write_all()),
 * naming the file; the caller exits 125.
 */
#ifndef PMUSTAT_OUTFILE_H
#define PMUSTAT_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct pmustat_error;

struct invoker;

struct outfile {
	const char *what;		/* "-o", "--save-baseline": for messages */
	char path[PATH_MAX];		/* as given */
	const struct invoker *inv;
	FILE *f;			/* where to write; NULL when closed */
	int fd;				/* f's descriptor */
	int write_errno;		/* the first failed write's errno (stdio keeps only a flag) */
	/* Temporary-file mode: the directory, the target's name and the temporary's. */
	int dirfd;
	char name[NAME_MAX + 1];
	char tmp[NAME_MAX + 1];
	int slot;			/* in the signal handler's list, or -1 */
	bool append;			/* a regular target's content comes first */
};

/*
 * Open @path for writing as @inv (see the top), for option @what. 0, or
 * -errno with "WHAT PATH: ..." in @err: nothing was created then.
 */
int
outfile_open(struct outfile *o, const char *what, const char *path, const struct invoker *inv,
	     struct pmustat_error **err);

/* The same, the results after what the file holds (perf stat --append). */
int
outfile_open_append(struct outfile *o, const char *what, const char *path, const struct invoker *inv,
		    struct pmustat_error **err);

/*
 * Wrap a stream pmustat already writes (stderr) the same way, so that a
 * failed write of it is reported too; @name is for messages.
 */
void
outfile_wrap(struct outfile *o, FILE *f, const char *name);

/* Write @len bytes of @buf. 0, or -errno (reported again by outfile_commit()). */
int
outfile_write_all(struct outfile *o, const void *buf, size_t len);

/*
 * Flush, check that every write succeeded, and put the file in place
 * (rename the temporary file over the target). 0, or -errno with a message
 * naming the file; the target is then as it was and nothing is left
 * behind. Closes @o either way (a wrapped stream is only flushed).
 */
int
outfile_commit(struct outfile *o, struct pmustat_error **err);

/* Give up: close @o, remove the temporary file; the target stays as it was. */
void
outfile_abort(struct outfile *o);

/* For a fatal signal's handler: remove every temporary file still open. Async-signal-safe. */
void
outfile_remove_from_signal(void);

#endif
