/*
 * outfile.c - see outfile.h.
 *
 * The path is walked one component at a time from "/" (or the current
 * directory), each opened with O_PATH | O_NOFOLLOW relative to the last, so
 * that what is checked is what is used: a symbolic link is read through the
 * descriptor whose owner was checked, and a component swapped meanwhile is
 * at worst refused, never followed. The walk and every open, create,
 * rename and unlink run with the invoking user's rights.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/invoker.h"
#include "report/outfile.h"
#include "base/err.h"

#define MAX_LINKS 40
#define MAX_SLOTS 4

/* Temporary files a fatal signal must not leave behind. */
static struct {
	volatile sig_atomic_t armed;
	int dirfd;
	char tmp[NAME_MAX + 1];
} slots[MAX_SLOTS];

static int
fail(const struct outfile *o, struct pmustat_error **err, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int
fail(const struct outfile *o, struct pmustat_error **err, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_setv(err, rc, fmt, ap);
	va_end(ap);
	err_wrap(err, "%s %s", o->what, o->path);
	return rc;
}

/* A strict decimal descriptor number, or -1. */
static int
parse_fd(const char *s)
{
	long v = 0;

	if (!s[0] || (s[0] == '0' && s[1]))
		return -1;
	for (size_t i = 0; s[i]; i++) {
		if (s[i] < '0' || s[i] > '9' || i >= 9)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return (int)v;
}

/* The descriptor @path names (/dev/stdout, /dev/fd/N, /proc/self/fd/N ...), or -1. */
static int
fd_of_path(const char *path)
{
	static const char *const prefixes[] = { "/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/" };
	char own[64];

	if (strcmp(path, "/dev/stdin") == 0)
		return 0;
	if (strcmp(path, "/dev/stdout") == 0)
		return 1;
	if (strcmp(path, "/dev/stderr") == 0)
		return 2;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(path, prefixes[i], strlen(prefixes[i])) == 0)
			return parse_fd(path + strlen(prefixes[i]));
	snprintf(own, sizeof(own), "/proc/%ld/fd/", (long)getpid());
	if (strncmp(path, own, strlen(own)) == 0)
		return parse_fd(path + strlen(own));
	return -1;
}

static bool
trusted_link(const struct outfile *o, const struct stat *st)
{
	return st->st_uid == 0 || st->st_uid == o->inv->uid;
}

/*
 * Walk @o->path: 0 with the directory (*@dirfd) and the last component
 * (o->name) when it is a file to create or replace; 1 with *@fdnum when it
 * names a descriptor; -errno with a message.
 */
static int
resolve(struct outfile *o, int *dirfd, int *fdnum, struct pmustat_error **err)
{
	char work[2 * PATH_MAX], target[PATH_MAX], walked[PATH_MAX], comp[NAME_MAX + 1];
	int dfd, links = 0, rc;
	char *p;

	if (strlen(o->path) >= PATH_MAX)
		return fail(o, err, -ENAMETOOLONG, "path too long");
	snprintf(work, sizeof(work), "%s", o->path);
	if (work[0] && work[strlen(work) - 1] == '/')
		return fail(o, err, -EISDIR, "cannot write: %s", strerror(EISDIR));
	/* The directory reached so far, for messages: "/tmp/", or "" from the current one. */
	snprintf(walked, sizeof(walked), "%s", work[0] == '/' ? "/" : "");
	dfd = open(work[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return fail(o, err, -errno, "cannot write: %s", strerror(errno));
	p = work;
	for (;;) {
		struct stat st;
		char *end;
		size_t len;
		bool last;
		int nfd;
		ssize_t n;

		/* A whole absolute path (given, or a link's text) may name a descriptor. */
		if (p == work && work[0] == '/') {
			*fdnum = fd_of_path(work);
			if (*fdnum >= 0) {
				close(dfd);
				return 1;
			}
		}
		while (*p == '/')
			p++;
		if (!*p) {
			/* "/" itself, or a link to a directory ending the path. */
			close(dfd);
			return fail(o, err, -EISDIR, "cannot write: %s", strerror(EISDIR));
		}
		end = strchr(p, '/');
		len = end ? (size_t)(end - p) : strlen(p);
		if (len > NAME_MAX) {
			close(dfd);
			return fail(o, err, -ENAMETOOLONG, "cannot write: %s", strerror(ENAMETOOLONG));
		}
		memcpy(comp, p, len);
		comp[len] = '\0';
		p += len;
		last = *p == '\0';
		nfd = openat(dfd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 && last && errno == ENOENT) {
			/* A new file. */
			snprintf(o->name, sizeof(o->name), "%s", comp);
			*dirfd = dfd;
			return 0;
		}
		if (nfd < 0) {
			rc = -errno;
			close(dfd);
			return fail(o, err, rc, "cannot write: %s%s: %s", walked, comp, strerror(-rc));
		}
		if (fstat(nfd, &st) != 0) {
			rc = -errno;
			close(nfd);
			close(dfd);
			return fail(o, err, rc, "cannot write: %s", strerror(-rc));
		}
		if (S_ISLNK(st.st_mode)) {
			if (!trusted_link(o, &st)) {
				close(nfd);
				close(dfd);
				return fail(o, err, -ELOOP,
					    "%s%s is a symbolic link owned by uid %u (neither you nor root); refusing to write through it (give the target itself)",
					    walked, comp, (unsigned)st.st_uid);
			}
			n = readlinkat(nfd, "", target, sizeof(target) - 1);
			rc = n < 0 ? -errno : 0;
			close(nfd);
			if (n <= 0 || ++links > MAX_LINKS || (size_t)n + strlen(p) + 1 >= sizeof(work)) {
				close(dfd);
				return fail(o, err, rc ? rc : -ELOOP, "cannot write: %s",
					    strerror(rc ? -rc : ELOOP));
			}
			target[n] = '\0';
			/* The link's text replaces its component; the rest of the path follows it. */
			memmove(work + n, p, strlen(p) + 1);
			memcpy(work, target, (size_t)n);
			p = work;
			if (work[0] == '/') {
				close(dfd);
				snprintf(walked, sizeof(walked), "/");
				dfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
				if (dfd < 0)
					return fail(o, err, -errno, "cannot write: %s", strerror(errno));
			}
			continue;
		}
		if (last) {
			close(nfd);
			snprintf(o->name, sizeof(o->name), "%s", comp);
			*dirfd = dfd;
			return 0;
		}
		if (!S_ISDIR(st.st_mode)) {
			close(nfd);
			close(dfd);
			return fail(o, err, -ENOTDIR, "cannot write: %s%s: %s", walked, comp,
				    strerror(ENOTDIR));
		}
		close(dfd);
		dfd = nfd;
		if (strlen(walked) + len + 2 < sizeof(walked))
			snprintf(walked + strlen(walked), sizeof(walked) - strlen(walked), "%s/", comp);
	}
}

/*
 * The stream's writes. stdio keeps only an error flag, and the write that
 * failed may be long past by outfile_commit() (output larger than the
 * buffer): the errno is kept here, so a full disk is reported as such.
 */
static ssize_t
stream_write(void *cookie, const char *buf, size_t size)
{
	struct outfile *o = cookie;
	size_t done = 0;

	while (done < size) {
		ssize_t n = write(o->fd, buf + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!o->write_errno)
				o->write_errno = n < 0 ? errno : EIO;
			/* fopencookie(3): 0 on error, never negative. */
			return 0;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static int
stream_close(void *cookie)
{
	struct outfile *o = cookie;

	return close(o->fd);
}

/* A stream on o->fd (which it closes), buffered as fdopen() would: by lines on a terminal. */
static FILE *
open_stream(struct outfile *o)
{
	const cookie_io_functions_t io = { .write = stream_write, .close = stream_close };
	FILE *f = fopencookie(o, "w", io);

	/* setvbuf() fails only for a mode it does not know. */
	if (f && isatty(o->fd))
		(void)setvbuf(f, NULL, _IOLBF, BUFSIZ);
	return f;
}

/* A descriptor pmustat has: written as it is. */
static int
open_fd(struct outfile *o, int n, struct pmustat_error **err)
{
	int flags = fcntl(n, F_GETFL);

	if (flags < 0)
		return fail(o, err, -EBADF, "descriptor %d is not open", n);
	if ((flags & O_ACCMODE) == O_RDONLY)
		return fail(o, err, -EBADF, "descriptor %d is open for reading only", n);
	o->fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
	if (o->fd < 0)
		return fail(o, err, -errno, "cannot duplicate descriptor %d: %s", n, strerror(errno));
	/* "w" neither truncates nor changes the descriptor's flags (its O_APPEND stays). */
	o->f = open_stream(o);
	if (!o->f) {
		int rc = -errno;

		close(o->fd);
		o->fd = -1;
		return fail(o, err, rc, "%s", strerror(-rc));
	}
	return 0;
}

static void
arm(struct outfile *o)
{
	for (int i = 0; i < MAX_SLOTS; i++) {
		if (slots[i].armed)
			continue;
		slots[i].dirfd = o->dirfd;
		memcpy(slots[i].tmp, o->tmp, sizeof(slots[i].tmp));
		slots[i].armed = 1;
		o->slot = i;
		return;
	}
}

static void
disarm(struct outfile *o)
{
	if (o->slot >= 0)
		slots[o->slot].armed = 0;
	o->slot = -1;
}

/* A new file beside the target, renamed over it by outfile_commit(). */
static int
open_tmp(struct outfile *o, const struct stat *old, struct pmustat_error **err)
{
	static unsigned serial;
	int rc = -EEXIST;

	for (int attempt = 0; attempt < 100 && rc == -EEXIST; attempt++) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		snprintf(o->tmp, sizeof(o->tmp), ".%.*s.pmustat-%ld-%u-%lx", NAME_MAX - 48, o->name,
			 (long)getpid(), serial++, (unsigned long)ts.tv_nsec);
		o->fd = openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			       old ? 0600 : 0666);
		rc = o->fd < 0 ? -errno : 0;
	}
	if (rc) {
		o->tmp[0] = '\0';
		return fail(o, err, rc, "cannot write: cannot create a file in its directory: %s",
			    strerror(-rc));
	}
	arm(o);
	/* Replacing a file: the new one gets its permissions. */
	if (old && fchmod(o->fd, old->st_mode & 0777) != 0) {
		rc = -errno;
		goto undo;
	}
	o->f = open_stream(o);
	if (!o->f) {
		rc = -errno;
		goto undo;
	}
	return 0;
undo:
	close(o->fd);
	o->fd = -1;
	(void)unlinkat(o->dirfd, o->tmp, 0);
	disarm(o);
	o->tmp[0] = '\0';
	return fail(o, err, rc, "cannot write: %s", strerror(-rc));
}

/* --append: the target's bytes into the new file, before anything else is written. */
static int
copy_old(struct outfile *o)
{
	char buf[65536];
	ssize_t n;
	int in = openat(o->dirfd, o->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	int rc = 0;

	if (in < 0)
		return -errno;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, (size_t)n, o->f) != (size_t)n) {
			rc = -EIO;
			break;
		}
	if (n < 0)
		rc = -errno;
	close(in);
	return rc;
}

static int
open_as_user(struct outfile *o, struct pmustat_error **err)
{
	struct stat st;
	int fdnum = -1, rc, fd;

	rc = resolve(o, &o->dirfd, &fdnum, err);
	if (rc == 1) {
		o->dirfd = -1;
		return open_fd(o, fdnum, err);
	}
	if (rc < 0) {
		o->dirfd = -1;
		return rc;
	}
	if (fstatat(o->dirfd, o->name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (errno != ENOENT)
			return fail(o, err, -errno, "cannot write: %s", strerror(errno));
		return open_tmp(o, NULL, err);
	}
	if (S_ISDIR(st.st_mode))
		return fail(o, err, -EISDIR, "cannot write: %s", strerror(EISDIR));
	if (S_ISLNK(st.st_mode))
		return fail(o, err, -ELOOP, "became a symbolic link while pmustat looked at it; not written");
	if (!S_ISREG(st.st_mode)) {
		/* A FIFO, terminal or device: written as it is, as a shell's > would. */
		fd = openat(o->dirfd, o->name, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			return fail(o, err, -errno, "cannot write: %s", strerror(errno));
		if (fstat(fd, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
			close(fd);
			return fail(o, err, -EAGAIN, "changed while pmustat opened it; not written");
		}
		o->fd = fd;
		o->f = open_stream(o);
		if (!o->f) {
			rc = -errno;
			close(fd);
			o->fd = -1;
			return fail(o, err, rc, "%s", strerror(-rc));
		}
		return 0;
	}
	/* A regular file: the user must be allowed to write it, as with >. */
	fd = openat(o->dirfd, o->name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return fail(o, err, -errno, "cannot write: %s", strerror(errno));
	close(fd);
	rc = open_tmp(o, &st, err);
	if (rc == 0 && o->append && (rc = copy_old(o)) != 0) {
		outfile_abort(o);
		return fail(o, err, rc, "--append: cannot copy what the file holds: %s", strerror(-rc));
	}
	return rc;
}

static int
open_file(struct outfile *o, const char *what, const char *path, const struct invoker *inv, bool append,
	  struct pmustat_error **err)
{
	struct invoker_fs fs;
	int rc;

	memset(o, 0, sizeof(*o));
	o->append = append;
	o->what = what;
	o->inv = inv;
	o->fd = -1;
	o->dirfd = -1;
	o->slot = -1;
	snprintf(o->path, sizeof(o->path), "%s", path);
	if (!path[0])
		return fail(o, err, -ENOENT, "cannot write: %s", strerror(ENOENT));
	rc = invoker_fs_enter(inv, &fs, err);
	if (rc)
		return rc;
	rc = open_as_user(o, err);
	invoker_fs_leave(&fs);
	if (rc) {
		if (o->dirfd >= 0)
			close(o->dirfd);
		o->dirfd = -1;
	}
	return rc;
}

int
outfile_open(struct outfile *o, const char *what, const char *path, const struct invoker *inv,
	     struct pmustat_error **err)
{
	return open_file(o, what, path, inv, false, err);
}

int
outfile_open_append(struct outfile *o, const char *what, const char *path, const struct invoker *inv,
		    struct pmustat_error **err)
{
	return open_file(o, what, path, inv, true, err);
}

void
outfile_wrap(struct outfile *o, FILE *f, const char *name)
{
	memset(o, 0, sizeof(*o));
	o->what = "writing to";
	snprintf(o->path, sizeof(o->path), "%s", name);
	o->f = f;
	o->fd = -1;
	o->dirfd = -1;
	o->slot = -1;
}

int
outfile_write_all(struct outfile *o, const void *buf, size_t len)
{
	if (!o->f)
		return -EBADF;
	if (len && fwrite(buf, 1, len, o->f) != len)
		return o->write_errno ? -o->write_errno : errno ? -errno : -EIO;
	return 0;
}

static void
close_all(struct outfile *o)
{
	if (o->f && o->fd >= 0)
		fclose(o->f);
	o->f = NULL;
	o->fd = -1;
	if (o->dirfd >= 0)
		close(o->dirfd);
	o->dirfd = -1;
}

static void
remove_tmp(struct outfile *o)
{
	struct invoker_fs fs;

	if (!o->tmp[0] || o->dirfd < 0)
		return;
	if (invoker_fs_enter(o->inv, &fs, NULL) == 0) {
		(void)unlinkat(o->dirfd, o->tmp, 0);
		invoker_fs_leave(&fs);
	}
	disarm(o);
	o->tmp[0] = '\0';
}

int
outfile_commit(struct outfile *o, struct pmustat_error **err)
{
	struct invoker_fs fs;
	int rc = 0, e;

	if (!o->f)
		return 0;
	errno = 0;
	if (fflush(o->f) != 0 || ferror(o->f)) {
		e = o->write_errno ? o->write_errno : errno ? errno : EIO;
		rc = fail(o, err, -e, "cannot write: %s", strerror(e));
	}
	if (o->fd < 0) {
		/* A stream pmustat does not own (stderr): flushed, kept open. */
		o->f = NULL;
		return rc;
	}
	if (!rc && o->tmp[0] && fsync(o->fd) != 0)
		rc = fail(o, err, -errno, "cannot write: %s", strerror(errno));
	errno = 0;
	if (fclose(o->f) != 0 && !rc) {
		e = o->write_errno ? o->write_errno : errno ? errno : EIO;
		rc = fail(o, err, -e, "cannot write: %s", strerror(e));
	}
	o->f = NULL;
	o->fd = -1;
	if (o->tmp[0] && !rc) {
		rc = invoker_fs_enter(o->inv, &fs, err);
		if (rc == 0) {
			if (renameat(o->dirfd, o->tmp, o->dirfd, o->name) != 0)
				rc = -errno;
			invoker_fs_leave(&fs);
			if (rc)
				fail(o, err, rc, "cannot put the file in place: %s", strerror(-rc));
			else
				disarm(o);
		} else {
			err_wrap(err, "%s %s", o->what, o->path);
		}
	}
	if (rc && o->tmp[0]) {
		remove_tmp(o);
		err_append(err, "; the file was left as it was");
	}
	o->tmp[0] = '\0';
	close_all(o);
	return rc;
}

void
outfile_abort(struct outfile *o)
{
	if (o->f && o->fd >= 0) {
		fclose(o->f);
		o->f = NULL;
		o->fd = -1;
	}
	remove_tmp(o);
	close_all(o);
}

void
outfile_remove_from_signal(void)
{
	/* unlinkat() is async-signal-safe; the names were stored when opened. */
	for (int i = 0; i < MAX_SLOTS; i++)
		if (slots[i].armed)
			(void)unlinkat(slots[i].dirfd, slots[i].tmp, 0);
}
