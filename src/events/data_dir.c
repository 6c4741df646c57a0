#include "config.h"
#include "events/data_dir.h"

#include <limits.h>
#include <string.h>
#include <unistd.h>

/*
 * Decided by where the binary is, not by an environment variable: pmustat
 * runs as root, and what it reads must not be redirectable by the caller.
 */
const char *
pmustat_events_dir(void)
{
	static char dir[PATH_MAX];
	char exe[PATH_MAX];
	ssize_t n;
	size_t root_len = strlen(PMUSTAT_BUILD_ROOT);

	if (dir[0])
		return dir;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if (strncmp(exe, PMUSTAT_BUILD_ROOT, root_len) == 0 &&
		    (exe[root_len] == '/' || exe[root_len] == '\0')) {
			strncpy(dir, PMUSTAT_SOURCE_ROOT "/events", sizeof(dir) - 1);
			return dir;
		}
	}
	strncpy(dir, PMUSTAT_EVENTS_DIR, sizeof(dir) - 1);
	return dir;
}
