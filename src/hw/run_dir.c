/*
 * run_dir.c - see run_dir.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hw/run_dir.h"
#include "base/err.h"

int
run_dir_open(int parent_fd, const char *name, mode_t mode, bool create, const char *display,
	     struct pmustat_error **err)
{
	struct stat st;
	int fd, rc;

	if (create && mkdirat(parent_fd, name, mode) < 0 && errno != EEXIST) {
		rc = -errno;
		return err_set(err, rc, "cannot create the directory %s: %s; run pmustat as root", display,
			 strerror(-rc));
	}
	fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		if (rc == -ENOENT)
			return rc;
		return err_set(err, rc, "cannot open the directory %s: %s%s", display, strerror(-rc),
			 rc == -ELOOP || rc == -ENOTDIR ? " (not a directory; remove it)" :
			 rc == -EACCES ? "; run pmustat as root" : "");
	}
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		close(fd);
		return err_set(err, rc, "cannot stat %s: %s", display, strerror(-rc));
	}
	/* Anybody who can put a file here could make root write MSRs, or jam a core. */
	if (st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		return err_set(err, -EPERM, "the directory %s is not private to pmustat (owner uid %u, mode %03o); pmustat trusts it only when its own user owns it and nobody else may write it: remove it (a new one is made) or chown root and chmod go-w it",
			 display, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	}
	return fd;
}

/*
 * All of @buf, or -1 with errno: a short write (a full file system, a file
 * size limit) is followed by another, which says why it cannot go on.
 */
static int
write_whole(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int
run_dir_write_file(int dfd, const char *dir, const char *name, const void *buf, size_t len,
		   struct pmustat_error **err)
{
	char tmp[96];
	int fd;

	snprintf(tmp, sizeof(tmp), ".%.48s.%ld.tmp", name, (long)getpid());
	(void)unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return err_set(err, -errno, "cannot create %s/%s: %s", dir, tmp, strerror(errno));
	if (write_whole(fd, buf, len) < 0 || fsync(fd) < 0) {
		int rc = -errno;

		close(fd);
		(void)unlinkat(dfd, tmp, 0);
		return err_set(err, rc, "cannot write %s/%s: %s", dir, tmp, strerror(-rc));
	}
	close(fd);
	if (renameat(dfd, tmp, dfd, name) < 0) {
		int rc = -errno;

		(void)unlinkat(dfd, tmp, 0);
		return err_set(err, rc, "cannot rename %s/%s to %s/%s: %s", dir, tmp, dir, name, strerror(-rc));
	}
	/* The rename itself must survive a crash too. */
	if (fsync(dfd) < 0)
		return err_set(err, -errno, "cannot sync the directory %s: %s", dir, strerror(errno));
	return 0;
}
