/*
 * emu_paths.c - the emulated machine's own files (see emu_paths.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "emu_paths.h"

/* The per-machine prefixes: a directory tree, and a name prefix in a shared directory. */
#define RUN_TREE	"/run/pmustat"
#define LOCK_PREFIX	"/run/lock/pmustat-"

/* @a then @b into @buf. 0 or -ENAMETOOLONG. */
static int
join(char *buf, size_t size, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la + lb + 1 > size)
		return -ENAMETOOLONG;
	memcpy(buf, a, la);
	memcpy(buf + la, b, lb + 1);
	return 0;
}

int
emu_paths_dir(const char *state, char *buf, size_t size)
{
	return join(buf, size, state, EMU_PATHS_SUFFIX);
}

static int
per_machine(const char *path)
{
	size_t n = strlen(RUN_TREE);

	if (strncmp(path, RUN_TREE, n) == 0 && (path[n] == '\0' || path[n] == '/'))
		return 1;
	return strncmp(path, LOCK_PREFIX, strlen(LOCK_PREFIX)) == 0;
}

int
emu_paths_map(const char *dir, const char *path, char *buf, size_t size)
{
	int err;

	if (!dir || !path || !per_machine(path))
		return 0;
	err = join(buf, size, dir, path);
	return err ? err : 1;
}

static int
make_dir(const char *path, mode_t mode)
{
	if (syscall(SYS_mkdirat, AT_FDCWD, path, mode) < 0 && errno != EEXIST)
		return -errno;
	/* The umask narrowed it; only a directory we may change is changed. */
	if (syscall(SYS_fchmodat, AT_FDCWD, path, mode) < 0 && errno != EPERM)
		return -errno;
	return 0;
}

int
emu_paths_create(const char *dir)
{
	char path[4096];
	int err;

	err = make_dir(dir, 0755);
	if (!err)
		err = join(path, sizeof(path), dir, "/run");
	if (!err)
		err = make_dir(path, 0755);
	if (!err)
		err = join(path, sizeof(path), dir, "/run/lock");
	if (!err)
		err = make_dir(path, 01777);
	return err;
}

static int remove_errno;

static int
remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((type == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT) {
		remove_errno = errno;
		return 1;
	}
	return 0;
}

int
emu_paths_clear(const char *dir)
{
	char path[4096];
	struct dirent *e;
	DIR *d;
	int err;

	err = join(path, sizeof(path), dir, RUN_TREE);
	if (err)
		return err;
	remove_errno = 0;
	switch (nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT)) {
	case 0:
		break;
	case -1:
		if (errno != ENOENT)
			return -errno;
		break;
	default:
		return -remove_errno;
	}
	err = join(path, sizeof(path), dir, "/run/lock");
	if (err)
		return err;
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "pmustat-", 8) == 0 && unlinkat(dirfd(d), e->d_name, 0) < 0 &&
		    errno != ENOENT) {
			err = -errno;
			break;
		}
	}
	closedir(d);
	return err;
}
