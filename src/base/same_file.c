/*
 * same_file.c - see same_file.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/same_file.h"

/* @path's directory, resolved, and its last component; false when it cannot be resolved. */
static bool
split(const char *path, char dir[PATH_MAX], const char **name)
{
	const char *slash = strrchr(path, '/');
	char d[PATH_MAX];

	if (!slash) {
		snprintf(d, sizeof(d), ".");
		*name = path;
	} else {
		size_t n = slash == path ? 1 : (size_t)(slash - path);

		if (n >= sizeof(d))
			return false;
		memcpy(d, path, n);
		d[n] = '\0';
		*name = slash + 1;
	}
	return realpath(d, dir) != NULL;
}

bool
same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	int ra = stat(a, &sa), ea = errno;
	int rb = stat(b, &sb), eb = errno;
	char da[PATH_MAX], db[PATH_MAX];
	const char *na, *nb;

	if (ra == 0 && rb == 0)
		return S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	if (ra == 0 || rb == 0 || ea != ENOENT || eb != ENOENT)
		return false;
	if (strcmp(a, b) == 0)
		return true;
	return split(a, da, &na) && split(b, db, &nb) && strcmp(da, db) == 0 && strcmp(na, nb) == 0;
}

bool
same_file_fd(int fd, const char *path)
{
	struct stat sf, sp;

	if (fstat(fd, &sf) != 0 || stat(path, &sp) != 0)
		return false;
	return S_ISREG(sf.st_mode) && sf.st_dev == sp.st_dev && sf.st_ino == sp.st_ino;
}
