/*
 * emu_preload_paths.c - libpmuemu.so moves the machine's own files
 * (emu_paths.h: pmustat's journals and locks under /run) into STATE.d, in
 * every libc call that takes a path; open, fopen and stat are
 * emu_preload_dev.c's, which also serve the emulated devices.
 */
/*
 * Meson builds with _FILE_OFFSET_BITS=64, which renames open to open64 and
 * so on; we define both names ourselves (on x86-64 they are the same calls).
 */
#undef _FILE_OFFSET_BITS

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emu_paths.h"
#include "emu_preload_internal.h"

/*
 * @path, or its place in the machine's directory when it is one of the
 * machine's own files (emu_paths.h); NULL with errno when that place has
 * no valid name, so that nothing falls through to the host's /run.
 * Async-signal-safe: pmustat unlinks its journal from a signal handler.
 */
const char *
moved(const char *path, char buf[PATH_MAX])
{
	int rc;

	if (!machine_owns_run || !path || path[0] != '/')
		return path;
	rc = emu_paths_map(machine_dir, path, buf, machine_dir_room);
	if (rc < 0) {
		errno = -rc;
		return NULL;
	}
	return rc ? buf : path;
}

/*
 * The rest of the calls that take a path, for the machine's own files
 * only: fstatat() and statx() are not asked about /dev/cpu or the kernel
 * files by anything we run (stat() and open() are).
 */
EXPORT int
fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_fstatat(dirfd, path, st, flags);
}

EXPORT int
fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	return fstatat(dirfd, path, (struct stat *)st, flags);
}

EXPORT int
statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *st)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_statx(dirfd, path, flags, mask, st);
}

EXPORT int
access(const char *path, int mode)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_access(path, mode);
}

EXPORT int
faccessat(int dirfd, const char *path, int mode, int flags)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_faccessat(dirfd, path, mode, flags);
}

EXPORT int
mkdir(const char *path, mode_t mode)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_mkdir(path, mode);
}

EXPORT int
mkdirat(int dirfd, const char *path, mode_t mode)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_mkdirat(dirfd, path, mode);
}

EXPORT int
rmdir(const char *path)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_rmdir(path);
}

EXPORT int
unlink(const char *path)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_unlink(path);
}

EXPORT int
unlinkat(int dirfd, const char *path, int flags)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_unlinkat(dirfd, path, flags);
}

EXPORT int
rename(const char *from, const char *to)
{
	char buf1[PATH_MAX], buf2[PATH_MAX];

	resolve();
	MOVE(from, buf1);
	MOVE(to, buf2);
	return real_rename(from, to);
}

EXPORT int
renameat(int fromfd, const char *from, int tofd, const char *to)
{
	char buf1[PATH_MAX], buf2[PATH_MAX];

	resolve();
	MOVE(from, buf1);
	MOVE(to, buf2);
	return real_renameat(fromfd, from, tofd, to);
}

EXPORT int
renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned flags)
{
	char buf1[PATH_MAX], buf2[PATH_MAX];

	resolve();
	MOVE(from, buf1);
	MOVE(to, buf2);
	return real_renameat2(fromfd, from, tofd, to, flags);
}

EXPORT DIR *
opendir(const char *path)
{
	char buf[PATH_MAX];

	resolve();
	path = moved(path, buf);
	return path ? real_opendir(path) : NULL;
}

EXPORT int
chdir(const char *path)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_chdir(path);
}

EXPORT int
chmod(const char *path, mode_t mode)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_chmod(path, mode);
}

EXPORT int
fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_fchmodat(dirfd, path, mode, flags);
}

EXPORT int
chown(const char *path, uid_t uid, gid_t gid)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_chown(path, uid, gid);
}

EXPORT int
lchown(const char *path, uid_t uid, gid_t gid)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_lchown(path, uid, gid);
}

EXPORT int
fchownat(int dirfd, const char *path, uid_t uid, gid_t gid, int flags)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_fchownat(dirfd, path, uid, gid, flags);
}

EXPORT int
truncate(const char *path, off_t len)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_truncate(path, len);
}

EXPORT int
truncate64(const char *path, off_t len)
{
	return truncate(path, len);
}

EXPORT ssize_t
readlink(const char *path, char *out, size_t size)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_readlink(path, out, size);
}

EXPORT ssize_t
readlinkat(int dirfd, const char *path, char *out, size_t size)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_readlinkat(dirfd, path, out, size);
}

/* The link's own name moves; what it points to is text, kept as written. */
EXPORT int
symlink(const char *target, const char *path)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_symlink(target, path);
}

EXPORT int
link(const char *from, const char *to)
{
	char buf1[PATH_MAX], buf2[PATH_MAX];

	resolve();
	MOVE(from, buf1);
	MOVE(to, buf2);
	return real_link(from, to);
}

