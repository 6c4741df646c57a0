/*
 * data_dir.c - see data_dir.h.
 */
#include "config.h"
#include "events/data_dir.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Whether @dir holds event tables (their mapfile). */
static int
holds_tables(const char *dir)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/mapfile.csv", dir) >= sizeof(path))
		return 0;
	return access(path, F_OK) == 0;
}

const char *
pmustat_events_dir(void)
{
	/* PMUSTAT_EVENTS_REL is "" when bindir or datadir was configured absolute. */
	static const char *const beside[] = { PMUSTAT_EVENTS_REL, "share/pmustat/events" };
	static char dir[PATH_MAX];
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			for (size_t i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
				if (beside[i][0] &&
				    (size_t)snprintf(dir, sizeof(dir), "%s/%s", exe, beside[i]) < sizeof(dir) &&
				    holds_tables(dir))
					return dir;
			}
		}
	}
	snprintf(dir, sizeof(dir), "%s", PMUSTAT_EVENTS_DIR);
	return dir;
}
