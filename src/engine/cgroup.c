/*
 * cgroup.c - see cgroup.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "engine/cgroup.h"

/* Whether the comma-separated @opts has @word. */
static bool
has_option(const char *opts, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = opts; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, word, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* The mount point of the hierarchy perf's cgroups are in: v1 with perf_event, else v2. */
static int
hierarchy(const char *mounts, char *dir, size_t size)
{
	char line[4096], mnt[PATH_MAX], type[64], opts[1024], v2[PATH_MAX] = "";
	FILE *f = fopen(mounts, "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %4095s %63s %1023s", mnt, type, opts) != 3)
			continue;
		if (strcmp(type, "cgroup") == 0 && has_option(opts, "perf_event")) {
			fclose(f);
			snprintf(dir, size, "%s", mnt);
			return 0;
		}
		if (strcmp(type, "cgroup2") == 0 && !v2[0])
			snprintf(v2, sizeof(v2), "%s", mnt);
	}
	fclose(f);
	if (!v2[0])
		return -ENOENT;
	snprintf(dir, size, "%s", v2);
	return 0;
}

int
cgroup_open(const char *name, const char *mounts, struct pmustat_error **err)
{
	char root[PATH_MAX], path[2 * PATH_MAX + 2];
	const char *rel = name + strspn(name, "/");
	int fd;

	if (!name[0] || strstr(name, "..") || strlen(name) >= PATH_MAX / 2)
		return err_set(err, -EINVAL, "-G %s: want a cgroup's name, as perf stat -G takes it (a path below the cgroup hierarchy's root, without '..')",
			       name);
	if (hierarchy(mounts, root, sizeof(root)))
		return err_set(err, -ENOENT,
			       "-G %s: no cgroup hierarchy to find it in (no cgroup2 mount, nor a cgroup one with the perf_event controller, in %s)",
			       name, mounts);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (strlen(path) >= PATH_MAX)
		return err_set(err, -ENAMETOOLONG, "-G %s: the path is too long", name);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, -errno, "-G %s: %s: %s", name, path,
			       errno == ENOENT ? "no such cgroup" : strerror(errno));
	return fd;
}
